// Type declarations for koder-mcp-elicitation (copied to dist/koder-mcp-elicitation.d.ts by
// scripts/build.mjs). They describe the public contract: importing the entry defines
// <koder-mcp-elicitation>; the element answers MCP `elicitation/create` requests.

// ---------------------------------------------------------------------------------------------
// Requests

/** A JSON Schema for one property of `requestedSchema` (the MCP subset plus the extensions). */
export interface PropertySchema {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  title?: string;
  description?: string;
  default?: unknown;
  format?: "email" | "uri" | "date" | "date-time" | "textarea" | (string & {});
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: readonly unknown[];
  enumNames?: readonly string[];
  const?: unknown;
  oneOf?: readonly PropertySchema[];
  anyOf?: readonly PropertySchema[];
  items?: PropertySchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  /** Extension (nested `object`, off under `strict`). */
  properties?: { [name: string]: PropertySchema };
  required?: readonly string[];
  [keyword: string]: unknown;
}

/** `requestedSchema` of a form-mode request: a flat object of primitive properties in MCP. */
export interface RequestedSchema {
  type: "object";
  properties: { [name: string]: PropertySchema };
  required?: readonly string[];
  $schema?: string;
  [keyword: string]: unknown;
}

/** Bare MCP params, form mode (a missing `mode` means form). */
export interface FormElicitParams {
  mode?: "form";
  message: string;
  requestedSchema: RequestedSchema;
  /** `persist` offers "remember" scopes (Codex's tool approvals): the result may name one. */
  _meta?: { persist?: ElicitPersist | readonly ElicitPersist[]; [key: string]: unknown };
  [key: string]: unknown;
}

/** Bare MCP params, URL mode (2025-11-25 has `elicitationId`; 2026-07-28 does not). */
export interface UrlElicitParams {
  mode: "url";
  message: string;
  url: string;
  elicitationId?: string;
  [key: string]: unknown;
}

export type ElicitParams = FormElicitParams | UrlElicitParams;

/** A JSON-RPC `elicitation/create` request. */
export interface JsonRpcElicitRequest {
  jsonrpc: "2.0";
  id: string | number;
  method: "elicitation/create";
  params: ElicitParams;
}

/** The Koder envelope. `schema` is the requested schema, `title` the heading, `description` the message, `timeout` in ms. */
export interface KoderElicitationEnvelope {
  type: "elicitation/request";
  id: string | number;
  schema?: RequestedSchema;
  title?: string;
  description?: string;
  mode?: "form" | "url";
  url?: string;
  timeout?: number;
}

/** Anything `elicit()` accepts: the three request shapes, or a JSON string of one of them. */
export type ElicitRequestInput = ElicitParams | JsonRpcElicitRequest | KoderElicitationEnvelope | string;

export interface ElicitOptions {
  /**
   * Aborting it (the server withdrew the request) closes the dialog, sends nothing and rejects with `AbortError`.
   *
   * `elicit()` calls that share one signal object while pending are one round (SDK v2 passes one
   * `ctx.mcpReq.signal` to every handler call of an MCP 2026-07-28 round; `elicitInputs` does the
   * same): the queue line counts the round ("1 of 2", then "2 of 2"), and the user's cancel of one
   * (Esc, the close or Cancel button) cancels the rest of the round still open or queued, each
   * settling `{ action: "cancel" }` with its own `cancel` event (`source: "user"`), so one Esc ends
   * the call. Decline and accept leave the others. Calls without a signal are each on their own.
   */
  signal?: AbortSignal;
  /** Overrides the `timeout-ms` attribute for this elicitation. */
  timeoutMs?: number;
  /** Overrides the `server-name` attribute for this elicitation. */
  serverName?: string;
}

/** The options of `connectRelay()`. */
export interface ConnectRelayOptions {
  /**
   * Resolves the person's relay token: an HS256 JWT your app signs (`sub`, `workspace`, optional
   * `conversation`, `exp`). Called to connect, and again whenever the relay answers 401.
   */
  token: () => string | Promise<string>;
  /**
   * Where each pending elicitation shows. Called once per elicitation as it arrives, with what a
   * chat host needs to pick the right transcript; return the element that shows it (for example a
   * new `<koder-mcp-elicitation presentation="inline">` appended to that conversation's
   * transcript, with its `conversation-id`). The relay client drives that element for that
   * elicitation (`elicit()`, the answer posted back, a close when it ends elsewhere). Without
   * `place`, or when it returns nothing, the element `connectRelay` was called on shows it.
   */
  place?: (view: RelayPlaceView) => HTMLElement | null | undefined;
}

