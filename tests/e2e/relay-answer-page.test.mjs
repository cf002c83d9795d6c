// The relay's own answer page (CONTRACT §10) in Chromium against the real relay
// (target/debug/koder-elicitation-relay with --answer-page on a SQLite file, the element's files
// read from dist/): a host creates an elicitation and asks for its link, a phone-sized browser opens
// it, answers, and the host's long-poll reads exactly that answer; the link then shows only that it
// was answered. Expired, withdrawn, unknown and forged links show their outcome and nothing of the
// request. The page runs under its strict CSP with no violation, axe finds nothing in light and
// dark, it speaks pt-BR to a pt-BR browser, and it never scrolls sideways at 320 and 360 px.
// One tap (CONTRACT §13): the token leaves the address bar and the history before the question is
// read, a one-tap question is buttons that answer, and a choice link (`&c=<n>`) opens on "Confirm",
// sends nothing before the tap, leads back to all choices, and says "Expired" when left too long.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { assertNoAxeViolations, freePort, launchBrowser, repoRoot } from './harness.mjs';
import { SERVICE_TOKEN, answeredThroughALink, startRelay } from './relay-harness.mjs';

const el = 'koder-mcp-elicitation';
const PHONE = { width: 360, height: 640 };

/** The directives CONTRACT §10 names for the page's policy (styles too: "from 'self' only"), each with exactly these sources. */
const PAGE_CSP = {
  'default-src': ["'none'"],
  'script-src': ["'self'", "'wasm-unsafe-eval'"],
  'style-src': ["'self'"],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

const SERVER_NAME = 'Travel desk';
const FORM = {
  message: 'Which city should the trip go to?',
  requestedSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', title: 'City' },
      nights: { type: 'integer', title: 'Nights', minimum: 1 },
    },
    required: ['city'],
  },
};

let relay;
let browser;

