// Shared helpers for the Node tests that run the real relay (crates/relay) over HTTP.
//
//   const relay = await startRelay({ allowOrigins: [pages.url] });   // SQLite in a fresh temp dir
//   const token = mintToken({ sub: 'u_1', workspace: 'w_1' });        // a person's HS256 JWT
//   await fetch(`${relay.url}/v1/elicitations`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` }, ... });
//   await relay.stop();
//
//   const postgres = await startPostgres();                           // scripts/pg-temp.sh
//   const a = await startRelay({ database: postgres.url });
//   ...
//   await postgres.stop();
//
// The binary is target/debug/koder-elicitation-relay (`cargo build -p koder-elicitation-relay`;
// scripts/test.sh builds it before the e2e stage).
import { spawn, execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { Webhook } from 'standardwebhooks';
import { repoRoot } from './harness.mjs';

/** The hosts' bearer token every harness relay runs with (unless a test passes its own). */
export const SERVICE_TOKEN = 'test-service-token-7f3a9c2e4b1d8a6f';
/** The HS256 secret of people's tokens every harness relay runs with (unless a test passes its own). */
export const JWT_SECRET = 'test-jwt-secret-5e8b1f4c9a2d7e3b6c0a4f8d1e9b2c7a';

/** How long a relay may take to print its `listening on` line. */
const START_TIMEOUT_MS = 30_000;
/** How long stop() waits after SIGTERM before it sends SIGKILL. */
const STOP_TIMEOUT_MS = 10_000;

/** The relay binary's path; throws a clear error when it has not been built. */
export function relayBinary() {
  const binary = join(repoRoot, 'target', 'debug', 'koder-elicitation-relay');
  if (!existsSync(binary)) {
    throw new Error(`relay binary missing: ${binary} (build it with \`cargo build -p koder-elicitation-relay\`)`);
  }
  return binary;
}

/**
 * Starts a relay on 127.0.0.1 with a port of its own (or on `listen`, e.g. a killed relay's
 * address to bring it back there), with `args` added to its command line and `env` to its
 * environment (e.g. a secret that has no flag), and resolves once it listens:
 * `{ url, database, child, logs(), stop(), kill(signal) }` (`logs()`: everything it wrote to
 * stderr so far). Without `database` it gets a fresh SQLite file
 * in a new temp dir (removed by stop()). `stop()` sends SIGTERM and waits for the exit (SIGKILL
 * after 10 s); `kill(signal)` sends `signal` (default SIGKILL) and resolves when the process is
 * gone, leaving the database as it is, so a test can start another relay on it. `binary` runs
 * another build of the relay (default: relayBinary()).
 */
export async function startRelay({
  binary = relayBinary(),
  database,
  serviceToken = SERVICE_TOKEN,
  jwtSecret = JWT_SECRET,
  allowOrigins = [],
  cwd = repoRoot,
  listen = '127.0.0.1:0',
  args: extraArgs = [],
  env: extraEnv = {},
} = {}) {
  let ownDir = null;
  if (database === undefined) {
    ownDir = mkdtempSync(join(tmpdir(), 'koder-relay-'));
    database = `sqlite://${join(ownDir, 'relay.db')}`;
  }
  const args = ['--listen', listen, '--database', database, '--service-token', serviceToken, '--jwt-secret', jwtSecret];
  for (const origin of allowOrigins) args.push('--allow-origin', origin);
  args.push(...extraArgs);
  // Secrets come from the flags (and the test's own `env`) only; an ambient KODER_RELAY_* must
  // not change what a test runs.
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('KODER_RELAY_'))),
    ...extraEnv,
  };
  const child = spawn(binary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });

  let stderr = '';
  let allStderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-8192);
    allStderr += chunk;
  });
  const exited = new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  const url = await new Promise((resolve, reject) => {
    let started = false;
    const fail = (why) => {
      if (started) return;
      started = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (ownDir !== null) rmSync(ownDir, { recursive: true, force: true });
      reject(new Error(`relay did not start: ${why}${stderr ? `\n${stderr.trim()}` : ''}`));
    };
    const timer = setTimeout(() => fail(`no "listening on" line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening on (http:\/\/\S+)$/.exec(line.trim());
      if (!match || started) return;
      started = true;
      clearTimeout(timer);
      resolve(match[1].replace(/\/$/, ''));
    });
    child.once('error', (error) => fail(error.message));
    // 'close' rather than 'exit': by then its stderr has been read to the end.
    child.once('close', (code, signal) => fail(`it exited with ${code ?? signal}`));
  });
  // The line reader keeps reading (and dropping) stdout, so a chatty relay never blocks on a full pipe.

  const removeOwnDir = () => {
    if (ownDir !== null) rmSync(ownDir, { recursive: true, force: true });
    ownDir = null;
  };
  return {
    url,
    database,
    child,
    logs: () => allStderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      removeOwnDir();
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

const base64url = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** The audience the relay requires in people's tokens. */
export const RELAY_AUDIENCE = 'koder-elicitation-relay';

/**
 * A person's HS256 JWT for the relay: `sub`, `workspace`, `conversation` (left out when
 * undefined), `exp` (seconds since the epoch; default one hour from now), `aud` (default
 * RELAY_AUDIENCE). Other claims pass through.
 */
export function mintToken(claims, secret = JWT_SECRET) {
  const payload = { aud: RELAY_AUDIENCE, exp: Math.floor(Date.now() / 1000) + 3600 };
  for (const [name, value] of Object.entries(claims ?? {})) if (value !== undefined) payload[name] = value;
  const signingInput = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(payload)}`;
  const signature = createHmac('sha256', secret).update(signingInput).digest('base64url');
  return `${signingInput}.${signature}`;
}

/**
 * A webhook receiver on 127.0.0.1 (`port` 0 picks one). Every request is kept with what
 * `new Webhook(secret).verify()` made of it; `answer(delivery, index)` gives the status to reply.
 * `close()` stops it.
 */
export async function startWebhookReceiver(secret, { port = 0, answer = () => 204 } = {}) {
  const deliveries = [];
  const webhook = new Webhook(secret);
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const delivery = { method: request.method, path: request.url, headers: request.headers, body, event: null, error: null };
      try {
        delivery.event = webhook.verify(body, request.headers);
      } catch (error) {
        delivery.error = error.message;
      }
      delivery.status = delivery.error ? 400 : answer(delivery, deliveries.length);
      deliveries.push(delivery);
      response.writeHead(delivery.status).end('ignored by the relay');
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return { url: `http://127.0.0.1:${server.address().port}/hooks/relay`, port: server.address().port, deliveries, close };
}

/**
 * The host's result (or a settled webhook's data) without its `answeredBy`, once it is checked: a
 * settled question answered through a link names that link (`{ link: "<32 hex>" }`, with `email`
 * when the relay mailed the link); anything else carries none.
 */
export function answeredThroughALink(outcome, email) {
  const { answeredBy, ...rest } = outcome;
  if (outcome.status !== 'settled') {
    if (answeredBy !== undefined) throw new Error(`answeredBy on an unsettled question: ${JSON.stringify(outcome)}`);
    return rest;
  }
  const link = /^[0-9a-f]{32}$/.test(answeredBy?.link ?? '') ? answeredBy.link : `a link id, not ${JSON.stringify(answeredBy)}`;
  const expected = email === undefined ? { link } : { link, email };
  if (JSON.stringify(answeredBy) !== JSON.stringify(expected)) {
    throw new Error(`answeredBy: expected ${JSON.stringify(expected)}, got ${JSON.stringify(answeredBy)}`);
  }
  return rest;
}

/**
 * What a person does over the relay's people's API with their `token`, as their page would:
 * `pending()` (their pending elicitations), `answer(id, result)` and `status(id)`, the last two
 * resolving `{ status, body }` / the status word.
 */
export function personApi(relayUrl, token) {
  const call = async (method, url, body) => {
    const response = await fetch(`${relayUrl}${url}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body && { 'Content-Type': 'application/json' }) },
      ...(body && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  return {
    pending: async () => (await call('GET', '/v1/elicitations?status=pending')).body.elicitations,
    answer: (id, result) => call('POST', `/v1/elicitations/${id}/result`, result),
    status: async (id) => (await call('GET', `/v1/elicitations/${id}/status`)).body.status,
  };
}

function pgTemp(action, dir) {
  return new Promise((resolve, reject) => {
    execFile('bash', [join(repoRoot, 'scripts', 'pg-temp.sh'), action, dir], { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`scripts/pg-temp.sh ${action} failed: ${(stderr || error.message).trim()}`));
      else resolve(stdout);
    });
  });
}

/** A throwaway PostgreSQL (scripts/pg-temp.sh) in a new temp dir: `{ url, stop() }`. */
export async function startPostgres() {
  const dir = mkdtempSync(join(tmpdir(), 'koder-pg-'));
  let url;
  try {
    const lines = (await pgTemp('start', dir)).trim().split('\n');
    url = lines[lines.length - 1].trim();
    if (!url.startsWith('postgres://')) throw new Error(`scripts/pg-temp.sh start printed no postgres:// URL: ${lines.join(' | ')}`);
  } catch (error) {
    await pgTemp('stop', dir).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    async stop() {
      try {
        await pgTemp('stop', dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
