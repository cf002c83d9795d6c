// The browser side of the conformance client for MCP 2026-07-28 scenarios
// (sep-2322-client-request-state; bundled by browser-client.mjs with esbuild, `conditions: ["browser"]`).
// The TypeScript SDK v2 Client negotiates the revision and drives the input_required rounds;
// <koder-mcp-elicitation> answers each input request, wired exactly as the README shows.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const CALL_TIMEOUT_MS = 120_000;
const MRTR_TOOLS = ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_no_result_type'];
const UNRELATED_TOOL = 'test_mrtr_unrelated';

await customElements.whenDefined('koder-mcp-elicitation');
const el = document.querySelector('koder-mcp-elicitation');
const client = new Client(
  { name: 'koder-mcp-elicitation-conformance', version: '0.1.0' },
  { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: 'auto' } },
);

// The scenario checks that a request sent while a round is open carries none of that round's
// inputResponses or requestState: the first elicitation calls the unrelated tool, once, in parallel.
let unrelated;
client.setRequestHandler('elicitation/create', (request, ctx) => {
  unrelated ??= client.callTool({ name: UNRELATED_TOOL, arguments: {} }, { timeout: CALL_TIMEOUT_MS });
  return el.elicit(request.params, { signal: ctx.mcpReq.signal });
});

/** A result the SDK itself refused, reported as text so the run shows what happened. */
function refused(error) {
  return { content: [{ type: 'text', text: `the SDK refused the result (${error.code}): ${error.message}` }] };
}

/** Connects through the page's own origin (/mcp is proxied to the server under test), then calls the tools. */
async function run() {
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  const calls = [];
  try {
    const { tools } = await client.listTools();
    const listed = new Set(tools.map((tool) => tool.name));
    for (const name of MRTR_TOOLS.filter((tool) => listed.has(tool))) {
      try {
        calls.push({ tool: name, result: await client.callTool({ name, arguments: {} }, { timeout: CALL_TIMEOUT_MS }) });
      } catch (error) {
        // A result without resultType is complete by the spec's default; SDK v2 2.4.0 throws
        // INVALID_RESULT on it instead. What the scenario checks is that no retry follows.
        if (name !== 'test_mrtr_no_result_type' || error?.code !== 'INVALID_RESULT') throw error;
        calls.push({ tool: name, result: refused(error) });
      }
    }
    if (unrelated) calls.push({ tool: UNRELATED_TOOL, result: await unrelated });
    calls.unshift({ tool: 'protocol', result: { content: [{ type: 'text', text: client.getNegotiatedProtocolVersion() }] } });
  } finally {
    await client.close();
  }
  return calls;
}

window.conformanceClient = { run };