before(async () => {
  const port = await freePort();
  relay = await startRelay({
    listen: `127.0.0.1:${port}`,
    args: ['--answer-page', '--public-url', `http://127.0.0.1:${port}`, '--answer-page-assets', join(repoRoot, 'dist')],
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await relay?.stop();
});

const hostHeaders = { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' };

/** Creates an elicitation as a host; resolves its id. */
async function create({ request = FORM, serverName = SERVER_NAME, timeoutMs = 600_000, user = 'u_page' } = {}) {
  const response = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: hostHeaders,
    body: JSON.stringify({ scope: { userId: user, workspaceId: 'w_page' }, request, serverName, timeoutMs }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

/** The host's link for `id`: `{ url, expiresAt }`. */
async function linkFor(id) {
  const response = await fetch(`${relay.url}/v1/elicitations/${id}/link`, { method: 'POST', headers: hostHeaders });
  assert.equal(response.status, 201, await response.clone().text());
  const link = await response.json();
  assert.match(link.url, new RegExp(`^${relay.url}/answer/#t=[^&?#]+$`), 'the link is the page with the token in the fragment');
  return link;
}

/** The host's long-poll for the outcome. */
async function hostResult(id, wait = 20) {
  const response = await fetch(`${relay.url}/v1/elicitations/${id}/result?wait=${wait}`, { headers: hostHeaders });
  assert.equal(response.status, 200);
  // Every answer here comes through a link (the page): its answeredBy names it.
  return answeredThroughALink(await response.json());
}

const tokenOf = (url) => new URL(url).hash.slice('#t='.length);
const linkWithToken = (token) => `${relay.url}/answer/#t=${token}`;

/**
 * Opens `url` in a fresh context (`colorScheme`, `locale`, `viewport`) and records what went
 * wrong: console errors, uncaught errors, failed requests, HTTP errors other than the `expect`ed
 * statuses, and every CSP violation the page reports. The page gets `problems()` (all of it),
 * `requests` (every URL it asked for, with its POST body) and `linkResponses` (the relay's answers
 * to /v1/links/…).
 */
async function openLink(url, { colorScheme = 'light', locale = 'en-US', viewport = PHONE, expect = [] } = {}) {
  const context = await browser.newContext({ colorScheme, locale, viewport });
  await context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  page.on('console', (message) => {
    // HTTP errors are judged below, by status (an expected 404 logs this line too).
    if (/^Failed to load resource: the server responded with a status of/.test(message.text())) return;
    if (message.type() === 'error' || message.type() === 'warning') errors.push(`console.${message.type()}: ${message.text()} (${message.location()?.url})`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400 && !expect.includes(response.status())) errors.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  page.requests = [];
  page.on('request', (request) => page.requests.push({ url: request.url(), method: request.method(), body: request.postData() }));
  page.linkResponses = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/v1/links/')) page.linkResponses.push(response);
  });
  page.problems = async () => [...errors, ...(await page.evaluate(() => window.__violations)).map((v) => `CSP violation: ${v}`)];
  page.pageResponse = await page.goto(url);
  assert.equal(page.pageResponse.status(), 200);
  return page;
}

/** Waits for the page's outcome (`data-outcome` of its status line) and returns its text. */
async function outcome(page, name) {
  await page.waitForFunction((expected) => document.getElementById('status')?.dataset.outcome === expected, name);
  return page.locator('#status').textContent();
}

/** Waits for the question, filled in by the element. */
async function question(page) {
  await page.locator(`${el} [part~=inline]`).waitFor({ state: 'visible' });
}

/** Everything a person could read or reach on the page, the element's shadow root included. */
const visibleText = (page) => page.evaluate(() => {
  const deep = (node) => [...node.childNodes].map((child) => {
    if (child.nodeType === Node.TEXT_NODE) return child.textContent;
    if (child.nodeType !== Node.ELEMENT_NODE || child.localName === 'template' || child.hidden) return '';
    return (child.shadowRoot ? deep(child.shadowRoot) : '') + deep(child);
  }).join(' ');
  return `${document.title} ${deep(document.body)}`;
});

/** An ended question's page: its outcome, one h1, no form, and nothing of the request anywhere. */
async function assertOnlyOutcome(page, name, text) {
  assert.equal(await outcome(page, name), text);
  assert.equal(await page.locator('h1').count(), 1);
  assert.equal(await page.locator(`${el} [part~=inline]`).count(), 0, 'no question is shown');
  const shown = await visibleText(page);
  for (const secret of [FORM.message, SERVER_NAME, 'City', 'Lisbon', 'Porto']) {
    assert.ok(!shown.includes(secret), `the page shows "${secret}": ${shown}`);
  }
  // Nor does the relay hand it to the page to hide.
  for (const request of page.requests) {
    for (const secret of [FORM.message, SERVER_NAME]) assert.ok(!(request.body ?? '').includes(secret));
  }
}

async function assertNoSideScroll(page, label) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  assert.ok(scrollWidth <= clientWidth, `${label}: the page is ${scrollWidth} px wide in a ${clientWidth} px window`);
}

test('a link answers its question once: 360×640, the host reads exactly that answer, the link then says only "Already answered"', { timeout: 60_000 }, async () => {
  const id = await create();
  const link = await linkFor(id);
  const waiting = hostResult(id, 30);
  const page = await openLink(link.url);

  // The page's headers (CONTRACT §10): each directive it names, with exactly its sources.
  const headers = page.pageResponse.headers();
  const policy = Object.fromEntries(headers['content-security-policy'].split(';').map((part) => part.trim()).filter(Boolean)
    .map((part) => { const [name, ...values] = part.split(/\s+/); return [name, values.sort()]; }));
  for (const [name, values] of Object.entries(PAGE_CSP)) assert.deepEqual(policy[name], [...values].sort(), `${name} in ${headers['content-security-policy']}`);
  assert.equal(headers['referrer-policy'], 'no-referrer');
  assert.equal(headers['cache-control'], 'no-store');
  assert.equal(headers['x-content-type-options'], 'nosniff');

  await question(page);
  assert.equal(await page.locator('h1').textContent(), 'Answer a question');
  assert.equal(await page.locator(`${el} [part~=message]`).textContent(), FORM.message);
  assert.match(await page.locator(`${el} [part~=server]`).textContent(), new RegExp(SERVER_NAME));
  await assertNoSideScroll(page, '360 px, question');
  await page.locator(`${el} [data-field="city"] input`).fill('Lisbon');
  await page.locator(`${el} [data-field="nights"] input`).fill('3');
  await page.locator(`${el} button[part~=accept]`).click();
  assert.equal(await outcome(page, 'sent'), 'Sent. Thank you, you can close this page.');
  assert.equal(await page.locator('#status').getAttribute('role'), 'status');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'status', 'focus moves to the outcome');
  assert.equal(await page.locator(`${el} [part~=inline]`).count(), 0, 'the form is gone');

  assert.deepEqual(await waiting, { status: 'settled', result: { action: 'accept', content: { city: 'Lisbon', nights: 3 } } });

  // The token travelled in POST bodies only: never in a URL the page asked for.
  const token = tokenOf(link.url);
  const toRelay = page.requests.filter((request) => !request.url.startsWith('data:'));
  for (const request of toRelay) assert.ok(!request.url.includes(token), `the token is in ${request.url}`);
  assert.deepEqual(toRelay.filter((request) => request.method === 'POST').map((request) => new URL(request.url).pathname), ['/v1/links/view', '/v1/links/answer']);
  assert.deepEqual(JSON.parse(toRelay.find((request) => request.url.endsWith('/v1/links/view')).body), { token });
  assert.deepEqual(await page.problems(), [], 'no error and no CSP violation');
  await page.context().close();

  // The same link again: only the outcome.
  const again = await openLink(link.url);
  await assertOnlyOutcome(again, 'already-answered', 'Already answered');
  assert.deepEqual(await again.problems(), []);
  await again.context().close();
  assert.deepEqual(await hostResult(id, 0), { status: 'settled', result: { action: 'accept', content: { city: 'Lisbon', nights: 3 } } });
});

test('Decline is sent as a decline; Cancel sends nothing and the question can be shown again', { timeout: 60_000 }, async () => {
  const id = await create();
  const page = await openLink((await linkFor(id)).url);
  await question(page);
  await page.locator(`${el} button[part~=cancel]`).click();
  assert.match(await outcome(page, 'not-sent'), /^Not sent\./);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'show-again');
  assert.deepEqual(await hostResult(id, 0), { status: 'pending' }, 'a cancel on the page answers nothing');

  await page.keyboard.press('Enter');
  await question(page);
  assert.equal(await page.locator(`${el} [part~=message]`).textContent(), FORM.message);
  await page.locator(`${el} button[part~=reject]`).click();
  assert.equal(await outcome(page, 'declined'), 'Declined. You can close this page.');
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'decline' } });
  assert.deepEqual(await page.problems(), []);
  await page.context().close();
});

