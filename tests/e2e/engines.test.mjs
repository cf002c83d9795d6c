// The contract's end-to-end smoke in Chromium, Firefox and WebKit (CONTRACT §1 "works in current
// Chromium, Firefox and WebKit"): one test body, run through a small adapter per engine
// (engines.mjs), against page-side code every engine shares (pages/contract-smoke.js). The page is
// served under the strictest policy the contract names, so each engine also shows the dialog
// styled with no CSP or Trusted Types violation.
//
// Covered: open (T1), missing required (T2), accept (T3), reject (T4), Esc cancels (T5), URL mode
// (consent, complete, a blocked scheme), validateContent and parseRequest, a malformed request, and
// a right-to-left dialog in an Arabic page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { STRICT_CSP_TT, startServer } from './harness.mjs';
import { ENGINES } from './engines.mjs';

let server;
const consented = () => server.requests.filter((path) => path === '/consented').length;
before(async () => {
  server = await startServer({
    headers: { 'Content-Security-Policy': STRICT_CSP_TT },
    routes: { '/consented': (req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<title>Consented</title>') },
  });
});
after(async () => {
  await server?.close();
});

const SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string', title: 'City', minLength: 2 },
    unit: { type: 'string', title: 'Unit', enum: ['C', 'F'] },
  },
  required: ['city'],
};
const EVERY_KIND = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    email: { type: 'string', format: 'email' },
    website: { type: 'string', format: 'uri' },
    birthday: { type: 'string', format: 'date' },
    meeting: { type: 'string', format: 'date-time' },
    notes: { type: 'string', format: 'textarea' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    subscribe: { type: 'boolean', default: true },
    unit: { type: 'string', enum: ['C', 'F', 'K'], default: 'C' },
    country: { type: 'string', oneOf: ['PT', 'BR', 'US', 'DE', 'FR', 'JP'].map((c) => ({ const: c, title: `Country ${c}` })) },
    toppings: { type: 'array', items: { type: 'string', enum: ['cheese', 'ham', 'olives', 'basil'] }, default: ['cheese'] },
    tags: { type: 'array', items: { type: 'string' }, default: ['a'] },
    address: {
      type: 'object',
      properties: { street: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{4}-[0-9]{3}$', default: '1000-001' } },
    },
  },
  required: ['name'],
};
const EDITS = [
  ['name', 'Porto'], ['email', 'b@c.pt'], ['website', 'https://x.org/a'], ['birthday', '2001-02-03'],
  ['meeting', '2026-03-04T05:06'], ['notes', 'a\nb'], ['age', '41'], ['ratio', '0.25'], ['subscribe', false],
  ['unit', 'K'], ['country', 'JP'], ['toppings', ['ham', 'basil']], ['address.street', 'Rua B'],
];
// The seed's Koder envelope, so replies read elicitation/accept, …/reject, …/cancel (T3–T5).
const envelope = (id) => ({ type: 'elicitation/request', id, title: 'Weather', description: 'Which city?', schema: SCHEMA });

/** The dialog is drawn by our stylesheet: the default theme's width, corner radius and palette. */
function assertStyled(state, engine) {
  assert.ok(Math.abs(state.width - state.expectedWidth) <= 1, `${engine}: dialog ${state.width}px wide, the theme gives ${state.expectedWidth}px (unstyled?)`);
  assert.equal(state.radius, '12px', `${engine}: dialog corner radius`);
  // The palette is light-dark() pairs: a page that declares no color-scheme gets the light one.
  assert.deepEqual([state.background, state.text], ['rgb(255, 255, 255)', 'rgb(27, 31, 36)'], `${engine}: dialog palette`);
}

