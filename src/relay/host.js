// The host side of koder-elicitation-relay for the TypeScript MCP SDK v2 (the package's `./relay`
// export, Node 20+ or any runtime with fetch and AbortSignal.any), and the person's side of its
// Web Push for a browser page (subscribePush, unsubscribePush: re-exported from src/js/relay-push.js;
// the relay call and the retry loop are the page's too, src/js/relay-call.js and relay-retry.js):
//
//   const handler = relayElicitationHandler({ url, serviceToken, scope: { userId, workspaceId } });
//   client.setRequestHandler("elicitation/create", handler);
//   // URL mode on MCP 2025-11-25: the server's completion reaches the person's dialog too.
//   client.setNotificationHandler("notifications/elicitation/complete", (n) => handler.complete(n.params.elicitationId));
//
// The person's ElicitResult reaches the server as they gave it, `_meta` included (a "remember"
// choice is `_meta.persist`). On MCP 2026-07-28 the SDK's own rounds keep only action and content;
// to hand `_meta` on there too, run the rounds with the handler:
//
//   let result = await client.callTool(params, { allowInputRequired: true });
//   while (result.resultType === 'input_required') {
//     const inputResponses = await handler.inputResponses(result.inputRequests ?? {});
//     result = await client.callTool({ ...params, inputResponses, requestState: result.requestState }, { allowInputRequired: true });
//   }
//
// Each elicitation/create the client gets is posted to the relay for that person, and the handler
// waits (long-polling) until the person answers in their browser, the relay expires it, or the
// call that asked is aborted; then the relay is told to withdraw it, so the person's dialog closes.
//
// A host that cannot wait (a serverless function with a short time limit) creates and returns,
// then resumes when the relay's webhook comes (`--webhook-url`):
//
//   const { id } = await createRelayElicitation({ url, serviceToken, scope, request: params });
//   // … later, in the webhook route, after `new Webhook(secret).verify(body, headers)`
//   // (the standardwebhooks package):
//   const outcome = relayWebhookOutcome(event);   // { id, status, result } once it is final

import { CALL_TIMEOUT_MS, RelayError, callRelay } from '../js/relay-call.js';
import { subscribePush, unsubscribePush } from '../js/relay-push.js';
import { abortReason, retrying } from '../js/relay-retry.js';

export { RelayError, subscribePush, unsubscribePush };

const POLL_WAIT_SECONDS = 25;
// The long-poll answers after POLL_WAIT_SECONDS at the latest; beyond this margin the connection is
// taken as lost and the poll retried.
const POLL_MARGIN_MS = 15_000;
// Network errors and 5xx answers are retried for this long (every call is idempotent: the create
// carries an Idempotency-Key), after the relay's Retry-After or a doubling backoff between these
// bounds.
const RETRY_FOR_MS = 30_000;
const BACKOFF_FIRST_MS = 200;
const BACKOFF_MAX_MS = 2_000;
// Where an elicitation ends: the stored result is the answer (`{"action":"cancel"}` when it
// expired or was withdrawn, as the element's own timeout).
const FINAL = new Set(['settled', 'expired', 'withdrawn']);

/**
 * An `elicitation/create` handler for SDK v2's `client.setRequestHandler` that routes the request
 * through the relay to the person `scope` names and resolves with their ElicitResult.
 */
