// The official MCP conformance runner's 2026-07-28 client scenario (sep-2322-client-request-state,
// @modelcontextprotocol/conformance 0.2.0-alpha.12 as `conformance-next`) against the element with the
// TypeScript SDK v2 in headless Chromium (tests/conformance/page-2026.mjs): the SDK negotiates
// 2026-07-28 and drives the input_required rounds, the element answers each input request, and the
// person presses Submit. The runner checks the retries: requestState echoed exactly, a new JSON-RPC id,
// no requestState when none was sent, nothing of a round on an unrelated call, and a result without
// resultType taken as complete (no retry).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runRequestStateScenario } from '../conformance/run.mjs';

test('conformance: sep-2322-client-request-state passes every check with SDK v2', { timeout: 180_000 }, async () => {
  const { run, report } = await runRequestStateScenario();
  // What the client saw: each tool's own result from the mock server.
  assert.match(run.clientStdout, /^test_mrtr_echo_state: echo-state-ok$/m, report);
  assert.match(run.clientStdout, /^test_mrtr_no_state: no-state-ok$/m, report);
  assert.match(run.clientStdout, /^test_mrtr_unrelated: unrelated-ok$/m, report);
  // SDK v2 2.4.0 refuses a result without resultType (INVALID_RESULT) rather than taking it as
  // complete; the client reports it, and the runner's check is that no retry followed.
  assert.match(run.clientStdout, /^test_mrtr_no_result_type: the SDK refused the result \(INVALID_RESULT\)/m, report);
  // Both rounds were answered in the element's dialog, by pressing Submit.
  assert.match(run.clientStderr, /dialog 2: pressed Submit without touching a field/, report);
  assert.doesNotMatch(run.clientStderr, /dialog 3:/, report);
});
