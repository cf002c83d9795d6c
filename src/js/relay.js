// `el.connectRelay(url, { token, place })`: joins the element to a koder-elicitation-relay. One SSE
// stream, read with fetch (so a 401 is seen and a fresh token asked for), brings the person's
// pending elicitations; each is shown with elicit() and the person's own answer is posted back.
// With `place`, each is shown by the element `place(view)` returns (a chat host's new inline
// element in that conversation's transcript), else by this one. This and status-url polling are
// the element's only network access, and this starts only when the host calls it. Server strings
// go to elicit() as they came: the element renders them as text.

const connections = new WeakMap(); // element → the disconnect() of its current connection
const ENDINGS = ["accept", "reject", "cancel", "timeout"];
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

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
    let delay = FIRST_DELAY_MS;
    do {
      let response;
      try {
        response = await fetch(`${base}/v1/elicitations/${encodeURIComponent(id)}/result`, {
          method: "POST",
          headers: { ...(await authorized(fresh)), "Content-Type": "application/json" },
          body,
        });
      } catch {}
      const status = response?.status ?? 0;
      if (status === 401 && !fresh) fresh = true;
      else if (status && status < 500 && status !== 429) return;
      else {
        await pause(retryAfter(response) ?? backoff(delay));
        delay = Math.min(delay * 2, MAX_DELAY_MS);
      }
    } while (!stop.signal.aborted && performance.now() < deadline);
    shown.delete(id);
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

  const pause = (ms) => new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop.signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.signal.addEventListener("abort", done);
  });

  (async () => {
    let delay = FIRST_DELAY_MS;
    let retryAtOnce = true; // the first 401 after a good connect asks for a fresh token without waiting
    let hint; // the stream's `retry:` field, in ms
    while (!stop.signal.aborted) {
      let response;
      let wait;
      try {
        response = await fetch(`${base}/v1/stream`, {
          headers: { ...(await authorized(false)), Accept: "text/event-stream" },
          cache: "no-store",
          signal: stop.signal,
        });
        if (response.ok && response.body) {
          delay = FIRST_DELAY_MS;
          retryAtOnce = true;
          resync();
          await readEvents(response.body, onEvent, (ms) => (hint = ms));
          // The relay ended it (lagging, the token's expiry, a drain): back soon, and resync.
          wait = jittered(hint ?? FIRST_DELAY_MS);
        } else {
          response.body?.cancel().catch(() => {});
          wait = retryAfter(response); // 429/503: too many streams for now
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
      await pause(wait ?? backoff(delay));
      if (wait === undefined) delay = Math.min(delay * 2, MAX_DELAY_MS);
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

/** Our own wait of about `ms`: between half of it and all of it, so clients spread out. */
const backoff = (ms) => ms * (0.5 + Math.random() / 2);

/** A wait the relay asked for (`ms`), spread over up to half again so its clients do not return at once. */
const jittered = (ms) => ms * (1 + Math.random() / 2);

/** `Retry-After` in seconds, jittered, if the response has one (its HTTP-date form would lean on the page's clock). */
function retryAfter(response) {
  const value = response?.headers.get("Retry-After");
  return value && Number(value) >= 0 ? jittered(Number(value) * 1000) : undefined;
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
