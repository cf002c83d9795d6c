// Types of `koder-mcp-elicitation/relay`: the host side of koder-elicitation-relay for the
// TypeScript MCP SDK v2. Self-contained: no dependency on the SDK's types, so it fits its
// `client.setRequestHandler("elicitation/create", …)` without importing them.

/**
 * Where the elicitation is asked (the relay's tenant): for one person (`userId`), or, with an
 * {@link RelayAudience}, for a team in the workspace (no `userId`).
 */
export interface RelayScope {
  /**
   * The person: the `sub` of their token. Non-empty, at most 256 characters. Leave it out when an
   * `audience` names who may answer (giving both, or neither, is refused).
   */
  userId?: string;
  /** Their workspace: the `workspace` claim. Non-empty, at most 256 characters. */
  workspaceId: string;
  /** The conversation; a person's token with a `conversation` claim only sees its own. Default "". */
  conversationId?: string;
}

/**
 * A team that may answer, inside the scope's workspace: people by user id (their token's `sub`)
 * and by group (their token's groups claim). At least one list non-empty; `users` at most 100,
 * `groups` at most 20, each entry 1–128 characters. The first answer settles the question.
 */
export interface RelayAudience {
  users?: string[];
  groups?: string[];
}

/**
 * Who answered a settled question: a person who signed in (`userId`, and their token's `name`
 * claim), or an answer through a link (the link's id, and the address the relay mailed it to).
 */
export type RelayAnsweredBy = { userId: string; name?: string } | { link: string; email?: string };

/** The MCP ElicitResult the person gave (or `{ action: "cancel" }` when it expired). */
export interface RelayElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  /**
   * The answer's `_meta`, as the person's page sent it. `persist` only on an accept that chose
   * to be remembered, naming a scope the request's `_meta.persist` offered (the relay refuses
   * any other).
   */
  _meta?: { persist?: 'session' | 'always'; [key: string]: unknown };
  [key: string]: unknown;
}

/** One embedded request of an MCP 2026-07-28 `input_required` result. */
export interface RelayInputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/**
 * What the handler resolves with: the ElicitResult, and who gave it. `answeredBy` is
 * non-enumerable, so JSON (and so the MCP server) never carries it; the host reads it.
 */
export interface RelaySettledResult extends RelayElicitResult {
  /** Who answered; absent when nobody did (expired or withdrawn). */
  readonly answeredBy?: RelayAnsweredBy;
}

/** A value, or a function of the request (and the handler context) returning one. */
export type RelayPerRequest<T> =
  | T
  | ((request: RelayElicitRequest, ctx: RelayHandlerContext | undefined) => T | Promise<T>);

/** The part of an SDK v2 handler context the handler reads. */
export interface RelayHandlerContext {
  mcpReq?: { signal?: AbortSignal };
}

/** An `elicitation/create` request as SDK v2 hands it to a handler. */
export interface RelayElicitRequest {
  method?: string;
  params?: Record<string, unknown>;
}