/** What `place` is told about one relay elicitation. Server strings are for text only. */
export interface RelayPlaceView {
  /** The relay's id for it (also `detail.id` of the placed element's events). */
  readonly id: string;
  /** The conversation the host created it in (`""` when none). */
  readonly conversationId: string;
  /** The person it is for. */
  readonly userId: string;
  /** Their workspace. */
  readonly workspaceId: string;
  /** The MCP server's name, or `null`. */
  readonly serverName: string | null;
  /** The server's message (its question). */
  readonly message: string;
  /** `"form"` or `"url"`. */
  readonly mode: "form" | "url";
}

// ---------------------------------------------------------------------------------------------
// Results

/** A value of accepted content; nested objects come only from the nested-`object` extension. */
export type ElicitValue = string | number | boolean | string[] | { [name: string]: ElicitValue };

/** The MCP `ElicitResult` the element settles with, exactly once. */
export type ElicitResult =
  | {
      action: "accept";
      content?: { [name: string]: ElicitValue };
      /** A remembered accept: `persist` names the scope the person chose, as the request offered. */
      _meta?: { persist?: ElicitPersist; [key: string]: unknown };
    }
  | { action: "decline" }
  | { action: "cancel" };

/** A scope a request's `_meta.persist` offers and a remembered accept names (contract §13). */
export type ElicitPersist = "session" | "always";

/** `ElicitResult` wrapped in the request's own protocol (§7 `reply`). */
export type ElicitReply =
  | { jsonrpc: "2.0"; id: string | number | null; result: ElicitResult }
  | { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string } }
  | {
      type: "elicitation/accept" | "elicitation/reject" | "elicitation/cancel" | "elicitation/timeout";
      id: string | number | null;
      content?: { [name: string]: ElicitValue };
      reason?: string;
      _meta?: { persist?: ElicitPersist; [key: string]: unknown };
    }
  | ElicitResult;

/** One URL-mode elicitation of a URLElicitationRequiredError: `elicitationId` is required. */
export interface RequiredUrlElicitation extends UrlElicitParams {
  elicitationId: string;
}

/** The `data` of a URLElicitationRequiredError (-32042). */
export interface UrlElicitationRequiredData {
  elicitations: RequiredUrlElicitation[];
  [key: string]: unknown;
}

/**
 * What `elicitRequired()` accepts: the JSON-RPC error response, its `error` object (the official
 * SDK's `UrlElicitationRequiredError` is one), or the bare `data`; or a JSON string of any of them.
 */
export type UrlElicitationRequiredInput =
  | { jsonrpc: "2.0"; id: string | number | null; error: { code: -32042; message?: string; data: UrlElicitationRequiredData } }
  | { code: -32042; message?: string; data: UrlElicitationRequiredData }
  | UrlElicitationRequiredData
  | string;

/**
 * How a -32042 flow ended: `retry: true` once every elicitation completed (retry the original
 * request); otherwise what the user did with the elicitation that stopped it (a timeout or
 * dismissal counts as `cancel`).
 */
export type ElicitRequiredResult =
  | { retry: true }
  | { retry: false; action: "decline" | "cancel"; elicitationId: string };

/** One entry of an MCP 2026-07-28 `inputRequests` map: `elicitation/create`, sampling, roots, or newer. */
export type InputRequest =
  | { method: "elicitation/create"; params: ElicitParams }
  | { method: string; params?: unknown; [key: string]: unknown };

/** MCP 2026-07-28: server-chosen key → request the client must fulfil before it retries. */
export interface InputRequests {
  [key: string]: InputRequest;
}

/** MCP 2026-07-28: what a `tools/call`, `prompts/get` or `resources/read` answers when it needs input. */
export interface InputRequiredResult {
  resultType: "input_required";
  inputRequests?: InputRequests;
  /** Opaque: the retry echoes it exactly. */
  requestState?: string;
  [key: string]: unknown;
}

