// presentation="inline" (issue 32, CONTRACT §2 and §8) in Chromium, in a chat transcript page
// (pages/transcript.html): the question renders in the page's flow, nothing is modal or in the top
// layer, the page stays usable, Tab leaves like any page content, Esc inside cancels, two elements
// settle independently, and each ending leaves its read-only summary (or none with
// settled="remove"). axe reports nothing in the form, error, URL-consent, waiting and summary
// states. A 2026-07-28 round through the SDK v2 client works inline.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import AxeBuilderModule from '@axe-core/playwright';
import { launchBrowser, openPage, startServer } from './harness.mjs';
import { bundleMrtrClient, forwardTo, startMrtrPeer } from '../peers/start.mjs';

const AxeBuilder = AxeBuilderModule.AxeBuilder ?? AxeBuilderModule.default ?? AxeBuilderModule;
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const PAGE = '/tests/e2e/pages/transcript.html';
const FIRST = '#first';
const SECOND = '#second';

/** A booking form with every kind the summary reads differently, and a secret-looking field. */
const BOOKING = {
  message: 'Who is booking, and how?',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Your name', minLength: 2 },
      api_token: { type: 'string', title: 'API token' },
      seats: { type: 'integer', title: 'Seats', minimum: 1 },
      terrace: { type: 'boolean', title: 'Terrace' },
      time: { type: 'string', title: 'Time', oneOf: [{ const: '19', title: '7 pm' }, { const: '21', title: '9 pm' }] },
      diet: {
        type: 'array',
        title: 'Diet',
        items: { anyOf: [{ const: 'veg', title: 'Vegetarian' }, { const: 'gf', title: 'Gluten free' }] },
      },
      notes: { type: 'string', title: 'Notes' },
    },
    required: ['name'],
  },
};
const CITY = {
  message: 'Which city?',
  requestedSchema: { type: 'object', properties: { city: { type: 'string', title: 'City' } }, required: ['city'] },
};
const URL_REQUEST = {
  mode: 'url',
  message: 'Connect your account to continue.',
  url: 'https://auth.example.com/connect?session=abc',
  elicitationId: 'connect-1',
};

let server;
let browser;
let peer;

