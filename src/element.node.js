// Server entry of the distributable (the package's `node` export condition: Node, Bun, Deno,
// server renders). There is no DOM, so nothing is defined and importing reads nothing; the first
// validateContent or parseRequest loads the wasm synchronously from this package's own file, so a
// server checks answers with the very rules the dialog applied.
import { readFileSync } from "node:fs";
import { initSync } from "./elicitation_core.js";
import { ElicitationError, coreFunctions, requestNotificationPermission } from "./js/api.js";

export { ElicitationError, requestNotificationPermission };

/** Nothing to define on a server: resolved at once. The core loads on the first check. */
export const ready = Promise.resolve();

let coreLoaded = false;

function requireCore() {
  if (coreLoaded) return;
  const wasm = new URL("./elicitation_core_bg.wasm", import.meta.url);
  let bytes;
  try {
    bytes = readFileSync(wasm);
  } catch (error) {
    throw new ElicitationError(`koder-mcp-elicitation: cannot read ${wasm.href} (${error.message}); keep dist/ whole, or leave the package out of a server bundle`, -32603);
  }
  initSync({ module: bytes });
  coreLoaded = true;
}

export const { validateContent, parseRequest, registerTranslation } = coreFunctions(requireCore);