export function relayElicitationHandler(options) {
  const { url, serviceToken, scope, serverName, timeoutMs, notify } = options ?? {};
  const fetchImpl = options?.fetch ?? globalThis.fetch;
  if (typeof url !== 'string' || url === '') throw new TypeError('relayElicitationHandler: `url` (the relay\'s base URL) is required');
  if (typeof serviceToken !== 'string' || serviceToken === '') throw new TypeError('relayElicitationHandler: `serviceToken` is required');
  if (typeof scope !== 'function' && !isScope(scope)) {
    throw new TypeError('relayElicitationHandler: `scope` must be { userId, workspaceId, conversationId? } (non-empty strings) or a function returning one');
  }
  if (typeof notify !== 'function' && notify !== undefined && !isNotify(notify)) {
    throw new TypeError('relayElicitationHandler: `notify` must be { email, language? } or a function returning one (or undefined)');
  }
  if (typeof fetchImpl !== 'function') throw new TypeError('relayElicitationHandler: no fetch: pass `fetch`');
  const base = url.replace(/\/+$/, '');
  const relay = (method, path, { body, headers, signal, timeout = CALL_TIMEOUT_MS } = {}) =>
    callRelay(fetchImpl, `${base}${path}`, method, serviceToken, { body, headers, signal, timeout });
  // URL-mode elicitationIds (the server's) to the relay's paths, while a completion may still come.
  const awaitingCompletion = new Map();

  async function relayElicitation(request, ctx) {
    const signal = ctx?.mcpReq?.signal;
    signal?.throwIfAborted();
    const tenant = typeof scope === 'function' ? await scope(request, ctx) : scope;
    if (!isScope(tenant)) throw new TypeError('relayElicitationHandler: the `scope` function must return { userId, workspaceId, conversationId? }');
    const mail = typeof notify === 'function' ? await notify(request, ctx) : notify;
    if (mail !== undefined && !isNotify(mail)) throw new TypeError('relayElicitationHandler: the `notify` function must return { email, language? } or undefined');
    const body = createBody({ scope: tenant, request: request?.params ?? {}, serverName, timeoutMs, notify: mail });
    const headers = { 'Idempotency-Key': globalThis.crypto.randomUUID() };
    // The create is not aborted half-way: once it is sent, the relay may hold the elicitation, and
    // only its id lets the handler withdraw it.
    const created = await retry(() => relay('POST', '/v1/elicitations', { body, headers }), signal, Date.now() + RETRY_FOR_MS);
    const path = `/v1/elicitations/${encodeURIComponent(created.id)}`;
    const urlId = request?.params?.mode === 'url' && typeof request.params.elicitationId === 'string' && request.params.elicitationId !== ''
      ? request.params.elicitationId
      : undefined;
    if (urlId !== undefined) awaitingCompletion.set(urlId, path);
    let result;
    try {
      signal?.throwIfAborted();
      // The relay settles it as expired by expiresAt; a relay unreachable past that is given up on.
      const giveUpAt = Math.max(Number(created.expiresAt) || 0, Date.now()) + RETRY_FOR_MS;
      for (;;) {
        const outcome = await retry(
          () => relay('GET', `${path}/result?wait=${POLL_WAIT_SECONDS}`, { signal, timeout: POLL_WAIT_SECONDS * 1000 + POLL_MARGIN_MS }),
          signal,
          giveUpAt,
        );
        if (outcome?.status === 'pending') continue;
        if (FINAL.has(outcome?.status) && typeof outcome.result === 'object' && outcome.result !== null) {
          result = outcome.result;
          return result;
        }
        throw new RelayError(200, outcome, `an unexpected result ${JSON.stringify(outcome)}`);
      }
    } catch (error) {
      // The call that asked is over (aborted, or the wait failed): nobody takes the answer, so the
      // person must not give one.
      await retry(() => relay('DELETE', path), undefined, Date.now() + CALL_TIMEOUT_MS).catch(() => {});
      throw signal?.aborted ? abortReason(signal) : error;
    } finally {
      // Only an accepted URL elicitation waits for its completion.
      if (urlId !== undefined && result?.action !== 'accept') awaitingCompletion.delete(urlId);
    }
  }

  /**
   * One `input_required` round of MCP 2026-07-28, fulfilled through the relay: each
   * `elicitation/create` entry of `inputRequests` is asked at once (in parallel), and the
   * `inputResponses` to retry with come back, each result as the person gave it, `_meta`
   * included. SDK v2's own rounds keep only `action` and `content` of a handler's result; a
   * host that needs `_meta` (`_meta.persist`: "remember") runs the rounds itself with this. When
   * one fails (or `signal` aborts), the others are withdrawn and it rejects.
   */
  relayElicitation.inputResponses = async (inputRequests, { signal } = {}) => {
    if (typeof inputRequests !== 'object' || inputRequests === null) {
      throw new TypeError('inputResponses: `inputRequests` must be the input_required result\'s map of embedded requests');
    }
    const entries = Object.entries(inputRequests);
    for (const [key, entry] of entries) {
      if (entry?.method !== 'elicitation/create') {
        throw new TypeError(`inputResponses: input request ${JSON.stringify(key)} is ${JSON.stringify(entry?.method)}, not an elicitation/create the relay can ask`);
      }
    }
    const round = new AbortController();
    const stop = () => round.abort(abortReason(signal));
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted) stop();
    try {
      const answered = await Promise.all(entries.map(async ([key, entry]) => {
        try {
          return [key, await relayElicitation(entry, { mcpReq: { id: key, signal: round.signal } })];
        } catch (error) {
          round.abort(error);
          throw error;
        }
      }));
      return Object.fromEntries(answered);
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  };

  /**
   * The server reported a URL-mode elicitation complete (`notifications/elicitation/complete`,
   * MCP 2025-11-25): the relay is told, and the person's dialog stops waiting. Unknown ids are
   * ignored, as the element does.
   */
  relayElicitation.complete = async (elicitationId) => {
    const path = awaitingCompletion.get(elicitationId);
    if (path === undefined) return;
    awaitingCompletion.delete(elicitationId);
    await retry(() => relay('POST', `${path}/complete`), undefined, Date.now() + RETRY_FOR_MS);
  };
  return relayElicitation;
}

