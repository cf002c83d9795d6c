// Keyboard: the WAI-ARIA modal dialog pattern proven with real key presses (page.keyboard) in
// Chromium (CONTRACT §8, issue #4): focus on open, Tab / Shift+Tab wrap, Esc cancels, focus
// returns, Enter on an invalid form focuses the first invalid field.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startServer } from './harness.mjs';
import {
  EVERY_CONTROL, HOST, URL_BLOCKED, URL_OK, activeDescription, elicit, openA11yPage,
} from './a11y-fixtures.mjs';

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

const SIMPLE = {
  message: 'Weather lookup needs your input',
  requestedSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', title: 'City' },
      unit: { type: 'string', title: 'Unit', enum: ['C', 'F'] },
      days: { type: 'integer', title: 'Days', minimum: 1, maximum: 14 },
    },
    required: ['city', 'unit'],
  },
};

/** True when the deep active element is inside the open dialog. */
const focusInDialog = (page) =>
  page.evaluate((host) => {
    const root = document.querySelector(host).shadowRoot;
    const active = root.activeElement;
    return Boolean(active && root.querySelector('dialog[open]')?.contains(active));
  }, HOST);

/** Presses `key` until focus comes back to where it started; returns every stop on the way. */
async function cycle(page, key, limit = 60) {
  const start = await activeDescription(page);
  const stops = [start];
  for (let i = 0; i < limit; i += 1) {
    await page.keyboard.press(key);
    assert.ok(await focusInDialog(page), `${key} #${i + 1} left the dialog (after ${stops.at(-1)})`);
    const now = await activeDescription(page);
    if (now === start) return stops;
    stops.push(now);
  }
  throw new Error(`${key} never came back to ${start}: ${stops.join(' → ')}`);
}

const results = (page) => page.evaluate(() => window.__results);
const dialogOpen = (page) => page.locator(`${HOST} dialog[open]`).count();

test('form: focus lands on the first field; the dialog is modal and named', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, SIMPLE);
  assert.equal(await activeDescription(page), 'input#kme-f0[type=text]@city');
  const facts = await page.evaluate((host) => {
    const dialog = document.querySelector(host).shadowRoot.querySelector('dialog');
    const byId = (id) => dialog.querySelector(`#${id}`)?.textContent;
    return {
      modal: dialog.matches(':modal'),
      role: dialog.getAttribute('role'),
      ariaModal: dialog.getAttribute('aria-modal'),
      title: byId(dialog.getAttribute('aria-labelledby')),
      message: byId(dialog.getAttribute('aria-describedby')),
    };
  }, HOST);
  assert.deepEqual(facts, {
    modal: true,
    role: 'dialog',
    ariaModal: 'true',
    title: 'Input requested',
    message: 'Weather lookup needs your input',
  });
  // The page behind is inert: a click on it does not take focus from the dialog.
  await page.mouse.click(30, 120);
  assert.ok(await focusInDialog(page), 'a click on the page behind moved focus out of the dialog');
  page.assertNoErrors();
  await page.close();
});

