// Web Push end to end (issue 38, CONTRACT §3, §9): a real relay with a VAPID key made by
// `koder-elicitation-relay vapid generate --out`, a page in Chromium that subscribes with
// `subscribePush` from `koder-mcp-elicitation/relay`, a local push service in this process playing
// the browser vendor's (tests/e2e/push-service.mjs: it checks the VAPID JWT and decrypts the
// aes128gcm body with the subscription's private key), and the page's real service worker, which
// imports dist/push-worker.js and gets each decrypted payload through CDP
// (ServiceWorker.deliverPushMessage), as the browser would hand it over.
//
// A one-tap question's push (issue 52, CONTRACT §13) shows its actions; Chromium offers a test no
// way to tap a notification, so the page asks the real worker (a message) to call its
// `handleNotificationClick` with the real Notification (from `registration.getNotifications()`) and
// the tapped action, inside that message event: the answer then goes from the worker to the relay
// (another origin: CORS) as it would after a tap.
//
// The page's `registration` is its real service worker registration with the pushManager wrapped:
// subscribe() makes the subscription as a browser does (an ECDH P-256 key pair and 16 random auth
// bytes, with WebCrypto) but with an endpoint at the local push service, since headless Chromium
// has no push service of its own. It refuses, as the browser does, unless the notification
// permission is granted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import puppeteer from 'puppeteer-core';
import { createRelayElicitation } from 'koder-mcp-elicitation/relay';
import { CHROMIUM_ARGS, freePort, repoRoot, startServer } from './harness.mjs';
import { SERVICE_TOKEN, mintToken, relayBinary, startRelay } from './relay-harness.mjs';
import { startPushService } from './push-service.mjs';

const SUBJECT = 'mailto:push-test@example.com';
const PERSON = { userId: 'ana', workspaceId: 'acme', conversationId: 'chat-1' };
const CITY = {
  message: 'Which city? We need it for the forecast.',
  requestedSchema: { type: 'object', properties: { city: { type: 'string', title: 'City' } }, required: ['city'] },
};
// A one-tap shape (CONTRACT §13): one boolean.
const DEPLOY = {
  message: 'Ready to ship the release?',
  requestedSchema: { type: 'object', properties: { deploy: { type: 'boolean', title: 'Deploy to production?' } }, required: ['deploy'] },
};
const TIMEOUT_MS = 120_000;

