// Right-to-left languages (issue 33, CONTRACT §8): in an Arabic page the dialog runs right to
// left once Arabic is registered and left to right (in English) until then; its layout and focus
// order mirror; each server string takes its own direction and cannot reorder the dialog's own
// words; a registered Arabic plurals by all six CLDR categories. axe reports nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import AxeBuilderModule from '@axe-core/playwright';
import { launchBrowser, openPage, startServer, whenDefined } from './harness.mjs';
import { EVERY_CONTROL, HOST, activeDescription, elicit } from './a11y-fixtures.mjs';

const AxeBuilder = AxeBuilderModule.AxeBuilder ?? AxeBuilderModule.default ?? AxeBuilderModule;
const PAGE = '/tests/e2e/pages/rtl.html';

/** Arabic for the dialog's own words, with the length messages in all six plural forms. */
const ARABIC = `
mcp-elicitation-action-accept = إرسال
mcp-elicitation-action-reject = رفض
mcp-elicitation-action-cancel = إلغاء
mcp-elicitation-server-from = من { $server }
mcp-elicitation-title-default = معلومات مطلوبة
mcp-elicitation-required-legend = الحقول المعلَّمة بـ * مطلوبة.
mcp-elicitation-reason-label = سبب الرفض (اختياري)
mcp-elicitation-error-max_length = { $limit ->
    [zero] لا يُسمح بأي حرف
    [one] حرف واحد على الأكثر
    [two] حرفان على الأكثر
    [few] { $limit } أحرف على الأكثر
    [many] { $limit } حرفًا على الأكثر
   *[other] { $limit } حرف على الأكثر
}
`;

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

/** The RTL page, its element defined, with Arabic registered when `arabic` is true. */
async function openRtlPage({ arabic, viewport = { width: 900, height: 2000 } }) {
  const context = await browser.newContext({ viewport, locale: 'ar' });
  const page = await openPage(context, `${server.url}${PAGE}`);
  await whenDefined(page);
  await page.evaluate(async ([arabic, messages]) => {
    window.__results = [];
    if (!arabic) return;
    const { ready, registerTranslation } = await import('/dist/koder-mcp-elicitation.js');
    await ready;
    registerTranslation('ar', messages);
  }, [arabic, ARABIC]);
  return { context, page };
}

/** Where the dialog's pieces are and which way they run. */
const layout = (page) =>
  page.evaluate((host) => {
    const root = document.querySelector(host).shadowRoot;
    const dialog = root.querySelector('dialog[open]');
    const box = (element) => {
      const { left, right } = element.getBoundingClientRect();
      return { left: Math.round(left), right: Math.round(right) };
    };
    const field = root.querySelector('[data-field="city"]');
    return {
      dialog: { dir: getComputedStyle(dialog).direction, ...box(dialog) },
      pageDir: document.documentElement.dir,
      accept: root.querySelector('button[part~=accept]').textContent,
      buttons: ['cancel', 'reject', 'accept'].map((part) => box(root.querySelector(`button[part~=${part}]`))),
      field: box(field),
      title: box(field.querySelector('label bdi')),
      textAlign: getComputedStyle(field.querySelector('label')).textAlign,
      legend: box(root.querySelector('.legend')),
    };
  }, HOST);

