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
// With `clockAheadMs`, the page's clock runs that far ahead from its first script on.
const tabPage = (relayUrl, clockAheadMs) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Relay element</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' ${new URL(relayUrl).origin}; require-trusted-types-for 'script'">
${clockAheadMs ? `<script src="/fast-clock.js?ms=${Number(clockAheadMs)}"></script>` : ''}
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

// A classic script, so it runs before the modules: Date.now() and new Date() run `ms` ahead.
const FAST_CLOCK_SCRIPT = `
(() => {
  const ahead = Number(new URL(document.currentScript.src).searchParams.get('ms'));
  const RealDate = Date;
  globalThis.Date = class extends RealDate {
    constructor(...args) {
      super(...(args.length ? args : [RealDate.now() + ahead]));
    }
    static now() {
      return RealDate.now() + ahead;
    }
  };
})();
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
        const params = new URL(req.url, 'http://localhost').searchParams;
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(tabPage(params.get('relay'), params.get('clockAheadMs')));
      },
      '/relay-element.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(TAB_SCRIPT),
      '/fast-clock.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(FAST_CLOCK_SCRIPT),
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
async function openTab(user, { allow = [], base = relay.url, clockAheadMs } = {}) {
  const query = new URLSearchParams({ relay: base, user });
  if (clockAheadMs) query.set('clockAheadMs', String(clockAheadMs));
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

/**
 * Lets `first(route)` answer the first POST of `id`'s answer (a network failure, a refusal); the
 * posts after it go to the relay. Returns the posts seen, each `{ at, body }`, as they come.
 */
async function answerFirstPost(page, id, first) {
  const posts = [];
  await page.route(`${relay.url}/v1/elicitations/${id}/result`, (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    posts.push({ at: Date.now(), body: route.request().postData() });
    return posts.length === 1 ? first(route) : route.continue();
  });
  return posts;
}

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
  // The stream's first token has expired; the second works when the stream opens and ends 3 s
  // later; the ones after it are good.
  nextTokens.set('u_expired', [expired, () => mintToken({ sub: 'u_expired', workspace: 'w_relay', exp: Math.floor(Date.now() / 1000) + 3 })]);
  const page = await openTab('u_expired', { allow: [/401/] });
  const id = await create('u_expired');
  await expectDialog(page);
  assert.equal(await page.evaluate(() => window.__tokens), 2, 'one fresh token after the stream\'s 401');

  // The relay ends the stream when its token ends; the element asks for a fresh token and comes
  // back, and the dialog stays as it was.
  await page.waitForFunction(() => window.__tokens === 3, null, { timeout: 10_000 });
  assert.equal(await page.locator(dialog).count(), 1, 'the dialog stays open across the reconnect');
  // The answer's 401 (a token that ended between the stream and the answer) asks for a fresh one.
  const posts = await answerFirstPost(page, id, (route) => route.fulfill({
    status: 401,
    headers: { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': pages.url },
    body: JSON.stringify({ error: { status: 401, message: 'token expired' } }),
  }));
  await answerCity(page, 'Braga');
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content: { city: 'Braga' } } });
  assert.equal(posts.length, 2, 'the refused post and the one after a fresh token');
  assert.equal(await page.evaluate(() => window.__tokens), 4, 'one fresh token after the answer\'s 401');
  assert.deepEqual(resultPosts(page), [`POST /v1/elicitations/${id}/result`, `POST /v1/elicitations/${id}/result`]);
  page.assertNoErrors();
  await page.close();
});

test('a timeout is not posted: the relay expires it', { timeout: 60_000 }, async () => {
  const page = await openTab('u_timeout');
  const id = await create('u_timeout', FORM, { timeoutMs: 4_000 });
  await expectDialog(page);
  // The page's clock jumps 2 s ahead while the dialog is open, so the element's own timer (which
  // ticks each second) ends it well before the relay's expiry; at the same instant the two would race.
  await page.evaluate(() => {
    const now = Date.now;
    Date.now = () => now.call(Date) + 2_000;
  });
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

test('the relay\'s clock sets the deadline: with the page\'s clock 10 minutes fast, a 60 s elicitation stays open', { timeout: 60_000 }, async () => {
  const page = await openTab('u_clock', { clockAheadMs: 600_000 });
  const skew = await page.evaluate(() => [Date.now(), new Date().getTime()].map((ms) => ms - (performance.timeOrigin + performance.now())));
  for (const ms of skew) assert.ok(ms > 590_000 && ms < 610_000, `the page's clock is 10 minutes fast (${ms} ms)`);
  const id = await create('u_clock', FORM, { timeoutMs: 60_000 });
  await expectDialog(page);

  await page.waitForTimeout(5_000);
  assert.equal(await page.locator(dialog).isVisible(), true, 'still open 5 s later');
  // The countdown shows in the last 30 s: hidden, more than half of the minute is left.
  assert.equal(await page.locator(`${el} [part~=countdown]`).isVisible(), false, 'more than 30 s left');
  assert.deepEqual(await events(page), []);
  await answerCity(page, 'Coimbra');
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content: { city: 'Coimbra' } } });
  assert.deepEqual(resultPosts(page), [`POST /v1/elicitations/${id}/result`]);
  page.assertNoErrors();
  await page.close();
});