// The app's worker, as docs/notifications.md shows it (shown even while the page is in view:
// headless Chromium's focus, as a worker sees it, lags behind a tab switch).
const WORKER = `import { handlePush, handleNotificationClick } from '/dist/push-worker.js';
self.addEventListener('push', (event) => handlePush(event, { showWhenFocused: true }));
self.addEventListener('notificationclick', (event) => handleNotificationClick(event));
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
// Chromium lets a worker open a window only in a real notificationclick, which a test cannot make:
// each window the worker asks for is recorded (then asked of the browser, which refuses here).
const openWindow = Clients.prototype.openWindow;
const windowsAsked = [];
Clients.prototype.openWindow = function (url) {
  windowsAsked.push(url);
  return openWindow.call(this, url);
};
// The test's tap: { tap: { tag, action } } from the page; the reply (on the message's port) says
// what the click resolved, the windows it asked to open and the windows the worker sees after.
self.addEventListener('message', (event) => {
  const tap = event.data?.tap;
  if (!tap) return;
  const replied = (async () => {
    const [notification] = await self.registration.getNotifications({ tag: tap.tag });
    if (!notification) return { error: 'no notification tagged ' + tap.tag };
    let held = null;
    const click = { notification, action: tap.action, waitUntil: (promise) => { held = promise; } };
    const clicked = handleNotificationClick(click);
    const resolved = await held;
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    return { resolved, sameAsReturned: held === clicked, windowsAsked: windowsAsked.splice(0), windows: windows.map((client) => client.url) };
  })().catch((error) => ({ error: String(error) }));
  event.waitUntil(replied.then((reply) => event.ports[0].postMessage(reply)));
});
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>app</title></head><body><h1>App</h1>
<script type="module">
const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
window.ready = navigator.serviceWorker.register('/push-sw.js', { type: 'module', scope: '/' }).then(() => navigator.serviceWorker.ready);
window.shown = async () => (await (await window.ready).getNotifications()).map((n) => ({
  tag: n.tag, title: n.title, body: n.body, url: n.data?.url,
  ...(n.actions.length > 0 ? { actions: n.actions.map(({ action, title }) => ({ action, title })) } : {}),
}));
/** Taps the notification tagged \`tag\` (on \`action\`) in the real worker: what its click came to. */
window.tap = async (tag, action) => {
  const worker = (await window.ready).active;
  const channel = new MessageChannel();
  const reply = new Promise((resolve) => { channel.port1.onmessage = (event) => resolve(event.data); });
  worker.postMessage({ tap: { tag, action } }, [channel.port2]);
  return reply;
};
// What the browser's side did: each subscribe() (its options), each unsubscribe(), the keys made.
window.browserSide = { subscribed: [], unsubscribed: [], keys: {} };
/** The real registration, its pushManager subscribing at the local push service \`pushOrigin\`. */
window.localPushRegistration = async (pushOrigin) => {
  const registration = await window.ready;
  const real = registration.pushManager;
  let current = null;
  const pushManager = {
    getSubscription: async () => current,
    permissionState: (options) => real.permissionState(options),
    async subscribe(options) {
      if ((await real.permissionState({ userVisibleOnly: true })) !== 'granted') {
        throw new DOMException('Registration failed - permission denied', 'NotAllowedError');
      }
      const serverKey = new Uint8Array(options.applicationServerKey).slice().buffer;
      window.browserSide.subscribed.push({ userVisibleOnly: options.userVisibleOnly, applicationServerKey: base64url(serverKey) });
      const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
      const keys = {
        p256dh: base64url(await crypto.subtle.exportKey('raw', pair.publicKey)),
        auth: base64url(crypto.getRandomValues(new Uint8Array(16))),
      };
      const endpoint = pushOrigin + '/push/' + crypto.randomUUID();
      window.browserSide.keys[endpoint] = { ...keys, d: (await crypto.subtle.exportKey('jwk', pair.privateKey)).d };
      const subscription = {
        endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true, applicationServerKey: serverKey },
        toJSON: () => ({ endpoint, expirationTime: null, keys }),
        async unsubscribe() {
          window.browserSide.unsubscribed.push(endpoint);
          if (current === subscription) current = null;
          return true;
        },
      };
      current = subscription;
      return subscription;
    },
  };
  return { pushManager, scope: registration.scope, active: registration.active };
};
</script></body></html>`;

