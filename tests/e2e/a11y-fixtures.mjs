// Requests and page helpers shared by the accessibility, keyboard and language suites
// (keyboard.test.mjs, axe.test.mjs, i18n.test.mjs). Not a test file itself.
import { openPage, whenDefined } from './harness.mjs';

export const PAGE = '/tests/e2e/pages/a11y.html';
export const HOST = 'koder-mcp-elicitation';
/** The dialog's announcer: the polite status region that is a direct child of the open dialog. */
export const ANNOUNCER = 'dialog[open] > [role=status]';

/** One field of every control kind the element renders (CONTRACT §4), server texts in English. */
export const EVERY_CONTROL = {
  message: 'Weather lookup needs a few details before it can continue.',
  requestedSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', title: 'City', description: 'Where you are', minLength: 2 },
      email: { type: 'string', format: 'email', title: 'Email' },
      website: { type: 'string', format: 'uri', title: 'Website' },
      day: { type: 'string', format: 'date', title: 'Day' },
      meeting: { type: 'string', format: 'date-time', title: 'Meeting' },
      notes: { type: 'string', format: 'textarea', title: 'Notes' },
      days: { type: 'integer', title: 'Days', minimum: 1, maximum: 14 },
      threshold: { type: 'number', title: 'Threshold', minimum: 0.5 },
      alerts: { type: 'boolean', title: 'Severe weather alerts', default: true },
      unit: { type: 'string', title: 'Unit', enum: ['C', 'F'], enumNames: ['Celsius', 'Fahrenheit'] },
      region: {
        type: 'string',
        title: 'Region',
        enum: ['africa', 'americas', 'antarctica', 'asia', 'europe', 'oceania'],
      },
      layers: {
        type: 'array',
        title: 'Map layers',
        minItems: 1,
        items: { type: 'string', enum: ['rain', 'wind', 'clouds'] },
      },
      labels: { type: 'array', title: 'Labels', items: { type: 'string' }, default: ['home'] },
      contact: {
        type: 'object',
        title: 'Contact',
        properties: {
          phone: { type: 'string', title: 'Phone', pattern: '^[0-9+ ]+$' },
          hours: { type: 'string', title: 'Best hours', maxLength: 3 },
        },
        required: ['phone'],
      },
    },
    required: ['city', 'unit', 'layers'],
  },
};

/** Every server-supplied string of EVERY_CONTROL (titles, descriptions, option names, message). */
export const EVERY_CONTROL_SERVER_TEXTS = [
  'Weather Server', EVERY_CONTROL.message, 'Where you are', 'home', 'C', 'F', 'africa', 'americas',
  'antarctica', 'asia', 'europe', 'oceania', 'rain', 'wind', 'clouds',
  ...Object.values(EVERY_CONTROL.requestedSchema.properties).flatMap((p) => [
    p.title,
    ...(p.enumNames ?? []),
    ...Object.values(p.properties ?? {}).map((q) => q.title),
  ]),
].filter(Boolean);

/** Form with a field that looks like a secret: the warning shows. */
export const SECRET = {
  message: 'Sign in to continue.',
  requestedSchema: {
    type: 'object',
    properties: { api_key: { type: 'string', title: 'API key' } },
    required: ['api_key'],
  },
};

export const url = (address, message = 'Connect your account to continue.') => ({
  mode: 'url',
  message,
  url: address,
  elicitationId: `e-${Math.random().toString(36).slice(2)}`,
});
export const URL_OK = url('https://auth.example.com/connect?session=abc');
export const URL_BLOCKED = url('javascript:alert(1)');
export const URL_DEV = url('http://localhost:8080/callback');
export const URL_INTERNATIONAL = url('https://exämple.com/login');

/** Opens the test page in `context` (or a fresh page of `browser`), with `lang` on the element. */
export async function openA11yPage(browserOrContext, serverUrl, { lang, serverName, allow } = {}) {
  const page = await openPage(browserOrContext, `${serverUrl}${PAGE}`, { allow });
  await whenDefined(page);
  await page.evaluate(
    ([lang, serverName]) => {
      const el = document.querySelector('koder-mcp-elicitation');
      if (lang) el.setAttribute('lang', lang);
      if (serverName === null) el.removeAttribute('server-name');
      else if (serverName) el.setAttribute('server-name', serverName);
      window.__results = [];
    },
    [lang ?? null, serverName === undefined ? '' : serverName],
  );
  return page;
}

/**
 * Starts `request` the way a page would: the `#opener` button has focus (so focus return can be
 * checked), then `elicit` is called. Results land in `window.__results` in settlement order.
 * Resolves once the dialog is open.
 */
export async function elicit(page, request, options = {}) {
  await page.evaluate(
    ([request, options]) => {
      document.getElementById('opener').focus();
      const el = document.querySelector('koder-mcp-elicitation');
      el.elicit(request, options).then(
        (result) => window.__results.push(result),
        (error) => window.__results.push({ error: error.name }),
      );
    },
    [request, options],
  );
  await page.locator(`${HOST} dialog[open]`).waitFor();
}