test('expired, withdrawn, unknown and forged links show their outcome and nothing of the request', { timeout: 60_000 }, async () => {
  const expiring = await create({ timeoutMs: 1_000 });
  const expiringLink = await linkFor(expiring);
  const withdrawn = await create();
  const withdrawnLink = await linkFor(withdrawn);
  const withdrawal = await fetch(`${relay.url}/v1/elicitations/${withdrawn}`, { method: 'DELETE', headers: hostHeaders });
  assert.ok(withdrawal.ok, `withdraw: ${withdrawal.status}`);
  assert.equal((await hostResult(expiring, 10)).status, 'expired');

  for (const [url, name, text] of [[expiringLink.url, 'expired', 'Expired'], [withdrawnLink.url, 'withdrawn', 'Withdrawn']]) {
    const page = await openLink(url);
    await assertOnlyOutcome(page, name, text);
    assert.deepEqual(await page.problems(), []);
    await page.context().close();
  }

  // A token never issued, and a real one with its last character changed: one identical refusal.
  const real = tokenOf(withdrawnLink.url);
  const forged = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
  const refusals = [];
  for (const token of [randomBytes(32).toString('base64url'), forged]) {
    const page = await openLink(linkWithToken(token), { expect: [404] });
    await assertOnlyOutcome(page, 'unknown', 'This link is not valid, or its question is no longer kept.');
    assert.equal(page.linkResponses.length, 1);
    const [response] = page.linkResponses;
    refusals.push({ status: response.status(), body: await response.text() });
    assert.deepEqual(await page.problems(), []);
    await page.context().close();
  }
  assert.equal(refusals[0].status, 404);
  assert.deepEqual(refusals[1], refusals[0], 'an unknown and a forged token get the same answer');

  // No token at all, or one in the query string: the page reads only the fragment.
  for (const url of [`${relay.url}/answer/`, `${relay.url}/answer/?t=${real}`]) {
    const page = await openLink(url, { expect: [404] });
    await assertOnlyOutcome(page, 'unknown', 'This link is not valid, or its question is no longer kept.');
    await page.context().close();
  }
});

