// The host side of koder-elicitation-relay for the TypeScript MCP SDK v2 (the package's `./relay`
// export, Node 20+ or any runtime with fetch and AbortSignal.any), and the person's side of its
// Web Push for a browser page (subscribePush, unsubscribePush: below relayWebhookOutcome):
//
//   const handler = relayElicitationHandler({ url, serviceToken, scope: { userId, workspaceId } });
//   client.setRequestHandler("elicitation/create", handler);
//   // URL mode on MCP 2025-11-25: the server's completion reaches the person's dialog too.
//   client.setNotificationHandler("notifications/elicitation/complete", (n) => handler.complete(n.params.elicitationId));
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

const POLL_WAIT_SECONDS = 25;
// The long-poll answers after POLL_WAIT_SECONDS at the latest; beyond this margin the connection is
// taken as lost and the poll retried.
const POLL_MARGIN_MS = 15_000;
const CALL_TIMEOUT_MS = 15_000;
// Network errors and 5xx answers are retried for this long (every call is idempotent: the create
// carries an Idempotency-Key) with a doubling backoff between these bounds.
const RETRY_FOR_MS = 30_000;
const BACKOFF_FIRST_MS = 200;
const BACKOFF_MAX_MS = 2_000;
// Where an elicitation ends: the stored result is the answer (`{"action":"cancel"}` when it
// expired or was withdrawn, as the element's own timeout).
const FINAL = new Set(['settled', 'expired', 'withdrawn']);

/** An error answer of the relay (4xx, or 5xx after retrying): the relay's message, its status and body. */
export class RelayError extends Error {
  constructor(status, body, fallback) {
    const detail = body?.error;
    const message = typeof detail?.message === 'string' ? detail.message : fallback;
    super(`koder-elicitation-relay answered ${status}: ${message}`);
    this.name = 'RelayError';
    this.status = status;
    this.body = body;
    // A request the relay's core refused is an invalid request for the MCP peer too: the SDK answers
    // the server with this JSON-RPC code.
    if (Number.isSafeInteger(detail?.jsonrpcCode)) this.code = detail.jsonrpcCode;
  }
}

/**
 * An `elicitation/create` handler for SDK v2's `client.setRequestHandler` that routes the request
 * through the relay to the person `scope` names and resolves with their ElicitResult.
 */
