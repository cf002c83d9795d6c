// The custom element class: a thin shim that forwards lifecycle calls and the public API to the
// Rust controller. Everything with a rule in it lives in Rust.
// One class per page, kept on globalThis: the entries export it without waiting for the wasm (where
// there is no customElements it is never loaded), and every copy of the package shares it.
const ERROR_CLASS = Symbol.for("koder-mcp-elicitation.ElicitationError");
export const ElicitationError = (globalThis[ERROR_CLASS] ??= class ElicitationError extends Error {
  constructor(message, code = -32602) {
    super(message);
    this.name = "ElicitationError";
    this.code = code;
  }
});

export function abortError() {
  return new DOMException("The server withdrew the elicitation", "AbortError");
}

/** Who else answered, when `signal` aborted with the reason `{ answeredBy: "<name>" }`; else undefined. */
export function answeredBy(signal) {
  const name = signal.reason?.answeredBy;
  return typeof name === "string" && name.trim() !== "" ? name : undefined;
}

const ATTRIBUTES = [
  "server-name", "lang", "timeout-ms", "user-id", "workspace-id", "conversation-id",
  "status-url", "poll-interval-ms", "rate-limit", "strict", "presentation", "settled",
  "notify", "one-tap",
];
const BOOLEAN_ATTRIBUTES = new Set(["strict", "notify", "one-tap"]);
const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

function requestText(request) {
  if (typeof request === "string") return request;
  try {
    return JSON.stringify(request) ?? null;
  } catch {
    return null; // cycles and BigInts become a -32602 in Rust
  }
}

/**
 * The element's language tags, best first, one per line: the nearest `lang` (the element's own or
 * an ancestor's), then `navigator.languages`. The core picks the locale; this only reads the page,
 * in one call. A page that replaced the getter with one that throws gets the rest.
 */
export function languageCandidates(element) {
  const tags = [];
  const nearest = element.closest("[lang]")?.getAttribute("lang");
  if (nearest) tags.push(nearest);
  try {
    const languages = navigator.languages;
    if (Array.isArray(languages)) for (const tag of languages) if (typeof tag === "string") tags.push(tag);
  } catch {}
  return tags.join("\n");
}

/**
 * The options of `elicit()` / `elicitRequired()` / `elicitInputs()` as the core takes them:
 * `[signal, timeoutMs, serverName]`, each `undefined` unless it has the right type. Read here, in
 * one step, because the getters are page code: one that throws counts as absent.
 */
function readOptions(options) {
  if (options === null || typeof options !== "object") return [undefined, undefined, undefined];
  const read = (name) => {
    try {
      return options[name];
    } catch {
      return undefined;
    }
  };
  const signal = read("signal");
  const timeoutMs = read("timeoutMs");
  const serverName = read("serverName");
  return [
    signal instanceof AbortSignal ? signal : undefined,
    typeof timeoutMs === "number" ? timeoutMs : undefined,
    typeof serverName === "string" ? serverName : undefined,
  ];
}

// elicit() calls that share one AbortSignal object are one round: SDK v2 hands every handler call
// of an input_required round the same signal, and elicitInputs() one per round. The core keeps the
// round's rules (its "k of N", one Esc cancelling the rest); this only numbers signals, weakly.
const rounds = new WeakMap(); // AbortSignal → round number
let lastRound = 0;
function roundOf(signal) {
  if (signal === undefined) return undefined;
  let round = rounds.get(signal);
  if (round === undefined) rounds.set(signal, (round = ++lastRound));
  return round;
}