test('a question that ends while its page is open: withdrawn, the answer gets "Withdrawn"; timed out, "Expired" with nothing sent', { timeout: 60_000 }, async () => {
  const withdrawn = await create();
  const page = await openLink((await linkFor(withdrawn)).url, { expect: [409] });
  await question(page);
  const withdrawal = await fetch(`${relay.url}/v1/elicitations/${withdrawn}`, { method: 'DELETE', headers: hostHeaders });
  assert.ok(withdrawal.ok, `withdraw: ${withdrawal.status}`);
  await page.locator(`${el} [data-field="city"] input`).fill('Lisbon');
  await page.locator(`${el} button[part~=accept]`).click();
  await assertOnlyOutcome(page, 'withdrawn', 'Withdrawn');
  assert.deepEqual(page.linkResponses.map((response) => response.status()), [200, 409, 200]);
  assert.deepEqual(await page.problems(), []);
  await page.context().close();
  assert.equal((await hostResult(withdrawn, 0)).status, 'withdrawn');

  const expiring = await create({ timeoutMs: 1_500 });
  const late = await openLink((await linkFor(expiring)).url);
  await question(late);
  assert.equal(await outcome(late, 'expired'), 'Expired');
  assert.equal(await late.locator(`${el} [part~=inline]`).count(), 0);
  assert.deepEqual(late.requests.filter((request) => request.method === 'POST').map((request) => new URL(request.url).pathname), ['/v1/links/view'], 'nothing was answered');
  assert.deepEqual(await late.problems(), []);
  await late.context().close();
});

test('a link reaches its own question only: A\'s page shows and answers A, B stays pending', { timeout: 60_000 }, async () => {
  const a = await create({ request: { ...FORM, message: 'Question for A' }, user: 'u_a' });
  const b = await create({ request: { ...FORM, message: 'Question for B' }, user: 'u_b' });
  const page = await openLink((await linkFor(a)).url);
  await question(page);
  assert.equal(await page.locator(`${el} [part~=message]`).textContent(), 'Question for A');
  assert.ok(!(await visibleText(page)).includes('Question for B'));
  await page.locator(`${el} [data-field="city"] input`).fill('Porto');
  await page.locator(`${el} button[part~=accept]`).click();
  await outcome(page, 'sent');
  assert.deepEqual(await hostResult(a), { status: 'settled', result: { action: 'accept', content: { city: 'Porto' } } });
  assert.deepEqual(await hostResult(b, 0), { status: 'pending' });
  await page.context().close();
});

test('axe finds nothing in light and dark (question and outcome); no sideways scroll at 320 and 360 px', { timeout: 90_000 }, async () => {
  for (const colorScheme of ['light', 'dark']) {
    const id = await create();
    const link = await linkFor(id);
    const page = await openLink(link.url, { colorScheme, viewport: { width: 320, height: 640 } });
    await question(page);
    assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), colorScheme === 'dark');
    assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme), 'light dark');
    await assertNoSideScroll(page, `320 px, ${colorScheme}`);
    await page.setViewportSize(PHONE);
    await assertNoSideScroll(page, `360 px, ${colorScheme}`);
    // The question fills the phone's width, less the page's margins.
    const card = await page.locator(`${el} [part~=inline]`).boundingBox();
    assert.ok(card.width >= PHONE.width - 32, `the question is ${card.width} px wide on a ${PHONE.width} px phone`);
    await assertNoAxeViolations(page, `question, ${colorScheme}`);
    await page.locator(`${el} [data-field="city"] input`).fill('Lisbon');
    await page.locator(`${el} button[part~=accept]`).click();
    await outcome(page, 'sent');
    await assertNoAxeViolations(page, `sent, ${colorScheme}`);
    assert.deepEqual(await page.problems(), []);
    await page.context().close();
  }
});

