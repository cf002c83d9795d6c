// `notify` and the push-worker module (issue 38, CONTRACT §2, §3, §9) in Chromium with the
// notification permission granted. The page side: an element with `notify` whose page is hidden (a
// background tab: another one brought to the front) shows exactly one system notification, with
// the server's name and the message, closes it when the request settles, and a click focuses its
// first field; none shows without `notify`, without permission, or while the page is visible.
// `window.Notification` is wrapped by an init script that records each construction and close()
// and still calls the real one. The worker side: a real module service worker importing
// dist/push-worker.js gets pushes through CDP (ServiceWorker.deliverPushMessage); its notifications
// are read back with registration.getNotifications().
//
// Puppeteer rather than Playwright: in headless Chromium only tabs of one window hide each other,
// and Playwright gives every page a window of its own, so its pages never become hidden.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import puppeteer from 'puppeteer-core';
import { CHROMIUM_ARGS, startServer } from './harness.mjs';

const CITY = {
  message: 'Which city?\nWe need it for the forecast.',
  requestedSchema: { type: 'object', properties: { city: { type: 'string', title: 'City' } }, required: ['city'] },
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>notify</title>
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
</head><body><main><h1>Chat</h1>
<koder-mcp-elicitation id="notifying" server-name="Weather" notify></koder-mcp-elicitation>
<koder-mcp-elicitation id="quiet" server-name="Weather"></koder-mcp-elicitation>
</main></body></html>`;

// Records every Notification the page constructs, and its close(), around the real one.
const RECORD_NOTIFICATIONS = () => {
  const Real = window.Notification;
  window.shown = [];
  window.notifications = [];
  class Recorded extends Real {
    constructor(title, options = {}) {
      super(title, options);
      this.record = { title, body: options.body, tag: options.tag, lang: options.lang, dir: options.dir, closed: false };
      window.shown.push(this.record);
      window.notifications.push(this);
    }
    close() {
      this.record.closed = true;
      super.close();
    }
  }
  Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
  window.Notification = Recorded;
};

// The app's worker: what the README shows (handlePush's answer recorded), plus hooks for the test.
const WORKER = `import { handlePush, handleNotificationClick } from '/dist/push-worker.js';
// What each push's handlePush answered (true: one of the relay's payloads), or how it threw.
self.handled = [];
self.addEventListener('push', (event) => {
  try {
    handlePush(event, { showWhenFocused: self.showAlways }).then((ours) => self.handled.push(ours));
  } catch (error) {
    self.handled.push(String(error));
  }
});
self.addEventListener('notificationclick', (event) => handleNotificationClick(event));

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
// A click as the notificationclick event delivers it, with the window calls recorded: only a real
// click on the system notification may focus or open a window.
self.addEventListener('message', (event) => {
  event.waitUntil((async () => {
    if (event.data.handled) {
      event.source.postMessage(self.handled);
      return;
    }
    if (event.data.showAlways) {
      self.showAlways = true;
      event.source.postMessage(true);
      return;
    }
    if (event.data.inView) {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      event.source.postMessage(windows.some((client) => client.visibilityState === 'visible' && client.focused));
      return;
    }
    const [notification] = await self.registration.getNotifications({ tag: event.data.tag });
    // clients is the worker global's own property: kept to put back as it was.
    const original = Object.getOwnPropertyDescriptor(self, 'clients');
    const real = self.clients;
    const calls = [];
    Object.defineProperty(self, 'clients', {
      configurable: true,
      value: {
        matchAll: async (options) => (await real.matchAll(options)).map((client) => ({
          url: client.url,
          visibilityState: client.visibilityState,
          focused: client.focused,
          focus: async () => calls.push(['focus', client.url]),
        })),
        openWindow: async (url) => calls.push(['openWindow', url]),
      },
    });
    let held = null;
    const handled = handleNotificationClick({ notification, waitUntil: (promise) => { held = promise; } });
    await held;
    if (original) Object.defineProperty(self, 'clients', original);
    else delete self.clients;
    event.source.postMessage({ handled: handled !== false, waited: held !== null, calls });
  })());
});
`;

const WORKER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>app</title></head><body><h1>App</h1>
<script type="module">
window.registration = navigator.serviceWorker.register('/sw.js', { type: 'module', scope: '/' }).then(() => navigator.serviceWorker.ready);
window.shownByWorker = async () => (await (await window.registration).getNotifications()).map((n) => ({
  tag: n.tag, title: n.title, body: n.body, data: n.data,
  ...(n.actions.length > 0 ? { actions: n.actions.map(({ action, title }) => ({ action, title })) } : {}),
}));
const askWorker = async (message) => {
  const registration = await window.registration;
  return new Promise((resolve) => {
    navigator.serviceWorker.addEventListener('message', (event) => resolve(event.data), { once: true });
    registration.active.postMessage(message);
  });
};
window.clickInWorker = (tag) => askWorker({ tag });
window.inViewForWorker = () => askWorker({ inView: true });
window.showAlways = () => askWorker({ showAlways: true });
window.handledInWorker = () => askWorker({ handled: true });
</script></body></html>`;

let server;
let browser;

before(async () => {
  server = await startServer({
    routes: {
      '/notify.html': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE),
      '/app.html': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(WORKER_PAGE),
      '/sw.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(WORKER),
    },
  });
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    // A background tab must count as hidden, as it does for a person.
    ignoreDefaultArgs: ['--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows'],
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A context with (or without) the notification permission, and the element's page in it. */
async function openElementPage({ granted }) {
  const context = await browser.createBrowserContext();
  if (granted) await context.overridePermissions(server.url, ['notifications']);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await page.evaluateOnNewDocument(RECORD_NOTIFICATIONS);
  await page.goto(`${server.url}/notify.html`);
  await page.evaluate(async () => {
    await (await import('/dist/koder-mcp-elicitation.js')).ready;
  });
  return { context, page, errors };
}

/** Brings another tab of the context to the front, so `page` is hidden (checked, not assumed). */
async function hide(context, page) {
  const other = await context.newPage();
  await other.bringToFront();
  await page.waitForFunction(() => document.visibilityState === 'hidden', { timeout: 5_000 });
  return other;
}

/** Starts an elicitation on `#id` and waits until it is pending. */
async function ask(page, id) {
  await page.evaluate((id, request) => {
    const element = document.getElementById(id);
    window.outcome = element.elicit(request).then(
      (result) => result,
      (error) => ({ rejected: error.name }),
    );
  }, id, CITY);
  await page.waitForFunction((id) => document.getElementById(id).pending === 1, {}, id);
}

test('notify, page hidden, permission granted: exactly one notification, closed when the request settles', { timeout: 60_000 }, async () => {
  const { context, page, errors } = await openElementPage({ granted: true });
  try {
    assert.equal(await page.evaluate(() => Notification.permission), 'granted');
    assert.equal(await page.evaluate(() => document.getElementById('notifying').notify), true);
    assert.equal(await page.evaluate(() => document.getElementById('quiet').notify), false);
    await hide(context, page);
    await ask(page, 'notifying');
    await page.waitForFunction(() => window.shown.length > 0);
    // Another moment: still one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [shown, ...more] = await page.evaluate(() => window.shown);
    assert.deepEqual(more, []);
    // The server's name and the message on one line, each isolated (FSI … PDI).
    assert.equal(shown.title, '\u2068Weather\u2069 needs your input');
    assert.equal(shown.body, '\u2068Which city? We need it for the forecast.\u2069');
    assert.equal(shown.lang, 'en-US');
    assert.equal(shown.dir, 'ltr');
    assert.match(shown.tag, /\S/);
    assert.equal(shown.closed, false);

    // The server withdraws it: the notification closes.
    await page.evaluate(() => document.getElementById('notifying').cancel());
    assert.deepEqual(await page.evaluate(() => window.outcome), { rejected: 'AbortError' });
    assert.equal(await page.evaluate(() => window.shown[0].closed), true);

    // The person answers a second one in the page: it closes too.
    await ask(page, 'notifying');
    await page.waitForFunction(() => window.shown.length === 2);
    await page.evaluate(() => {
      const root = document.getElementById('notifying').shadowRoot;
      const input = root.querySelector('input');
      input.value = 'Lisbon';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      root.querySelector('form').requestSubmit();
    });
    assert.deepEqual(await page.evaluate(() => window.outcome), { action: 'accept', content: { city: 'Lisbon' } });
    assert.equal(await page.evaluate(() => window.shown[1].closed), true);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a click on the notification closes it and focuses the first field', { timeout: 60_000 }, async () => {
  const { context, page, errors } = await openElementPage({ granted: true });
  try {
    await hide(context, page);
    await ask(page, 'notifying');
    await page.waitForFunction(() => window.shown.length === 1);
    await page.evaluate(() => window.notifications[0].dispatchEvent(new Event('click', { cancelable: true })));
    await page.bringToFront();
    await page.waitForFunction(() => {
      const active = document.getElementById('notifying').shadowRoot.activeElement;
      return active?.tagName === 'INPUT';
    });
    assert.equal(await page.evaluate(() => window.shown[0].closed), true);
    // Still pending: the click only brings the person to the question.
    assert.equal(await page.evaluate(() => document.getElementById('notifying').pending), 1);
    await page.evaluate(() => document.getElementById('notifying').cancel());
    assert.equal(await page.evaluate(() => window.shown.length), 1);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('none without notify, with the page visible, or without permission', { timeout: 60_000 }, async () => {
  const granted = await openElementPage({ granted: true });
  try {
    // Visible page, notify on.
    assert.equal(await granted.page.evaluate(() => document.visibilityState), 'visible');
    await ask(granted.page, 'notifying');
    await granted.page.evaluate(() => document.getElementById('notifying').cancel());
    // Hidden page, notify off.
    await hide(granted.context, granted.page);
    await ask(granted.page, 'quiet');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await granted.page.evaluate(() => document.getElementById('quiet').cancel());
    // The property turns it on: then it shows (the two above were not missed for another reason).
    await granted.page.evaluate(() => { document.getElementById('quiet').notify = true; });
    assert.equal(await granted.page.evaluate(() => document.getElementById('quiet').hasAttribute('notify')), true);
    await ask(granted.page, 'quiet');
    await granted.page.waitForFunction(() => window.shown.length === 1);
    await granted.page.evaluate(() => document.getElementById('quiet').cancel());
    assert.deepEqual(granted.errors, []);
  } finally {
    await granted.context.close();
  }

  const denied = await openElementPage({ granted: false });
  try {
    assert.notEqual(await denied.page.evaluate(() => Notification.permission), 'granted');
    await hide(denied.context, denied.page);
    await ask(denied.page, 'notifying');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await denied.page.evaluate(() => window.shown.length), 0);
    await denied.page.evaluate(() => document.getElementById('notifying').cancel());
    assert.deepEqual(denied.errors, []);
  } finally {
    await denied.context.close();
  }
});

test('requestNotificationPermission() answers the browser\'s permission', { timeout: 60_000 }, async () => {
  const { context, page } = await openElementPage({ granted: true });
  try {
    const answer = await page.evaluate(async () => (await import('/dist/koder-mcp-elicitation.js')).requestNotificationPermission());
    assert.equal(answer, 'granted');
  } finally {
    await context.close();
  }
});

/** The app's page in a context with the permission, its worker registered and running, and CDP's push. */
async function openWorkerApp() {
  const context = await browser.createBrowserContext();
  await context.overridePermissions(server.url, ['notifications']);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  const cdp = await page.createCDPSession();
  const registered = new Promise((resolve) => {
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      const active = versions.find((v) => v.runningStatus === 'running' && v.status === 'activated');
      if (active) resolve(active.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  await page.goto(`${server.url}/app.html`);
  await page.evaluate(() => window.registration);
  const registrationId = await registered;
  const push = (payload) => cdp.send('ServiceWorker.deliverPushMessage', {
    origin: server.url,
    registrationId,
    data: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  const shown = () => page.evaluate(() => window.shownByWorker());
  const until = async (check) => {
    for (let i = 0; i < 50; i++) {
      const now = await shown();
      if (check(now)) return now;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return shown();
  };
  // Headless Chromium now and then drops a push delivered through CDP; one whose effect has not
  // shown is pushed again (the same tag: at most one shows; a second close closes nothing).
  const pushShown = async (payload, check) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      await push(payload);
      const now = await until(check);
      if (check(now)) return now;
    }
    return shown();
  };
  return { context, page, errors, push, pushShown, shown, until };
}

const ELICITATION = {
  type: 'elicitation',
  id: 'el-1',
  serverName: 'Weather\u202e',
  message: 'Which city?\n'.padEnd(400, 'x'),
  workspaceId: 'w',
  conversationId: 'c',
  expiresInMs: 60_000,
};

test('push-worker in a real service worker: shows, replaces, closes on settled, ignores malformed, clicks to the url', { timeout: 90_000 }, async () => {
  const { context, page, errors, push, pushShown, until } = await openWorkerApp();
  try {
    const elicitation = { ...ELICITATION, url: `${server.url}/app.html` };
    // Shown even in view when asked (headless Chromium's focus, as a worker sees it, lags behind a
    // tab switch, so this does not rely on hiding the page).
    await page.evaluate(() => window.showAlways());
    const [notification, ...more] = await pushShown(elicitation, (now) => now.length > 0);
    assert.deepEqual(more, []);
    assert.equal(notification.tag, 'el-1');
    assert.equal(notification.title, 'Weather');
    assert.ok(notification.body.startsWith('Which city? xxx'), notification.body);
    assert.ok([...notification.body].length <= 180, notification.body);
    assert.ok(notification.body.endsWith('…'));
    assert.equal(notification.data.url, elicitation.url);

    // The same id again replaces it.
    const replaced = await pushShown({ ...elicitation, message: 'Which city, again?' }, (now) => now.length === 1 && now[0].body === 'Which city, again?');
    assert.equal(replaced.length, 1);
    assert.equal(replaced[0].body, 'Which city, again?');

    // A click focuses the app's window at the url.
    const clicked = await page.evaluate(() => window.clickInWorker('el-1'));
    assert.deepEqual(clicked, { handled: true, waited: true, calls: [['focus', elicitation.url]] });
    assert.deepEqual(await until((now) => now.length === 0), [], 'the click closed it');

    // A url with no window open opens one; another origin's url opens the app's scope instead.
    assert.equal((await pushShown({ ...elicitation, id: 'el-2', url: '/answer?id=el-2' }, (now) => now.length === 1)).length, 1);
    assert.deepEqual((await page.evaluate(() => window.clickInWorker('el-2'))).calls, [['openWindow', `${server.url}/answer?id=el-2`]]);
    assert.equal((await pushShown({ ...elicitation, id: 'el-3', url: 'https://elsewhere.example/phish' }, (now) => now.length === 1)).length, 1);
    assert.deepEqual((await page.evaluate(() => window.clickInWorker('el-3'))).calls, [['openWindow', `${server.url}/`]]);

    // settled closes the one tagged with its id, and only that one.
    await pushShown({ ...elicitation, id: 'el-4' }, (now) => now.length === 1);
    assert.equal((await pushShown({ ...elicitation, id: 'el-5' }, (now) => now.length === 2)).length, 2);
    const left = await pushShown({ type: 'settled', id: 'el-4', status: 'accepted' }, (now) => now.length === 1);
    assert.deepEqual(left.map((n) => n.tag), ['el-5']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('push-worker: a one-tap push shows its two actions and keeps what a tap answers with; a forged answer shows none', { timeout: 90_000 }, async () => {
  const { context, page, errors, pushShown } = await openWorkerApp();
  try {
    await page.evaluate(() => window.showAlways());
    const token = 'T'.repeat(43);
    const answer = {
      endpoint: 'https://relay.example.com/v1/links/answer',
      token,
      link: `https://relay.example.com/answer/#t=${token}`,
      results: { 'choice-0': { action: 'accept', content: { deploy: true } }, 'choice-1': { action: 'accept', content: { deploy: false } } },
    };
    const actions = [{ action: 'choice-0', title: 'Yes' }, { action: 'choice-1', title: 'No' }];
    const tagged = (id) => (now) => now.some((n) => n.tag === id);
    const oneTap = { ...ELICITATION, id: 'tap-0', actions, answer };
    const shown = (await pushShown(oneTap, tagged('tap-0'))).find((n) => n.tag === 'tap-0');
    assert.deepEqual(shown.actions, actions);
    assert.deepEqual(shown.data.answer, answer);
    // A payload that could make the worker post, or open, anything but the relay's own link route
    // and page shows the question without buttons.
    const forged = [
      { ...answer, link: `https://elsewhere.example/answer/#t=${token}` },
      { ...answer, endpoint: 'https://relay.example.com/v1/elicitations/x/result' },
      { ...answer, endpoint: 'javascript:alert(1)' },
      { ...answer, token: 'short' },
      { ...answer, results: { 'choice-0': answer.results['choice-0'] } },
      null,
    ];
    for (const [index, bad] of forged.entries()) {
      const id = `forged-${index}`;
      const now = (await pushShown({ ...oneTap, id, answer: bad }, tagged(id))).find((n) => n.tag === id);
      assert.equal(now.actions, undefined, `${id}: ${JSON.stringify(bad)}`);
      assert.equal(now.data.answer, undefined, id);
    }
    const odd = (await pushShown({ ...oneTap, id: 'odd', actions: [{ action: 'open-everything', title: 'Go' }] }, tagged('odd'))).find((n) => n.tag === 'odd');
    assert.equal(odd.actions, undefined);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// The relay's words for CITY from "Weather", as crates/relay/src/channels/push/payload.rs renders them (its
// test a_questions_notification_is_worded_as_the_elements_own_in_each_language pins the same text).
const RELAY_WORDS = {
  'en-US': { title: '\u2068Weather\u2069 needs your input', lang: 'en-US', dir: 'ltr' },
  'pt-BR': { title: '\u2068Weather\u2069 precisa da sua resposta', lang: 'pt-BR', dir: 'ltr' },
};

test('a push and the in-page notify word the same request alike, in en-US and pt-BR', { timeout: 90_000 }, async () => {
  const worker = await openWorkerApp();
  try {
    await worker.page.evaluate(() => window.showAlways());
    for (const [lang, words] of Object.entries(RELAY_WORDS)) {
      const { context, page, errors } = await openElementPage({ granted: true });
      let inPage;
      try {
        await page.evaluate((lang) => document.getElementById('notifying').setAttribute('lang', lang), lang);
        await hide(context, page);
        await ask(page, 'notifying');
        await page.waitForFunction(() => window.shown.length > 0);
        inPage = (await page.evaluate(() => window.shown))[0];
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
      const id = `words-${lang}`;
      const pushed = { ...ELICITATION, id, serverName: 'Weather', message: CITY.message, body: '\u2068Which city? We need it for the forecast.\u2069', ...words };
      const shown = (await worker.pushShown(pushed, (now) => now.some((n) => n.tag === id))).find((n) => n.tag === id);
      assert.equal(inPage.lang, lang);
      assert.equal(shown.title, inPage.title, lang);
      assert.equal(shown.body, inPage.body, lang);
      assert.equal(shown.title, words.title, lang);
    }
    assert.deepEqual(worker.errors, []);
  } finally {
    await worker.context.close();
  }
});

// Last, in its own context: Chromium answers a push that shows nothing with a notification of its
// own ("updated in the background"), which disturbs the notifications that follow it, even in
// another context of the same origin.
test('push-worker: nothing while a window of the app is visible and focused, nothing for a malformed payload', { timeout: 60_000 }, async () => {
  const { context, page, errors, push, shown } = await openWorkerApp();
  try {
    await page.waitForFunction(() => window.inViewForWorker(), { timeout: 5_000 });
    await push({ ...ELICITATION, url: `${server.url}/app.html` });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(await shown(), []);
    await page.evaluate(() => window.showAlways());
    for (const bad of ['not json', '[1]', 'null', '{"type":"elicitation"}', '{"type":"elicitation","id":7}', '{"type":"other","id":"x"}']) await push(bad);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(await shown(), []);
    // Nothing threw: the first was the relay's, the rest not.
    assert.deepEqual(await page.evaluate(() => window.handledInWorker()), [true, false, false, false, false, false, false]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
