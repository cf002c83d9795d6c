// Shared helpers for the end-to-end suites (tests/e2e/*.test.mjs, run with `node --test`).
//
//   const server = await startServer();              // serves the repo root on 127.0.0.1:<free port>
//   const browser = await launchBrowser();           // Debian's /usr/bin/chromium via playwright-core
//   const page = await openPage(browser, `${server.url}/tests/e2e/pages/basic.html`);
//   ...
//   page.assertNoErrors();                           // throws listing console/page/network errors
//   await browser.close(); await server.close();
//
// Playwright CSS locators pierce open shadow roots, so
// `page.locator('koder-mcp-elicitation [data-field="city"] input')` reaches into the component.
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import AxeBuilderModule from '@axe-core/playwright';

const AxeBuilder = AxeBuilderModule.AxeBuilder ?? AxeBuilderModule.default ?? AxeBuilderModule;
/** The rules the suites hold pages to: WCAG 2.0 and 2.1, A and AA. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ftl': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.d.ts': 'text/plain; charset=utf-8',
};

/**
 * A tiny static file server. `root` defaults to the repository root, so `/dist/...` and
 * `/tests/e2e/pages/...` resolve. `headers` (optional) are added to every response, e.g. a CSP.
 * `routes` (optional) maps a pathname to `(req, res) => void` for tests that need a dynamic answer
 * (e.g. a status-url endpoint). Returns `{ url, port, requests, close }`; `requests` lists every
 * pathname served, in order (handy to assert "no network access").
 */
export async function startServer({ root = repoRoot, headers = {}, routes = {} } = {}) {
  const base = resolve(root);
  const requests = [];
  const server = createServer(async (req, res) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    requests.push(pathname);
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.setHeader('Cache-Control', 'no-store');
    if (routes[pathname]) {
      try {
        await routes[pathname](req, res);
      } catch (e) {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      }
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    let file = resolve(base, `.${pathname}`);
    if (file !== base && !file.startsWith(base + sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    try {
      let st = await stat(file);
      if (st.isDirectory()) {
        file = join(file, 'index.html');
        st = await stat(file);
      }
      const type = file.endsWith('.d.ts') ? MIME['.d.ts'] : MIME[extname(file).toLowerCase()] || 'application/octet-stream';
      res.writeHead(200, { 'Content-Type': type, 'Content-Length': st.size });
      if (req.method === 'HEAD') return res.end();
      createReadStream(file).pipe(res);
    } catch {
      if (pathname === '/favicon.ico') {
        res.writeHead(204).end(); // browsers ask for it unprompted; not an error
        return;
      }
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`not found: ${pathname}`);
    }
  });
  await new Promise((ok, ko) => {
    server.once('error', ko);
    server.listen(0, '127.0.0.1', ok);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections?.();
        server.close(() => ok());
      }),
  };
}

/** The strict page policies the contract names (CONTRACT §1): no style allowance at all. */
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
export const STRICT_CSP_TT = `${STRICT_CSP}; require-trusted-types-for 'script'`;

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/**
 * Launches the system Chromium (never a Playwright-downloaded one). Playwright's `launch` gives
 * every browser a fresh temporary profile (`--user-data-dir` in the OS temp dir) and deletes it
 * on close. Returns a Playwright Browser: `newPage()` for a page, `newContext(...)` for an isolated
 * context (e.g. `{ locale: 'pt-BR' }`), `close()` at the end. `options` go to `chromium.launch`.
 */
export async function launchBrowser(options = {}) {
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  try {
    return await chromium.launch({
      executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 60_000,
      ...options,
    });
  } catch (e) {
    throw new Error(`launchBrowser: could not start ${executablePath}: ${e.message}`);
  }
}

/**
 * Opens `url` in a new page and records everything that went wrong on it: console errors,
 * uncaught page errors, failed requests and HTTP >= 400 responses. Each is also printed to
 * stderr as it happens. The page gets:
 *   page.errors             the list (strings)
 *   page.assertNoErrors()   throws listing them (call at the end of each test)
 * `options.allow`: RegExps for messages a test expects (they are still printed, not recorded).
 * Navigation failures and non-2xx documents throw.
 */
export async function openPage(browser, url, { allow = [], waitUntil = 'load', timeout = 30_000 } = {}) {
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  const errors = [];
  const record = (msg) => {
    const allowed = allow.some((re) => re.test(msg));
    process.stderr.write(`[browser${allowed ? ', allowed' : ''}] ${msg}\n`);
    if (!allowed) errors.push(msg);
  };
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'assert') {
      const loc = m.location();
      record(`console.${m.type()}: ${m.text()}${loc?.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (e) => record(`pageerror: ${e.stack || e.message || e}`));
  page.on('crash', () => record('page crashed'));
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText || 'failed';
    // Aborted navigations to URLs a test opened on purpose are reported by the test itself.
    if (why !== 'net::ERR_ABORTED') record(`request failed: ${r.method()} ${r.url()} ${why}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) record(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
  });
  page.errors = errors;
  page.assertNoErrors = () => {
    if (errors.length) {
      throw new Error(`${errors.length} browser error(s) on ${url}:\n  ${errors.join('\n  ')}`);
    }
  };
  const response = await page.goto(url, { waitUntil, timeout });
  if (!response || !response.ok()) {
    throw new Error(`openPage: ${url} answered ${response ? response.status() : 'nothing'}`);
  }
  return page;
}

/**
 * Waits until `<koder-mcp-elicitation>` is defined on the page and its wasm is in. The element is
 * defined at import and its calls wait for the wasm, so an empty round on a spare instance settles
 * only then, whichever copy of the package the page loaded.
 */
export async function whenDefined(page, name = 'koder-mcp-elicitation') {
  await page.evaluate(async (n) => {
    await customElements.whenDefined(n);
    const probe = document.createElement(n);
    if (typeof probe.elicitInputs === 'function') await probe.elicitInputs({ inputRequests: {} }).catch(() => {});
  }, name);
}

/** A port free on 127.0.0.1 now, for a server whose address must be known before it starts. */
export function freePort() {
  return new Promise((ok, ko) => {
    const server = createTcpServer();
    server.once('error', ko);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}

/**
 * Runs axe (AXE_TAGS) on the whole page, open shadow roots included; fails listing every
 * violation under `label`. Resolves axe's results (their `passes` show where it looked).
 */
export async function assertNoAxeViolations(page, label) {
  const results = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  const lines = results.violations.flatMap((violation) => [
    `${violation.id} (${violation.impact}): ${violation.help}`,
    ...violation.nodes.map((node) => `    ${JSON.stringify(node.target)} ${node.failureSummary.replace(/\s+/g, ' ')}`),
  ]);
  if (lines.length) throw new Error(`${label}: axe found\n${lines.join('\n')}`);
  return results;
}
