// The hand-written baseline for `npm run bench`: what a developer would write without a framework or
// a core. A custom element with an open shadow root, one constructable stylesheet shared by every
// instance (a look close to ours), a styled <dialog> opened with showModal(), and the form built
// node by node with plain DOM calls: header, title, message, one labelled control per field (the
// same control ours picks for each kind, defaults filled in), an error slot, three buttons. No
// validation, no localization, no focus trap, no queue: a lower bound for opening the same form.
//
// `open(request, { parts: true })` also builds the parts our contract has in every dialog, empty
// or closed as ours has them at open (a focus sentinel, the queue line, the required-fields legend,
// the reject-reason box with its textarea, the countdown, a live region, `aria-live` on the error
// slots, `role`/`aria-modal`/`lang` on the dialog), still with no logic behind them: the same
// lower bound for the DOM ours must build.

const CSS = `
:host { display: contents; }
dialog { box-sizing: border-box; width: min(32rem, calc(100vw - 32px)); max-height: calc(100dvh - 32px); padding: 0;
  border: 1px solid #8a94a0; border-radius: 12px; background: #fff; color: #1b1f24; font: 16px/1.5 system-ui, sans-serif;
  box-shadow: 0 12px 40px rgb(0 0 0 / 30%); overflow: hidden; }
dialog[open] { display: flex; flex-direction: column; }
dialog::backdrop { background: rgb(15 20 25 / 55%); }
header, .body, footer { padding-inline: 16px; }
header { padding-top: 16px; color: #4d5661; font-size: 0.875rem; }
header p { margin: 0; font-weight: 600; }
h2 { margin: 4px 16px 8px; font-size: 1.25rem; line-height: 1.3; }
.body { overflow: auto; flex: 1 1 auto; min-height: 0; padding-bottom: 4px; }
.message { white-space: pre-wrap; margin: 0 0 12px; }
form { display: grid; gap: 14px; margin: 0; }
.field, fieldset { display: grid; gap: 4px; min-width: 0; }
fieldset { border: 1px solid #8a94a0; border-radius: 8px; margin: 0; padding: 8px 12px 12px; }
fieldset.choices { border: 0; padding: 0; }
legend, label.name { font-weight: 600; padding: 0; }
.required { color: #b3261e; }
.description { color: #4d5661; font-size: 0.875rem; margin: 0; }
input, select, textarea { box-sizing: border-box; font: inherit; color: inherit; background: #fff; border: 1px solid #8a94a0;
  border-radius: 8px; padding: 8px 10px; width: 100%; min-width: 0; }
textarea { min-height: 5rem; resize: vertical; }
input[type="checkbox"], input[type="radio"] { width: 1.125rem; height: 1.125rem; margin: 0; padding: 0; accent-color: #0b57d0; }
.segmented { display: flex; flex-wrap: wrap; }
.segmented label { position: relative; display: inline-flex; align-items: center; border: 1px solid #8a94a0; padding: 8px 14px; margin: 0 -1px -1px 0; }
.segmented input { position: absolute; inset: 0; width: 100%; height: 100%; opacity: 0; }
.segmented label:has(input:checked) { background: #0b57d0; color: #fff; border-color: #0b57d0; font-weight: 600; }
.check { display: flex; align-items: center; gap: 8px; }
.tags ul { list-style: none; display: flex; flex-wrap: wrap; gap: 6px; padding: 0; margin: 0 0 6px; }
.tags li { display: inline-flex; align-items: center; gap: 4px; border: 1px solid #8a94a0; border-radius: 999px; padding: 2px 4px 2px 10px; }
.error { color: #b3261e; font-size: 0.875rem; margin: 0; }
.error:empty { display: none; }
:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
footer { display: flex; justify-content: flex-end; gap: 8px; padding-block: 12px 16px; border-top: 1px solid #8a94a0; }
button { font: inherit; border-radius: 8px; padding: 8px 16px; border: 1px solid #8a94a0; background: #fff; color: inherit; }
button.accept { background: #0b57d0; color: #fff; border-color: #0b57d0; font-weight: 600; }
.legend { color: #4d5661; font-size: 0.875rem; margin: 0 0 8px; }
.reason { margin: 8px 0 0; }
.reason > button { border: 0; background: none; padding: 2px 0; color: #4d5661; }
.reason > button::before { content: "\\25B8\\00A0"; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

let shared = null;
const sheet = () => {
  if (!shared) {
    shared = new CSSStyleSheet();
    shared.replaceSync(CSS);
  }
  return shared;
};

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  if (attrs) for (const name in attrs) if (attrs[name] != null) node.setAttribute(name, attrs[name]);
  if (text !== undefined) node.textContent = text;
  return node;
}

const FORMAT_TYPES = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

function options(schema) {
  if (Array.isArray(schema.enum)) return schema.enum.map((v, i) => [String(v), schema.enumNames?.[i] ?? String(v)]);
  const list = schema.oneOf || schema.anyOf;
  return list ? list.map((o) => [String(o.const), o.title ?? String(o.const)]) : null;
}

let ids = 0;

/** Appends one field (label, description, control, error slot) for `schema` to `parent`. */
function field(parent, name, schema, required) {
  const id = `h${ids++}`;
  const wrapper = el('div', { class: 'field', 'data-field': name });
  const title = schema.title ?? name;
  const choices = options(schema);
  const itemChoices = schema.type === 'array' && schema.items ? options(schema.items) : null;
  let control;
  if (schema.type === 'object') {
    const set = el('fieldset');
    set.append(el('legend', null, title));
    for (const [key, child] of Object.entries(schema.properties || {})) field(set, `${name}.${key}`, child, (schema.required || []).includes(key));
    wrapper.append(set);
    parent.append(wrapper);
    return;
  }
  if (choices && choices.length <= 5 || itemChoices) {
    const set = el('fieldset', { class: 'choices', role: itemChoices ? null : 'radiogroup' });
    set.append(el('legend', null, title));
    const box = el('div', { class: itemChoices ? 'checks' : 'segmented' });
    const picked = new Set([schema.default ?? []].flat().map(String));
    (itemChoices || choices).forEach(([value, text], i) => {
      const label = el('label', { class: itemChoices ? 'check' : null });
      const input = el('input', { type: itemChoices ? 'checkbox' : 'radio', name: id, value, id: `${id}-${i}` });
      input.checked = picked.has(value);
      label.append(input, el('span', null, text));
      box.append(label);
    });
    set.append(box);
    wrapper.append(set);
  } else {
    const label = el('label', { for: id, class: 'name' }, title);
    if (required) label.append(el('span', { class: 'required', 'aria-hidden': 'true' }, ' *'));
    wrapper.append(label);
    if (schema.description) wrapper.append(el('p', { class: 'description' }, schema.description));
    if (choices) {
      control = el('select', { id });
      for (const [value, text] of choices) control.append(el('option', { value }, text));
      if (schema.default !== undefined) control.value = String(schema.default);
    } else if (schema.type === 'boolean') {
      control = el('input', { type: 'checkbox', role: 'switch', id });
      control.checked = schema.default === true;
    } else if (schema.type === 'number' || schema.type === 'integer') {
      control = el('input', { type: 'number', id, step: schema.type === 'integer' ? '1' : 'any' });
      if (schema.minimum !== undefined) control.setAttribute('min', schema.minimum);
      if (schema.maximum !== undefined) control.setAttribute('max', schema.maximum);
      if (schema.default !== undefined) control.value = String(schema.default);
    } else if (schema.type === 'array') {
      const tags = el('div', { class: 'tags' });
      const list = el('ul');
      for (const tag of schema.default || []) {
        const item = el('li', null, tag);
        item.append(el('button', { type: 'button', 'aria-label': `Remove ${tag}` }, '×'));
        list.append(item);
      }
      control = el('input', { type: 'text', id });
      tags.append(list, control);
      wrapper.append(tags);
    } else if (schema.format === 'textarea') {
      control = el('textarea', { id });
      if (schema.default !== undefined) control.value = schema.default;
    } else {
      control = el('input', { type: FORMAT_TYPES[schema.format] || 'text', id });
      if (schema.default !== undefined) control.value = schema.format === 'date-time' ? String(schema.default).slice(0, 16) : String(schema.default);
    }
    if (required) control.setAttribute('aria-required', 'true');
    if (schema.type !== 'array') wrapper.append(control);
  }
  wrapper.append(el('p', { class: 'error', id: `${id}-e` }));
  parent.append(wrapper);
}

export class HandElicitation extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).adoptedStyleSheets = [sheet()];
  }

  /** Shows the form for `request` ({ message, requestedSchema }); resolves with the action taken. */
  open(request, { parts = false } = {}) {
    const schema = request.requestedSchema;
    const required = schema.required || [];
    const dialog = el('dialog', { 'aria-labelledby': 'h-title', 'aria-describedby': 'h-message' });
    const header = el('header');
    header.append(el('p', null, `From ${this.getAttribute('server-name') || 'Unknown server'}`));
    const body = el('div', { class: 'body' });
    body.append(el('p', { class: 'message', id: 'h-message' }, request.message));
    const form = el('form', { id: 'h-form', novalidate: '' });
    for (const [name, child] of Object.entries(schema.properties)) field(form, name, child, required.includes(name));
    body.append(form);
    const footer = el('footer');
    const buttons = ['Cancel', 'Reject', 'Submit'].map((text) => el('button', { type: 'button', class: text === 'Submit' ? 'accept' : '' }, text));
    footer.append(...buttons);
    dialog.append(header, el('h2', { id: 'h-title' }, 'Input requested'), body, footer);
    const first = form.querySelector('input, select, textarea');
    if (parts) {
      for (const [name, value] of [['role', 'dialog'], ['aria-modal', 'true'], ['lang', 'en-US']]) dialog.setAttribute(name, value);
      header.append(el('p', { role: 'status', hidden: '' }));
      form.prepend(el('p', { class: 'legend', 'aria-hidden': 'true' }, 'Fields marked * are required.'));
      for (const slot of form.querySelectorAll('p.error')) slot.setAttribute('aria-live', 'polite');
      const reason = el('div', { class: 'reason' });
      const label = 'Reason for rejecting (optional)';
      reason.append(
        el('button', { type: 'button', 'aria-expanded': 'false' }, label),
        el('textarea', { rows: '2', maxlength: '1000', 'aria-label': label, hidden: '' }),
      );
      body.append(reason);
      footer.before(el('p', { hidden: '' }), el('div', { class: 'visually-hidden', 'aria-live': 'polite', role: 'status' }));
      dialog.prepend(el('span', { tabindex: '0' }));
      // As ours: the dialog's own focusing steps go to the first field, not the sentinel.
      first.setAttribute('autofocus', '');
    }
    this.shadowRoot.append(dialog);
    dialog.showModal();
    if (parts) first.removeAttribute('autofocus');
    first.focus();
    return new Promise((resolve) => {
      const done = (action) => {
        dialog.close();
        dialog.remove();
        resolve({ action });
      };
      buttons[0].onclick = () => done('cancel');
      buttons[1].onclick = () => done('decline');
      buttons[2].onclick = () => done('accept');
      dialog.oncancel = () => done('cancel');
    });
  }

  close() {
    const dialog = this.shadowRoot.querySelector('dialog');
    dialog?.close();
    dialog?.remove();
  }
}

if (!customElements.get('hand-elicitation')) customElements.define('hand-elicitation', HandElicitation);
