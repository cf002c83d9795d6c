// The page side of tests/e2e/mrtr.test.mjs (bundled by the test with esbuild, `conditions: ["browser"]`):
// the TypeScript SDK v2 client with version negotiation on, and <koder-mcp-elicitation> as its
// elicitation/create handler, wired exactly as the README shows. Over 2026-07-28 the SDK drives the
// input_required rounds itself and calls the handler once per input request.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const CALL_TIMEOUT_MS = 10 * 60 * 1000; // a person answers: far above the SDK's 60 s default

await customElements.whenDefined('koder-mcp-elicitation');
const el = document.querySelector('koder-mcp-elicitation');
const asked = []; // every elicitation/create params the handler got, in order

const client = new Client(
  { name: 'koder-mrtr-e2e', version: '0.1.0' },
  { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: 'auto' } },
);
client.setRequestHandler('elicitation/create', (request, ctx) => {
  asked.push(request.params);
  return el.elicit(request.params, { signal: ctx.mcpReq.signal });
});
await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));

/** Calls a tool; resolves with its text, or with the error it ended in. */
async function call(name) {
  try {
    const result = await client.callTool({ name, arguments: {} }, { timeout: CALL_TIMEOUT_MS });
    return { isError: Boolean(result.isError), text: result.content.map((block) => block.text ?? JSON.stringify(block)).join('\n') };
  } catch (error) {
    return { error: `${error?.name}: ${error?.message}` };
  }
}

window.mrtr = { protocol: client.getNegotiatedProtocolVersion(), asked, call };
