// `connectRelay` (the element's `el.connectRelay(url, { token, place })`): joins the element to
// koder-elicitation-relay. One SSE stream, read with fetch (so a 401 is seen and a fresh token asked
// for), brings the person's pending elicitations; each is shown with elicit() and the person's own
// answer is posted back. With `place`, each is shown by the element `place(view)` returns (a chat
// host's new inline element in that conversation's transcript), else by this one. This and
// status-url polling are the element's only network access, and this starts only when the host
// calls it; the element fetches this module then. Server strings go to elicit() as they came: the
// element renders them as text.

import { readEvents } from "./relay-events.js";
import { backoff, retryAfterMs, retryable, retrying, sleep } from "./relay-retry.js";

const connections = new WeakMap(); // element → its current RelayConnection
const ENDINGS = ["accept", "reject", "cancel", "timeout"];
// The page's waits between tries: doubling from the first to the most, jittered.
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

export function connectRelay(element, url, options) {
  const getToken = options?.token;
  if (typeof getToken !== "function") throw new TypeError("connectRelay: options.token must be a function");
  const place = options?.place;
  if (place !== undefined && typeof place !== "function") throw new TypeError("connectRelay: options.place must be a function");
  connections.get(element)?.disconnect();
  const connection = new RelayConnection(element, url, getToken, place);
  connection.follow();
  connections.set(element, connection);
  return connection.disconnect;
}

/** One element's connection to the relay: its stream, what it shows, and the answers it posts. */
class RelayConnection {
  #element;
  #place;
  #getToken;
  #base;
  #stop = new AbortController();
  #shown = new Map(); // relay id → { completeId, serverName, target, team }: what complete() takes, the element showing it, a team's question
  #open = new Map(); // relay id → its AbortController, while its elicit() is pending
  #endings = new Map(); // relay id → how it ended on screen: "post" (the person answered), "timeout", "other"
  #bearer = null;

  constructor(element, url, getToken, place) {
    this.#element = element;
    this.#base = String(url).replace(/\/+$/, "");
    this.#getToken = getToken;
    this.#place = place;
  }

