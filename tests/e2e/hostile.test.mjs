// Hostile-server corpus in a real browser (issue #7). Every server-controlled string carries
// markup, script, bidi and zero-width payloads; sizes, nesting, numbers and patterns are abusive.
// Each case must end in a clean -32602 (the promise rejects with ElicitationError and `invalid`
// fires) or in a correct, inert render, within 100 ms, with the page still responsive. After every
// case the shadow DOM is walked: only tags and attributes the renderer itself creates may exist,
// no on* handler, no href/src/srcdoc/style attribute, and no payload ever ran.
//
// HOSTILE_ROUNDS=n repeats the corpus n times on one page (a soak); heap figures are printed when
// the browser exposes them. The summary line reports the longest case. HOSTILE_ONLY=<regexp> runs
// the matching cases only, HOSTILE_VERBOSE=1 prints every case's times.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer, whenDefined } from './harness.mjs';

const LIMIT_MS = Number(process.env.HOSTILE_LIMIT_MS || 100);
const ROUNDS = Math.max(1, Number(process.env.HOSTILE_ROUNDS || 1));

// Every payload sets window.__pwned if it ever runs.
const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=1</script>',
  'javascript:window.__pwned=1',
  '<svg onload="window.__pwned=1"><script>window.__pwned=1</script></svg>',
  '</style><style>*{display:none}</style><b onmouseover="window.__pwned=1">x</b>',
  '<a href="javascript:window.__pwned=1">click</a>',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  '\u202Eevil\u202C \u2066isolate\u2069 \u200F rtl',
  'zero\u200Bwidth\u200C\u200D\uFEFFjoiner',
  '{{constructor.constructor("window.__pwned=1")()}}',
];
const ALL = PAYLOADS.join(' | ');

// What the renderer creates (src/dom/frame.rs, form_view.rs, url_view.rs and src/element/); anything else came from a payload.
const ALLOWED_TAGS = new Set([
  'STYLE', 'DIALOG', 'HEADER', 'H2', 'P', 'DIV', 'SPAN', 'STRONG', 'FORM', 'FIELDSET', 'LEGEND',
  'LABEL', 'INPUT', 'TEXTAREA', 'SELECT', 'OPTION', 'BUTTON', 'UL', 'LI', 'FOOTER', 'BDI',
]);
const ALLOWED_ATTRIBUTES = new Set([
  'aria-controls', 'aria-describedby', 'aria-expanded', 'aria-hidden', 'aria-invalid', 'aria-label', 'aria-labelledby', 'aria-live',
  'aria-modal', 'aria-required', 'aria-checked', 'aria-disabled', 'autocomplete', 'class', 'data-field',
  'data-group', 'data-index', 'data-remove-tag', 'data-sentinel', 'data-tags', 'disabled', 'for', 'form', 'hidden', 'id',
  'lang', 'max', 'maxlength', 'min', 'minlength', 'name', 'novalidate', 'open', 'part', 'role', 'rows',
  'selected', 'step', 'type', 'value', 'tabindex', 'inputmode', 'spellcheck', 'checked', 'dir',
  'placeholder', 'multiple', 'required', 'readonly', 'title',
]);
const FORBIDDEN_ATTRIBUTES = /^(on|href$|src$|srcdoc$|style$|xlink:|formaction$|action$|background$|poster$|data$)/i;

const long = (n, unit = 'a') => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const form = (properties, extra = {}) => ({
  message: 'Hostile form',
  requestedSchema: { type: 'object', properties, ...extra },
});

