// `el.connectRelay()` in Chromium against a real relay (target/debug/koder-elicitation-relay on a
// SQLite file): a host creates elicitations over HTTP with the service token, the person's page
// shows them and answers, and the host's long-poll reads what the person typed. The page fetches
// its token from its own server (/token), so a test can hand it an expired one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer } from './harness.mjs';
import { mintToken, SERVICE_TOKEN, startRelay } from './relay-harness.mjs';

const el = 'koder-mcp-elicitation';
const dialog = `${el} [part~=dialog]`;

// The strict policy plus the relay's origin in connect-src, as the README says a page needs.
const tabPage = (relayUrl) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Relay element</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' ${new URL(relayUrl).origin}; require-trusted-types-for 'script'">
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
<script type="module" src="/relay-element.js"></script>
</head><body><koder-mcp-elicitation></koder-mcp-elicitation></body></html>`;
// Joins the relay right after the import, before the wasm is in. Records the element's events and
// how often it asked for a token.
const TAB_SCRIPT = `
const params = new URLSearchParams(location.search);
const el = document.querySelector('koder-mcp-elicitation');
window.__events = [];
for (const type of ['accept', 'reject', 'cancel', 'timeout', 'complete']) {
  el.addEventListener(type, (event) => window.__events.push({ type, id: event.detail.id, source: event.detail.source ?? null, result: event.detail.result }));
}
window.__tokens = 0;
window.__disconnect = el.connectRelay(params.get('relay'), {
  token: async () => {
    window.__tokens += 1;
    return (await fetch('/token?user=' + encodeURIComponent(params.get('user')))).text();
  },
});
`;

const FORM = {
  message: 'Which city should the report cover?',
  requestedSchema: {
    type: 'object',
    properties: { city: { type: 'string', title: 'City' } },
    required: ['city'],
  },
};

/** Per user: what /token hands out next (each a function minting one token), then valid ones. */
const nextTokens = new Map();
let pages;
let relay;
let browser;

before(async () => {
  pages = await startServer({
    routes: {
      '/relay-element.html': (req, res) => {
        const relayUrl = new URL(req.url, 'http://localhost').searchParams.get('relay');
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(tabPage(relayUrl));
      },
      '/relay-element.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(TAB_SCRIPT),
      '/token': (req, res) => {
        const user = new URL(req.url, 'http://localhost').searchParams.get('user');
        const mint = nextTokens.get(user)?.shift() ?? (() => mintToken({ sub: user, workspace: 'w_relay' }));
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end(mint());
      },
    },
  });
  relay = await startRelay({ allowOrigins: [pages.url] });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await relay?.stop();
  await pages?.close();
});

/** The person's tab for `user`; `relayRequests` lists every request it makes to the relay. */
async function openTab(user, { allow = [], base = relay.url } = {}) {
  const query = new URLSearchParams({ relay: base, user });
  const page = await openPage(browser, `${pages.url}/relay-element.html?${query}`, { allow });
  page.relayRequests = [];
  page.on('request', (request) => {
    if (request.url().startsWith(base)) page.relayRequests.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  await page.waitForFunction(() => typeof window.__disconnect === 'function');
  return page;
}

async function create(user, request = FORM, { timeoutMs = 600_000, serverName = 'Weather server', base = relay.url } = {}) {
  const response = await fetch(`${base}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope: { userId: user, workspaceId: 'w_relay' }, request, serverName, timeoutMs }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

