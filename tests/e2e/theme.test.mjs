// The theme follows the host (issue 39, CONTRACT §8 "Theming") in Chromium: the palette follows
// the `color-scheme` the element inherits, as the browser's own controls do (`dark` on the page or
// on a class, `light dark` following the operating system, nothing declared staying light), both
// for the modal dialog and the inline card; the MCP Apps host variables come before the element's
// own defaults; axe finds no contrast violation in either palette; forced colours still win. And
// an inline element has a box of its own: it is as tall as its card and `scrollIntoView()` on it
// brings the card into view.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import AxeBuilderModule from '@axe-core/playwright';
import { launchBrowser, openPage, startServer, whenDefined } from './harness.mjs';

const AxeBuilder = AxeBuilderModule.AxeBuilder ?? AxeBuilderModule.default ?? AxeBuilderModule;
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** The default palettes' background and text, as computed styles report them. */
const LIGHT = { background: 'rgb(255, 255, 255)', text: 'rgb(27, 31, 36)' };
const DARK = { background: 'rgb(31, 35, 40)', text: 'rgb(232, 234, 237)' };

const FORM = {
  message: 'Which city should the forecast be for?',
  requestedSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', title: 'City', description: 'Where you are', minLength: 2 },
      api_token: { type: 'string', title: 'API token' },
      unit: { type: 'string', title: 'Unit', enum: ['C', 'F'], enumNames: ['Celsius', 'Fahrenheit'] },
      alerts: { type: 'boolean', title: 'Severe weather alerts', default: true },
    },
    required: ['city'],
  },
};

/**
 * A page with a modal element and, after a tall spacer when `spacer` is set, an inline one.
 * `head` goes into the page's head (a `color-scheme` meta tag, a style), `html` is the root
 * element's attributes.
 */
function themePage({ head = '', html = '', spacer = false }) {
  return `<!doctype html>
<html lang="en" ${html}><head><meta charset="utf-8"><title>Theme</title>
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
${head}
</head><body><main><h1>Theme</h1>
<koder-mcp-elicitation id="modal" server-name="Weather Server"></koder-mcp-elicitation>
${spacer ? '<div id="spacer" style="height: 3000px"></div>' : ''}
<koder-mcp-elicitation id="inline" presentation="inline" server-name="Weather Server"></koder-mcp-elicitation>
<p>After the question.</p>
</main></body></html>`;
}

let server;
let browser;

before(async () => {
  server = await startServer({
    routes: {
      '/theme.html': (req, res) => {
        const options = JSON.parse(new URL(req.url, 'http://localhost').searchParams.get('page') || '{}');
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(themePage(options));
      },
    },
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens the theme page with `page` options, the operating system in `os` ('light' or 'dark'). */
async function open(options, os) {
  const context = await browser.newContext({ colorScheme: os, viewport: { width: 900, height: 1200 } });
  const page = await openPage(context, `${server.url}/theme.html?page=${encodeURIComponent(JSON.stringify(options))}`);
  await whenDefined(page);
  return page;
}

/** Opens a request in the modal element and one in the inline element; the promises are left pending. */
async function showBoth(page, request = FORM) {
  await page.evaluate((request) => {
    document.querySelector('#modal').elicit(request).catch(() => {});
    document.querySelector('#inline').elicit(request).catch(() => {});
  }, request);
  await page.locator('#modal [part~=dialog]').waitFor({ state: 'visible' });
  await page.locator('#inline [part~=inline]').waitFor({ state: 'visible' });
}

/** The background and text colours of the dialog and of the inline card. */
const palettes = (page) =>
  page.evaluate(() => {
    const look = (selector, part) => {
      const style = getComputedStyle(document.querySelector(selector).shadowRoot.querySelector(`[part~=${part}]`));
      return { background: style.backgroundColor, text: style.color };
    };
    return { dialog: look('#modal', 'dialog'), card: look('#inline', 'inline') };
  });

test("the page's color-scheme: dark gets the dark palette on a light OS; a class switches it live", { timeout: 60_000 }, async () => {
  const page = await open({ head: '<style>:root { color-scheme: dark }</style>' }, 'light');
  assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), false);
  await showBoth(page);
  assert.deepEqual(await palettes(page), { dialog: DARK, card: DARK });
  page.assertNoErrors();
  await page.context().close();

  // A chat app's own switch: a class on the root that sets color-scheme, toggled while a
  // question shows. No variable is set on the element.
  const app = await open({ head: '<style>.dark { color-scheme: dark } .light { color-scheme: light }</style>', html: 'class="light"' }, 'light');
  await showBoth(app);
  assert.deepEqual(await palettes(app), { dialog: LIGHT, card: LIGHT });
  await app.evaluate(() => { document.documentElement.className = 'dark'; });
  assert.deepEqual(await palettes(app), { dialog: DARK, card: DARK });
  await app.evaluate(() => { document.documentElement.className = 'light'; });
  assert.deepEqual(await palettes(app), { dialog: LIGHT, card: LIGHT });
  app.assertNoErrors();
  await app.context().close();
});

test('color-scheme "light dark" (the meta tag or a style) follows the OS', { timeout: 60_000 }, async () => {
  const declarations = [
    { head: '<meta name="color-scheme" content="light dark">' },
    { head: '<style>:root { color-scheme: light dark }</style>' },
  ];
  for (const declaration of declarations) {
    for (const [os, palette] of [['light', LIGHT], ['dark', DARK]]) {
      const page = await open(declaration, os);
      await showBoth(page);
      assert.deepEqual(await palettes(page), { dialog: palette, card: palette }, `${declaration.head} on a ${os} OS`);
      // The OS switching while the question shows moves the palette with it.
      const other = os === 'light' ? 'dark' : 'light';
      await page.emulateMedia({ colorScheme: other });
      const switched = other === 'light' ? LIGHT : DARK;
      assert.deepEqual(await palettes(page), { dialog: switched, card: switched }, `${declaration.head}, OS switched to ${other}`);
      page.assertNoErrors();
      await page.context().close();
    }
  }
});

test('a page that declares no color-scheme stays light on a dark OS', { timeout: 60_000 }, async () => {
  const page = await open({}, 'dark');
  assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), true);
  await showBoth(page);
  assert.deepEqual(await palettes(page), { dialog: LIGHT, card: LIGHT });
  page.assertNoErrors();
  await page.context().close();
});

