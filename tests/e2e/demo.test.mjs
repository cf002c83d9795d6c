// The demo end to end: demo/server.mjs (a real McpServer, official SDK, Streamable HTTP) on a free
// port, its page (the SDK Client in the browser) and <koder-mcp-elicitation> answering every
// elicitation/create. For each tool the dialog shows, a user fills it (or declines, cancels, or lets
// it time out), and the tool's own result proves what the server received: the server validates
// accepted content with the SDK's elicitInput before the tool prints its `Received: {...}` line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { launchBrowser, openPage, repoRoot } from './harness.mjs';

let demo; // { url, child, output() }
let browser;

/** Starts `node demo/server.mjs` with PORT=0 (any free port) and waits for its "Demo ready" line. */
function startDemo() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'demo', 'server.mjs')], {
      cwd: repoRoot,
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`demo server did not start:\n${output}`)), 30_000);
    const onData = (chunk) => {
      output += chunk;
      const ready = output.match(/Demo ready: (http:\/\/127\.0\.0\.1:\d+)\//);
      if (ready) {
        clearTimeout(timer);
        resolve({ url: ready[1], child, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`demo server exited with ${code}:\n${output}`));
    });
  });
}

before(async () => {
  demo = await startDemo();
  // Every page asks the demo's relay for a token: without one the suite would only show 503s.
  assert.match(demo.output(), /^Relay: http:/m, `the demo started without its relay:\n${demo.output()}`);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (demo) {
    const exited = new Promise((resolve) => demo.child.once('exit', resolve));
    demo.child.kill('SIGTERM');
    await exited;
  }
});

const el = 'koder-mcp-elicitation';
const dialog = `${el} [part~=dialog]`;

/** The demo page, connected to the server. Records every JSON-RPC message the page POSTs to /mcp. */
async function openDemo() {
  const page = await openPage(browser, `${demo.url}/`);
  page.posted = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/mcp') {
      try { page.posted.push(JSON.parse(request.postData() ?? 'null')); } catch { /* not JSON */ }
    }
  });
  await page.waitForFunction(() => document.querySelector('#status')?.dataset.state === 'connected' && window.koderDemo);
  // Every event the element fires, in order.
  await page.evaluate((tag) => {
    window.__events = [];
    for (const type of ['accept', 'reject', 'cancel', 'timeout', 'complete', 'invalid']) {
      document.querySelector(tag).addEventListener(type, (event) => window.__events.push({ type, detail: event.detail }));
    }
  }, el);
  return page;
}

/** Calls a tool through the page's SDK client; `finish(page)` awaits its outcome. */
async function startTool(page, name) {
  await page.evaluate((tool) => {
    window.__call = window.koderDemo.callTool(tool).then(
      (result) => ({ ok: true, isError: Boolean(result.isError), text: result.content.map((block) => block.text).join('\n') }),
      (error) => ({ ok: false, error: String(error?.message ?? error) }),
    );
  }, name);
}
const finish = (page) => page.evaluate(() => window.__call);
const events = (page) => page.evaluate(() => window.__events.map(({ type, detail }) => ({ type, source: detail.source, result: detail.result })));

/** Waits for the dialog and checks it says who is asking and what. */
async function expectDialog(page, message) {
  await page.locator(dialog).waitFor({ state: 'visible' });
  assert.equal((await page.locator(`${el} [part~=server]`).textContent()).includes('Demo server'), true);
  assert.equal(await page.locator(`${el} [part~=message]`).textContent(), message);
}

async function expectClosed(page) {
  await page.locator(dialog).waitFor({ state: 'hidden' });
  assert.equal(await page.evaluate((tag) => document.querySelector(tag).open, el), false);
}

