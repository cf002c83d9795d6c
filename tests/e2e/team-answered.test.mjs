// A question for a team, answered by someone else (issue 51, CONTRACT §12) in Chromium. The element:
// aborting `elicit`'s signal with `{ answeredBy }` rejects with AbortError, fires `cancel` with
// source "server" and detail.answeredBy, leaves "Answered by {name}" inline (en-US, pt-BR, es) and
// says it in a live region for a modal. Then against the real relay (target/debug): two members'
// pages, each joined with its own token (groups claim), see one question for their group; one
// answers and the other's inline summary names them; axe finds nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertNoAxeViolations, launchBrowser, openPage, startServer } from './harness.mjs';
import { mintToken, SERVICE_TOKEN, startRelay } from './relay-harness.mjs';

const el = 'koder-mcp-elicitation';
const CITY = {
  message: 'Which city should the report cover?',
  requestedSchema: { type: 'object', properties: { city: { type: 'string', title: 'City' } }, required: ['city'] },
};

// One element in a page of `lang`; a member's page also joins the relay with its own token.
const memberPage = (lang, presentation) => `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>Team question</title>
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
<script type="module" src="/member.js"></script>
</head><body><main><h1>Team</h1>
<koder-mcp-elicitation ${presentation === 'inline' ? 'presentation="inline"' : ''} lang="${lang}"></koder-mcp-elicitation>
</main></body></html>`;
const MEMBER_SCRIPT = `
const params = new URLSearchParams(location.search);
const el = document.querySelector('koder-mcp-elicitation');
window.__cancels = [];
el.addEventListener('cancel', (event) => window.__cancels.push({ source: event.detail.source, answeredBy: event.detail.answeredBy ?? null }));
if (params.get('es')) {
  const { ready, registerTranslation } = await import('/dist/koder-mcp-elicitation.js');
  await ready;
  registerTranslation('es', await (await fetch('/www/es.ftl')).text());
}
if (params.get('relay')) {
  window.__disconnect = el.connectRelay(params.get('relay'), {
    token: async () => (await fetch('/token?user=' + encodeURIComponent(params.get('user')))).text(),
  });
}
window.__ready = true;
`;

/** Each member's name claim; both are in the group `oncall` of workspace w_team. */
const NAMES = { u_ana: 'Ana Lima', u_bruno: 'Bruno Souza' };

let pages;
let relay;
let browser;

before(async () => {
  pages = await startServer({
    routes: {
      '/member.html': (req, res) => {
        const params = new URL(req.url, 'http://localhost').searchParams;
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
          .end(memberPage(params.get('lang') ?? 'en-US', params.get('presentation') ?? 'inline'));
      },
      '/member.js': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(MEMBER_SCRIPT),
      '/token': (req, res) => {
        const user = new URL(req.url, 'http://localhost').searchParams.get('user');
        const token = mintToken({ sub: user, workspace: 'w_team', name: NAMES[user], groups: ['oncall'] });
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end(token);
      },
    },
  });
  relay = await startRelay({ allowOrigins: [pages.url], args: ['--jwt-groups-claim', 'groups'] });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await relay?.stop();
  await pages?.close();
});

async function open(query) {
  // A context of its own per member (axe needs one), as two people's browsers would be.
  const page = await openPage(await browser.newContext(), `${pages.url}/member.html?${new URLSearchParams(query)}`);
  await page.waitForFunction(() => window.__ready === true);
  return page;
}

/** Asks on the page's element, aborts with `reason` once it shows, and reports how it ended. */
async function abortShown(page, reason) {
  return page.evaluate(async ({ request, reason }) => {
    const el = document.querySelector('koder-mcp-elicitation');
    const controller = new AbortController();
    const asked = el.elicit(request, { signal: controller.signal }).then(() => 'resolved', (error) => error.name);
    while (!el.open) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(reason);
    return { ended: await asked, cancels: window.__cancels };
  }, { request: CITY, reason });
}

const outcome = (page) => page.locator(`${el} [part~=summary-outcome]`).textContent();

for (const [lang, words] of [['en-US', 'Answered by Ana Lima'], ['pt-BR', 'Respondido por Ana Lima'], ['es', 'Respondido por Ana Lima']]) {
  test(`an abort reason { answeredBy } closes without a reply and leaves "${words}" inline (${lang})`, { timeout: 60_000 }, async () => {
    const page = await open({ lang, es: lang === 'es' ? '1' : '' });
    const { ended, cancels } = await abortShown(page, { answeredBy: 'Ana Lima' });
    assert.equal(ended, 'AbortError');
    assert.deepEqual(cancels, [{ source: 'server', answeredBy: 'Ana Lima' }]);
    assert.equal(await outcome(page), words);
    // The name is the server's text, isolated in its own element.
    assert.equal(await page.locator(`${el} [part~=summary-outcome] bdi`).textContent(), 'Ana Lima');
    await page.context().close();
  });
}