/** Registers the demo page's Spanish through the public entry, as a host would. */
export const registerSpanish = (page) =>
  page.evaluate(async () => {
    const { registerTranslation } = await import('/dist/koder-mcp-elicitation.js');
    registerTranslation('es', await (await fetch('/www/es.ftl')).text());
  });

/** The deep active element, described as `tag#id[part]` / `input[name=…][value=…]` for asserts. */
export async function activeDescription(page) {
  return page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    if (!active) return null;
    const bits = [active.tagName.toLowerCase()];
    if (active.id) bits.push(`#${active.id}`);
    const part = active.getAttribute('part');
    if (part) bits.push(`[part=${part}]`);
    const type = active.getAttribute('type');
    if (type && active.tagName === 'INPUT') bits.push(`[type=${type}]`);
    const value = active.getAttribute('value');
    if (value && (type === 'radio' || type === 'checkbox')) bits.push(`[value=${value}]`);
    const field = active.closest?.('[data-field]')?.getAttribute('data-field');
    if (field) bits.push(`@${field}`);
    return bits.join('');
  });
}

/** Types into a field of the open dialog, found by its `data-field`. */
async function typeInto(page, field, text) {
  await page.locator(`${HOST} [data-field="${field}"] input`).first().focus();
  await page.keyboard.type(text);
}

/**
 * Every state the dialog can show, each a function that brings a fresh page (from
 * `openA11yPage`) into it. Together they show every string of the Fluent files that a user can
 * see or hear, except the ones only a rare schema triggers (covered by the Rust unit tests).
 */
export const STATES = {
  'form-pristine': (page) => elicit(page, EVERY_CONTROL),
  'form-errors': async (page) => {
    await elicit(page, EVERY_CONTROL);
    await typeInto(page, 'email', 'not-an-email');
    await typeInto(page, 'website', 'example');
    await typeInto(page, 'days', '99');
    await typeInto(page, 'threshold', '0.1');
    await typeInto(page, 'contact.phone', 'call me');
    await typeInto(page, 'contact.hours', '9 to 5');
    await typeInto(page, 'city', 'X');
    await page.keyboard.press('Enter'); // every error shows; focus moves to the first invalid field
    await page.locator(`${HOST} [data-field="unit"] [part~=error]:not(:empty)`).waitFor();
  },
  secret: (page) => elicit(page, SECRET),
  'unknown-server': async (page) => {
    await page.evaluate(() => document.querySelector('koder-mcp-elicitation').removeAttribute('server-name'));
    await elicit(page, SECRET);
  },
  'url': (page) => elicit(page, URL_OK),
  'reason-open': async (page) => {
    await elicit(page, URL_OK);
    await page.locator(`${HOST} #kme-reason-toggle`).click();
    await page.locator(`${HOST} textarea#kme-reason`).fill('Not this site');
  },
  'url-blocked': (page) => elicit(page, URL_BLOCKED),
  'url-development': (page) => elicit(page, URL_DEV),
  'url-international': (page) => elicit(page, URL_INTERNATIONAL),
  'url-waiting': async (page) => {
    await page.evaluate(() => {
      window.open = () => null; // nothing leaves the test machine
    });
    await elicit(page, URL_OK);
    await page.locator(`${HOST} button[part~=open]`).click();
    await page.locator(`${HOST} button[part~=close]`).waitFor();
    await page.waitForFunction(
      ([host, announcer]) => document.querySelector(host).shadowRoot.querySelector(announcer)?.textContent,
      [HOST, ANNOUNCER],
    );
  },
  // MCP 2026-07-28: the same server asks again for a URL already consented to (no elicitationId).
  'url-resume': async (page) => {
    await page.evaluate(() => {
      window.open = () => null; // nothing leaves the test machine
    });
    const { elicitationId, ...round } = URL_OK;
    await elicit(page, round);
    await page.locator(`${HOST} button[part~=open]`).click();
    await elicit(page, round);
    await page.locator(`${HOST} button[part~=continue]`).waitFor();
  },
  countdown: async (page) => {
    await page.evaluate(() => document.querySelector('koder-mcp-elicitation').setAttribute('timeout-ms', '25000'));
    await elicit(page, SECRET);
    await page.locator(`${HOST} [part~=countdown]:not([hidden])`).waitFor();
  },
  'queue-of-3': async (page) => {
    await elicit(page, EVERY_CONTROL);
    await page.evaluate(
      ([a, b]) => {
        const el = document.querySelector('koder-mcp-elicitation');
        el.elicit(a).catch(() => {});
        el.elicit(b).catch(() => {});
      },
      [SECRET, URL_OK],
    );
    await page.locator(`${HOST} [part~=queue]:not([hidden])`).waitFor();
  },
};
