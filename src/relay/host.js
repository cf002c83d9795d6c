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
// A question for a team: `scope` names the workspace only, `audience` who may answer (the first
// answer settles it); `notify` mails links and reminds, `escalate` widens it when nobody answers.
// Each may be a function of the request. The result's `answeredBy` (non-enumerable: the server
// never gets it) says who answered:
//
//   const handler = relayElicitationHandler({ url, serviceToken, scope: { workspaceId }, audience: { groups: ['oncall'] } });
//   client.setRequestHandler('elicitation/create', async (request, ctx) => {
//     const result = await handler(request, ctx);
//     console.log('answered by', result.answeredBy);   // { userId, name? } or { link, email? }
//     return result;
//   });
//
// A host that cannot wait (a serverless function with a short time limit) creates and returns,
// then resumes when the relay's webhook comes (`--webhook-url`):
//
//   const { id } = await createRelayElicitation({ url, serviceToken, scope, request: params });
//   // … later, in the webhook route, after `new Webhook(secret).verify(body, headers)`
//   // (the standardwebhooks package):
//   const outcome = relayWebhookOutcome(event);   // { id, status, result, answeredBy? } once it is final

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
 * through the relay to the person `scope.userId` names, or to the team `audience` names, and
 * resolves with the ElicitResult (its non-enumerable `answeredBy` says who gave it).
 */
