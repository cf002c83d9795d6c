// Starts the SDK v2 MRTR peer (tests/peers/mrtr-server.mjs) over Streamable HTTP for a test, and
// forwards a page's requests to it.
//
//   const peer = await startMrtrPeer();   // { mcpUrl, visitOrigin, output(), close() }
//   startServer({ routes: { '/mcp': forwardTo(peer.mcpUrl) } });   // the page talks same-origin
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'mrtr-server.mjs');
const READY = /mrtr peer ready: mcp=(\S+) visit=(\S+)/;

/** Spawns the peer with --http on a free port and waits for its ready line (on stderr). */
export function startMrtrPeer({ timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER, '--http'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the MRTR peer did not start:\n${output}`)), timeoutMs);
    const onData = (chunk) => {
      output += chunk;
      const ready = READY.exec(output);
      if (!ready) return;
      clearTimeout(timer);
      resolve({
        mcpUrl: ready[1],
        visitOrigin: ready[2],
        output: () => output,
        close: () => new Promise((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the MRTR peer exited with ${code}:\n${output}`));
    });
  });
}

// Hop-by-hop headers stay on their own hop.
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/** A `(req, res)` route that forwards the request to `target` and streams the answer back (SSE too). */
export function forwardTo(target) {
  const url = new URL(target);
  return (req, res) => new Promise((resolve) => {
    const headers = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    // agent: false: a pooled socket the peer is closing as we reuse it would lose that request.
    const upstream = httpRequest(url, { method: req.method, headers, agent: false }, (answer) => {
      const out = { ...answer.headers };
      delete out.connection;
      delete out['transfer-encoding'];
      res.writeHead(answer.statusCode ?? 502, out);
      res.flushHeaders();
      answer.pipe(res);
      answer.on('end', resolve);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
      resolve();
    });
    res.on('close', () => { upstream.destroy(); resolve(); });
    req.pipe(upstream);
  });
}

/** The page-side SDK v2 client (tests/e2e/pages/mrtr-client.mjs) bundled for the browser, as bytes. */
export async function bundleMrtrClient() {
  const bundle = await esbuild.build({
    entryPoints: [path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'e2e', 'pages', 'mrtr-client.mjs')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['browser'],
    target: 'es2022',
    logLevel: 'warning',
  });
  return Buffer.from(bundle.outputFiles[0].contents);
}