// The element with `notify`, each Notification it constructs recorded.
const NOTIFY_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>notify</title>
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
<script>
window.shownInPage = [];
const Real = window.Notification;
window.Notification = class extends Real {
  constructor(title, options = {}) {
    super(title, options);
    window.shownInPage.push({ title, body: options.body, lang: options.lang });
  }
};
Object.defineProperty(window.Notification, 'permission', { get: () => Real.permission });
</script>
</head><body><koder-mcp-elicitation notify></koder-mcp-elicitation></body></html>`;

let pages;
let pushService;
let relay;
let publicKey;
let keyDir;
let vapidPem;
let browser;

before(async () => {
  keyDir = mkdtempSync(join(tmpdir(), 'koder-vapid-'));
  const pem = join(keyDir, 'vapid.pem');
  vapidPem = pem;
  const generated = await promisify(execFile)(relayBinary(), ['vapid', 'generate', '--out', pem]);
  publicKey = generated.stdout.trim();
  pages = await startServer({
    routes: {
      '/push-app.html': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE),
      '/push-sw.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(WORKER),
      '/push-notify.html': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(NOTIFY_PAGE),
    },
  });
  pushService = await startPushService({ subject: SUBJECT });
  relay = await startRelay({
    allowOrigins: [pages.url],
    args: [
      '--vapid-private-key-file', pem,
      '--vapid-subject', SUBJECT,
      '--push-endpoint-allow', pushService.origin,
      '--push-open-url', `${pages.url}/push-app.html?elicitation={id}&conversation={conversationId}`,
    ],
  });
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    // A background tab must count as hidden (the element's `notify`), as it does for a person.
    ignoreDefaultArgs: ['--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows'],
  });
});

after(async () => {
  await browser?.close();
  await relay?.stop();
  await pushService?.close();
  await pages?.close();
  if (keyDir) rmSync(keyDir, { recursive: true, force: true });
});

/** The app's page in a context with (or without) the notification permission, its worker running. */
async function openApp({ granted = true } = {}) {
  const context = await browser.createBrowserContext();
  if (granted) await context.overridePermissions(pages.url, ['notifications']);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  const cdp = await page.createCDPSession();
  const activated = new Promise((resolve) => {
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      const active = versions.find((v) => v.runningStatus === 'running' && v.status === 'activated');
      if (active) resolve(active.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  await page.goto(`${pages.url}/push-app.html`);
  await page.evaluate(() => window.ready);
  const registrationId = await activated;
  const shown = () => page.evaluate(() => window.shown());
  /**
   * Hands a payload the push service decrypted to the worker, as the browser does. Headless
   * Chromium now and then drops a push delivered through CDP: one whose effect has not shown is
   * delivered again (the same tag: at most one shows; a second close closes nothing).
   */
  const deliver = async (text, check) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: pages.url, registrationId, data: text });
      for (let i = 0; i < 50; i++) {
        const now = await shown();
        if (check(now)) return now;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return shown();
  };
  return { context, page, errors, deliver, shown };
}

/**
 * The notification the element's own `notify` shows (its page hidden, permission granted) for
 * `request` from `serverName`, in `lang`: { title, body, lang }.
 */
async function notifiedInPage(lang, request, serverName) {
  const context = await browser.createBrowserContext();
  try {
    await context.overridePermissions(pages.url, ['notifications']);
    const page = await context.newPage();
    await page.goto(`${pages.url}/push-notify.html`);
    await page.evaluate(async (lang) => {
      await (await import('/dist/koder-mcp-elicitation.js')).ready;
      document.querySelector('koder-mcp-elicitation').setAttribute('lang', lang);
    }, lang);
    await (await context.newPage()).bringToFront();
    await page.waitForFunction(() => document.visibilityState === 'hidden', { timeout: 5_000 });
    await page.evaluate((request, serverName) => {
      document.querySelector('koder-mcp-elicitation').elicit(request, { serverName }).catch(() => {});
    }, request, serverName);
    await page.waitForFunction(() => window.shownInPage.length > 0, { timeout: 5_000 });
    return (await page.evaluate(() => window.shownInPage))[0];
  } finally {
    await context.close();
  }
}

/** subscribePush in the page, with the wrapped registration; resolves its answer or its error. */
function subscribeInPage(page, relayUrl, token) {
  return page.evaluate(async (relayUrl, token, pushOrigin) => {
    const { subscribePush } = await import('/dist/relay.js');
    const registration = await window.localPushRegistration(pushOrigin);
    window.pushRegistration = registration;
    try {
      const { id, subscription } = await subscribePush(relayUrl, { token: async () => token, registration });
      return { id, endpoint: subscription.endpoint };
    } catch (error) {
      return { error: { name: error.name, message: error.message, status: error.status } };
    }
  }, relayUrl, token, pushService.origin);
}

async function listSubscriptions(token) {
  const response = await fetch(`${relay.url}/v1/push/subscriptions`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(response.status, 200);
  return (await response.json()).subscriptions;
}

/** A push the relay sent: its delivery checks passed, and its headers are what §9 says. */
async function nextPush(endpoint) {
  const push = await pushService.next();
  assert.equal(push.problem, undefined, `the push service refused the relay's push: ${push.problem}`);
  assert.equal(push.endpoint, endpoint);
  assert.equal(push.vapid.k, publicKey, 'k is the relay\'s published key');
  assert.equal(push.vapid.claims.aud, pushService.origin);
  assert.equal(push.vapid.claims.sub, SUBJECT);
  assert.equal(push.headers.urgency, 'high');
  assert.match(push.headers.topic ?? '', /^[A-Za-z0-9_-]{1,32}$/);
  return push;
}