/** The corpus: [name, request (object or string), expectation, optional extra checks]. */
function corpus() {
  const cases = [];
  const add = (name, request, expect, check) => cases.push({ name, request, expect, check });

  add('payloads in message', form({ a: { type: 'string' } }, {}), 'render');
  cases.at(-1).request.message = ALL;
  cases.at(-1).check = { text: { message: ALL } };

  add('payloads in envelope title and description', {
    type: 'elicitation/request', id: ALL, title: ALL, description: ALL,
    schema: { type: 'object', properties: { a: { type: 'string' } } },
  }, 'render', { text: { title: ALL, message: ALL } });

  const named = {};
  PAYLOADS.forEach((p, i) => { named[`${p}#${i}`] = { type: 'string' }; });
  add('payloads as property names', form(named, { required: Object.keys(named).slice(0, 2) }), 'render',
    { fieldNames: Object.keys(named) });

  add('payloads in title and description', form({
    a: { type: 'string', title: ALL, description: ALL },
    b: { type: 'object', title: ALL, description: ALL, properties: { c: { type: 'boolean', title: ALL } } },
  }), 'render', { labels: [ALL] });

  add('payloads in enum values and enumNames (segmented)', form({
    a: { type: 'string', enum: PAYLOADS.slice(0, 5), enumNames: PAYLOADS.slice(5, 10) },
  }), 'render', { optionValues: PAYLOADS.slice(0, 5) });

  add('payloads in oneOf const and title (select)', form({
    a: { type: 'string', oneOf: PAYLOADS.map((p, i) => ({ const: `${p}${i}`, title: p })) },
  }), 'render', { optionValues: PAYLOADS.map((p, i) => `${p}${i}`) });

  add('payloads in multi-select anyOf', form({
    a: { type: 'array', items: { anyOf: PAYLOADS.map((p, i) => ({ const: `v${i}${p}`, title: p })) } },
  }), 'render');

  add('payloads in defaults', form({
    a: { type: 'string', default: ALL },
    b: { type: 'string', format: 'textarea', default: ALL },
    c: { type: 'array', items: { type: 'string' }, default: PAYLOADS },
    d: { type: 'string', format: 'uri', default: 'javascript:window.__pwned=1' },
  }), 'render', { values: { a: ALL } });

  for (const url of ['javascript:window.__pwned=1', `https://example.com/${encodeURIComponent(ALL)}`,
    `https://example.com/<img src=x onerror=window.__pwned=1>`, 'data:text/html,<script>window.__pwned=1</script>',
    'https://user:pass@example.com/', `https://\u202Eevil.com/`, long(8192, 'https://a.example/')]) {
    add(`URL mode: ${url.slice(0, 40)}`, { mode: 'url', message: ALL, url, elicitationId: ALL }, 'render',
      { url });
  }

  add('__proto__, constructor, toString as property names', form({
    __proto__: { type: 'string', default: 'p', title: '__proto__' },
    constructor: { type: 'string', default: 'c' },
    toString: { type: 'string', default: 't' },
    hasOwnProperty: { type: 'boolean', default: true },
  }), 'render', { accept: '{"__proto__":"p","constructor":"c","toString":"t","hasOwnProperty":true}' });
  // A literal "__proto__" key in an object literal sets the prototype, so build the text instead.
  cases.at(-1).request = JSON.stringify(cases.at(-1).request).replace('"constructor":{', '"__proto__":{"type":"string","default":"p"},"constructor":{');

  const million = long(1_000_000, 'a<b>');
  add('1,000,000-character message', { message: million, requestedSchema: { type: 'object', properties: {} } }, 'invalid');
  add('1,000,000-character envelope title', { type: 'elicitation/request', id: 1, title: million, schema: { type: 'object' } }, 'invalid');
  add('1,000,000-character property name', form({ [million]: { type: 'string' } }), 'invalid');
  add('1,000,000-character enum value', form({ a: { type: 'string', enum: [million] } }), 'invalid');
  add('1,000,000-character default', form({ a: { type: 'string', default: million } }), 'invalid');
  add('1,000,000-character URL', { mode: 'url', message: 'x', url: `https://a.example/${million}` }, 'invalid');
  add('1,000,000-character pattern', form({ a: { type: 'string', pattern: million } }), 'invalid');
  add('1,000,000-character id', { jsonrpc: '2.0', id: million, method: 'elicitation/create', params: form({}) }, 'invalid');

  add('catastrophic pattern ^(a+)+$, long value typed', form({ a: { type: 'string', pattern: '^(a+)+$' } }), 'render',
    { type: { field: 'a', value: `${long(50_000)}!`, invalid: true } });
  add('pattern near the size cap, 10,000 characters typed', form({ a: { type: 'string', pattern: '^(?:a|a){0,1666}$' } }), 'render',
    { type: { field: 'a', value: long(10_000), invalid: true } });
  add('(x+x+)+y against a long default', form({ a: { type: 'string', pattern: '(x+x+)+y', default: long(20_000, 'x') } }), 'render');
  add('100 fields, each a near-cap pattern and a long default', form(Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [`f${i}`, { type: 'string', pattern: '^(?:a|a){0,1666}$', default: long(19_000) }]),
  )), 'invalid');
  add('100 fields, each a pattern and a 5,000-character default', form(Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [`f${i}`, { type: 'string', pattern: '^(a+)+$', default: `${long(5_000)}!` }]),
  )), 'invalid');
  add('50 fields, each a pattern and a 1,000-character default', form(Object.fromEntries(
    Array.from({ length: 50 }, (_, i) => [`f${i}`, { type: 'string', pattern: '^(a+)+$', default: `${long(1_000)}!`, title: PAYLOADS[i % 10] }]),
  )), 'render');
  add('empty repetition (?:){4294967295}', form({ a: { type: 'string', pattern: '(?:){4294967295}' } }), 'render');
  add('pattern with lookahead', form({ a: { type: 'string', pattern: '(?=a)' } }), 'invalid');

  add('10,000 properties', form(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, { type: 'string' }]))), 'invalid');
  add('100 properties (the limit)', form(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, { type: 'string', title: PAYLOADS[i % 10], description: PAYLOADS[(i + 3) % 10] }]))), 'render');
  add('501 options', form({ a: { type: 'string', enum: Array.from({ length: 501 }, (_, i) => `o${i}`) } }), 'invalid');
  add('500 options (the limit)', form({ a: { type: 'string', enum: Array.from({ length: 500 }, (_, i) => `${PAYLOADS[i % 10]}${i}`) } }), 'render');
  let nested = { type: 'string' };
  for (let i = 0; i < 5; i++) nested = { type: 'object', properties: { n: nested } };
  add('objects nested 5 deep', form({ n: nested }), 'invalid');
  add('JSON nested 100,000 deep (text)', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'invalid');
  add('JSON nested 100,000 deep in a schema (text)', `{"message":"x","requestedSchema":{"type":"object","properties":{"a":${'{"items":'.repeat(100_000)}{}${'}'.repeat(100_000)}}}}`, 'invalid');
  let deep = {};
  for (let i = 0; i < 40; i++) deep = { items: deep };
  add('schemas nested 40 deep', form({ a: { type: 'array', ...deep } }), 'invalid');

  add('minimum 1e308, default -0', '{"message":"n","requestedSchema":{"type":"object","properties":{"a":{"type":"number","minimum":-1e308,"maximum":1e308,"default":-0},"b":{"type":"integer","default":-0}}}}', 'render');
  add('number 1e400 (out of range)', '{"message":"n","requestedSchema":{"type":"object","properties":{"a":{"type":"number","maximum":1e400}}}}', 'invalid');
  add('NaN as a bare JSON token', '{"message":"n","requestedSchema":{"type":"object","properties":{"a":{"type":"number","minimum":NaN}}}}', 'invalid');
  add('"NaN", "1e308", "-0" as JSON strings for numbers', form({ a: { type: 'number', minimum: 'NaN' } }), 'invalid');
  add('"1e308" string default for a number', form({ a: { type: 'number', default: '1e308' } }), 'invalid');
  add('huge integer default', '{"message":"n","requestedSchema":{"type":"object","properties":{"a":{"type":"integer","default":18446744073709551616}}}}', 'render');
  add('lone surrogate escape', '{"message":"\\ud800","requestedSchema":{"type":"object"}}', 'invalid');
  add('not JSON at all', '<script>window.__pwned=1</script>', 'invalid');
  add('a JSON string holding markup', JSON.stringify(JSON.stringify(form({ a: { type: 'string', title: ALL } }))), 'render');
  return cases;
}

