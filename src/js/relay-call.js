// One call to the relay's HTTP API, for the page's Web Push calls (src/js/relay-push.js) and the
// host's (src/relay/host.js): its JSON answer, or a RelayError that says whether to try again.

import { abortReason, retryAfterMs, retryable } from "./relay-retry.js";

/** The longest a relay call that is not a long-poll may take. */
export const CALL_TIMEOUT_MS = 15_000;

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
