// The demo page's MCP client (bundled by demo/server.mjs into /app.js with esbuild).
// It connects the official TypeScript SDK v2 Client to the demo server at /mcp, negotiating the
// protocol revision (`versionNegotiation: { mode: "auto" }`: MCP 2026-07-28 when the server speaks
// it, else 2025-11-25), and lets <koder-mcp-elicitation> answer every elicitation/create. Over
// 2026-07-28 the SDK drives the input_required rounds and calls the same handler once per input request.

import { Client, StreamableHTTPClientTransport, UrlElicitationRequiredError } from '@modelcontextprotocol/client';
import { startTeam } from './team-page.mjs';
import { startTranscript } from './transcript.mjs';

const TAG = 'koder-mcp-elicitation';
const CALL_TIMEOUT_MS = 15 * 60 * 1000; // a person answers the form: far above the SDK's 60 s default
const AUTO_CANCEL_MS = 5000;
const MAX_RETRIES = 3; // a server that keeps answering -32042 is not retried forever

const $ = (selector) => document.querySelector(selector);
const toolsBox = $('#tools');
const tools2026Box = $('#tools-2026');
const status2026Box = $('#status-2026');
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

// --- elicitation wiring (as in the README) ----------------------------------------------------
const el = document.querySelector('koder-mcp-elicitation');
// The transcript view joins the demo's relay through the same element (it shows nothing itself:
// each relay elicitation gets an inline element of its own in the transcript). Not awaited: the
// MCP connections below go on meanwhile.
const transcriptReady = startTranscript(el).catch((error) => {
  console.warn('transcript view:', error);
  return null;
});
// "Ask the team": two members' columns, each joined to the relay with its own token.
const teamReady = startTeam().catch((error) => {
  console.warn('ask the team:', error);
  return null;
});
const client = new Client(
  { name: 'koder-demo-page', version: '1.0.0' },
  { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: 'auto' } },
);
// The SDK aborts ctx.mcpReq.signal when the server withdraws its request (notifications/cancelled) or
// the call is aborted: the dialog closes and nothing is sent back.
client.setRequestHandler('elicitation/create', (request, ctx) => el.elicit(request.params, { signal: ctx.mcpReq.signal }));
// 2025-11-25 only: the server says a URL-mode elicitation (by elicitationId) is finished.
client.setNotificationHandler('notifications/elicitation/complete', (n) => { el.complete(n.params.elicitationId); });
await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));

// The demo's second server, at /mcp-2026, speaks only MCP 2026-07-28: its tools answer tools/call with
// input_required rounds, which the SDK fulfils through the same kind of handler, once per input request.
const client2026 = new Client(
  { name: 'koder-demo-page', version: '1.0.0' },
  { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: 'auto' } },
);
client2026.setRequestHandler('elicitation/create', (request, ctx) => el.elicit(request.params, { signal: ctx.mcpReq.signal }));

// URLElicitationRequiredError (-32042, 2025-11-25 only): the server needs URL-mode elicitations
// completed before it can answer. The element asks consent for each, waits for their completion, and says whether to
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

const toolClients = new Map(); // tool name → the client of the server that lists it

function setBusy(busy) {
  for (const button of [...toolsBox.querySelectorAll('button'), ...tools2026Box.querySelectorAll('button')]) button.disabled = busy;
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
    const owner = toolClients.get(name) ?? client;
    const result = await withUrlElicitations(() => owner.callTool({ name, arguments: {} }, {
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

async function renderTools(from, box) {
  const { tools } = await from.listTools();
  box.replaceChildren();
  for (const tool of tools) {
    toolClients.set(tool.name, from);
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
    box.append(item);
  }
  return tools;
}

const connectedTo = (to) => `Connected to ${to.getServerVersion()?.title ?? to.getServerVersion()?.name ?? 'the server'} (MCP ${to.getNegotiatedProtocolVersion()}).`;

try {
  await renderTools(client, toolsBox);
  setStatus(connectedTo(client), 'connected');
} catch (error) {
  setStatus(`Could not list tools: ${error.message}`, 'error');
}

try {
  await client2026.connect(new StreamableHTTPClientTransport(new URL('/mcp-2026', location.href)));
  await renderTools(client2026, tools2026Box);
  status2026Box.textContent = connectedTo(client2026);
  status2026Box.dataset.state = 'connected';
} catch (error) {
  status2026Box.textContent = `Not connected: ${error.message}`;
  status2026Box.dataset.state = 'error';
}

// For tests and the console: the page's dialog is modal, so the Cancel button is out of reach
// while it is open; `koderDemo.cancel()` (or the auto-cancel box) aborts the running call.
window.koderDemo = {
  client,
  client2026,
  callTool,
  cancel,
  get running() { return running?.name ?? null; },
  /** The transcript view: the server-side host calls a tool, the question shows in the transcript. */
  askViaRelay: async (tool) => (await transcriptReady)?.askViaRelay(tool),
  /** "E-mail me a link": the e-mailing host calls a tool; resolves with its result. */
  emailLink: async (tool) => (await transcriptReady)?.emailLink(tool),
  /** "Ask the team": the host asks the group; resolves with its result (`answeredBy` among it). */
  askTheTeam: async () => (await teamReady)?.askTheTeam(),
};
