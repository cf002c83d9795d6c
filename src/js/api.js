// The module exports both entries share: the page-wide ElicitationError, the two core checks
// over JSON text, and registering a language. Each entry decides how the wasm gets loaded before a check runs.
import { validateContentJson, parseRequestJson, registerTranslationFtl } from "../elicitation_core.js";

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

export function registerMessages(locale, messages) {
  if (typeof messages !== "string") {
    if (messages === null || typeof messages !== "object") {
      throw new ElicitationError("registerTranslation: messages must be Fluent text or an object of id → pattern");
    }
    // One message per entry; a pattern's further lines are indented, as Fluent continues them.
    messages = Object.entries(messages).map(([id, pattern]) => `${id} = ${String(pattern).replace(/\n/g, "\n ")}`).join("\n");
  }
  registerTranslationFtl(String(locale), messages);
}