async function contractSmoke(s) {
  assert.deepEqual(await s.call('ready'), { defined: true });

  // T1: a 2-field form opens, modal, first field focused, styled.
  let state = await s.call('elicit', envelope('t1'));
  assert.equal(state.open, true);
  assert.equal(state.elementOpen, true);
  assert.equal(state.role, 'dialog');
  assert.equal(state.ariaModal, 'true');
  assert.equal(state.title, 'Weather');
  assert.deepEqual(state.fields.map((f) => [f.name, f.label, f.type, f.required]), [
    ['city', 'City *', 'text', true], // the visible asterisk of a required field
    ['unit', 'Unit', 'radio', false],
  ]);
  assert.equal(state.focusedField, 'city', 'focus moves to the first field on open');
  assertStyled(state, s.name);

  // T2: required and empty → accept disabled; once left, aria-invalid and a linked message.
  assert.equal(state.acceptDisabled, true);
  assert.equal(state.fields[0].invalid, false, 'no error before the user has left the field');
  await s.press('Tab');
  state = await s.call('state');
  assert.notEqual(state.focusedField, 'city', 'Tab left the field');
  assert.equal(state.fields[0].invalid, true);
  assert.ok(state.fields[0].error.length > 0, 'a message is shown');
  assert.equal(state.fields[0].errorLinked, true, 'the message is linked by aria-describedby');
  assert.equal(state.acceptDisabled, true);

  // T3: fill it in with real key presses and accept.
  await s.call('focusField', 'city');
  await s.type('Lisbon');
  state = await s.call('state');
  assert.equal(state.fields[0].invalid, false);
  assert.equal(state.acceptDisabled, false);
  await s.call('click', 'accept');
  let outcome = await s.call('settle');
  assert.deepEqual(outcome.result, { action: 'accept', content: { city: 'Lisbon' } });
  assert.deepEqual(outcome.events.map((e) => [e.type, e.detail.reply]), [
    ['accept', { type: 'elicitation/accept', id: 't1', content: { city: 'Lisbon' } }],
  ]);
  assert.equal(outcome.after.open, false, 'the dialog closed');

  // T4: reject, with a reason typed into the box its button shows.
  await s.call('elicit', envelope('t4'));
  const reasonBox = await s.call('openReason');
  assert.deepEqual(reasonBox, { before: false, after: true, expanded: 'true' }, 'the reason box starts hidden and its button shows it');
  await s.type('Not now');
  await s.call('click', 'reject');
  outcome = await s.call('settle');
  assert.deepEqual(outcome.result, { action: 'decline' });
  assert.deepEqual(outcome.events.map((e) => [e.type, e.detail.reply.type, e.detail.reply.id, e.detail.reason]), [['reject', 'elicitation/reject', 't4', 'Not now']]);

  // T5: Esc cancels.
  state = await s.call('elicit', envelope('t5'));
  assert.equal(state.focusedField, 'city');
  await s.press('Escape');
  outcome = await s.call('settle');
  assert.deepEqual(outcome.result, { action: 'cancel' });
  assert.deepEqual(outcome.events.map((e) => [e.type, e.detail.source, e.detail.reply]), [
    ['cancel', 'user', { type: 'elicitation/cancel', id: 't5', reason: 'user' }],
  ]);
  assert.equal(outcome.after.open, false);

  // Every control kind, edited as each engine reports edits, reads back as the contract's JSON.
  state = await s.call('elicit', { message: 'Every kind', requestedSchema: EVERY_KIND });
  assert.deepEqual(state.fields.map((f) => f.type), [
    'text', 'email', 'url', 'date', 'datetime-local', 'textarea', 'number', 'number', 'checkbox', 'radio',
    'select-one', 'checkbox', 'text', 'text', 'text',
  ]);
  for (const [name, value] of EDITS) await s.call('edit', name, value);
  await s.call('focusField', 'tags');
  await s.type('zz');
  await s.press('Enter');
  await s.call('click', 'accept');
  outcome = await s.call('settle');
  const { meeting, ...content } = outcome.result.content;
  assert.match(meeting, /^2026-03-04T05:06:00(Z|[+-]\d\d:\d\d)$/, 'a date-time is RFC 3339 with an offset');
  assert.deepEqual(content, {
    name: 'Porto', email: 'b@c.pt', website: 'https://x.org/a', birthday: '2001-02-03', notes: 'a\nb', age: 41,
    ratio: 0.25, subscribe: false, unit: 'K', country: 'JP', toppings: ['ham', 'basil'], tags: ['a', 'zz'],
    address: { street: 'Rua B', zip: '1000-001' },
  });

  // URL mode: the URL is text with its host emphasized; consent opens it, then the server's completion.
  // The URL is this test server (http on 127.0.0.1 opens, with a development warning), so the
  // opening is seen as a request arriving, and nothing leaves the machine.
  const url = `${server.url}/consented?state=abc`;
  state = await s.call('elicit', { mode: 'url', message: 'Sign in', url, elicitationId: 'u1' });
  assert.equal(state.url, url);
  assert.equal(state.urlHost, '127.0.0.1');
  assert.equal(state.links, 0, 'never a link');
  assert.equal(state.openDisabled, false);
  assert.notEqual(state.focusedPart?.split(' ').includes('open'), true, 'focus is not on the consenting control');
  assertStyled(state, s.name);
  assert.equal(consented(), 0, 'nothing is fetched from the URL before consent');
  await s.call('focusButton', 'open');
  await s.press('Enter');
  outcome = await s.call('settle');
  assert.deepEqual(outcome.result, { action: 'accept' });
  assert.deepEqual(outcome.events.map((e) => [e.type, e.detail.mode]), [['accept', 'url']]);
  await waitFor(() => consented() === 1, `${s.name}: the consented URL was not opened`);
  const accepted = outcome.events[0];
  let completion = await s.call('complete', 'u1');
  assert.equal(completion.answer, true);
  assert.deepEqual(completion.events.map((e) => [e.type, e.detail.elicitationId]).at(-1), ['complete', 'u1']);
  assert.equal(completion.after.elementOpen, false);
  completion = await s.call('complete', 'u1');
  assert.equal(completion.answer, false, 'a second completion is ignored');

  // A scheme that must never open.
  state = await s.call('elicit', { mode: 'url', message: 'Run this', url: 'javascript:alert(1)', elicitationId: 'u2' });
  assert.equal(state.openDisabled, true);
  await s.call('click', 'cancel');
  outcome = await s.call('settle');
  assert.deepEqual(outcome.result, { action: 'cancel' });

  // A malformed request never opens: ElicitationError -32602 naming the path, and an `invalid` event.
  const bad = { message: 'Age', requestedSchema: { type: 'object', properties: { age: { type: 'integer', minimum: 'zero' } } } };
  state = await s.call('elicit', bad);
  assert.equal(state.open, false);
  outcome = await s.call('settle');
  assert.equal(outcome.error.name, 'ElicitationError');
  assert.equal(outcome.error.code, -32602);
  assert.match(outcome.error.message, /requestedSchema\.properties\.age\.minimum/);
  assert.deepEqual(outcome.events.map((e) => [e.type, e.detail.error.code]), [['invalid', -32602]]);

  // validateContent and parseRequest, the exports servers use.
  assert.deepEqual(await s.call('validate', SCHEMA, { city: 'Lisbon', unit: 'C' }), { valid: true, errors: [] });
  const verdict = await s.call('validate', SCHEMA, { city: 'L', unit: 'K' });
  assert.equal(verdict.valid, false);
  assert.deepEqual(verdict.errors.map((e) => [e.path, e.keyword]).sort(), [['/city', 'minLength'], ['/unit', 'enum']]);
  const parsed = await s.call('parse', bad);
  assert.equal(parsed.error?.code, -32602);

  // Right to left: a registered Arabic runs the dialog right to left and mirrors it; the server's
  // English message keeps its own direction.
  assert.deepEqual(await s.call('rtl'), {
    dialog: 'rtl', message: 'ltr', accept: 'إرسال', buttonsRightToLeft: true, labelAtStart: true,
  }, `${s.name}: the right-to-left dialog`);

  // presentation="inline": the same request in the page's flow, then its summary.
  assert.deepEqual(await s.call('inline'), {
    role: 'region',
    labelledBy: 'Which city?',
    dialogs: 0,
    modal: false,
    radius: '12px',
    laidOut: true,
    result: { action: 'accept', content: { city: 'Porto', api_token: 'sk-live-1', alerts: true } },
    outcome: 'Submitted',
    rows: [['City', 'Porto'], ['API token', '(hidden)'], ['Alerts', 'yes']],
    controls: 0,
    summaryRadius: '12px',
  }, `${s.name}: the inline form and its summary`);

  assert.deepEqual(await s.call('problems'), [], `${s.name}: errors or CSP / Trusted Types violations on the page`);
  assert.deepEqual(s.errors, [], `${s.name}: console errors`);
  return { accepted };
}

/** Polls `probe` for up to 5 s. */
async function waitFor(probe, what) {
  for (let i = 0; i < 50 && !probe(); i++) await new Promise((ok) => setTimeout(ok, 100));
  assert.ok(probe(), what);
}

for (const [name, open] of Object.entries(ENGINES)) {
  test(`${name}: the contract smoke on a strict-CSP + Trusted Types page`, { timeout: 120_000 }, async (t) => {
    server.requests.length = 0;
    const session = await open(`${server.url}/tests/e2e/pages/strict.html`);
    let accepted;
    try {
      process.stderr.write(`engines: ${name} ${session.version}\n`);
      ({ accepted } = await contractSmoke(session));
    } finally {
      await session.close();
    }
    await t.test('URL-mode accept is cancelable and carries detail.url and detail.elicitationId (CONTRACT §7)', () => {
      assert.equal(accepted.cancelable, true);
      assert.equal(accepted.detail.url, `${server.url}/consented?state=abc`);
      assert.equal(accepted.detail.elicitationId, 'u1');
    });
  });
}
