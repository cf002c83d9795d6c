// A local Web Push service for the e2e suites: the browser vendor's side of RFC 8030, on
// 127.0.0.1, so the relay's pushes can be received, checked and decrypted as a real push service
// (and the browser) would.
//
//   const service = await startPushService({ subject: 'mailto:ops@example.com' });
//   service.register(endpoint, { p256dh, auth, d });  // the subscription's keys, made in the page
//   const push = await service.next();                // { endpoint, headers, vapid, payload, text, problem }
//   await service.close();
//
// Each POST /push/<n> is checked: the VAPID `Authorization: vapid t=…, k=…` (RFC 8292: an ES256 JWT
// verified against k, `aud` this service's origin, `exp` within 24 h, `sub` the relay's subject)
// and the body decrypted with the subscription's private key (RFC 8291, aes128gcm of RFC 8188).
// A push that fails a check is answered 400 or 403, as a push service would, and kept with its
// `problem` so the test sees why; an unknown endpoint is 404.
import { createServer } from 'node:http';
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, verify } from 'node:crypto';

/** RFC 8292: a JWT's `exp` is at most 24 hours ahead (a minute of slack for the clocks). */
const VAPID_MAX_SECONDS = 24 * 60 * 60 + 60;
const MAX_BODY_BYTES = 8192;

const fromBase64url = (text) => Buffer.from(String(text), 'base64url');

/**
 * Checks a VAPID Authorization header: returns `{ claims, k }` or throws with what is wrong.
 * `origin` is the push service's (the JWT's `aud`), `subject` the `sub` it must carry.
 */
export function verifyVapid(authorization, { origin, subject, now = Date.now() }) {
  const match = /^vapid\s+(.+)$/i.exec(authorization ?? '');
  if (!match) throw new Error(`Authorization is not "vapid t=…, k=…": ${authorization}`);
  const params = Object.fromEntries(match[1].split(',').map((part) => {
    const at = part.indexOf('=');
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()];
  }));
  const { t: jwt, k } = params;
  if (!jwt || !k) throw new Error(`Authorization lacks t= or k=: ${authorization}`);
  const point = fromBase64url(k);
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const [header64, claims64, signature64, ...rest] = jwt.split('.');
  if (!signature64 || rest.length > 0) throw new Error('t is not a JWT of three parts');
  const header = JSON.parse(fromBase64url(header64).toString('utf8'));
  if (header.alg !== 'ES256') throw new Error(`the JWT's alg is ${header.alg}, not ES256`);
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const signed = verify('sha256', Buffer.from(`${header64}.${claims64}`), { key, dsaEncoding: 'ieee-p1363' }, fromBase64url(signature64));
  if (!signed) throw new Error('the JWT signature does not verify against k');
  const claims = JSON.parse(fromBase64url(claims64).toString('utf8'));
  if (claims.aud !== origin) throw new Error(`aud is ${claims.aud}, not ${origin}`);
  const seconds = Math.floor(now / 1000);
  if (!Number.isInteger(claims.exp) || claims.exp <= seconds || claims.exp > seconds + VAPID_MAX_SECONDS) {
    throw new Error(`exp ${claims.exp} is not within 24 h of now (${seconds})`);
  }
  if (claims.sub !== subject) throw new Error(`sub is ${claims.sub}, not ${subject}`);
  return { claims, k };
}

/**
 * Decrypts an aes128gcm Web Push body (RFC 8291) for the subscription whose keys are `p256dh`
 * (base64url public point), `auth` (base64url secret) and `d` (base64url private scalar, as the
 * page's JWK export gives it). Returns the plaintext, or throws with what is wrong.
 */
export function decryptPush(body, { p256dh, auth, d }) {
  if (body.length < 16 + 4 + 1) throw new Error('the body is shorter than the aes128gcm header');
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20];
  const serverPublic = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (idLength !== 65 || serverPublic[0] !== 4) throw new Error(`the keyid is not the sender's P-256 point (${idLength} bytes)`);
  if (recordSize < 18 || record.length > recordSize) throw new Error(`not one record: ${record.length} bytes, rs ${recordSize}`);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(fromBase64url(d));
  const browserPublic = fromBase64url(p256dh);
  const sharedSecret = ecdh.computeSecret(serverPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), browserPublic, serverPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', sharedSecret, fromBase64url(auth), keyInfo, 32));
  const contentKey = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', contentKey, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (end < 0 || padded[end] !== 2) throw new Error('the plaintext does not end with the last record\'s delimiter');
  return padded.subarray(0, end).toString('utf8');
}

/** Starts the service on 127.0.0.1 with a free port; `subject` is the VAPID `sub` it requires. */
export async function startPushService({ subject }) {
  const subscriptions = new Map();
  const received = [];
  const waiters = [];
  const server = createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      const endpoint = `${origin}${req.url}`;
      const keys = subscriptions.get(endpoint);
      if (req.method !== 'POST' || keys === undefined) {
        res.writeHead(404).end();
        return;
      }
      const push = {
        endpoint,
        headers: {
          encoding: req.headers['content-encoding'],
          ttl: req.headers.ttl,
          urgency: req.headers.urgency,
          topic: req.headers.topic,
        },
        at: Date.now(),
      };
      let status = 201;
      try {
        if (size > MAX_BODY_BYTES) throw Object.assign(new Error(`a body of ${size} bytes`), { status: 413 });
        push.vapid = verifyVapid(req.headers.authorization, { origin, subject });
        if (push.headers.encoding !== 'aes128gcm') throw new Error(`Content-Encoding ${push.headers.encoding}`);
        push.text = decryptPush(Buffer.concat(chunks), keys);
        push.payload = JSON.parse(push.text);
      } catch (error) {
        push.problem = error.message;
        status = error.status ?? (push.vapid === undefined ? 403 : 400);
      }
      received.push(push);
      for (const waiter of waiters.splice(0)) waiter();
      res.writeHead(status, status === 201 ? { Location: `${endpoint}/messages/${received.length}` } : {}).end();
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  let taken = 0;
  return {
    origin,
    received,
    /** The subscription's keys as the browser made them (`d`: the private scalar, base64url). */
    register(endpoint, keys) {
      subscriptions.set(endpoint, keys);
    },
    /** The next push not yet taken (waits up to `timeout` ms). */
    async next(timeout = 15_000) {
      const deadline = Date.now() + timeout;
      while (received.length <= taken) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no push within ${timeout} ms (${received.length} received)`);
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received[taken++];
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