export function relayElicitationHandler(options) {
  const { url, serviceToken, serverName, timeoutMs } = options ?? {};
  const asking = askingOptions(options);
  const fetchImpl = options?.fetch ?? globalThis.fetch;
  if (typeof url !== 'string' || url === '') throw new TypeError('relayElicitationHandler: `url` (the relay\'s base URL) is required');
  if (typeof serviceToken !== 'string' || serviceToken === '') throw new TypeError('relayElicitationHandler: `serviceToken` is required');
  checkAsking('relayElicitationHandler', asking);
  if (typeof fetchImpl !== 'function') throw new TypeError('relayElicitationHandler: no fetch: pass `fetch`');
  const base = url.replace(/\/+$/, '');
  const relay = (method, path, { body, headers, signal, timeout = CALL_TIMEOUT_MS } = {}) =>
    callRelay(fetchImpl, `${base}${path}`, method, serviceToken, { body, headers, signal, timeout });
  // URL-mode elicitationIds (the server's) to the relay's paths, while a completion may still come.
  const awaitingCompletion = new Map();

  async function relayElicitation(request, ctx) {
    const signal = ctx?.mcpReq?.signal;
    signal?.throwIfAborted();
    const asked = await askingFor('relayElicitationHandler', asking, [request, ctx]);
    const body = createBody({ ...asked, request: request?.params ?? {}, serverName, timeoutMs });
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
          result = settledResult(outcome);
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
 * person `scope.userId` names, or the team `audience` names (`audience`, `notify` and `escalate`
 * may be functions of `request`), and returns at once with `{ id, expiresAt, idempotencyKey }`.
 * The answer comes later, by the relay's webhook (see relayWebhookOutcome) or by polling
 * `GET /v1/elicitations/{id}/result`. Network errors and 5xx answers are retried for a while, with
 * the same Idempotency-Key (pass your own `idempotencyKey` to keep it across invocations).
 */
export async function createRelayElicitation(options) {
  const { url, serviceToken, request, serverName, timeoutMs } = options ?? {};
  const asking = askingOptions(options);
  const fetchImpl = options?.fetch ?? globalThis.fetch;
  if (typeof url !== 'string' || url === '') throw new TypeError('createRelayElicitation: `url` (the relay\'s base URL) is required');
  if (typeof serviceToken !== 'string' || serviceToken === '') throw new TypeError('createRelayElicitation: `serviceToken` is required');
  if (typeof asking.scope === 'function') throw new TypeError(`createRelayElicitation: \`scope\` must be ${SCOPE_SHAPE}`);
  checkAsking('createRelayElicitation', asking);
  if (typeof request !== 'object' || request === null) throw new TypeError('createRelayElicitation: `request` (the elicitation/create params) is required');
  if (typeof fetchImpl !== 'function') throw new TypeError('createRelayElicitation: no fetch: pass `fetch`');
  const idempotencyKey = options?.idempotencyKey ?? globalThis.crypto.randomUUID();
  const asked = await askingFor('createRelayElicitation', asking, [request]);
  const body = createBody({ ...asked, request, serverName, timeoutMs });
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
 * the parsed event). `{ id, status, result, scope, answeredBy? }` for `elicitation.settled`,
 * `.expired` and `.withdrawn` (the result is the ElicitResult, `{ action: "cancel" }` when it
 * expired or was withdrawn; `answeredBy` who gave it); `null` for `elicitation.created` and for
 * anything else.
 */
export function relayWebhookOutcome(event) {
  const data = event?.data;
  if (typeof event?.type !== 'string' || typeof data !== 'object' || data === null) return null;
  if (!['elicitation.settled', 'elicitation.expired', 'elicitation.withdrawn'].includes(event.type)) return null;
  if (typeof data.id !== 'string' || !FINAL.has(data.status) || typeof data.result !== 'object' || data.result === null) return null;
  return {
    id: data.id,
    status: data.status,
    result: data.result,
    scope: data.scope,
    ...(isAnsweredBy(data.answeredBy) && { answeredBy: data.answeredBy }),
  };
}

/** The create's body: the optional fields only when given. */
function createBody({ scope, audience, request, serverName, timeoutMs, notify, escalate }) {
  return {
    scope,
    ...(audience !== undefined && { audience }),
    request,
    ...(serverName !== undefined && { serverName }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(notify !== undefined && { notify }),
    ...(escalate !== undefined && { escalate }),
  };
}

/**
 * The ElicitResult the server gets, carrying who answered (the relay's `answeredBy`) as a
 * non-enumerable property: the host reads `result.answeredBy`, while JSON, and so the server,
 * never carries it.
 */
function settledResult(outcome) {
  const result = { ...outcome.result };
  if (isAnsweredBy(outcome.answeredBy)) {
    Object.defineProperty(result, 'answeredBy', { value: outcome.answeredBy, enumerable: false });
  }
  return result;
}

/** `{ userId, name? }` (a person who signed in) or `{ link, email? }` (an answer through a link). */
function isAnsweredBy(answeredBy) {
  return typeof answeredBy === 'object' && answeredBy !== null
    && (typeof answeredBy.userId === 'string' || typeof answeredBy.link === 'string');
}

// Who is asked and how they are reached: each a value, or a function of the request returning one
// (`undefined` for all but `scope`: none for that request). The relay checks lengths and limits
// itself; these shapes catch a host's mistake before anything is sent.
const SCOPE_SHAPE = '{ workspaceId, userId?, conversationId? } (non-empty strings)';
const AUDIENCE_SHAPE = '{ users?, groups? } (lists of non-empty strings, at least one of them non-empty)';
const NOTIFY_SHAPE = '{ email, language?, remindAfter? } (email: an address or a non-empty list of them)';
const ESCALATE_SHAPE = '[{ after, audience, notify? }, …] (after: a duration such as "30m")';
const ASKING = [
  ['scope', isScope, SCOPE_SHAPE],
  ['audience', isAudience, AUDIENCE_SHAPE],
  ['notify', isNotify, NOTIFY_SHAPE],
  ['escalate', isEscalate, ESCALATE_SHAPE],
];

function askingOptions(options) {
  const { scope, audience, notify, escalate } = options ?? {};
  return { scope, audience, notify, escalate };
}

/**
 * Throws a TypeError naming the first of `asking` (scope, audience, notify, escalate) that is not a
 * value the relay takes nor a function; then, when neither is a function, the rule the relay
 * enforces: exactly one person (`scope.userId`) or a team (`audience`).
 */
function checkAsking(caller, asking) {
  for (const [name, valid, shape] of ASKING) {
    const value = asking[name];
    if (typeof value === 'function' || (value === undefined && name !== 'scope') || valid(value)) continue;
    throw new TypeError(`${caller}: \`${name}\` must be ${shape} or a function returning one${name === 'scope' ? '' : ' (or undefined)'}`);
  }
  if (typeof asking.scope !== 'function' && typeof asking.audience !== 'function') checkWhoAnswers(caller, asking);
}

/** What `asking`'s functions return for this request (called with `args`), checked. */
async function askingFor(caller, asking, args) {
  const asked = {};
  for (const [name, valid, shape] of ASKING) {
    const option = asking[name];
    if (typeof option !== 'function') {
      asked[name] = option;
      continue;
    }
    const value = await option(...args);
    if (!(valid(value) || (value === undefined && name !== 'scope'))) {
      throw new TypeError(`${caller}: the \`${name}\` function must return ${shape}${name === 'scope' ? '' : ' or undefined'}`);
    }
    asked[name] = value;
  }
  checkWhoAnswers(caller, asked);
  return asked;
}

function checkWhoAnswers(caller, { scope, audience }) {
  if ((scope.userId === undefined) === (audience === undefined)) {
    throw new TypeError(`${caller}: name one person (\`scope.userId\`) or a team (\`audience\`), ${audience === undefined ? 'neither was given' : 'not both'}`);
  }
}

const text = (value) => typeof value === 'string' && value !== '';
const texts = (value) => Array.isArray(value) && value.every(text);
const record = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where the question is asked (`userId`: for one person; absent when an `audience` names a team). */
function isScope(scope) {
  return record(scope) && text(scope.workspaceId)
    && (scope.userId === undefined || text(scope.userId))
    && (scope.conversationId === undefined || typeof scope.conversationId === 'string');
}

/** `{ users?, groups? }`: the team that may answer (members by user id, or by a group of their token). */
function isAudience(audience) {
  return record(audience)
    && (audience.users === undefined || texts(audience.users))
    && (audience.groups === undefined || texts(audience.groups))
    && (audience.users?.length ?? 0) + (audience.groups?.length ?? 0) > 0;
}

/** `{ email, language?, remindAfter? }`: whom the relay e-mails the question's link (`--smtp-url`), and when it reminds them. */
function isNotify(notify) {
  return record(notify)
    && (text(notify.email) || (texts(notify.email) && notify.email.length > 0))
    && (notify.language === undefined || typeof notify.language === 'string')
    && (notify.remindAfter === undefined || text(notify.remindAfter));
}

/** `[{ after, audience, notify? }, …]`: who else is asked, and mailed, when nobody answered by then. */
function isEscalate(escalate) {
  return Array.isArray(escalate) && escalate.length > 0 && escalate.every((stage) => record(stage) && text(stage.after)
    && isAudience(stage.audience) && (stage.notify === undefined || isNotify(stage.notify)));
}

/** `attempt()` (a relay call) until it succeeds, fails for good, `signal` aborts, or `deadline` (ms) passes. */
function retry(attempt, signal, deadline) {
  return retrying(attempt, { signal, deadline, firstMs: BACKOFF_FIRST_MS, maxMs: BACKOFF_MAX_MS });
}
