// Event listeners added and removed one target at a time: the Rust side names the event types
// (src/dom/listener.rs) and this adds or removes them all in one call, instead of one boundary
// crossing per type.

// Non-passive, so handlers may preventDefault (Tab, Esc); one object shared by every listener.
const ACTIVE = Object.freeze({ passive: false });

// A page that patched addEventListener to throw must not unwind through the wasm (it would leave
// the element's state borrowed), so each call is guarded here.

/** Adds `callback` on `target` for each of the space-separated event `types`. */
export function listen(target, types, callback) {
  for (const type of types.split(" ")) {
    try {
      target.addEventListener(type, callback, ACTIVE);
    } catch {}
  }
}

/** Removes what `listen(target, types, callback)` added. */
export function unlisten(target, types, callback) {
  for (const type of types.split(" ")) {
    try {
      target.removeEventListener(type, callback);
    } catch {}
  }
}