// Panic containment. The core is built with panic=abort: a panic runs the Rust panic hook, which
// calls reportPanic() below, and then the wasm traps (a WebAssembly.RuntimeError thrown out of
// whatever call was running). After that the core's memory cannot be trusted, so the shim stops
// calling it: every outstanding elicit() promise resolves as { action: "cancel" } with a `cancel`
// event (source "error", plus `error: { code: -32603, message }`), every elicitRequired() promise
// as { retry: false, action: "cancel" }, every elicitInputs() round with each of its keys a
// cancel, every dialog is removed so the page is usable again, and later calls are refused with an
// ElicitationError (code -32603).
const INTERNAL_ERROR = -32603;
const CANCEL = Object.freeze({ action: "cancel" });
const NO_RETRY = Object.freeze({ retry: false, action: "cancel" });
let crashed = null; // the panic message once the core has failed
const outstanding = new Set(); // { element, text, resolve }

/** Called by the Rust panic hook (src/element.rs `define()`), before the trap. */
export function reportPanic(message) {
  contain(String(message || "the WebAssembly core failed"));
}

function contain(message) {
  if (crashed !== null) return;
  crashed = message;
  const records = [...outstanding];
  outstanding.clear();
  for (const element of new Set(records.map((record) => record.element))) {
    // Removing a modal dialog takes it out of the top layer without a `close` event, which would
    // call back into the failed core.
    try {
      element.shadowRoot?.replaceChildren();
    } catch {}
  }
  for (const record of records) record.resolve(record.crashed ?? CANCEL);
  // Page handlers run after the trap has unwound, never inside the panicking call.
  queueMicrotask(() => {
    for (const record of records) {
      try {
        record.element.dispatchEvent(new CustomEvent("cancel", {
          bubbles: true,
          composed: true,
          detail: crashDetail(record, message),
        }));
      } catch {}
    }
  });
}

function crashError() {
  return new ElicitationError(`koder-mcp-elicitation stopped after an internal error (${crashed}); reload the page`, INTERNAL_ERROR);
}

/** Best-effort event detail for a request the core can no longer describe. */
function crashDetail(record, message) {
  let request = null;
  try {
    request = JSON.parse(record.text);
    if (typeof request === "string") request = JSON.parse(request);
  } catch {}
  if (request === null || typeof request !== "object" || Array.isArray(request)) request = {};
  const hasOwn = (key) => Object.prototype.hasOwnProperty.call(request, key);
  const params = hasOwn("jsonrpc") && request.params && typeof request.params === "object" ? request.params : request;
  const id = hasOwn("id") && (typeof request.id === "string" || typeof request.id === "number") ? request.id : null;
  const mode = params.mode === "url" ? "url" : "form";
  let reply = CANCEL;
  if (hasOwn("jsonrpc")) reply = { jsonrpc: "2.0", id, result: CANCEL };
  else if (request.type === "elicitation/request") reply = { type: "elicitation/cancel", id };
  const element = record.element;
  if (record.crashed !== null) {
    // An elicitRequired() call: a -32042 error response, which nothing answers.
    return { id, mode: "url", scope: crashScope(element, ""), result: null, reply: null, source: "error", error: { code: INTERNAL_ERROR, message } };
  }
  const elicitationId = typeof params.elicitationId === "string" ? params.elicitationId : id === null ? "" : String(id);
  return {
    id,
    mode,
    scope: crashScope(element, elicitationId),
    result: CANCEL,
    reply,
    source: "error",
    error: { code: INTERNAL_ERROR, message },
  };
}

function crashScope(element, elicitationId) {
  return {
    userId: element.getAttribute("user-id") ?? "",
    workspaceId: element.getAttribute("workspace-id") ?? "",
    conversationId: element.getAttribute("conversation-id") ?? "",
    elicitationId,
  };
}

/** Runs a core call; a trap (or a call after one) is contained and `fallback()` answers instead. */
function guarded(action, fallback) {
  if (crashed !== null) return fallback();
  try {
    return action();
  } catch (error) {
    if (error instanceof WebAssembly.RuntimeError) {
      contain(error.message);
      return fallback();
    }
    throw error;
  }
}

