// The module exports both entries share: the page-wide ElicitationError and the two core checks
// over JSON text. Each entry decides how the wasm gets loaded before a check runs.
import { validateContentJson, parseRequestJson } from "../elicitation_core.js";

// Set by the glue's snippet (define.js), which loads before this module's body runs.
export const ElicitationError = globalThis[Symbol.for("koder-mcp-elicitation.ElicitationError")];

const json = (value, what) => {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {}
  throw new ElicitationError(`${what} is not JSON`);
};

export function checkContent(requestedSchema, content, options) {
  return validateContentJson(json(requestedSchema, "requestedSchema"), json(content, "content"), options?.locale ?? "");
}

export function normalizeRequest(request) {
  return parseRequestJson(typeof request === "string" ? request : json(request, "request"));
}
