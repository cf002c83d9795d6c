// One tap and "remember" in the element (issue 52, CONTRACT §13) in Chromium: with the `one-tap`
// attribute, a request with no properties, one boolean, or one select of 2-4 options shows as
// buttons in a group named by the question, each settling at once; Cancel and Esc stay; first
// focus is never on a button that accepts; the keyboard and axe find it complete; pt-BR and es
// word it. Without the attribute the form of §4 is unchanged. A request whose `_meta.persist`
// offers scopes gets one accept per scope offered (no properties) or a "Remember" control (any
// other shape, and forms), and the chosen scope returns in `_meta.persist` of the promise's result,
// the event's `detail.result` and `detail.reply`, and `elicitInputs`' answers; a one-time accept
// carries none.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertNoAxeViolations, launchBrowser, startServer } from './harness.mjs';
import { HOST, activeDescription, elicit, openA11yPage, registerSpanish } from './a11y-fixtures.mjs';

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const schema = (properties) => ({ type: 'object', properties });
const DEPLOY = schema({ deploy: { type: 'boolean', title: 'Deploy to production now?' } });
const REGION = schema({
  region: {
    type: 'string',
    description: 'Which region first?',
    oneOf: [
      { const: 'eu', title: 'Europe' },
      { const: 'us', title: 'Americas' },
      { const: 'ap', title: 'Asia Pacific' },
    ],
  },
});
const NOTHING = schema({});

/** A JSON-RPC request (id 7) for `requestedSchema`, with `_meta` when given. */
const rpc = (requestedSchema, meta) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'elicitation/create',
  params: { message: 'The release pipeline is waiting.', requestedSchema, ...(meta ? { _meta: meta } : {}) },
});

/** The a11y page with `one-tap` on (unless `oneTap: false`) and every event's detail recorded. */
async function openOneTap(contextOrBrowser = browser, { oneTap = true, lang, inline = false } = {}) {
  const page = await openA11yPage(contextOrBrowser, server.url, { lang });
  await page.evaluate(([oneTap, inline]) => {
    const el = document.querySelector('koder-mcp-elicitation');
    el.oneTap = oneTap;
    if (inline) el.setAttribute('presentation', 'inline');
    window.__events = [];
    for (const name of ['accept', 'reject', 'cancel', 'timeout']) {
      el.addEventListener(name, (event) => window.__events.push({ name, detail: event.detail }));
    }
  }, [oneTap, inline]);
  return page;
}

/** Elicits inline (nothing modal to wait for): resolves once the card shows. */
async function elicitInline(page, request) {
  await page.evaluate((request) => {
    document.getElementById('opener').focus();
    const el = document.querySelector('koder-mcp-elicitation');
    el.elicit(request).then((result) => window.__results.push(result));
  }, request);
  await page.locator(`${HOST} [part~=inline]`).waitFor();
}

const settled = async (page) => {
  await page.waitForFunction(() => window.__results.length > 0 && window.__events.length > 0);
  return page.evaluate(() => ({ result: window.__results[0], event: window.__events[0] }));
};

/** The accessible names of the buttons in the group named `question`, in order. */
const choiceNames = (page, question) =>
  page.getByRole('group', { name: question }).getByRole('button').allInnerTexts();

test('the attribute reflects as oneTap, like the other boolean attributes', { timeout: 60_000 }, async () => {
  const page = await openOneTap(browser, { oneTap: false });
  const seen = await page.evaluate(() => {
    const el = document.querySelector('koder-mcp-elicitation');
    const before = [el.oneTap, el.hasAttribute('one-tap')];
    el.oneTap = true;
    const on = [el.oneTap, el.getAttribute('one-tap')];
    el.removeAttribute('one-tap');
    return { before, on, after: el.oneTap };
  });
  assert.deepEqual(seen, { before: [false, false], on: [true, ''], after: false });
  page.assertNoErrors();
  await page.close();
});

