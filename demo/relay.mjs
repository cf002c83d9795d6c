// The demo's own koder-elicitation-relay: the built binary (target/release, else target/debug), on
// a free port of 127.0.0.1, with SQLite in a fresh temp dir and development secrets made here with
// crypto.randomBytes and printed, so a newcomer can call it by hand. Everything goes when the demo
// stops. The page reaches it through the demo server (/relay/…, same origin), so its strict CSP
// stays `connect-src 'self'`. It runs with Web Push: a VAPID key made for the run (`vapid generate
// --out` into its temp dir), pushing to the browsers' own push services (the relay's default allow
// list), each push opening the demo page. It serves its own answer page (`--answer-page`, the element
// from dist/) on its own port, and, with the demo's mail catcher (demo/mail.mjs), e-mails a question's
// link to addresses @example.com. People's groups come from their tokens' `groups` claim (the
// relay's default --jwt-groups-claim), which "Ask the team" (demo/team.mjs) relies on.

import { execFile, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** The audience the relay requires in people's tokens. */
const AUDIENCE = 'koder-elicitation-relay';
const START_TIMEOUT_MS = 30_000;
// How long the relay has to drain on SIGTERM before it is killed.
const STOP_TIMEOUT_MS = 10_000;
const TOKEN_LIFETIME_S = 3600;
/** Who runs the demo's pushes, for the push services (VAPID `sub`). */
const VAPID_SUBJECT = 'mailto:demo@localhost';
/** The only domain the demo's relay e-mails (the mail catcher takes every message anyway). */
export const DEMO_MAIL_DOMAIN = 'example.com';

/** The relay binary to run (the newer of target/release and target/debug), or null when none was built. */
export function relayBinary(root) {
  const built = ['release', 'debug']
    .map((profile) => path.join(root, 'target', profile, 'koder-elicitation-relay'))
    .filter((binary) => existsSync(binary));
  built.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return built[0] ?? null;
}

/**
 * A VAPID key pair for this run: the private key written to `file` (PKCS#8 PEM), the public key
 * (base64url) returned; null when the binary cannot make one (built before the relay had Web Push).
 */
function generateVapidKey(binary, file) {
  return new Promise((resolve) => {
    execFile(binary, ['vapid', 'generate', '--out', file], { timeout: 10_000 }, (error, stdout) => {
      resolve(error ? null : stdout.trim() || null);
    });
  });
}

/** A port of 127.0.0.1 free now: the relay's links must name its origin before it listens. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts the relay and resolves once it listens: `{ url, serviceToken, personToken(claims),
 * vapidPublicKey, stop() }` (`vapidPublicKey` null when it runs without Web Push). `allowOrigin` is
 * the demo page's origin; a push opens the page there. With `smtpPort`, the relay e-mails links to
 * the mail catcher listening there.
 */
export async function startDemoRelay({ root, allowOrigin, smtpPort }) {
  const binary = relayBinary(root);
  if (binary === null) throw new Error('no relay binary: build it with `cargo build -p koder-elicitation-relay`');
  const dir = mkdtempSync(path.join(tmpdir(), 'koder-demo-relay-'));
  const serviceToken = randomBytes(24).toString('base64url');
  const jwtSecret = randomBytes(32).toString('base64url');
  const relayPort = await freePort();
  const args = [
    '--listen', `127.0.0.1:${relayPort}`,
    '--database', `sqlite://${path.join(dir, 'relay.db')}`,
    // `=`: a random secret may begin with '-', which would read as a flag otherwise.
    `--service-token=${serviceToken}`,
    `--jwt-secret=${jwtSecret}`,
    '--allow-origin', allowOrigin,
    // Its own answer page, where a link (e-mailed, or from POST /v1/elicitations/{id}/link) opens.
    '--answer-page', '--public-url', `http://127.0.0.1:${relayPort}`, '--answer-page-assets', path.join(root, 'dist'),
  ];
  if (smtpPort !== undefined) {
    args.push(
      '--smtp-url', `smtp://127.0.0.1:${smtpPort}`,
      '--email-from', 'Koder demo relay <relay@localhost>',
      '--email-allow-domain', DEMO_MAIL_DOMAIN,
    );
  }
  const vapidKeyFile = path.join(dir, 'vapid.pem');
  const vapidPublicKey = await generateVapidKey(binary, vapidKeyFile);
  if (vapidPublicKey !== null) {
    args.push('--vapid-private-key-file', vapidKeyFile, '--vapid-subject', VAPID_SUBJECT, '--push-open-url', `${allowOrigin}/`);
  }
  // The secrets are the flags above; an ambient KODER_RELAY_* must not change them.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('KODER_RELAY_')));
  const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-8192); });
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  const url = await new Promise((resolve, reject) => {
    let done = false;
    const fail = (why) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      removeDir();
      reject(new Error(`the relay did not start: ${why}${stderr ? `\n${stderr.trim()}` : ''}`));
    };
    const timer = setTimeout(() => fail(`no "listening on" line within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening on (http:\/\/\S+)$/.exec(line.trim());
      if (!match || done) return;
      done = true;
      clearTimeout(timer);
      resolve(match[1].replace(/\/$/, ''));
    });
    child.once('error', (error) => fail(error.message));
    child.once('close', (code, signal) => fail(`it exited with ${code ?? signal}`));
  });
  return {
    url,
    serviceToken,
    jwtSecret,
    vapidPublicKey,
    /**
     * A person's HS256 JWT for the relay (`sub`, `workspace`, optional `conversation`, `name` and
     * `groups`), valid an hour.
     */
    personToken(claims) {
      const payload = { aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + TOKEN_LIFETIME_S, ...claims };
      const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const signingInput = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(payload)}`;
      return `${signingInput}.${createHmac('sha256', jwtSecret).update(signingInput).digest('base64url')}`;
    },
    /**
     * Stops the relay and, once it has exited, removes its temp dir: removed sooner, the files
     * SQLite writes while the relay shuts down would leave the folder behind. A relay that has not
     * gone after STOP_TIMEOUT_MS is killed.
     */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(killer);
      }
      removeDir();
    },
    /** The same at once, for a process that is exiting and cannot wait: kill, then remove. */
    stopNow() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      removeDir();
    },
  };
}