before(async () => {
  const clientJs = await bundleMrtrClient();
  peer = await startMrtrPeer();
  const mrtrPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MRTR inline</title>
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
<script type="module" src="/mrtr-client.js"></script>
</head><body><main><h1>Transcript</h1>
<koder-mcp-elicitation presentation="inline" server-name="MRTR test peer"></koder-mcp-elicitation>
</main></body></html>`;
  server = await startServer({
    routes: {
      '/mcp': forwardTo(peer.mcpUrl),
      '/mrtr-inline.html': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(mrtrPage),
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

async function openTranscript() {
  // A context of its own: axe runs its frames through the context.
  const page = await openPage(await browser.newContext(), `${server.url}${PAGE}`);
  await page.evaluate(() => customElements.whenDefined('koder-mcp-elicitation'));
  return page;
}

/** Starts `el.elicit(request, options)`; its outcome lands in window.__results[selector]. */
async function elicit(page, selector, request, options = {}) {
  await page.evaluate(([selector, request, options]) => {
    window.__results ??= {};
    window.__results[selector] = document.querySelector(selector).elicit(request, options).then(
      (result) => result,
      (error) => ({ error: error.name }),
    );
  }, [selector, request, options]);
  await page.locator(`${selector} [part~=inline]`).waitFor({ state: 'visible' });
}
const result = (page, selector) => page.evaluate((selector) => window.__results[selector], selector);

/** What the element's shadow root holds: its card, its summaries, and every control left in it. */
function shadowState(page, selector) {
  return page.evaluate((selector) => {
    const root = document.querySelector(selector).shadowRoot;
    const summaries = [...root.querySelectorAll('[part~=summary]')];
    return {
      card: Boolean(root.querySelector('[part~=inline]')),
      controls: root.querySelectorAll('input, select, textarea, button').length,
      summaries: summaries.map((summary) => ({
        outcome: summary.querySelector('[part~=summary-outcome]')?.textContent,
        server: summary.querySelector('[part~=server]')?.textContent,
        message: summary.querySelector('[part~=message]')?.textContent,
        rows: [...summary.querySelectorAll('[part~=summary-row]')].map((row) => [
          row.querySelector('dt').textContent,
          row.querySelector('li') ? [...row.querySelectorAll('li')].map((li) => li.textContent) : row.querySelector('dd').textContent,
        ]),
      })),
      text: root.textContent,
    };
  }, selector);
}

/** Nothing modal, inert or in the top layer, anywhere on the page. */
async function assertNotModal(page) {
  const state = await page.evaluate(() => {
    const deep = (root) => [root, ...[...root.querySelectorAll('*')].flatMap((el) => (el.shadowRoot ? deep(el.shadowRoot) : []))];
    const roots = deep(document);
    return {
      modal: roots.some((root) => root.querySelector(':modal')),
      popover: roots.some((root) => root.querySelector(':popover-open')),
      inert: roots.some((root) => root.querySelector('[inert]')),
      ariaModal: roots.some((root) => root.querySelector('[aria-modal]')),
      dialogs: roots.some((root) => root.querySelector('dialog')),
    };
  });
  assert.deepEqual(state, { modal: false, popover: false, inert: false, ariaModal: false, dialogs: false });
  assert.equal(await page.evaluate(() => document.querySelector(':modal')), null);
}

async function assertNoViolations(page, label) {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const lines = results.violations.flatMap((violation) => [
    `${violation.id} (${violation.impact}): ${violation.help}`,
    ...violation.nodes.map((node) => `    ${JSON.stringify(node.target)} ${node.failureSummary.replace(/\s+/g, ' ')}`),
  ]);
  assert.equal(results.violations.length, 0, `${label}: axe found\n${lines.join('\n')}`);
  const inShadow = results.passes.flatMap((rule) => rule.nodes).filter((node) => Array.isArray(node.target[0]));
  assert.ok(inShadow.length > 3, `${label}: axe did not reach into the shadow root`);
}

const deepActive = (page) => page.evaluate(() => {
  let active = document.activeElement;
  const path = [active?.id || active?.tagName];
  while (active?.shadowRoot?.activeElement) {
    active = active.shadowRoot.activeElement;
    path.push(active.getAttribute('part') || active.tagName);
  }
  return path.join(' > ');
});

test('inline form: in the flow, not modal, announced without taking focus, page usable, Tab leaves; axe in form and error states', { timeout: 90_000 }, async () => {
  const page = await openTranscript();
  await page.locator('#page-button').focus();
  await elicit(page, FIRST, BOOKING);
  const card = page.locator(`${FIRST} [part~=inline]`);
  assert.equal(await card.getAttribute('role'), 'region');
  assert.equal(await card.evaluate((el) => el.getRootNode().getElementById(el.getAttribute('aria-labelledby')).textContent), BOOKING.message);
  assert.match(await page.locator(`${FIRST} [part~=inline] [part~=server]`).textContent(), /Booking Server/);
  await assertNotModal(page);
  // Focus stayed where the person had it, and the arrival is spoken by a polite live region.
  assert.equal(await deepActive(page), 'page-button');
  const live = page.locator(`${FIRST} [part~=inline] [aria-live=polite]`).last();
  await page.waitForFunction((el) => /Booking Server needs your input/.test(el.textContent), await live.elementHandle());
  // The page around it still takes clicks.
  await page.locator('#page-button').click();
  assert.equal(await page.locator('#clicks').textContent(), '1');
  // The card sits in the flow, between the paragraph before it and the button after it.
  const [before, box, after] = await Promise.all([
    page.locator('#transcript > li:nth-child(2) > p').boundingBox(),
    card.boundingBox(),
    page.locator('#after-first').boundingBox(),
  ]);
  assert.ok(before.y + before.height <= box.y && box.y + box.height <= after.y, 'the card is laid out in the page flow');
  await assertNoViolations(page, 'form');

  // Error state: a too-short name, left.
  await page.locator(`${FIRST} [data-field="name"] input`).fill('A');
  await page.locator(`${FIRST} [data-field="seats"] input`).focus();
  assert.equal(await page.locator(`${FIRST} [data-field="name"] input`).getAttribute('aria-invalid'), 'true');
  await assertNoViolations(page, 'error');

  // Tab from the card's last control (Submit, enabled again) moves on to the page's next control;
  // Shift+Tab comes back.
  await page.locator(`${FIRST} [data-field="name"] input`).fill('Ada');
  const last = page.locator(`${FIRST} [part~=inline] footer button`).last();
  await last.focus();
  assert.equal(await deepActive(page), 'first > accept');
  await page.keyboard.press('Tab');
  assert.equal(await deepActive(page), 'after-first');
  await page.keyboard.press('Shift+Tab');
  assert.match(await deepActive(page), /^first > /);
  page.assertNoErrors();
  await page.context().close();
});

test('accept leaves a summary of the values given (titles, yes/no, options by title, lists, a secret masked) and no inputs', { timeout: 60_000 }, async () => {
  const page = await openTranscript();
  await elicit(page, FIRST, BOOKING);
  await page.locator(`${FIRST} [data-field="name"] input`).fill('Ada');
  await page.locator(`${FIRST} [data-field="api_token"] input`).fill('sk-live-123');
  await page.locator(`${FIRST} [data-field="seats"] input`).fill('2');
  await page.locator(`${FIRST} [data-field="terrace"] input`).check();
  await page.locator(`${FIRST} [data-field="time"] input[value="21"]`).check();
  await page.locator(`${FIRST} [data-field="diet"] input[value="veg"]`).check();
  await page.locator(`${FIRST} [data-field="diet"] input[value="gf"]`).check();
  await page.locator(`${FIRST} button[part~=accept]`).click();
  assert.deepEqual(await result(page, FIRST), {
    action: 'accept',
    content: { name: 'Ada', api_token: 'sk-live-123', seats: 2, terrace: true, time: '21', diet: ['veg', 'gf'] },
  });
  const state = await shadowState(page, FIRST);
  assert.equal(state.card, false);
  assert.equal(state.controls, 0, 'no input, select, textarea or button is left');
  assert.deepEqual(state.summaries, [{
    outcome: 'Submitted',
    server: 'From Booking Server',
    message: BOOKING.message,
    rows: [
      ['Your name', 'Ada'],
      ['API token', '(hidden)'],
      ['Seats', '2'],
      ['Terrace', 'yes'],
      ['Time', '9 pm'],
      ['Diet', ['Vegetarian', 'Gluten free']],
    ],
  }]);
  assert.ok(!state.text.includes('sk-live-123'), 'the secret is not in the summary');
  // Focus was in the card: it lands on the summary that replaced it, not at the page's start.
  assert.equal(await deepActive(page), 'first > summary');
  await assertNotModal(page);
  await assertNoViolations(page, 'summary');
  page.assertNoErrors();
  await page.context().close();
});

test('Esc inside cancels; decline (with its reason) and timeout leave their summaries; two elements settle independently', { timeout: 60_000 }, async () => {
  const page = await openTranscript();
  await elicit(page, FIRST, CITY);
  await elicit(page, SECOND, CITY);
  assert.equal(await page.evaluate(() => [first.pending, second.pending].join()), '1,1');

  await page.locator(`${FIRST} [data-field="city"] input`).fill('Lisbon');
  await page.keyboard.press('Escape');
  assert.deepEqual(await result(page, FIRST), { action: 'cancel' });
  assert.equal((await shadowState(page, FIRST)).summaries[0].outcome, 'Cancelled');
  // The other one is untouched: still pending, its form still there.
  assert.equal(await page.evaluate(() => second.pending), 1);
  assert.equal((await shadowState(page, SECOND)).card, true);

  await page.locator(`${SECOND} #kme-reason-toggle`).click();
  await page.locator(`${SECOND} #kme-reason`).fill('Not now');
  await page.locator(`${SECOND} button[part~=reject]`).click();
  assert.deepEqual(await result(page, SECOND), { action: 'decline' });
  assert.deepEqual((await shadowState(page, SECOND)).summaries.map((s) => [s.outcome, s.rows]), [['Declined', [['Reason', 'Not now']]]]);
  // The first element's summary is still its own.
  assert.equal((await shadowState(page, FIRST)).summaries.length, 1);

  // A timeout: a second question in the first element leaves a second summary after the first.
  await elicit(page, FIRST, CITY, { timeoutMs: 400 });
  assert.deepEqual(await result(page, FIRST), { action: 'cancel' });
  const first = await shadowState(page, FIRST);
  assert.deepEqual(first.summaries.map((s) => s.outcome), ['Cancelled', 'Timed out']);
  assert.equal(first.controls, 0);
  page.assertNoErrors();
  await page.context().close();
});

