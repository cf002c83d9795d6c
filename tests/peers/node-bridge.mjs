// Serves a web-standard MCP handler (`createMcpHandler(...).fetch` from `@modelcontextprotocol/server`)
// from Node's `http` server: the request becomes a `Request`, the `Response` streams back (SSE too),
// and the client going away aborts the exchange.
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Reads a request body, refusing more than `limit` bytes. */
export function readBody(req, limit = MAX_BODY_BYTES) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Answers one Node request with `handler.fetch`; `origin` is this server's own `http://host:port`. */
export async function serveWebHandler(handler, req, res, origin) {
  const aborted = new AbortController();
  res.on('close', () => aborted.abort());
  const body = req.method === 'POST' ? await readBody(req) : undefined;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const response = await handler.fetch(new Request(new URL(req.url ?? '/', origin), {
    method: req.method, headers, body, signal: aborted.signal,
  }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.flushHeaders();
  if (!response.body) return res.end();
  try {
    for await (const chunk of response.body) res.write(chunk);
  } catch {
    // the client went away mid-stream
  }
  res.end();
}
