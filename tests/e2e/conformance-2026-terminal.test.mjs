// The official MCP conformance runner's 2026-07-28 client scenario (sep-2322-client-request-state,
// @modelcontextprotocol/conformance 0.2.0-alpha.12 as `conformance-next`) against the terminal
// crate's library on rmcp (crates/terminal/examples/conformance_client.rs): it connects with the
// same `Protocol::Auto` as `koder-elicit connect`, rmcp drives the input_required rounds, and the
// library answers each input request through the core's parse and form checks. The runner checks
// the retries: requestState echoed exactly, a new JSON-RPC id, no requestState when none was sent,
// nothing of a round on an unrelated call, and a result without resultType taken as complete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runRequestStateScenario } from '../conformance/run.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Builds the example with cargo and returns its executable (wherever the target dir is). */
function buildClient() {
  const built = spawnSync(
    'cargo',
    ['build', '--quiet', '-p', 'koder-elicit', '--example', 'conformance_client', '--message-format=json'],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  assert.equal(built.status, 0, `cargo build failed:\n${built.stderr}`);
  const executable = built.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .find((message) => message.reason === 'compiler-artifact' && message.target?.name === 'conformance_client')
    ?.executable;
  assert.ok(executable, 'cargo reported no conformance_client executable');
  return executable;
}

test('conformance: sep-2322-client-request-state passes every check with the terminal library (rmcp)', { timeout: 900_000 }, async () => {
  const client = buildClient();
  // The runner splits --command on spaces and appends the server URL.
  assert.ok(!client.includes(' '), `the client path has a space: ${client}`);
  const { run, report } = await runRequestStateScenario({ command: client, timeoutMs: 60_000 });
  // What the client saw: each tool's own result from the mock server.
  assert.match(run.clientStdout, /^test_mrtr_unrelated: unrelated-ok$/m, report);
  assert.match(run.clientStdout, /^test_mrtr_echo_state: echo-state-ok$/m, report);
  assert.match(run.clientStdout, /^test_mrtr_no_state: no-state-ok$/m, report);
  assert.match(run.clientStdout, /^test_mrtr_no_result_type: no-result-type-test-ok$/m, report);
  // Both rounds' input requests went through the library's form answering, by key.
  assert.match(run.clientStderr, /^input request confirm: "Please confirm to continue" answered \{"action":"accept"/m, report);
  assert.match(run.clientStderr, /^input request confirm: "Please confirm to continue \(no state test\)" answered \{"action":"accept"/m, report);
});