test('a boolean: Yes / No / Reject in a group named by the question; No settles { deploy: false } at once', { timeout: 60_000 }, async () => {
  const page = await openOneTap();
  await elicit(page, rpc(DEPLOY));
  const dialog = page.locator(`${HOST} dialog[open]`);
  assert.deepEqual(await choiceNames(page, 'Deploy to production now?'), ['Yes', 'No', 'Reject']);
  // The dialog still says who asks and why; the form's switch and Submit are not there.
  assert.match(await dialog.locator('[part~=server]').innerText(), /Weather Server/);
  assert.equal(await dialog.locator('[part~=message]').innerText(), 'The release pipeline is waiting.');
  assert.equal(await dialog.locator('input, button[part~=accept]').count(), 0);
  assert.equal(await dialog.getByRole('button', { name: 'Cancel' }).count(), 1);
  // The contract's DOM: choices numbered in order, Reject also part reject.
  const parts = await dialog.locator('button[part~=choice]').evaluateAll((buttons) =>
    buttons.map((b) => `${b.getAttribute('part')}#${b.dataset.choice}`));
  assert.deepEqual(parts, ['choice#0', 'choice#1', 'choice reject#2']);
  await dialog.getByRole('button', { name: 'No', exact: true }).click();
  const { result, event } = await settled(page);
  assert.deepEqual(result, { action: 'accept', content: { deploy: false } });
  assert.equal(event.name, 'accept');
  assert.deepEqual(event.detail.result, result);
  assert.deepEqual(event.detail.reply, { jsonrpc: '2.0', id: 7, result });
  assert.equal(await page.locator(`${HOST} dialog[open]`).count(), 0);
  page.assertNoErrors();
  await page.close();
});

test('no properties: Accept / Reject; Reject declines with a reject event, Accept settles { content: {} }', { timeout: 60_000 }, async () => {
  const page = await openOneTap();
  await elicit(page, rpc(NOTHING));
  assert.deepEqual(await choiceNames(page, 'The release pipeline is waiting.'), ['Accept', 'Reject']);
  await page.locator(`${HOST} dialog[open]`).getByRole('button', { name: 'Reject' }).click();
  const { result, event } = await settled(page);
  assert.deepEqual(result, { action: 'decline' });
  assert.equal(event.name, 'reject');
  assert.deepEqual(event.detail.reply, { jsonrpc: '2.0', id: 7, result: { action: 'decline' } });

  await page.evaluate(() => { window.__results = []; window.__events = []; });
  await elicit(page, { message: 'Run the migration?', requestedSchema: NOTHING });
  await page.locator(`${HOST} dialog[open]`).getByRole('button', { name: 'Accept' }).click();
  const accepted = await settled(page);
  assert.deepEqual(accepted.result, { action: 'accept', content: {} });
  assert.deepEqual(accepted.event.detail.reply, { action: 'accept', content: {} }, 'bare params: the reply is the result');
  page.assertNoErrors();
  await page.close();
});

test('a select of 2-4: one button per option by its title, then Reject; one of 5 shows the form', { timeout: 60_000 }, async () => {
  const page = await openOneTap();
  await elicit(page, rpc(REGION));
  assert.deepEqual(await choiceNames(page, 'Which region first?'), ['Europe', 'Americas', 'Asia Pacific', 'Reject']);
  await page.locator(`${HOST} dialog[open]`).getByRole('button', { name: 'Asia Pacific' }).click();
  const { result } = await settled(page);
  assert.deepEqual(result, { action: 'accept', content: { region: 'ap' } });

  await page.evaluate(() => { window.__results = []; window.__events = []; });
  const five = schema({ size: { type: 'string', title: 'Size', enum: ['xs', 's', 'm', 'l', 'xl'] } });
  await elicit(page, rpc(five));
  const dialog = page.locator(`${HOST} dialog[open]`);
  assert.equal(await dialog.locator('[part~=choice]').count(), 0);
  assert.equal(await dialog.locator('[role=radiogroup] input[type=radio]').count(), 5);
  assert.equal(await dialog.locator('button[part~=accept]').innerText(), 'Submit');
  page.assertNoErrors();
  await page.close();
});

test('without one-tap a single boolean is still the switch and Submit', { timeout: 60_000 }, async () => {
  const page = await openOneTap(browser, { oneTap: false });
  await elicit(page, rpc(DEPLOY));
  const dialog = page.locator(`${HOST} dialog[open]`);
  assert.equal(await dialog.locator('input[type=checkbox][role=switch]').count(), 1);
  assert.equal(await dialog.locator('button[part~=accept]').innerText(), 'Submit');
  assert.equal(await dialog.locator('[part~=choice], [part~=choices]').count(), 0);
  await dialog.locator('input[role=switch]').check();
  await dialog.locator('button[part~=accept]').click();
  const { result } = await settled(page);
  assert.deepEqual(result, { action: 'accept', content: { deploy: true } });
  page.assertNoErrors();
  await page.close();
});