test('form: Tab and Shift+Tab wrap at both ends and never leave the dialog', { timeout: 90_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, EVERY_CONTROL);
  const first = await activeDescription(page);
  assert.equal(first, 'input#kme-f0[type=text]@city');

  // Shift+Tab on the first stop wraps to the last one: Reject (Submit is disabled while invalid).
  await page.keyboard.press('Shift+Tab');
  assert.equal(await activeDescription(page), 'button[part=reject]');
  await page.keyboard.press('Tab');
  assert.equal(await activeDescription(page), first, 'Tab on the last stop wraps to the first');

  const forward = await cycle(page, 'Tab');
  const backward = await cycle(page, 'Shift+Tab');
  assert.equal(forward.at(-1), 'button[part=reject]');
  assert.equal(backward[1], 'button[part=reject]');
  // Every control kind is reachable, and both directions visit the same stops.
  assert.deepEqual([backward[0], ...backward.slice(1).reverse()], forward);
  for (const field of Object.keys(EVERY_CONTROL.requestedSchema.properties)) {
    if (field === 'contact') continue; // a group: its own fields are the stops
    assert.ok(forward.some((stop) => stop.endsWith(`@${field}`)), `${field} is a Tab stop: ${forward.join(' → ')}`);
  }
  for (const field of ['contact.phone', 'contact.hours', 'unit', 'region', 'alerts']) {
    assert.ok(forward.some((stop) => stop.endsWith(`@${field}`)), `${field} is a Tab stop`);
  }
  assert.ok(forward.includes('button[part=cancel]'));

  // Once the form is valid, Submit becomes the last stop and the wrap follows it.
  await page.keyboard.type('Lisbon');
  await page.evaluate((host) => {
    const root = document.querySelector(host).shadowRoot;
    root.querySelector('[data-field="unit"] input[value="C"]').click();
    root.querySelector('[data-field="layers"] input[value="rain"]').click();
    root.querySelector('[data-field="contact.phone"] input').focus();
  }, HOST);
  await page.keyboard.type('+351 1234');
  await page.locator(`${HOST} [data-field="city"] input`).focus();
  await page.keyboard.press('Shift+Tab');
  assert.equal(await activeDescription(page), 'button[part=accept]');
  await page.keyboard.press('Tab');
  assert.equal(await activeDescription(page), 'input#kme-f0[type=text]@city');
  page.assertNoErrors();
  await page.close();
});

test('form: Esc cancels and focus returns to the opener', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, SIMPLE);
  await page.keyboard.type('Lis');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__results.length === 1);
  assert.deepEqual(await results(page), [{ action: 'cancel' }]);
  assert.equal(await dialogOpen(page), 0);
  assert.equal(await activeDescription(page), 'button#opener');
  page.assertNoErrors();
  await page.close();
});

test('form: Esc from a control deep in the form (a select) still cancels', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, EVERY_CONTROL);
  await page.locator(`${HOST} [data-field="region"] select`).focus();
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__results.length === 1);
  assert.deepEqual(await results(page), [{ action: 'cancel' }]);
  assert.equal(await activeDescription(page), 'button#opener');
  page.assertNoErrors();
  await page.close();
});

test('form: Enter on an invalid form shows the errors and focuses the first invalid field', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, SIMPLE);
  // City is filled, Unit (a required radio group) is not, Days is out of range.
  await page.keyboard.type('Lisbon');
  await page.keyboard.press('Enter');
  assert.equal(await activeDescription(page), 'input#kme-f1-o0[type=radio][value=C]@unit');
  const unitError = page.locator(`${HOST} [data-field="unit"] [part~=error]`);
  assert.equal(await unitError.textContent(), 'Required');
  assert.ok(await unitError.isVisible());
  assert.equal(await dialogOpen(page), 1, 'an invalid form is not submitted');

  // Choose a unit with the keyboard (Space on the focused radio), then break Days.
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  assert.equal(await activeDescription(page), 'input#kme-f2[type=number]@days');
  await page.keyboard.type('99');
  await page.locator(`${HOST} [data-field="city"] input`).focus();
  await page.keyboard.press('Enter');
  assert.equal(await activeDescription(page), 'input#kme-f2[type=number]@days');
  const days = page.locator(`${HOST} [data-field="days"] input`);
  assert.equal(await days.getAttribute('aria-invalid'), 'true');
  const described = await days.evaluate((input) =>
    (input.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => input.getRootNode().getElementById(id)?.textContent)
      .join(' | '));
  assert.equal(described, 'Must be at most 14');

  // Fixed: Enter now submits, and focus returns to the opener.
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('3');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.__results.length === 1);
  assert.deepEqual(await results(page), [{ action: 'accept', content: { city: 'Lisbon', unit: 'C', days: 3 } }]);
  assert.equal(await activeDescription(page), 'button#opener');
  page.assertNoErrors();
  await page.close();
});

