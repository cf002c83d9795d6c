#!/usr/bin/env node
// Loading figures, on a throttled link (CDP Network.emulateNetworkConditions: 1.6 Mbit/s down,
// 150 ms latency, cache off, a fresh browser context per load), from a server that gzips as any
// production server would:
//   1. first render of a Vite + React app (bench/loading/) with and without `import
//      "koder-mcp-elicitation"` in its main bundle, loads alternating; time from navigation to React's
//      first commit;
//   2. elicit() called as the page's module runs -> the dialog open (`open` polled every frame), with
//      the script tag alone and with the README's preload hint.
// `npm run bench` runs it (bench/run.mjs); alone: `node bench/loading.mjs [--runs N] [--dist DIR]`
// (dist/ built; `--dist` builds the app against another build of the package, to compare).
import { createServer } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { MIME, launchBrowser, repoRoot } from '../tests/e2e/harness.mjs';

const ROOT = repoRoot;
const APP = join(ROOT, 'bench', 'loading');
const OUT = join(ROOT, 'bench', 'out', 'loading');
// Vite and its React plugin come from the React example (scripts/bootstrap.sh runs npm ci there).
const EXAMPLE = join(ROOT, 'tests', 'examples', 'react');

export const THROTTLE = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 0.75e6 / 8 };

/** Builds the app twice: `with` the package (`dist`, default dist/), `without` it (an empty module). */
export async function buildApps(dist = join(ROOT, 'dist')) {
  if (!existsSync(join(EXAMPLE, 'node_modules', 'vite'))) throw new Error('bench: tests/examples/react/node_modules is missing: run scripts/bootstrap.sh');
  const require = createRequire(join(EXAMPLE, 'package.json'));
  const { build } = await import(pathToFileURL(require.resolve('vite')).href);
  const { default: react } = await import(pathToFileURL(require.resolve('@vitejs/plugin-react')).href);
  const targets = {
    with: join(dist, 'koder-mcp-elicitation.js'),
    without: join(APP, 'without.js'),
  };
  for (const [name, target] of Object.entries(targets)) {
    await build({
      root: APP,
      base: `/bench/out/loading/${name}/`,
      configFile: false,
      logLevel: 'warn',
      plugins: [react()],
      resolve: { alias: { 'koder-mcp-elicitation': target } },
      build: { outDir: join(OUT, name), emptyOutDir: true, rollupOptions: { input: join(APP, 'index.html') } },
    });
  }
  return Object.fromEntries(Object.keys(targets).map((name) => [name, `/bench/out/loading/${name}/index.html`]));
}

/** The repository over HTTP, gzipped when the browser accepts it (wasm included, as CDNs do). */
export async function startGzipServer() {
  const cache = new Map();
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    const file = resolve(ROOT, `.${pathname}`);
    if (!file.startsWith(ROOT + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    const mtime = statSync(file).mtimeMs;
    let entry = cache.get(file);
    if (!entry || entry.mtime !== mtime) {
      const raw = readFileSync(file);
      entry = { mtime, raw, gz: gzipSync(raw, { level: 9 }) };
      cache.set(file, entry);
    }
    const type = file.endsWith('.d.ts') ? MIME['.d.ts'] : MIME[extname(file)] ?? 'application/octet-stream';
    res.writeHead(200, {
      'Content-Type': type,
      'Cache-Control': 'no-store',
      Vary: 'Accept-Encoding',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    });
    res.end(gzip ? entry.gz : entry.raw);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((ok) => { server.closeAllConnections?.(); server.close(() => ok()); }),
  };
}

/** One throttled load of `url` in a fresh context; returns what `read` finds on the page. */
async function throttledLoad(browser, url, read) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', THROTTLE);
    await page.goto(url, { waitUntil: 'commit' });
    const handle = await page.waitForFunction(read, null, { timeout: 30_000, polling: 50 });
    const value = await handle.jsonValue();
    if (errors.length) throw new Error(`bench: ${url}: ${errors.join('; ')}`);
    return value;
  } finally {
    await context.close();
  }
}