let server;
let browser;
let page;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  page = await openPage(browser, `${server.url}/tests/e2e/pages/basic.html`);
  await whenDefined(page);
  await page.evaluate(({ allowedTags, allowedAttributes, forbidden }) => {
    const tags = new Set(allowedTags);
    const attributes = new Set(allowedAttributes);
    const forbiddenRe = new RegExp(forbidden, 'i');
    const el = document.querySelector('koder-mcp-elicitation');
    el.setAttribute('rate-limit', '1000000'); // every case comes from the same server
    window.__events = [];
    for (const name of ['invalid', 'cancel', 'accept', 'reject', 'timeout']) {
      el.addEventListener(name, (event) => window.__events.push({ name, detail: event.detail }));
    }
    // Proves the shadow DOM holds only what the renderer creates (see the file comment).
    window.__inspect = () => {
      const problems = [];
      const walk = (root) => {
        for (const node of root.querySelectorAll('*')) {
          if (!tags.has(node.tagName)) problems.push(`unexpected element <${node.tagName.toLowerCase()}>`);
          if (node.namespaceURI !== 'http://www.w3.org/1999/xhtml') problems.push(`foreign element ${node.tagName}`);
          for (const attr of node.attributes) {
            if (forbiddenRe.test(attr.name)) problems.push(`forbidden attribute ${attr.name} on <${node.tagName.toLowerCase()}>`);
            else if (!attributes.has(attr.name)) problems.push(`unexpected attribute ${attr.name} on <${node.tagName.toLowerCase()}>`);
          }
          if (node.shadowRoot) walk(node.shadowRoot);
        }
      };
      walk(el.shadowRoot);
      // Nothing may leak into the light DOM or run.
      for (const node of document.querySelectorAll('img, script:not([type=module]), svg, iframe, a, object, embed')) {
        problems.push(`light DOM gained <${node.tagName.toLowerCase()}>`);
      }
      if (window.__pwned) problems.push('a payload ran');
      return problems;
    };
  }, { allowedTags: [...ALLOWED_TAGS], allowedAttributes: [...ALLOWED_ATTRIBUTES], forbidden: FORBIDDEN_ATTRIBUTES.source });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** JS heap after a forced GC, plus DOM node and listener counts (CDP), to spot leaks in a soak. */
