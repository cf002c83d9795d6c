#!/usr/bin/env node
// `npm run bench:relay` — the relay's load bench (issue 25, item 8). Numbers only: nothing here
// asserts a timing. Builds the relay and its load generator (crates/relay/examples/load.rs) in
// release, then runs the generator against:
//   1. one relay on a fresh SQLite file (a temp dir), and again without the webhook outbox (what
//      the durable features cost);
//   2. --replicas N relays (1-3, default 2) sharing one throwaway PostgreSQL (scripts/pg-temp.sh),
//      and, for N > 1, one relay on its own PostgreSQL (the ratio of N replicas to 1).
// Then PostgreSQL's NOTIFY ceiling: pgbench commits one-row changes that each pg_notify, with the
// relay out of the way, beside the same changes without NOTIFY (`--no-notify-ceiling` skips it).
// Each run: 1,000 open streams (1,000 people), 10,000 elicitations created by 64 hosts in flight,
// each long-polled by its host and answered by its person from the stream. The relays run with
// the audit chain and a webhook URL: a receiver here verifies every delivery (standardwebhooks),
// the settled deliveries are counted against the settles, and `audit verify` checks the chain
// after each run. Then 10,000 streams are held open on one SQLite relay for the memory per stream
// (`--no-capacity` skips it; `--streams-only` runs only that). Prints a table of each
// figure against its target; `--write-results` also writes the section "## Relay load (issue 25)"
// into bench/RESULTS.md (right after the generated header part; every other section is kept).
//
//   node bench/relay.mjs [--no-build] [--write-results] [--replicas N] [--streams N] [--elicitations N] [--hosts N]
//                        [--light-hosts N] [--perf] [--statements] [--only sqlite|postgres] [--wait-quiet SECONDS] [--quiet-load L]
//   node bench/relay.mjs --streams-only [--streams 10000] [--no-build]
//   node bench/relay.mjs --team-only [--team-members 1000] [--team-questions 20] [--no-build]
//
//   --streams-only    memory only: one SQLite relay holds --streams open streams (default 10,000), one
//                     person each and then the same number shared by 10 people; prints the relay's VmRSS
//                     growth per stream against the 16 KiB target. Each relay and generator raises its
//                     open-files soft limit to the hard limit first (one descriptor per stream).
//
//   --team-only       only the team run (issue 51; also last in a full run unless --no-team): one SQLite
//                     relay, one group of --team-members members each with an open stream, asked
//                     --team-questions questions one after another (crates/relay/examples/team_load.rs):
//                     create → shown on every member's stream, answer → `settled` on every stream
//
//   --light-hosts N   after the main run, a second one on the same relays with N hosts in flight and
//                     a fifth of the elicitations: the latencies without a queue (default 8; 0: none)
//   --statements      PostgreSQL runs: log the statements of the main run (pg_stat_statements), per elicitation,
//                     and with replicas each one's lag in announcing the others' changes
//   --perf            one more run per setup under `perf record` (kept apart: perf slows the relay)
//                     for the share of samples in the kernel, per thread and per symbol
//   --wait-quiet S    before each run, wait up to S seconds for the 1-min load average to fall to
//                     --quiet-load (default 2): other work on the machine skews every figure
// During the PostgreSQL run, pg_stat_activity is sampled every 100 ms: what the busy backends wait on.
// A last SQLite run gives the same streams to 10 people only: memory per stream without one relay
// channel per person.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// PostgreSQL's newest bin directory, as scripts/pg-temp.sh picks it (psql samples wait events).
const PG_BIN = (() => {
  const r = spawnSync('bash', ['-c', 'ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -1'], { encoding: 'utf8' });
  return r.stdout.trim() || process.env.PG_BIN || null;
})();
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(ROOT, 'target');
const RELAY_BIN = join(TARGET, 'release', 'koder-elicitation-relay');
const LOAD_BIN = join(TARGET, 'release', 'examples', 'load');
const TEAM_BIN = join(TARGET, 'release', 'examples', 'team_load');
const OUT = join(ROOT, 'bench', 'out');
const SECTION = '## Relay load (issue 25)';
const SERVICE_TOKEN = 'bench-service-token-0123456789abcdef';
const JWT_SECRET = 'bench-jwt-secret-0123456789abcdef0123456789';
// The relays run as in production: every change also appends to the audit chain and queues a
// signed webhook, which a receiver in this process verifies and counts.
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const STREAMS_ONLY = flag('--streams-only');
const TEAM_ONLY = flag('--team-only');
// The team run (issue 51): one group of this many members, each with an open stream, asked this many questions.
const TEAM_MEMBERS = Number(option('--team-members', 1000));
const TEAM_QUESTIONS = Number(option('--team-questions', 20));
const STREAMS = Number(option('--streams', STREAMS_ONLY ? 10_000 : 1000));
const ELICITATIONS = Number(option('--elicitations', 10_000));
const HOSTS = Number(option('--hosts', 64));
const ONLY = option('--only', '');
const LIGHT_HOSTS = Number(option('--light-hosts', 8));
const LIGHT_ELICITATIONS = Math.max(1, Math.round(ELICITATIONS / 5));
const WAIT_QUIET = Number(option('--wait-quiet', 0));
const QUIET_LOAD = Number(option('--quiet-load', 2));
const PERF = flag('--perf');
// PostgreSQL's statements during the main run (pg_stat_statements): calls per elicitation and time.
const STATEMENTS = flag('--statements');
// `npm run bench:relay --replicas 2` hands the flag to npm, which passes it on as npm_config_replicas.
const REPLICAS = Number(option('--replicas', process.env.npm_config_replicas ?? 2));
if (!Number.isInteger(REPLICAS) || REPLICAS < 1 || REPLICAS > 3) {
  console.error(`bench:relay: --replicas takes 1, 2 or 3 (got ${option('--replicas', process.env.npm_config_replicas)})`);
  process.exit(2);
}
// The memory split: the same streams shared by this few people (one relay channel per person).
const SHARED_PEOPLE = 10;
const T0 = Date.now();
const SQLITE_RUN = 'SQLite, 1 relay';
const SQLITE_NO_OUTBOX_RUN = 'SQLite, no webhooks';
const postgresRunName = (replicas) => `PostgreSQL, ${replicas} replica${replicas > 1 ? 's' : ''}`;
const log = (msg) => console.log(`bench:relay: ${msg}`);
const load1 = () => Number(loadavg()[0].toFixed(2));

// Everything started is stopped again, also when a step fails or the run is interrupted.
const cleanups = [];
/** Runs (and forgets) the cleanups pushed since `marks` (default: all), newest first; a failing one is reported. */
async function cleanUpTo(marks = 0) {
  while (cleanups.length > marks) {
    try {
      await cleanups.pop()();
    } catch (error) {
      console.error(`bench:relay: cleanup: ${error.message}`);
    }
  }
}
const cleanUp = () => cleanUpTo(0);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanUp().finally(() => process.exit(130));
  });
}

