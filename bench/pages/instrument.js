// Loaded as a classic script before anything else on the bench page. Times the two browser calls
// that do style work inside an open (showModal, focus) so the driver can split "our code" from
// "the browser's style and layout", and (with ?instrument) counts live timers and the net number
// of event listeners added, so the soak can check nothing survives a cycle.
(() => {
  const now = () => performance.now();
  const probe = (window.__benchProbe = { browserMs: 0, timers: 0, listeners: 0, added: 0, removed: 0 });
  const timeIt = (proto, name) => {
    const original = proto[name];
    proto[name] = function (...args) {
      const t0 = now();
      try {
        return original.apply(this, args);
      } finally {
        probe.browserMs += now() - t0;
      }
    };
  };
  timeIt(HTMLDialogElement.prototype, 'showModal');
  timeIt(HTMLElement.prototype, 'focus');

  // The wasm instance's memory, for the soak's memory figure: the entry bundles the glue, so the
  // page has no module to ask for it.
  for (const name of ['instantiateStreaming', 'instantiate']) {
    const original = WebAssembly[name];
    WebAssembly[name] = async function (...args) {
      const result = await original.apply(this, args);
      const instance = result instanceof WebAssembly.Instance ? result : result.instance;
      if (instance?.exports.memory instanceof WebAssembly.Memory) probe.wasmMemory = instance.exports.memory;
      return result;
    };
  }

  if (!new URLSearchParams(location.search).has('instrument')) return;

  const live = new Set();
  const { setTimeout: st, clearTimeout: ct, setInterval: si, clearInterval: ci } = window;
  window.setTimeout = function (fn, ms, ...rest) {
    let id;
    const wrapped = typeof fn === 'function' ? (...a) => { live.delete(id); fn(...a); } : fn;
    id = st.call(window, wrapped, ms, ...rest);
    live.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    live.delete(id);
    return ct.call(window, id);
  };
  window.setInterval = function (...args) {
    const id = si.apply(window, args);
    live.add(id);
    return id;
  };
  window.clearInterval = function (id) {
    live.delete(id);
    return ci.call(window, id);
  };
  Object.defineProperty(probe, 'timers', { get: () => live.size });

  // Net listener count: adds minus removes of a (target, type, callback, capture) not yet seen.
  const seen = new WeakMap();
  const keyOf = (type, cb, opts) => `${type}|${typeof opts === 'boolean' ? opts : !!opts?.capture}`;
  const { addEventListener: add, removeEventListener: remove } = EventTarget.prototype;
  EventTarget.prototype.addEventListener = function (type, cb, opts) {
    if (cb) {
      let perCb = seen.get(cb);
      if (!perCb) seen.set(cb, (perCb = new Map()));
      let targets = perCb.get(keyOf(type, cb, opts));
      if (!targets) perCb.set(keyOf(type, cb, opts), (targets = new WeakSet()));
      if (!targets.has(this)) {
        targets.add(this);
        probe.added++;
      }
    }
    return add.call(this, type, cb, opts);
  };
  EventTarget.prototype.removeEventListener = function (type, cb, opts) {
    const targets = cb && seen.get(cb)?.get(keyOf(type, cb, opts));
    if (targets?.has(this)) {
      targets.delete(this);
      probe.removed++;
    }
    return remove.call(this, type, cb, opts);
  };
  Object.defineProperty(probe, 'listeners', { get: () => probe.added - probe.removed });
})();
