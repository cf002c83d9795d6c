// `koder-mcp-elicitation/push-worker`: the relay's Web Push, shown by an app's own service worker.
// Plain JS with no imports and no wasm; nothing loads it but the worker that imports it:
//
//   import { handlePush, handleNotificationClick } from "koder-mcp-elicitation/push-worker";
//   self.addEventListener("push", (event) => handlePush(event));
//   self.addEventListener("notificationclick", (event) => handleNotificationClick(event));
//
// A push's payload is the relay's JSON: `{ type: "elicitation", id, serverName, message, url?, … }`
// shows a notification tagged `id`; `{ type: "settled", id }` closes it. The payload is untrusted:
// anything else is ignored, never thrown on.

const ID_MAX_CHARS = 256;
const TITLE_MAX_CHARS = 60;
const BODY_MAX_CHARS = 180;
/** What `data.kind` holds on our notifications, so a click on another one is left alone. */
const KIND = "koder-mcp-elicitation";

/**
 * Handles a `push` event: shows the notification for an `elicitation` payload (unless a window of
 * the app is visible and focused, or `options.showWhenFocused`), closes the one tagged `id` for a
 * `settled` payload, and ignores anything else. It holds the worker with `event.waitUntil` until
 * done, and returns that promise (true when the payload was one of ours).
 */
export function handlePush(event, options = {}) {
  const payload = readPayload(event);
  const done = payload ? act(payload, options ?? {}).then(() => true, () => true) : Promise.resolve(false);
  event?.waitUntil?.(done);
  return done;
}

/**
 * Handles a `notificationclick` event on one of our notifications: closes it, then focuses the
 * app's window at its `url` (same origin as the worker; else the worker's scope), or opens one.
 * Returns `false` for another notification (left to the app), else the promise `waitUntil` holds.
 */
export function handleNotificationClick(event) {
  const notification = event?.notification;
  const data = notification?.data;
  if (data === null || typeof data !== "object" || data.kind !== KIND) return false;
  notification.close();
  const done = focusOrOpen(appUrl(data.url)).then(() => true, () => true);
  event.waitUntil?.(done);
  return done;
}

function readPayload(event) {
  let payload;
  try {
    payload = event?.data?.json();
  } catch {
    return null;
  }
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return null;
  const { type, id } = payload;
  if (typeof id !== "string" || id === "" || id.length > ID_MAX_CHARS) return null;
  if (type === "settled") return { type, id };
  if (type !== "elicitation") return null;
  return {
    type,
    id,
    serverName: oneLine(payload.serverName, TITLE_MAX_CHARS),
    message: oneLine(payload.message, BODY_MAX_CHARS),
    url: typeof payload.url === "string" ? payload.url : null,
  };
}

async function act(payload, options) {
  const registration = self.registration;
  if (payload.type === "settled") {
    for (const shown of await registration.getNotifications({ tag: payload.id })) shown.close();
    return;
  }
  if (!options.showWhenFocused && (await appInView())) return;
  await registration.showNotification(payload.serverName || payload.message || "…", {
    body: payload.serverName ? payload.message : "",
    tag: payload.id,
    data: { kind: KIND, id: payload.id, url: payload.url },
    ...(typeof options.icon === "string" ? { icon: options.icon } : {}),
    ...(typeof options.badge === "string" ? { badge: options.badge } : {}),
  });
}

/** Whether a window of the app is visible and focused: the page shows the question itself. */
async function appInView() {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  return windows.some((client) => client.visibilityState === "visible" && client.focused);
}

/** The server's text on one line, its bidi controls dropped (nothing here can isolate them), cut. */
function oneLine(value, max) {
  if (typeof value !== "string") return "";
  const line = value.replace(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, "").replace(/[\s\p{Cc}]+/gu, " ").trim();
  const chars = [...line];
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join("").trimEnd()}…`;
}

/** `url` when it is a page of the app (the worker's origin), else the worker's scope. */
function appUrl(url) {
  const scope = self.registration.scope;
  try {
    const target = new URL(url, scope);
    if (target.origin === self.location.origin) return target.href;
  } catch {}
  return scope;
}

async function focusOrOpen(url) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const there = windows.find((client) => client.url === url);
  if (there) return there.focus();
  return self.clients.openWindow(url);
}