test('keyboard: first focus on the question, Tab walks Yes, No, Reject, Cancel and wraps; Space and Enter answer', { timeout: 60_000 }, async () => {
  const page = await openOneTap();
  await elicit(page, rpc(DEPLOY));
  assert.equal(await activeDescription(page), 'fieldset[part=choices]', 'first focus is the question, not a button that accepts');
  const stops = [];
  for (let i = 0; i < 5; i += 1) {
    await page.keyboard.press('Tab');
    stops.push(await activeDescription(page));
  }
  assert.deepEqual(stops, [
    'button[part=choice]', 'button[part=choice]', 'button[part=choice reject]', 'button[part=cancel]', 'button[part=choice]',
  ]);
  const focusedText = () => page.evaluate(() => document.activeElement.shadowRoot.activeElement.textContent);
  assert.equal(await focusedText(), 'Yes', 'Tab from Cancel wraps to the first answer');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focusedText(), 'Cancel');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await focusedText(), 'No');
  await page.keyboard.press('Space');
  assert.deepEqual((await settled(page)).result, { action: 'accept', content: { deploy: false } });
  assert.equal(await activeDescription(page), 'button#opener', 'focus returns to the opener');

  await page.evaluate(() => { window.__results = []; window.__events = []; });
  await elicit(page, rpc(DEPLOY));
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  assert.deepEqual((await settled(page)).result, { action: 'accept', content: { deploy: true } });

  await page.evaluate(() => { window.__results = []; window.__events = []; });
  await elicit(page, rpc(DEPLOY));
  await page.keyboard.press('Escape');
  const { result, event } = await settled(page);
  assert.deepEqual(result, { action: 'cancel' });
  assert.equal(event.name, 'cancel');
  assert.equal(event.detail.source, 'user');
  page.assertNoErrors();
  await page.close();
});

test('axe: the buttons, the scope buttons and the Remember control, modal and inline', { timeout: 90_000 }, async () => {
  for (const inline of [false, true]) {
    const context = await browser.newContext();
    const page = await openOneTap(context, { inline });
    const ask = inline ? elicitInline : elicit;
    await ask(page, rpc(DEPLOY, { persist: ['session', 'always'] }));
    await assertNoAxeViolations(page, `${inline ? 'inline' : 'modal'} boolean with Remember`);
    await page.locator(`${HOST} [part~=choice][part~=reject]`).click();
    await page.waitForFunction(() => window.__results.length === 1);
    await ask(page, rpc(NOTHING, { persist: 'session' }));
    await assertNoAxeViolations(page, `${inline ? 'inline' : 'modal'} no properties with a scope`);
    if (inline) {
      // The inline card takes no focus on arrival.
      assert.equal(await activeDescription(page), 'button#opener');
      await page.locator(`${HOST} [part~=choice]`).first().click();
      await page.locator(`${HOST} [part~=summary]`).last().waitFor();
      await assertNoAxeViolations(page, 'inline summary of a one-tap answer');
    }
    page.assertNoErrors();
    await context.close();
  }
});

test('inline: the summary of a one-tap answer reads the question and the answer', { timeout: 60_000 }, async () => {
  const page = await openOneTap(browser, { inline: true });
  const summaryOf = async (request, answer) => {
    await elicitInline(page, request);
    await page.locator(HOST).getByRole('button', { name: answer, exact: true }).click();
    const summary = page.locator(`${HOST} [part~=summary]`).last();
    await summary.waitFor();
    return summary.locator('[part~=summary-outcome], [part~=summary-label], [part~=summary-value]').allInnerTexts();
  };
  assert.deepEqual(await summaryOf(rpc(DEPLOY), 'No'), ['Submitted', 'Deploy to production now?', 'no']);
  const titled = schema({ region: { ...REGION.properties.region, title: 'Region' } });
  assert.deepEqual(await summaryOf(rpc(titled), 'Americas'), ['Submitted', 'Region', 'Americas']);
  assert.deepEqual(await summaryOf(rpc(NOTHING), 'Reject'), ['Declined']);
  page.assertNoErrors();
  await page.close();
});