/** The host's long-poll for the outcome. */
async function hostResult(id, wait = 20, base = relay.url) {
  const response = await fetch(`${base}/v1/elicitations/${id}/result?wait=${wait}`, {
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}` },
  });
  assert.equal(response.status, 200);
  return response.json();
}

async function expectDialog(page, message = FORM.message) {
  await page.locator(dialog).waitFor({ state: 'visible', timeout: 15_000 });
  assert.equal(await page.locator(`${el} [part~=message]`).textContent(), message);
}

async function answerCity(page, city) {
  await page.locator(`${el} [data-field="city"] input`).click();
  await page.keyboard.type(city);
  await page.keyboard.press('Enter');
  await page.locator(dialog).waitFor({ state: 'hidden' });
}

const events = (page) => page.evaluate(() => window.__events);
const resultPosts = (page) => page.relayRequests.filter((line) => /^POST \/v1\/elicitations\/[^/]+\/result$/.test(line));

test('a host creates, the dialog shows in the page, the person answers, and the host reads the answer', { timeout: 60_000 }, async () => {
  const page = await openTab('u_answer');
  const id = await create('u_answer');
  await expectDialog(page);
  assert.match(await page.locator(`${el} [part~=server]`).textContent(), /Weather server/, 'the host\'s serverName is shown');
  await answerCity(page, 'Lisbon');

  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content: { city: 'Lisbon' } } });
  // The element's event names the relay's elicitation, and one answer was posted.
  assert.deepEqual(await events(page), [{ type: 'accept', id, source: null, result: { action: 'accept', content: { city: 'Lisbon' } } }]);
  assert.deepEqual(resultPosts(page), [`POST /v1/elicitations/${id}/result`]);
  page.assertNoErrors();
  await page.close();
});

test('a reload brings the pending elicitation back, and it is answered after it', { timeout: 60_000 }, async () => {
  const page = await openTab('u_reload');
  const id = await create('u_reload');
  await expectDialog(page);
  // After the reload the wasm arrives 2 s late: the replayed elicitation waits for it inside
  // elicit() (counted by `pending`, nothing open yet), then shows.
  await page.route('**/*.wasm', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await route.continue();
  });
  await page.reload();
  await page.waitForFunction((tag) => {
    const element = document.querySelector(tag);
    return element.pending === 1 && !element.open;
  }, el, { timeout: 1_500 });
  await expectDialog(page);
  assert.deepEqual(await hostResult(id, 0), { status: 'pending' }, 'the reload answered nothing');
  await page.locator(`${el} button[part~=reject]`).click();
  await page.locator(dialog).waitFor({ state: 'hidden' });
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'decline' } });
  page.assertNoErrors();
  await page.close();
});

test('two tabs: one answers, the other\'s dialog closes without answering', { timeout: 60_000 }, async () => {
  const first = await openTab('u_tabs');
  const second = await openTab('u_tabs');
  const id = await create('u_tabs');
  await expectDialog(first);
  await expectDialog(second);
  await answerCity(first, 'Porto');

  await second.locator(dialog).waitFor({ state: 'hidden', timeout: 10_000 });
  assert.deepEqual(await events(second), [{ type: 'cancel', id, source: 'server', result: null }]);
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content: { city: 'Porto' } } });
  assert.deepEqual(resultPosts(second), [], 'the closed tab posts nothing');
  first.assertNoErrors();
  second.assertNoErrors();
  await first.close();
  await second.close();
});

test('a host DELETE closes the dialog', { timeout: 60_000 }, async () => {
  const page = await openTab('u_withdraw');
  const id = await create('u_withdraw');
  await expectDialog(page);
  const response = await fetch(`${relay.url}/v1/elicitations/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
  assert.equal(response.status, 200);

  await page.locator(dialog).waitFor({ state: 'hidden', timeout: 10_000 });
  assert.deepEqual(await events(page), [{ type: 'cancel', id, source: 'server', result: null }]);
  assert.deepEqual(await hostResult(id, 0), { status: 'withdrawn', result: { action: 'cancel' } });
  assert.deepEqual(resultPosts(page), []);
  page.assertNoErrors();
  await page.close();
});

test('an expired token: the element asks for a fresh one, for the stream and for the answer, and carries on', { timeout: 60_000 }, async () => {
  const expired = () => mintToken({ sub: 'u_expired', workspace: 'w_relay', exp: Math.floor(Date.now() / 1000) - 60 });
  // The stream's first token has expired; the second still works when the stream opens but has
  // expired when the person answers; the third is good.
  nextTokens.set('u_expired', [expired, () => mintToken({ sub: 'u_expired', workspace: 'w_relay', exp: Math.floor(Date.now() / 1000) + 3 })]);
  const page = await openTab('u_expired', { allow: [/401/] });
  const id = await create('u_expired');
  await expectDialog(page);
  assert.equal(await page.evaluate(() => window.__tokens), 2, 'one fresh token after the stream\'s 401');

  await page.waitForTimeout(4_200); // the stream's token expires (the relay checked it at connect)
  await answerCity(page, 'Braga');
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content: { city: 'Braga' } } });
  assert.equal(await page.evaluate(() => window.__tokens), 3, 'one fresh token after the answer\'s 401');
  assert.deepEqual(resultPosts(page), [`POST /v1/elicitations/${id}/result`, `POST /v1/elicitations/${id}/result`]);
  page.assertNoErrors();
  await page.close();
});