test('subscribePush from the page, the relay pushes a new question, the worker shows it; the answer closes it; unsubscribePush removes it', { timeout: TIMEOUT_MS }, async () => {
  const token = mintToken({ sub: PERSON.userId, workspace: PERSON.workspaceId });
  const key = await (await fetch(`${relay.url}/v1/push/key`)).json();
  assert.deepEqual(key, { publicKey });
  const { context, page, errors, deliver, shown } = await openApp();
  try {
    const subscribed = await subscribeInPage(page, relay.url, token);
    assert.equal(subscribed.error, undefined, JSON.stringify(subscribed.error));
    const { endpoint } = subscribed;
    assert.ok(endpoint.startsWith(`${pushService.origin}/push/`), endpoint);
    // The browser was asked as the Push API requires, with the relay's published key.
    assert.deepEqual(await page.evaluate(() => window.browserSide.subscribed), [{ userVisibleOnly: true, applicationServerKey: publicKey }]);
    pushService.register(endpoint, await page.evaluate((endpoint) => window.browserSide.keys[endpoint], endpoint));
    assert.deepEqual((await listSubscriptions(token)).map((s) => [s.id, s.endpoint]), [[subscribed.id, endpoint]]);

    // Again (another click, a reload): the browser's subscription is reused and the relay's id is the same.
    const again = await page.evaluate(async (relayUrl, token) => {
      const { subscribePush } = await import('/dist/relay.js');
      const { id, subscription } = await subscribePush(relayUrl, { token, registration: window.pushRegistration });
      return { id, endpoint: subscription.endpoint };
    }, relay.url, token);
    assert.deepEqual(again, subscribed);
    assert.equal(await page.evaluate(() => window.browserSide.subscribed.length), 1);
    assert.equal((await listSubscriptions(token)).length, 1);

    // A host asks the person: one push, decrypted by the push service with the subscription's key.
    const created = await createRelayElicitation({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: PERSON, serverName: 'Weather', request: CITY, timeoutMs: 60_000 });
    const asked = await nextPush(endpoint);
    const { expiresInMs, ...payload } = asked.payload;
    assert.deepEqual(payload, {
      type: 'elicitation',
      id: created.id,
      serverName: 'Weather',
      message: CITY.message,
      workspaceId: PERSON.workspaceId,
      conversationId: PERSON.conversationId,
      url: `${pages.url}/push-app.html?elicitation=${encodeURIComponent(created.id)}&conversation=${encodeURIComponent(PERSON.conversationId)}`,
      // The notification's words, as the element's own `notify` says them, in the language the
      // page subscribed with (its <html lang="en">: en-US).
      title: '\u2068Weather\u2069 needs your input',
      body: `\u2068${CITY.message}\u2069`,
      lang: 'en-US',
      dir: 'ltr',
    });
    assert.ok(expiresInMs > 0 && expiresInMs <= 60_000, `expiresInMs ${expiresInMs}`);
    const ttl = Number(asked.headers.ttl);
    assert.ok(Number.isInteger(ttl) && ttl >= 0 && ttl <= 60, `TTL ${asked.headers.ttl}: no more than the seconds left`);
    const exp = asked.vapid.claims.exp - Math.floor(asked.at / 1000);
    assert.ok(exp > 0 && exp <= 24 * 3600, `exp ${exp} s ahead`);

    // The worker shows what a person sees: the relay's words, tagged by the elicitation; they are
    // the very words the element's `notify` shows for the same request.
    const [notification, ...more] = await deliver(asked.text, (now) => now.length > 0);
    assert.deepEqual(more, []);
    assert.deepEqual(notification, { tag: created.id, title: payload.title, body: payload.body, url: payload.url });
    const inPage = await notifiedInPage('en-US', CITY, 'Weather');
    assert.deepEqual({ title: notification.title, body: notification.body }, { title: inPage.title, body: inPage.body });
    assert.equal(inPage.lang, payload.lang);

    // The person answers (in the page a click on it opens): the relay pushes a close, without the answer.
    const answered = await fetch(`${relay.url}/v1/elicitations/${created.id}/result`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ action: 'accept', content: { city: 'Lisbon' } }),
    });
    assert.equal(answered.status, 200);
    const settled = await nextPush(endpoint);
    assert.equal(settled.headers.topic, asked.headers.topic, 'the close replaces the question at the push service');
    assert.deepEqual(settled.payload, { type: 'settled', id: created.id, status: 'settled' });
    assert.doesNotMatch(settled.text, /Lisbon/);
    assert.deepEqual(await deliver(settled.text, (now) => now.length === 0), [], 'the settled push closed the notification');

    // A second question, withdrawn by the host: shown, then closed.
    const withdrawnOne = await createRelayElicitation({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: PERSON, serverName: 'Weather', request: CITY });
    const second = await nextPush(endpoint);
    assert.equal(second.payload.id, withdrawnOne.id);
    assert.equal((await deliver(second.text, (now) => now.length === 1))[0]?.tag, withdrawnOne.id);
    const withdrawn = await fetch(`${relay.url}/v1/elicitations/${withdrawnOne.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
    assert.ok(withdrawn.ok, `withdraw answered ${withdrawn.status}`);
    const closed = await nextPush(endpoint);
    assert.deepEqual(closed.payload, { type: 'settled', id: withdrawnOne.id, status: 'withdrawn' });
    assert.deepEqual(await deliver(closed.text, (now) => now.length === 0), []);

    // unsubscribePush: gone at the relay and in the browser; the next question pushes nothing.
    const removed = await page.evaluate(async (relayUrl, token) => {
      const { unsubscribePush } = await import('/dist/relay.js');
      return unsubscribePush(relayUrl, { token, registration: window.pushRegistration });
    }, relay.url, token);
    assert.equal(removed, true);
    assert.deepEqual(await listSubscriptions(token), []);
    assert.deepEqual(await page.evaluate(() => window.browserSide.unsubscribed), [endpoint]);
    const unheard = await createRelayElicitation({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: PERSON, request: CITY });
    await assert.rejects(pushService.next(2_000), /no push within/);
    await fetch(`${relay.url}/v1/elicitations/${unheard.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
    // Nothing left to remove: false, and nothing asked of the relay.
    assert.equal(await page.evaluate(async (relayUrl, token) => {
      const { unsubscribePush } = await import('/dist/relay.js');
      return unsubscribePush(relayUrl, { token, registration: window.pushRegistration });
    }, relay.url, token), false);
    assert.deepEqual(errors, []);
    assert.deepEqual(pushService.received.filter((push) => push.problem !== undefined), []);
  } finally {
    await context.close();
  }
});