test('remember, no properties: only the offered scopes, the chosen one in _meta.persist of result, event and reply', { timeout: 60_000 }, async () => {
  const page = await openOneTap();
  await elicit(page, rpc(NOTHING, { persist: ['always', 'session'], codex_approval_kind: 'exec' }));
  const question = 'The release pipeline is waiting.';
  assert.deepEqual(await choiceNames(page, question), ['Accept', 'Allow for this session', 'Always allow', 'Reject']);
  const persistParts = await page.locator(`${HOST} button[part~=persist]`).evaluateAll((buttons) =>
    buttons.map((b) => `${b.getAttribute('part')}:${b.dataset.persist}`));
  assert.deepEqual(persistParts, ['choice persist:session', 'choice persist:always']);
  await page.getByRole('button', { name: 'Always allow' }).click();
  const { result, event } = await settled(page);
  const remembered = { action: 'accept', content: {}, _meta: { persist: 'always' } };
  assert.deepEqual(result, remembered);
  assert.equal(event.name, 'accept');
  assert.deepEqual(event.detail.result, remembered);
  assert.deepEqual(event.detail.reply, { jsonrpc: '2.0', id: 7, result: remembered });

  // Only "session" offered: only its button; the one-time Accept carries no _meta.
  await page.evaluate(() => { window.__results = []; window.__events = []; });
  await elicit(page, rpc(NOTHING, { persist: 'session' }));
  assert.deepEqual(await choiceNames(page, question), ['Accept', 'Allow for this session', 'Reject']);
  await page.getByRole('button', { name: 'Accept', exact: true }).click();
  const once = await settled(page);
  assert.deepEqual(once.result, { action: 'accept', content: {} });
  assert.deepEqual(once.event.detail.reply, { jsonrpc: '2.0', id: 7, result: { action: 'accept', content: {} } });

  // Nothing offered (or not a scope): no scope button.
  await page.evaluate(() => { window.__results = []; window.__events = []; });
  await elicit(page, rpc(NOTHING, { persist: 'forever' }));
  assert.deepEqual(await choiceNames(page, question), ['Accept', 'Reject']);
  assert.equal(await page.locator(`${HOST} [part~=remember]`).count(), 0);
  page.assertNoErrors();
  await page.close();
});

test('remember, a boolean: a Remember control over the buttons; its scope travels with Yes, a Koder envelope reply carries it', { timeout: 60_000 }, async () => {
  const page = await openOneTap();
  const envelope = {
    type: 'elicitation/request', id: 'e-1', title: 'Tool approval', description: 'Run `rm -rf build`?',
    schema: DEPLOY, _meta: { persist: ['session'] },
  };
  await elicit(page, envelope);
  const remember = page.getByRole('combobox', { name: 'Remember' });
  assert.deepEqual(await remember.locator('option').allInnerTexts(), ['Only this time', 'For this session']);
  assert.equal(await remember.inputValue(), '', 'only this time by default');
  assert.equal(await activeDescription(page), 'select[part=remember]', 'first focus: the Remember control');
  assert.deepEqual(await choiceNames(page, 'Deploy to production now?'), ['Yes', 'No', 'Reject']);
  await remember.selectOption('session');
  await page.getByRole('button', { name: 'Yes' }).click();
  const { result, event } = await settled(page);
  const remembered = { action: 'accept', content: { deploy: true }, _meta: { persist: 'session' } };
  assert.deepEqual(result, remembered);
  assert.deepEqual(event.detail.reply, {
    type: 'elicitation/accept', id: 'e-1', content: { deploy: true }, _meta: { persist: 'session' },
  });

  // Left at "Only this time": no _meta.
  await page.evaluate(() => { window.__results = []; window.__events = []; });
  await elicit(page, { ...envelope, id: 'e-2' });
  await page.getByRole('button', { name: 'No', exact: true }).click();
  const once = await settled(page);
  assert.deepEqual(once.result, { action: 'accept', content: { deploy: false } });
  assert.deepEqual(once.event.detail.reply, { type: 'elicitation/accept', id: 'e-2', content: { deploy: false } });
  page.assertNoErrors();
  await page.close();
});

