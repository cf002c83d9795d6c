// The person's side of the relay's Web Push, in their browser: subscribePush and unsubscribePush
// (the package's `./relay` export re-exports them, src/relay/host.js). The element never loads this.

import { CALL_TIMEOUT_MS, RelayError, callRelay } from "./relay-call.js";

/**
 * Subscribes the person to the relay's Web Push in their browser (call it from a click, after
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