test('weather: the user types a city and picks °F; the server gets exactly that', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  await startTool(page, 'weather');
  await expectDialog(page, 'The weather tool needs your city.');
  await page.locator(`${el} [data-field="city"] input`).fill('Lisbon');
  await page.locator(`${el} [data-field="temperature_unit"] input[type=radio][value="F"]`).check();
  await page.locator(`${el} button[part~=accept]`).click();
  await expectClosed(page);

  const outcome = await finish(page);
  assert.deepEqual(outcome, {
    ok: true,
    isError: false,
    text: 'Received: {"action":"accept","content":{"city":"Lisbon","temperature_unit":"F"}}\n'
      + 'Forecast for Lisbon: 70 °F, clear skies (fake data).',
  });
  assert.equal(await page.locator('#result').textContent(), outcome.text);
  assert.deepEqual((await events(page)).map((e) => e.type), ['accept']);
  page.assertNoErrors();
  await page.close();
});

test('weather: Reject sends decline', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  await startTool(page, 'weather');
  await expectDialog(page, 'The weather tool needs your city.');
  await page.locator(`${el} button[part~=reject]`).click();
  await expectClosed(page);
  assert.deepEqual(await finish(page), {
    ok: true,
    isError: false,
    text: 'Received: {"action":"decline"}\nNo forecast: the user chose decline.',
  });
  page.assertNoErrors();
  await page.close();
});

test('delete_files: confirm + reason are accepted; the Cancel button sends cancel', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  await startTool(page, 'delete_files');
  await expectDialog(page, 'Delete 3 files in ./build (app.js, app.css, index.html)? This cannot be undone.');
  const confirm = page.locator(`${el} [data-field="confirm"] input[type=checkbox][role=switch]`);
  assert.equal(await confirm.isChecked(), false, 'the default (false) is prefilled');
  await confirm.check();
  await page.locator(`${el} [data-field="reason"] input`).fill('stale build');
  await page.locator(`${el} button[part~=accept]`).click();
  await expectClosed(page);
  assert.deepEqual(await finish(page), {
    ok: true,
    isError: false,
    text: 'Received: {"action":"accept","content":{"confirm":true,"reason":"stale build"}}\n'
      + 'Deleted 3 files (pretend). Reason: stale build',
  });

  await startTool(page, 'delete_files');
  await expectDialog(page, 'Delete 3 files in ./build (app.js, app.css, index.html)? This cannot be undone.');
  await page.locator(`${el} button[part~=cancel]`).click();
  await expectClosed(page);
  assert.deepEqual(await finish(page), {
    ok: true,
    isError: false,
    text: 'Received: {"action":"cancel"}\nNothing deleted: the user cancelled.',
  });
  assert.deepEqual((await events(page)).map((e) => [e.type, e.source]), [['accept', undefined], ['cancel', 'user']]);
  page.assertNoErrors();
  await page.close();
});

test('create_project: two dialogs in a row; defaults are sent, an empty optional field is omitted', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  await startTool(page, 'create_project');
  await expectDialog(page, 'New project, step 1 of 2: name and template.');
  await page.locator(`${el} [data-field="name"] input`).fill('koder');
  await page.locator(`${el} [data-field="template"] input[type=radio][value="cli"]`).check();
  await page.locator(`${el} button[part~=accept]`).click();

  await expectDialog(page, 'New project "koder", step 2 of 2: settings.');
  // Untouched: language keeps its default (Rust), private its default (true), homepage stays empty.
  await page.locator(`${el} button[part~=accept]`).click();
  await expectClosed(page);
  assert.deepEqual(await finish(page), {
    ok: true,
    isError: false,
    text: 'Received: {"action":"accept","content":{"name":"koder","template":"cli"}}\n'
      + 'Received: {"action":"accept","content":{"language":"Rust","private":true}}\n'
      + 'Created private Rust cli project "koder" (pretend).',
  });
  page.assertNoErrors();
  await page.close();
});

