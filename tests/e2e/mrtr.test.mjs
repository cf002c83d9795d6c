// MCP 2026-07-28 multi round-trip requests in Chromium: the TypeScript SDK v2 client
// (`@modelcontextprotocol/client`, version negotiation `auto`) with <koder-mcp-elicitation> as its
// elicitation/create handler (tests/e2e/pages/mrtr-client.mjs), against a real SDK v2 server
// (tests/peers/mrtr-server.mjs over Streamable HTTP). The SDK drives the input_required rounds; the
// tools' own results prove what the server received and which revision served the call.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer } from './harness.mjs';
import { bundleMrtrClient, forwardTo, startMrtrPeer } from '../peers/start.mjs';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MRTR with SDK v2</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; connect-src 'self'">
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
<script type="module" src="/mrtr-client.js"></script>
</head><body><koder-mcp-elicitation server-name="MRTR test peer"></koder-mcp-elicitation></body></html>`;

const el = 'koder-mcp-elicitation';
const dialog = `${el} [part~=dialog]`;

let peer;
let server;
let browser;

before(async () => {
  const clientJs = await bundleMrtrClient();
  peer = await startMrtrPeer();
  server = await startServer({
    routes: {
      '/mcp': forwardTo(peer.mcpUrl),
      '/mrtr.html': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE),
      '/mrtr-client.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(clientJs),
    },
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await peer?.close();
});

/** The page, connected; records the element's events. */
async function openClient() {
  // The peer's sign-in page is plain http on loopback: the element opens it with a development warning.
  const page = await openPage(browser, `${server.url}/mrtr.html`);
  await page.waitForFunction(() => window.mrtr !== undefined, null, { timeout: 30_000 });
  await page.evaluate((tag) => {
    window.__events = [];
    for (const type of ['accept', 'reject', 'cancel', 'timeout', 'complete', 'invalid']) {
      document.querySelector(tag).addEventListener(type, (event) => window.__events.push({ type, result: event.detail?.result ?? null }));
    }
  }, el);
  return page;
}

async function startCall(page, name) {
  await page.evaluate((tool) => { window.__call = window.mrtr.call(tool); }, name);
}
const outcome = (page) => page.evaluate(() => window.__call);
const events = (page) => page.evaluate(() => window.__events);
const asked = (page) => page.evaluate(() => window.mrtr.asked);

async function expectDialog(page, message) {
  await page.locator(dialog).waitFor({ state: 'visible' });
  assert.equal(await page.locator(`${el} [part~=message]`).textContent(), message);
}

/** Focuses a field's input the way a person does (a click), then types into it key by key. */
async function typeInto(page, field, text) {
  await page.locator(`${el} [data-field="${field}"] input`).first().click();
  await page.keyboard.type(text);
}

test('SDK v2 negotiates 2026-07-28 with the SDK v2 peer', { timeout: 60_000 }, async () => {
  const page = await openClient();
  assert.equal(await page.evaluate(() => window.mrtr.protocol), '2026-07-28');
  page.assertNoErrors();
  await page.close();
});

test('two forms in one round: typed answers pass the server\'s zod schemas', { timeout: 90_000 }, async () => {
  const page = await openClient();
  await startCall(page, 'two_forms');

  // The round's two elicitations show one after the other; the first says it is 1 of 2.
  await expectDialog(page, 'Who is booking the table?');
  assert.match(await page.locator(`${el} [part~=queue]`).textContent(), /1 of 2/);
  await typeInto(page, 'name', 'Ada Lovelace');
  await typeInto(page, 'email', 'ada@example.com');
  await page.keyboard.press('Enter');

  await expectDialog(page, 'How would you like to sit?');
  await typeInto(page, 'seats', '3');
  await page.locator(`${el} [data-field="seating"] input[value="outdoor"]`).focus();
  await page.keyboard.press('Space');
  await page.locator(`${el} button[part~=accept]`).focus();
  await page.keyboard.press('Enter');
  await page.locator(dialog).waitFor({ state: 'hidden' });

  assert.deepEqual(await outcome(page), {
    isError: false,
    text: 'Received identity: accept {"name":"Ada Lovelace","email":"ada@example.com"}; preferences: accept {"seats":3,"seating":"outdoor"}.\n'
      + 'Booked 3 outdoor seat(s) for Ada Lovelace <ada@example.com>: both answers passed the server\'s zod schemas.\n'
      + 'Protocol revision: 2026-07-28.',
  });
  // One round, two input requests, each handed to the element by the SDK: bare params, no elicitationId.
  assert.deepEqual((await asked(page)).map((params) => [params.mode, params.message, params.elicitationId]), [
    ['form', 'Who is booking the table?', undefined],
    ['form', 'How would you like to sit?', undefined],
  ]);
  assert.deepEqual((await events(page)).map((event) => event.type), ['accept', 'accept']);
  page.assertNoErrors();
  await page.close();
});

test('Esc ends the call as cancel: one press cancels the whole round', { timeout: 90_000 }, async () => {
  const page = await openClient();
  await page.evaluate((tag) => {
    window.__sources = [];
    document.querySelector(tag).addEventListener('cancel', (event) => window.__sources.push(event.detail.source));
  }, el);
  await startCall(page, 'two_forms');
  await expectDialog(page, 'Who is booking the table?');
  // Both questions of the round are with the element (the SDK hands them over in parallel).
  await page.waitForFunction(() => window.mrtr.asked.length === 2, null, { timeout: 30_000 });
  assert.equal(await page.evaluate((tag) => document.querySelector(tag).pending, el), 2);
  await page.keyboard.press('Escape');
  // One press: the SDK gave both handler calls the round's one signal, so the element cancels the
  // round's other question with it, and no second dialog shows.
  await page.locator(dialog).waitFor({ state: 'hidden', timeout: 5_000 });
  assert.equal(await page.evaluate((tag) => document.querySelector(tag).pending, el), 0, 'nothing left to answer');
  assert.deepEqual(await outcome(page), {
    isError: false,
    text: 'Received identity: cancel; preferences: cancel.\n'
      + 'Not booked: the user did not accept both questions.\n'
      + 'Protocol revision: 2026-07-28.',
  });
  assert.deepEqual(await events(page), [
    { type: 'cancel', result: { action: 'cancel' } },
    { type: 'cancel', result: { action: 'cancel' } },
  ]);
  assert.deepEqual(await page.evaluate(() => window.__sources), ['user', 'user']);
  assert.equal(await page.locator(dialog).count(), 0, 'no dialog shows after the one Esc');
  page.assertNoErrors();
  await page.close();
});

test('a repeated URL round: consent once, then Continue with no second consent, and the call completes', { timeout: 120_000 }, async () => {
  const page = await openClient();
  const popups = [];
  page.context().on('page', (opened) => popups.push(opened));
  await startCall(page, 'url_sign_in');

  // Round 1: the URL with its consent; Open is the consent.
  await expectDialog(page, 'Sign in to the (fake) Example account on its page, then come back.');
  const [first] = await asked(page);
  assert.equal(first.mode, 'url');
  assert.equal(first.elicitationId, undefined, 'a 2026-07-28 URL request has no elicitationId');
  assert.equal(await page.locator(`${el} [part~=url]`).textContent(), first.url);
  assert.equal(await page.locator(`${el} button[part~=continue]`).count(), 0, 'no Continue before consent');
  const opened = page.context().waitForEvent('page');
  await page.locator(`${el} button[part~=open]`).click();
  assert.equal((await opened).url(), first.url, 'consent opened the page');
  await page.waitForFunction(() => window.mrtr.asked.length >= 2, null, { timeout: 30_000 });

  // Round 2: the server asks for the same URL; the dialog offers Continue instead of asking again.
  const continueButton = page.locator(`${el} button[part~=continue]`);
  await continueButton.waitFor({ state: 'visible' });
  const second = (await asked(page))[1];
  assert.equal(second.url, first.url, 'the server asked for the same URL again');
  assert.equal(popups.length, 1, 'the window is not opened again by itself');
  assert.equal(await page.locator(`${el} button[part~=open]`).isVisible(), true, 'Open again is offered');
  assert.equal(await page.locator(`${el} button[part~=cancel]`).isVisible(), true, 'and Cancel');
  assert.deepEqual((await events(page)).map((event) => event.type), ['accept'], 'one consent only');

  // The person finishes on the page (out of band), then presses Continue: the call completes.
  const visited = await fetch(first.url, { method: 'POST' });
  assert.equal(visited.status, 204);
  await continueButton.click();
  await page.locator(dialog).waitFor({ state: 'hidden' });
  assert.deepEqual(await outcome(page), {
    isError: false,
    text: 'Received sign_in: accept.\n'
      + 'Signed in: the person finished on the page after 2 round(s) asking for it.\n'
      + 'Protocol revision: 2026-07-28.',
  });
  assert.equal((await asked(page)).length, 2, 'no third round');
  assert.equal(popups.length, 1);
  for (const opened of popups) await opened.close();
  page.assertNoErrors();
  await page.close();
});

test('a repeated URL round: Continue before finishing asks again, still with no consent, and Cancel ends the call', { timeout: 120_000 }, async () => {
  const page = await openClient();
  const popups = [];
  page.context().on('page', (opened) => popups.push(opened));
  await startCall(page, 'url_sign_in');
  await expectDialog(page, 'Sign in to the (fake) Example account on its page, then come back.');
  await page.locator(`${el} button[part~=open]`).click();

  // Round 2: Continue without finishing on the page; the server asks a third time, the same way.
  const continueButton = page.locator(`${el} button[part~=continue]`);
  await continueButton.waitFor({ state: 'visible' });
  await continueButton.click();
  await page.waitForFunction(() => window.mrtr.asked.length >= 3, null, { timeout: 30_000 });
  await continueButton.waitFor({ state: 'visible' });
  const urls = (await asked(page)).map((params) => params.url);
  assert.equal(new Set(urls).size, 1, 'the same URL every round');

  // Round 3: Cancel.
  await page.locator(`${el} button[part~=cancel]`).click();
  await page.locator(dialog).waitFor({ state: 'hidden' });
  assert.deepEqual(await outcome(page), {
    isError: false,
    text: 'Received sign_in: cancel.\nNot signed in: the user chose cancel.\nProtocol revision: 2026-07-28.',
  });
  assert.equal((await events(page)).at(-1).type, 'cancel');
  assert.equal(popups.length, 1, 'only the consent opened the page');
  for (const opened of popups) await opened.close();
  page.assertNoErrors();
  await page.close();
});