test('a tenant change removes the old scope\'s summaries and leaves none for the question it dismissed', { timeout: 60_000 }, async () => {
  const page = await openTranscript();
  await elicit(page, FIRST, CITY);
  await page.locator(`${FIRST} [data-field="city"] input`).fill('Lisbon');
  await page.keyboard.press('Enter');
  assert.equal((await shadowState(page, FIRST)).summaries.length, 1);
  await elicit(page, FIRST, { ...CITY, message: 'Which city, again?' });
  await page.evaluate(() => first.setAttribute('user-id', 'someone-else'));
  assert.deepEqual(await result(page, FIRST), { action: 'cancel' });
  const state = await shadowState(page, FIRST);
  assert.deepEqual([state.card, state.summaries.length, state.text], [false, 0, '']);
  page.assertNoErrors();
  await page.context().close();
});

test('settled="remove" leaves nothing behind', { timeout: 60_000 }, async () => {
  const page = await openTranscript();
  await page.evaluate(() => first.setAttribute('settled', 'remove'));
  assert.equal(await page.evaluate(() => first.settled), 'remove');
  await elicit(page, FIRST, CITY);
  await page.locator(`${FIRST} [data-field="city"] input`).fill('Porto');
  await page.keyboard.press('Enter');
  assert.deepEqual(await result(page, FIRST), { action: 'accept', content: { city: 'Porto' } });
  const state = await shadowState(page, FIRST);
  assert.deepEqual([state.card, state.summaries.length, state.text], [false, 0, '']);
  page.assertNoErrors();
  await page.context().close();
});