test('every_field: every field kind, edited and defaults, passes the SDK validation with the right JSON types', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  await startTool(page, 'every_field');
  await expectDialog(page, 'A form with every field kind. Every field has a default; change what you like.');
  await page.locator(`${el} [data-field="seats"] input[type=number]`).fill('5');
  await page.locator(`${el} [data-field="toppings"] input[type=checkbox][value="olives"]`).check();
  await page.locator(`${el} [data-field="weekday"] select`).selectOption('Friday');
  await page.locator(`${el} [data-field="newsletter"] input[role=switch]`).uncheck();
  await page.locator(`${el} button[part~=accept]`).click();
  await expectClosed(page);

  const outcome = await finish(page);
  assert.equal(outcome.ok && !outcome.isError, true, JSON.stringify(outcome));
  const [line, summary] = outcome.text.split('\n');
  assert.equal(summary, 'The SDK validated 14 fields against the requested schema.');
  const received = JSON.parse(line.replace(/^Received: /, ''));
  const { meeting, ...rest } = received.content;
  assert.equal(received.action, 'accept');
  assert.deepEqual(rest, {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    homepage: 'https://example.com/ada',
    birthday: '1815-12-10',
    height: 1.65,
    seats: 5,
    newsletter: false,
    color: 'Green',
    size: 'm',
    country: 'pt',
    weekday: 'Friday',
    toppings: ['cheese', 'basil', 'olives'],
    features: ['auth', 'ci'],
  });
  // A date-time goes out as RFC 3339 with an offset, the same instant as the default.
  assert.match(meeting, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/);
  assert.equal(Date.parse(meeting), Date.parse('2025-11-25T10:00:00Z'));
  page.assertNoErrors();
  await page.close();
});

test('sign_in (URL mode): Open consents, the sign-in page finishes, notifications/elicitation/complete closes the wait', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  await startTool(page, 'sign_in');
  await expectDialog(page, 'Sign in to the (fake) Example account so the demo server can act for you.');
  const shownUrl = await page.locator(`${el} [part~=url]`).textContent();
  const { port } = new URL(demo.url);
  assert.match(shownUrl, new RegExp(`^http://127\\.0\\.0\\.1:${port}/oauth/fake\\?id=[0-9a-f-]{36}$`));
  assert.equal(await page.locator(`${el} [part~=url-host]`).textContent(), '127.0.0.1');
  const elicitationId = new URL(shownUrl).searchParams.get('id');

  const popupOpened = page.context().waitForEvent('page');
  await page.locator(`${el} button[part~=open]`).click();
  const popup = await popupOpened;
  await popup.waitForLoadState();
  assert.equal(popup.url(), shownUrl);
  // Consent was given and the dialog waits for the server; the tool has not returned yet.
  await page.locator(`${el} button[part~=close]`).waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => window.koderDemo.running), 'sign_in');

  await popup.getByRole('button', { name: 'Finish sign-in' }).click();
  await popup.getByRole('heading', { name: 'Signed in' }).waitFor();
  await expectClosed(page);
  assert.deepEqual(await finish(page), {
    ok: true,
    isError: false,
    text: `Received: {"action":"accept"}\nSigned in. Sent notifications/elicitation/complete for elicitationId ${elicitationId}.`,
  });
  const fired = await page.evaluate(() => window.__events.map(({ type, detail }) => [type, detail.mode, detail.elicitationId ?? null]));
  assert.deepEqual(fired, [['accept', 'url', elicitationId], ['complete', 'url', elicitationId]]);
  await popup.close();
  page.assertNoErrors();
  await page.close();
});

/** The server's log for the page's session and one tool. */
async function serverLog(page, tool) {
  const log = await (await fetch(`${demo.url}/demo-log`)).json();
  const sessionId = await page.evaluate(() => window.koderDemo.client.transport.sessionId);
  return log.filter((entry) => entry.session === sessionId && entry.tool === tool).map((entry) => entry.event);
}

const LIST_FILES_MESSAGE = 'Connect your (fake) Example Files account so the demo server can list your files.';