test('a timeout is not posted: the relay expires it', { timeout: 60_000 }, async () => {
  const page = await openTab('u_timeout');
  // The page's clock runs 2 s ahead of the relay's, so the element's own timer ends it well before
  // the relay's expiry (at the same instant the two would race).
  await page.evaluate(() => {
    const now = Date.now;
    Date.now = () => now.call(Date) + 2_000;
  });
  const id = await create('u_timeout', FORM, { timeoutMs: 4_000 });
  await expectDialog(page);
  await page.locator(dialog).waitFor({ state: 'hidden', timeout: 10_000 });
  assert.deepEqual((await events(page)).map((event) => [event.type, event.result]), [['timeout', { action: 'cancel' }]]);
  assert.deepEqual(await hostResult(id, 0), { status: 'pending' }, 'the element timed out first');
  assert.deepEqual(await hostResult(id), { status: 'expired', result: { action: 'cancel' } });
  assert.deepEqual(resultPosts(page), []);
  page.assertNoErrors();
  await page.close();
});

test('Esc is the person\'s cancel and is posted; removing the element answers nothing', { timeout: 60_000 }, async () => {
  const page = await openTab('u_cancel');
  const escaped = await create('u_cancel');
  await expectDialog(page);
  await page.keyboard.press('Escape');
  assert.deepEqual(await hostResult(escaped), { status: 'settled', result: { action: 'cancel' } });

  const removed = await create('u_cancel');
  await expectDialog(page);
  await page.evaluate((tag) => document.querySelector(tag).remove(), el);
  await page.waitForFunction(() => window.__events.length === 2);
  assert.deepEqual((await events(page)).map((event) => [event.type, event.source]), [['cancel', 'user'], ['cancel', 'detached']]);
  await page.waitForTimeout(500);
  assert.deepEqual(await hostResult(removed, 0), { status: 'pending' }, 'still waiting for the person');
  assert.deepEqual(resultPosts(page), [`POST /v1/elicitations/${escaped}/result`]);
  page.assertNoErrors();
  await page.close();
});

test('disconnect() closes the open dialog and no request follows', { timeout: 60_000 }, async () => {
  const page = await openTab('u_disconnect');
  const id = await create('u_disconnect');
  await expectDialog(page);
  await page.evaluate(() => window.__disconnect());
  await page.locator(dialog).waitFor({ state: 'hidden', timeout: 5_000 });
  assert.deepEqual(await events(page), [{ type: 'cancel', id, source: 'server', result: null }]);
  const requestsAtDisconnect = page.relayRequests.length;

  // Nothing reconnects (the first retry would come within 0.5 s) and a new one never shows.
  const later = await create('u_disconnect');
  await page.waitForTimeout(2_500);
  assert.equal(await page.locator(dialog).count(), 0);
  assert.deepEqual(page.relayRequests.slice(requestsAtDisconnect), []);
  assert.deepEqual(await hostResult(id, 0), { status: 'pending' }, 'closing on disconnect answers nothing');
  assert.deepEqual(await hostResult(later, 0), { status: 'pending' });
  page.assertNoErrors();
  await page.close();
});

