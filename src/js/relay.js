// The relay's client, for a person's page and a host alike (koder-elicitation-relay's HTTP API):
//
// - `connectRelay` (the element's `el.connectRelay(url, { token, place })`): joins the element to the
//   relay. One SSE stream, read with fetch (so a 401 is seen and a fresh token asked for), brings the
//   person's pending elicitations; each is shown with elicit() and the person's own answer is posted
//   back. With `place`, each is shown by the element `place(view)` returns (a chat host's new inline
//   element in that conversation's transcript), else by this one. This and status-url polling are
//   the element's only network access, and this starts only when the host calls it. Server strings
//   go to elicit() as they came: the element renders them as text.
// - `subscribePush`, `unsubscribePush`: the person's side of the relay's Web Push (the package's
//   `./relay` export re-exports them from here).
// - `callRelay`, `retrying`, `RelayError`: one relay call, and the one retry loop (backoff, and the
//   relay's Retry-After) that the page's calls and the host's (src/relay/host.js) all go through.

const connections = new WeakMap(); // element → the disconnect() of its current connection
const ENDINGS = ["accept", "reject", "cancel", "timeout"];
// The page's waits between tries: doubling from the first to the most, jittered.
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;
/** The longest a relay call that is not a long-poll may take. */
export const CALL_TIMEOUT_MS = 15_000;

