// The one retry loop of every relay call, the page's and the host's (src/relay/host.js): what is
// worth another try, the waits between tries (backoff, and the relay's Retry-After), and a wait
// that ends early when its signal aborts.

/** `error`, marked as worth another try (`retry`), after `retryAfterMs` when the relay asked for a wait. */
export function retryable(error, retryAfterMs) {
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
export function backoff(firstMs, maxMs) {
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
export function retryAfterMs(response) {
  const value = response?.headers.get("Retry-After");
  return value && Number(value) >= 0 ? Number(value) * 1000 : undefined;
}

/** Resolves after `ms`, or rejects with `signal`'s reason once it aborts. */
export function sleep(ms, signal) {
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
