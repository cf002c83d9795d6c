// Page side of the contract smoke (tests/e2e/engines.test.mjs). Every engine runs this same code;
// the Node side only calls these functions, presses real keys and compares what they return.
// Everything returned is plain JSON, so any driver (Playwright, WebDriver BiDi, classic WebDriver)
// can carry it.
import { parseRequest, ready as wasmReady, registerTranslation, validateContent } from '/dist/koder-mcp-elicitation.js';

const host = () => document.querySelector('koder-mcp-elicitation');
const root = () => host().shadowRoot;
const EVENTS = ['accept', 'reject', 'cancel', 'timeout', 'complete', 'invalid'];
const plain = (value) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));
let events = [];
let pending = null;

for (const type of EVENTS) {
  document.addEventListener(type, (event) => {
    if (event.target === host()) events.push({ type, cancelable: event.cancelable, detail: plain(event.detail) });
  });
}

function errorOf(error) {
  return { name: error?.name ?? null, code: error?.code ?? null, message: String(error?.message ?? error) };
}

/** What a person (and a screen reader) would find in the dialog right now. */
function state() {
  const dialog = root()?.querySelector('dialog');
  if (!dialog) return { open: false, elementOpen: host().open, pending: host().pending };
  const box = dialog.getBoundingClientRect();
  const style = getComputedStyle(dialog);
  const active = root().activeElement;
  const button = (part) => root().querySelector(`button[part~=${part}]`);
  const fields = [...root().querySelectorAll('[data-field]')].map((field) => {
    const control = field.querySelector('input, select, textarea');
    const describedBy = (control?.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
    const error = field.querySelector('[part~=error]');
    return {
      name: field.dataset.field,
      label: field.querySelector('[part~=label]')?.textContent ?? null,
      type: control?.type ?? null,
      required: control?.getAttribute('aria-required') === 'true',
      invalid: control?.getAttribute('aria-invalid') === 'true',
      error: error?.textContent ?? '',
      errorLinked: Boolean(error?.id) && describedBy.includes(error.id),
    };
  });
  return {
    open: dialog.open,
    elementOpen: host().open,
    pending: host().pending,
    role: dialog.getAttribute('role'),
    ariaModal: dialog.getAttribute('aria-modal'),
    title: root().querySelector('[part~=title]')?.textContent ?? null,
    server: root().querySelector('[part~=server]')?.textContent ?? null,
    fields,
    focusedField: active?.closest('[data-field]')?.dataset.field ?? null,
    focusedPart: active?.getAttribute('part') ?? null,
    width: box.width,
    expectedWidth: Math.min(32 * parseFloat(getComputedStyle(document.documentElement).fontSize), innerWidth - 32),
    radius: style.borderTopLeftRadius,
    background: style.backgroundColor,
    text: style.color,
    acceptDisabled: button('accept')?.disabled ?? null,
    openDisabled: button('open')?.disabled ?? null,
    url: root().querySelector('[part~=url]')?.textContent ?? null,
    urlHost: root().querySelector('[part~=url-host]')?.textContent ?? null,
    links: root().querySelectorAll('a').length,
  };
}

window.smoke = {
  async ready() {
    await customElements.whenDefined('koder-mcp-elicitation');
    await wasmReady; // validateContent and parseRequest need it
    return { defined: Boolean(customElements.get('koder-mcp-elicitation')) };
  },
  async elicit(request) {
    events = [];
    const settled = host().elicit(request);
    pending = settled.then((result) => ({ result }), (error) => ({ error: errorOf(error) }));
    await new Promise((ok) => setTimeout(ok, 0));
    return state();
  },
  async state() {
    return state();
  },
  async focusField(name) {
    root().querySelector(`[data-field="${name}"] input`).focus();
    return state();
  },
  async click(part) {
    root().querySelector(`button[part~=${part}]`).click();
    await new Promise((ok) => setTimeout(ok, 0));
    return state();
  },
  /** Opens the optional reject reason by its button, then focuses its textarea for typing. */
  async openReason() {
    const box = root().querySelector('[part~=reason]');
    const toggle = box.querySelector('button');
    const area = box.querySelector('textarea');
    const before = area.getClientRects().length > 0;
    toggle.click();
    await new Promise((ok) => setTimeout(ok, 0));
    const after = area.getClientRects().length > 0;
    area.focus();
    return { before, after, expanded: toggle.getAttribute('aria-expanded') };
  },
  /** The outcome of the last elicit(): its promise and every event the element fired for it. */
  async settle() {
    const timeout = new Promise((ok) => setTimeout(() => ok({ error: { name: 'SmokeTimeout', message: 'elicit() did not settle in 5 s' } }), 5000));
    const outcome = await Promise.race([pending, timeout]);
    return { ...outcome, events: events.slice(), after: state() };
  },
  /**
   * Changes a field the way a browser reports a person's edit: the control's value, then `input` and
   * `change`. Text-like controls take a string; a checkbox or switch `true`/`false`; radios, a select
   * and a multi select the option value(s) to pick.
   */
  async edit(name, value) {
    const field = root().querySelector(`[data-field="${name}"]`);
    const fire = (control) => {
      control.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      control.dispatchEvent(new Event('change', { bubbles: true }));
    };
    const control = field.querySelector('input, select, textarea');
    if (control.type === 'radio' || (control.type === 'checkbox' && Array.isArray(value))) {
      const wanted = new Set([value].flat());
      for (const box of field.querySelectorAll(`input[type=${control.type}]`)) {
        if (box.checked !== wanted.has(box.value)) box.click();
      }
    } else if (control.type === 'checkbox') {
      if (control.checked !== value) control.click();
    } else {
      control.value = value;
      fire(control);
    }
    return state();
  },
  /** Focuses a button, so the driver can press it with a real key (window.open needs a user's gesture). */
  async focusButton(part) {
    root().querySelector(`button[part~=${part}]`).focus();
    return state();
  },
  async complete(id) {
    const answer = host().complete(id);
    return { answer, events: events.slice(), after: state() };
  },
  async validate(schema, content) {
    return validateContent(schema, content);
  },
  async parse(request) {
    try {
      return { request: plain(parseRequest(request)) };
    } catch (error) {
      return { error: errorOf(error) };
    }
  },
  /**
   * The right-to-left smoke: in a page made `lang="ar" dir="rtl"`, with Arabic registered, a form
   * whose message is English. What the dialog's direction and layout came to; the page is put back.
   */
  async rtl() {
    const html = document.documentElement;
    const before = { lang: html.getAttribute('lang'), dir: html.getAttribute('dir') };
    html.setAttribute('lang', 'ar');
    html.setAttribute('dir', 'rtl');
    registerTranslation('ar', {
      'mcp-elicitation-action-accept': 'إرسال',
      'mcp-elicitation-action-reject': 'رفض',
      'mcp-elicitation-action-cancel': 'إلغاء',
    });
    const settled = host().elicit({
      message: 'Which city, please?',
      requestedSchema: { type: 'object', properties: { city: { type: 'string', title: 'المدينة' } }, required: ['city'] },
    }).catch(() => null);
    await new Promise((ok) => setTimeout(ok, 0));
    const dialog = root().querySelector('dialog');
    const box = (selector) => root().querySelector(selector).getBoundingClientRect();
    const title = box('[data-field="city"] label bdi');
    const field = box('[data-field="city"]');
    const seen = {
      dialog: getComputedStyle(dialog).direction,
      message: getComputedStyle(root().querySelector('[part~=message]')).direction,
      accept: root().querySelector('button[part~=accept]').textContent,
      buttonsRightToLeft: box('button[part~=cancel]').left > box('button[part~=reject]').left
        && box('button[part~=reject]').left > box('button[part~=accept]').left,
      labelAtStart: Math.abs(field.right - title.right) < 1,
    };
    host().cancel();
    await settled;
    for (const [name, value] of Object.entries(before)) {
      if (value === null) html.removeAttribute(name);
      else html.setAttribute(name, value);
    }
    return seen;
  },
  /**
   * presentation="inline": a form in the page's flow (no dialog, nothing modal, styled by the same
   * stylesheet), answered, and the read-only summary it leaves in its place.
   */
  async inline() {
    const el = host();
    el.setAttribute('presentation', 'inline');
    const settled = el.elicit({
      message: 'Which city?',
      requestedSchema: {
        type: 'object',
        properties: {
          city: { type: 'string', title: 'City' },
          api_token: { type: 'string', title: 'API token' },
          alerts: { type: 'boolean', title: 'Alerts' },
        },
        required: ['city'],
      },
    });
    await new Promise((ok) => setTimeout(ok, 0));
    const card = root().querySelector('[part~=inline]');
    const seen = {
      role: card?.getAttribute('role') ?? null,
      labelledBy: card ? root().getElementById(card.getAttribute('aria-labelledby'))?.textContent : null,
      dialogs: root().querySelectorAll('dialog').length,
      modal: Boolean(document.querySelector(':modal') || root().querySelector(':modal')),
      radius: card ? getComputedStyle(card).borderTopLeftRadius : null,
      laidOut: card ? card.getBoundingClientRect().height > 0 : false,
    };
    await this.edit('city', 'Porto');
    await this.edit('api_token', 'sk-live-1');
    await this.edit('alerts', true);
    root().querySelector('button[part~=accept]').click();
    seen.result = await settled;
    const summary = root().querySelector('[part~=summary]');
    seen.outcome = summary?.querySelector('[part~=summary-outcome]')?.textContent ?? null;
    seen.rows = [...(summary?.querySelectorAll('[part~=summary-row]') ?? [])]
      .map((row) => [row.querySelector('dt').textContent, row.querySelector('dd').textContent]);
    seen.controls = root().querySelectorAll('input, select, textarea, button').length;
    seen.summaryRadius = summary ? getComputedStyle(summary).borderTopLeftRadius : null;
    return seen;
  },
  async problems() {
    return window.__problems.slice();
  },
};