const median = (values) => {
  const v = [...values].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

/**
 * Both figures, loads alternating so a burst of load on the machine falls on each alike.
 * Returns `{ throttle, runs, firstRender: { with, without, ratio }, elicitAtLoad: { script, preload } }`,
 * each figure `{ median, min, max, values }` in ms.
 */
export async function measureLoading({ browser, runs = 9, dist, log = () => {} } = {}) {
  const apps = await buildApps(dist);
  const server = await startGzipServer();
  const summary = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values), values });
  try {
    const render = { with: [], without: [] };
    const elicit = { script: [], preload: [] };
    const pages = { script: '/bench/loading/elicit-at-load.html', preload: '/bench/loading/elicit-at-load-preload.html' };
    // One load of each first, not counted: the browser's own first-use costs fall on it.
    for (const url of [apps.with, apps.without, pages.script]) {
      await throttledLoad(browser, server.url + url, () => window.firstRender ?? window.elicitShown);
    }
    for (let i = 0; i < runs; i++) {
      const order = i % 2 ? ['with', 'without'] : ['without', 'with'];
      for (const name of order) {
        render[name].push(await throttledLoad(browser, server.url + apps[name], () => window.firstRender && {
          firstRender: window.firstRender,
          scriptEnd: Math.max(...performance.getEntriesByType('resource').filter((e) => e.initiatorType === 'script').map((e) => e.responseEnd)),
        }));
      }
      for (const name of i % 2 ? ['script', 'preload'] : ['preload', 'script']) {
        const { called, shown } = await throttledLoad(browser, server.url + pages[name], () => window.elicitShown);
        elicit[name].push({ called, shown });
      }
      log(`loading ${i + 1}/${runs}: first render with ${render.with.at(-1).firstRender.toFixed(0)} / without ${render.without.at(-1).firstRender.toFixed(0)} ms; elicit() -> dialog ${(elicit.script.at(-1).shown - elicit.script.at(-1).called).toFixed(0)} ms`);
    }
    const firstRender = Object.fromEntries(Object.entries(render).map(([name, loads]) => [name, {
      ...summary(loads.map((l) => l.firstRender)),
      scriptEnd: summary(loads.map((l) => l.scriptEnd)),
      afterScript: summary(loads.map((l) => l.firstRender - l.scriptEnd)),
    }]));
    firstRender.ratio = firstRender.with.median / firstRender.without.median;
    const elicitAtLoad = Object.fromEntries(Object.entries(elicit).map(([name, loads]) => [name, {
      toDialog: summary(loads.map((l) => l.shown - l.called)),
      called: summary(loads.map((l) => l.called)),
      shown: summary(loads.map((l) => l.shown)),
    }]));
    const transfer = (dir) => {
      const files = [];
      const html = readFileSync(join(OUT, dir, 'index.html'), 'utf8');
      for (const m of html.matchAll(/(?:src|href)="\/bench\/out\/loading\/[^/]+\/([^"]+)"/g)) files.push(m[1]);
      return files.reduce((sum, f) => sum + gzipSync(readFileSync(join(OUT, dir, f)), { level: 9 }).length, 0);
    };
    return { throttle: THROTTLE, runs, firstRender, elicitAtLoad, appJsGzip: { with: transfer('with'), without: transfer('without') } };
  } finally {
    await server.close();
  }
}

/** The loading figures as Markdown lines for RESULTS.md. */
export function loadingMarkdown(loading) {
  const ms = (x) => `${Math.round(x).toLocaleString('en-US')} ms`;
  const range = (s) => `${ms(s.median)} (${Math.round(s.min)}–${Math.round(s.max)})`;
  const { firstRender: fr, elicitAtLoad: el } = loading;
  const within = (fr.ratio - 1) * 100;
  return [
    `Loading, throttled (1.6 Mbit/s down, 150 ms latency, cache off, gzip from the server), median (min–max) of ${loading.runs} loads each, alternating:`,
    '',
    '| figure | ours | without the package | target |',
    '|---|---:|---:|---|',
    `| Vite + React app, navigation → first render | ${range(fr.with)} | ${range(fr.without)} | within 5 %: ${within >= 0 ? '+' : ''}${within.toFixed(1)} % ${within <= 5 ? '(met)' : '(**not met**)'} |`,
    `|   ↳ the app's JS arrived (responseEnd) | ${range(fr.with.scriptEnd)} | ${range(fr.without.scriptEnd)} | |`,
    `|   ↳ from the JS arrived to the first render | ${range(fr.with.afterScript)} | ${range(fr.without.afterScript)} | |`,
    `|   ↳ the app's JS, gzip bytes | ${loading.appJsGzip.with.toLocaleString('en-US')} | ${loading.appJsGzip.without.toLocaleString('en-US')} | |`,
    `| \`elicit()\` at page load → dialog open, script tag | ${range(el.script.toDialog)} | | |`,
    `|   ↳ elicit() called / dialog open, from navigation | ${ms(el.script.called.median)} / ${ms(el.script.shown.median)} | | |`,
    `| \`elicit()\` at page load → dialog open, with the README's wasm preload | ${range(el.preload.toDialog)} | | |`,
    `|   ↳ elicit() called / dialog open, from navigation | ${ms(el.preload.called.median)} / ${ms(el.preload.shown.median)} | | |`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--runs');
  const runs = i >= 0 ? Number(process.argv[i + 1]) : 9;
  // --dist DIR: build the app against another build of the package (e.g. an older one) instead of dist/.
  const d = process.argv.indexOf('--dist');
  const dist = d >= 0 ? resolve(process.argv[d + 1]) : undefined;
  if (!existsSync(join(ROOT, 'dist', 'koder-mcp-elicitation.js'))) throw new Error('bench: dist/ missing: run npm run build');
  const browser = await launchBrowser();
  try {
    const loading = await measureLoading({ browser, runs, dist, log: (m) => console.log(`bench: ${m}`) });
    console.log(`\n${loadingMarkdown(loading).join('\n')}\n`);
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'loading.json'), `${JSON.stringify(loading, null, 2)}\n`);
  } finally {
    await browser.close();
  }
}