test('URL mode: focus lands on Cancel (not on consent), Tab wraps, Esc cancels', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, URL_OK);
  assert.equal(await activeDescription(page), 'button[part=cancel]');
  const stops = await cycle(page, 'Tab');
  assert.deepEqual(stops, ['button[part=cancel]', 'button[part=reject]', 'button[part=open]', 'button#kme-reason-toggle']);
  await page.keyboard.press('Shift+Tab');
  assert.equal(await activeDescription(page), 'button#kme-reason-toggle', 'Shift+Tab on the first stop wraps to the last');
  await page.keyboard.press('Tab');
  assert.equal(await activeDescription(page), 'button[part=cancel]');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__results.length === 1);
  assert.deepEqual(await results(page), [{ action: 'cancel' }]);
  assert.equal(await activeDescription(page), 'button#opener');
  page.assertNoErrors();
  await page.close();
});

test('reject reason: Enter on its toggle shows the box, Tab reaches it, Space hides it, Reject sends it', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await page.evaluate(() => {
    document.querySelector('koder-mcp-elicitation').addEventListener('reject', (event) => {
      window.__reason = event.detail.reason;
    });
  });
  await elicit(page, URL_OK);
  const toggle = page.locator(`${HOST} #kme-reason-toggle`);
  const box = page.locator(`${HOST} textarea#kme-reason`);
  await page.keyboard.press('Shift+Tab');
  assert.equal(await activeDescription(page), 'button#kme-reason-toggle');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await box.isVisible(), false, 'the reason box starts closed');
  await page.keyboard.press('Enter');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  assert.ok(await box.isVisible(), 'Enter on the toggle shows the reason box');
  assert.equal(await activeDescription(page), 'button#kme-reason-toggle', 'focus stays on the toggle');
  await page.keyboard.press('Tab');
  assert.equal(await activeDescription(page), 'textarea#kme-reason');
  await page.keyboard.type('Not this site');
  await page.keyboard.press('Tab');
  assert.equal(await activeDescription(page), 'button[part=cancel]', 'Tab from the box wraps to the first stop');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await activeDescription(page), 'button#kme-reason-toggle');
  await page.keyboard.press('Space');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await box.isVisible(), false, 'Space on the toggle hides the box again');
  await page.locator(`${HOST} button[part~=reject]`).click();
  await page.waitForFunction(() => window.__results.length === 1);
  assert.deepEqual(await results(page), [{ action: 'decline' }]);
  assert.equal(await page.evaluate(() => window.__reason), 'Not this site', 'a hidden box still sends what was typed');
  page.assertNoErrors();
  await page.close();
});

test('URL mode blocked: focus on Cancel, Open page is skipped, Esc cancels', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, URL_BLOCKED);
  assert.equal(await activeDescription(page), 'button[part=cancel]');
  assert.ok(await page.locator(`${HOST} button[part~=open]`).isDisabled());
  const stops = await cycle(page, 'Shift+Tab');
  assert.ok(!stops.includes('button[part=open]'), stops.join(' → '));
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__results.length === 1);
  assert.deepEqual(await results(page), [{ action: 'cancel' }]);
  assert.equal(await activeDescription(page), 'button#opener');
  page.assertNoErrors();
  await page.close();
});

test('queue: each dialog takes focus in turn; focus returns to the opener after the last', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, SIMPLE);
  await page.evaluate((request) => {
    const el = document.querySelector('koder-mcp-elicitation');
    el.elicit(request).then((r) => window.__results.push(r));
  }, URL_OK);
  assert.equal(await page.locator(`${HOST} [part~=queue]`).textContent(), '1 of 2');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__results.length === 1);
  await page.locator(`${HOST} button[part~=open]`).waitFor();
  assert.equal(await activeDescription(page), 'button[part=cancel]', 'the next dialog takes focus');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__results.length === 2);
  assert.equal(await activeDescription(page), 'button#opener');
  page.assertNoErrors();
  await page.close();
});

