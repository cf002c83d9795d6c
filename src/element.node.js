// Server entry of the distributable (the package's `node` export condition: Node, Bun, Deno,
// server renders). There is no DOM, so nothing is defined and importing reads nothing; the first
// validateContent or parseRequest loads the wasm synchronously from this package's own file, so a
// server checks answers with the very rules the dialog applied.
import { readFileSync } from "node:fs";
import { initSync } from "./elicitation_core.js";
import { ElicitationError, checkContent, normalizeRequest, registerMessages } from "./js/api.js";

export { ElicitationError };

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

/** The form's own rules: `{ valid, errors: [{ path, keyword, message }] }`. Throws ElicitationError for a malformed schema. */
export function validateContent(requestedSchema, content, options = {}) {
  requireCore();
  return checkContent(requestedSchema, content, options);
}

/** The normalized request, or throws ElicitationError (code -32602) naming the offending path. */
export function parseRequest(request) {
  requireCore();
  return normalizeRequest(request);
}

/**
 * Adds a language, or overrides shipped messages, for `validateContent`'s messages on the server:
 * the same Fluent subset as the page entry's. Throws ElicitationError naming every problem.
 */
export function registerTranslation(locale, messages) {
  requireCore();
  registerMessages(locale, messages);
}
