// Accessibility and look (issue #4, CONTRACT §8): axe-core (WCAG 2.0/2.1 A and AA) reports no
// violation in any state of the dialog, in both languages and both colour schemes; the dialog
// fits a 320 px wide screen and 200% zoom with its buttons in view; long messages scroll inside
// it. Screenshots of every state go to artifacts/ (gitignored) for a person to look at.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilderModule from '@axe-core/playwright';
import { launchBrowser, repoRoot, startServer } from './harness.mjs';
import { ANNOUNCER, EVERY_CONTROL, HOST, SECRET, STATES, URL_OK, elicit, openA11yPage } from './a11y-fixtures.mjs';

const AxeBuilder = AxeBuilderModule.AxeBuilder ?? AxeBuilderModule.default ?? AxeBuilderModule;
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const ARTIFACTS = join(repoRoot, 'artifacts');

let server;
let browser;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Runs axe on the whole page (it reads the open shadow root); fails listing every violation. */
async function assertNoViolations(page, label) {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const lines = results.violations.flatMap((violation) => [
    `${violation.id} (${violation.impact}): ${violation.help}`,
    ...violation.nodes.map((node) => `    ${JSON.stringify(node.target)} ${node.failureSummary.replace(/\s+/g, ' ')}`),
  ]);
  assert.equal(results.violations.length, 0, `${label}: axe found\n${lines.join('\n')}`);
  // axe must have looked inside the dialog, not only at the page around it.
  const inShadow = results.passes.flatMap((rule) => rule.nodes).filter((node) => Array.isArray(node.target[0]));
  assert.ok(inShadow.length > 5, `${label}: axe did not reach into the shadow root`);
}

/** Saves the dialog with a margin of the page around it into artifacts/. */
async function shoot(page, name) {
  const box = await page.locator(`${HOST} dialog[open]`).boundingBox();
  const viewport = page.viewportSize();
  const x = Math.max(0, box.x - 24);
  const y = Math.max(0, box.y - 24);
  const clip = {
    x,
    y,
    width: Math.min(viewport.width - x, box.width + 48),
    height: Math.min(viewport.height - y, box.height + 48),
  };
  await page.screenshot({ path: join(ARTIFACTS, name), clip });
}

const VARIANTS = [
  { lang: 'en-US', scheme: 'light' },
  { lang: 'en-US', scheme: 'dark' },
  { lang: 'pt-BR', scheme: 'light' },
  { lang: 'pt-BR', scheme: 'dark' },
];

for (const [state, enter] of Object.entries(STATES)) {
  test(`axe: ${state}, in en-US and pt-BR, light and dark: 0 violations; screenshots`, { timeout: 120_000 }, async () => {
    // The viewport is tall enough for the whole dialog: axe skips contrast checks of text that is
  // scrolled out of view.
  for (const { lang, scheme } of VARIANTS) {
      const context = await browser.newContext({ viewport: { width: 900, height: 2000 }, colorScheme: scheme, locale: lang });
      const page = await openA11yPage(context, server.url, { lang });
      await enter(page);
      await assertNoViolations(page, `${state} ${lang} ${scheme}`);
      await shoot(page, `dialog-${state}-${lang}-${scheme}.png`);
      page.assertNoErrors();
      await context.close();
    }
  });
}

/** Where the dialog and its buttons are, in the viewport. */
const geometry = (page) =>
  page.evaluate((host) => {
    const root = document.querySelector(host).shadowRoot;
    const dialog = root.querySelector('dialog[open]');
    const box = (element) => {
      const r = element.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    };
    return {
      viewport: { width: innerWidth, height: innerHeight },
      dialog: box(dialog),
      horizontalOverflow: dialog.scrollWidth > dialog.clientWidth + 1,
      buttons: [...root.querySelectorAll('footer button')].map(box),
    };
  }, HOST);

