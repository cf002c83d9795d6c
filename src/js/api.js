// What both entries export beyond the element: the page-wide ElicitationError and the functions over
// the core (checks over JSON text, registering a language). Each entry decides how the wasm loads.
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

function checkContent(requestedSchema, content, options) {
  return validateContentJson(json(requestedSchema, "requestedSchema"), json(content, "content"), options?.locale ?? "");
}

function normalizeRequest(request) {
  return parseRequestJson(typeof request === "string" ? request : json(request, "request"));
}

function registerMessages(locale, messages, options) {
  if (typeof messages !== "string") {
    if (messages === null || typeof messages !== "object") {
      throw new ElicitationError("registerTranslation: messages must be Fluent text or an object of id → pattern");
    }
    // One message per entry; a pattern's further lines are indented, as Fluent continues them.
    messages = Object.entries(messages).map(([id, pattern]) => `${id} = ${String(pattern).replace(/\n/g, "\n ")}`).join("\n");
  }
  registerTranslationFtl(String(locale), messages, String(options?.direction ?? ""));
}

/**
 * The functions both entries export, each making sure the core is loaded first (`loadCore` throws
 * an ElicitationError where it cannot be): `validateContent` (the form's own rules:
 * `{ valid, errors: [{ path, keyword, message }] }`), `parseRequest` (the normalized request, or an
 * ElicitationError -32602 naming the offending path) and `registerTranslation` (a language in the
 * Fluent subset of i18n/*.ftl, as text or an object of id → pattern, running in
 * `options.direction`, else its script's; every problem named, nothing registered then; open
 * dialogs re-render).
 */
export function coreFunctions(loadCore) {
  return {
    validateContent(requestedSchema, content, options = {}) {
      loadCore();
      return checkContent(requestedSchema, content, options);
    },
    parseRequest(request) {
      loadCore();
      return normalizeRequest(request);
    },
    registerTranslation(locale, messages, options) {
      loadCore();
      registerMessages(locale, messages, options);
    },
  };
}

/**
 * Asks the browser for permission to show notifications (`notify`), for the host to call from the
 * person's click: the element never asks by itself. Resolves `"granted"`, `"denied"` or
 * `"default"` (not decided); `"denied"` where there are no notifications (a server, a worker).
 */
export async function requestNotificationPermission() {
  if (typeof Notification !== "function") return "denied";
  return Notification.requestPermission();
}
