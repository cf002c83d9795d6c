// The relay's release artefacts from `npm run image` (scripts/image.sh; scripts/test.sh runs it once
// before this suite): the static musl binary, its tarball, and the container image.
// - The binary is statically linked, starts on SQLite, answers /readyz, and serves a create and an
//   answer. Its TLS client trusts a CA this test makes when SSL_CERT_FILE names a bundle holding it,
//   and refuses it without (a webhook over https to a local TLS server with a cert from that CA).
// - The tarball holds that binary, and its checksum file matches.
// - Where a container engine works, the image is inspected (entrypoint, non-root user, port 8790,
//   OCI labels, under 40 MB) and holds that very binary; where podman or docker can run it, it runs
//   read-only, without capabilities or privilege escalation, as a non-root process, and is ready.
//   Where no engine works, those tests say so and are skipped; the binary's tests above still ran.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './harness.mjs';
import { JWT_SECRET, mintToken, SERVICE_TOKEN, startRelay } from './relay-harness.mjs';

const NAME = 'koder-elicitation-relay';
const TARGET = 'x86_64-unknown-linux-musl';
const BINARY = join(repoRoot, 'target', TARGET, 'release', NAME);
const CONTEXT_BUNDLE = join(repoRoot, 'target', 'relay-image', 'context', 'ca-certificates.crt');
const VERSION = /^version = "([^"]+)"$/m.exec(readFileSync(join(repoRoot, 'crates', 'relay', 'Cargo.toml'), 'utf8'))[1];
const IMAGE = `${NAME}:${VERSION}`;
const RELEASE = `${NAME}-${VERSION}-${TARGET}`;
const TARBALL = join(repoRoot, 'target', 'dist', `${RELEASE}.tar.gz`);
const MAX_IMAGE_BYTES = 40 * 1024 * 1024;
const SCOPE = { userId: 'u_image', workspaceId: 'w_image' };
const PERSON = { sub: 'u_image', workspace: 'w_image' };
const WEBHOOK_ENV = { KODER_RELAY_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}` };
const FORM = {
  message: 'Which city?',
  requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

let work;
before(() => {
  if (!existsSync(BINARY)) throw new Error(`static relay binary missing: ${BINARY} (build it with \`npm run image\`)`);
  work = mkdtempSync(join(tmpdir(), 'koder-relay-image-'));
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** The ELF program headers' types (PT_INTERP is 3) and the DT_NEEDED count of a 64-bit little-endian ELF. */
function elfLinking(bytes) {
  assert.equal(bytes.subarray(0, 4).toString('latin1'), '\x7fELF', 'not an ELF file');
  assert.equal(bytes[4], 2, 'not a 64-bit ELF');
  const phoff = Number(bytes.readBigUInt64LE(0x20));
  const phentsize = bytes.readUInt16LE(0x36);
  const phnum = bytes.readUInt16LE(0x38);
  const types = [];
  let needed = 0;
  for (let index = 0; index < phnum; index += 1) {
    const header = phoff + index * phentsize;
    const type = bytes.readUInt32LE(header);
    types.push(type);
    if (type !== 2) continue; // PT_DYNAMIC (a static-pie has one, for its own relocations)
    const offset = Number(bytes.readBigUInt64LE(header + 8));
    const size = Number(bytes.readBigUInt64LE(header + 32));
    for (let entry = offset; entry + 16 <= offset + size; entry += 16) {
      const tag = bytes.readBigInt64LE(entry);
      if (tag === 0n) break; // DT_NULL
      if (tag === 1n) needed += 1; // DT_NEEDED: a shared library to load
    }
  }
  return { hasInterpreter: types.includes(3), needed };
}

async function create(relay) {
  const response = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope: SCOPE, request: FORM, serverName: 'Image test' }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

async function assertReady(url) {
  const response = await fetch(`${url}/readyz`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: 'ready' });
}

test('the static binary is statically linked: no interpreter, no shared library', () => {
  const linking = elfLinking(readFileSync(BINARY));
  assert.equal(linking.hasInterpreter, false, 'the binary names a dynamic loader (PT_INTERP)');
  assert.equal(linking.needed, 0, 'the binary needs shared libraries (DT_NEEDED)');
  const ldd = spawnSync('ldd', [BINARY], { encoding: 'utf8' });
  if (!ldd.error) assert.match(`${ldd.stdout}${ldd.stderr}`, /statically linked|not a dynamic executable/);
});

