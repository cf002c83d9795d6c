#!/usr/bin/env node
// A real MCP server on the TypeScript SDK v2 (`@modelcontextprotocol/server`) whose tools elicit
// through multi round-trip requests (MCP 2026-07-28; see tests/peers/mrtr-tools.mjs). It serves
// 2026-07-28 and, through the SDK's fallback, 2025-11-25: on stdio a 2025-11-25 client gets each
// input request as the server's own elicitation/create; over HTTP the SDK serves 2025-11-25 statelessly,
// with no way to send requests, so there the tools answer with an error saying so.
//
//   node tests/peers/mrtr-server.mjs                     stdio (the default)
//   node tests/peers/mrtr-server.mjs --http [--port N]   Streamable HTTP at /mcp (port 0: a free one)
//
// Either way it runs an HTTP listener on 127.0.0.1 for the sign-in page of `url_sign_in`:
//   GET  /visit/<flow>   the page (a "Finish sign-in" button)
//   POST /visit/<flow>   the out-of-band step: marks the flow done (204; 404 for an unknown flow)
// With --http that listener also serves /mcp. When ready it prints one line on stderr:
//   mrtr peer ready: mcp=<http url or "stdio"> visit=http://127.0.0.1:<port>
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createFlows, registerMrtrTools } from './mrtr-tools.mjs';
import { readBody, serveWebHandler } from './node-bridge.mjs';

const HOST = '127.0.0.1';

function parseArgs(argv) {
  const options = { http: false, port: 0 };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--http') options.http = true;
    else if (arg === '--stdio') options.http = false;
    else if (arg === '--port') options.port = Number.parseInt(argv[++i] ?? '', 10);
    else throw new Error(`unknown argument ${JSON.stringify(arg)} (use --http [--port N] or --stdio)`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new Error('--port needs a port number');
  return options;
}

function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function visitPage(res, status, title, body) {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': "default-src 'none'; form-action 'self'; base-uri 'none'",
    'Cache-Control': 'no-store',
  });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`);
}

async function serveVisit(flows, req, res, id) {
  if (req.method === 'GET' || req.method === 'HEAD') {
    if (!flows.get(id)) return visitPage(res, 404, 'Unknown sign-in', '<p>This sign-in is unknown or has expired.</p>');
    return visitPage(res, 200, 'Example account: sign in', `<p>The MRTR test peer asks to act on your (fake) Example account.</p>
<form method="post"><button type="submit">Finish sign-in</button></form>`);
  }
  if (req.method === 'POST') {
    await readBody(req);
    if (!flows.finish(id)) return visitPage(res, 404, 'Unknown sign-in', '<p>This sign-in is unknown or has expired.</p>');
    if (String(req.headers.accept ?? '').includes('text/html')) {
      return visitPage(res, 200, 'Signed in', '<p>Done: go back to your MCP client and continue.</p>');
    }
    return res.writeHead(204).end();
  }
  res.writeHead(405, { Allow: 'GET, POST' }).end();
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const flows = createFlows();
  let visitOrigin = '';
  const factory = () => {
    const mcp = new McpServer({ name: 'koder-mrtr-peer', title: 'MRTR test peer', version: '1.0.0' });
    registerMrtrTools(mcp, { flows, visitUrl: (id) => `${visitOrigin}/visit/${encodeURIComponent(id)}` });
    return mcp;
  };
  const handler = options.http ? createMcpHandler(factory, { onerror: (error) => console.error(`[mrtr peer] ${error.message}`) }) : undefined;

  const http = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', visitOrigin || `http://${HOST}`);
    const visit = /^\/visit\/([^/]+)$/.exec(pathname);
    const work = visit
      ? serveVisit(flows, req, res, decodeURIComponent(visit[1]))
      : handler && pathname === '/mcp'
        ? serveWebHandler(handler, req, res, visitOrigin)
        : Promise.resolve(res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found'));
    work.catch((error) => {
      console.error(`[mrtr peer] ${req.method} ${pathname}: ${error.stack ?? error}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, HOST, resolve);
  });
  visitOrigin = `http://${HOST}:${http.address().port}`;

  let stdio;
  if (!options.http) {
    stdio = serveStdio(factory, { onerror: (error) => console.error(`[mrtr peer] ${error.message}`) });
  }
  console.error(`mrtr peer ready: mcp=${options.http ? `${visitOrigin}/mcp` : 'stdio'} visit=${visitOrigin}`);

  const shutdown = () => {
    stdio?.close().catch(() => {});
    handler?.close().catch(() => {});
    http.closeAllConnections?.();
    http.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  // On stdio, the client closing our stdin ends the session: the visit listener must not keep us alive.
  if (!options.http) process.stdin.once('end', shutdown);
}

main().catch((error) => {
  console.error(`[mrtr peer] ${error.stack ?? error}`);
  process.exit(1);
});
