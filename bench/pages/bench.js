// In-page side of `npm run bench`. The driver (bench/run.mjs) opens bench.html?impl=ours|peer|hand
// (hand: the hand-written baseline, timed on open only) and calls window.bench.* through
// page.evaluate; every timing is taken here with performance.now() (the page is cross-origin
// isolated, so its resolution is 5 µs, not 100 µs).
import { SCHEMAS } from '/bench/schemas.mjs';

const impl = new URLSearchParams(location.search).get('impl');
const probe = window.__benchProbe;
const now = () => performance.now();
const TAG = 'koder-mcp-elicitation';
const nextFrame = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
const valueSetter = (el) =>
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value').set.bind(el);
function type(input, value) {
  valueSetter(input)(value);
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
}

// --- ours -------------------------------------------------------------------------------------
const ours = {
  async load() {
    const t0 = now();
    // The element is defined at import; `ready` is the wasm in, when it can open a dialog.
    const { ready } = await import('/dist/koder-mcp-elicitation.js');
    await ready;
    return now() - t0;
  },
  el: () => document.querySelector(TAG),
  open(key) {
    const promise = this.el().elicit(SCHEMAS[key].request);
    promise.catch(() => {});
    return { key, promise };
  },
  root() {
    return this.el().shadowRoot;
  },
  dialog() {
    return this.root().querySelector('dialog');
  },
  firstFocused() {
    const root = this.root();
    const active = root.activeElement;
    const first = root.querySelector('[data-field]');
    return !!active && !!first && first.contains(active);
  },
  forceLayout() {
    return this.dialog().getBoundingClientRect().height;
  },
  async close(h) {
    this.el().cancel();
    await h.promise.catch(() => {});
  },
  keyInput(h) {
    return this.root().querySelector(`[data-field="${SCHEMAS[h.key].keyField}"] input`);
  },
  // Leave the key field once, so it shows errors from now on (the contract: after the user left it).
  visitKeyField(h) {
    const input = this.keyInput(h);
    input.focus();
    type(input, 'Lisbon');
    const other = [...this.root().querySelectorAll('input, select, textarea, button')].find((c) => c !== input);
    other.focus();
  },
  keyState(h) {
    const input = this.keyInput(h);
    const accept = this.root().querySelector('button[part~=accept]');
    const invalid = input.getAttribute('aria-invalid') === 'true';
    return { invalid, consistent: accept.disabled === invalid };
  },
  async fillAndAccept(h) {
    const root = this.root();
    type(root.querySelector('[data-field="city"] input'), 'Lisbon');
    const f = root.querySelector('[data-field="temperature_unit"] input[value="F"]');
    if (f) f.click();
    root.querySelector('button[part~=accept]').click();
    return h.promise;
  },
  async memory() {
    if (!probe.wasmMemory) throw new Error('ours: the wasm memory was not captured (bench/pages/instrument.js)');
    return { wasmBytes: probe.wasmMemory.buffer.byteLength };
  },
  domNodes() {
    return this.root().querySelectorAll('*').length;
  },
};

// --- peer: @rjsf/core + ajv8 + React 19 ---------------------------------------------------------
let P = null;
const peer = {
  async load() {
    const t0 = now();
    P = await import('/bench/out/peer/peer.js');
    return now() - t0;
  },
  dialog: () => document.getElementById('peer-dialog'),
  open(key) {
    const { request, peerUi } = SCHEMAS[key];
    const dialog = this.dialog();
    dialog.showModal();
    const container = document.createElement('div');
    dialog.append(container);
    const root = P.createRoot(container);
    let submitted;
    const promise = new Promise((ok) => (submitted = ok));
    const schema = { ...request.requestedSchema, description: request.message };
    P.flushSync(() =>
      root.render(
        P.createElement(P.Form, {
          schema,
          uiSchema: peerUi,
          validator: P.validator,
          liveValidate: 'onChange',
          showErrorList: false,
          noHtml5Validate: true,
          onSubmit: ({ formData }) => submitted({ action: 'accept', content: formData }),
        }),
      ),
    );
    return { key, root, container, promise };
  },
  firstFocused(h) {
    const first = Object.keys(SCHEMAS[h.key].request.requestedSchema.properties)[0];
    return (document.activeElement?.id || '').startsWith(`root_${first}`);
  },
  forceLayout() {
    return this.dialog().getBoundingClientRect().height;
  },
  async close(h) {
    h.root.unmount();
    h.container.remove();
    this.dialog().close();
  },
  keyInput(h) {
    return document.getElementById(`root_${SCHEMAS[h.key].keyField}`);
  },
  visitKeyField(h) {
    const input = this.keyInput(h);
    input.focus();
    type(input, 'Lisbon');
    input.blur();
  },
  keyState(h) {
    // rjsf has no aria-invalid; its equivalent is the field's error list.
    const invalid = !!document.getElementById(`root_${SCHEMAS[h.key].keyField}__error`);
    return { invalid, consistent: true };
  },
  async fillAndAccept(h) {
    type(document.getElementById('root_city'), 'Lisbon');
    const f = document.querySelector('input[name="root_temperature_unit"][value="1"], #root_temperature_unit-1');
    if (f) f.click();
    await Promise.resolve();
    h.container.querySelector('form').requestSubmit();
    const result = await h.promise;
    await this.close(h);
    return result;
  },
  async memory() {
    return { wasmBytes: 0 };
  },
  domNodes() {
    return this.dialog().querySelectorAll('*').length;
  },
};