// The element is defined before the wasm is in: the entry calls defineElement(tag) at import, and
// the wasm's define() calls it again with the controller factory. An instance made in between has no
// controller yet; the calls made on it wait in its queue and run, in order, once it has one.
let createController = null;
const waiting = new Set(); // instances still without a controller
let startWaiting = null; // gives each waiting instance its controller (set by the class)

/**
 * Defines `tag` once per page (guarded by `customElements.get`). Without `factory` the instances
 * wait for it; with it, every instance made so far gets its controller, with its attributes and
 * connection as they are now, and then the calls it queued.
 */
export function defineElement(tag, factory) {
  if (factory && createController === null) createController = factory;
  if (!customElements.get(tag)) defineClass(tag);
  if (createController !== null) {
    for (const element of [...waiting]) {
      try {
        startWaiting(element);
      } catch (error) {
        queueMicrotask(() => { throw error; }); // reported; the other instances still start
      }
    }
  }
}

/** The wasm did not load: every call waiting for it, and every later one, rejects with -32603. */
export function coreUnavailable(reason) {
  contain(`the WebAssembly core did not load: ${reason}`);
  for (const element of [...waiting]) startWaiting(element);
}

function defineClass(tag) {
  class KoderMcpElicitation extends HTMLElement {
    static get observedAttributes() { return ATTRIBUTES; }
    static { startWaiting = (element) => element.#start(); }
    #core = null;
    /** Calls made before the wasm, in order: `{ run, signal, withdraw }`; null once it is in. */
    #queue = null;
    constructor() {
      super();
      if (createController !== null) this.#core = guarded(() => createController(this), () => null);
      else if (crashed === null) {
        this.#queue = [];
        waiting.add(this);
      }
    }
    /** The wasm is in (or failed): the controller, then what happened meanwhile, then the queued calls. */
    #start() {
      waiting.delete(this);
      const queue = this.#queue ?? [];
      this.#queue = null;
      try {
        if (createController !== null) {
          this.#core = guarded(() => createController(this), () => null);
          for (const name of ATTRIBUTES) {
            const value = this.getAttribute(name);
            if (value !== null) this.attributeChangedCallback(name, null, value);
          }
          if (this.isConnected) this.connectedCallback();
        }
      } finally {
        // Even after a fault above, every queued call runs, so its promise settles.
        for (const call of queue) {
          call.signal?.removeEventListener("abort", call.withdraw);
          call.run();
        }
      }
    }
    /**
     * A call made before the wasm: its promise settles with what the call gives once the wasm is in.
     * Aborting its signal meanwhile rejects it at once with an AbortError, as an already aborted
     * signal would; nothing is shown.
     */
    #later(call, options) {
      const [signal] = readOptions(options);
      return new Promise((resolve, reject) => {
        const queued = {
          signal,
          run: () => {
            try {
              resolve(call());
            } catch (error) {
              reject(error); // settles here rather than stopping the calls queued after it
            }
          },
          withdraw: () => {
            const at = this.#queue?.indexOf(queued) ?? -1;
            if (at < 0) return;
            this.#queue.splice(at, 1);
            signal?.removeEventListener("abort", queued.withdraw);
            reject(abortError());
          },
        };
        if (signal?.aborted) return reject(abortError());
        signal?.addEventListener("abort", queued.withdraw, { once: true });
        this.#queue.push(queued);
      });
    }
    connectedCallback() { if (!this.#queue) guarded(() => this.#core.connected(), () => {}); }
    disconnectedCallback() { if (!this.#queue) guarded(() => this.#core.disconnected(), () => {}); }
    attributeChangedCallback(name, old, value) {
      if (old !== value && !this.#queue) guarded(() => this.#core.attributeChanged(name, value), () => {});
    }
    elicit(request, options = {}) {
      if (this.#queue) return this.#later(() => this.elicit(request, options), options);
      return this.#elicit(request, ...readOptions(options));
    }
    #elicit(request, signal, timeoutMs, serverName) {
      return this.#call((text, done, failed) => this.#core.elicit(text, done, failed, signal, timeoutMs, serverName, roundOf(signal)), request, null);
    }
    /**
     * MCP 2026-07-28: one round's elicitations (an InputRequiredResult, the JSON-RPC response
     * holding it, or its inputRequests map), queued at once so the dialog counts "1 of N".
     * Resolves the round's inputResponses (key → ElicitResult). Each entry is the person's own
     * answer: a declined one does not end the round, the host decides whether to retry; the
     * person's cancel of one cancels the rest (one signal: one round, see roundOf). Sampling,
     * roots and other entries are the host's and are not in the result.
     */
    elicitInputs(input, options = {}) {
      if (this.#queue) return this.#later(() => this.elicitInputs(input, options), options);
      if (crashed !== null || this.#core === null) return Promise.reject(crashError());
      let entries;
      try {
        entries = guarded(() => this.#core.inputRound(requestText(input), this.hasAttribute("strict")), () => null);
      } catch (error) {
        return Promise.reject(error); // malformed: the ElicitationError naming the key, nothing shown
      }
      if (entries === null) return Promise.reject(crashError());
      const [signal, timeoutMs, serverName] = readOptions(options);
      // One signal for the round: the host's abort, or an entry that fails, withdraws every entry
      // still pending, so nothing stays on screen for a round that is over.
      const round = new AbortController();
      const withdraw = () => round.abort();
      if (signal?.aborted) withdraw();
      else signal?.addEventListener("abort", withdraw, { once: true });
      const answers = entries.map(([key, params]) => this.#elicit(params, round.signal, timeoutMs, serverName).then(
        (result) => [key, result],
        (error) => {
          if (crashed !== null) return [key, CANCEL]; // the core failed: every entry is a cancel
          withdraw();
          throw error;
        },
      ));
      // Object.fromEntries defines own keys, so a key like "__proto__" stays data.
      return Promise.all(answers)
        .then(Object.fromEntries)
        .finally(() => signal?.removeEventListener("abort", withdraw));
    }
    /** URLElicitationRequiredError (-32042): the error response, its error object, the SDK's error, or its data. */
    elicitRequired(error, options = {}) {
      if (this.#queue) return this.#later(() => this.elicitRequired(error, options), options);
      return this.#call((text, done, failed) => this.#core.elicitRequired(text, done, failed, ...readOptions(options)), error, NO_RETRY);
    }
    // The core settles the call through `done` / `failed`, exactly once; a trap settles it through
    // contain() instead (both go through `outstanding`, so only the first counts).
    #call(run, input, crashedResult) {
      if (crashed !== null || this.#core === null) return Promise.reject(crashError());
      const text = requestText(input);
      let record;
      const settled = new Promise((resolve, reject) => {
        record = { element: this, text, resolve, reject, crashed: crashedResult };
      });
      outstanding.add(record);
      guarded(() => run(
        text,
        (result) => { if (outstanding.delete(record)) record.resolve(result); },
        (error) => { if (outstanding.delete(record)) record.reject(error); },
      ), () => null);
      return settled;
    }
    // Before the wasm nothing shows, so nothing waits for complete(); cancel() withdraws the first
    // waiting call as its signal would, and pending counts the waiting calls (a round as one).
    complete(elicitationId, options) {
      if (this.#queue) return false;
      return guarded(() => this.#core.complete(String(elicitationId), readOptions(options)[2]), () => false);
    }
    cancel() {
      if (this.#queue) this.#queue[0]?.withdraw();
      else guarded(() => this.#core.cancel(), () => {});
    }
    // Inline: focus goes into the card (its first field) or onto the summary it left.
    focus(options) {
      if (this.getAttribute("presentation") === "inline" && this.#core) guarded(() => this.#core.focusInline(), () => {});
      else super.focus(options);
    }
    get open() { return this.#queue ? false : guarded(() => this.#core.isOpen(), () => false); }
    get pending() { return this.#queue ? this.#queue.length : guarded(() => this.#core.pending(), () => 0); }
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