  /** Ends the stream and closes every open elicitation without answering it (connectRelay's return). */
  disconnect = () => {
    if (this.#stop.signal.aborted) return;
    this.#stop.abort();
    for (const controller of this.#open.values()) controller.abort();
    this.#open.clear();
    if (connections.get(this.#element) === this) connections.delete(this.#element);
  };

  async #authorized(fresh) {
    const bearer = !fresh && this.#bearer !== null ? this.#bearer : String(await this.#getToken());
    this.#bearer = bearer;
    return { Authorization: `Bearer ${bearer}` };
  }

  /** Follows the stream until disconnect(): reconnects after its end or a failure, with backoff. */
  async follow() {
    const stop = this.#stop.signal;
    const waits = backoff(FIRST_DELAY_MS, MAX_DELAY_MS);
    let retryAtOnce = true; // the first 401 after a good connect asks for a fresh token without waiting
    let hint; // the stream's `retry:` field, in ms
    while (!stop.aborted) {
      let response;
      let asked;
      try {
        response = await fetch(`${this.#base}/v1/stream`, {
          headers: { ...(await this.#authorized(false)), Accept: "text/event-stream" },
          cache: "no-store",
          signal: stop,
        });
        if (response.ok && response.body) {
          waits.reset();
          retryAtOnce = true;
          this.#resync();
          await readEvents(response.body, (type, text) => this.#onEvent(type, text), (ms) => (hint = ms));
          // The relay ended it (lagging, the token's expiry, a drain): back soon, and resync.
          asked = hint ?? FIRST_DELAY_MS;
        } else {
          response.body?.cancel().catch(() => {});
          asked = retryAfterMs(response); // 429/503: too many streams for now
        }
      } catch {}
      if (stop.aborted) return;
      if (response?.status === 401) {
        this.#bearer = null;
        if (retryAtOnce) {
          retryAtOnce = false;
          continue;
        }
      }
      // Our waits end early at disconnect().
      await sleep(waits.next(asked), stop).catch(() => {});
    }
  }

  #onEvent(type, text) {
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      return;
    }
    const id = data?.id;
    if (typeof id !== "string" || this.#stop.signal.aborted) return;
    if (type === "elicitation") this.#show(id, data);
    else if (type === "complete") {
      const showing = this.#shown.get(id);
      if (showing) showing.target.complete(showing.completeId, { serverName: showing.serverName });
    }
    // A team's question (no one person in its scope) says who answered; a person's own, answered
    // in another of their tabs, closes as before.
    else if (type === "settled" || type === "withdrawn" || type === "expired") {
      this.#open.get(id)?.abort(this.#shown.get(id)?.team ? answered(data) : undefined);
    }
  }

  // After a reconnect: close what ended elsewhere while the stream was down (the replay lists only
  // pending ones). Only those open before the request was made, so one shown meanwhile stays.
  async #resync() {
    const before = [...this.#open.keys()];
    if (before.length === 0) return;
    try {
      const response = await fetch(`${this.#base}/v1/elicitations?status=pending`, {
        headers: await this.#authorized(false),
        signal: this.#stop.signal,
      });
      if (!response.ok) return;
      const pending = new Set((await response.json()).elicitations.map((view) => view.id));
      for (const id of before) if (!pending.has(id)) this.#open.get(id)?.abort();
    } catch {}
  }

  #show(id, view) {
    if (this.#shown.has(id)) return;
    const request = tagged(view.request, id);
    const on = this.#target(view, request);
    const controller = new AbortController();
    // The relay's time left, on the monotonic clock: the page's own clock may be off by minutes.
    // Only a relay that sends no expiresInMs leaves it to the page's clock.
    const left = Number.isFinite(view.expiresInMs) ? view.expiresInMs : view.expiresAt - Date.now();
    const deadline = performance.now() + left;
    const completeId = String((request?.params ?? request)?.elicitationId ?? id);
    this.#shown.set(id, { completeId, serverName: view.serverName ?? undefined, target: on, team: !view.scope?.userId });
    this.#open.set(id, controller);
    const onEnding = this.#endingOf(id, on);
    hear(on, onEnding, true);
    const settled = () => {
      this.#open.delete(id);
      hear(on, onEnding, false);
      const ending = this.#endings.get(id);
      this.#endings.delete(id);
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
      if (ending === "post") this.#post(id, JSON.stringify(result), deadline);
      else if (ending !== "timeout") this.#shown.delete(id);
    }, settled);
  }

  /** The element to show `view` in: the one `place` returns, else this one. */
  #target(view, request) {
    const place = this.#place;
    if (place === undefined) return this.#element;
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
    return typeof placed?.elicit === "function" ? placed : this.#element;
  }

  // The element fires its event just before it settles the promise; the request's id is the relay
  // id. Heard on the element showing it, for as long as it shows it (one listener per elicitation,
  // so two on one element each keep theirs).
  #endingOf(id, target) {
    return (event) => {
      const { id: named, source } = event.detail ?? {};
      if (event.target !== target || named !== id || !this.#open.has(id)) return;
      const type = event.type;
      this.#endings.set(id, type === "timeout" ? type : type !== "cancel" || source === "user" ? "post" : "other");
    };
  }

  // The same body until a definitive answer (2xx, 404/409/410: answered or withdrawn elsewhere,
  // 422, a second 401): the relay takes an identical repeat as a success, so a retry is safe.
  // Unreached by the deadline or disconnect(): the next replay brings it back.
  async #post(id, body, deadline) {
    let fresh = false;
    const attempt = async () => {
      let response;
      try {
        response = await fetch(`${this.#base}/v1/elicitations/${encodeURIComponent(id)}/result`, {
          method: "POST",
          headers: { ...(await this.#authorized(fresh)), "Content-Type": "application/json" },
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
      signal: this.#stop.signal,
      deadline,
      clock: () => performance.now(),
      firstMs: FIRST_DELAY_MS,
      maxMs: MAX_DELAY_MS,
    }).catch(() => false);
    if (!answered) this.#shown.delete(id);
  }
}

// A question of a team someone else answered: the element's abort reason naming them (their
// name, else their user id, else the mailed address); `undefined` keeps the plain AbortError.
function answered({ answeredBy: by }) {
  const name = [by?.name, by?.userId, by?.email].find((part) => typeof part === "string" && part !== "");
  return name === undefined ? undefined : { answeredBy: name };
}

/** Adds (`on`) or removes `listener` for the element's ending events on `target`, in the capture phase. */
function hear(target, listener, on) {
  for (const type of ENDINGS) target[on ? "addEventListener" : "removeEventListener"](type, listener, true);
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