function assertFits({ viewport, dialog, horizontalOverflow, buttons }, label) {
  assert.ok(dialog.left >= 0 && dialog.right <= viewport.width, `${label}: dialog wider than the screen`);
  assert.ok(dialog.top >= 0 && dialog.bottom <= viewport.height, `${label}: dialog taller than the screen`);
  assert.equal(horizontalOverflow, false, `${label}: content scrolls sideways`);
  assert.ok(buttons.length >= 2, `${label}: buttons rendered`);
  for (const button of buttons) {
    assert.ok(button.top >= 0 && button.bottom <= viewport.height, `${label}: a button is off screen`);
    assert.ok(button.left >= 0 && button.right <= viewport.width, `${label}: a button is off screen`);
  }
}

test('look: usable at 320 px wide (every control kind); buttons stay in view', { timeout: 60_000 }, async () => {
  for (const scheme of ['light', 'dark']) {
    const context = await browser.newContext({ viewport: { width: 320, height: 640 }, colorScheme: scheme });
    const page = await openA11yPage(context, server.url, { lang: 'pt-BR' });
    await elicit(page, EVERY_CONTROL);
    assertFits(await geometry(page), `320px ${scheme}`);
    await page.screenshot({ path: join(ARTIFACTS, `dialog-320px-pt-BR-${scheme}.png`) });
    page.assertNoErrors();
    await context.close();
  }
});

test('look: usable at 200% zoom on a 1280×720 screen; the focused field is in view', { timeout: 60_000 }, async () => {
  // 200% zoom = half the CSS pixels at twice the device pixel ratio.
  const context = await browser.newContext({ viewport: { width: 640, height: 360 }, deviceScaleFactor: 2 });
  const page = await openA11yPage(context, server.url);
  await elicit(page, EVERY_CONTROL);
  assertFits(await geometry(page), '200% zoom');
  // Tab through everything: each stop is scrolled into view, not hidden under the pinned buttons.
  for (let i = 0; i < 25; i += 1) {
    await page.keyboard.press('Tab');
    const hidden = await page.evaluate((host) => {
      const root = document.querySelector(host).shadowRoot;
      const active = root.activeElement;
      if (!active) return 'nothing focused';
      const target = active.matches('input[type=radio], .segmented input') ? active.closest('label') : active;
      const r = target.getBoundingClientRect();
      const footer = root.querySelector('footer').getBoundingClientRect();
      const covered = !active.closest('footer') && r.bottom > footer.top + 1;
      return r.top < 0 || r.bottom > innerHeight || covered ? `${active.outerHTML.slice(0, 80)} at ${r.top}..${r.bottom}` : null;
    }, HOST);
    assert.equal(hidden, null, `Tab #${i + 1} focused something out of view`);
  }
  await page.screenshot({ path: join(ARTIFACTS, 'dialog-zoom200-en-US-light.png') });
  page.assertNoErrors();
  await context.close();
});