test('a plain abort still reads "Cancelled"; markup in a name stays text', { timeout: 60_000 }, async () => {
  const page = await open({ lang: 'en-US' });
  const plain = await abortShown(page, undefined);
  assert.equal(plain.ended, 'AbortError');
  assert.deepEqual(plain.cancels, [{ source: 'server', answeredBy: null }]);
  assert.equal(await outcome(page), 'Cancelled');
  await abortShown(page, { answeredBy: '<img src=x onerror=alert(1)>' });
  assert.equal(await page.locator(`${el} [part~=summary-outcome]`).last().textContent(), 'Answered by <img src=x onerror=alert(1)>');
  assert.equal(await page.locator(`${el} img`).count(), 0);
  await page.context().close();
});

test('a modal answered by someone else closes and announces "Answered by {name}" in its live region (en-US, pt-BR)', { timeout: 60_000 }, async () => {
  for (const [lang, words] of [['en-US', 'Answered by Ana Lima'], ['pt-BR', 'Respondido por Ana Lima']]) {
    const page = await open({ lang, presentation: 'modal' });
    const { ended, cancels } = await abortShown(page, { answeredBy: 'Ana Lima' });
    assert.equal(ended, 'AbortError');
    assert.deepEqual(cancels, [{ source: 'server', answeredBy: 'Ana Lima' }]);
    assert.equal(await page.evaluate(() => document.querySelector('koder-mcp-elicitation').open), false);
    const live = page.locator(`${el} [role=status][aria-live=polite]`, { hasText: words });
    await live.waitFor({ state: 'attached', timeout: 5_000 });
    assert.equal(await live.textContent(), words);
    await page.context().close();
  }
});

/** A question for the group `oncall`, from the host with the service token. */
async function askTheTeam() {
  const response = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope: { workspaceId: 'w_team' }, audience: { groups: ['oncall'] }, request: CITY, serverName: 'Reports', timeoutMs: 600_000 }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

for (const [lang, words] of [['en-US', 'Answered by Bruno Souza'], ['pt-BR', 'Respondido por Bruno Souza']]) {
  test(`the real relay: two members see the team's question, one answers, the other reads "${words}"; axe clean (${lang})`, { timeout: 90_000 }, async () => {
    const ana = await open({ lang, relay: relay.url, user: 'u_ana' });
    const bruno = await open({ lang, relay: relay.url, user: 'u_bruno' });
    const id = await askTheTeam();
    for (const page of [ana, bruno]) {
      await page.locator(`${el} [part~=inline]`).waitFor({ state: 'visible', timeout: 15_000 });
      assert.match(await page.locator(`${el} [part~=inline]`).textContent(), /Which city should the report cover\?/);
    }
    await bruno.locator(`${el} [data-field="city"] input`).fill('Recife');
    await bruno.keyboard.press('Enter');
    const anaOutcome = ana.locator(`${el} [part~=summary-outcome]`);
    await anaOutcome.waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(await anaOutcome.textContent(), words);
    assert.deepEqual(await ana.evaluate(() => window.__cancels), [{ source: 'server', answeredBy: 'Bruno Souza' }]);
    // The member who answered reads their own answer; the other never sees its content.
    assert.match(await bruno.locator(`${el} [part~=summary]`).textContent(), /Recife/);
    assert.doesNotMatch(await ana.locator(`${el} [part~=summary]`).textContent(), /Recife/);
    const result = await (await fetch(`${relay.url}/v1/elicitations/${id}/result?wait=10`, {
      headers: { Authorization: `Bearer ${SERVICE_TOKEN}` },
    })).json();
    assert.deepEqual(result.answeredBy, { userId: 'u_bruno', name: 'Bruno Souza' });
    await assertNoAxeViolations(ana, `${lang}: the summary answered by someone else`);
    await ana.context().close();
    await bruno.context().close();
  });
}

test('the real relay: a person\'s own question answered in their other tab closes as "Cancelled", naming nobody', { timeout: 90_000 }, async () => {
  const first = await open({ lang: 'en-US', relay: relay.url, user: 'u_ana' });
  const second = await open({ lang: 'en-US', relay: relay.url, user: 'u_ana' });
  const response = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope: { userId: 'u_ana', workspaceId: 'w_team' }, request: CITY, serverName: 'Reports', timeoutMs: 600_000 }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  for (const page of [first, second]) await page.locator(`${el} [part~=inline]`).waitFor({ state: 'visible', timeout: 15_000 });
  await first.locator(`${el} [data-field="city"] input`).fill('Natal');
  await first.keyboard.press('Enter');
  const other = second.locator(`${el} [part~=summary-outcome]`);
  await other.waitFor({ state: 'visible', timeout: 15_000 });
  assert.equal(await other.textContent(), 'Cancelled');
  assert.deepEqual(await second.evaluate(() => window.__cancels), [{ source: 'server', answeredBy: null }]);
  await first.context().close();
  await second.context().close();
});