export function connectRelay(element, url, options) {
  const getToken = options?.token;
  if (typeof getToken !== "function") throw new TypeError("connectRelay: options.token must be a function");
  const place = options?.place;
  if (place !== undefined && typeof place !== "function") throw new TypeError("connectRelay: options.place must be a function");
  connections.get(element)?.();
  const base = String(url).replace(/\/+$/, "");
  const stop = new AbortController();
  const shown = new Map(); // relay id → { completeId, serverName, target }: what complete() takes and the element showing it
  const open = new Map(); // relay id → its AbortController, while its elicit() is pending
  const endings = new Map(); // relay id → how it ended on screen: "post" (the person answered), "timeout", "other"
  let bearer = null;
  const token = async (fresh) => (bearer = !fresh && bearer !== null ? bearer : String(await getToken()));
  const authorized = async (fresh) => ({ Authorization: `Bearer ${await token(fresh)}` });

  // The element fires its event just before it settles the promise; the request's id is the relay
  // id. Heard on the element showing it, for as long as it shows it (one listener per elicitation,
  // so two on one element each keep theirs).
  const endingOf = (id, target) => (event) => {
    const { id: named, source } = event.detail ?? {};
    if (event.target !== target || named !== id || !open.has(id)) return;
    const type = event.type;
    endings.set(id, type === "timeout" ? type : type !== "cancel" || source === "user" ? "post" : "other");
  };
  const hear = (target, listener, on) => {
    for (const type of ENDINGS) target[on ? "addEventListener" : "removeEventListener"](type, listener, true);
  };

  /** The element to show `view` in: the one `place` returns, else this one. */
  function target(view, request) {
    if (place === undefined) return element;
    const params = request?.params ?? request ?? {};
    let placed;
    try {
      placed = place(Object.freeze({
        id: view.id,
        conversationId: String(view.scope?.conversationId ?? ""),
        userId: String(view.scope?.userId ?? ""),
        workspaceId: String(view.scope?.workspaceId ?? ""),
        serverName: view.serverName ?? null,
        message: String(params.message ?? params.description ?? ""),
        mode: params.mode === "url" ? "url" : "form",
      }));
    } catch (error) {
      globalThis.reportError?.(error);
    }
    return typeof placed?.elicit === "function" ? placed : element;
  }

  function show(id, view) {
    if (shown.has(id)) return;
    const request = tagged(view.request, id);
    const on = target(view, request);
    const controller = new AbortController();
    // The relay's time left, on the monotonic clock: the page's own clock may be off by minutes.
    // Only a relay that sends no expiresInMs leaves it to the page's clock.
    const left = Number.isFinite(view.expiresInMs) ? view.expiresInMs : view.expiresAt - Date.now();
    const deadline = performance.now() + left;
    const completeId = String((request?.params ?? request)?.elicitationId ?? id);
    shown.set(id, { completeId, serverName: view.serverName ?? undefined, target: on });
    open.set(id, controller);
    const onEnding = endingOf(id, on);
    hear(on, onEnding, true);
    const settled = () => {
      open.delete(id);
      hear(on, onEnding, false);
      const ending = endings.get(id);
      endings.delete(id);
      return ending;
    };
    on.elicit(request, {
      signal: controller.signal,
      serverName: view.serverName,
      timeoutMs: Math.max(1, left),
    }).then((result) => {
      const ending = settled();
      // A timeout is the relay's to expire. Closed without an answer (the element removed, its
      // scope changed, the rate limit): still pending there, so a later replay may show it again.
      if (ending === "post") post(id, JSON.stringify(result), deadline);
      else if (ending !== "timeout") shown.delete(id);
    }, settled);
  }

  // The same body until a definitive answer (2xx, 404/409/410: answered or withdrawn elsewhere,
  // 422, a second 401): the relay takes an identical repeat as a success, so a retry is safe.
  // Unreached by the deadline or disconnect(): the next replay brings it back.
  async function post(id, body, deadline) {
    let fresh = false;
    const attempt = async () => {
      let response;
      try {
        response = await fetch(`${base}/v1/elicitations/${encodeURIComponent(id)}/result`, {
          method: "POST",
          headers: { ...(await authorized(fresh)), "Content-Type": "application/json" },
          body,
        });
      } catch {}
      const status = response?.status ?? 0;
      if (status === 401 && !fresh) {
        fresh = true;
        throw retryable(new Error("the relay refused the token"), 0);
      }
      if (status && status < 500 && status !== 429) return true;
      throw retryable(new Error(`the relay answered ${status || "nothing"}`), retryAfterMs(response));
    };
    const answered = await retrying(attempt, {
      signal: stop.signal,
      deadline,
      clock: () => performance.now(),
      firstMs: FIRST_DELAY_MS,
      maxMs: MAX_DELAY_MS,
    }).catch(() => false);
    if (!answered) shown.delete(id);
  }

  function onEvent(type, text) {
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      return;
    }
    const id = data?.id;
    if (typeof id !== "string" || stop.signal.aborted) return;
    if (type === "elicitation") show(id, data);
    else if (type === "complete") {
      const showing = shown.get(id);
      if (showing) showing.target.complete(showing.completeId, { serverName: showing.serverName });
    }
    else if (type === "settled" || type === "withdrawn" || type === "expired") open.get(id)?.abort();
  }

  // After a reconnect: close what ended elsewhere while the stream was down (the replay lists only
  // pending ones). Only those open before the request was made, so one shown meanwhile stays.
  async function resync() {
    const before = [...open.keys()];
    if (before.length === 0) return;
    try {
      const response = await fetch(`${base}/v1/elicitations?status=pending`, { headers: await authorized(false), signal: stop.signal });
      if (!response.ok) return;
      const pending = new Set((await response.json()).elicitations.map((view) => view.id));
      for (const id of before) if (!pending.has(id)) open.get(id)?.abort();
    } catch {}
  }

  // Our waits end early at disconnect().
  const pause = (ms) => sleep(ms, stop.signal).catch(() => {});

  (async () => {
    const waits = backoff(FIRST_DELAY_MS, MAX_DELAY_MS);
    let retryAtOnce = true; // the first 401 after a good connect asks for a fresh token without waiting
    let hint; // the stream's `retry:` field, in ms
    while (!stop.signal.aborted) {
      let response;
      let asked;
      try {
        response = await fetch(`${base}/v1/stream`, {
          headers: { ...(await authorized(false)), Accept: "text/event-stream" },
          cache: "no-store",
          signal: stop.signal,
        });
        if (response.ok && response.body) {
          waits.reset();
          retryAtOnce = true;
          resync();
          await readEvents(response.body, onEvent, (ms) => (hint = ms));
          // The relay ended it (lagging, the token's expiry, a drain): back soon, and resync.
          asked = hint ?? FIRST_DELAY_MS;
        } else {
          response.body?.cancel().catch(() => {});
          asked = retryAfterMs(response); // 429/503: too many streams for now
        }
      } catch {}
      if (stop.signal.aborted) return;
      if (response?.status === 401) {
        bearer = null;
        if (retryAtOnce) {
          retryAtOnce = false;
          continue;
        }
      }
      await pause(waits.next(asked));
    }
  })();

  function disconnect() {
    if (stop.signal.aborted) return;
    stop.abort();
    for (const controller of open.values()) controller.abort();
    open.clear();
    if (connections.get(element) === disconnect) connections.delete(element);
  }
  connections.set(element, disconnect);
  return disconnect;
}