test('list_files (-32042): consent, the sign-in page finishes, the notification completes it and the client retries', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  await startTool(page, 'list_files');
  await expectDialog(page, LIST_FILES_MESSAGE);
  const shownUrl = await page.locator(`${el} [part~=url]`).textContent();
  const elicitationId = new URL(shownUrl).searchParams.get('id');
  assert.match(elicitationId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(await serverLog(page, 'list_files'), ['called', 'answered -32042: URL elicitation required']);

  const popupOpened = page.context().waitForEvent('page');
  await page.locator(`${el} button[part~=open]`).click();
  const popup = await popupOpened;
  await popup.waitForLoadState();
  assert.equal(popup.url(), shownUrl);
  await page.locator(`${el} button[part~=finished]`).waitFor({ state: 'visible' });
  assert.equal(await page.locator(`${el} button[part~=finished]`).textContent(), "I've finished");

  await popup.getByRole('button', { name: 'Finish sign-in' }).click();
  await popup.getByRole('heading', { name: 'Signed in' }).waitFor();
  await expectClosed(page);
  assert.deepEqual(await finish(page), {
    ok: true,
    isError: false,
    text: 'Connected to Example Files. Your files: report.pdf, notes.txt, photo.jpg (fake data).',
  });
  const fired = await page.evaluate(() => window.__events.map(({ type, detail }) => [type, detail.elicitationId ?? null, detail.url ?? null]));
  assert.deepEqual(fired, [['accept', elicitationId, shownUrl], ['complete', elicitationId, null]]);
  const log = await serverLog(page, 'list_files');
  assert.deepEqual(log.filter((event) => event === 'called' || event === 'returned'), ['called', 'called', 'returned'], JSON.stringify(log));
  assert.ok(log.includes('sent notifications/elicitation/complete'), JSON.stringify(log));
  await popup.close();
  page.assertNoErrors();
  await page.close();
});

test('list_files (-32042): "I\'ve finished" retries at once; the server asks again, and Cancel stops the retries', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  // The host opens the URL itself (here: nowhere), so no tab is left behind.
  await page.evaluate((tag) => {
    window.__delegated = [];
    document.querySelector(tag).addEventListener('accept', (event) => {
      if (event.detail.mode !== 'url') return;
      event.preventDefault();
      window.__delegated.push(event.detail.url);
    });
  }, el);
  let popups = 0;
  page.context().on('page', () => { popups += 1; });
  await startTool(page, 'list_files');
  await expectDialog(page, LIST_FILES_MESSAGE);
  const firstUrl = await page.locator(`${el} [part~=url]`).textContent();
  await page.locator(`${el} button[part~=open]`).click();
  await page.locator(`${el} button[part~=finished]`).click();

  // Not signed in after all: the retried call gets -32042 again, with a new elicitation.
  await page.waitForFunction((first) => {
    const url = document.querySelector('koder-mcp-elicitation').shadowRoot.querySelector('[part~=url]');
    return url && url.textContent !== first && !document.querySelector('koder-mcp-elicitation').shadowRoot.querySelector('[part~=finished]');
  }, firstUrl);
  await expectDialog(page, LIST_FILES_MESSAGE);
  await page.locator(`${el} button[part~=cancel]`).click();
  await expectClosed(page);
  const outcome = await finish(page);
  assert.equal(outcome.ok, false);
  assert.match(outcome.error, /-32042\), and the user chose cancel: not retried$/);
  assert.match(await page.locator('#result').textContent(), /^list_files failed: the server needs a URL-mode elicitation first/);
  assert.deepEqual(await page.evaluate(() => window.__delegated), [firstUrl], 'the host got the URL; the element opened nothing');
  assert.equal(popups, 0);
  const log = await serverLog(page, 'list_files');
  assert.deepEqual(log, ['called', 'answered -32042: URL elicitation required', 'called', 'answered -32042: URL elicitation required']);
  page.assertNoErrors();
  await page.close();
});

