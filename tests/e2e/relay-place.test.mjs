// `el.connectRelay(url, { token, place })` in Chromium against a real relay
// (target/debug/koder-elicitation-relay on a SQLite file): a chat page with two conversations hands
// each pending elicitation to `place`, which appends a new inline element to that conversation's
// transcript; the question shows there, the person answers there, and the host reads the answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer } from './harness.mjs';
import { mintToken, SERVICE_TOKEN, startRelay } from './relay-harness.mjs';

const el = 'koder-mcp-elicitation';

const chatPage = (relayUrl) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Relay transcripts</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' ${new URL(relayUrl).origin}; require-trusted-types-for 'script'">
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
<script type="module" src="/relay-place.js"></script>
</head><body>
<koder-mcp-elicitation id="hub"></koder-mcp-elicitation>
<section class="transcript" data-conversation="c_trip"><p>Plan my trip</p></section>
<section class="transcript" data-conversation="c_budget"><p>Check my budget</p></section>
</body></html>`;

// The host's place(): a new inline element at the end of the view's conversation, scoped to it.
// Records every view it was given and every ending the placed elements announce.
const PAGE_SCRIPT = `
const params = new URLSearchParams(location.search);
const hub = document.getElementById('hub');
window.__views = [];
window.__events = [];
window.__hubEvents = 0;
for (const type of ['accept', 'reject', 'cancel', 'timeout']) hub.addEventListener(type, () => { window.__hubEvents += 1; });
window.__disconnect = hub.connectRelay(params.get('relay'), {
  token: async () => (await fetch('/token?user=' + encodeURIComponent(params.get('user')))).text(),
  place(view) {
    window.__views.push({ ...view });
    const transcript = document.querySelector('.transcript[data-conversation="' + CSS.escape(view.conversationId) + '"]');
    if (!transcript) return null;
    const inline = document.createElement('koder-mcp-elicitation');
    inline.setAttribute('presentation', 'inline');
    inline.setAttribute('conversation-id', view.conversationId);
    for (const type of ['accept', 'cancel']) {
      inline.addEventListener(type, (event) => window.__events.push({ type, conversation: view.conversationId, id: event.detail.id, source: event.detail.source ?? null, result: event.detail.result }));
    }
    transcript.append(inline);
    return inline;
  },
});
`;

const form = (message) => ({
  message,
  requestedSchema: {
    type: 'object',
    properties: { answer: { type: 'string', title: 'Answer' } },
    required: ['answer'],
  },
});

let pages;
let relay;
let browser;

before(async () => {
  pages = await startServer({
    routes: {
      '/relay-place.html': (req, res) => {
        const params = new URL(req.url, 'http://localhost').searchParams;
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(chatPage(params.get('relay')));
      },
      '/relay-place.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(PAGE_SCRIPT),
      '/token': (req, res) => {
        const user = new URL(req.url, 'http://localhost').searchParams.get('user');
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end(mintToken({ sub: user, workspace: 'w_chat' }));
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

async function create(user, conversationId, request, serverName) {
  const response = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope: { userId: user, workspaceId: 'w_chat', conversationId }, request, serverName, timeoutMs: 600_000 }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

async function hostResult(id) {
  const response = await fetch(`${relay.url}/v1/elicitations/${id}/result?wait=20`, {
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}` },
  });
  assert.equal(response.status, 200);
  return response.json();
}

const inTranscript = (conversation) => `.transcript[data-conversation="${conversation}"] ${el}`;

/** Types `text` into the placed element of `conversation` and submits it with Enter. */
async function answer(page, conversation, text) {
  const input = page.locator(`${inTranscript(conversation)} [data-field="answer"] input`);
  await input.click();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await page.waitForFunction((selector) => document.querySelector(selector)?.pending === 0, inTranscript(conversation));
}

