// Entry of the distributable: defines <koder-mcp-elicitation> at once and starts loading the wasm
// (found beside this file) without waiting for it, so importing holds up nothing; calls made
// before the wasm is in wait inside their promises (src/js/define.js), and `ready` resolves when it
// is in. Importing it twice is harmless. Where there is no customElements (a server render, a
// worker) it defines nothing and fetches nothing; Node takes the package's `node` export instead
// (element.node.js), which can load the wasm from disk.
import init, { defineElement as defineWithCore } from "./elicitation_core.js";
import { ElicitationError, coreFunctions, requestNotificationPermission } from "./js/api.js";
// The same module instance as the glue's own snippet: the build bundles both as one.
import { coreUnavailable, defineElement } from "./js/define.js";

export { ElicitationError, requestNotificationPermission };

const TAG = "koder-mcp-elicitation";
const hasCustomElements = typeof customElements !== "undefined";
let coreLoaded = false;

if (hasCustomElements) {
  defineElement(TAG);
  // Here rather than in define.js: that file is also a wasm-bindgen snippet, copied alone. The
  // relay client is its own module, fetched on the first call: pages that never join a relay
  // download nothing for it.
  customElements.get(TAG).prototype.connectRelay ??= function (url, options) {
    if (typeof options?.token !== "function") throw new TypeError("connectRelay: options.token must be a function");
    if (options.place !== undefined && typeof options.place !== "function") throw new TypeError("connectRelay: options.place must be a function");
    let disconnect = null;
    let stopped = false;
    import("./js/relay.js").then(
      ({ connectRelay }) => { if (!stopped) disconnect = connectRelay(this, url, options); },
      (error) => globalThis.reportError?.(error),
    );
    return () => {
      stopped = true;
      disconnect?.();
    };
  };
}

/** Resolves once the wasm is in and the element has its controller; rejects if it cannot load. */
export const ready = hasCustomElements
  ? init({ module_or_path: new URL("./elicitation_core_bg.wasm", import.meta.url) }).then(
      () => {
        coreLoaded = true;
        defineWithCore();
      },
      (error) => {
        coreUnavailable(error?.message ?? String(error));
        throw error;
      },
    )
  : Promise.resolve();

function requireCore() {
  if (coreLoaded) return;
  throw hasCustomElements
    ? new ElicitationError("koder-mcp-elicitation: the WebAssembly core is still loading; await ready first", -32603)
    : new ElicitationError("koder-mcp-elicitation: the WebAssembly core is not loaded where customElements is absent (in Node, import the package by name)", -32603);
}

export const { validateContent, parseRequest, registerTranslation } = coreFunctions(requireCore);
