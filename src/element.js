// Entry of the distributable: instantiates the wasm (found beside this file) and defines
// <koder-mcp-elicitation>. Importing it twice is harmless.
import init, { defineElement, errorClass, validateContentJson, parseRequestJson, registerTranslationFtl } from "./elicitation_core.js";

export const ready = init({ module_or_path: new URL("./elicitation_core_bg.wasm", import.meta.url) }).then(() => {
  defineElement();
});
await ready;

export const ElicitationError = errorClass();

const json = (value, what) => {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {}
  throw new ElicitationError(`${what} is not JSON`);
};

/** The form's own rules: `{ valid, errors: [{ path, keyword, message }] }`. Throws ElicitationError for a malformed schema. */
export function validateContent(requestedSchema, content, options = {}) {
  return validateContentJson(json(requestedSchema, "requestedSchema"), json(content, "content"), options?.locale ?? "");
}

/** The normalized request, or throws ElicitationError (code -32602) naming the offending path. */
export function parseRequest(request) {
  return parseRequestJson(typeof request === "string" ? request : json(request, "request"));
}

/**
 * Adds a language, or overrides shipped messages: `messages` is Fluent text in the subset of
 * i18n/*.ftl, or an object of message id → pattern. Throws ElicitationError naming every problem
 * (and registers nothing then); open dialogs re-render.
 */
export function registerTranslation(locale, messages) {
  if (typeof messages !== "string") {
    if (messages === null || typeof messages !== "object") {
      throw new ElicitationError("registerTranslation: messages must be Fluent text or an object of id → pattern");
    }
    // One message per entry; a pattern's further lines are indented, as Fluent continues them.
    messages = Object.entries(messages).map(([id, pattern]) => `${id} = ${String(pattern).replace(/\n/g, "\n ")}`).join("\n");
  }
  registerTranslationFtl(String(locale), messages);
}