/**
 * The relay's request as a JSON-RPC request (or an envelope) whose id is the relay id, so the
 * element's events name it. The relay stores a JSON-RPC request, an envelope or bare params (it
 * decodes JSON text and reduces an inputRequests entry to its params before storing); anything
 * else goes on as it is (elicit rejects it).
 */
function tagged(request, id) {
  if (request === null || typeof request !== "object") return request;
  if ("jsonrpc" in request || request.type === "elicitation/request") return { ...request, id };
  return { jsonrpc: "2.0", id, method: "elicitation/create", params: request };
}

/**
 * Reads SSE from `body` until it ends, calling `onEvent(type, data)` per event and `onRetry(ms)`
 * for a `retry:` field.
 */
async function readEvents(body, onEvent, onRetry) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = "";
  let type = "";
  let data = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const lines = (rest + value).split("\n");
    rest = lines.pop();
    for (let line of lines) {
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line === "") {
        if (data !== null) onEvent(type, data);
        type = "";
        data = null;
      } else if (line.startsWith("event:")) {
        type = line.slice(6).trim();
      } else if (line.startsWith("data:")) {
        const chunk = line.slice(line.startsWith("data: ") ? 6 : 5);
        data = data === null ? chunk : `${data}\n${chunk}`;
      } else if (/^retry: ?\d+$/.test(line)) {
        onRetry(Number(line.slice(6)));
      }
    }
  }
}

// The person"s side of the relay"s Web Push ------------------------------------------------------

/**
 * The person"s side of the relay"s Web Push, in their browser (call it from a click, after
 * `requestNotificationPermission()`): fetches the relay's VAPID public key (`GET /v1/push/key`),
 * subscribes the service worker `registration` with it (reusing its subscription when that has the
 * same key; one with another key is unsubscribed first) and stores the subscription for the
 * token's person (`POST /v1/push/subscriptions`), with the language the relay words its pushes in:
 * `language`, else the page's `<html lang>`, else `navigator.language`. Resolves
 * `{ id, subscription }`. `token` is the person's bearer token, or an async function returning a
 * fresh one (as `connectRelay` takes).
 */