test('a pt-BR browser gets the page and the element in Portuguese; the relay unreachable offers "Tentar de novo"', { timeout: 60_000 }, async () => {
  const id = await create();
  const link = await linkFor(id);
  const context = await browser.newContext({ locale: 'pt-BR', viewport: PHONE });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  // The first read of the question fails as a dropped connection would.
  let views = 0;
  await page.route('**/v1/links/view', (route) => (views++ === 0 ? route.abort('internetdisconnected') : route.continue()));
  await page.goto(link.url);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'pt-BR');
  assert.equal(await outcome(page, 'unreachable'), 'Não foi possível contatar o relay. Verifique a conexão e tente de novo.');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'retry');
  assert.equal(await page.locator('#retry').textContent(), 'Tentar de novo');
  await page.keyboard.press('Enter');

  await question(page);
  assert.equal(await page.title(), 'Responder a uma pergunta');
  assert.equal(await page.locator('h1').textContent(), 'Responder a uma pergunta');
  assert.equal(await page.locator(`${el} button[part~=accept]`).textContent(), 'Enviar');
  assert.equal(await page.locator(`${el} button[part~=reject]`).textContent(), 'Recusar');
  await page.locator(`${el} [data-field="city"] input`).fill('Recife');
  await page.locator(`${el} button[part~=accept]`).click();
  assert.equal(await outcome(page, 'sent'), 'Enviado. Obrigado, você pode fechar esta página.');
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content: { city: 'Recife' } } });
  await context.close();
});

// CONTRACT §13: the page turns one-tap on, takes the token out of the address bar and the history
// as soon as it has read it, and opens an e-mail's choice link (`&c=<n>`) on a "Confirm" step.

const DEPLOY = {
  message: 'Deploy build 42 to production?',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: 'Deploy now' } }, required: ['ok'] },
};
const ENVIRONMENT = {
  message: 'Where should build 42 go?',
  requestedSchema: {
    type: 'object',
    properties: {
      env: { type: 'string', title: 'Environment', oneOf: [{ const: 'stg', title: 'Staging' }, { const: 'prd', title: 'Production' }, { const: 'dev', title: 'Dev' }] },
    },
    required: ['env'],
  },
};

/** The URLs of the page's history entries (Chromium's own list, not what the page can read). */
async function historyUrls(page) {
  const session = await page.context().newCDPSession(page);
  const { entries } = await session.send('Page.getNavigationHistory');
  await session.detach();
  return entries.map((entry) => entry.url);
}

/** The one-tap buttons of the element (CONTRACT §13's DOM), by their words. */
const choiceNames = (page) => page.locator(`${el} button[part~=choice]`).evaluateAll((buttons) => buttons.map((button) => button.textContent.trim()));

test('the token leaves the address bar and the history before the question is even read; "Show the question again" still reaches it', { timeout: 60_000 }, async () => {
  const id = await create();
  const link = await linkFor(id);
  const token = tokenOf(link.url);
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  let duringView = null;
  await page.route('**/v1/links/view', async (route) => {
    duringView ??= await page.evaluate(() => location.href);
    await route.continue();
  });
  await page.goto(link.url);
  await question(page);
  assert.equal(duringView, `${relay.url}/answer/`, 'gone while the relay is still being asked');
  assert.equal(await page.evaluate(() => location.href), `${relay.url}/answer/`);
  const urls = await historyUrls(page);
  assert.ok(urls.length >= 1 && urls.every((url) => !url.includes(token)), `history: ${urls.join(', ')}`);

  // Put aside, then shown again: the token was kept in memory.
  await page.locator(`${el} button[part~=cancel]`).click();
  await outcome(page, 'not-sent');
  await page.locator('#show-again').click();
  await question(page);
  await page.locator(`${el} [data-field="city"] input`).fill('Braga');
  await page.locator(`${el} button[part~=accept]`).click();
  await outcome(page, 'sent');
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content: { city: 'Braga' } } });
  assert.ok(!(await page.evaluate(() => location.href)).includes(token));
  await context.close();
});

test('a one-tap question shows as buttons and one tap answers: a boolean\'s "No", a select\'s "Production"', { timeout: 60_000 }, async () => {
  for (const [request, names, tap, content] of [
    [DEPLOY, ['Yes', 'No', 'Reject'], 'No', { ok: false }],
    [ENVIRONMENT, ['Staging', 'Production', 'Dev', 'Reject'], 'Production', { env: 'prd' }],
  ]) {
    const id = await create({ request });
    const page = await openLink((await linkFor(id)).url);
    await question(page);
    assert.deepEqual(await choiceNames(page), names);
    const [property] = Object.values(request.requestedSchema.properties);
    assert.equal(await page.getByRole('group', { name: property.title }).isVisible(), true, 'the buttons are named by the question');
    assert.equal(await page.getByRole('button', { name: 'Submit' }).count(), 0, 'no Submit: one tap answers');
    await page.getByRole('button', { name: tap, exact: true }).click();
    assert.equal(await outcome(page, 'sent'), 'Sent. Thank you, you can close this page.');
    assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'accept', content } });
    assert.deepEqual(await page.problems(), []);
    await page.context().close();
  }
});