test('slow_task: the server aborts its elicitation; the dialog closes and the page sends no reply', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  // Twice in one session: the server's first request has JSON-RPC id 0, which SDK 1.x's own cancel
  // handling ignores (demo/client.mjs works around it); the second has id 1.
  for (const round of [1, 2]) {
    await startTool(page, 'slow_task');
    await expectDialog(page, 'The slow task will take a while. Pick a priority — or cancel the call from the page to see the server withdraw this request.');
    const before = page.posted.length;

    await page.evaluate(() => window.koderDemo.cancel()); // the client aborts tools/call
    await expectClosed(page);
    const outcome = await finish(page);
    assert.equal(outcome.ok, false);
    assert.match(outcome.error, /cancelled from the page/);
    assert.match(await page.locator('#result').textContent(), /^slow_task was cancelled: .*the server withdrew its elicitation\.$/);
    const sent = page.posted.slice(before);
    assert.ok(sent.some((m) => m?.method === 'notifications/cancelled'), `round ${round}: the client cancelled tools/call: ${JSON.stringify(sent)}`);
  }
  assert.deepEqual(await events(page), [
    { type: 'cancel', source: 'server', result: null },
    { type: 'cancel', source: 'server', result: null },
  ]);

  // The server saw the aborts and withdrew its requests; nothing answered either elicitation.
  const log = await (await fetch(`${demo.url}/demo-log`)).json();
  const sessionId = await page.evaluate(() => window.koderDemo.client.transport.sessionId);
  const session = log.filter((entry) => entry.session === sessionId);
  assert.deepEqual(session.map((entry) => entry.event), [
    'called', 'abort signal fired; withdrawing the elicitation (notifications/cancelled)', 'aborted',
    'called', 'abort signal fired; withdrawing the elicitation (notifications/cancelled)', 'aborted',
  ]);
  await page.waitForTimeout(500); // give a stray reply time to show up
  const replies = page.posted.filter((m) => m && !('method' in m) && ('result' in m || 'error' in m));
  assert.deepEqual(replies, [], 'no JSON-RPC response to a withdrawn elicitation/create');
  page.assertNoErrors();
  await page.close();
});

test('slow_task: left alone past timeout-ms, the elicitation times out and the server gets cancel', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  await page.evaluate((tag) => document.querySelector(tag).setAttribute('timeout-ms', '3000'), el);
  await startTool(page, 'slow_task');
  await expectDialog(page, 'The slow task will take a while. Pick a priority — or cancel the call from the page to see the server withdraw this request.');
  await page.locator(`${el} [part~=countdown]`).waitFor({ state: 'visible' });
  assert.match(await page.locator(`${el} [part~=countdown]`).textContent(), /[123]/, 'the seconds left');
  await expectClosed(page);
  assert.deepEqual(await finish(page), {
    ok: true,
    isError: false,
    text: 'Received: {"action":"cancel"}\nSlow task not started: the user chose cancel.',
  });
  assert.deepEqual(await events(page), [{ type: 'timeout', source: undefined, result: { action: 'cancel' } }]);
  page.assertNoErrors();
  await page.close();
});