test('remember, a form: "Remember" beside Submit, chosen by keyboard, and _meta.persist in elicitInputs\' answer', { timeout: 60_000 }, async () => {
  const page = await openOneTap();
  const form = schema({
    command: { type: 'string', title: 'Command', default: 'make test' },
    cwd: { type: 'string', title: 'Directory' },
  });
  await elicit(page, rpc(form, { persist: ['session', 'always'] }));
  const footer = page.locator(`${HOST} dialog[open] footer`);
  const order = await footer.locator('button, select').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('part')));
  assert.deepEqual(order, ['cancel', 'reject', 'remember', 'accept'], 'Remember sits beside Submit');
  const remember = page.getByRole('combobox', { name: 'Remember' });
  assert.deepEqual(await remember.locator('option').allInnerTexts(), ['Only this time', 'For this session', 'Always']);
  await remember.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await remember.inputValue(), 'always');
  await page.keyboard.press('Enter');
  const { result, event } = await settled(page);
  const remembered = { action: 'accept', content: { command: 'make test' }, _meta: { persist: 'always' } };
  assert.deepEqual(result, remembered);
  assert.deepEqual(event.detail.reply, { jsonrpc: '2.0', id: 7, result: remembered });

  // Without one-tap too, and without an offer there is no control.
  await page.evaluate(() => { window.__results = []; document.querySelector('koder-mcp-elicitation').oneTap = false; });
  await elicit(page, rpc(form));
  assert.equal(await page.locator(`${HOST} [part~=remember]`).count(), 0);
  await page.locator(`${HOST} button[part~=cancel]`).click();

  // MCP 2026-07-28: each inputResponses entry is the element's result, _meta included.
  const answers = page.evaluate(() => document.querySelector('koder-mcp-elicitation').elicitInputs({
    inputRequests: {
      approve: { method: 'elicitation/create', params: { message: 'Allow the tool?', requestedSchema: { type: 'object', properties: {} }, _meta: { persist: 'session' } } },
    },
  }));
  await page.locator(`${HOST} dialog[open]`).waitFor();
  await page.locator(`${HOST} [part~=remember]`).selectOption('session');
  await page.locator(`${HOST} button[part~=accept]`).click();
  assert.deepEqual(await answers, { approve: { action: 'accept', content: {}, _meta: { persist: 'session' } } });
  page.assertNoErrors();
  await page.close();
});

for (const [lang, words] of [
  ['pt-BR', { yes: 'Sim', no: 'Não', reject: 'Recusar', accept: 'Aceitar', session: 'Permitir nesta sessão', always: 'Sempre permitir', remember: 'Lembrar', once: 'Só desta vez', rememberAlways: 'Sempre', cancel: 'Cancelar' }],
  ['es', { yes: 'Sí', no: 'No', reject: 'Rechazar', accept: 'Aceptar', session: 'Permitir en esta sesión', always: 'Permitir siempre', remember: 'Recordar', once: 'Solo esta vez', rememberAlways: 'Siempre', cancel: 'Cancelar' }],
]) {
  test(`${lang}: the buttons, the scopes and Remember in ${lang}`, { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ locale: lang });
    const page = await openOneTap(context, { lang });
    if (lang === 'es') await registerSpanish(page);
    await elicit(page, rpc(DEPLOY, { persist: 'always' }));
    assert.deepEqual(await choiceNames(page, 'Deploy to production now?'), [words.yes, words.no, words.reject]);
    const remember = page.getByRole('combobox', { name: words.remember });
    assert.deepEqual(await remember.locator('option').allInnerTexts(), [words.once, words.rememberAlways]);
    assert.equal(await page.locator(`${HOST} button[part~=cancel]`).innerText(), words.cancel);
    await page.getByRole('button', { name: words.no, exact: true }).click();
    assert.deepEqual((await settled(page)).result, { action: 'accept', content: { deploy: false } });

    await elicit(page, rpc(NOTHING, { persist: ['session', 'always'] }));
    assert.deepEqual(
      await choiceNames(page, 'The release pipeline is waiting.'),
      [words.accept, words.session, words.always, words.reject],
    );
    page.assertNoErrors();
    await context.close();
  });
}