/**
 * What `elicitInputs()` accepts: the `InputRequiredResult`, the JSON-RPC response holding it, the
 * bare `inputRequests` map, or a JSON string of any of them.
 */
export type InputRequiredInput =
  | InputRequiredResult
  | { jsonrpc: "2.0"; id: string | number | null; result: InputRequiredResult }
  | InputRequests
  | string;

/**
 * The retry's `inputResponses` for a round's elicitations: each key the server chose → the
 * person's `ElicitResult`. Keys are kept as sent (a JS object lists integer-like keys first).
 */
export interface InputResponses {
  [key: string]: ElicitResult;
}

/** Thrown (or rejected with) for a malformed request: `code` is -32602 and `message` names the path. */
export declare class ElicitationError extends Error {
  constructor(message: string, code?: number);
  readonly name: "ElicitationError";
  readonly code: number;
}

// ---------------------------------------------------------------------------------------------
// Events

export interface ElicitationScope {
  userId: string;
  workspaceId: string;
  conversationId: string;
  elicitationId: string;
}

/** Common to every event's `detail`. */
export interface ElicitationEventDetail {
  /** The request id (JSON-RPC / envelope), or the elicitation id for bare params. */
  id: string | number | null;
  mode: "form" | "url";
  scope: ElicitationScope;
  /** The `ElicitResult` to send back, or `null` when nothing must be sent. */
  result: ElicitResult | null;
  /** `result` wrapped in the request's protocol, or `null`. */
  reply: ElicitReply | null;
}

export interface ElicitationAcceptDetail extends ElicitationEventDetail {
  result: { action: "accept"; content?: { [name: string]: ElicitValue } };
  /**
   * URL mode: the exact URL judged and shown. The event is then cancelable: call
   * `preventDefault()` to open it yourself (in-app browser, WebView, desktop shell); the element
   * then does not call `window.open`.
   */
  url?: string;
  /**
   * URL mode: the elicitation to pass to `complete()` (`elicitationId`, else the request id);
   * `null` on Continue (MCP 2026-07-28 has no `elicitationId`).
   */
  elicitationId?: string | null;
  /**
   * `true` on Continue (a URL already consented to, asked for again under MCP 2026-07-28): the
   * accept answers the round, nothing opens and the event is not cancelable. A host that opens URLs
   * itself skips it: `if (event.detail.mode !== "url" || event.detail.resumed) return;`.
   */
  resumed?: true;
}

/**
 * Open again (MCP 2026-07-28, a URL already consented to): fired before the element opens the URL
 * again. Cancelable: `preventDefault()` and open it yourself. Nothing is answered and the dialog stays.
 */
export interface ElicitationOpenDetail extends ElicitationEventDetail {
  mode: "url";
  result: null;
  reply: null;
  /** The exact URL judged and shown. */
  url: string;
  /** Always `null`: only requests without `elicitationId` are asked for again. */
  elicitationId: null;
}

export interface ElicitationRejectDetail extends ElicitationEventDetail {
  result: { action: "decline" };
  /** The optional reason the user typed. */
  reason: string | null;
}

export type ElicitationCancelSource = "user" | "server" | "workspace" | "rate-limit" | "detached";

export interface ElicitationCancelDetail extends ElicitationEventDetail {
  /**
   * `null` when `source` is `"server"`, or when a URL-mode wait ended (the accept already
   * answered): nothing must be sent.
   */
  result: { action: "cancel" } | null;
  source: ElicitationCancelSource;
  /** Set when a URL-mode wait ended without completing: close what you opened for it. */
  elicitationId?: string;
}

export interface ElicitationTimeoutDetail extends ElicitationEventDetail {
  /** `null` when a URL-mode wait timed out (the accept already answered). */
  result: { action: "cancel" } | null;
  /** Set when a URL-mode wait timed out. */
  elicitationId?: string;
}

export interface ElicitationCompleteDetail extends ElicitationEventDetail {
  result: null;
  elicitationId: string;
}

export interface ElicitationInvalidDetail extends ElicitationEventDetail {
  result: null;
  error: { code: number; message: string };
}

