// The official MCP conformance runner (@modelcontextprotocol/conformance) against our client:
// the SDK Client in headless Chromium with <koder-mcp-elicitation> answering elicitation/create,
// Submit pressed without touching a field (tests/conformance/browser-client.mjs). SEP-1034 wants
// the schema's defaults in the accepted content: the component must supply them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runConformance, verdicts } from '../conformance/run.mjs';

test('conformance: elicitation-sep1034-client-defaults passes every check', { timeout: 180_000 }, async () => {
  const run = await runConformance({ scenario: 'elicitation-sep1034-client-defaults' });
  const judged = verdicts(run.checks);
  // What the client saw comes first: a CI log keeps only the head of a long failure message.
  const report = `client stderr:\n${run.clientStderr}\nclient stdout:\n${run.clientStdout}\nrunner output (last 4,000 characters):\n${run.output.slice(-4000)}`;

  assert.deepEqual(
    judged.map((check) => [check.id, check.status]),
    [
      ['client-elicitation-sep1034-string-default', 'SUCCESS'],
      ['client-elicitation-sep1034-integer-default', 'SUCCESS'],
      ['client-elicitation-sep1034-number-default', 'SUCCESS'],
      ['client-elicitation-sep1034-enum-default', 'SUCCESS'],
      ['client-elicitation-sep1034-boolean-default', 'SUCCESS'],
    ],
    report,
  );
  assert.equal(run.exitCode, 0, report);
  // The server's tool result: exactly the defaults, with their JSON types, reached the server.
  assert.match(
    run.clientStdout,
    /^test_client_elicitation_defaults: Elicitation completed: \{"name":"John Doe","age":30,"score":95\.5,"status":"active","verified":true\}$/m,
    report,
  );
  // The dialog really showed and was submitted by pressing the button.
  assert.match(run.clientStderr, /dialog 1: pressed Submit without touching a field/, report);
});