test('the server validates accepted content with the SDK: an answer that breaks the schema is refused', { timeout: 30_000 }, async () => {
  // Not through the component (it never sends such content): a bare SDK client in Node answers
  // the weather form with a number for `city` and an unknown unit.
  const client = new Client({ name: 'bad-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { city: 42, temperature_unit: 'K' } }));
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', demo.url)));
  try {
    const result = await client.callTool({ name: 'weather', arguments: {} });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /Elicitation response content does not match requested schema/);
    assert.doesNotMatch(result.content[0].text, /Received:/);
  } finally {
    await client.close();
  }
});

test('MCP 2026-07-28 (/mcp-2026): the page negotiates it, and one round asks both questions', { timeout: 60_000 }, async () => {
  const page = await openDemo();
  await page.waitForFunction(() => document.querySelector('#status-2026')?.dataset.state === 'connected');
  assert.equal(await page.locator('#status-2026').textContent(), 'Connected to MRTR demo server (MCP 2026-07-28).');
  assert.equal(await page.locator('#status').textContent(), 'Connected to Demo server (MCP 2025-11-25).', 'the 2025-11-25 server through the SDK v2 fallback');
  await startTool(page, 'two_forms');
  await page.locator(dialog).waitFor({ state: 'visible' });
  assert.equal(await page.locator(`${el} [part~=message]`).textContent(), 'Who is booking the table?');
  await page.locator(`${el} [data-field="name"] input`).fill('Grace Hopper');
  await page.locator(`${el} [data-field="email"] input`).fill('grace@example.com');
  await page.locator(`${el} button[part~=accept]`).click();
  await page.locator(`${el} [part~=message]`).getByText('How would you like to sit?').waitFor();
  await page.locator(`${el} [data-field="seats"] input`).fill('2');
  await page.locator(`${el} [data-field="seating"] input[value="indoor"]`).check();
  await page.locator(`${el} button[part~=accept]`).click();
  await expectClosed(page);
  assert.deepEqual(await finish(page), {
    ok: true,
    isError: false,
    text: 'Received identity: accept {"name":"Grace Hopper","email":"grace@example.com"}; preferences: accept {"seats":2,"seating":"indoor"}.\n'
      + 'Booked 2 indoor seat(s) for Grace Hopper <grace@example.com>: both answers passed the server\'s zod schemas.\n'
      + 'Protocol revision: 2026-07-28.',
  });
  page.assertNoErrors();
  await page.close();
});

// The browser's push service is out of reach here: PushManager is replaced (before the page loads)
// by one that makes a subscription as a browser does, with an endpoint on a push service the
// relay allows by default, and records the key it was asked to subscribe with.
const FAKE_PUSH_MANAGER = () => {
  const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  let current = null;
  window.subscribedWith = [];
  PushManager.prototype.getSubscription = async () => current;
  PushManager.prototype.subscribe = async (options) => {
    const serverKey = new Uint8Array(options.applicationServerKey).slice().buffer;
    window.subscribedWith.push({ userVisibleOnly: options.userVisibleOnly, applicationServerKey: base64url(serverKey) });
    const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
    const keys = { p256dh: base64url(await crypto.subtle.exportKey('raw', pair.publicKey)), auth: base64url(crypto.getRandomValues(new Uint8Array(16))) };
    const endpoint = `https://fcm.googleapis.com/fcm/send/demo-test-${crypto.randomUUID()}`;
    current = {
      endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: serverKey },
      toJSON: () => ({ endpoint, expirationTime: null, keys }),
      unsubscribe: async () => { current = null; return true; },
    };
    return current;
  };
};

test('"Notify me": permission from the click, the service worker, and the relay\'s Web Push subscription for the page\'s person', { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ permissions: ['notifications'] });
  try {
    await context.addInitScript(FAKE_PUSH_MANAGER);
    const page = await context.newPage();
    const pageErrors = [];
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(`${demo.url}/`);
    await page.waitForFunction(() => document.querySelector('#relay-status')?.dataset.state === 'connected');
    // The demo's elements notify (shown only while the page is hidden, once permission is granted).
    assert.equal(await page.evaluate(() => document.querySelector('body > koder-mcp-elicitation').notify), true);
    assert.equal(await page.locator('#notify-status').getAttribute('data-state'), 'off');
    const token = await (await fetch(`${demo.url}/relay/token`)).text();
    const pushOn = /^Web Push: on, with a VAPID key made for this run \(public key ([A-Za-z0-9_-]{87})\)/m.exec(demo.output());
    if (!pushOn) assert.match(demo.output(), /^Web Push: off /m, 'the demo says whether its relay pushes');

    await page.locator('#notify-me').click();
    await page.waitForFunction(() => ['on', 'error'].includes(document.querySelector('#notify-status').dataset.state)
      || /Web Push is off/.test(document.querySelector('#notify-status').textContent));
    const status = await page.locator('#notify-status').textContent();
    assert.match(status, /^This page notifies you when a question arrives while it is hidden\./);
    // The page's service worker (www/sw.js) is registered and active at the demo's root.
    assert.deepEqual(await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return [registration.scope, registration.active.scriptURL];
    }), [`${demo.url}/`, `${demo.url}/sw.js`]);
    if (!pushOn) {
      assert.match(status, /Web Push is off: the demo's relay runs without Web Push\.$/);
      return;
    }
    assert.match(status, /Web Push is on/);
    // Subscribed with the demo relay's key (through the same-origin proxy), stored for the page's person.
    assert.deepEqual(await page.evaluate(() => window.subscribedWith), [{ userVisibleOnly: true, applicationServerKey: pushOn[1] }]);
    const endpoint = await page.evaluate(async () => (await (await navigator.serviceWorker.ready).pushManager.getSubscription()).endpoint);
    const listed = await page.evaluate(async (token) => (await fetch('/relay/v1/push/subscriptions', { headers: { Authorization: `Bearer ${token}` } })).json(), token);
    assert.deepEqual(listed.subscriptions.map((subscription) => subscription.endpoint), [endpoint]);
    // Undone with unsubscribePush, so later tests' questions push nothing.
    assert.equal(await page.evaluate(async (token) => {
      const { unsubscribePush } = await import('/dist/relay.js');
      return unsubscribePush(new URL('/relay', location.href).href, { token, registration: await navigator.serviceWorker.ready });
    }, token), true);
    const left = await page.evaluate(async (token) => (await fetch('/relay/v1/push/subscriptions', { headers: { Authorization: `Bearer ${token}` } })).json(), token);
    assert.deepEqual(left.subscriptions, []);
    assert.deepEqual(pageErrors, []);
  } finally {
    await context.close();
  }
});