test('place() puts each relay elicitation in its conversation\'s transcript, and each answer reaches the host', { timeout: 90_000 }, async () => {
  const page = await openPage(browser, `${pages.url}/relay-place.html?${new URLSearchParams({ relay: relay.url, user: 'u_chat' })}`);
  await page.waitForFunction(() => typeof window.__disconnect === 'function');
  const trip = await create('u_chat', 'c_trip', form('Which city are you flying to?'), 'Travel server');
  const budget = await create('u_chat', 'c_budget', form('What is your monthly limit?'), 'Budget server');

  for (const [conversation, message] of [['c_trip', 'Which city are you flying to?'], ['c_budget', 'What is your monthly limit?']]) {
    await page.locator(`${inTranscript(conversation)} [part~=message]`).waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(await page.locator(`${inTranscript(conversation)} [part~=message]`).textContent(), message);
    assert.equal(await page.locator(inTranscript(conversation)).count(), 1, `one element in ${conversation}`);
  }
  assert.match(await page.locator(`${inTranscript('c_trip')} [part~=server]`).textContent(), /Travel server/);
  assert.match(await page.locator(`${inTranscript('c_budget')} [part~=server]`).textContent(), /Budget server/);
  // Each placed element is the transcript's own, after the conversation's message.
  assert.deepEqual(
    await page.evaluate(() => [...document.querySelectorAll('.transcript')].map((t) => [...t.children].map((c) => c.localName))),
    [['p', el], ['p', el]],
  );
  const views = await page.evaluate(() => window.__views);
  assert.deepEqual(
    views.map(({ id, conversationId, serverName, message, mode, userId, workspaceId }) => ({ id, conversationId, serverName, message, mode, userId, workspaceId })),
    [
      { id: trip, conversationId: 'c_trip', serverName: 'Travel server', message: 'Which city are you flying to?', mode: 'form', userId: 'u_chat', workspaceId: 'w_chat' },
      { id: budget, conversationId: 'c_budget', serverName: 'Budget server', message: 'What is your monthly limit?', mode: 'form', userId: 'u_chat', workspaceId: 'w_chat' },
    ],
  );

  // The budget question came second: answered first, so a modal stack (before inline lands) is
  // answered top down too.
  await answer(page, 'c_budget', '500 EUR');
  await answer(page, 'c_trip', 'Lisbon');
  assert.deepEqual(await hostResult(trip), { status: 'settled', result: { action: 'accept', content: { answer: 'Lisbon' } } });
  assert.deepEqual(await hostResult(budget), { status: 'settled', result: { action: 'accept', content: { answer: '500 EUR' } } });
  assert.deepEqual(await page.evaluate(() => window.__events), [
    { type: 'accept', conversation: 'c_budget', id: budget, source: null, result: { action: 'accept', content: { answer: '500 EUR' } } },
    { type: 'accept', conversation: 'c_trip', id: trip, source: null, result: { action: 'accept', content: { answer: 'Lisbon' } } },
  ]);
  // The connecting element showed nothing itself.
  assert.equal(await page.evaluate(() => window.__hubEvents), 0);
  assert.equal(await page.evaluate(() => document.getElementById('hub').pending), 0);
  page.assertNoErrors();
  await page.close();
});

test('without a transcript for the conversation, place() returns nothing and the connecting element shows it', { timeout: 60_000 }, async () => {
  const page = await openPage(browser, `${pages.url}/relay-place.html?${new URLSearchParams({ relay: relay.url, user: 'u_lost' })}`);
  await page.waitForFunction(() => typeof window.__disconnect === 'function');
  const id = await create('u_lost', 'c_elsewhere', form('Still there?'), 'Weather server');
  await page.locator(`#hub [part~=message]`).waitFor({ state: 'visible', timeout: 15_000 });
  assert.equal(await page.locator(`#hub [part~=message]`).textContent(), 'Still there?');
  assert.equal(await page.locator(`.transcript ${el}`).count(), 0);
  await page.locator('#hub [data-field="answer"] input').click();
  await page.keyboard.type('yes');
  await page.keyboard.press('Enter');
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content: { answer: 'yes' } } });
  assert.equal(await page.evaluate(() => window.__hubEvents), 1);
  page.assertNoErrors();
  await page.close();
});

test('a host withdrawing a placed elicitation closes it in its transcript, and nothing is posted', { timeout: 60_000 }, async () => {
  const page = await openPage(browser, `${pages.url}/relay-place.html?${new URLSearchParams({ relay: relay.url, user: 'u_withdraw' })}`);
  const posts = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().startsWith(relay.url)) posts.push(new URL(request.url()).pathname);
  });
  await page.waitForFunction(() => typeof window.__disconnect === 'function');
  const id = await create('u_withdraw', 'c_trip', form('Window or aisle?'), 'Travel server');
  await page.locator(`${inTranscript('c_trip')} [part~=message]`).waitFor({ state: 'visible', timeout: 15_000 });
  const response = await fetch(`${relay.url}/v1/elicitations/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
  assert.equal(response.status, 200);
  await page.waitForFunction((selector) => document.querySelector(selector)?.pending === 0, inTranscript('c_trip'));
  assert.deepEqual(await page.evaluate(() => window.__events), [
    { type: 'cancel', conversation: 'c_trip', id, source: 'server', result: null },
  ]);
  assert.deepEqual(posts, [], 'a withdrawn elicitation is not answered');
  assert.equal(await page.evaluate(() => window.__hubEvents), 0);
  page.assertNoErrors();
  await page.close();
});
