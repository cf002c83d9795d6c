// `koder-mcp-elicitation/push-worker`: the relay's Web Push, shown by an app's own service worker.
// Plain JS with no imports and no wasm; nothing loads it but the worker that imports it:
//
//   import { handlePush, handleNotificationClick } from "koder-mcp-elicitation/push-worker";
//   self.addEventListener("push", (event) => handlePush(event));
//   self.addEventListener("notificationclick", (event) => handleNotificationClick(event));
//
// A push's payload is the relay's JSON: `{ type: "elicitation", id, serverName, message, url?,
// title?, body?, lang?, dir?, actions?, answer?, … }` shows a notification tagged `id`, worded by
// the relay as the element's own `notify` words it (`title`, `body`, in `lang`), or, from a relay
// that sends no words, titled with the server's name; with `actions` (a one-tap question: "Yes" /
// "No", "Accept" / "Reject", or two options) it shows them as the notification's buttons, and a
// tap on one answers through the question's link (`answer`) with one POST and no window;
// `{ type: "settled", id }` closes it. The payload is untrusted: anything else is ignored, never
// thrown on.

const ID_MAX_CHARS = 256;
const TITLE_MAX_CHARS = 60;
const BODY_MAX_CHARS = 180;
// The relay's own words: the title names a server of up to 60 characters; each is isolated.
const WORDS_TITLE_MAX_CHARS = 120;
const WORDS_BODY_MAX_CHARS = 190;
/** The most actions shown (the relay sends at most two: what every browser shows). */
const MAX_ACTIONS = 2;
const ACTION_TITLE_MAX_CHARS = 40;
/** A token is 256 bits in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
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
 * Handles a `notificationclick` event on one of our notifications: closes it; with `event.action`
 * (one of the payload's actions), answers through the question's link with one POST and opens no
 * window, or opens the link when that fails (offline, 409, 404, any other answer); without one,
 * focuses the app's window at its `url` (same origin as the worker; else the worker's scope), or
 * opens one. Returns `false` for another notification (left to the app), else the promise
 * `waitUntil` holds: true when an action's answer was taken, else true once a window is shown.
 */
export function handleNotificationClick(event) {
  const notification = event?.notification;
  const data = notification?.data;
  if (data === null || typeof data !== "object" || data.kind !== KIND) return false;
  notification.close();
  const action = typeof event.action === "string" ? event.action : "";
  const answer = data.answer;
  const done =
    action !== "" && answer && Object.hasOwn(answer.results, action)
      ? answerOrOpen(answer, action)
      : focusOrOpen(appUrl(data.url)).then(() => true, () => true);
  event.waitUntil?.(done);
  return done;
}

/** One POST of the action's result through the link; the link opened when it was not taken. */
async function answerOrOpen(answer, action) {
  let taken = false;
  try {
    const response = await fetch(answer.endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token: answer.token, result: answer.results[action] }),
    });
    taken = response.ok;
  } catch {}
  if (taken) return true;
  await self.clients.openWindow(answer.link).catch(() => null);
  return false;
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
  const url = typeof payload.url === "string" ? payload.url : null;
  return { type, id, ...shownWords(payload), url, ...oneTap(payload.actions, payload.answer) };
}

/**
 * A one-tap question's actions and how to answer them, when both are well formed: each action a
 * key of `answer.results`, the endpoint the relay's `…/v1/links/answer` and the link a page of the
 * same origin (so a forged payload can make the worker POST or open nothing else); else none.
 */
function oneTap(actions, answer) {
  const none = { actions: [], answer: null };
  if (!Array.isArray(actions) || actions.length === 0 || answer === null || typeof answer !== "object") return none;
  const { endpoint, token, link, results } = answer;
  if (typeof token !== "string" || !TOKEN.test(token)) return none;
  if (results === null || typeof results !== "object" || Array.isArray(results)) return none;
  let origin;
  try {
    const answerAt = new URL(endpoint);
    const page = new URL(link);
    if (!/^https?:$/.test(answerAt.protocol) || answerAt.pathname !== "/v1/links/answer") return none;
    if (page.origin !== answerAt.origin) return none;
    origin = answerAt.origin;
  } catch {
    return none;
  }
  const shown = [];
  for (const item of actions.slice(0, MAX_ACTIONS)) {
    const action = typeof item?.action === "string" ? item.action : "";
    const title = oneLine(item?.title, ACTION_TITLE_MAX_CHARS);
    if (!/^choice-\d$/.test(action) || title === "" || !Object.hasOwn(results, action)) return none;
    shown.push({ action, title });
  }
  const kept = Object.fromEntries(shown.map(({ action }) => [action, results[action]]));
  return {
    actions: shown,
    answer: { endpoint: `${origin}/v1/links/answer`, token, link: new URL(link).href, results: kept },
  };
}

/**
 * What the notification says: the relay's words when it sent them (their bidi isolates kept: the
 * relay balanced them, and they order only this text), else the server's name as the title and
 * the message as the body.
 */
function shownWords(payload) {
  const title = oneLine(payload.title, WORDS_TITLE_MAX_CHARS, true);
  if (title !== "") {
    return {
      title,
      body: oneLine(payload.body, WORDS_BODY_MAX_CHARS, true),
      lang: typeof payload.lang === "string" && /^[A-Za-z0-9-]{1,35}$/.test(payload.lang) ? payload.lang : "",
      dir: payload.dir === "rtl" || payload.dir === "ltr" ? payload.dir : "auto",
    };
  }
  const serverName = oneLine(payload.serverName, TITLE_MAX_CHARS);
  const message = oneLine(payload.message, BODY_MAX_CHARS);
  return { title: serverName || message || "…", body: serverName ? message : "", lang: "", dir: "auto" };
}

async function act(payload, options) {
  const registration = self.registration;
  if (payload.type === "settled") {
    for (const shown of await registration.getNotifications({ tag: payload.id })) shown.close();
    return;
  }
  if (!options.showWhenFocused && (await appInView())) return;
  await registration.showNotification(payload.title, {
    body: payload.body,
    lang: payload.lang,
    dir: payload.dir,
    tag: payload.id,
    data: { kind: KIND, id: payload.id, url: payload.url, ...(payload.answer ? { answer: payload.answer } : {}) },
    ...(payload.actions.length > 0 ? { actions: payload.actions } : {}),
    ...(typeof options.icon === "string" ? { icon: options.icon } : {}),
    ...(typeof options.badge === "string" ? { badge: options.badge } : {}),
  });
}

/** Whether a window of the app is visible and focused: the page shows the question itself. */
async function appInView() {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  return windows.some((client) => client.visibilityState === "visible" && client.focused);
}

/**
 * Text on one line, cut. A server's text loses its bidi controls (nothing here can isolate them);
 * the relay's own words (`isolated`) keep theirs.
 */
function oneLine(value, max, isolated = false) {
  if (typeof value !== "string") return "";
  const controls = isolated ? value : value.replace(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, "");
  const line = controls.replace(/[\s\p{Cc}]+/gu, " ").trim();
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
