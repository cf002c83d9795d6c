// Entry of the distributable: instantiates the wasm (found beside this file) and defines
// <koder-mcp-elicitation>. Importing it twice is harmless. Where there is no customElements (a
// server render, a worker) it defines nothing and fetches nothing; Node takes the package's `node`
// export instead (element.node.js), which can load the wasm from disk.
import init, { defineElement } from "./elicitation_core.js";
import { ElicitationError, coreFunctions } from "./js/api.js";

export { ElicitationError };

const hasCustomElements = typeof customElements !== "undefined";
let coreLoaded = false;

export const ready = hasCustomElements
  ? init({ module_or_path: new URL("./elicitation_core_bg.wasm", import.meta.url) }).then(() => {
      coreLoaded = true;
      defineElement();
    })
  : Promise.resolve();
await ready;

function requireCore() {
  if (!coreLoaded) {
    throw new ElicitationError("koder-mcp-elicitation: the WebAssembly core is not loaded where customElements is absent (in Node, import the package by name)", -32603);
  }
}

export const { validateContent, parseRequest, registerTranslation } = coreFunctions(requireCore);