async function heap() {
  try {
    const cdp = await page.context().newCDPSession(page);
    // Twice: detached DOM nodes are often freed only by the second collection.
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    const { nodes, jsEventListeners } = await cdp.send('Memory.getDOMCounters');
    await cdp.detach();
    return { used: usedSize, nodes, listeners: jsEventListeners };
  } catch {
    return { used: await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null), nodes: null, listeners: null };
  }
}

/** Runs one case in the page; returns { outcome, ms, error, probeMs, ... }. */
async function runCase(c) {
  // Requests travel as JSON text and are parsed in the page, as an MCP client parses a message;
  // string cases are handed to elicit() as they are.
  const json = typeof c.request !== 'string';
  const text = json ? JSON.stringify(c.request) : c.request;
  return page.evaluate(async ({ json, text, check, limit }) => {
    const request = json ? JSON.parse(text) : text;
    const el = document.querySelector('koder-mcp-elicitation');
    window.__events.length = 0;
    const shadow = el.shadowRoot;
    // A timer queued before the call measures how long the page could not respond.
    const queued = performance.now();
    const probe = new Promise((resolve) => setTimeout(() => resolve(performance.now() - queued), 0));
    const t0 = performance.now();
    const promise = el.elicit(request);
    shadow.querySelector('dialog')?.getBoundingClientRect(); // include style and layout
    let ms = performance.now() - t0;
    const settled = await Promise.race([
      promise.then((value) => ({ value }), (error) => ({ error })),
      new Promise((resolve) => setTimeout(() => resolve(null), 0)),
    ]);
    const result = { ms, probeMs: await probe, problems: [], texts: {} };
    if (settled?.error) {
      ms = performance.now() - t0;
      result.ms = ms;
      result.outcome = 'invalid';
      result.error = { name: settled.error.name, code: settled.error.code, message: String(settled.error.message).slice(0, 200) };
      result.invalidEvents = window.__events.filter((e) => e.name === 'invalid').length;
      result.open = el.open;
      return result;
    }
    if (settled?.value) {
      result.outcome = 'settled';
      result.value = settled.value;
      return result;
    }
    result.outcome = el.open ? 'render' : 'nothing';
    const part = (name) => shadow.querySelector(`[part~=${name}]`);
    result.texts.message = part('message')?.textContent ?? null;
    result.texts.title = part('title')?.textContent ?? null;
    result.fieldNames = [...shadow.querySelectorAll('[data-field]')].map((f) => f.getAttribute('data-field'));
    result.labels = [...shadow.querySelectorAll('label')].map((l) => l.textContent);
    result.optionValues = [...shadow.querySelectorAll('option, input[type=radio]')].map((o) => o.value).filter((v) => v !== '');
    result.urlText = part('url')?.textContent ?? null;
    result.openDisabled = part('open')?.disabled ?? null;
    result.values = {};
    for (const name of Object.keys(check?.values ?? {})) {
      result.values[name] = shadow.querySelector(`[data-field="${CSS.escape(name)}"] input, [data-field="${CSS.escape(name)}"] textarea`)?.value ?? null;
    }
    if (check?.type) {
      // A long value arrives in one input event (a paste); then the user leaves the field.
      const input = shadow.querySelector(`[data-field="${CSS.escape(check.type.field)}"] input`);
      input.focus();
      input.value = check.type.value;
      const t1 = performance.now();
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new FocusEvent('focusout', { bubbles: true }));
      shadow.querySelector('dialog')?.getBoundingClientRect();
      result.typeMs = performance.now() - t1;
      result.ariaInvalid = input.getAttribute('aria-invalid');
      result.errorText = shadow.querySelector(`[data-field="${CSS.escape(check.type.field)}"] [part~=error]`)?.textContent ?? '';
      result.acceptDisabled = part('accept')?.disabled;
    }
    result.problems = window.__inspect();
    if (check?.accept) {
      part('accept').click();
      const value = await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(null), 1000))]);
      // As JSON text: an own "__proto__" key would not survive the trip back to Node as an object.
      result.accepted = value && value.content ? JSON.stringify(value.content) : JSON.stringify(value);
      result.acceptedProtoIntact = value?.content ? Object.getPrototypeOf(value.content) === Object.prototype : null;
    } else {
      part('cancel')?.click();
      result.cancelled = await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(null), 1000))]);
    }
    result.openAfter = el.open;
    result.pendingAfter = el.pending;
    result.problems.push(...window.__inspect());
    void limit;
    return result;
  }, { json, text, check: c.check ?? null, limit: LIMIT_MS });
}