test('a choice link opens on "Confirm" and sends nothing until the tap; "Show all choices" leads back to every button; a bad or useless c shows the question as usual', { timeout: 90_000 }, async () => {
  // The confirm step: the question, the chosen answer's words, one "Confirm"; nothing sent.
  const id = await create({ request: ENVIRONMENT });
  const link = (await linkFor(id)).url;
  const page = await openLink(`${link}&c=2`);
  const confirm = page.getByRole('button', { name: 'Confirm', exact: true });
  await confirm.waitFor();
  assert.equal(await page.locator('#confirm-message').textContent(), ENVIRONMENT.message);
  assert.equal(await page.locator('#confirm-question').textContent(), 'Environment');
  assert.equal(await page.locator('#confirm-answer').textContent(), 'Dev');
  assert.match(await page.locator('#confirm-from').textContent(), /^From Travel desk$/);
  assert.equal(await page.locator(`${el} [part~=inline]`).count(), 0, 'not the element: one answer, confirmed');
  assert.notEqual(await page.evaluate(() => document.activeElement?.id), 'confirm-button', 'never focused on Confirm');
  assert.equal(await page.evaluate(() => location.href), `${relay.url}/answer/`, 'the choice left the address bar too');
  assert.deepEqual(await hostResult(id, 0), { status: 'pending' });

  // Back to all of them: the element's buttons; a tap there answers.
  await page.getByRole('button', { name: 'Show all choices' }).click();
  await question(page);
  assert.equal(await page.locator('#confirm').isHidden(), true);
  assert.deepEqual(await choiceNames(page), ['Staging', 'Production', 'Dev', 'Reject']);
  assert.deepEqual(page.requests.filter((request) => request.method === 'POST').map((request) => new URL(request.url).pathname), ['/v1/links/view', '/v1/links/view'], 'read twice, nothing answered');
  await page.getByRole('button', { name: 'Reject', exact: true }).click();
  assert.equal(await outcome(page, 'declined'), 'Declined. You can close this page.');
  assert.deepEqual(await hostResult(id), { status: 'settled', result: { action: 'decline' } });
  assert.deepEqual(await page.problems(), []);
  await page.context().close();

  // c out of range, or not a number: every choice, no confirm step.
  const another = await create({ request: DEPLOY });
  const anotherLink = (await linkFor(another)).url;
  for (const c of ['3', '99', '-1', 'x', '1e0', '']) {
    const shown = await openLink(`${anotherLink}&c=${c}`);
    await question(shown);
    assert.deepEqual(await choiceNames(shown), ['Yes', 'No', 'Reject'], `c=${c}`);
    assert.equal(await shown.locator('#confirm').isHidden(), true, `c=${c}`);
    await shown.context().close();
  }
  // A question that is not one-tap: its form, whatever c says.
  const form = await create();
  const formPage = await openLink(`${(await linkFor(form)).url}&c=0`);
  await question(formPage);
  assert.equal(await formPage.locator('#confirm').isHidden(), true);
  assert.equal(await formPage.locator(`${el} [data-field="city"] input`).count(), 1);
  await formPage.context().close();
  assert.deepEqual(await hostResult(another, 0), { status: 'pending' });
  assert.deepEqual(await hostResult(form, 0), { status: 'pending' });
});

test('a confirm step left open until its question runs out says "Expired" and has sent nothing', { timeout: 60_000 }, async () => {
  const id = await create({ request: DEPLOY, timeoutMs: 2_000 });
  const page = await openLink(`${(await linkFor(id)).url}&c=0`);
  await page.getByRole('button', { name: 'Confirm', exact: true }).waitFor();
  assert.equal(await outcome(page, 'expired'), 'Expired');
  assert.equal(await page.locator('#confirm').isHidden(), true, 'no Confirm left to tap');
  assert.deepEqual(page.requests.filter((request) => request.method === 'POST').map((request) => new URL(request.url).pathname), ['/v1/links/view']);
  assert.equal((await hostResult(id, 10)).status, 'expired');
  assert.deepEqual(await page.problems(), []);
  await page.context().close();
});