export async function subscribePush(relayUrl, options) {
  const { base, fetchImpl, bearer, pushManager } = pushOptions("subscribePush", relayUrl, options);
  const key = await callRelay(fetchImpl, `${base}/v1/push/key`, "GET", undefined, { timeout: CALL_TIMEOUT_MS }).catch((error) => {
    if (error instanceof RelayError && error.status === 404) {
      throw Object.assign(
        new RelayError(404, undefined, "this relay has no Web Push (it runs without a VAPID key: --vapid-private-key-file)"),
        { body: error.body },
      );
    }
    throw error;
  });
  const applicationServerKey = p256Point(key?.publicKey);
  if (applicationServerKey === null) throw new RelayError(200, key, "GET /v1/push/key: `publicKey` is not a base64url P-256 point");

  let subscription = await pushManager.getSubscription();
  if (subscription !== null && !sameBytes(subscription.options?.applicationServerKey, applicationServerKey)) {
    // Subscribed for another application server key (the relay's key changed): that push service
    // endpoint would refuse the relay's pushes.
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
  const language = options.language ?? languageTag(globalThis.document?.documentElement?.lang) ?? languageTag(globalThis.navigator?.language);
  const stored = await callRelay(fetchImpl, `${base}/v1/push/subscriptions`, "POST", await bearer(), {
    body: { ...subscription.toJSON(), language },
    timeout: CALL_TIMEOUT_MS,
  });
  if (typeof stored?.id !== "string") throw new RelayError(200, stored, "POST /v1/push/subscriptions answered no `id`");
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
  const { base, fetchImpl, bearer, pushManager } = pushOptions("unsubscribePush", relayUrl, options);
  const subscription = await pushManager.getSubscription();
  if (subscription === null) return false;
  try {
    const token = await bearer();
    const listed = await callRelay(fetchImpl, `${base}/v1/push/subscriptions`, "GET", token, { timeout: CALL_TIMEOUT_MS });
    const stored = Array.isArray(listed?.subscriptions)
      ? listed.subscriptions.filter((entry) => entry?.endpoint === subscription.endpoint && typeof entry.id === "string")
      : [];
    for (const { id } of stored) {
      await callRelay(fetchImpl, `${base}/v1/push/subscriptions/${encodeURIComponent(id)}`, "DELETE", token, {
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
  if (typeof relayUrl !== "string" || relayUrl === "") throw new TypeError(`${caller}: the relay's base URL is required`);
  if (typeof token !== "function" && (typeof token !== "string" || token === "")) {
    throw new TypeError(`${caller}: \`token\` (the person's bearer token, or an async function returning one) is required`);
  }
  const pushManager = registration?.pushManager;
  if (typeof pushManager?.subscribe !== "function" || typeof pushManager.getSubscription !== "function") {
    throw new TypeError(`${caller}: \`registration\` must be a ServiceWorkerRegistration with a pushManager (this browser may have no Web Push)`);
  }
  if (typeof fetchImpl !== "function") throw new TypeError(`${caller}: no fetch: pass \`fetch\``);
  const bearer = async () => {
    const value = typeof token === "function" ? await token() : token;
    if (typeof value !== "string" || value === "") throw new TypeError(`${caller}: the \`token\` function returned no token`);
    return value;
  };
  return { base: relayUrl.replace(/\/+$/, ""), fetchImpl, bearer, pushManager };
}

/** `text` when it is a language tag the relay takes (a page's malformed `lang` is skipped), else undefined. */
function languageTag(text) {
  return typeof text === "string" && /^[A-Za-z0-9-]{1,35}$/.test(text) ? text : undefined;
}

/** The bytes of a base64url uncompressed P-256 point (65 bytes, 0x04 first), or null. */
function p256Point(base64url) {
  const unpadded = typeof base64url === "string" ? base64url.replace(/=+$/, "") : "";
  if (!/^[A-Za-z0-9_-]{87}$/.test(unpadded)) return null;
  const binary = atob(unpadded.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return bytes[0] === 4 ? bytes : null;
}

function sameBytes(buffer, bytes) {
  if (!(buffer instanceof ArrayBuffer) && !ArrayBuffer.isView(buffer)) return false;
  const view = ArrayBuffer.isView(buffer) ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer);
  return view.length === bytes.length && view.every((byte, index) => byte === bytes[index]);
}

// One relay call, and one retry loop ---------------------------------------------------------------

/** An error answer of the relay (4xx, or 5xx after retrying): the relay's message, its status and body. */
export class RelayError extends Error {
  constructor(status, body, fallback) {
    const detail = body?.error;
    const message = typeof detail?.message === "string" ? detail.message : fallback;
    super(`koder-elicitation-relay answered ${status}: ${message}`);
    this.name = "RelayError";
    this.status = status;
    this.body = body;
    // A request the relay's core refused is an invalid request for the MCP peer too: the SDK answers
    // the server with this JSON-RPC code.
    if (Number.isSafeInteger(detail?.jsonrpcCode)) this.code = detail.jsonrpcCode;
  }
}

/**
 * One relay call: the JSON answer of a 2xx (or `null` for a 204 when `empty` allows it), else a
 * RelayError (retryable for network errors and 5xx, after the relay's Retry-After when it sent
 * one). `bearer` undefined sends no Authorization.
 */
export async function callRelay(fetchImpl, url, method, bearer, { body, headers, signal, timeout, empty = false }) {
  const timer = AbortSignal.timeout(timeout);
  let response;
  try {
    response = await fetchImpl(url, {
      method,
      headers: {
        ...(bearer !== undefined && { Authorization: `Bearer ${bearer}` }),
        Accept: "application/json",
        ...(body !== undefined && { "Content-Type": "application/json" }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: signal ? AbortSignal.any([signal, timer]) : timer,
    });
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal);
    throw retryable(new Error(`koder-elicitation-relay unreachable: ${error?.message ?? error}`, { cause: error }));
  }
  const text = await response.text().catch(() => "");
  let parsed;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.ok && parsed !== undefined) return parsed;
  if (response.ok && empty && text === "") return null;
  const error = new RelayError(response.status, parsed, response.ok ? "an answer that is not JSON" : response.statusText || "no message");
  throw response.status >= 500 ? retryable(error, retryAfterMs(response)) : error;
}

/** `error`, marked as worth another try (`retry`), after `retryAfterMs` when the relay asked for a wait. */
function retryable(error, retryAfterMs) {
  return Object.assign(error, { retry: true, retryAfterMs });
}

/**
 * `attempt()` until it resolves (with its value) or throws an error not marked `retry`; between
 * tries the wait the relay asked for, else our backoff (`firstMs` doubling to `maxMs`). Gives up,
 * throwing the last error, when `signal` has aborted or the next wait would end past `deadline`
 * (ms on `clock`); a wait cut short by `signal` throws its reason.
 */
export async function retrying(attempt, { signal, deadline, clock = Date.now, firstMs, maxMs }) {
  const waits = backoff(firstMs, maxMs);
  for (;;) {
    let failure;
    try {
      return await attempt();
    } catch (error) {
      if (!error?.retry) throw error;
      failure = error;
    }
    const wait = waits.next(failure.retryAfterMs);
    if (signal?.aborted || clock() + wait > deadline) throw failure;
    await sleep(wait, signal);
  }
}

/**
 * The waits between tries: `next(askedMs)` is the wait the relay asked for, spread over up to half
 * again (so its clients do not return at once), or else our own, between half and all of one that
 * doubles from `firstMs` to `maxMs` each time it is used; `reset()` starts again from `firstMs`.
 */
function backoff(firstMs, maxMs) {
  let delay = firstMs;
  return {
    next(askedMs) {
      if (askedMs !== undefined) return askedMs * (1 + Math.random() / 2);
      const wait = delay * (0.5 + Math.random() / 2);
      delay = Math.min(delay * 2, maxMs);
      return wait;
    },
    reset() {
      delay = firstMs;
    },
  };
}

/** `Retry-After` in ms, if the response has one in seconds (its HTTP-date form would lean on this clock). */
function retryAfterMs(response) {
  const value = response?.headers.get("Retry-After");
  return value && Number(value) >= 0 ? Number(value) * 1000 : undefined;
}

/** Resolves after `ms`, or rejects with `signal`'s reason once it aborts. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function abortReason(signal) {
  return signal.reason ?? new DOMException("The elicitation was aborted", "AbortError");
}
