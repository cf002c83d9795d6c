// The relay's stream (`GET /v1/stream`) is server-sent events read with fetch, not EventSource, so
// that a 401 is seen: this reads its events off the response body.

/**
 * Reads SSE from `body` until it ends, calling `onEvent(type, data)` per event and `onRetry(ms)`
 * for a `retry:` field.
 */
export async function readEvents(body, onEvent, onRetry) {
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