test('the MCP Apps host variables on the page theme the dialog and the card; --kme-* set on the element still win', { timeout: 60_000 }, async () => {
  const host = `<style>:root {
    --color-background-primary: rgb(250, 240, 230);
    --color-text-primary: rgb(40, 20, 10);
    --color-text-secondary: rgb(90, 60, 40);
    --color-border-primary: rgb(120, 80, 50);
    --color-ring-primary: rgb(200, 60, 0);
    --font-sans: "Host Sans", monospace;
    --border-radius-md: 3px;
  }</style>`;
  const page = await open({ head: host }, 'light');
  await showBoth(page);
  // The focus ring shows on a focused field; the card is inert behind the modal dialog, so the
  // dialog is looked at first and then closed.
  const look = (selector, part) =>
    page.evaluate(([selector, part]) => {
      const root = document.querySelector(selector).shadowRoot;
      const box = getComputedStyle(root.querySelector(`[part~=${part}]`));
      const field = root.querySelector('[data-field="city"] input');
      field.focus();
      return {
        background: box.backgroundColor,
        text: box.color,
        border: box.borderTopColor,
        font: box.fontFamily,
        radius: box.borderTopLeftRadius,
        muted: getComputedStyle(root.querySelector('[part~=header]')).color,
        field: getComputedStyle(field).backgroundColor,
        ring: root.activeElement === field ? getComputedStyle(field).outlineColor : 'not focused',
      };
    }, [selector, part]);
  const looks = { dialog: await look('#modal', 'dialog') };
  await page.evaluate(() => document.querySelector('#modal').cancel());
  await page.locator('#modal [part~=dialog]').waitFor({ state: 'detached' });
  looks.card = await look('#inline', 'inline');
  const expected = {
    background: 'rgb(250, 240, 230)',
    text: 'rgb(40, 20, 10)',
    border: 'rgb(120, 80, 50)',
    font: '"Host Sans", monospace',
    radius: '3px',
    muted: 'rgb(90, 60, 40)',
    field: 'rgb(250, 240, 230)',
    ring: 'rgb(200, 60, 0)',
  };
  assert.deepEqual(looks, { dialog: expected, card: expected });

  // The element's own --kme-* come first, over the host's variables.
  await page.evaluate(() => document.querySelector('#inline').style.setProperty('--kme-bg', 'rgb(1, 2, 3)'));
  const background = await page.evaluate(() =>
    getComputedStyle(document.querySelector('#inline').shadowRoot.querySelector('[part~=inline]')).backgroundColor);
  assert.equal(background, 'rgb(1, 2, 3)');
  page.assertNoErrors();
  await page.context().close();
});

async function assertNoContrastViolation(page, label) {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const lines = results.violations.flatMap((violation) => [
    `${violation.id}: ${violation.help}`,
    ...violation.nodes.map((node) => `    ${JSON.stringify(node.target)} ${node.failureSummary.replace(/\s+/g, ' ')}`),
  ]);
  assert.equal(results.violations.length, 0, `${label}: axe found\n${lines.join('\n')}`);
  // The contrast rule really looked inside the element's shadow root.
  const contrastChecked = results.passes
    .filter((rule) => rule.id === 'color-contrast')
    .flatMap((rule) => rule.nodes)
    .filter((node) => Array.isArray(node.target[0]));
  assert.ok(contrastChecked.length > 5, `${label}: axe checked the contrast of ${contrastChecked.length} shadow nodes`);
}