// --- hand-written: a styled <dialog> built node by node, no validation (bench/pages/hand.js) -----
const hand = {
  async load() {
    const t0 = now();
    await import('/bench/pages/hand.js');
    await customElements.whenDefined('hand-elicitation');
    return now() - t0;
  },
  el: () => document.querySelector('hand-elicitation'),
  root() {
    return this.el().shadowRoot;
  },
  open(key) {
    const promise = this.el().open(SCHEMAS[key].request);
    return { key, promise };
  },
  firstFocused() {
    const active = this.root().activeElement;
    const first = this.root().querySelector('[data-field]');
    return !!active && !!first && first.contains(active);
  },
  forceLayout() {
    return this.root().querySelector('dialog').getBoundingClientRect().height;
  },
  async close(h) {
    this.root().querySelector('footer button').click(); // its cancel button
    await h.promise;
  },
  domNodes() {
    return this.root().querySelectorAll('*').length;
  },
};

// The hand-written element again, with the parts every one of our dialogs has (bench/pages/hand.js).
const handParts = { ...hand, open: (key) => ({ key, promise: hand.el().open(SCHEMAS[key].request, { parts: true }) }) };

const I = impl === 'peer' ? peer : impl === 'hand' ? hand : impl === 'handParts' ? handParts : ours;

function assert(ok, message) {
  if (!ok) throw new Error(`${impl}: ${message}`);
}

window.bench = {
  impl,
  crossOriginIsolated: window.crossOriginIsolated,

  load: () => I.load(),

  /** elicit → dialog in the DOM with focus in the first field; split into our part and the browser's. */
  async openLatency(key, runs, warmup) {
    const rows = [];
    let nodes = 0;
    for (let i = 0; i < warmup + runs; i++) {
      await nextFrame();
      probe.browserMs = 0;
      const t0 = now();
      const h = I.open(key);
      const t1 = now();
      const showFocus = probe.browserMs;
      const focused = I.firstFocused(h);
      const t2 = now();
      I.forceLayout(h);
      const t3 = now();
      assert(focused, `open ${key}: the first field is not focused`);
      nodes = I.domNodes();
      if (i >= warmup) {
        const sync = t1 - t0;
        const layout = t3 - t2;
        rows.push({ total: sync + layout, sync, build: sync - showFocus, showFocus, layout, style: showFocus + layout });
      }
      await I.close(h);
    }
    return { rows, nodes };
  },

  /** input event → validity (and aria-invalid) updated, alternating invalid ("") and valid. */
  async keystroke(key, runs, warmup) {
    const h = I.open(key);
    await nextFrame();
    I.visitKeyField(h);
    await nextFrame();
    const input = I.keyInput(h);
    const rows = [];
    let microtasks = 0;
    let macrotasks = 0;
    for (let i = 0; i < warmup + runs; i++) {
      const wantInvalid = i % 2 === 0;
      const t0 = now();
      type(input, wantInvalid ? '' : 'Lisbon');
      let state = I.keyState(h);
      let spins = 0;
      while (state.invalid !== wantInvalid && spins < 1000) {
        await null; // a microtask checkpoint: React flushes discrete updates in one
        spins++;
        state = I.keyState(h);
      }
      let waited = 0;
      while (state.invalid !== wantInvalid && waited < 100) {
        await new Promise((ok) => setTimeout(ok, 0));
        waited++;
        state = I.keyState(h);
      }
      const t1 = now();
      assert(state.invalid === wantInvalid, `keystroke ${key}: validity did not update`);
      assert(state.consistent, `keystroke ${key}: accept button state disagrees with aria-invalid`);
      if (i >= warmup) rows.push({ total: t1 - t0 });
      microtasks = Math.max(microtasks, spins);
      macrotasks = Math.max(macrotasks, waited);
      if (i % 10 === 9) await nextFrame();
    }
    await I.close(h);
    return { rows, microtasks, macrotasks };
  },

  /** open → fill → accept, `cycles` times. Returns wall time; memory is read by the driver. */
  async soak(key, cycles) {
    const t0 = now();
    let last = null;
    for (let i = 0; i < cycles; i++) {
      const h = I.open(key);
      const result = await I.fillAndAccept(h);
      assert(result?.action === 'accept' && result.content?.city === 'Lisbon', `soak: cycle ${i} did not accept Lisbon`);
      last = result;
      // Let timers and idle work run now and then, as a real page would between elicitations.
      if (i % 250 === 249) await new Promise((ok) => setTimeout(ok, 0));
    }
    return { ms: now() - t0, last };
  },

  async state() {
    if (typeof window.gc === 'function') {
      for (let i = 0; i < 3; i++) {
        window.gc();
        await new Promise((ok) => setTimeout(ok, 0));
      }
    }
    const mem = await I.memory();
    return {
      ...mem,
      jsHeap: performance.memory ? performance.memory.usedJSHeapSize : null,
      timers: probe.timers,
      listeners: probe.listeners,
      open: impl === 'ours' ? document.querySelector(TAG).open : peer.dialog().open,
      nodes: I.domNodes(),
    };
  },
};