// Last: the relay is the demo server's, so a question left pending here would show in the pages
// of later tests.
test('transcript: a server-side SDK v2 host asks through the relay, the question shows inline in the conversation, and the answer reaches the tool', { timeout: 90_000 }, async () => {
  const page = await openDemo();
  await page.waitForFunction(() => document.querySelector('#relay-status')?.dataset.state === 'connected');
  assert.match(demo.output(), /Relay: http:\/\/127\.0\.0\.1:\d+ .*\n {2}--service-token \S{20,}\n {2}--jwt-secret +\S{40,}\n/, 'the demo prints its relay and the development secrets it made');
  const call = page.evaluate(() => window.koderDemo.askViaRelay('weather'));
  const inline = page.locator(`#transcript ${el}`);
  await inline.locator('[part~=message]').waitFor({ state: 'visible', timeout: 20_000 });
  assert.equal(await inline.count(), 1);
  assert.equal(await inline.locator('[part~=message]').textContent(), 'The weather tool needs your city.');
  assert.equal(await inline.getAttribute('presentation'), 'inline');
  assert.equal(await inline.getAttribute('conversation-id'), 'demo-chat');
  assert.match(await inline.locator('[part~=server]').textContent(), /Demo server \(via the relay\)/);
  await inline.locator('[data-field="city"] input').fill('Porto');
  await inline.locator('button[part~=accept]').click();

  const result = await call;
  const expected = 'Received: {"action":"accept","content":{"city":"Porto"}}\nForecast for Porto: 21 °C, clear skies (fake data).';
  assert.equal(result.isError ?? false, false);
  assert.equal(result.content[0].text, expected);
  // The conversation reads in order: the host's call, the question (its element stays), the tool's answer.
  assert.deepEqual(await page.$$eval('#transcript > li', (items) => items.map((item) => item.className)), ['message user', 'message question', 'message tool']);
  assert.equal(await page.locator('#transcript .tool').textContent(), expected);
  assert.equal(await inline.evaluate((element) => element.pending), 0);
  // The page's own element showed nothing: the relay's question went to the transcript only.
  assert.equal(await page.evaluate(() => document.body.lastElementChild.pending), 0);
  // The server's log: the host's call reached the real tool, which returned to the host.
  const log = await (await fetch(`${demo.url}/demo-log`)).json();
  assert.deepEqual(log.filter((entry) => entry.tool === 'weather').map((entry) => entry.event).slice(-4),
    ['called by the server-side host', 'called', 'returned', 'the server-side host got the result']);
  page.assertNoErrors();
  await page.close();
});