test('an Arabic page with Arabic registered: a right-to-left dialog, mirrored, labels at the start, axe clean', { timeout: 90_000 }, async () => {
  const { context, page } = await openRtlPage({ arabic: true });
  await elicit(page, EVERY_CONTROL);
  const seen = await layout(page);
  assert.equal(seen.dialog.dir, 'rtl');
  assert.equal(seen.pageDir, 'rtl', "the page's own dir is untouched");
  assert.equal(seen.accept, 'إرسال');
  // Cancel, Reject, Submit run from right to left, Submit nearest the left edge.
  const [cancel, reject, accept] = seen.buttons;
  assert.ok(cancel.left > reject.left && reject.left > accept.left, JSON.stringify(seen.buttons));
  assert.ok(accept.left - seen.dialog.left < seen.dialog.right - accept.right, `Submit at the left: ${JSON.stringify(seen)}`);
  // Labels and the required note start at the right.
  assert.equal(seen.textAlign, 'start');
  assert.ok(Math.abs(seen.field.right - seen.title.right) <= 1, `label at the start: ${JSON.stringify(seen)}`);
  // The focus order follows the visual order: Tab from Cancel goes leftwards to Reject, then Submit.
  await page.locator(`${HOST} button[part~=cancel]`).focus();
  await page.keyboard.press('Tab');
  assert.equal(await activeDescription(page), 'button[part=reject]');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await activeDescription(page), 'button[part=cancel]');

  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  assert.deepEqual(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`), []);
  page.assertNoErrors();
  await context.close();
});

test('the switch, segmented control and tags mirror in a right-to-left dialog', { timeout: 60_000 }, async () => {
  const { context, page } = await openRtlPage({ arabic: true });
  await elicit(page, EVERY_CONTROL);
  const seen = await page.evaluate((host) => {
    const root = document.querySelector(host).shadowRoot;
    const rect = (element) => element.getBoundingClientRect();
    const toggle = root.querySelector('[data-field="alerts"] input[role=switch]');
    const knob = getComputedStyle(toggle, '::before');
    const segments = [...root.querySelectorAll('[data-field="unit"] .segmented label')].map(rect);
    const chip = root.querySelector('[data-field="labels"] li');
    const first = getComputedStyle(root.querySelector('[data-field="unit"] .segmented label'));
    return {
      // On (the default): the knob moved toward the end, which is the left.
      knobTransform: knob.transform,
      segmentsRightToLeft: segments[0].left > segments[1].left,
      firstSegmentRounded: [first.borderTopRightRadius, first.borderTopLeftRadius],
      removeLeftOfTag: rect(chip.querySelector('button')).right <= rect(chip.querySelector('span')).left + 1,
      chipPadding: [getComputedStyle(chip).paddingRight, getComputedStyle(chip).paddingLeft],
    };
  }, HOST);
  assert.match(seen.knobTransform, /^matrix\(1, 0, 0, 1, -\d+(\.\d+)?, 0\)$/, 'the knob slides left when on');
  assert.equal(seen.segmentsRightToLeft, true);
  assert.deepEqual(seen.firstSegmentRounded, ['8px', '0px'], 'the first segment is rounded on the right');
  assert.equal(seen.removeLeftOfTag, true, "a tag's remove button is on its left");
  assert.deepEqual(seen.chipPadding, ['10px', '4px']);
  page.assertNoErrors();
  await context.close();
});

test('the same page without Arabic registered: a left-to-right dialog in English', { timeout: 60_000 }, async () => {
  const { context, page } = await openRtlPage({ arabic: false });
  await elicit(page, EVERY_CONTROL);
  const seen = await layout(page);
  assert.equal(seen.dialog.dir, 'ltr');
  assert.equal(seen.accept, 'Submit');
  const [cancel, reject, accept] = seen.buttons;
  assert.ok(cancel.left < reject.left && reject.left < accept.left, JSON.stringify(seen.buttons));
  assert.ok(Math.abs(seen.field.left - seen.title.left) <= 1, `label at the left: ${JSON.stringify(seen)}`);
  // "Fields marked * are required." keeps its period at the end (the right).
  const legend = await page.evaluate((host) => {
    const note = document.querySelector(host).shadowRoot.querySelector('.legend');
    const range = document.createRange();
    const text = note.firstChild;
    range.setStart(text, text.length - 1);
    range.setEnd(text, text.length);
    const period = range.getBoundingClientRect();
    range.setStart(text, 0);
    range.setEnd(text, 1);
    return { text: note.textContent, periodRight: period.left > range.getBoundingClientRect().left };
  }, HOST);
  assert.deepEqual(legend, { text: 'Fields marked * are required.', periodRight: true });
  page.assertNoErrors();
  await context.close();
});

test('a Hebrew message and title in an English dialog each run right to left', { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await openPage(context, `${server.url}/tests/e2e/pages/a11y.html`);
  await whenDefined(page);
  await page.evaluate(() => { window.__results = []; });
  await elicit(page, {
    type: 'elicitation/request', id: 'he', title: 'פרטי משלוח', description: 'נא למלא את הכתובת.',
    schema: { type: 'object', properties: { street: { type: 'string', title: 'רחוב' } }, required: ['street'] },
  });
  const seen = await page.evaluate((host) => {
    const root = document.querySelector(host).shadowRoot;
    const dir = (selector) => getComputedStyle(root.querySelector(selector)).direction;
    return {
      dialog: dir('dialog'),
      title: dir('[part~=title]'),
      message: dir('[part~=message]'),
      fieldTitle: dir('[data-field="street"] label bdi'),
      label: root.querySelector('[data-field="street"] label').textContent,
    };
  }, HOST);
  assert.deepEqual(seen, { dialog: 'ltr', title: 'rtl', message: 'rtl', fieldTitle: 'rtl', label: 'רחוב *' });
  page.assertNoErrors();
  await context.close();
});

test("a server name and message carrying U+202E leave the dialog's own strings in their order", { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await openPage(context, `${server.url}/tests/e2e/pages/a11y.html`);
  await whenDefined(page);
  await page.evaluate(async () => {
    window.__results = [];
    const el = document.querySelector('koder-mcp-elicitation');
    el.setAttribute('server-name', '\u202EAcme');
    // A language whose "From" line goes on after the server's name: an override leaking out of
    // the name would turn "asks" around.
    const { ready, registerTranslation } = await import('/dist/koder-mcp-elicitation.js');
    await ready;
    registerTranslation('en-GB', { 'mcp-elicitation-server-from': '{ $server } asks' });
    el.setAttribute('lang', 'en-GB');
  });
  await elicit(page, {
    message: 'Pay \u202E0001$ to',
    requestedSchema: { type: 'object', properties: { city: { type: 'string', title: '\u2067City' } }, required: ['city'] },
  });
  const seen = await page.evaluate((host) => {
    const root = document.querySelector(host).shadowRoot;
    /** Left edges of each character of `word` in the text of `element` (outside the server's string). */
    const lefts = (element, word) => {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement.closest('bdi')) continue;
        const at = node.textContent.indexOf(word);
        if (at < 0) continue;
        return [...word].map((_, i) => {
          const range = document.createRange();
          range.setStart(node, at + i);
          range.setEnd(node, at + i + 1);
          return Math.round(range.getBoundingClientRect().left);
        });
      }
      return null;
    };
    const increasing = (xs) => Array.isArray(xs) && xs.every((x, i) => i === 0 || x > xs[i - 1]);
    const left = (selector) => root.querySelector(selector).getBoundingClientRect().left;
    const right = (selector) => root.querySelector(selector).getBoundingClientRect().right;
    return {
      server: root.querySelector('[part~=server]').textContent,
      asksInOrder: increasing(lefts(root.querySelector('[part~=server]'), 'asks')),
      legendInOrder: increasing(lefts(root.querySelector('.legend'), 'Fields')),
      starAfterTitle: left('[data-field="city"] .required') >= right('[data-field="city"] label bdi') - 0.5,
      buttonsInOrder: left('button[part~=cancel]') < left('button[part~=reject]') && left('button[part~=reject]') < left('button[part~=accept]'),
      buttons: ['cancel', 'reject', 'accept'].map((part) => root.querySelector(`button[part~=${part}]`).textContent),
    };
  }, HOST);
  assert.deepEqual(seen, {
    server: '\u202EAcme\u202C asks',
    asksInOrder: true,
    legendInOrder: true,
    starAfterTitle: true,
    buttonsInOrder: true,
    buttons: ['Cancel', 'Reject', 'Submit'],
  });
  page.assertNoErrors();
  await context.close();
});

test('a registered Arabic reads its six plural categories: 0, 1, 2, 3, 11 and 100', { timeout: 60_000 }, async () => {
  const { context, page } = await openRtlPage({ arabic: true });
  const messages = await page.evaluate(async () => {
    const { validateContent } = await import('/dist/koder-mcp-elicitation.js');
    const number = new Intl.NumberFormat('ar');
    return [0, 1, 2, 3, 11, 100].map((limit) => ({
      limit,
      shown: validateContent({ type: 'string', maxLength: limit }, 'x'.repeat(limit + 1), { locale: 'ar' }).errors[0].message,
      number: number.format(limit),
    }));
  });
  assert.deepEqual(messages.map(({ shown }) => shown), [
    'لا يُسمح بأي حرف',
    'حرف واحد على الأكثر',
    'حرفان على الأكثر',
    `${messages[3].number} أحرف على الأكثر`,
    `${messages[4].number} حرفًا على الأكثر`,
    `${messages[5].number} حرف على الأكثر`,
  ]);
  // In the dialog too: a field's length message in the `many` form.
  await elicit(page, { message: 'رمز', requestedSchema: { type: 'object', properties: { code: { type: 'string', maxLength: 11 } } } });
  await page.locator(`${HOST} [data-field="code"] input`).fill('x'.repeat(12));
  await page.locator(`${HOST} [data-field="code"] input`).blur();
  assert.equal(await page.locator(`${HOST} [data-field="code"] [part~=error]`).textContent(), `${messages[4].number} حرفًا على الأكثر`);
  page.assertNoErrors();
  await context.close();
});

test("registerTranslation's { direction } sets a language's direction; anything but ltr or rtl is refused", { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await openPage(context, `${server.url}/tests/e2e/pages/a11y.html`);
  await whenDefined(page);
  const seen = await page.evaluate(async (request) => {
    const { ready, registerTranslation, ElicitationError } = await import('/dist/koder-mcp-elicitation.js');
    await ready;
    const el = document.querySelector('koder-mcp-elicitation');
    const direction = () => el.shadowRoot.querySelector('dialog[open]').getAttribute('dir');
    let refused = null;
    try {
      registerTranslation('qaa', { 'mcp-elicitation-action-accept': 'Zend' }, { direction: 'up' });
    } catch (error) {
      refused = { elicitationError: error instanceof ElicitationError, message: error.message };
    }
    registerTranslation('qaa', { 'mcp-elicitation-action-accept': 'Zend' }, { direction: 'rtl' });
    registerTranslation('ar-Latn', { 'mcp-elicitation-action-accept': 'Irsal' });
    el.setAttribute('lang', 'qaa');
    el.elicit(request).catch(() => {});
    const qaa = direction();
    el.setAttribute('lang', 'ar-Latn');
    const arabicInLatin = direction();
    el.cancel();
    return { refused, qaa, arabicInLatin };
  }, { message: 'Hi', requestedSchema: { type: 'object', properties: {} } });
  assert.deepEqual(seen, {
    refused: { elicitationError: true, message: 'registerTranslation: options.direction must be "ltr" or "rtl"' },
    qaa: 'rtl',
    arabicInLatin: 'ltr',
  });
  page.assertNoErrors();
  await context.close();
});