export interface KoderMcpElicitationEventMap {
  accept: CustomEvent<ElicitationAcceptDetail>;
  open: CustomEvent<ElicitationOpenDetail>;
  reject: CustomEvent<ElicitationRejectDetail>;
  cancel: CustomEvent<ElicitationCancelDetail>;
  timeout: CustomEvent<ElicitationTimeoutDetail>;
  complete: CustomEvent<ElicitationCompleteDetail>;
  invalid: CustomEvent<ElicitationInvalidDetail>;
}

/**
 * `on<event>` handler props, all lowercase: React 19, Preact and Svelte 5 attach a prop named
 * `onaccept` with `addEventListener("accept")`. (`onAccept` would listen for an event named
 * "Accept", and React's own `onCancel` / `onInvalid` never reach a custom element.)
 */
export type KoderMcpElicitationEventProps = {
  [K in keyof KoderMcpElicitationEventMap as `on${K}`]?: (event: KoderMcpElicitationEventMap[K]) => void;
};

// ---------------------------------------------------------------------------------------------
// The element

/** The element's attributes by their HTML names, as templates and JSX write them. */
export interface KoderMcpElicitationAttributes {
  "server-name"?: string;
  lang?: string;
  "timeout-ms"?: number | string;
  "user-id"?: string;
  "workspace-id"?: string;
  "conversation-id"?: string;
  /** A template containing `{id}`. */
  "status-url"?: string;
  "poll-interval-ms"?: number | string;
  "rate-limit"?: number | string;
  strict?: boolean;
  /** `modal` (the default: a dialog over the page) or `inline` (a card in the page's flow). */
  presentation?: KoderMcpElicitationPresentation;
  /** Inline only: what a settled elicitation leaves (`summary`, the default, or nothing). */
  settled?: KoderMcpElicitationSettled;
  /** Inline: focus the first field when a question arrives (otherwise focus stays where it is). */
  autofocus?: boolean;
  /**
   * A request that arrives while the document is hidden shows a system notification (the server's
   * name and the message), if notification permission is granted (`requestNotificationPermission`).
   */
  notify?: boolean;
  /**
   * A one-tap shape (no properties, one boolean, or one single select of 2–4 options) shows as
   * buttons that each settle at once (Accept / Yes, No / each option, then Reject).
   */
  "one-tap"?: boolean;
}

/** `presentation`: a modal dialog, or a card in the page's flow (a chat transcript, a panel). */
export type KoderMcpElicitationPresentation = "modal" | "inline";
/**
 * `settled` (inline only): `summary` keeps a read-only summary of the outcome where the form was
 * (the values given, by field title, a secret-looking field masked; or declined, cancelled, timed
 * out, opened); `remove` leaves the element empty.
 */
export type KoderMcpElicitationSettled = "summary" | "remove";

/**
 * The element's type (`document.querySelector("koder-mcp-elicitation")` gives one). The entry does
 * not export the class itself: get it with `customElements.get("koder-mcp-elicitation")`.
 */
