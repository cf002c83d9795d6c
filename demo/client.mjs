// The demo page's MCP client (bundled by demo/server.mjs into /app.js with esbuild).
// It connects the official SDK Client to the demo server at /mcp and lets
// <koder-mcp-elicitation> answer every elicitation/create the server sends.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CancelledNotificationSchema, ElicitRequestSchema, ElicitationCompleteNotificationSchema, UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';

const TAG = 'koder-mcp-elicitation';
const CALL_TIMEOUT_MS = 15 * 60 * 1000; // a person answers the form: far above the SDK's 60 s default
const AUTO_CANCEL_MS = 5000;
const MAX_RETRIES = 3; // a server that keeps answering -32042 is not retried forever

const $ = (selector) => document.querySelector(selector);
const toolsBox = $('#tools');
const resultBox = $('#result');
const statusBox = $('#status');
const cancelButton = $('#cancel');
const autoCancel = $('#auto-cancel');

const setStatus = (message, state) => {
  statusBox.textContent = message;
  statusBox.dataset.state = state;
};
// If connecting fails below, the page says so rather than staying on "Connecting…".
const onFailure = (event) => setStatus(`Not connected: ${event.reason?.message ?? event.message ?? 'error'}`, 'error');
window.addEventListener('unhandledrejection', onFailure);
window.addEventListener('error', onFailure);

// The page works without the component, but then nothing can answer: say so instead of hanging.
const componentTimer = setTimeout(() => {
  if (!customElements.get(TAG)) {
    setStatus('The component did not load: build it with `npm run build` (dist/koder-mcp-elicitation.js).', 'error');
  }
}, 8000);
customElements.whenDefined(TAG).then(() => clearTimeout(componentTimer));

// --- elicitation wiring (quoted in the README) ------------------------------------------------
const el = document.querySelector('koder-mcp-elicitation');
const client = new Client({ name: 'koder-demo-page', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
// @modelcontextprotocol/sdk 1.x ignores notifications/cancelled for request id 0 (typescript-sdk#2115),
// and the first request a server sends has id 0: withdrawing it would leave its dialog open, and
// answer it later. So the page handles withdrawals itself. This replaces the SDK's own cancel handler,
// which only aborts request handlers; this client's only long-running handler is this one.
const withdrawals = new Map(); // elicitation/create request id → AbortController
client.setNotificationHandler(CancelledNotificationSchema, (n) => { withdrawals.get(n.params.requestId)?.abort(n.params.reason); });
client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
  await customElements.whenDefined('koder-mcp-elicitation');
  const withdrawn = new AbortController();
  withdrawals.set(extra.requestId, withdrawn);
  try {
    return await el.elicit(request.params, { signal: AbortSignal.any([extra.signal, withdrawn.signal]) });
  } catch (error) {
    // A withdrawn request gets no answer at all; settling would make the SDK send an error response.
    if (withdrawn.signal.aborted) return new Promise(() => {});
    throw error;
  } finally {
    withdrawals.delete(extra.requestId);
  }
});
client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => { el.complete(n.params.elicitationId); });
await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));

// URLElicitationRequiredError (-32042): the server needs URL-mode elicitations completed before it
// can answer. The element asks consent for each, waits for their completion, and says whether to
// retry the call.
async function withUrlElicitations(call, signal) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof UrlElicitationRequiredError) || attempt >= MAX_RETRIES) throw error;
      const outcome = await el.elicitRequired(error, { signal });
      if (!outcome.retry) {
        throw new Error(`the server needs a URL-mode elicitation first (-32042), and the user chose ${outcome.action}: not retried`);
      }
    }
  }
}
// --- end of elicitation wiring ----------------------------------------------------------------
window.removeEventListener('unhandledrejection', onFailure);
window.removeEventListener('error', onFailure);

let running = null; // { name, controller, timer }

function showResult(name, message, state) {
  resultBox.dataset.state = state;
  resultBox.dataset.tool = name;
  resultBox.textContent = message;
}

function setBusy(busy) {
  for (const button of toolsBox.querySelectorAll('button')) button.disabled = busy;
  cancelButton.disabled = !busy;
}

async function callTool(name) {
  if (running) throw new Error(`${running.name} is still running`);
  const controller = new AbortController();
  const timer = autoCancel?.checked
    ? setTimeout(() => controller.abort(new Error(`auto-cancelled after ${AUTO_CANCEL_MS / 1000} s`)), AUTO_CANCEL_MS)
    : undefined;
  running = { name, controller, timer };
  setBusy(true);
  showResult(name, `Running ${name}…`, 'running');
  try {
    const result = await withUrlElicitations(() => client.callTool({ name, arguments: {} }, undefined, {
      signal: controller.signal,
      timeout: CALL_TIMEOUT_MS,
    }), controller.signal);
    const output = result.content
      .map((block) => (block.type === 'text' ? block.text : JSON.stringify(block)))
      .join('\n');
    showResult(name, result.isError ? `${name} failed:\n${output}` : output, result.isError ? 'error' : 'done');
    return result;
  } catch (error) {
    if (controller.signal.aborted) {
      showResult(name, `${name} was cancelled: the client aborted the call (${controller.signal.reason?.message ?? 'cancelled'}), so the server withdrew its elicitation.`, 'cancelled');
    } else {
      showResult(name, `${name} failed: ${error.message}`, 'error');
    }
    throw error;
  } finally {
    clearTimeout(timer);
    running = null;
    setBusy(false);
  }
}

function cancel() {
  running?.controller.abort(new Error('cancelled from the page'));
}

cancelButton.addEventListener('click', cancel);

async function renderTools() {
  const { tools } = await client.listTools();
  toolsBox.replaceChildren();
  for (const tool of tools) {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.tool = tool.name;
    button.textContent = tool.title ?? tool.name;
    const code = document.createElement('code');
    code.textContent = tool.name;
    const about = document.createElement('span');
    about.className = 'about';
    about.textContent = tool.description ?? '';
    button.addEventListener('click', () => { callTool(tool.name).catch(() => { /* shown in #result */ }); });
    item.append(button, ' ', code, ' ', about);
    toolsBox.append(item);
  }
  return tools;
}

try {
  await renderTools();
  setStatus(`Connected to ${client.getServerVersion()?.title ?? client.getServerVersion()?.name ?? 'the server'}.`, 'connected');
} catch (error) {
  setStatus(`Could not list tools: ${error.message}`, 'error');
}

// For tests and the console: the page's dialog is modal, so the Cancel button is out of reach
// while it is open; `koderDemo.cancel()` (or the auto-cancel box) aborts the running call.
window.koderDemo = { client, callTool, cancel, get running() { return running?.name ?? null; } };