export interface RelayElicitationOptions {
  /** The relay's base URL, e.g. `https://relay.example.com` (without `/v1`). */
  url: string;
  /** The relay's service token (`--service-token`). Keep it on the server. */
  serviceToken: string;
  /**
   * Who answers (`userId`), or where a team answers (with `audience`): a fixed scope, or one per
   * request (e.g. from the session the client serves).
   */
  scope: RelayPerRequest<RelayScope>;
  /**
   * Instead of `scope.userId`: the team that may answer (any member, the first answer settles it).
   * A fixed one, or one per request (`undefined`: that request goes to `scope.userId`).
   */
  audience?: RelayPerRequest<RelayAudience | undefined>;
  /** The MCP server's name, shown in the person's dialog. */
  serverName?: string;
  /** How long the person has, in ms (the relay clamps it to [1000, 86400000]; default 300000). */
  timeoutMs?: number;
  /**
   * Whom the relay e-mails the question's link, and when it reminds (a relay run with
   * `--smtp-url`; every address must be in one of its `--email-allow-domain` domains, else the
   * create fails with 422 naming it): a fixed one, or one per request (`undefined`: none for that one).
   */
  notify?: RelayPerRequest<RelayNotify | undefined>;
  /**
   * Who else is asked when nobody answered in time: up to 3 stages, a fixed list or one per request
   * (`undefined`: no escalation for that one).
   */
  escalate?: RelayPerRequest<RelayEscalationStage[] | undefined>;
  /** The fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

/** The e-mail the relay sends with a question's link, and its reminder. */
export interface RelayNotify {
  /**
   * The address, or a list of them (at most 20): each gets its own message and its own link; an
   * answer through one is `answeredBy: { link, email }`.
   */
  email: string | string[];
  /** The message's language (BCP 47, e.g. `pt-BR`; default en-US). */
  language?: string;
  /**
   * A duration (e.g. `"10m"`, at least `"10s"`): if the question is still open then, each address
   * gets one reminder and each member's browsers one more push.
   */
  remindAfter?: string;
}

/** One escalation stage: when `after` comes and nobody answered, its audience joins and its addresses are mailed. */
export interface RelayEscalationStage {
  /** A duration from the create (e.g. `"30m"`), strictly increasing across stages and shorter than the timeout. */
  after: string;
  /** Who joins the question's audience. */
  audience: RelayAudience;
  /** Whom the relay e-mails the question's link then. */
  notify?: { email: string | string[]; language?: string };
}

/** The handler {@link relayElicitationHandler} returns. */
export interface RelayElicitationHandler {
  (request: RelayElicitRequest, ctx?: RelayHandlerContext): Promise<RelaySettledResult>;
  /**
   * URL mode on MCP 2025-11-25: the server reported this elicitation complete
   * (`notifications/elicitation/complete`); the relay is told and the person's dialog stops
   * waiting. Unknown ids are ignored.
   *
   * `client.setNotificationHandler("notifications/elicitation/complete", (n) => handler.complete(n.params.elicitationId))`
   */
  complete(elicitationId: string): Promise<void>;
  /**
   * One `input_required` round of MCP 2026-07-28 through the relay: every `elicitation/create`
   * entry is asked at once, and the `inputResponses` to retry with resolve, each result as the
   * person gave it, `_meta` included (SDK v2's own rounds keep only `action` and `content`).
   * An entry of another method rejects with a TypeError before anything is asked; when one
   * fails or `signal` aborts, the others are withdrawn and it rejects.
   *
   * ```js
   * let result = await client.callTool(params, { allowInputRequired: true });
   * while (result.resultType === 'input_required') {
   *   const inputResponses = await handler.inputResponses(result.inputRequests ?? {});
   *   result = await client.callTool({ ...params, inputResponses, requestState: result.requestState }, { allowInputRequired: true });
   * }
   * ```
   */
  inputResponses(
    inputRequests: Record<string, RelayInputRequest>,
    options?: { signal?: AbortSignal },
  ): Promise<Record<string, RelaySettledResult>>;
}

/**
 * An `elicitation/create` handler that posts the request to the relay (with an Idempotency-Key,
 * so a retried post creates nothing twice), long-polls until the person answered or it expired,
 * and resolves with the ElicitResult (`answeredBy` on it says who gave it). When the request's `ctx.mcpReq.signal` aborts, it withdraws
 * the elicitation (the person's dialog closes) and rejects with the signal's reason. A relay error
 * rejects with a {@link RelayError}.
 */
export function relayElicitationHandler(options: RelayElicitationOptions): RelayElicitationHandler;

export interface CreateRelayElicitationOptions {
  /** The relay's base URL, e.g. `https://relay.example.com` (without `/v1`). */
  url: string;
  /** The relay's service token (`--service-token`). Keep it on the server. */
  serviceToken: string;
  /** Who answers (`userId`), or where a team answers (with `audience`). */
  scope: RelayScope;
  /** The `elicitation/create` params (message and requestedSchema, or URL mode's). */
  request: Record<string, unknown>;
  /** Instead of `scope.userId`: the team that may answer (a value, or a function of `request`). */
  audience?: RelayAudience | ((request: Record<string, unknown>) => RelayAudience | undefined | Promise<RelayAudience | undefined>);
  /** The MCP server's name, shown in the person's dialog. */
  serverName?: string;
  /** How long the person has, in ms (the relay clamps it to [1000, 86400000]; default 300000). */
  timeoutMs?: number;
  /** Whom the relay e-mails the question's link (see {@link RelayElicitationOptions.notify}; a value, or a function of `request`). */
  notify?: RelayNotify | ((request: Record<string, unknown>) => RelayNotify | undefined | Promise<RelayNotify | undefined>);
  /** Who else is asked when nobody answered in time (see {@link RelayElicitationOptions.escalate}; a value, or a function of `request`). */
  escalate?:
    | RelayEscalationStage[]
    | ((request: Record<string, unknown>) => RelayEscalationStage[] | undefined | Promise<RelayEscalationStage[] | undefined>);
  /** The Idempotency-Key (default: a fresh UUID); a repeat with the same key and request returns the first. */
  idempotencyKey?: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

/** What a create returns at once. */
export interface CreatedRelayElicitation {
  /** The relay's id: the `data.id` of its webhooks, and the path of `GET /v1/elicitations/{id}/result`. */
  id: string;
  /** When the relay expires it, ms since the Unix epoch. */
  expiresAt: number;
  /** The Idempotency-Key the create was sent with. */
  idempotencyKey: string;
}

/**
 * The serverless path: posts the elicitation and returns at once (no waiting). The answer comes
 * by the relay's webhook ({@link relayWebhookOutcome}) or `GET /v1/elicitations/{id}/result`.
 */
export function createRelayElicitation(options: CreateRelayElicitationOptions): Promise<CreatedRelayElicitation>;

/** A relay webhook's event as `new Webhook(secret).verify(body, headers)` (standardwebhooks) returns it. */
export interface RelayWebhookEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** How an elicitation ended, from its webhook. */
export interface RelayWebhookOutcome {
  id: string;
  status: 'settled' | 'expired' | 'withdrawn';
  /** The person's ElicitResult (`{ action: "cancel" }` when it expired or was withdrawn). */
  result: RelayElicitResult;
  scope: RelayScope;
  /** Who answered a settled one (the webhook's `data.answeredBy`). */
  answeredBy?: RelayAnsweredBy;
}

/**
 * The outcome a verified relay webhook carries: for `elicitation.settled`, `.expired` and
 * `.withdrawn`; `null` for `elicitation.created` or anything else. Verify the signature first.
 */
export function relayWebhookOutcome(event: unknown): RelayWebhookOutcome | null;

/** The relay refused a call (4xx), or kept failing (5xx) after retries. */
export class RelayError extends Error {
  readonly name: 'RelayError';
  /** The HTTP status. */
  readonly status: number;
  /** The relay's JSON body: `{ error: { status, message, jsonrpcCode?, errors? } }`. */
  readonly body: unknown;
  /** The JSON-RPC code (-32602) when the relay's core refused the request itself. */
  readonly code?: number;
}

/** The person's bearer token for the relay, or an async function returning a fresh one. */
export type RelayPersonToken = string | (() => string | Promise<string>);

/** The part of the browser's PushSubscription the helpers use (a real `PushSubscription` fits). */
export interface RelayBrowserPushSubscription {
  readonly endpoint: string;
  readonly options?: { readonly applicationServerKey: ArrayBuffer | null };
  toJSON(): unknown;
  unsubscribe(): Promise<boolean>;
}

/** The part of a ServiceWorkerRegistration the helpers use (a real registration fits). */
export interface RelayPushRegistration {
  readonly pushManager: {
    getSubscription(): Promise<RelayBrowserPushSubscription | null>;
    subscribe(options: { userVisibleOnly: boolean; applicationServerKey: Uint8Array<ArrayBuffer> }): Promise<RelayBrowserPushSubscription>;
  };
}

export interface RelayPushOptions {
  /** The person's bearer token (their JWT), sent as `Authorization: Bearer …`, never in a URL. */
  token: RelayPersonToken;
  /** The app's service worker registration (`await navigator.serviceWorker.ready`). */
  registration: RelayPushRegistration;
  /** The fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

export interface RelaySubscribePushOptions extends RelayPushOptions {
  /**
   * The BCP 47 tag (such as `"pt-BR"`) the relay words this browser's pushes in, the nearest
   * shipped locale as the element picks one (default: the page's `<html lang>`, else
   * `navigator.language`; en-US when neither is a tag).
   */
  language?: string;
}

/** What {@link subscribePush} resolves with. */
export interface RelayPushSubscription {
  /** The relay's id of the stored subscription (`DELETE /v1/push/subscriptions/{id}` removes it). */
  id: string;
  /** The browser's subscription (a `PushSubscription`), made with the relay's VAPID public key. */
  subscription: RelayBrowserPushSubscription;
}

/**
 * In the person's browser, from a click (after `requestNotificationPermission()`): subscribes
 * `registration` to Web Push with the relay's key (`GET /v1/push/key`; an existing subscription
 * with the same key is reused, one with another key replaced) and stores it for the token's
 * person (`POST /v1/push/subscriptions`) with its `language`. Rejects with a {@link RelayError} (status 404) when the
 * relay has no VAPID key, and with the browser's error when permission is not granted.
 */
export function subscribePush(relayUrl: string, options: RelaySubscribePushOptions): Promise<RelayPushSubscription>;

/**
 * Removes the registration's subscription at the relay (matched by endpoint among the person's)
 * and in the browser (even when the relay call fails, which then rejects). Resolves `true` when
 * there was one, `false` when the registration had no subscription.
 */
export function unsubscribePush(relayUrl: string, options: RelayPushOptions): Promise<boolean>;
