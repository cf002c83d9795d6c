// `npm start` installs only what the demo needs, builds its parts side by side, and tells a newcomer
// where the demo is.
//
// - scripts/bootstrap.sh --demo (npm start's install step) neither checks nor installs a browser,
//   PostgreSQL, Python or wasm-pack: its demo part names none of them, and a run on this machine, with
//   every such tool on PATH replaced by a recorder, calls none of them and prints none of their names;
// - npm start's build (scripts/prepare-demo.sh, scripts/build.mjs) does not use wasm-pack either;
// - the full bootstrap (npm test, .ci/run) still installs them all;
// - steps run side by side (scripts/side-by-side.sh) print their lines under their name, and when one
//   fails the others are stopped and the whole fails with its status;
// - scripts/start.mjs serves the demo and prints where it is, what each part of the page shows and
//   how to stop it, and Ctrl-C (SIGINT) stops the server and its relay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BOOTSTRAP = join(ROOT, 'scripts', 'bootstrap.sh');

/**
 * What the demo must not need: browsers and their drivers, PostgreSQL, Python, the Debian installs
 * behind them, and wasm-pack (only `wasm-pack test` uses it; the build runs cargo and the wasm-bindgen CLI).
 */
const TEST_ONLY = /\b(chromium|chromedriver|chrome|firefox(-esr)?|webkit\w*|WebKitWebDriver|MiniBrowser|xvfb|tmux|postgres(ql)?|initdb|pg_ctl\w*|pg_lsclusters|psql|python3?|pip3?|venv|apt-get|apt|dpkg|sudo|wasm-pack)\b/i;
const RECORDED_TOOLS = [
  'chromium', 'chromedriver', 'firefox-esr', 'WebKitWebDriver', 'Xvfb', 'tmux', 'psql', 'initdb', 'pg_ctl',
  'pg_lsclusters', 'pg_ctlcluster', 'python', 'python3', 'pip', 'pip3', 'apt-get', 'apt', 'dpkg', 'sudo',
  'wasm-pack',
];
/** Where `cargo install` puts tools; the scripts put it first on PATH unless it is already there. */
const CARGO_BIN = join(process.env.CARGO_HOME || join(homedir(), '.cargo'), 'bin');
const DEMO_END = 'if [ "$MODE" = demo ]; then';

function bootstrapParts() {
  const text = readFileSync(BOOTSTRAP, 'utf8');
  const end = text.indexOf(DEMO_END);
  assert.ok(end > 0, `scripts/bootstrap.sh has no "${DEMO_END}" line ending the demo's part`);
  return { demo: text.slice(0, end), tests: text.slice(end) };
}

/** The shell a script runs, without its comments (they may say what it leaves out). */
function code(text) {
  return text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
}