export interface KoderMcpElicitation extends HTMLElement {
  /** Shows the request and settles with the user's `ElicitResult`. */
  elicit(request: ElicitRequestInput, options?: ElicitOptions): Promise<ElicitResult>;
  /**
   * URLElicitationRequiredError (-32042, MCP 2025-11-25): shows its elicitations one after another ("1 of N"),
   * each with the URL-mode consent, and resolves once all completed (by `complete()`, status
   * polling, or the user's "I've finished") or as soon as one is declined, cancelled or times out.
   * Malformed data rejects with `ElicitationError` (-32602) and opens nothing; aborting `signal`
   * closes them and rejects with `AbortError`.
   */
  elicitRequired(error: UrlElicitationRequiredInput | object, options?: ElicitOptions): Promise<ElicitRequiredResult>;
  /**
   * MCP 2026-07-28 multi round-trip, for hosts that drive the rounds themselves: shows every
   * elicitation of one round in the server's order ("1 of N") and resolves its `inputResponses`
   * (key → `ElicitResult`, keys kept) once each is answered. A declined entry does not end the
   * round: the host decides whether to retry. The person's cancel (Esc, Cancel) of one cancels
   * every entry still open or queued, so one Esc answers the round with each a `cancel`. Sampling, roots and other entries are
   * not shown and not in the result (the host answers them). A round without elicitations
   * resolves `{}`. A malformed round rejects with `ElicitationError` (-32602 naming the key),
   * shows nothing and fires no `invalid` event; aborting `signal` withdraws every entry still pending and rejects with `AbortError`.
   */
  elicitInputs(input: InputRequiredInput | object, options?: ElicitOptions): Promise<InputResponses>;
  /**
   * URL mode (MCP 2025-11-25): the server reported completion (`notifications/elicitation/complete`).
   * `false` for unknown ids. With `options.serverName`, only an elicitation that server asked for
   * (its `serverName` in `elicit()`, else the `server-name` attribute) completes: two servers may
   * name their elicitations alike.
   */
  complete(elicitationId: string, options?: { serverName?: string }): boolean;
  /** Withdraws the elicitation on screen, the same as aborting its signal. */
  cancel(): void;
  /**
   * Joins a koder-elicitation-relay at `url`: reads its SSE stream (`GET {url}/v1/stream`, bearer
   * token from `options.token`) and shows each of the person's pending elicitations as `elicit()`
   * does (event details carry the relay's id as `detail.id`), for the time the relay says is left
   * (`expiresInMs`: the page's clock does not matter). The person's accept, decline or cancel is
   * posted to `{url}/v1/elicitations/{id}/result`, the same body again after a network failure, a
   * 429 or a 5xx (with backoff, honouring `Retry-After`) until the relay answers or the deadline
   * passes; a timeout is not posted (the relay expires it). One answered, withdrawn or expired
   * elsewhere closes here; a URL-mode one completes on the relay's `complete`. A 401 asks `token()`
   * for a fresh token; a stream the relay ends reconnects soon (after its `retry:` hint, if any), a
   * 429/503 after `Retry-After`, a dropped one with backoff (0.5 s doubling to 30 s, with jitter).
   * A second call replaces the first. With `options.place`, each elicitation shows in the element
   * `place(view)` returns (a chat transcript's inline element) instead of this one. Returns
   * `disconnect()`: it stops the stream, its retries and timers, and closes every open relay
   * elicitation without answering it.
   */
  connectRelay(url: string, options: ConnectRelayOptions): () => void;
  /** A dialog is showing. */
  readonly open: boolean;
  /** Elicitations open or queued. */
  readonly pending: number;

  /** `server-name` */
  serverName: string | null;
  /** `timeout-ms` (reads the attribute's text; a number may be assigned) */
  get timeoutMs(): string | null;
  set timeoutMs(value: string | number | null);
  /** `user-id` */
  userId: string | null;
  /** `workspace-id` */
  workspaceId: string | null;
  /** `conversation-id` */
  conversationId: string | null;
  /** `status-url`, a template containing `{id}` */
  statusUrl: string | null;
  /** `poll-interval-ms` (reads the attribute's text; a number may be assigned) */
  get pollIntervalMs(): string | null;
  set pollIntervalMs(value: string | number | null);
  /** `rate-limit` (reads the attribute's text; a number may be assigned) */
  get rateLimit(): string | null;
  set rateLimit(value: string | number | null);
  /** `strict` (boolean attribute) */
  strict: boolean;
  /** `presentation`: `"modal"` (absent) or `"inline"` */
  presentation: KoderMcpElicitationPresentation | string | null;
  /** `settled` (inline only): `"summary"` (absent) or `"remove"` */
  settled: KoderMcpElicitationSettled | string | null;
  /**
   * `notify` (boolean attribute): a request that arrives while the document is hidden shows a
   * system notification (server name and message, tagged by the elicitation id) when permission is
   * granted; clicking it focuses the window and the first field; it closes when the request
   * settles. The element never asks for permission (`requestNotificationPermission()` does).
   */
  notify: boolean;
  /**
   * `one-tap` (boolean attribute): a one-tap shape (no properties, one boolean, or one single
   * select of 2–4 options) shows as buttons that each settle at once; Cancel and Esc stay.
   */
  oneTap: boolean;
  /**
   * Inline: moves focus into the card (its first field), or onto the last summary once settled.
   * Modal: the ordinary `HTMLElement.focus()`.
   */
  focus(options?: FocusOptions): void;