test('URL mode: the consent is posted, and the host\'s complete closes the wait', { timeout: 60_000 }, async () => {
  const page = await openTab('u_url');
  // The host opens nothing here: the page takes the URL itself.
  await page.evaluate((tag) => document.querySelector(tag).addEventListener('accept', (event) => event.preventDefault()), el);
  const request = { mode: 'url', message: 'Sign in to the example account.', url: 'https://example.com/sign-in', elicitationId: 'e_sign_in_1' };
  const id = await create('u_url', request);
  await expectDialog(page, request.message);
  await page.locator(`${el} button[part~=open]`).click();
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept' } });
  // The consent answered the request; the dialog waits for the server to finish (its settled event
  // does not close this tab's own wait).
  await page.locator(`${el} button[part~=finished]`).waitFor({ state: 'visible' });

  const response = await fetch(`${relay.url}/v1/elicitations/${id}/complete`, { method: 'POST', headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
  assert.equal(response.status, 200);
  await page.locator(dialog).waitFor({ state: 'hidden', timeout: 10_000 });
  assert.deepEqual((await events(page)).map((event) => event.type), ['accept', 'complete']);
  assert.deepEqual(resultPosts(page), [`POST /v1/elicitations/${id}/result`]);
  page.assertNoErrors();
  await page.close();
});

test('a second connectRelay replaces the first: each elicitation shows once and is answered once', { timeout: 60_000 }, async () => {
  const page = await openTab('u_again');
  await page.evaluate((tag) => {
    const params = new URLSearchParams(location.search);
    const token = async () => (await fetch('/token?user=' + encodeURIComponent(params.get('user')))).text();
    window.__disconnect = document.querySelector(tag).connectRelay(params.get('relay'), { token });
  }, el);
  const id = await create('u_again');
  await expectDialog(page);
  await page.waitForTimeout(500); // a second connection would queue it a second time by now
  assert.equal(await page.evaluate((tag) => document.querySelector(tag).pending, el), 1);
  await answerCity(page, 'Faro');
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content: { city: 'Faro' } } });
  assert.equal(await page.locator(dialog).count(), 0, 'nothing else shows');
  assert.deepEqual(resultPosts(page), [`POST /v1/elicitations/${id}/result`]);
  page.assertNoErrors();
  await page.close();
});

test('the relay goes down and comes back: the tab reconnects, closes what ended meanwhile, keeps the rest', { timeout: 90_000 }, async () => {
  const own = await startRelay({ allowOrigins: [pages.url] });
  const address = new URL(own.url).host;
  let back = null;
  let other = null;
  try {
    const page = await openTab('u_down', { base: own.url, allow: [/ERR_CONNECTION_REFUSED/, /ERR_EMPTY_RESPONSE/, /ERR_CONNECTION_RESET/, /ERR_INCOMPLETE_CHUNKED_ENCODING/] });
    const withdrawn = await create('u_down', FORM, { base: own.url });
    const kept = await create('u_down', { ...FORM, message: 'Which country?' }, { base: own.url });
    await expectDialog(page);
    assert.equal(await page.evaluate((tag) => document.querySelector(tag).pending, el), 2);

    // While the tab's relay is down, another relay on the same file withdraws the first.
    await own.kill('SIGKILL');
    other = await startRelay({ database: own.database });
    const response = await fetch(`${other.url}/v1/elicitations/${withdrawn}`, { method: 'DELETE', headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
    assert.equal(response.status, 200);
    await other.stop();
    back = await startRelay({ database: own.database, listen: address, allowOrigins: [pages.url] });

    // The replay lists only the second (already shown: not shown twice); the first closes.
    await page.locator(`${el} [part~=message]`, { hasText: 'Which country?' }).waitFor({ timeout: 30_000 });
    assert.equal(await page.evaluate((tag) => document.querySelector(tag).pending, el), 1);
    assert.deepEqual((await events(page)).map((event) => [event.type, event.id, event.source]), [['cancel', withdrawn, 'server']]);
    await page.locator(`${el} [data-field="city"] input`).click();
    await page.keyboard.type('Portugal');
    await page.keyboard.press('Enter');
    await page.locator(dialog).waitFor({ state: 'hidden' });
    assert.deepEqual(await hostResult(kept, 20, back.url), { status: 'settled', result: { action: 'accept', content: { city: 'Portugal' } } });
    page.assertNoErrors();
    await page.close();
  } finally {
    await back?.stop();
    await other?.stop();
    await own.stop();
  }
});