test('URL mode inline: consent with the host, the wait with "I\'ve finished", then "Opened <host>"; axe in each state', { timeout: 60_000 }, async () => {
  const page = await openTranscript();
  // The host opens URLs itself (a listener that prevents the default), so no tab opens here.
  await page.evaluate(() => first.addEventListener('accept', (event) => event.preventDefault()));
  await elicit(page, FIRST, URL_REQUEST);
  assert.equal(await page.locator(`${FIRST} [part~=url-host]`).textContent(), 'auth.example.com');
  await assertNotModal(page);
  await assertNoViolations(page, 'URL consent');
  await page.locator(`${FIRST} button[part~=open]`).click();
  assert.deepEqual(await result(page, FIRST), { action: 'accept' });
  await page.locator(`${FIRST} button[part~=finished]`).waitFor();
  await assertNoViolations(page, 'URL waiting');
  await page.locator(`${FIRST} button[part~=finished]`).click();
  const state = await shadowState(page, FIRST);
  assert.equal(state.card, false);
  assert.equal(state.summaries.length, 1);
  assert.match(state.summaries[0].outcome, /^Opened \S*auth\.example\.com\S*$/);
  await assertNoViolations(page, 'URL summary');
  page.assertNoErrors();
  await page.context().close();
});

test('URL mode inline, MCP 2026-07-28: a URL consented to and asked for again offers Continue, Open again and Cancel', { timeout: 60_000 }, async () => {
  const page = await openTranscript();
  await page.evaluate(() => {
    window.__opened = [];
    first.addEventListener('accept', (event) => event.preventDefault());
    first.addEventListener('open', (event) => { event.preventDefault(); window.__opened.push(event.detail.url); });
  });
  const round = { mode: 'url', message: 'Sign in to continue.', url: 'https://auth.example.com/round' };
  await elicit(page, FIRST, round);
  await page.locator(`${FIRST} button[part~=open]`).click();
  assert.deepEqual(await result(page, FIRST), { action: 'accept' });
  // The next round asks for the same URL: no consent again, but Continue / Open again / Cancel.
  await elicit(page, FIRST, round);
  assert.deepEqual(await page.locator(`${FIRST} [part~=inline] footer button`).evaluateAll((buttons) => buttons.map((b) => b.getAttribute('part'))),
    ['cancel', 'open', 'continue']);
  await assertNotModal(page);
  await assertNoViolations(page, 'URL resume');
  await page.locator(`${FIRST} button[part~=open]`).click();
  assert.deepEqual(await page.evaluate(() => window.__opened), ['https://auth.example.com/round']);
  await page.locator(`${FIRST} button[part~=continue]`).click();
  assert.deepEqual(await result(page, FIRST), { action: 'accept' });
  const state = await shadowState(page, FIRST);
  assert.equal(state.card, false);
  assert.deepEqual(state.summaries.map((summary) => summary.outcome.replace(/[\u2066-\u2069]/g, '')), ['Opened auth.example.com', 'Opened auth.example.com']);
  page.assertNoErrors();
  await page.context().close();
});

