#!/usr/bin/env node
// An MCP client for the @modelcontextprotocol/conformance runner whose elicitation UI is the real
// component in headless Chromium.
//
//   node tests/conformance/browser-client.mjs <server-url>
//
// The conformance CLI starts the scenario's server and runs this command with the server URL as
// the last argument (MCP_CONFORMANCE_SCENARIO names the scenario). This script:
//   1. serves a page on 127.0.0.1 that loads dist/koder-mcp-elicitation.js and page.mjs (the
//      official SDK 1.x Client, bundled with esbuild; page-2026.mjs with SDK v2 for the 2026-07-28
//      scenarios in PAGE_2026_SCENARIOS), and proxies the page's /mcp to <server-url>
//      (the browser then talks same-origin, so the server needs no CORS);
//   2. opens the page in Chromium, connects, and calls every tool the server lists;
//   3. whenever a dialog shows, presses Submit without touching a field, like a user who
//      accepts the defaults;
//   4. prints each tool result and exits 0, or exits 1 on any error.
// Needs `npm run build` (dist/) first. CHROMIUM_PATH overrides /usr/bin/chromium.

import { createServer, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const DIST = path.join(ROOT, 'dist');

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>conformance client</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; connect-src 'self'">
<script type="module" src="/dist/koder-mcp-elicitation.js"></script>
<script type="module" src="/client.js"></script>
</head><body><koder-mcp-elicitation server-name="Conformance server"></koder-mcp-elicitation></body></html>`;

const MIME = { '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.ts': 'text/plain; charset=utf-8' };
// Request headers worth passing through to the MCP server (hop-by-hop ones and Host are not).
const FORWARD = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'authorization'];

const log = (...args) => console.error('[browser-client]', ...args);

// Scenarios of MCP 2026-07-28, whose client is the TypeScript SDK v2 (page-2026.mjs).
const PAGE_2026_SCENARIOS = new Set(['sep-2322-client-request-state']);

// The scenario's server sends elicitation/create with no related request, so the SDK puts it on
// the session's standalone GET stream, and silently drops it while that stream is not open yet. The
// SDK client opens that stream in the background after connecting; the page waits for it
// (/standalone-stream, below) before calling a tool, or a slow start loses the dialog altogether.
let openStandaloneStreams = 0;

function proxy(target, req, res) {
  const headers = {};
  for (const name of FORWARD) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  // agent: false gives every request its own upstream connection: a pooled keep-alive socket the
  // server is closing as we reuse it would lose that request (the elicitation's answer among them).
  const upstream = send(target, { method: req.method, headers, agent: false }, (answer) => {
    const out = { ...answer.headers };
    delete out.connection;
    delete out['transfer-encoding'];
    res.writeHead(answer.statusCode ?? 502, out);
    res.flushHeaders();
    if (req.method === 'GET' && answer.statusCode === 200) {
      // The server registers the stream before it answers, so from here on nothing is dropped.
      openStandaloneStreams += 1;
      log('standalone stream open');
      res.on('close', () => { openStandaloneStreams -= 1; });
    }
    answer.pipe(res);
  });
  upstream.on('error', (error) => {
    log(`proxy ${req.method} failed: ${error.message}`);
    if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
    res.end();
  });
  res.on('close', () => upstream.destroy()); // the page closed an SSE stream: close it upstream too
  req.pipe(upstream);
}

async function serveDist(res, relPath) {
  const segments = relPath.split('/').filter(Boolean);
  if (segments.some((s) => s.startsWith('.'))) return res.writeHead(404).end();
  const file = path.join(DIST, ...segments);
  try {
    if (!(await stat(file)).isFile()) throw new Error('not a file');
    const body = await readFile(file);
    res.writeHead(200, { 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
}

async function main() {
  const serverUrl = process.argv[2];
  if (!serverUrl) {
    console.error('usage: node tests/conformance/browser-client.mjs <server-url>');
    process.exit(2);
  }
  const target = new URL(serverUrl);
  log(`scenario ${process.env.MCP_CONFORMANCE_SCENARIO ?? '(none)'}, server ${target.href}`);

  const bundle = await esbuild.build({
    entryPoints: [path.join(HERE, PAGE_2026_SCENARIOS.has(process.env.MCP_CONFORMANCE_SCENARIO) ? 'page-2026.mjs' : 'page.mjs')],
    conditions: ['browser'],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'warning',
  });
  const clientJs = Buffer.from(bundle.outputFiles[0].contents);

  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (pathname === '/mcp') return proxy(target, req, res);
    if (pathname === '/standalone-stream') {
      return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ open: openStandaloneStreams > 0 }));
    }
    if (pathname === '/') return res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
    if (pathname === '/client.js') return res.writeHead(200, { 'Content-Type': MIME['.js'] }).end(clientJs);
    if (pathname.startsWith('/dist/')) return serveDist(res, decodeURIComponent(pathname.slice('/dist/'.length)));
    if (pathname === '/favicon.ico') return res.writeHead(204).end();
    res.writeHead(404).end();
  });
  // Chromium keeps its connections to this page open between requests; Node's default 5 s idle
  // close can race a request the page is sending over one of them, so keep them for the whole run.
  server.keepAliveTimeout = 180_000;
  server.headersTimeout = 181_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  let failed = false;
  try {
    const page = await browser.newPage();
    page.on('pageerror', (error) => { failed = true; log(`page error: ${error.message}`); });
    // Console errors, and the element's settlements the page logs below.
    page.on('console', (m) => {
      if (m.type() === 'error') log(`console.error: ${m.text()}`);
      else if (m.text().startsWith('element event')) log(m.text());
    });
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => window.conformanceClient !== undefined, null, { timeout: 20_000 });

    // Count what the element reports, not what the clicks report: under load a click can land and
    // still time out while Playwright waits after it, as the dialog closes under it. Every settlement
    // is logged, so a failed run says what the element did.
    await page.evaluate(() => {
      window.acceptedDialogs = 0;
      for (const type of ['accept', 'reject', 'cancel', 'timeout']) {
        document.addEventListener(type, (event) => {
          if (type === 'accept') window.acceptedDialogs += 1;
          console.info(`element event ${type}: ${JSON.stringify(event.detail ?? null)}`);
        }, true);
      }
    });
    let finished = false;
    const calls = page.evaluate(() => window.conformanceClient.run()).finally(() => { finished = true; });
    calls.catch(() => {});

    // The user: every time a dialog shows, press Submit (or, in URL mode, Open) untouched. Wait for
    // the button to show, then click with room to spare; a click that fails is logged with its
    // reason, and the next attempt presses Enter on the focused button instead, as a keyboard user would.
    const submit = page.locator('koder-mcp-elicitation button[part~=accept], koder-mcp-elicitation button[part~=open]').first();
    let failedClicks = 0;
    while (!finished) {
      const shown = await submit.waitFor({ state: 'visible', timeout: 250 }).then(() => true, () => false);
      if (!shown || finished) continue;
      try {
        if (failedClicks % 2 === 0) await submit.click({ timeout: 5_000 });
        else {
          await submit.focus({ timeout: 5_000 });
          await page.keyboard.press('Enter');
        }
      } catch (error) {
        failedClicks += 1;
        // The dialog closing under the click is expected; anything else is worth reading.
        if (!finished) log(`press ${failedClicks} did not land: ${String(error.message).split('\n')[0]}`);
      }
    }
    const pressed = await page.evaluate(() => window.acceptedDialogs);
    for (let dialog = 1; dialog <= pressed; dialog++) log(`dialog ${dialog}: pressed Submit without touching a field`);
    for (const { tool, result } of await calls) {
      console.log(`${tool}: ${result.content.map((block) => block.text ?? JSON.stringify(block)).join('\n')}`);
      if (result.isError) failed = true;
    }
    log(`done: ${pressed} dialog(s) submitted`);
  } finally {
    await browser.close();
    server.close();
    server.closeAllConnections?.();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  log(error.stack ?? String(error));
  process.exit(1);
});