test('a subscription made from a pt-BR page: the relay words its push in pt-BR, as the element\'s own notify words it', { timeout: TIMEOUT_MS }, async () => {
  const token = mintToken({ sub: PERSON.userId, workspace: PERSON.workspaceId });
  const { context, page, errors, deliver } = await openApp();
  try {
    // No `language` given: subscribePush sends the page's own.
    await page.evaluate(() => { document.documentElement.lang = 'pt-BR'; });
    const subscribed = await subscribeInPage(page, relay.url, token);
    assert.equal(subscribed.error, undefined, JSON.stringify(subscribed.error));
    const { endpoint } = subscribed;
    pushService.register(endpoint, await page.evaluate((endpoint) => window.browserSide.keys[endpoint], endpoint));

    const created = await createRelayElicitation({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: PERSON, serverName: 'Weather', request: CITY, timeoutMs: 60_000 });
    const asked = await nextPush(endpoint);
    assert.equal(asked.payload.id, created.id);
    assert.deepEqual(
      { title: asked.payload.title, body: asked.payload.body, lang: asked.payload.lang, dir: asked.payload.dir },
      { title: '\u2068Weather\u2069 precisa da sua resposta', body: `\u2068${CITY.message}\u2069`, lang: 'pt-BR', dir: 'ltr' },
    );
    const [notification, ...more] = await deliver(asked.text, (now) => now.length > 0);
    assert.deepEqual(more, []);
    const inPage = await notifiedInPage('pt-BR', CITY, 'Weather');
    assert.deepEqual({ title: notification.title, body: notification.body }, { title: inPage.title, body: inPage.body });
    assert.equal(inPage.lang, asked.payload.lang);

    const withdrawn = await fetch(`${relay.url}/v1/elicitations/${created.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
    assert.ok(withdrawn.ok, `withdraw answered ${withdrawn.status}`);
    assert.deepEqual((await nextPush(endpoint)).payload, { type: 'settled', id: created.id, status: 'withdrawn' });
    assert.equal(await page.evaluate(async (relayUrl, token) => {
      const { unsubscribePush } = await import('/dist/relay.js');
      return unsubscribePush(relayUrl, { token, registration: window.pushRegistration });
    }, relay.url, token), true);
    assert.deepEqual(await listSubscriptions(token), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('subscribePush refuses clearly: a relay without a VAPID key (404), and a browser without the permission', { timeout: TIMEOUT_MS }, async () => {
  const token = mintToken({ sub: PERSON.userId, workspace: PERSON.workspaceId });
  const plain = await startRelay({ allowOrigins: [pages.url] });
  try {
    assert.equal((await fetch(`${plain.url}/v1/push/key`)).status, 404);
    const { context, page, errors } = await openApp();
    try {
      const refused = await subscribeInPage(page, plain.url, token);
      assert.equal(refused.error?.name, 'RelayError');
      assert.equal(refused.error.status, 404);
      assert.match(refused.error.message, /no Web Push.*VAPID key/);
      // The browser was never asked to subscribe.
      assert.deepEqual(await page.evaluate(() => window.browserSide.subscribed), []);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  } finally {
    await plain.stop();
  }

  const { context, page } = await openApp({ granted: false });
  try {
    const denied = await subscribeInPage(page, relay.url, token);
    assert.equal(denied.error?.name, 'NotAllowedError');
    assert.deepEqual(await listSubscriptions(token), [], 'nothing stored for a browser that would not subscribe');
  } finally {
    await context.close();
  }
});

test('a relay with another key: the browser\'s old subscription is replaced; unsubscribePush unsubscribes in the browser even when the relay is unreachable', { timeout: TIMEOUT_MS }, async () => {
  const token = mintToken({ sub: PERSON.userId, workspace: PERSON.workspaceId });
  const otherPem = join(keyDir, 'other.pem');
  const otherKey = (await promisify(execFile)(relayBinary(), ['vapid', 'generate', '--out', otherPem])).stdout.trim();
  assert.notEqual(otherKey, publicKey);
  const other = await startRelay({
    allowOrigins: [pages.url],
    args: ['--vapid-private-key-file', otherPem, '--vapid-subject', SUBJECT, '--push-endpoint-allow', pushService.origin],
  });
  const { context, page, errors } = await openApp();
  try {
    const first = await subscribeInPage(page, relay.url, token);
    assert.equal(first.error, undefined, JSON.stringify(first.error));
    const second = await page.evaluate(async (relayUrl, token) => {
      const { subscribePush } = await import('/dist/relay.js');
      const { id, subscription } = await subscribePush(relayUrl, { token, registration: window.pushRegistration });
      return { id, endpoint: subscription.endpoint };
    }, other.url, token);
    assert.notEqual(second.endpoint, first.endpoint);
    const side = await page.evaluate(() => window.browserSide);
    assert.deepEqual(side.subscribed.map((call) => call.applicationServerKey), [publicKey, otherKey]);
    assert.deepEqual(side.unsubscribed, [first.endpoint], 'the subscription made for the first key was dropped first');
    const response = await fetch(`${other.url}/v1/push/subscriptions`, { headers: { Authorization: `Bearer ${token}` } });
    assert.deepEqual((await response.json()).subscriptions.map((s) => s.endpoint), [second.endpoint]);

    // The relay is gone: the browser's subscription still goes, and the error says why.
    await other.stop();
    const outcome = await page.evaluate(async (relayUrl, token) => {
      const { unsubscribePush } = await import('/dist/relay.js');
      try {
        return { resolved: await unsubscribePush(relayUrl, { token, registration: window.pushRegistration }) };
      } catch (error) {
        return { rejected: error.message };
      }
    }, other.url, token);
    assert.match(outcome.rejected ?? '', /unreachable/);
    assert.deepEqual(await page.evaluate(() => window.browserSide.unsubscribed), [first.endpoint, second.endpoint]);
    // The first relay still holds the first subscription: its endpoint is dead, so the relay drops it
    // at its next push (the push service answers 404); removed here so later pushes are not tried.
    const stale = await listSubscriptions(token);
    assert.deepEqual(stale.map((s) => s.endpoint), [first.endpoint]);
    const deleted = await fetch(`${relay.url}/v1/push/subscriptions/${stale[0].id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
    assert.equal(deleted.status, 204);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await other.stop();
  }
});

/**
 * A relay with Web Push and the answer page on, its links on its own address (another origin
 * than the app's pages, which `--allow-origin` lets answer), and no `--push-open-url`.
 */
async function startAnswerPageRelay() {
  const port = await freePort();
  return startRelay({
    listen: `127.0.0.1:${port}`,
    allowOrigins: [pages.url],
    args: [
      '--vapid-private-key-file', vapidPem,
      '--vapid-subject', SUBJECT,
      '--push-endpoint-allow', pushService.origin,
      '--answer-page', '--public-url', `http://127.0.0.1:${port}`,
      '--answer-page-assets', join(repoRoot, 'dist'),
    ],
  });
}

/**
 * The app open and subscribed at `relayUrl`, and "Deploy to production?" asked there: its push,
 * delivered to the worker, shows. `{ context, page, errors, shown, created, asked, endpoint, notification }`.
 */
async function askDeploy(relayUrl) {
  const token = mintToken({ sub: PERSON.userId, workspace: PERSON.workspaceId });
  const app = await openApp();
  const subscribed = await subscribeInPage(app.page, relayUrl, token);
  assert.equal(subscribed.error, undefined, JSON.stringify(subscribed.error));
  const { endpoint } = subscribed;
  pushService.register(endpoint, await app.page.evaluate((endpoint) => window.browserSide.keys[endpoint], endpoint));
  const created = await createRelayElicitation({ url: relayUrl, serviceToken: SERVICE_TOKEN, scope: PERSON, serverName: 'Deployer', request: DEPLOY, timeoutMs: 60_000 });
  const asked = await nextPush(endpoint);
  assert.equal(asked.payload.id, created.id);
  const [notification, ...more] = await app.deliver(asked.text, (now) => now.length > 0);
  assert.deepEqual(more, []);
  return { ...app, created, asked, endpoint, notification };
}

/** The pages open in `context`: their URLs. */
async function openPages(context) {
  return (await context.pages()).map((page) => page.url());
}

test('a yes/no question\'s push shows "Yes" and "No"; tapping "No" answers through the question\'s link, with no window opened', { timeout: TIMEOUT_MS }, async () => {
  const answering = await startAnswerPageRelay();
  const { context, page, errors, deliver, shown, created, asked, endpoint, notification } = await askDeploy(answering.url);
  try {
    const { payload } = asked;
    const actions = [{ action: 'choice-0', title: 'Yes' }, { action: 'choice-1', title: 'No' }];
    assert.deepEqual(payload.actions, actions);
    const { token } = payload.answer;
    assert.deepEqual(payload.answer, {
      endpoint: `${answering.url}/v1/links/answer`,
      token,
      link: `${answering.url}/answer/#t=${token}`,
      results: {
        'choice-0': { action: 'accept', content: { deploy: true } },
        'choice-1': { action: 'accept', content: { deploy: false } },
      },
    });
    assert.equal(payload.url, payload.answer.link, 'a click without an action opens the same link');
    // What the person sees: the relay's words and the two buttons.
    assert.deepEqual(notification, { tag: created.id, title: '\u2068Deployer\u2069 needs your input', body: `\u2068${DEPLOY.message}\u2069`, url: payload.url, actions });
    const appPage = `${pages.url}/push-app.html`;
    assert.deepEqual(await openPages(context), [appPage]);

    // The tap on "No": answered by the worker (a POST from the app's origin to the relay's), no window.
    const tapped = await page.evaluate((tag) => window.tap(tag, 'choice-1'), created.id);
    assert.deepEqual(tapped, { resolved: true, sameAsReturned: true, windowsAsked: [], windows: [appPage] });
    assert.deepEqual(await shown(), [], 'the tap closed the notification');
    assert.deepEqual(await openPages(context), [appPage], 'no window opened');

    // What the host gets: the answer, made through the link, which its `answeredBy` and the
    // audit trail both name.
    const result = await fetch(`${answering.url}/v1/elicitations/${created.id}/result?wait=10`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
    const audit = await (await fetch(`${answering.url}/v1/audit`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } })).text();
    const answered = audit.trim().split('\n').map((line) => JSON.parse(line)).find((entry) => entry.action === 'answered:accept');
    assert.match(answered?.actor ?? '', /^link:[0-9a-f]{32}$/, audit);
    assert.deepEqual(await result.json(), {
      status: 'settled',
      result: { action: 'accept', content: { deploy: false } },
      answeredBy: { link: answered.actor.slice('link:'.length) },
    });
    assert.deepEqual((await nextPush(endpoint)).payload, { type: 'settled', id: created.id, status: 'settled' });

    // The same question on a second device, tapped "Yes" after: the relay answers 409, so the
    // worker opens the question's link (which says how it ended); the answer stays "No".
    await deliver(asked.text, (now) => now.length > 0);
    const late = await page.evaluate((tag) => window.tap(tag, 'choice-0'), created.id);
    assert.deepEqual(late, { resolved: false, sameAsReturned: true, windowsAsked: [payload.answer.link], windows: [appPage] });
    const kept = await fetch(`${answering.url}/v1/elicitations/${created.id}/result`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
    assert.deepEqual((await kept.json()).result, { action: 'accept', content: { deploy: false } });
    assert.doesNotMatch(answering.logs(), new RegExp(token), 'the token reaches no log line');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await answering.stop();
  }
});

test('with the relay down, tapping an action opens the question\'s link instead', { timeout: TIMEOUT_MS }, async () => {
  const answering = await startAnswerPageRelay();
  const { context, page, errors, shown, created, asked } = await askDeploy(answering.url);
  try {
    await answering.stop();
    const tapped = await page.evaluate((tag) => window.tap(tag, 'choice-0'), created.id);
    assert.deepEqual(tapped, { resolved: false, sameAsReturned: true, windowsAsked: [asked.payload.answer.link], windows: [`${pages.url}/push-app.html`] });
    assert.deepEqual(await shown(), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await answering.stop();
  }
});