test('the static binary starts on SQLite, is ready, and serves a create and an answer', { timeout: 60_000 }, async () => {
  const relay = await startRelay({ binary: BINARY });
  try {
    await assertReady(relay.url);
    const id = await create(relay);
    const answer = await fetch(`${relay.url}/v1/elicitations/${id}/result`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${mintToken(PERSON)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ action: 'accept', content: { city: 'Porto' } }),
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    const result = await fetch(`${relay.url}/v1/elicitations/${id}/result`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
    assert.equal(result.status, 200);
    assert.deepEqual(await result.json(), { status: 'settled', result: { action: 'accept', content: { city: 'Porto' } } });
  } finally {
    await relay.stop();
  }
});

/** A CA and a server certificate for 127.0.0.1 signed by it, made with openssl in `dir`. */
function makeCertificates(dir) {
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=koder relay image test CA');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '2', '-days', '2', '-extfile', 'server.ext', '-out', 'server.pem');
  return {
    ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    key: readFileSync(join(dir, 'server.key')),
    cert: readFileSync(join(dir, 'server.pem')),
  };
}

/** An https webhook receiver on 127.0.0.1 that keeps each request's body and each failed handshake. */
async function startTlsReceiver({ key, cert }) {
  const requests = [];
  const handshakeErrors = [];
  const waiters = new Set();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  const server = createHttpsServer({ key, cert }, (request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      requests.push(JSON.parse(body));
      response.writeHead(204).end();
      wake();
    });
  });
  server.on('tlsClientError', (error) => {
    handshakeErrors.push(error.message);
    wake();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${server.address().port}/hooks/relay`,
    requests,
    handshakeErrors,
    /** Resolves once `done()` holds, or rejects after `ms`. */
    until(done, ms, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!done()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${what} within ${ms} ms`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

test('the static binary trusts a CA named through SSL_CERT_FILE, and refuses it without', { timeout: 90_000 }, async () => {
  const certificates = makeCertificates(work);
  // What an operator mounts beside the image: the image's own bundle plus their CA.
  const bundle = join(work, 'bundle-with-test-ca.pem');
  const imageBundle = existsSync(CONTEXT_BUNDLE) ? readFileSync(CONTEXT_BUNDLE, 'utf8') : '';
  writeFileSync(bundle, `${imageBundle}\n${certificates.ca}`);
  const receiver = await startTlsReceiver(certificates);
  try {
    const trusting = await startRelay({
      binary: BINARY,
      args: ['--webhook-url', receiver.url],
      env: { ...WEBHOOK_ENV, SSL_CERT_FILE: bundle, SSL_CERT_DIR: undefined },
    });
    try {
      const id = await create(trusting);
      await receiver.until(() => receiver.requests.some((event) => event.data?.id === id), 20_000, 'webhook delivery');
      assert.equal(receiver.requests.find((event) => event.data?.id === id).type, 'elicitation.created');
      assert.deepEqual(receiver.handshakeErrors, []);
    } finally {
      await trusting.stop();
    }

    const delivered = receiver.requests.length;
    const refusing = await startRelay({
      binary: BINARY,
      args: ['--webhook-url', receiver.url],
      env: { ...WEBHOOK_ENV, SSL_CERT_FILE: undefined, SSL_CERT_DIR: undefined },
    });
    try {
      await create(refusing);
      await receiver.until(() => receiver.handshakeErrors.length > 0, 20_000, 'refused handshake');
      assert.equal(receiver.requests.length, delivered, 'a webhook got through a CA the relay should not trust');
    } finally {
      await refusing.stop();
    }
  } finally {
    await receiver.close();
  }
});

test('an SSL_CERT_FILE that holds no certificate stops the start, and the error names it', { timeout: 30_000 }, async () => {
  const empty = join(work, 'empty.pem');
  writeFileSync(empty, '');
  const failure = await startRelay({
    binary: BINARY,
    args: ['--webhook-url', 'https://127.0.0.1:9/hook'],
    // SSL_CERT_DIR would add its roots to the file's: this machine's may set it.
    env: { ...WEBHOOK_ENV, SSL_CERT_FILE: empty, SSL_CERT_DIR: undefined },
  }).then(
    async (relay) => {
      await relay.stop();
      return null;
    },
    (error) => error,
  );
  assert.ok(failure, 'the relay failure with no TLS roots');
  assert.match(failure.message, /cannot set up TLS for --webhook-url/);
  assert.ok(failure.message.includes(`SSL_CERT_FILE=${empty}`), failure.message);
});

test('the tarball holds the static binary, and its checksum file matches', () => {
  const archive = readFileSync(TARBALL);
  const [line] = readFileSync(`${TARBALL}.sha256`, 'utf8').split('\n');
  assert.equal(line, `${sha256(archive)}  ${RELEASE}.tar.gz`);
  const listing = execFileSync('tar', ['-tzf', TARBALL], { encoding: 'utf8' }).trim().split('\n').sort();
  assert.deepEqual(listing, [`${RELEASE}/`, `${RELEASE}/LICENSE`, `${RELEASE}/README.md`, `${RELEASE}/${NAME}`]);
  const inside = execFileSync('tar', ['-xzOf', TARBALL, `${RELEASE}/${NAME}`], { maxBuffer: 256 * 1024 * 1024 });
  assert.equal(sha256(inside), sha256(readFileSync(BINARY)));
});

// ---- the image -------------------------------------------------------------------------------

const works = (command, args) => {
  const run = spawnSync(command, args, { stdio: 'ignore', timeout: 60_000 });
  return !run.error && run.status === 0;
};
/** The engine scripts/image.sh picked: CONTAINER_ENGINE, else the first of podman, buildah, docker that answers. */
function findEngine() {
  const candidates = process.env.CONTAINER_ENGINE ? [process.env.CONTAINER_ENGINE] : ['podman', 'buildah', 'docker'];
  return candidates.find((engine) => works(engine, ['info'])) ?? null;
}
const ENGINE = findEngine();
const NO_ENGINE = ENGINE === null && 'no container engine works here (podman, buildah or docker): the image was not built; the binary it would hold was tested above';
/**
 * Why the image cannot be started here, or false. Only podman and docker run containers; and a
 * runtime the machine does not let start any container (a sandbox that forbids setting rlimits)
 * fails with an "OCI permission denied" before the image's binary runs: that is said, not failed.
 */
function cannotRun() {
  if (!['podman', 'docker'].includes(ENGINE)) return `no engine here runs containers (${ENGINE ?? 'none'} found): the image is not started`;
  const probe = spawnSync(ENGINE, ['run', '--rm', '--network', 'host', IMAGE, '--help'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.status !== 0 && /OCI permission denied/.test(probe.stderr)) {
    return `${ENGINE} cannot start containers on this machine (${probe.stderr.trim().split('\n').pop()}): the image is not started`;
  }
  return false;
}
const CANNOT_RUN = NO_ENGINE ? NO_ENGINE : cannotRun();

const engine = (...args) => execFileSync(ENGINE, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();

/** The image's config as the engine reports it: { entrypoint, user, ports, labels, env, size }. */
function inspectImage() {
  if (ENGINE === 'buildah') {
    const { OCIv1 } = JSON.parse(engine('inspect', '--type', 'image', IMAGE));
    const size = JSON.parse(engine('images', '--json', IMAGE))[0]?.size;
    return { ...configOf(OCIv1.config), size: parseSize(size) };
  }
  const [image] = JSON.parse(engine('image', 'inspect', IMAGE));
  return { ...configOf(image.Config), size: image.Size };
}
const configOf = (config) => ({
  entrypoint: config.Entrypoint,
  user: config.User,
  ports: Object.keys(config.ExposedPorts ?? {}),
  labels: config.Labels ?? {},
  env: config.Env ?? [],
});
/** buildah's `images --json` size: bytes, or a string like "14.2 MB". */
function parseSize(size) {
  if (typeof size === 'number') return size;
  const match = /^([\d.]+)\s*([kKMG]?B)$/.exec(String(size).trim());
  assert.ok(match, `cannot read the image size ${size}`);
  return Number(match[1]) * { B: 1, kB: 1e3, KB: 1e3, MB: 1e6, GB: 1e9 }[match[2]];
}

/** The bytes of one file inside the image. */
function fileInImage(path) {
  if (ENGINE === 'buildah') {
    const container = engine('from', '--pull-never', IMAGE);
    try {
      return readFileSync(join(engine('mount', container), path));
    } finally {
      engine('rm', container);
    }
  }
  const container = engine('create', IMAGE);
  try {
    const out = join(work, 'from-image');
    engine('cp', `${container}:${path}`, out);
    return readFileSync(out);
  } finally {
    engine('rm', container);
  }
}

test('the image: the relay as entrypoint, a non-root user, port 8790, OCI labels, under 40 MB, the static binary, its CA bundle and dist/ inside', { skip: NO_ENGINE, timeout: 120_000 }, () => {
  const image = inspectImage();
  assert.deepEqual(image.entrypoint, [`/usr/local/bin/${NAME}`]);
  assert.equal(image.user, '65532:65532');
  assert.deepEqual(image.ports, ['8790/tcp']);
  assert.equal(image.labels['org.opencontainers.image.version'], VERSION);
  assert.equal(image.labels['org.opencontainers.image.licenses'], 'MIT');
  assert.ok(image.labels['org.opencontainers.image.source'], 'no org.opencontainers.image.source label');
  assert.ok(image.env.includes('SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt'), image.env.join(' '));
  // --answer-page finds the element's files it carries without another flag.
  assert.ok(image.env.includes('KODER_RELAY_ANSWER_PAGE_ASSETS=/usr/share/koder-elicitation-relay/answer-assets'), image.env.join(' '));
  assert.ok(image.size > 0 && image.size < MAX_IMAGE_BYTES, `the image is ${image.size} bytes`);
  assert.equal(sha256(fileInImage(`/usr/local/bin/${NAME}`)), sha256(readFileSync(BINARY)), 'the image holds another binary');
  assert.equal(sha256(fileInImage('/etc/ssl/certs/ca-certificates.crt')), sha256(readFileSync(CONTEXT_BUNDLE)), 'the image holds another CA bundle');
  // The answer page's files, when dist/ was built before the image (scripts/test.sh builds it first).
  const entry = join(repoRoot, 'dist', 'koder-mcp-elicitation.js');
  if (existsSync(entry)) {
    assert.equal(sha256(fileInImage('/usr/share/koder-elicitation-relay/answer-assets/koder-mcp-elicitation.js')), sha256(readFileSync(entry)));
  }
});

/** A free port on 127.0.0.1 (the container shares the host's network). */
async function freePort() {
  const server = createNetServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('the image runs read-only, without capabilities, as a non-root process, and is ready', { skip: CANNOT_RUN, timeout: 120_000 }, async () => {
  const port = await freePort();
  // Named, so it is removed even when the run itself fails after creating it.
  const container = `koder-relay-image-test-${process.pid}`;
  engine(
    'run', '--detach', '--name', container, '--network', 'host', '--read-only', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges',
    // The SQLite file's directory: the root file system is read-only.
    '--tmpfs', '/var/lib/koder-elicitation-relay:rw,mode=1777',
    '--env', `KODER_RELAY_LISTEN=127.0.0.1:${port}`,
    '--env', `KODER_RELAY_SERVICE_TOKEN=${SERVICE_TOKEN}`, '--env', `KODER_RELAY_JWT_SECRET=${JWT_SECRET}`,
    IMAGE,
  );
  try {
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ready = await fetch(`${url}/readyz`).then((response) => response.status === 200, () => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`the container was not ready within 30 s:\n${engine('logs', container)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await assertReady(url);
    await create({ url });
    const pid = engine('inspect', '--format', '{{.State.Pid}}', container);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    assert.match(status, /^Uid:\s+65532\s+65532\s+65532\s+65532$/m);
    assert.match(status, /^CapEff:\s+0+$/m);
    assert.match(status, /^NoNewPrivs:\s+1$/m);
  } finally {
    spawnSync(ENGINE, ['rm', '--force', container], { stdio: 'ignore' });
  }
});