test('look: a long message scrolls inside the dialog while the buttons stay visible', { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
  const page = await openA11yPage(context, server.url);
  const message = Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of a very long explanation from the server.`).join('\n');
  await elicit(page, { ...EVERY_CONTROL, message });
  const facts = await geometry(page);
  assertFits(facts, 'long message');
  const scroller = await page.evaluate((host) => {
    const body = document.querySelector(host).shadowRoot.querySelector('.body');
    return { scrolls: body.scrollHeight > body.clientHeight, overflowY: getComputedStyle(body).overflowY };
  }, HOST);
  assert.deepEqual(scroller, { scrolls: true, overflowY: 'auto' });
  await page.screenshot({ path: join(ARTIFACTS, 'dialog-long-message-en-US-light.png') });
  await assertNoViolations(page, 'long message');
  page.assertNoErrors();
  await context.close();
});

// The dialog appears at once in both modes: an opening animation cost every open ~0.5 ms of style
// work (bench/RESULTS.md), so there is none to turn off; the switch's thumb still moves.
test('look: the dialog opens without animation, and reduced motion turns the switch transition off', { timeout: 60_000 }, async () => {
  const motion = async (reducedMotion) => {
    const context = await browser.newContext({ reducedMotion });
    const page = await openA11yPage(context, server.url);
    await elicit(page, EVERY_CONTROL);
    const styles = await page.evaluate((host) => {
      const root = document.querySelector(host).shadowRoot;
      const toggle = root.querySelector('input[role=switch]');
      return {
        animation: getComputedStyle(root.querySelector('dialog')).animationName,
        transition: getComputedStyle(toggle, '::before').transitionDuration,
      };
    }, HOST);
    page.assertNoErrors();
    await context.close();
    return styles;
  };
  assert.deepEqual(await motion('reduce'), { animation: 'none', transition: '0s' });
  const moving = await motion('no-preference');
  assert.equal(moving.animation, 'none');
  assert.notEqual(moving.transition, '0s');
});

test('look: the boolean is a switch with a thumb that moves', { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ reducedMotion: 'reduce' }); // no transition to wait for
  const page = await openA11yPage(context, server.url);
  await elicit(page, EVERY_CONTROL);
  const toggle = page.locator(`${HOST} [data-field="alerts"] input`);
  assert.equal(await toggle.getAttribute('role'), 'switch');
  const look = () =>
    toggle.evaluate((input) => {
      const style = getComputedStyle(input);
      const thumb = getComputedStyle(input, '::before');
      return {
        appearance: style.appearance,
        wide: input.getBoundingClientRect().width > input.getBoundingClientRect().height * 1.5,
        thumb: thumb.transform,
        checked: input.checked,
      };
    });
  const on = await look();
  await toggle.press('Space');
  const off = await look();
  assert.equal(on.appearance, 'none');
  assert.ok(on.wide, 'a switch is wider than tall');
  assert.deepEqual([on.checked, off.checked], [true, false]);
  assert.notEqual(on.thumb, off.thumb, 'the thumb moves');
  page.assertNoErrors();
  await context.close();
});

test('axe: the audit itself fails on a broken dialog (an unlabeled control, low contrast)', { timeout: 60_000 }, async () => {
  const context = await browser.newContext(); // AxeBuilder needs a page of an explicit context
  const page = await openA11yPage(context, server.url);
  await elicit(page, EVERY_CONTROL);
  await page.evaluate((host) => {
    const root = document.querySelector(host).shadowRoot;
    const form = root.querySelector('form');
    const faint = document.createElement('p');
    faint.textContent = 'faint';
    faint.style.color = '#eeeeee';
    form.prepend(faint, document.createElement('input'));
  }, HOST);
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const ids = results.violations.map((violation) => violation.id).sort();
  assert.deepEqual(ids, ['color-contrast', 'label']);
  page.assertNoErrors();
  await context.close();
});

test('live regions: the countdown is announced at 30 s and 10 s only, then the dialog times out', { timeout: 90_000 }, async () => {
  const context = await browser.newContext();
  await context.clock.install(); // Date and timers under the test's control, inside the wasm too
  const page = await openA11yPage(context, server.url);
  await elicit(page, EVERY_CONTROL, { timeoutMs: 40_000 });
  await page.evaluate(([host, announcer]) => {
    const root = document.querySelector(host).shadowRoot;
    window.__heard = [];
    window.__countdowns = new Set();
    new MutationObserver(() => {
      const region = root.querySelector(announcer);
      const said = region?.textContent;
      if (said && said !== window.__heard.at(-1)) window.__heard.push(said);
      const countdown = root.querySelector('dialog[open] [part~=countdown]:not([hidden])');
      if (countdown) window.__countdowns.add(countdown.textContent);
    }).observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
  }, [HOST, ANNOUNCER]);
  const countdown = page.locator(`${HOST} [part~=countdown]`);
  assert.equal(await countdown.isVisible(), false, 'no countdown before the last 30 s');
  for (let second = 0; second < 42; second += 1) await page.clock.runFor(1000);
  const { heard, countdowns, results } = await page.evaluate(() => ({
    heard: window.__heard,
    countdowns: [...window.__countdowns],
    results: window.__results,
  }));
  assert.deepEqual(heard, ['This request closes in 30 seconds.', 'This request closes in 10 seconds.']);
  assert.ok(countdowns.includes('Closing in 30s') && countdowns.includes('Closing in 1s'), countdowns.join(', '));
  assert.ok(countdowns.length >= 25, 'the visible countdown ticks every second');
  assert.deepEqual(results, [{ action: 'cancel' }]);
  page.assertNoErrors();
  await context.close();
});

test('live regions: "Opening external page" and the queue position are announced', { timeout: 60_000 }, async () => {
  const page = await openA11yPage(browser, server.url);
  await elicit(page, SECRET);
  const queue = page.locator(`${HOST} [part~=queue]`);
  const live = async (locator) =>
    locator.evaluate((element) => {
      const region = element.closest('[aria-live], [role=status], [role=alert]');
      return region ? region.getAttribute('aria-live') ?? region.getAttribute('role') : null;
    });
  await page.evaluate((request) => {
    const el = document.querySelector('koder-mcp-elicitation');
    el.elicit(request).catch(() => {});
    el.elicit(request).catch(() => {});
  }, URL_OK);
  assert.equal(await queue.textContent(), '1 of 3');
  assert.equal(await live(queue), 'status');
  assert.equal(await live(page.locator(`${HOST} [part~=countdown]`)), null);
  await page.keyboard.press('Escape');
  await page.locator(`${HOST} button[part~=open]`).waitFor();
  assert.equal(await queue.textContent(), '1 of 2');
  await page.evaluate(() => {
    window.open = () => null; // nothing leaves the test machine
  });
  await page.locator(`${HOST} button[part~=open]`).click();
  const region = page.locator(`${HOST} ${ANNOUNCER}`);
  await page.waitForFunction(
    ([host, announcer]) => document.querySelector(host).shadowRoot.querySelector(announcer)?.textContent,
    [HOST, ANNOUNCER],
  );
  assert.equal(await region.textContent(), 'Opening external page');
  page.assertNoErrors();
  await page.close();
});

test('screen reader view: names, required, invalid and descriptions in Chromium\'s accessibility tree', { timeout: 60_000 }, async () => {
  const context = await browser.newContext();
  const page = await openA11yPage(context, server.url);
  await STATES['form-errors'](page);
  const cdp = await context.newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  const property = (node, name) => node.properties?.find((p) => p.name === name)?.value?.value;
  const heard = nodes
    .filter((node) => !node.ignored)
    .map((node) => ({
      role: node.role?.value,
      name: node.name?.value ?? '',
      description: node.description?.value ?? '',
      required: property(node, 'required') ?? false,
      invalid: property(node, 'invalid') ?? 'false',
    }));
  const find = (role, name) => {
    const found = heard.filter((node) => node.role === role && node.name === name);
    assert.equal(found.length, 1, `one ${role} named "${name}" in ${JSON.stringify(heard.map((n) => `${n.role}:${n.name}`))}`);
    return found[0];
  };
  const dialog = find('dialog', 'Input requested');
  assert.equal(dialog.description, EVERY_CONTROL.message);
  const city = find('textbox', 'City');
  assert.equal(city.required, true);
  assert.equal(city.invalid, 'true');
  assert.equal(city.description, 'Where you are Enter at least 2 characters');
  assert.equal(find('textbox', 'Email').description, 'Enter a valid email address');
  assert.equal(find('spinbutton', 'Days').description, 'Must be at most 14');
  assert.equal(find('switch', 'Severe weather alerts').invalid, 'false');
  assert.equal(find('radiogroup', 'Unit').required, true);
  assert.equal(find('radio', 'Celsius').description, 'Required');
  assert.equal(find('checkbox', 'rain').description, 'Required');
  find('group', 'Map layers (Required)');
  // One group per question: no fieldset-inside-group echo ("Unit group, Unit radio group").
  for (const name of ['Unit', 'Map layers (Required)']) {
    assert.equal(heard.filter((node) => node.name === name && /group/i.test(node.role)).length, 1, name);
  }
  find('group', 'Contact');
  assert.equal(find('textbox', 'Phone').required, true);
  find('combobox', 'Region');
  // The tag sits in its own isolate (FSI … PDI, invisible and not voiced): a server's tag cannot
  // reorder the words around it.
  find('button', 'Remove \u2068home\u2069');
  find('button', 'Cancel');
  // The asterisk is for eyes only; the page behind the modal dialog is out of the tree.
  assert.deepEqual(heard.filter((node) => node.name.includes('*')), []);
  assert.deepEqual(heard.filter((node) => ['Ask me', 'Another control'].includes(node.name)), []);
  page.assertNoErrors();
  await context.close();
});