test('axe: no contrast violation in either palette, in the dialog and the inline card', { timeout: 90_000 }, async () => {
  // A warning (the secret-looking field), an error, descriptions, the chosen segment and the
  // switch: every colour pair of the palette is on screen.
  for (const scheme of ['light', 'dark']) {
    // The OS says the opposite, so only the page's color-scheme can have picked the palette.
    const page = await open({ head: `<style>:root { color-scheme: ${scheme} }</style>` }, scheme === 'dark' ? 'light' : 'dark');
    await showBoth(page);
    assert.deepEqual(await palettes(page), scheme === 'dark' ? { dialog: DARK, card: DARK } : { dialog: LIGHT, card: LIGHT });
    // The dialog first; the card behind it is inert until it closes.
    for (const selector of ['#modal', '#inline']) {
      await page.locator(`${selector} [data-field="city"] input`).fill('A');
      await page.locator(`${selector} [data-field="api_token"] input`).focus();
      assert.equal(await page.locator(`${selector} [data-field="city"] input`).getAttribute('aria-invalid'), 'true');
      await assertNoContrastViolation(page, `${selector} ${scheme}`);
      if (selector === '#modal') {
        await page.evaluate(() => document.querySelector('#modal').cancel());
        await page.locator('#modal [part~=dialog]').waitFor({ state: 'detached' });
      }
    }
    page.assertNoErrors();
    await page.context().close();
  }
});

test('forced colours: the dialog and the card take the system colours in a dark page', { timeout: 60_000 }, async () => {
  const page = await open({ head: '<style>:root { color-scheme: dark }</style>' }, 'light');
  await page.emulateMedia({ forcedColors: 'active' });
  await showBoth(page);
  const seen = await page.evaluate(() => {
    const probe = document.createElement('div');
    probe.style.cssText = 'background: Canvas; color: CanvasText';
    document.body.append(probe);
    const system = { background: getComputedStyle(probe).backgroundColor, text: getComputedStyle(probe).color };
    const look = (selector, part) => {
      const style = getComputedStyle(document.querySelector(selector).shadowRoot.querySelector(`[part~=${part}]`));
      return { background: style.backgroundColor, text: style.color };
    };
    return { system, dialog: look('#modal', 'dialog'), card: look('#inline', 'inline') };
  });
  assert.deepEqual(seen.dialog, seen.system);
  assert.deepEqual(seen.card, seen.system);
  page.assertNoErrors();
  await page.context().close();
});

test('inline: the element has a box of its own, as tall as its card; scrollIntoView() on it brings the card into view', { timeout: 60_000 }, async () => {
  const page = await open({ spacer: true }, 'light');
  const empty = await page.evaluate(() => {
    const el = document.querySelector('#inline');
    return { display: getComputedStyle(el).display, height: el.getBoundingClientRect().height };
  });
  assert.deepEqual(empty, { display: 'block', height: 0 });
  // The modal element still takes no room.
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('#modal')).display), 'contents');

  await page.evaluate((request) => {
    document.querySelector('#inline').elicit(request).catch(() => {});
  }, FORM);
  await page.locator('#inline [part~=inline]').waitFor({ state: 'attached' });
  const boxes = () =>
    page.evaluate(() => {
      const el = document.querySelector('#inline');
      const card = el.shadowRoot.querySelector('[part~=inline]');
      const r = (box) => ({ top: box.top, bottom: box.bottom, height: box.height });
      return { host: r(el.getBoundingClientRect()), card: r(card.getBoundingClientRect()), viewport: innerHeight };
    });
  const below = await boxes();
  assert.ok(below.card.height > 100, `the card has a height (${below.card.height})`);
  assert.ok(Math.abs(below.host.height - below.card.height) < 0.5, `host ${below.host.height} px, card ${below.card.height} px`);
  assert.ok(below.card.top > below.viewport, 'the card starts below the fold');

  await page.evaluate(() => document.querySelector('#inline').scrollIntoView());
  const shown = await boxes();
  assert.ok(shown.card.top >= 0 && shown.card.bottom <= shown.viewport, `card in view: ${JSON.stringify(shown)}`);

  // A host can give it margins, like any block.
  await page.evaluate(() => { document.querySelector('#inline').style.marginTop = '40px'; });
  const pushed = await boxes();
  assert.ok(Math.abs(pushed.card.top - pushed.host.top) < 0.5 && pushed.host.top - shown.host.top > 30, 'the margin moves the card');
  page.assertNoErrors();
  await page.context().close();
});