test('hostile corpus: clean -32602 or inert render, each within the limit', { timeout: 600_000 }, async () => {
  const only = process.env.HOSTILE_ONLY ? new RegExp(process.env.HOSTILE_ONLY) : null;
  const cases = corpus().filter((c) => !only || only.test(c.name));
  let longest = { ms: 0, name: '' };
  // Warm up (first render compiles the localization bundle and the styles); not measured.
  await runCase({ request: { message: 'warm-up', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } } });
  const heapBefore = await heap();
  const failures = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of cases) {
      let r = await runCase(c);
      if (process.env.HOSTILE_VERBOSE) console.log(`${c.name}: ${r.outcome} render ${r.ms.toFixed(1)} ms, typing ${r.typeMs?.toFixed(1) ?? '-'} ms, timer delay ${r.probeMs.toFixed(1)} ms`);
      let worst = Math.max(r.ms, r.typeMs ?? 0, r.probeMs ?? 0);
      // The CI machine is shared: a case over the limit runs up to four more times (after a
      // pause) and keeps its best time, so a busy neighbour does not fail the suite while real
      // work, which repeats, still does.
      for (let retry = 0; retry < 4 && worst > LIMIT_MS && r.outcome === c.expect; retry++) {
        await new Promise((resolve) => setTimeout(resolve, 200 * (retry + 1)));
        const again = await runCase(c);
        const time = Math.max(again.ms, again.typeMs ?? 0, again.probeMs ?? 0);
        if (time < worst) { r = again; worst = time; }
      }
      if (worst > longest.ms) longest = { ms: worst, name: c.name };
      const fail = (why) => failures.push(`${c.name}: ${why}`);
      if (r.outcome !== c.expect) {
        fail(`expected ${c.expect}, got ${r.outcome}${r.error ? ` (${r.error.name} ${r.error.code}: ${r.error.message})` : ''}`);
        continue;
      }
      if (worst > LIMIT_MS) fail(`took ${worst.toFixed(1)} ms (limit ${LIMIT_MS} ms; render ${r.ms.toFixed(1)}, typing ${r.typeMs?.toFixed(1) ?? '-'}, timer delay ${r.probeMs.toFixed(1)})`);
      if (c.expect === 'invalid') {
        if (r.error.name !== 'ElicitationError' || r.error.code !== -32602) fail(`rejected with ${r.error.name} ${r.error.code}`);
        if (r.invalidEvents !== 1) fail(`${r.invalidEvents} invalid events`);
        if (r.open) fail('a dialog opened for a malformed request');
        continue;
      }
      for (const p of r.problems) fail(p);
      const k = c.check ?? {};
      if (k.text?.message !== undefined && r.texts.message !== k.text.message) fail(`message shown as ${JSON.stringify(r.texts.message?.slice(0, 80))}`);
      if (k.text?.title !== undefined && r.texts.title !== k.text.title) fail(`title shown as ${JSON.stringify(r.texts.title?.slice(0, 80))}`);
      if (k.fieldNames && JSON.stringify(r.fieldNames) !== JSON.stringify(k.fieldNames)) fail(`fields ${JSON.stringify(r.fieldNames)}`);
      if (k.labels && !k.labels.every((l) => r.labels.some((shown) => shown.startsWith(l)))) fail(`labels ${JSON.stringify(r.labels).slice(0, 200)}`);
      if (k.optionValues && JSON.stringify(r.optionValues) !== JSON.stringify(k.optionValues)) fail(`options ${JSON.stringify(r.optionValues).slice(0, 200)}`);
      for (const [name, value] of Object.entries(k.values ?? {})) if (r.values[name] !== value) fail(`${name} prefilled as ${JSON.stringify(r.values[name]?.slice(0, 80))}`);
      if (k.url !== undefined) {
        let normalized = null;
        try { normalized = new URL(k.url).href; } catch {}
        if (r.urlText !== k.url && r.urlText !== normalized) fail(`URL shown as ${JSON.stringify(r.urlText?.slice(0, 80))}`);
        if (!k.url.startsWith('https://') || k.url.includes('@')) {
          if (r.openDisabled !== true) fail('open button enabled for a blocked URL');
        }
      }
      if (k.type) {
        if (r.ariaInvalid !== 'true' || !r.errorText || r.acceptDisabled !== true) {
          fail(`typed value not shown invalid (aria-invalid ${r.ariaInvalid}, error ${JSON.stringify(r.errorText)}, accept disabled ${r.acceptDisabled})`);
        }
      }
      if (k.accept) {
        assert.equal(r.acceptedProtoIntact, true, `${c.name}: content prototype`);
        if (r.accepted !== k.accept) fail(`accepted ${r.accepted}`);
      } else if (JSON.stringify(r.cancelled) !== '{"action":"cancel"}') {
        fail(`cancel button gave ${JSON.stringify(r.cancelled)}`);
      }
      if (r.openAfter || r.pendingAfter !== 0) fail(`still open/pending after settling (${r.openAfter}, ${r.pendingAfter})`);
    }
  }
  // The page still answers and nothing ran.
  const alive = await page.evaluate(() => new Promise((resolve) => setTimeout(() => resolve(!window.__pwned), 0)));
  assert.equal(alive, true, 'page unresponsive or a payload ran');
  const heapAfter = await heap();
  const mb = (n) => (n === null ? 'n/a' : `${(n / 1048576).toFixed(1)} MB`);
  console.log(`hostile: ${cases.length} cases x ${ROUNDS} round(s); longest ${longest.ms.toFixed(1)} ms (${longest.name}); limit ${LIMIT_MS} ms; `
    + `JS heap after GC ${mb(heapBefore.used)} -> ${mb(heapAfter.used)}, DOM nodes ${heapBefore.nodes} -> ${heapAfter.nodes}, listeners ${heapBefore.listeners} -> ${heapAfter.listeners}`);
  assert.deepEqual(failures, [], `hostile failures:\n  ${failures.join('\n  ')}`);
  page.assertNoErrors();
});

test('the shadow-DOM inspection fails on planted markup (it can catch a leak)', async () => {
  const problems = await page.evaluate(() => {
    const el = document.querySelector('koder-mcp-elicitation');
    const planted = document.createElement('div');
    planted.innerHTML = '<img src="x" onerror="void 0"><a href="javascript:void 0">x</a><span style="color:red" onclick="void 0"></span>';
    el.shadowRoot.append(planted);
    const found = window.__inspect();
    planted.remove();
    return found;
  });
  assert.deepEqual(problems, [
    'unexpected element <img>',
    'forbidden attribute src on <img>',
    'forbidden attribute onerror on <img>',
    'unexpected element <a>',
    'forbidden attribute href on <a>',
    'forbidden attribute style on <span>',
    'forbidden attribute onclick on <span>',
  ]);
});