function build() {
  log('building the relay and the load generator (release)…');
  const r = spawnSync('cargo', ['build', '--release', '-p', 'koder-elicitation-relay', '--bin', 'koder-elicitation-relay', '--example', 'load', '--example', 'team_load'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${process.env.CARGO_HOME ?? join(process.env.HOME ?? '', '.cargo')}/bin:${process.env.PATH}` },
  });
  if (r.status !== 0) throw new Error('the release build failed');
}

/**
 * Spawns `bin` with its open-files soft limit raised to the hard limit (each open stream holds a
 * descriptor in the relay and one in the generator); `exec` keeps the pid the relay's.
 */
function spawnWithFiles(bin, args, options) {
  return spawn('bash', ['-c', 'ulimit -S -n "$(ulimit -H -n)" 2>/dev/null; exec "$@"', 'bash', bin, ...args], options);
}

/** The open-files limits (soft / hard) a child of this process gets, as bash reports them. */
function openFilesLimits() {
  const r = spawnSync('bash', ['-c', 'echo "$(ulimit -S -n) $(ulimit -H -n)"'], { encoding: 'utf8' });
  const [soft, hard] = r.stdout.trim().split(' ');
  return { soft, hard };
}

/**
 * The webhook receiver: keeps every delivery and verifies each with `standardwebhooks` (as a host
 * would) when counted, after the run: its HMAC checks in this process would otherwise take the
 * 2 cores the relay is measured on. Counts the distinct webhook-ids by event type; `reset()`
 * between runs.
 */
async function startWebhookReceiver() {
  const verifier = new Webhook(WEBHOOK_SECRET);
  let seen = new Map();
  let invalid = 0;
  let attempts = 0;
  let received = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  /** Verifies what arrived since the last call (the signatures' timestamps allow five minutes). */
  const verifyReceived = () => {
    for (const { body, headers } of received) {
      attempts += 1;
      try {
        seen.set(headers['webhook-id'], verifier.verify(body, headers).type);
      } catch {
        invalid += 1;
      }
    }
    received = [];
  };
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const counts = () => {
    verifyReceived();
    const byType = {};
    for (const type of seen.values()) byType[type] = (byType[type] ?? 0) + 1;
    return { byType, invalid, attempts };
  };
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    counts,
    reset() {
      seen = new Map();
      invalid = 0;
      attempts = 0;
      received = [];
    },
    /** Waits until `settled` elicitation.settled deliveries arrived, or `seconds` passed. */
    async settle(settled, seconds = 60) {
      const until = Date.now() + seconds * 1000;
      while ((counts().byType['elicitation.settled'] ?? 0) < settled && Date.now() < until) {
        await new Promise((done) => setTimeout(done, 250));
      }
      return counts();
    },
    close: () => new Promise((done) => server.close(done)),
  };
}
let webhookReceiver = null;

/** `audit verify` of the relay binary on `database`: `{ok, line}`. */
function verifyAudit(database) {
  const r = spawnSync(RELAY_BIN, ['audit', 'verify', '--database', database], { encoding: 'utf8' });
  return { ok: r.status === 0, line: `${r.stdout}${r.stderr}`.trim().split('\n').pop() ?? '' };
}

/**
 * Starts one relay, queueing webhooks to the receiver unless `webhooks` is false; resolves once it
 * printed its `listening on` line.
 */
function startRelay(database, label, { webhooks = true } = {}) {
  const receiver = webhooks ? webhookReceiver : null;
  return new Promise((resolveStart, rejectStart) => {
    // Room for every stream the bench opens, whatever the default cap.
    const maxStreams = String(Math.max(10_000, STREAMS + 100));
    const child = spawnWithFiles(RELAY_BIN, ['--listen', '127.0.0.1:0', '--database', database, '--service-token', SERVICE_TOKEN, '--jwt-secret', JWT_SECRET, '--max-streams', maxStreams, '--max-streams-per-person', maxStreams, '--log-format', 'json',
      ...(receiver ? ['--webhook-url', receiver.url] : [])], {
      cwd: ROOT,
      env: { ...process.env, ...(receiver ? { KODER_RELAY_WEBHOOK_SECRET: WEBHOOK_SECRET } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rejectStart(new Error(`${label} did not print its listening line in 30 s: ${stderr.slice(-2000)}`));
    }, 30_000);
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-20_000);
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
        const stop = async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
        };
        resolveStart({ url: match[1], pid: child.pid, stop, stderr: () => stderr, label });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      rejectStart(new Error(`${label} exited (${code ?? signal}) before listening: ${stderr.slice(-2000)}`));
    });
  });
}

/** Runs the generator against `relays`; resolves its JSON figures. */
function runGenerator(relays, dbPid, { hosts = HOSTS, elicitations = ELICITATIONS } = {}) {
  return new Promise((resolveRun, rejectRun) => {
    const args = ['--service-token', SERVICE_TOKEN, '--jwt-secret', JWT_SECRET, '--streams', String(STREAMS), '--elicitations', String(elicitations), '--hosts', String(hosts)];
    for (const relay of relays) args.push('--relay', relay.url, '--pid', String(relay.pid));
    if (dbPid) args.push('--db-pid', String(dbPid));
    const child = spawnWithFiles(LOAD_BIN, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.once('exit', (code) => {
      if (code !== 0) return rejectRun(new Error(`the load generator exited ${code}`));
      try {
        resolveRun(JSON.parse(stdout.trim().split('\n').pop()));
      } catch (error) {
        rejectRun(new Error(`the load generator printed no JSON: ${error.message}: ${stdout.slice(-500)}`));
      }
    });
  });
}

function pgTemp(action, dir) {
  const settings = STATEMENTS ? '-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all' : '';
  const env = { ...process.env, PG_TEMP_SETTINGS: settings };
  const r = spawnSync('bash', [join(ROOT, 'scripts', 'pg-temp.sh'), action, dir], { cwd: ROOT, encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`pg-temp.sh ${action}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

function psqlQuery(url, sql) {
  const r = spawnSync(join(PG_BIN ?? '', 'psql'), [url, '-v', 'ON_ERROR_STOP=1', '-AtF', '\t', '-c', sql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Logs the statements PostgreSQL ran during the main run: per elicitation, calls and milliseconds. */
function logStatements(name, url) {
  const rows = psqlQuery(url, 'select calls, total_exec_time, regexp_replace(left(query, 90), \'\\s+\', \' \', \'g\') '
    + 'from pg_stat_statements order by calls desc limit 30').trim().split('\n');
  log(`${name}: PostgreSQL statements per elicitation (calls · exec ms · statement):`);
  let calls = 0;
  let time = 0;
  for (const row of rows) {
    const [count, total, text] = row.split('\t');
    calls += Number(count);
    time += Number(total);
    log(`  ${(Number(count) / ELICITATIONS).toFixed(2)} · ${(Number(total) / ELICITATIONS).toFixed(3)} · ${text}`);
  }
  log(`  total of these: ${(calls / ELICITATIONS).toFixed(1)} calls · ${(time / ELICITATIONS).toFixed(3)} ms`);
}

/** Logs each replica's histogram of how late it announced the others' changes (from /metrics). */
async function logNotifyLag(name, relays) {
  for (const relay of relays) {
    const response = await fetch(`${relay.url}/metrics`, { headers: { authorization: `Bearer ${SERVICE_TOKEN}` } });
    const lines = (await response.text()).split('\n').filter((line) => line.startsWith('koder_relay_notify_lag_seconds'));
    log(`${name}: ${relay.url} notify lag: ${lines.join(' · ')}`);
  }
}

/** Waits (up to --wait-quiet seconds) for the machine to calm down; returns the load it saw. */
async function waitQuiet() {
  const until = Date.now() + WAIT_QUIET * 1000;
  while (load1() > QUIET_LOAD && Date.now() < until) {
    log(`waiting for a quieter machine (1-min load ${load1()}, want ≤ ${QUIET_LOAD})…`);
    await new Promise((done) => setTimeout(done, 15_000));
  }
  return load1();
}

/**
 * Samples what PostgreSQL's busy client backends wait on, every 100 ms, until stopped; resolves
 * `{samples, waits: {"Lock:object": n, "CPU": n, …}}` (CPU: active and not waiting).
 */
function sampleWaits(url) {
  const psql = join(PG_BIN ?? '', 'psql');
  const waits = {};
  // The statements that waited on a lock (their first words), so a lock share names its cause.
  const lockedStatements = {};
  let samples = 0;
  let running = true;
  const sql = "select coalesce(wait_event_type || ':' || wait_event, 'CPU') || '|' || "
    + "regexp_replace(left(query, 72), '\\s+', ' ', 'g') from pg_stat_activity "
    + "where state = 'active' and backend_type = 'client backend' and pid <> pg_backend_pid()";
  const loop = (async () => {
    while (running) {
      const out = await new Promise((done) => {
        const child = spawn(psql, [url, '-Atc', sql], { stdio: ['ignore', 'pipe', 'ignore'] });
        let text = '';
        child.stdout.on('data', (chunk) => {
          text += chunk;
        });
        child.once('error', () => done(''));
        child.once('exit', () => done(text));
      });
      samples += 1;
      for (const line of out.split('\n').filter(Boolean)) {
        const [wait, statement = ''] = line.split('|');
        waits[wait] = (waits[wait] ?? 0) + 1;
        if (wait.startsWith('Lock:')) lockedStatements[statement] = (lockedStatements[statement] ?? 0) + 1;
      }
      await new Promise((done) => setTimeout(done, 100));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { samples, waits, lockedStatements };
  };
}

/** `perf record` of the relays until stopped; resolves the share of samples by place and thread. */
function perfRecord(relays) {
  const file = join(mkdtempSync(join(tmpdir(), 'koder-relay-bench-perf-')), 'perf.data');
  const child = spawn('perf', ['record', '-F', '499', '-g', '-o', file, '-p', relays.map((r) => r.pid).join(',')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((done) => {
    child.once('exit', done);
    child.once('error', done);
  });
  return async () => {
    child.kill('SIGINT');
    await exited;
    const report = (sort) => {
      const r = spawnSync('perf', ['report', '-i', file, '--no-children', '--sort', sort, '-g', 'none', '--stdio'], { encoding: 'utf8', maxBuffer: 64 << 20 });
      const shares = {};
      for (const line of (r.stdout ?? '').split('\n')) {
        const m = /^\s+([\d.]+)%\s+(.+?)\s*$/.exec(line);
        if (m) shares[m[2]] = Number(m[1]);
      }
      return shares;
    };
    const dso = report('dso');
    const threads = report('comm');
    const symbols = report('sym');
    rmSync(dirname(file), { recursive: true, force: true });
    return { kernel: dso['[kernel.kallsyms]'] ?? null, threads, symbols };
  };
}

// System calls counted during the profiled run: busy-handler sleeps (SQLite sleeps when another
// connection holds the write lock), thread hand-offs, file locks, WAL I/O and fsyncs.
const SYSCALLS = ['clock_nanosleep', 'futex', 'fcntl', 'pread64', 'pwrite64', 'fsync', 'fdatasync'];

/** `perf stat` of the relays' system calls until stopped; resolves `{name: count}`. */
function syscallCount(relays) {
  const file = join(mkdtempSync(join(tmpdir(), 'koder-relay-bench-stat-')), 'stat.csv');
  const events = SYSCALLS.map((name) => `syscalls:sys_enter_${name}`).join(',');
  const child = spawn('perf', ['stat', '-x', ',', '-o', file, '-e', events, '-p', relays.map((r) => r.pid).join(',')], { stdio: 'ignore' });
  const exited = new Promise((done) => {
    child.once('exit', done);
    child.once('error', done);
  });
  return async () => {
    child.kill('SIGINT');
    await exited;
    const counts = {};
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    for (const line of text.split('\n')) {
      const [count, , event] = line.split(',');
      const name = /sys_enter_(\w+)/.exec(event ?? '')?.[1];
      if (name && /^\d+$/.test(count)) counts[name] = Number(count);
    }
    rmSync(dirname(file), { recursive: true, force: true });
    return counts;
  };
}

/** Runs one configuration: start its relays, run the generator, stop everything. */
async function measure(name, setUp) {
  const marks = cleanups.length;
  try {
    const { relays, dbPid, dbUrl, database, webhooks = true } = await setUp();
    const receiver = webhooks ? webhookReceiver : null;
    receiver?.reset();
    await waitQuiet();
    const loadStart = load1();
    log(`${name}: ${relays.length} relay(s) at ${relays.map((r) => r.url).join(', ')}; running the generator…`);
    const stopSampling = dbUrl && PG_BIN ? sampleWaits(dbUrl) : null;
    if (STATEMENTS && dbUrl) psqlQuery(dbUrl, 'create extension if not exists pg_stat_statements; select pg_stat_statements_reset()');
    const figures = await runGenerator(relays, dbPid);
    if (stopSampling) figures.pgWaits = await stopSampling();
    if (STATEMENTS && dbUrl) logStatements(name, dbUrl);
    if (STATEMENTS && relays.length > 1) await logNotifyLag(name, relays);
    figures.load = { start: loadStart, end: load1() };
    if (LIGHT_HOSTS > 0) {
      await waitQuiet();
      const lightStart = load1();
      log(`${name}: again with ${LIGHT_HOSTS} hosts in flight and ${n(LIGHT_ELICITATIONS)} elicitations…`);
      figures.light = await runGenerator(relays, dbPid, { hosts: LIGHT_HOSTS, elicitations: LIGHT_ELICITATIONS });
      figures.light.load = { start: lightStart, end: load1() };
    }
    if (PERF) {
      // A separate run: perf's per-thread bookkeeping on every context switch slows the relay.
      log(`${name}: a profiled run (perf record, ${HOSTS} hosts in flight, ${n(LIGHT_ELICITATIONS)} elicitations)…`);
      const stopPerf = perfRecord(relays);
      const stopCount = syscallCount(relays);
      const profiled = await runGenerator(relays, dbPid, { elicitations: LIGHT_ELICITATIONS });
      figures.perf = { ...(await stopPerf()), syscalls: await stopCount(), elicitations: LIGHT_ELICITATIONS, perSecond: profiled.perSecond };
    }
    let settles = ELICITATIONS + (figures.light ? LIGHT_ELICITATIONS : 0) + (figures.perf ? LIGHT_ELICITATIONS : 0);
    figures.webhooksOff = !receiver;
    if (receiver) {
      log(`${name}: waiting for the webhook deliveries of ${n(settles)} settles…`);
      figures.webhooks = { settles, ...(await receiver.settle(settles)) };
    }
    log(`${name}: audit verify…`);
    figures.audit = verifyAudit(database ?? dbUrl);
    for (const relay of relays) {
      const errors = relay.stderr().split('\n').filter((line) => /error|panic/i.test(line));
      if (errors.length) figures.relayErrorLines = (figures.relayErrorLines ?? 0) + errors.length;
    }
    return figures;
  } finally {
    await cleanUpTo(marks);
  }
}

/** Memory per stream when the same streams belong to only a few people: a fresh SQLite relay. */
async function sharedPeopleMemory() {
  const marks = cleanups.length;
  try {
    const { relays } = await sqliteRun();
    log(`memory split: ${n(STREAMS)} streams of ${SHARED_PEOPLE} people on a fresh SQLite relay…`);
    const figures = await new Promise((resolveRun, rejectRun) => {
      const [relay] = relays;
      const args = ['--service-token', SERVICE_TOKEN, '--jwt-secret', JWT_SECRET, '--streams', String(STREAMS), '--people', String(SHARED_PEOPLE), '--elicitations', '100', '--hosts', '8', '--relay', relay.url, '--pid', String(relay.pid)];
      const child = spawnWithFiles(LOAD_BIN, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.once('exit', (code) => (code === 0 ? resolveRun(JSON.parse(stdout.trim().split('\n').pop())) : rejectRun(new Error(`the load generator exited ${code}`))));
    });
    return { people: SHARED_PEOPLE, perStreamBytes: figures.perStreamBytes, lost: figures.lost, settledTwice: figures.settledTwice };
  } finally {
    await cleanUpTo(marks);
  }
}

async function sqliteRun({ webhooks = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'koder-relay-bench-sqlite-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const database = `sqlite://${join(dir, 'relay.db')}`;
  const relay = await startRelay(database, 'the SQLite relay', { webhooks });
  cleanups.push(relay.stop);
  return { relays: [relay], database, webhooks };
}

/** A fresh throwaway PostgreSQL; its URL and the postmaster's pid (the generator adds up its backends' CPU). */
async function startPostgres() {

  const pgTempScript = join(ROOT, 'scripts', 'pg-temp.sh');
  for (let waited = 0; !existsSync(pgTempScript); waited += 10) {
    if (waited >= 1800) throw new Error('scripts/pg-temp.sh is missing');
    log('waiting for scripts/pg-temp.sh…');
    await new Promise((done) => setTimeout(done, 10_000));
  }
  const dir = mkdtempSync(join(tmpdir(), 'koder-relay-bench-pg-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const url = pgTemp('start', dir);
  cleanups.push(() => pgTemp('stop', dir));
  // The postmaster's pid: the first line of postmaster.pid.
  const dbPid = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
  return { url, dbPid };
}

/** `replicas` relays sharing one fresh PostgreSQL. */
async function postgresRun(replicas) {
  const { url, dbPid } = await startPostgres();
  const relays = [];
  for (let index = 1; index <= replicas; index += 1) {
    const relay = await startRelay(url, `replica ${index}`);
    cleanups.push(relay.stop);
    relays.push(relay);
  }
  return { relays, dbPid, dbUrl: url };
}

/**
 * PostgreSQL's NOTIFY ceiling with the relay out of the way: pgbench, with as many clients as the
 * generator has hosts in flight, commits one-row inserts that each `pg_notify` a payload the size
 * of the relay's, and then the same inserts without NOTIFY. Every NOTIFY-ing transaction holds one
 * cluster-wide lock through its commit, so the first rate is the most the relay's changes could
 * commit on this machine's PostgreSQL, however many replicas send them.
 */
async function notifyCeiling(seconds = 10) {
  const marks = cleanups.length;
  try {
    const { url } = await startPostgres();
    const psql = join(PG_BIN, 'psql');
    const setup = spawnSync(psql, [url, '-v', 'ON_ERROR_STOP=1', '-qc', 'create table bench_changes (id bigserial primary key, body text not null)'], { encoding: 'utf8' });
    if (setup.status !== 0) throw new Error(`notify ceiling: ${setup.stderr}`);
    const dir = mkdtempSync(join(tmpdir(), 'koder-relay-bench-pgbench-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const payload = JSON.stringify({ origin: 'x'.repeat(16), kind: 'settled', id: 'y'.repeat(22) });
    const scripts = {
      withNotify: `BEGIN;\nINSERT INTO bench_changes (body) VALUES ('change');\nSELECT pg_notify('koder_bench', '${payload}');\nCOMMIT;\n`,
      withoutNotify: "BEGIN;\nINSERT INTO bench_changes (body) VALUES ('change');\nCOMMIT;\n",
    };
    const rates = {};
    for (const [name, script] of Object.entries(scripts)) {
      const file = join(dir, `${name}.sql`);
      writeFileSync(file, script);
      await waitQuiet();
      log(`NOTIFY ceiling: pgbench ${name} (${HOSTS} clients, ${seconds} s)…`);
      const run = spawnSync(join(PG_BIN, 'pgbench'), ['-n', '-c', String(HOSTS), '-j', String(Math.min(HOSTS, cpus().length)), '-T', String(seconds), '-f', file, url], { encoding: 'utf8' });
      const tps = /tps = ([\d.]+)/.exec(run.stdout);
      if (run.status !== 0 || !tps) throw new Error(`pgbench ${name} failed: ${run.stderr.slice(-2000)}`);
      rates[name] = Number(tps[1]);
    }
    return { clients: HOSTS, seconds, ...rates };
  } finally {
    await cleanUpTo(marks);
  }
}

// --- formatting ---------------------------------------------------------------------------------
const n = (value) => (value === null || value === undefined ? 'n/a' : Number(value).toLocaleString('en-US'));
const ms = (value) => {
  if (value === null || value === undefined) return 'n/a';
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
};
const kb = (bytes) => (bytes === null || bytes === undefined ? 'n/a' : (bytes / 1024).toFixed(1));
const yes = (met) => (met ? 'yes' : '**no**');
const PER_STREAM_TARGET = 16 * 1024;

/** The rows of the table: [figure, target, value(figures), met(figures) | null]. */
const ROWS = [
  ['lost / settled twice', '0 / 0', (f) => `${n(f.lost)} / ${n(f.settledTwice)}`, (f) => f.lost === 0 && f.settledTwice === 0],
  ['webhook deliveries: elicitation.settled verified / settles (created)', '= settles', (f) => (f.webhooks ? `${n(f.webhooks.byType['elicitation.settled'] ?? 0)} / ${n(f.webhooks.settles)} (${n(f.webhooks.byType['elicitation.created'] ?? 0)}; ${n(f.webhooks.invalid)} failed verification)` : 'off'), (f) => (f.webhooksOff ? null : !!f.webhooks && (f.webhooks.byType['elicitation.settled'] ?? 0) === f.webhooks.settles && f.webhooks.invalid === 0)],
  ['audit chain after the run (`audit verify`)', 'intact', (f) => (f.audit ? f.audit.line.replace(/\|/g, '\\|') : 'n/a'), (f) => !!f.audit && f.audit.ok],
  ['elicitations per second, 64 hosts in flight', 'SQLite ≥ 860 · PostgreSQL ≥ 567 (aim 2,000 · 1,500)', (f) => n(Math.round(f.perSecond)), (f) => f.perSecond >= (f.database === 'postgres' ? 567 : 860)],
  ['busy PostgreSQL backends waiting on a lock (wait_event_type Lock)', '< 5 %', (f) => (f.pgWaits ? `${lockShare(f.pgWaits).toFixed(1)} %` : 'no PostgreSQL'), (f) => !f.pgWaits || lockShare(f.pgWaits) < 5],
  ['create → shown in the stream, p50 / p95, ms', 'p95 ≤ 50', (f) => `${ms(f.createToShownMs.p50)} / ${ms(f.createToShownMs.p95)}`, (f) => f.createToShownMs.p95 !== null && f.createToShownMs.p95 <= 50],
  ['answer → host\'s long-poll returned, p50 / p95, ms', 'p95 ≤ 50', (f) => `${ms(f.answerToHostMs.p50)} / ${ms(f.answerToHostMs.p95)}`, (f) => f.answerToHostMs.p95 !== null && f.answerToHostMs.p95 <= 50],
  ['memory per open stream (VmRSS growth ÷ streams), KiB', '≤ 16', (f) => f.memory.map((m) => kb(m.perStreamBytes)).join(' / '), (f) => f.perStreamBytes !== null && f.perStreamBytes <= PER_STREAM_TARGET],
  ['  ↳ create → shown, p99 / max, ms', '', (f) => `${ms(f.createToShownMs.p99)} / ${ms(f.createToShownMs.max)}`, null],
  ['  ↳ answer → host, p99 / max, ms', '', (f) => `${ms(f.answerToHostMs.p99)} / ${ms(f.answerToHostMs.max)}`, null],
  ['  ↳ create → shown p50 / p95, same replica · across replicas, ms', '', (f) => (f.byReplicaPath ? `${ms(f.byReplicaPath.createToShownMs.sameReplica.p50)} / ${ms(f.byReplicaPath.createToShownMs.sameReplica.p95)} · ${ms(f.byReplicaPath.createToShownMs.crossReplica.p50)} / ${ms(f.byReplicaPath.createToShownMs.crossReplica.p95)}` : 'one relay'), null],
  ['  ↳ answer → host p50 / p95, same replica · across replicas, ms', '', (f) => (f.byReplicaPath ? `${ms(f.byReplicaPath.answerToHostMs.sameReplica.p50)} / ${ms(f.byReplicaPath.answerToHostMs.sameReplica.p95)} · ${ms(f.byReplicaPath.answerToHostMs.crossReplica.p50)} / ${ms(f.byReplicaPath.answerToHostMs.crossReplica.p95)}` : 'one relay'), null],
  ['  ↳ a second, different answer after the first: 409 / 200 / other', '', (f) => `${n(f.secondAnswers.got409)} / ${n(f.secondAnswers.got200)} / ${n(f.secondAnswers.other)}`, null],
  ['  ↳ two different answers raced: 200 / 409 / other (one 200 each)', '', (f) => `${n(f.racedAnswers.got200)} / ${n(f.racedAnswers.got409)} / ${n(f.racedAnswers.other)}`, null],
  ['  ↳ elicitations per second (wall time, s)', '', (f) => `${n(Math.round(f.perSecond))} (${f.seconds.toFixed(1)})`, null],
  ['  ↳ VmRSS before → streams open → after the run, MiB', '', (f) => f.memory.map((m) => [m.rssBeforeBytes, m.rssStreamsOpenBytes, m.rssAfterRunBytes].map((b) => (b / 1048576).toFixed(1)).join(' → ')).join(' · '), null],
  ['  ↳ CPU seconds during the run: relay(s) · PostgreSQL · generator · everything else on the machine (of cores × wall)', '', (f) => {
    const c = f.cpuSeconds;
    const relays = c.relays.reduce((sum, x) => sum + (x ?? 0), 0);
    // Readings a few ms apart can make a near-zero remainder negative.
    const others = c.machine ? Math.max(0, c.machine.busySeconds - relays - (c.database ?? 0) - (c.generator ?? 0)) : null;
    const capacity = c.machine ? c.machine.busySeconds + c.machine.idleSeconds : null;
    return `${c.relays.map((x) => (x ?? 0).toFixed(1)).join(' + ')} · ${c.database === null || c.database === undefined ? '–' : c.database.toFixed(1)} · ${(c.generator ?? 0).toFixed(1)} · ${others === null ? 'n/a' : others.toFixed(1)} (of ${capacity === null ? 'n/a' : capacity.toFixed(1)})`;
  }, null],
  ['  ↳ streams opened (s) · open at the end · reconnects', '', (f) => `${n(f.streams - f.streamsFailed)} (${f.streamsOpenSeconds.toFixed(1)}) · ${n(f.streamsOpenAtEnd)} · ${n(f.streamReconnects)}`, null],
  ['  ↳ duplicate / misrouted events · errors create / answer / poll · polls still pending', '', (f) => `${n(f.duplicateEvents)} / ${n(f.misroutedEvents)} · ${n(f.errors.create)} / ${n(f.errors.answer)} / ${n(f.errors.poll)} · ${n(f.pollsStillPending)}`, null],
  ['  ↳ 1-min load average at the start → end', '', (f) => `${f.load.start.toFixed(2)} → ${f.load.end.toFixed(2)}`, null],
  ['  ↳ PostgreSQL backends busy: what they waited on (share of samples)', '', (f) => {
    if (!f.pgWaits) return '–';
    const total = Object.values(f.pgWaits.waits).reduce((sum, x) => sum + x, 0);
    if (!total) return 'no samples';
    return Object.entries(f.pgWaits.waits).sort((a, b) => b[1] - a[1]).slice(0, 3)
      .map(([what, count]) => `${what} ${Math.round((100 * count) / total)} %`).join(', ')
      + ` (${n(total)} in ${n(f.pgWaits.samples)} samples)`;
  }, null],
  [`light load: ${LIGHT_HOSTS} hosts in flight, ${n(LIGHT_ELICITATIONS)} elicitations: create → shown, p50 / p95, ms`, 'p95 ≤ 50', (f) => (f.light ? `${ms(f.light.createToShownMs.p50)} / ${ms(f.light.createToShownMs.p95)}` : 'not run'), (f) => !!f.light && f.light.createToShownMs.p95 !== null && f.light.createToShownMs.p95 <= 50],
  ['light load: answer → host, p50 / p95, ms', 'p95 ≤ 50', (f) => (f.light ? `${ms(f.light.answerToHostMs.p50)} / ${ms(f.light.answerToHostMs.p95)}` : 'not run'), (f) => !!f.light && f.light.answerToHostMs.p95 !== null && f.light.answerToHostMs.p95 <= 50],
  ['  ↳ light load: lost / settled twice · elicitations per second · 1-min load average', '', (f) => (f.light ? `${n(f.light.lost)} / ${n(f.light.settledTwice)} · ${n(Math.round(f.light.perSecond))} · ${f.light.load.start.toFixed(2)} → ${f.light.load.end.toFixed(2)}` : 'not run'), null],
];

function table(runs) {
  const names = Object.keys(runs);
  const header = `| figure | target | ${names.map((name) => `${name} | met`).join(' | ')} |`;
  const rule = `|---|---|${names.map(() => '---:|:---:').join('|')}|`;
  const lines = [header, rule];
  for (const [figure, target, value, met] of ROWS) {
    const cells = names.map((name) => {
      const f = runs[name];
      if (!f) return 'not run | ';
      const verdict = met ? met(f) : null;
      return `${value(f)} | ${verdict === null ? '' : yes(verdict)}`;
    });
    lines.push(`| ${figure} | ${target} | ${cells.join(' | ')} |`);
  }
  return lines;
}

const sum = (values) => values.reduce((total, x) => total + (x ?? 0), 0);

/** The share of busy-backend samples that waited on a lock of any kind, in %. */
function lockShare(pgWaits) {
  const total = sum(Object.values(pgWaits.waits));
  const locks = sum(Object.entries(pgWaits.waits).filter(([what]) => what.startsWith('Lock:')).map(([, count]) => count));
  return total ? (100 * locks) / total : 0;
}

/** The ratios the targets are set on, from the runs made: lines of markdown. */
function ratios(runs, ceiling) {
  const lines = [];
  const rate = (name) => runs[name]?.perSecond;
  const outboxOn = rate(SQLITE_RUN);
  const outboxOff = rate(SQLITE_NO_OUTBOX_RUN);
  if (outboxOn && outboxOff) {
    const ratio = outboxOn / outboxOff;
    lines.push(`- The webhook outbox's cost (SQLite): ${n(Math.round(outboxOn))}/s with it against ${n(Math.round(outboxOff))}/s without: **${ratio.toFixed(2)}×** (target ≥ 0.80: ${yes(ratio >= 0.8)}).`);
  }
  const many = rate(postgresRunName(REPLICAS));
  const one = rate(postgresRunName(1));
  if (REPLICAS > 1 && many && one) {
    const ratio = many / one;
    lines.push(`- ${REPLICAS} PostgreSQL replicas against 1 (on the same cores, each replica hearing the others' changes): ${n(Math.round(many))}/s against ${n(Math.round(one))}/s: **${ratio.toFixed(2)}×** (target ≥ 0.85: ${yes(ratio >= 0.85)}).`);
  }
  if (ceiling) {
    const best = Math.max(...Object.values(runs).filter((f) => f.database === 'postgres').map((f) => f.perSecond));
    lines.push(`- PostgreSQL's NOTIFY ceiling on this machine (pgbench, ${ceiling.clients} clients, ${ceiling.seconds} s each, no relay running): ${n(Math.round(ceiling.withNotify))} commits/s of a one-row insert that also sends \`pg_notify\`, against ${n(Math.round(ceiling.withoutNotify))}/s without it.`
      + (Number.isFinite(best) ? ` Each elicitation commits two changes that notify (its create and its settle), so the relay's best PostgreSQL run (${n(Math.round(best))}/s) committed about ${n(Math.round(2 * best))} notifying changes/s: ${Math.round((100 * 2 * best) / ceiling.withNotify)} % of the ceiling.` : ''));
  }
  return lines;
}

/** Where the time and the memory went in this run, from the run's own measurements. */
function causes(runs) {
  const lines = [];
  for (const [name, f] of Object.entries(runs)) {
    const c = f.cpuSeconds;
    const relayCpu = sum(c.relays);
    const perElicitation = (seconds) => `${((1000 * seconds) / f.elicitations).toFixed(2)} ms`;
    const parts = [`**${name}:** ${n(Math.round(f.perSecond))} elicitations/s with ${f.hosts} hosts in flight, so each one spends about ${ms((1000 * f.hosts) / f.perSecond)} ms in a closed loop of create → shown → answer → host (Little's law), most of it queued`];
    if (f.light) {
      const quick = f.light.createToShownMs.p95 <= 50 && f.light.answerToHostMs.p95 <= 50;
      parts.push(`with ${LIGHT_HOSTS} hosts in flight the same setup runs ${n(Math.round(f.light.perSecond))}/s with p95 ${ms(f.light.createToShownMs.p95)} ms (create → shown) and ${ms(f.light.answerToHostMs.p95)} ms (answer → host)`
        + (quick ? `: the p95 at ${f.hosts} hosts is time spent queued (hosts in flight ÷ throughput), not a fixed cost per elicitation` : ''));
    }
    const cpu = [`relay CPU ${perElicitation(relayCpu)} per elicitation`];
    const threads = f.relayThreads?.flatMap((replica) => Object.entries(replica)) ?? [];
    const byName = {};
    for (const [thread, usage] of threads) {
      byName[thread] ??= { cpu: 0, voluntary: 0 };
      byName[thread].cpu += usage.cpuSeconds;
      byName[thread].voluntary += usage.voluntarySwitches;
    }
    const sqliteWorkers = byName['sqlx-sqlite-wor'];
    if (sqliteWorkers) cpu.push(`${perElicitation(sqliteWorkers.cpu)} of it in sqlx's SQLite worker threads (\`sqlx-sqlite-worker\`, one per connection: every statement is handed to one and its rows handed back), which slept and woke ${(sqliteWorkers.voluntary / f.elicitations).toFixed(0)} times per elicitation`);
    if (c.database !== null && c.database !== undefined) cpu.push(`PostgreSQL ${perElicitation(c.database)}`);
    if (c.machine) {
      const others = c.machine.busySeconds - relayCpu - (c.database ?? 0) - (c.generator ?? 0);
      const capacity = c.machine.busySeconds + c.machine.idleSeconds;
      const benchCores = (relayCpu + (c.database ?? 0) + (c.generator ?? 0)) / f.seconds;
      cpu.push(`the generator ${perElicitation(c.generator ?? 0)} (together ${benchCores.toFixed(2)} of the ${cpus().length} cores); the machine was ${Math.round((100 * c.machine.busySeconds) / capacity)} % busy, ${Math.round((100 * Math.max(0, others)) / capacity)} % of it other work (load average ${f.load.start.toFixed(1)} → ${f.load.end.toFixed(1)})`);
    }
    parts.push(cpu.join(', '));
    if (f.perf) {
      const top = (shares, count) => Object.entries(shares).sort((a, b) => b[1] - a[1]).slice(0, count).map(([t, share]) => `${t.replace(/^\[[k.]\] /, '')} ${share.toFixed(0)} %`).join(', ');
      const calls = f.perf.syscalls ?? {};
      const each = (name) => ((calls[name] ?? 0) / f.perf.elicitations).toFixed(2);
      const syscalls = Object.keys(calls).length && !sqliteWorkers
        ? `; system calls of the relays per elicitation: futex ${each('futex')} (thread wake-ups)`
        : Object.keys(calls).length
        ? `; system calls of the relay${f.relays > 1 ? 's' : ''} per elicitation: futex ${each('futex')} (thread hand-offs), clock_nanosleep ${each('clock_nanosleep')} (${n(calls.clock_nanosleep ?? 0)} sleeps of ≥ 1 ms in all: SQLite's busy handler, when another connection holds the write lock), fcntl ${each('fcntl')} (SQLite's file locks), pread64 ${each('pread64')}, pwrite64 ${each('pwrite64')}, fsync ${each('fsync')} (WAL checkpoints)`
        : '';
      parts.push(`perf record of the relay${f.relays > 1 ? 's' : ''} in a separate run (${n(f.perf.elicitations)} elicitations, ${n(Math.round(f.perf.perSecond))}/s under perf): ${f.perf.kernel === null ? 'n/a' : `${f.perf.kernel.toFixed(0)} %`} of the samples in the kernel; by thread ${top(f.perf.threads, 3)}; hottest symbols ${top(f.perf.symbols, 3)}${syscalls}`);
    }
    if (f.pgWaits) {
      const total = sum(Object.values(f.pgWaits.waits));
      const object = f.pgWaits.waits['Lock:object'] ?? 0;
      const top = Object.entries(f.pgWaits.waits).sort((x, y) => y[1] - x[1]).slice(0, 3).map(([what, count]) => `${what} ${Math.round((100 * count) / total)} %`).join(', ');
      if (total) {
        parts.push(`PostgreSQL's busy backends, sampled every 100 ms (${n(total)} busy in ${n(f.pgWaits.samples)} samples): ${top}`
          + (lockShare(f.pgWaits) > 0 ? `; the statements that waited on a lock: ${Object.entries(f.pgWaits.lockedStatements).sort((x, y) => y[1] - x[1]).slice(0, 3).map(([statement, count]) => `\`${statement}\` ${count}`).join(', ')}` : '')
          + (object / total >= 0.25 ? '; `Lock:object` is the one cluster-wide lock of PostgreSQL that every transaction which sent a NOTIFY holds through its commit, so the writes of both replicas (each sends `pg_notify` with its change) commit one after another' : ''));
      }
    }
    if (f.sharedPeople && f.sharedPeople.perStreamBytes !== null) {
      parts.push(`memory: ${kb(f.perStreamBytes)} KiB per stream with one person per stream, ${kb(f.sharedPeople.perStreamBytes)} KiB when the same ${n(f.streams)} streams belong to ${f.sharedPeople.people} people, so about ${kb(f.perStreamBytes - f.sharedPeople.perStreamBytes)} KiB is each person's event channel (the hub's broadcast backlog, allocated whole) and the rest the connection and its stream`);
    }
    lines.push(`${parts.join('; ')}.`);
  }
  return lines;
}

function writeResults(markdown) {
  const file = join(ROOT, 'bench', 'RESULTS.md');
  const old = readFileSync(file, 'utf8');
  const marker = '<!-- notes -->';
  // Drop an earlier run's section: from its heading to the next `## ` heading.
  let text = old;
  const at = text.indexOf(`\n${SECTION}\n`);
  if (at >= 0) {
    const next = text.indexOf('\n## ', at + SECTION.length + 2);
    text = text.slice(0, at + 1) + (next >= 0 ? text.slice(next + 1) : '');
  }
  // Right after the generated header part (before the marker `npm run bench` rewrites above), so
  // that a later `npm run bench -- --write-results` keeps it.
  const where = text.indexOf(marker);
  if (where < 0) throw new Error('bench/RESULTS.md has no <!-- notes --> marker');
  const after = where + marker.length;
  text = `${text.slice(0, after)}\n\n${markdown}\n${text.slice(after).replace(/^\n+/, '\n')}`;
  writeFileSync(file, text);
  log('updated bench/RESULTS.md');
}

/** `--streams-only`: the memory of STREAMS open streams on one SQLite relay, one person each and shared by a few. */
async function streamsOnly(streams = STREAMS) {
  const limits = openFilesLimits();
  log(`open files: soft ${limits.soft}, hard ${limits.hard} (the relay and the generator each need more than ${n(streams)})`);
  if (Number(limits.hard) < streams + 256) log(`warning: a hard limit of ${limits.hard} open files is too low for ${n(streams)} streams`);
  const run = async (people) => {
    const marks = cleanups.length;
    try {
      const { relays } = await sqliteRun();
      const [relay] = relays;
      log(`${n(streams)} streams of ${people ? n(people) : 'one person each'} on a fresh SQLite relay…`);
      const args = ['--service-token', SERVICE_TOKEN, '--jwt-secret', JWT_SECRET, '--streams', String(streams), '--elicitations', '100', '--hosts', '8', '--relay', relay.url, '--pid', String(relay.pid)];
      if (people) args.push('--people', String(people));
      const figures = await new Promise((resolveRun, rejectRun) => {
        const child = spawnWithFiles(LOAD_BIN, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
        let stdout = '';
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
        });
        child.once('exit', (code) => (code === 0 ? resolveRun(JSON.parse(stdout.trim().split('\n').pop())) : rejectRun(new Error(`the load generator exited ${code}`))));
      });
      const [memory] = figures.memory;
      return { people: people ?? streams, opened: figures.streams - figures.streamsFailed, seconds: figures.streamsOpenSeconds, lost: figures.lost, ...memory };
    } finally {
      await cleanUpTo(marks);
    }
  };
  const rows = [await run(null), await run(SHARED_PEOPLE)];
  const lines = [
    `| streams · people | opened (s) | VmRSS before → streams open, MiB | per stream, KiB (target ≤ ${PER_STREAM_TARGET / 1024}) | met |`,
    '|---|---:|---:|---:|:---:|',
    ...rows.map((r) => `| ${n(streams)} · ${n(r.people)} | ${n(r.opened)} (${r.seconds.toFixed(1)}) | ${(r.rssBeforeBytes / 1048576).toFixed(1)} → ${(r.rssStreamsOpenBytes / 1048576).toFixed(1)} | ${kb(r.perStreamBytes)} | ${yes(r.perStreamBytes !== null && r.perStreamBytes <= PER_STREAM_TARGET)} |`),
  ];
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'relay-streams.json'), `${JSON.stringify({ limits, rows }, null, 2)}\n`);
  console.log(`\n${lines.join('\n')}\n`);
  log('wrote bench/out/relay-streams.json');
  return lines;
}

/**
 * The team run: TEAM_MEMBERS streams of one group's members on a fresh SQLite relay, TEAM_QUESTIONS
 * questions to the group (crates/relay/examples/team_load.rs); its table's lines.
 */
async function teamRun() {
  const marks = cleanups.length;
  try {
    const { relays } = await sqliteRun();
    const [relay] = relays;
    log(`a group of ${n(TEAM_MEMBERS)} members with open streams, ${TEAM_QUESTIONS} questions, on a fresh SQLite relay…`);
    const args = ['--service-token', SERVICE_TOKEN, '--jwt-secret', JWT_SECRET, '--members', String(TEAM_MEMBERS), '--questions', String(TEAM_QUESTIONS), '--relay', relay.url, '--pid', String(relay.pid)];
    const figures = await new Promise((resolveRun, rejectRun) => {
      const child = spawnWithFiles(TEAM_BIN, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.once('exit', (code) => (code === 0 ? resolveRun(JSON.parse(stdout.trim().split('\n').pop())) : rejectRun(new Error(`the team generator exited ${code}`))));
    });
    const ms = (summary) => `${summary.p50 ?? '–'} / ${summary.p95 ?? '–'} / ${summary.max ?? '–'}`;
    const lines = [
      '| members · questions | create → shown on each member\'s stream, ms (p50 / p95 / max) | create → shown on all, ms (p50 / p95 / max) | answer → `settled` on all, ms (p50 / p95 / max) | missed (shown · settled) | per stream, KiB |',
      '|---|---:|---:|---:|---:|---:|',
      `| ${n(figures.members)} · ${figures.questions} | ${ms(figures.createToShownOnEachMs)} | ${ms(figures.createToShownOnAllMs)} | ${ms(figures.answerToSettledOnAllMs)} | ${figures.notShownToAll} · ${figures.notSettledToAll} | ${kb(figures.perStreamBytes)} |`,
    ];
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'relay-team.json'), `${JSON.stringify(figures, null, 2)}\n`);
    console.log(`\n${lines.join('\n')}\n`);
    log('wrote bench/out/relay-team.json');
    return lines;
  } finally {
    await cleanUpTo(marks);
  }
}

// --- main ----------------------------------------------------------------------------------------
try {
  const loadAtStart = loadavg();
  if (!flag('--no-build')) build();
  for (const bin of [RELAY_BIN, LOAD_BIN, TEAM_BIN]) if (!existsSync(bin)) throw new Error(`${bin} is missing: build it or drop --no-build`);
  if (TEAM_ONLY) {
    await teamRun();
    await cleanUp();
    process.exit(0);
  }
  if (STREAMS_ONLY) {
    await streamsOnly();
    await cleanUp();
    process.exit(0);
  }
  const runs = {};
  if (!flag('--no-webhooks')) {
    webhookReceiver = await startWebhookReceiver();
    cleanups.push(() => webhookReceiver.close());
  }
  const tag = (database) => (figures) => ({ ...figures, database });
  if (ONLY !== 'postgres') {
    runs[SQLITE_RUN] = tag('sqlite')(await measure('SQLite', sqliteRun));
    runs[SQLITE_RUN].sharedPeople = await sharedPeopleMemory();
    if (webhookReceiver) {
      runs[SQLITE_NO_OUTBOX_RUN] = tag('sqlite')(await measure('SQLite without webhooks', () => sqliteRun({ webhooks: false })));
    }
  }
  if (ONLY !== 'sqlite') {
    runs[postgresRunName(REPLICAS)] = tag('postgres')(await measure(`PostgreSQL, ${REPLICAS} replica(s)`, () => postgresRun(REPLICAS)));
    if (REPLICAS > 1) runs[postgresRunName(1)] = tag('postgres')(await measure('PostgreSQL, 1 replica', () => postgresRun(1)));
  }
  const ceiling = ONLY === 'sqlite' || flag('--no-notify-ceiling') || !PG_BIN ? null : await notifyCeiling();
  // The stream capacity apart: 10,000 streams on one replica, without the elicitation load.
  const CAPACITY_STREAMS = 10_000;
  const capacity = flag('--no-capacity') ? null : await streamsOnly(CAPACITY_STREAMS);
  const team = flag('--no-team') ? null : await teamRun();
  const loadAtEnd = loadavg();
  const pgVersion = (() => {
    if (!PG_BIN) return 'n/a';
    const v = spawnSync(join(PG_BIN, 'postgres'), ['--version'], { encoding: 'utf8' });
    return v.stdout.trim().replace(/^postgres \(PostgreSQL\) /, '') || 'n/a';
  })();
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const markdown = [
    SECTION,
    '',
    `Generated by \`npm run bench:relay -- --write-results\` (bench/relay.mjs, generator crates/relay/examples/load.rs). Run ${date} UTC · ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), `
      + `the relays, PostgreSQL and the generator on the same machine · 1-min / 5-min load average ${loadAtStart[0].toFixed(2)} / ${loadAtStart[1].toFixed(2)} at the start and ${loadAtEnd[0].toFixed(2)} / ${loadAtEnd[1].toFixed(2)} at the end · `
      + `${n(STREAMS)} open streams (one person each), ${n(ELICITATIONS)} elicitations, ${HOSTS} hosts in flight, each long-polling \`?wait=30\`${PERF ? ' · a separate run under `perf record` (499 Hz) for the profile' : ''} · whole run ${Math.round((Date.now() - T0) / 1000)} s`,
    '',
    ...table(runs),
    '',
    ...ratios(runs, ceiling),
    '',
    'Latencies on one monotonic clock in the generator: create sent → the `elicitation` event read from the person\'s stream; the person\'s answer sent → the host\'s long-poll response read. '
      + 'Lost: the host never read `settled` with the person\'s answer. Settled twice: a second, different answer got 200, or the host read another answer than the one that got 200. '
      + 'Memory: the relay process\'s VmRSS after the streams opened minus before (after a warm-up), ÷ its streams (per replica with two). '
      + `With two replicas the streams alternate between them, half the creates go to the person's stream's replica and half to the other, the host long-polls the replica it did not create on, and the person answers on their stream's replica. `
      + `SQLite: WAL, synchronous=NORMAL. PostgreSQL ${pgVersion} as scripts/pg-temp.sh starts it (fsync off, synchronous_commit off): neither fsyncs per commit.`,
    '',
    ...(team ? [`A question for a team (SQLite relay, one group of ${n(TEAM_MEMBERS)} members, each with an open stream, asked ${TEAM_QUESTIONS} questions one after another; each answered by one member, and every member's stream then gets \`settled\` with \`answeredBy\`):`, '', ...team, ''] : []),
    ...(capacity ? [`Open streams on one replica (SQLite relay, ${n(CAPACITY_STREAMS)} streams held open with a light load of 100 elicitations; memory = VmRSS growth ÷ streams):`, '', ...capacity, ''] : []),
    'Where the time and the memory go (measured in this run):',
    '',
    ...causes(runs).flatMap((line) => [line, '']),
  ].join('\n');
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'relay.json'), `${JSON.stringify({ date, loadAtStart, loadAtEnd, runs, ceiling }, null, 2)}\n`);
  console.log(`\n${markdown}\n`);
  log(`wrote bench/out/relay.json in ${Math.round((Date.now() - T0) / 1000)} s`);
  if (flag('--write-results')) writeResults(markdown);
} catch (error) {
  console.error(`bench:relay: ${error.stack ?? error.message}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