/** The same for JavaScript: without its `//` lines and `/* … *\/` blocks. */
function jsCode(text) {
  return text
    .replace(/^\s*\/\*[\s\S]*?\*\//gm, '')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('//'))
    .join('\n');
}

test("the bootstrap's demo part names no browser, PostgreSQL, Python or wasm-pack, and ends the demo run", () => {
  const { demo, tests } = bootstrapParts();
  const named = code(demo).match(TEST_ONLY);
  assert.equal(named, null, `the demo part of scripts/bootstrap.sh names ${named?.[0]}`);
  assert.match(tests.split('\n').slice(0, 4).join('\n'), /^\s+exit 0$/m, 'the demo run stops right after its part');
  for (const needed of ['wasm32-unknown-unknown', 'cargo install --debug --locked --force wasm-bindgen-cli', 'npm ci']) {
    assert.ok(code(demo).includes(needed), `the demo part installs with ${needed}`);
  }
});

test("npm start's build runs cargo and the wasm-bindgen CLI, not wasm-pack, and the relay's build beside it", () => {
  const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
  assert.equal(scripts.start, 'bash scripts/prepare-demo.sh && node scripts/start.mjs');
  assert.equal(scripts.build, 'bash scripts/bootstrap.sh --demo && node scripts/build.mjs');
  const prepare = code(readFileSync(join(ROOT, 'scripts', 'prepare-demo.sh'), 'utf8'));
  assert.match(prepare, /^side_start relay bash scripts\/relay-binary\.sh$/m, 'the relay builds side by side');
  assert.match(prepare, /^bash scripts\/bootstrap\.sh --demo\nnode scripts\/build\.mjs\nside_wait$/m, 'then the element, then both are waited for');
  const build = jsCode(readFileSync(join(ROOT, 'scripts', 'build.mjs'), 'utf8'));
  assert.match(build, /cargoWasm\(\['build', '--lib', '-p', CRATE, '--target', 'wasm32-unknown-unknown'/);
  assert.match(build, /run\('wasm-bindgen', \[built, '--out-dir', 'pkg', '--no-typescript', '--target', 'web', '--out-name', OUT_NAME/);
  for (const [name, text] of [['scripts/prepare-demo.sh', prepare], ['scripts/build.mjs', build], ['scripts/relay-binary.sh', code(readFileSync(join(ROOT, 'scripts', 'relay-binary.sh'), 'utf8'))]]) {
    assert.doesNotMatch(text, /wasm-pack/, `${name} uses wasm-pack`);
  }
});

test('the full bootstrap still installs wasm-pack, the browsers, PostgreSQL and Python the tests need', () => {
  const { tests } = bootstrapParts();
  for (const needed of ['cargo install --locked wasm-pack', 'chromium-driver', 'firefox-esr', 'webkit2gtk-driver', 'apt-get install -y -q postgresql', 'python3 -m venv', 'tmux']) {
    assert.ok(code(tests).includes(needed), `the tests' part of scripts/bootstrap.sh installs ${needed}`);
  }
});

test('bootstrap --demo on this machine calls and names no browser, PostgreSQL, Python or wasm-pack', () => {
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
      // cargo's bin after the recorders, so they stand in front of a cargo-installed wasm-pack
      env: { ...process.env, PATH: `${shims}:${CARGO_BIN}:${process.env.PATH}`, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 15 * 60 * 1000, // a missing wasm tool is installed with cargo
    });
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, `bootstrap --demo failed:\n${output}`);
    assert.equal(existsSync(log) ? readFileSync(log, 'utf8') : '', '', 'bootstrap --demo called a test-only tool');
    const named = output.match(TEST_ONLY);
    assert.equal(named, null, `bootstrap --demo printed ${named?.[0]}:\n${output}`);
    for (const checked of ['wasm32-unknown-unknown', 'wasm-bindgen-cli', 'node_modules', "demo's part done"]) {
      assert.ok(output.includes(checked), `bootstrap --demo says nothing of ${checked}:\n${output}`);
    }
  } finally {
    rmSync(shims, { recursive: true, force: true });
  }
});

/** Runs `body` in bash after sourcing scripts/side-by-side.sh; `$PIDFILE` is a file for a step's pid. */
function sideBySide(body) {
  const dir = mkdtempSync(join(tmpdir(), 'side-by-side-'));
  const pidFile = join(dir, 'pid');
  try {
    const started = Date.now();
    const run = spawnSync('bash', ['-c', `set -euo pipefail\n. scripts/side-by-side.sh\n${body}`], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, PIDFILE: pidFile },
      timeout: 60_000,
    });
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : null;
    return { ...run, seconds: (Date.now() - started) / 1000, pid };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether process `pid` is gone, waiting up to two seconds for a stopped one to go. */
async function gone(pid) {
  for (let tries = 0; tries < 40; tries++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  return false;
}

const SLOW_STEP = 'side_start slow bash -c \'echo started; echo $$ > "$PIDFILE"; exec sleep 50\'';
const WAIT_FOR_SLOW = 'while [ ! -s "$PIDFILE" ]; do sleep 0.05; done';

test('steps side by side: each line under its name, and the whole waits for all of them', () => {
  const run = sideBySide("side_start one bash -c 'echo a; sleep 0.3; echo b'\nside_start two bash -c 'echo c >&2'\necho foreground\nside_wait\necho after");
  assert.equal(run.status, 0, run.stderr);
  for (const line of ['one | a', 'one | b', 'two | c', 'foreground']) assert.match(run.stdout, new RegExp(`^${line}$`, 'm'));
  assert.match(run.stdout, /after\n$/, 'side_wait returns once both are done');
});

test('a failing step side by side stops the others and fails with its status', async () => {
  const run = sideBySide(`${SLOW_STEP}\nside_start broken bash -c '${WAIT_FOR_SLOW}; echo about to fail >&2; exit 7'\nside_wait\necho not reached`);
  assert.equal(run.status, 7, `${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /^slow \| started$/m);
  assert.match(run.stdout, /^broken \| about to fail$/m);
  assert.match(run.stderr, /^broken failed \(exit 7\); stopping slow$/m);
  assert.doesNotMatch(run.stdout, /not reached/);
  assert.ok(run.seconds < 20, `it waited ${run.seconds} s for the slow step`);
  assert.ok(run.pid && (await gone(run.pid)), 'the slow step was stopped');
});

test('a failing command in the foreground stops the steps side by side', async () => {
  const run = sideBySide(`${SLOW_STEP}\n${WAIT_FOR_SLOW}\nfalse\necho not reached`);
  assert.equal(run.status, 1, `${run.stdout}${run.stderr}`);
  assert.doesNotMatch(run.stdout, /not reached/);
  assert.ok(run.seconds < 20, `it waited ${run.seconds} s for the slow step`);
  assert.ok(run.pid && (await gone(run.pid)), 'the slow step was stopped');
});

test('bootstrap refuses an unknown mode', () => {
  const run = spawnSync('bash', [BOOTSTRAP, '--demos'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /unknown argument --demos/);
});

test('npm start says where the demo is, what the page shows and how to stop it; Ctrl-C stops it', { timeout: 60_000 }, async () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'koder-mcp-elicitation.js')), 'dist/ is built before this suite');
  // A temp dir of its own, to see that the relay's folder goes with it.
  const temp = mkdtempSync(join(tmpdir(), 'npm-start-'));
  // Its own process group, so Ctrl-C can reach every process in it, as a terminal's does.
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', TMPDIR: temp },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
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

    const relayFolders = () => readdirSync(temp).filter((name) => name.startsWith('koder-demo-relay-'));
    assert.equal(relayFolders().length, 1, 'the relay runs in a temp folder');

    process.kill(-child.pid, 'SIGINT');
    const { code } = await exited;
    assert.equal(code, 0, `Ctrl-C ends the demo cleanly:\n${output}`);
    assert.deepEqual(relayFolders(), [], "the relay's temp folder went with it");
    await assert.rejects(fetch(url), 'the demo server is gone');
    // The relay drains on the SIGTERM the demo sends it: give it a few seconds to go.
    const relayGone = Date.now() + 10_000;
    while (await fetch(`${relayUrl}/livez`).then(() => true, () => false)) {
      if (Date.now() > relayGone) assert.fail(`the relay at ${relayUrl} still answers 10 s after Ctrl-C`);
      await new Promise((done) => setTimeout(done, 200));
    }
  } finally {
    if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    rmSync(temp, { recursive: true, force: true });
  }
});