test('one Esc cancels a whole inline round (elicitInputs): "1 of 2", both cancelled, the question seen leaves its summary', { timeout: 60_000 }, async () => {
  const page = await openTranscript();
  await page.evaluate(() => {
    const ask = (message) => ({ method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } } });
    window.__round = first.elicitInputs({ resultType: 'input_required', inputRequests: { a: ask('First question'), b: ask('Second question') } });
  });
  await page.locator(`${FIRST} [part~=inline]`).waitFor({ state: 'visible' });
  assert.match(await page.locator(`${FIRST} [part~=queue]`).textContent(), /1 of 2/);
  await page.locator(`${FIRST} [data-field="city"] input`).focus();
  await page.keyboard.press('Escape');
  assert.deepEqual(await page.evaluate(() => window.__round), { a: { action: 'cancel' }, b: { action: 'cancel' } });
  const state = await shadowState(page, FIRST);
  assert.equal(state.card, false);
  assert.deepEqual(state.summaries.map((summary) => [summary.message, summary.outcome]), [['First question', 'Cancelled']]);
  page.assertNoErrors();
  await page.context().close();
});

test('el.focus() moves into the inline card; autofocus focuses the first field when a question arrives', { timeout: 60_000 }, async () => {
  const page = await openTranscript();
  await elicit(page, FIRST, CITY);
  assert.equal(await deepActive(page), 'BODY');
  await page.evaluate(() => first.focus());
  assert.equal(await deepActive(page), 'first > INPUT');
  await page.evaluate(() => second.setAttribute('autofocus', ''));
  await elicit(page, SECOND, CITY);
  assert.equal(await deepActive(page), 'second > INPUT');
  page.assertNoErrors();
  await page.context().close();
});

test('a 2026-07-28 round through the SDK v2 client works inline: "1 of 2", each question in turn, two summaries', { timeout: 90_000 }, async () => {
  const page = await openPage(await browser.newContext(), `${server.url}/mrtr-inline.html`);
  await page.waitForFunction(() => window.mrtr !== undefined, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.mrtr.protocol), '2026-07-28');
  await page.evaluate(() => { window.__call = window.mrtr.call('two_forms'); });
  const el = 'koder-mcp-elicitation';
  const card = `${el} [part~=inline]`;
  await page.locator(card).waitFor({ state: 'visible' });
  assert.equal(await page.locator(`${card} [part~=message]`).textContent(), 'Who is booking the table?');
  assert.match(await page.locator(`${card} [part~=queue]`).textContent(), /1 of 2/);
  await assertNotModal(page);
  await page.locator(`${el} [data-field="name"] input`).fill('Ada Lovelace');
  await page.locator(`${el} [data-field="email"] input`).fill('ada@example.com');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('koder-mcp-elicitation').shadowRoot.querySelector('[part~=inline] [part~=message]')?.textContent === 'How would you like to sit?');
  // Focus was in the first question: it moves on to the second, in the same card's place.
  assert.match(await deepActive(page), /INPUT/);
  await page.locator(`${el} [data-field="seats"] input`).fill('3');
  await page.locator(`${el} [data-field="seating"] input[value="outdoor"]`).check();
  await page.locator(`${el} button[part~=accept]`).click();
  const outcome = await page.evaluate(() => window.__call);
  assert.equal(outcome.isError, false);
  assert.match(outcome.text, /Booked 3 outdoor seat\(s\) for Ada Lovelace <ada@example.com>/);
  assert.match(outcome.text, /Protocol revision: 2026-07-28\./);
  const summaries = await page.evaluate(() => [...document.querySelector('koder-mcp-elicitation').shadowRoot.querySelectorAll('[part~=summary]')]
    .map((summary) => [summary.querySelector('[part~=message]').textContent, summary.querySelector('[part~=summary-outcome]').textContent]));
  assert.deepEqual(summaries, [['Who is booking the table?', 'Submitted'], ['How would you like to sit?', 'Submitted']]);
  page.assertNoErrors();
  await page.context().close();
});