  addEventListener<K extends keyof KoderMcpElicitationEventMap>(
    type: K,
    listener: (this: KoderMcpElicitation, ev: KoderMcpElicitationEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: KoderMcpElicitation, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof KoderMcpElicitationEventMap>(
    type: K,
    listener: (this: KoderMcpElicitation, ev: KoderMcpElicitationEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: KoderMcpElicitation, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

// ---------------------------------------------------------------------------------------------
// Module exports

/**
 * Resolves once the wasm is instantiated. Importing does not wait for it: `<koder-mcp-elicitation>`
 * is defined at once and its calls wait for the wasm inside their promises, but in a browser
 * `validateContent`, `parseRequest` and `registerTranslation` throw `ElicitationError` (-32603,
 * "await ready first") until this resolves. It rejects if the wasm cannot load. Where there is no
 * `customElements` (Node, a server render, a worker) there is nothing to define and it resolves at
 * once; in Node the first `validateContent` or `parseRequest` loads the wasm from the package's file.
 */
export declare const ready: Promise<void>;

export interface ValidationIssue {
  path: string;
  keyword: string;
  message: string;
}

/** The very rules the form applies before accept. Throws `ElicitationError` for a malformed schema. */
export declare function validateContent(
  requestedSchema: unknown,
  content: unknown,
  options?: { locale?: string },
): { valid: boolean; errors: ValidationIssue[] };

/**
 * Adds a language at run time, or overrides shipped messages (`"en-US"`, `"pt-BR"`).
 *
 * `messages` is Fluent text in the subset of the shipped `i18n/*.ftl` files (text, `{ $variable }`,
 * `{ "literal" }`, and `{ $n -> [one] … *[other] … }` selects on plural categories), or an object of
 * message id → pattern in that syntax. Registering a locale again replaces its messages. A missing
 * message falls back to the nearest registered locale, then en-US. Plurals and numbers follow
 * `Intl` for the locale. Every open dialog re-renders in its (possibly new) language.
 *
 * The dialog runs in the language's direction: right to left when its script is (`ar`, `he`,
 * `fa`, `ur`, `ps`, `yi`, `ckb`, `dv`, or a tag with an `Arab`, `Hebr`, `Thaa` or `Syrc` script
 * subtag), else left to right; `options.direction` says it for a tag that does not.
 *
 * Throws `ElicitationError` naming each unknown id, unknown variable and malformed pattern; nothing
 * is registered then.
 */
export declare function registerTranslation(
  locale: string,
  messages: string | Readonly<Record<string, string>>,
  options?: { direction?: "ltr" | "rtl" },
): void;

/**
 * Asks the browser for permission to show notifications (for the `notify` attribute). Call it from
 * the person's click: the element never asks by itself. Resolves `"denied"` where there are no
 * notifications (a server, a worker).
 */
export declare function requestNotificationPermission(): Promise<NotificationPermission>;

/** The normalized request, or throws `ElicitationError` (code -32602) naming the offending path. */
export declare function parseRequest(request: ElicitRequestInput | object): Record<string, unknown>;

declare global {
  interface HTMLElementTagNameMap {
    "koder-mcp-elicitation": KoderMcpElicitation;
  }
  // The events bubble and are composed, so listeners on ancestors and on the document see them
  // too. `cancel` and `invalid` are left out here: the DOM already fires plain Events by those
  // names (<dialog>, form controls); on the element they are typed by KoderMcpElicitationEventMap.
  // So is `open`, a name too common to claim page-wide.
  interface HTMLElementEventMap {
    accept: CustomEvent<ElicitationAcceptDetail>;
    reject: CustomEvent<ElicitationRejectDetail>;
    timeout: CustomEvent<ElicitationTimeoutDetail>;
    complete: CustomEvent<ElicitationCompleteDetail>;
  }
  interface DocumentEventMap {
    accept: CustomEvent<ElicitationAcceptDetail>;
    reject: CustomEvent<ElicitationRejectDetail>;
    timeout: CustomEvent<ElicitationTimeoutDetail>;
    complete: CustomEvent<ElicitationCompleteDetail>;
  }
}