/**
 * The serverless path's first half: posts `request` (the `elicitation/create` params) for the
 * person `scope` names and returns at once with `{ id, expiresAt, idempotencyKey }`. The answer
 * comes later, by the relay's webhook (see relayWebhookOutcome) or by polling
 * `GET /v1/elicitations/{id}/result`. Network errors and 5xx answers are retried for a while, with
 * the same Idempotency-Key (pass your own `idempotencyKey` to keep it across invocations).
 */
export async function createRelayElicitation(options) {
  const { url, serviceToken, scope, request, serverName, timeoutMs, notify } = options ?? {};
  const fetchImpl = options?.fetch ?? globalThis.fetch;
  if (typeof url !== 'string' || url === '') throw new TypeError('createRelayElicitation: `url` (the relay\'s base URL) is required');
  if (typeof serviceToken !== 'string' || serviceToken === '') throw new TypeError('createRelayElicitation: `serviceToken` is required');
  if (!isScope(scope)) throw new TypeError('createRelayElicitation: `scope` must be { userId, workspaceId, conversationId? } (non-empty strings)');
  if (typeof request !== 'object' || request === null) throw new TypeError('createRelayElicitation: `request` (the elicitation/create params) is required');
  if (notify !== undefined && !isNotify(notify)) throw new TypeError('createRelayElicitation: `notify` must be { email, language? }');
  if (typeof fetchImpl !== 'function') throw new TypeError('createRelayElicitation: no fetch: pass `fetch`');
  const idempotencyKey = options?.idempotencyKey ?? globalThis.crypto.randomUUID();
  const body = createBody({ scope, request, serverName, timeoutMs, notify });
  const created = await retry(
    () => callRelay(fetchImpl, `${url.replace(/\/+$/, '')}/v1/elicitations`, 'POST', serviceToken, {
      body,
      headers: { 'Idempotency-Key': idempotencyKey },
      timeout: CALL_TIMEOUT_MS,
    }),
    undefined,
    Date.now() + RETRY_FOR_MS,
  );
  return { id: created.id, expiresAt: created.expiresAt, idempotencyKey };
}

/**
 * The serverless path's second half: what a relay webhook says, once its signature was verified
 * (`new Webhook(secret).verify(body, headers)` from the standardwebhooks package, which returns
 * the parsed event). `{ id, status, result, scope }` for `elicitation.settled`, `.expired` and
 * `.withdrawn` (the result is the ElicitResult, `{ action: "cancel" }` when it expired or was
 * withdrawn); `null` for `elicitation.created` and for anything else.
 */
export function relayWebhookOutcome(event) {
  const data = event?.data;
  if (typeof event?.type !== 'string' || typeof data !== 'object' || data === null) return null;
  if (!['elicitation.settled', 'elicitation.expired', 'elicitation.withdrawn'].includes(event.type)) return null;
  if (typeof data.id !== 'string' || !FINAL.has(data.status) || typeof data.result !== 'object' || data.result === null) return null;
  return { id: data.id, status: data.status, result: data.result, scope: data.scope };
}

/** The create's body: the optional fields only when given. */
function createBody({ scope, request, serverName, timeoutMs, notify }) {
  return {
    scope,
    request,
    ...(serverName !== undefined && { serverName }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(notify !== undefined && { notify }),
  };
}

/** `{ email, language? }`: whom the relay e-mails the question's link (`--smtp-url`). */
function isNotify(notify) {
  return typeof notify === 'object' && notify !== null && typeof notify.email === 'string' && notify.email !== ''
    && (notify.language === undefined || typeof notify.language === 'string');
}

function isScope(scope) {
  const text = (value) => typeof value === 'string' && value !== '';
  return typeof scope === 'object' && scope !== null && text(scope.userId) && text(scope.workspaceId)
    && (scope.conversationId === undefined || typeof scope.conversationId === 'string');
}

/** `attempt()` (a relay call) until it succeeds, fails for good, `signal` aborts, or `deadline` (ms) passes. */
function retry(attempt, signal, deadline) {
  return retrying(attempt, { signal, deadline, firstMs: BACKOFF_FIRST_MS, maxMs: BACKOFF_MAX_MS });
}