export function relayElicitationHandler(options) {
  const { url, serviceToken, scope, serverName, timeoutMs } = options ?? {};
  const fetchImpl = options?.fetch ?? globalThis.fetch;
  if (typeof url !== 'string' || url === '') throw new TypeError('relayElicitationHandler: `url` (the relay\'s base URL) is required');
  if (typeof serviceToken !== 'string' || serviceToken === '') throw new TypeError('relayElicitationHandler: `serviceToken` is required');
  if (typeof scope !== 'function' && !isScope(scope)) {
    throw new TypeError('relayElicitationHandler: `scope` must be { userId, workspaceId, conversationId? } (non-empty strings) or a function returning one');
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
    const body = {
      scope: tenant,
      request: request?.params ?? {},
      ...(serverName !== undefined && { serverName }),
      ...(timeoutMs !== undefined && { timeoutMs }),
    };
    const headers = { 'Idempotency-Key': globalThis.crypto.randomUUID() };
    // The create is not aborted half-way: once it is sent, the relay may hold the elicitation, and
    // only its id lets the handler withdraw it.
    const created = await retrying(() => relay('POST', '/v1/elicitations', { body, headers }), signal, Date.now() + RETRY_FOR_MS);
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
        const outcome = await retrying(
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
      await retrying(() => relay('DELETE', path), undefined, Date.now() + CALL_TIMEOUT_MS).catch(() => {});
      throw signal?.aborted ? abortReason(signal) : error;
    } finally {
      // Only an accepted URL elicitation waits for its completion.
      if (urlId !== undefined && result?.action !== 'accept') awaitingCompletion.delete(urlId);
    }
  }

  /**
   * The server reported a URL-mode elicitation complete (`notifications/elicitation/complete`,
   * MCP 2025-11-25): the relay is told, and the person's dialog stops waiting. Unknown ids are
   * ignored, as the element does.
   */
  relayElicitation.complete = async (elicitationId) => {
    const path = awaitingCompletion.get(elicitationId);
    if (path === undefined) return;
    awaitingCompletion.delete(elicitationId);
    await retrying(() => relay('POST', `${path}/complete`), undefined, Date.now() + RETRY_FOR_MS);
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
  const { url, serviceToken, scope, request, serverName, timeoutMs } = options ?? {};
  const fetchImpl = options?.fetch ?? globalThis.fetch;
  if (typeof url !== 'string' || url === '') throw new TypeError('createRelayElicitation: `url` (the relay\'s base URL) is required');
  if (typeof serviceToken !== 'string' || serviceToken === '') throw new TypeError('createRelayElicitation: `serviceToken` is required');
  if (!isScope(scope)) throw new TypeError('createRelayElicitation: `scope` must be { userId, workspaceId, conversationId? } (non-empty strings)');
  if (typeof request !== 'object' || request === null) throw new TypeError('createRelayElicitation: `request` (the elicitation/create params) is required');
  if (typeof fetchImpl !== 'function') throw new TypeError('createRelayElicitation: no fetch: pass `fetch`');
  const idempotencyKey = options?.idempotencyKey ?? globalThis.crypto.randomUUID();
  const body = {
    scope,
    request,
    ...(serverName !== undefined && { serverName }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
  const created = await retrying(
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

/**
 * The person's side of the relay's Web Push, in their browser (call it from a click, after
 * `requestNotificationPermission()`): fetches the relay's VAPID public key (`GET /v1/push/key`),
 * subscribes the service worker `registration` with it (reusing its subscription when that has the
 * same key; one with another key is unsubscribed first) and stores the subscription for the
 * token's person (`POST /v1/push/subscriptions`). Resolves `{ id, subscription }`. `token` is the
 * person's bearer token, or an async function returning a fresh one (as `connectRelay` takes).
 */
export async function subscribePush(relayUrl, options) {
  const { base, fetchImpl, bearer, pushManager } = pushOptions('subscribePush', relayUrl, options);
  const key = await callRelay(fetchImpl, `${base}/v1/push/key`, 'GET', undefined, { timeout: CALL_TIMEOUT_MS }).catch((error) => {
    if (error instanceof RelayError && error.status === 404) {
      throw Object.assign(
        new RelayError(404, undefined, 'this relay has no Web Push (it runs without a VAPID key: --vapid-private-key-file)'),
        { body: error.body },
      );
    }
    throw error;
  });
  const applicationServerKey = p256Point(key?.publicKey);
  if (applicationServerKey === null) throw new RelayError(200, key, 'GET /v1/push/key: `publicKey` is not a base64url P-256 point');

  let subscription = await pushManager.getSubscription();
  if (subscription !== null && !sameBytes(subscription.options?.applicationServerKey, applicationServerKey)) {
    // Subscribed for another application server key (the relay's key changed): that push service
    // endpoint would refuse the relay's pushes.
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
  const stored = await callRelay(fetchImpl, `${base}/v1/push/subscriptions`, 'POST', await bearer(), {
    body: subscription.toJSON(),
    timeout: CALL_TIMEOUT_MS,
  });
  if (typeof stored?.id !== 'string') throw new RelayError(200, stored, 'POST /v1/push/subscriptions answered no `id`');
  return { id: stored.id, subscription };
}

/**
 * Undoes {@link subscribePush}: removes the registration's subscription at the relay (found by its
 * endpoint among the person's, `GET /v1/push/subscriptions`, then `DELETE …/{id}`) and in the
 * browser. The browser's is unsubscribed even when the relay call fails (that error is then
 * thrown): a dead endpoint is dropped by the relay at its next push. Resolves `true` when there
 * was a subscription, `false` when there was none.
 */
export async function unsubscribePush(relayUrl, options) {
  const { base, fetchImpl, bearer, pushManager } = pushOptions('unsubscribePush', relayUrl, options);
  const subscription = await pushManager.getSubscription();
  if (subscription === null) return false;
  try {
    const token = await bearer();
    const listed = await callRelay(fetchImpl, `${base}/v1/push/subscriptions`, 'GET', token, { timeout: CALL_TIMEOUT_MS });
    const stored = Array.isArray(listed?.subscriptions)
      ? listed.subscriptions.filter((entry) => entry?.endpoint === subscription.endpoint && typeof entry.id === 'string')
      : [];
    for (const { id } of stored) {
      await callRelay(fetchImpl, `${base}/v1/push/subscriptions/${encodeURIComponent(id)}`, 'DELETE', token, {
        timeout: CALL_TIMEOUT_MS,
        empty: true,
      }).catch((error) => {
        // Already gone (removed elsewhere, or by a 410 from the push service): that is the goal.
        if (!(error instanceof RelayError && error.status === 404)) throw error;
      });
    }
  } finally {
    await subscription.unsubscribe();
  }
  return true;
}

function pushOptions(caller, relayUrl, options) {
  const { token, registration } = options ?? {};
  const fetchImpl = options?.fetch ?? globalThis.fetch;
  if (typeof relayUrl !== 'string' || relayUrl === '') throw new TypeError(`${caller}: the relay's base URL is required`);
  if (typeof token !== 'function' && (typeof token !== 'string' || token === '')) {
    throw new TypeError(`${caller}: \`token\` (the person's bearer token, or an async function returning one) is required`);
  }
  const pushManager = registration?.pushManager;
  if (typeof pushManager?.subscribe !== 'function' || typeof pushManager.getSubscription !== 'function') {
    throw new TypeError(`${caller}: \`registration\` must be a ServiceWorkerRegistration with a pushManager (this browser may have no Web Push)`);
  }
  if (typeof fetchImpl !== 'function') throw new TypeError(`${caller}: no fetch: pass \`fetch\``);
  const bearer = async () => {
    const value = typeof token === 'function' ? await token() : token;
    if (typeof value !== 'string' || value === '') throw new TypeError(`${caller}: the \`token\` function returned no token`);
    return value;
  };
  return { base: relayUrl.replace(/\/+$/, ''), fetchImpl, bearer, pushManager };
}

/** The bytes of a base64url uncompressed P-256 point (65 bytes, 0x04 first), or null. */
function p256Point(base64url) {
  const unpadded = typeof base64url === 'string' ? base64url.replace(/=+$/, '') : '';
  if (!/^[A-Za-z0-9_-]{87}$/.test(unpadded)) return null;
  const binary = atob(unpadded.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return bytes[0] === 4 ? bytes : null;
}

function sameBytes(buffer, bytes) {
  if (!(buffer instanceof ArrayBuffer) && !ArrayBuffer.isView(buffer)) return false;
  const view = ArrayBuffer.isView(buffer) ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer);
  return view.length === bytes.length && view.every((byte, index) => byte === bytes[index]);
}

function isScope(scope) {
  const text = (value) => typeof value === 'string' && value !== '';
  return typeof scope === 'object' && scope !== null && text(scope.userId) && text(scope.workspaceId)
    && (scope.conversationId === undefined || typeof scope.conversationId === 'string');
}

function abortReason(signal) {
  return signal.reason ?? new DOMException('The elicitation was aborted', 'AbortError');
}

/**
 * One relay call: the JSON answer of a 2xx (or `null` for a 204 when `empty` allows it), else a
 * RelayError (`retry` set for network errors and 5xx). `bearer` undefined sends no Authorization.
 */
async function callRelay(fetchImpl, url, method, bearer, { body, headers, signal, timeout, empty = false }) {
  const timer = AbortSignal.timeout(timeout);
  let response;
  try {
    response = await fetchImpl(url, {
      method,
      headers: {
        ...(bearer !== undefined && { Authorization: `Bearer ${bearer}` }),
        Accept: 'application/json',
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: signal ? AbortSignal.any([signal, timer]) : timer,
    });
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal);
    throw Object.assign(new Error(`koder-elicitation-relay unreachable: ${error?.message ?? error}`, { cause: error }), { retry: true });
  }
  const text = await response.text().catch(() => '');
  let parsed;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.ok && parsed !== undefined) return parsed;
  if (response.ok && empty && text === '') return null;
  const error = new RelayError(response.status, parsed, response.ok ? 'an answer that is not JSON' : response.statusText || 'no message');
  if (response.status >= 500) error.retry = true;
  throw error;
}

/** `attempt()` until it succeeds, fails for good, `signal` aborts, or `deadline` (ms) passes. */
async function retrying(attempt, signal, deadline) {
  for (let backoff = BACKOFF_FIRST_MS; ; backoff = Math.min(backoff * 2, BACKOFF_MAX_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (!error?.retry || signal?.aborted || Date.now() + backoff > deadline) throw error;
    }
    await sleep(backoff, signal);
  }
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
