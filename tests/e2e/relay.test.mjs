// The relay with every real part: two relay processes on one real PostgreSQL, people's tabs in
// Chromium joined with `el.connectRelay`, and an MCP host on the TypeScript SDK v2 asking through
// `relayElicitationHandler` while it calls a tool of a real SDK v2 MCP server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { launchBrowser, openPage, startServer } from './harness.mjs';
import { mintToken, SERVICE_TOKEN, startPostgres, startRelay } from './relay-harness.mjs';
import { startMrtrPeer } from '../peers/start.mjs';
import { relayElicitationHandler } from '../../dist/relay.js';

const el = 'koder-mcp-elicitation';
const dialog = `${el} [part~=dialog]`;

// A person's page: the element joined to the relay named in the query, with the token minted for
// this test. Records every event the element fires.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Relay tab</title>
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
<script type="module" src="/relay-tab.js"></script>
</head><body><koder-mcp-elicitation></koder-mcp-elicitation></body></html>`;
const TAB_SCRIPT = `
const params = new URLSearchParams(location.search);
const el = document.querySelector('koder-mcp-elicitation');
window.__events = [];
for (const type of ['accept', 'reject', 'cancel', 'timeout']) {
  el.addEventListener(type, (event) => window.__events.push({ type, source: event.detail.source ?? null, result: event.detail.result }));
}
window.__disconnect = el.connectRelay(params.get('relay'), { token: async () => params.get('token') });
`;

let postgres;
let relayA;
let relayB;
let pages;
let browser;
let peer;

before(async () => {
  pages = await startServer({
    routes: {
      '/relay-tab.html': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE),
      '/relay-tab.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(TAB_SCRIPT),
    },
  });
  postgres = await startPostgres();
  relayA = await startRelay({ database: postgres.url, allowOrigins: [pages.url] });
  relayB = await startRelay({ database: postgres.url, allowOrigins: [pages.url] });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await peer?.close();
  await relayA?.stop();
  await relayB?.stop();
  await postgres?.stop();
  await pages?.close();
});

async function openTab(relay, claims) {
  const query = new URLSearchParams({ relay: relay.url, token: mintToken(claims) });
  const page = await openPage(browser, `${pages.url}/relay-tab.html?${query}`);
  await page.waitForFunction(() => typeof window.__disconnect === 'function', null, { timeout: 30_000 });
  return page;
}

async function create(relay, scope, request) {
  const response = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope, request, serverName: 'Weather server' }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

test('a tab on relay A answers, the host long-polling relay B gets it, the tab on B closes, another workspace never sees it', { timeout: 120_000 }, async () => {
  const ada = { sub: 'u_ada', workspace: 'w_lab' };
  const tabOnA = await openTab(relayA, ada);
  const tabOnB = await openTab(relayB, ada);
  const otherWorkspace = await openTab(relayB, { sub: 'u_ada', workspace: 'w_elsewhere' });

  const id = await create(relayA, { userId: 'u_ada', workspaceId: 'w_lab', conversationId: 'c_1' }, {
    message: 'Which city should the forecast use?',
    requestedSchema: { type: 'object', properties: { city: { type: 'string', minLength: 2 } }, required: ['city'] },
  });
  const longPoll = fetch(`${relayB.url}/v1/elicitations/${id}/result?wait=60`, {
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}` },
  }).then((response) => response.json());

  for (const tab of [tabOnA, tabOnB]) {
    await tab.locator(dialog).waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await tab.locator(`${el} [part~=message]`).textContent(), 'Which city should the forecast use?');
  }

  await tabOnA.locator(`${el} [data-field="city"] input`).click();
  await tabOnA.keyboard.type('Lisbon');
  await tabOnA.keyboard.press('Enter');

  assert.deepEqual(await longPoll, { status: 'settled', result: { action: 'accept', content: { city: 'Lisbon' } } });
  await tabOnA.locator(dialog).waitFor({ state: 'hidden' });
  // Answered elsewhere: the second tab's dialog closes by itself, as a server-side end with no result.
  await tabOnB.locator(dialog).waitFor({ state: 'hidden', timeout: 10_000 });
  assert.deepEqual(await tabOnB.evaluate(() => window.__events), [{ type: 'cancel', source: 'server', result: null }]);

  // The other workspace's tab saw nothing, and cannot tell the id from one that never existed.
  assert.equal(await otherWorkspace.locator(dialog).count(), 0);
  const otherToken = mintToken({ sub: 'u_ada', workspace: 'w_elsewhere' });
  const probe = async (path) => {
    const response = await fetch(relayB.url + path, { headers: { Authorization: `Bearer ${otherToken}` } });
    return { status: response.status, body: await response.text() };
  };
  const theirs = await probe(`/v1/elicitations/${id}/status`);
  const unknown = await probe('/v1/elicitations/00000000000000000000000000000000/status');
  assert.equal(theirs.status, 404);
  assert.equal(theirs.body, unknown.body);

  for (const tab of [tabOnA, tabOnB, otherWorkspace]) {
    tab.assertNoErrors();
    await tab.close();
  }
});

test('an SDK v2 host asks through relayElicitationHandler, a person answers in Chromium, and the tool completes', { timeout: 180_000 }, async () => {
  peer = await startMrtrPeer();
  const scope = { userId: 'u_grace', workspaceId: 'w_lab', conversationId: 'c_tables' };
  const host = new Client(
    { name: 'koder-relay-e2e-host', version: '0.1.0' },
    { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: 'auto' } },
  );
  host.setRequestHandler('elicitation/create', relayElicitationHandler({
    url: relayB.url, serviceToken: SERVICE_TOKEN, scope, serverName: 'MRTR test peer',
  }));
  await host.connect(new StreamableHTTPClientTransport(new URL(peer.mcpUrl)));
  const tab = await openTab(relayA, { sub: 'u_grace', workspace: 'w_lab', conversation: 'c_tables' });

  const call = host.callTool({ name: 'two_forms', arguments: {} }, { timeout: 150_000 });

  // The round's two questions reach the person's tab through the relay, one after the other.
  await tab.locator(dialog).waitFor({ state: 'visible', timeout: 30_000 });
  const answered = [];
  for (let step = 0; step < 2; step += 1) {
    await tab.locator(dialog).waitFor({ state: 'visible', timeout: 30_000 });
    const message = await tab.locator(`${el} [part~=message]`).textContent();
    answered.push(message);
    if (message === 'Who is booking the table?') {
      await tab.locator(`${el} [data-field="name"] input`).click();
      await tab.keyboard.type('Grace Hopper');
      await tab.locator(`${el} [data-field="email"] input`).click();
      await tab.keyboard.type('grace@example.com');
      await tab.keyboard.press('Enter');
    } else {
      assert.equal(message, 'How would you like to sit?');
      await tab.locator(`${el} [data-field="seats"] input`).click();
      await tab.keyboard.type('2');
      await tab.locator(`${el} [data-field="seating"] input[value="indoor"]`).check();
      await tab.locator(`${el} button[part~=accept]`).click();
    }
    await tab.waitForFunction((count) => window.__events.length >= count, step + 1, { timeout: 30_000 });
  }
  assert.deepEqual(answered.sort(), ['How would you like to sit?', 'Who is booking the table?']);

  const result = await call;
  const text = result.content.map((block) => block.text).join('\n');
  assert.match(text, /Booked 2 indoor seat\(s\) for Grace Hopper <grace@example\.com>/);
  assert.ok(!result.isError, text);
  await tab.locator(dialog).waitFor({ state: 'hidden' });
  tab.assertNoErrors();
  await tab.close();
  await host.close();
});
