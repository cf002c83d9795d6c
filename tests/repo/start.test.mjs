// `npm start` installs only what the demo needs, and tells a newcomer where the demo is.
//
// - scripts/bootstrap.sh --demo (npm start's install step) neither checks nor installs a browser,
//   PostgreSQL or Python: its demo part names none of them, and a run on this machine, with every
//   such tool on PATH replaced by a recorder, calls none of them and prints none of their names;
// - the full bootstrap (npm test, .ci/run) still installs them;
// - scripts/start.mjs serves the demo and prints where it is, what each part of the page shows and
//   how to stop it, and Ctrl-C (SIGINT) stops the server and its relay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BOOTSTRAP = join(ROOT, 'scripts', 'bootstrap.sh');

/** What the demo must not need: browsers and their drivers, PostgreSQL, Python, and the Debian installs behind them. */
const TEST_ONLY = /\b(chromium|chromedriver|chrome|firefox(-esr)?|webkit\w*|WebKitWebDriver|MiniBrowser|xvfb|tmux|postgres(ql)?|initdb|pg_ctl\w*|pg_lsclusters|psql|python3?|pip3?|venv|apt-get|apt|dpkg|sudo)\b/i;
const RECORDED_TOOLS = [
  'chromium', 'chromedriver', 'firefox-esr', 'WebKitWebDriver', 'Xvfb', 'tmux', 'psql', 'initdb', 'pg_ctl',
  'pg_lsclusters', 'pg_ctlcluster', 'python', 'python3', 'pip', 'pip3', 'apt-get', 'apt', 'dpkg', 'sudo',
];
const DEMO_END = 'if [ "$MODE" = demo ]; then';

function bootstrapParts() {
  const text = readFileSync(BOOTSTRAP, 'utf8');
  const end = text.indexOf(DEMO_END);
  assert.ok(end > 0, `scripts/bootstrap.sh has no "${DEMO_END}" line ending the demo's part`);
  return { demo: text.slice(0, end), tests: text.slice(end) };
}

/** The shell a part runs, without its comments (they may say what the part leaves out). */
function code(part) {
  return part
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
}

test("the bootstrap's demo part names no browser, PostgreSQL or Python, and ends the demo run", () => {
  const { demo, tests } = bootstrapParts();
  const named = code(demo).match(TEST_ONLY);
  assert.equal(named, null, `the demo part of scripts/bootstrap.sh names ${named?.[0]}`);
  assert.match(tests.split('\n').slice(0, 4).join('\n'), /^\s+exit 0$/m, 'the demo run stops right after its part');
  for (const needed of ['wasm32-unknown-unknown', 'wasm-pack', 'wasm-bindgen-cli', 'npm ci']) {
    assert.ok(demo.includes(needed), `the demo part installs ${needed}`);
  }
});

test('the full bootstrap still installs the browsers, PostgreSQL and Python the tests need', () => {
  const { tests } = bootstrapParts();
  for (const needed of ['chromium-driver', 'firefox-esr', 'webkit2gtk-driver', 'apt-get install -y -q postgresql', 'python3 -m venv', 'tmux']) {
    assert.ok(code(tests).includes(needed), `the tests' part of scripts/bootstrap.sh installs ${needed}`);
  }
});

test('bootstrap --demo on this machine calls and names no browser, PostgreSQL or Python', () => {
  const shims = mkdtempSync(join(tmpdir(), 'bootstrap-demo-'));
  const log = join(shims, 'called.log');
  try {
    for (const tool of RECORDED_TOOLS) {
      const shim = join(shims, tool);
      writeFileSync(shim, `#!/bin/sh\necho "${tool} $*" >> "${log}"\nexit 1\n`);
      chmodSync(shim, 0o755);
    }
    const run = spawnSync('bash', [BOOTSTRAP, '--demo'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${shims}:${process.env.PATH}`, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 15 * 60 * 1000, // a missing wasm tool is installed with cargo
    });
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, `bootstrap --demo failed:\n${output}`);
    assert.equal(existsSync(log) ? readFileSync(log, 'utf8') : '', '', 'bootstrap --demo called a test-only tool');
    const named = output.match(TEST_ONLY);
    assert.equal(named, null, `bootstrap --demo printed ${named?.[0]}:\n${output}`);
    for (const checked of ['wasm32-unknown-unknown', 'wasm-pack', 'wasm-bindgen-cli', 'node_modules', "demo's part done"]) {
      assert.ok(output.includes(checked), `bootstrap --demo says nothing of ${checked}:\n${output}`);
    }
  } finally {
    rmSync(shims, { recursive: true, force: true });
  }
});

test('bootstrap refuses an unknown mode', () => {
  const run = spawnSync('bash', [BOOTSTRAP, '--demos'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /unknown argument --demos/);
});

test('npm start says where the demo is, what the page shows and how to stop it; Ctrl-C stops it', { timeout: 60_000 }, async () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'koder-mcp-elicitation.js')), 'dist/ is built before this suite');
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal })));
  try {
    const deadline = Date.now() + 45_000;
    while (!/Stop it with Ctrl-C/.test(output)) {
      if (child.exitCode !== null) assert.fail(`scripts/start.mjs exited early:\n${output}`);
      if (Date.now() > deadline) assert.fail(`no guide within 45 s:\n${output}`);
      await new Promise((done) => setTimeout(done, 100));
    }
    const url = output.match(/The demo is at (http:\/\/127\.0\.0\.1:\d+\/)/)?.[1];
    assert.ok(url, `the guide names the demo's address:\n${output}`);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /With a real MCP server/);
    for (const part of ['"With a real MCP server"', '"In the conversation"', '"Without a server"']) {
      assert.ok(output.includes(part), `the guide describes ${part}:\n${output}`);
    }
    const relayUrl = output.match(/^Relay: (http:\/\/\S+)/m)?.[1];
    assert.ok(relayUrl, `the demo runs its relay (the relay binary is built before this suite):\n${output}`);
    assert.match(output, /Ask for the weather/);

    child.kill('SIGINT');
    const { code } = await exited;
    assert.equal(code, 0, `Ctrl-C ends the demo cleanly:\n${output}`);
    await assert.rejects(fetch(url), 'the demo server is gone');
    // The relay drains on the SIGTERM the demo sends it: give it a few seconds to go.
    const relayGone = Date.now() + 10_000;
    while (await fetch(`${relayUrl}/livez`).then(() => true, () => false)) {
      if (Date.now() > relayGone) assert.fail(`the relay at ${relayUrl} still answers 10 s after Ctrl-C`);
      await new Promise((done) => setTimeout(done, 200));
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