test('an answer post that fails on the network is retried, and the relay settles it once', { timeout: 60_000 }, async () => {
  const page = await openTab('u_retry', { allow: [/ERR_FAILED/] });
  const id = await create('u_retry');
  await expectDialog(page);
  // The network drops the first post of the answer; everything after it goes through.
  const posts = await answerFirstPost(page, id, (route) => route.abort('failed'));
  await answerCity(page, 'Evora');

  const answer = { action: 'accept', content: { city: 'Evora' } };
  assert.deepEqual(await hostResult(id, 10), { status: 'settled', result: answer });
  assert.equal(posts.length, 2, 'the dropped post and its retry');
  assert.deepEqual(resultPosts(page), [`POST /v1/elicitations/${id}/result`, `POST /v1/elicitations/${id}/result`]);
  // Settled once: the same answer again is taken as the one already there, another one is refused.
  const repost = (body) => fetch(`${relay.url}/v1/elicitations/${id}/result`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${mintToken({ sub: 'u_retry', workspace: 'w_relay' })}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal((await repost(answer)).status, 200);
  assert.equal((await repost({ action: 'decline' })).status, 409);
  await page.waitForTimeout(1_000);
  assert.equal(await page.locator(dialog).count(), 0, 'the dialog closed once and did not come back');
  assert.deepEqual((await events(page)).map((event) => [event.type, event.id]), [['accept', id]]);
  page.assertNoErrors();
  await page.close();
});

test('a 503 with Retry-After on the answer post: the same answer is posted again after that wait', { timeout: 60_000 }, async () => {
  const page = await openTab('u_busy', { allow: [/503/] });
  const id = await create('u_busy');
  await expectDialog(page);
  // A proxy in front of the relay turns the first post away (CORS as the relay's own answers);
  // the relay lets browsers read Retry-After.
  const posts = await answerFirstPost(page, id, (route) => route.fulfill({
    status: 503,
    headers: { 'Access-Control-Allow-Origin': pages.url, 'Access-Control-Expose-Headers': 'retry-after', 'Retry-After': '2' },
    contentType: 'application/json',
    body: '{"error":"busy"}',
  }));
  await answerCity(page, 'Tavira');

  assert.deepEqual(await hostResult(id, 10), { status: 'settled', result: { action: 'accept', content: { city: 'Tavira' } } });
  assert.equal(posts.length, 2);
  assert.equal(posts[1].body, posts[0].body, 'the same body');
  const waited = posts[1].at - posts[0].at;
  assert.ok(waited >= 1_900 && waited < 4_000, `the retry waited Retry-After's 2 s (${waited} ms), not its own 0.5 s`);
  const exposed = await fetch(`${relay.url}/v1/stream`, { headers: { Origin: pages.url } });
  assert.match(exposed.headers.get('access-control-expose-headers') ?? '', /retry-after/i, 'the relay exposes its Retry-After to pages');
  page.assertNoErrors();
  await page.close();
});

test('the relay ends the stream (a restart) while another tab answers: the tab reconnects and closes it', { timeout: 90_000 }, async () => {
  const own = await startRelay({ allowOrigins: [pages.url] });
  const address = new URL(own.url).host;
  let back = null;
  let other = null;
  try {
    // Refused connections while the relay is down; the stream itself ends cleanly (no reset).
    const page = await openTab('u_restart', { base: own.url, allow: [/ERR_CONNECTION_REFUSED/] });
    const id = await create('u_restart', FORM, { base: own.url });
    await expectDialog(page);

    await own.kill('SIGTERM'); // a graceful stop: the relay ends its streams, the database stays
    other = await startRelay({ database: own.database });
    const response = await fetch(`${other.url}/v1/elicitations/${id}/result`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${mintToken({ sub: 'u_restart', workspace: 'w_relay' })}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ action: 'decline' }),
    });
    assert.equal(response.status, 200, 'the other tab\'s answer');
    await other.stop();
    back = await startRelay({ database: own.database, listen: address, allowOrigins: [pages.url] });

    await page.locator(dialog).waitFor({ state: 'hidden', timeout: 30_000 });
    assert.deepEqual((await events(page)).map((event) => [event.type, event.id, event.source]), [['cancel', id, 'server']]);
    assert.deepEqual(resultPosts(page), [], 'this tab posts nothing');
    assert.deepEqual(await hostResult(id, 0, back.url), { status: 'settled', result: { action: 'decline' } });
    page.assertNoErrors();
    await page.close();
  } finally {
    await back?.stop();
    await other?.stop();
    await own.stop();
  }
});