test('"E-mail me a link": the relay e-mails the question\'s link to the mail catcher, the page shows the message, and an answer on the relay\'s own page reaches the tool', { timeout: 90_000 }, async () => {
  const page = await openDemo();
  await page.waitForFunction(() => document.querySelector('#email-me')?.disabled === false);
  assert.match(demo.output(), /^Answer page: http:\/\/127\.0\.0\.1:\d+\/answer\/ /m);
  assert.match(demo.output(), /^E-mail: to the demo's mail catcher on smtp:\/\/127\.0\.0\.1:\d+ /m);
  const call = page.evaluate(() => window.koderDemo.emailLink('weather'));
  const link = page.locator('#mailbox .mail-link');
  await link.waitFor({ state: 'visible', timeout: 30_000 });
  assert.equal(await page.locator('#mailbox .mail').count(), 1);
  assert.match(await page.locator('#mailbox .mail-subject').textContent(), /^To you@example\.com: .*Demo server \(via the relay\).* needs your input$/u);
  const text = await page.locator('#mailbox .mail-text').textContent();
  assert.match(text, /The weather tool needs your city\./);
  const href = await link.getAttribute('href');
  assert.match(href, /^http:\/\/127\.0\.0\.1:\d+\/answer\/#t=[A-Za-z0-9_-]{43}$/, 'the token rides in the fragment only');
  assert.ok(text.includes(href), 'the text part carries the link');
  assert.match(await page.locator('#mail-status').textContent(), /^1 new message for you@example\.com\.$/);
  // Asked of someone the page is not signed in as: nothing shows in its conversation or dialog.
  assert.equal(await page.locator(`#transcript ${el}`).count(), 0);

  // The person opens the link on a phone-sized screen, answers on the relay's own page.
  const phone = await browser.newContext({ viewport: { width: 360, height: 640 } });
  const answering = await phone.newPage();
  await answering.goto(href);
  const asked = answering.locator(el);
  await asked.locator('[data-field="city"] input').fill('Lisbon');
  await asked.locator('button[part~=accept]').click();
  await answering.getByText('Sent', { exact: false }).first().waitFor({ state: 'visible' });

  const result = await call;
  const expected = 'Received: {"action":"accept","content":{"city":"Lisbon"}}\nForecast for Lisbon: 21 °C, clear skies (fake data).';
  assert.equal(result.isError ?? false, false);
  assert.equal(result.content[0].text, expected);
  assert.equal(await page.locator('#transcript .tool').last().textContent(), expected);
  const log = await (await fetch(`${demo.url}/demo-log`)).json();
  assert.deepEqual(log.filter((entry) => entry.tool === 'weather').map((entry) => entry.event).slice(-4),
    ['called by the e-mailing host', 'called', 'returned', 'the e-mailing host got the result']);
  page.assertNoErrors();
  await phone.close();
  await page.close();
});

test('"Ask the team": the question shows in both members\' columns, one answers, the other reads "Answered by …", the host hears who', { timeout: 90_000 }, async () => {
  const page = await openDemo();
  await page.waitForFunction(() => document.querySelector('#ask-team')?.disabled === false);
  await page.locator('#ask-team').click();
  const ana = page.locator(`#team-ana ${el}`);
  const bruno = page.locator(`#team-bruno ${el}`);
  for (const member of [ana, bruno]) {
    await member.locator('[part~=message]').waitFor({ state: 'visible', timeout: 20_000 });
    assert.equal(await member.locator('[part~=message]').textContent(), 'Deploy the release to production now?');
  }
  // The page's own element and the conversation above show nothing: the team's question is theirs.
  assert.equal(await page.locator(`#transcript ${el}`).count(), 0);
  assert.equal(await page.evaluate(() => document.body.lastElementChild.pending), 0);
  await bruno.locator('[data-field="note"] input').fill('Go');
  await bruno.locator('button[part~=accept]').click();
  await ana.locator('[part~=summary-outcome]').waitFor({ state: 'visible', timeout: 20_000 });
  assert.equal(await ana.locator('[part~=summary-outcome]').textContent(), 'Answered by Bruno');
  assert.equal(await bruno.locator('[part~=summary-outcome]').textContent(), 'Submitted');
  await page.locator('#team-status', { hasText: 'answered by Bruno' }).waitFor({ timeout: 20_000 });
  assert.equal(await page.locator('#team-status').textContent(), 'The host heard: accept, answered by Bruno.');
  page.assertNoErrors();
  await page.close();
});
