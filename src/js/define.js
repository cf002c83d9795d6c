// The custom element class: a thin shim that forwards lifecycle calls and the public API to the
// Rust controller. Everything with a rule in it lives in Rust.
export class ElicitationError extends Error {
  constructor(message, code = -32602) {
    super(message);
    this.name = "ElicitationError";
    this.code = code;
  }
}

export function abortError() {
  return new DOMException("The server withdrew the elicitation", "AbortError");
}

const ATTRIBUTES = [
  "server-name", "lang", "timeout-ms", "user-id", "workspace-id", "conversation-id",
  "status-url", "poll-interval-ms", "rate-limit", "strict",
];
const BOOLEAN_ATTRIBUTES = new Set(["strict"]);
const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

function requestText(request) {
  if (typeof request === "string") return request;
  try {
    return JSON.stringify(request) ?? null;
  } catch {
    return null; // cycles and BigInts become a -32602 in Rust
  }
}

export function defineElement(tag, createController) {
  if (customElements.get(tag)) return;
  class KoderMcpElicitation extends HTMLElement {
    static get observedAttributes() { return ATTRIBUTES; }
    #core = createController(this);
    connectedCallback() { this.#core.connected(); }
    disconnectedCallback() { this.#core.disconnected(); }
    attributeChangedCallback(name, old, value) { if (old !== value) this.#core.attributeChanged(name); }
    elicit(request, options = {}) { return this.#core.elicit(requestText(request), options ?? {}); }
    complete(elicitationId) { return this.#core.complete(String(elicitationId)); }
    cancel() { this.#core.cancel(); }
    get open() { return this.#core.isOpen(); }
    get pending() { return this.#core.pending(); }
  }
  for (const name of ATTRIBUTES) {
    if (name === "lang") continue; // HTMLElement already reflects lang
    Object.defineProperty(KoderMcpElicitation.prototype, camel(name), {
      get() { return BOOLEAN_ATTRIBUTES.has(name) ? this.hasAttribute(name) : this.getAttribute(name); },
      set(value) {
        if (BOOLEAN_ATTRIBUTES.has(name)) this.toggleAttribute(name, Boolean(value));
        else if (value === null || value === undefined) this.removeAttribute(name);
        else this.setAttribute(name, String(value));
      },
      configurable: true,
      enumerable: true,
    });
  }
  customElements.define(tag, KoderMcpElicitation);
}

export function errorClass() {
  return ElicitationError;
}
