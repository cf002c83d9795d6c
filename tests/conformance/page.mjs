// The browser side of the conformance client (bundled by browser-client.mjs with esbuild).
// The official SDK Client runs in the page and <koder-mcp-elicitation> answers every
// elicitation/create, wired exactly as the README shows. The SDK's own `applyDefaults` is left
// off on purpose: the defaults the server receives must come from the component.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const CALL_TIMEOUT_MS = 120_000;

await customElements.whenDefined('koder-mcp-elicitation');
const el = document.querySelector('koder-mcp-elicitation');
const client = new Client(
  { name: 'koder-mcp-elicitation-conformance', version: '0.1.0' },
  { capabilities: { elicitation: { form: {}, url: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, (request, extra) => el.elicit(request.params, { signal: extra.signal }));
client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => { el.complete(n.params.elicitationId); });

const STREAM_WAIT_MS = 30_000;

/**
 * Resolves once the SDK's standalone GET stream reached the server (the proxy tells): requests the
 * server sends outside a tool call's own stream travel on it, and are dropped while it is closed.
 */
async function standaloneStreamOpen() {
  const deadline = performance.now() + STREAM_WAIT_MS;
  while (performance.now() < deadline) {
    const { open } = await (await fetch('/standalone-stream')).json();
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the SDK client's standalone GET stream did not open within ${STREAM_WAIT_MS} ms`);
}

/** Connects through the page's own origin (/mcp is proxied to the server under test), then calls every tool. */
async function run() {
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  await standaloneStreamOpen();
  const calls = [];
  try {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const result = await client.callTool({ name: tool.name, arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS });
      calls.push({ tool: tool.name, result });
    }
  } finally {
    await client.close();
  }
  return calls;
}

window.conformanceClient = { run };