test('focus falls back to the element\'s page when the opener is gone', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, SIMPLE);
  await page.evaluate(() => document.getElementById('opener').remove());
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__results.length === 1);
  // Nothing inside the closed dialog keeps focus; Tab goes on from where the dialog was (the end of
  // this page, so first out to the browser, shown as the body) and then into the page.
  assert.equal(await page.evaluate(() => document.activeElement === document.body), true);
  const stops = [];
  for (let i = 0; i < 2 && stops.at(-1) !== 'button#after'; i += 1) {
    await page.keyboard.press('Tab');
    stops.push(await activeDescription(page));
  }
  assert.equal(stops.at(-1), 'button#after', `Tab stops: ${stops.join(' → ')}`);
  assert.ok(stops.slice(0, -1).every((stop) => stop === 'body'), `Tab stops: ${stops.join(' → ')}`);
  page.assertNoErrors();
  await page.close();
});

test('changing lang while open re-renders the text and keeps what the user typed and where', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, SIMPLE);
  await page.keyboard.type('Lisboa');
  await page.locator(`${HOST} #kme-reason-toggle`).click();
  await page.locator(`${HOST} textarea#kme-reason`).fill('Não agora');
  await page.locator(`${HOST} [data-field="days"] input`).focus();
  await page.keyboard.type('4');
  await page.evaluate(() => document.querySelector('koder-mcp-elicitation').setAttribute('lang', 'pt-BR'));
  await page.locator(`${HOST} button[part~=accept]:text("Enviar")`).waitFor();
  assert.equal(await page.locator(`${HOST} [data-field="city"] input`).inputValue(), 'Lisboa');
  assert.equal(await page.locator(`${HOST} [data-field="days"] input`).inputValue(), '4');
  assert.equal(await page.locator(`${HOST} textarea#kme-reason`).inputValue(), 'Não agora');
  assert.ok(await page.locator(`${HOST} textarea#kme-reason`).isVisible(), 'the reason box stays open');
  assert.equal(await page.locator(`${HOST} #kme-reason-toggle`).getAttribute('aria-expanded'), 'true');
  assert.equal(await activeDescription(page), 'input#kme-f2[type=number]@days');
  assert.equal(await page.locator(`${HOST} button[part~=cancel]`).textContent(), 'Cancelar');
  // Typing goes on where it was.
  await page.keyboard.type('2');
  assert.equal(await page.locator(`${HOST} [data-field="days"] input`).inputValue(), '42');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__results.length === 1);
  assert.equal(await activeDescription(page), 'button#opener', 'the opener survives the re-render');
  page.assertNoErrors();
  await page.close();
});

test('form starting with a date: Shift+Tab steps back through its segments, then wraps', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, {
    message: 'When should the forecast run?',
    requestedSchema: {
      type: 'object',
      properties: { day: { type: 'string', format: 'date', title: 'Day' }, note: { type: 'string', title: 'Note' } },
    },
  });
  assert.equal(await activeDescription(page), 'input#kme-f0[type=date]@day');
  await page.keyboard.type('03'); // month segment, then focus moves on to the day segment
  await page.keyboard.press('Shift+Tab'); // back to the month segment: still the date input
  assert.equal(await activeDescription(page), 'input#kme-f0[type=date]@day');
  await page.keyboard.press('Shift+Tab'); // out of the first stop: wraps to the last
  assert.ok(await focusInDialog(page), 'Shift+Tab left the dialog');
  assert.equal(await activeDescription(page), 'button[part=accept]');
  await page.keyboard.press('Tab');
  assert.equal(await activeDescription(page), 'input#kme-f0[type=date]@day');
  page.assertNoErrors();
  await page.close();
});
