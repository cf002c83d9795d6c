#!/usr/bin/env node
// Where an open spends its time: runs `opens` opens of one schema under the CDP sampling profiler
// and prints the functions with the most self time (JS, wasm and the browser's own work such as
// "(program)" or style recalc). Uses dist/ as built; for wasm function names, build with names
// kept (e.g. wasm-opt -g) into another folder and pass --dist DIR.
//
//   node bench/profile.mjs [--impl ours|peer] [--schema wide100] [--opens 40] [--dist dist]
import { join, resolve } from 'node:path';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, launchBrowser, startServer } from '../tests/e2e/harness.mjs';
import { buildPeer } from './peer/build.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const impl = opt('--impl', 'ours');
const schema = opt('--schema', 'wide100');
const opens = Number(opt('--opens', 40));
const dist = opt('--dist', null);

if (impl === 'peer') await buildPeer(join(ROOT, 'bench', 'out', 'peer'));
const routes = {};
const server = await startServer({
  headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
  routes,
});
if (dist) {
  // Serve another dist folder under /dist/.
  const { readFile } = await import('node:fs/promises');
  const base = resolve(dist);
  for (const f of ['koder-mcp-elicitation.js', 'elicitation_core.js', 'elicitation_core_bg.wasm']) {
    routes[`/dist/${f}`] = async (req, res) => {
      const type = f.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
      res.writeHead(200, { 'Content-Type': type, 'Cross-Origin-Embedder-Policy': 'require-corp', 'Cross-Origin-Opener-Policy': 'same-origin' });
      res.end(await readFile(join(base, f)));
    };
  }
}
const browser = await launchBrowser({ args: [...CHROMIUM_ARGS] });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/bench/pages/bench.html?impl=${impl}`);
  await page.waitForFunction(() => window.bench);
  await page.evaluate(() => window.bench.load());
  await page.evaluate((k) => window.bench.openLatency(k, 5, 0), schema);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
  await cdp.send('Profiler.start');
  const { rows } = await page.evaluate(([k, n]) => window.bench.openLatency(k, n, 0), [schema, opens]);
  const { profile } = await cdp.send('Profiler.stop');
  const self = new Map();
  const dt = new Map();
  profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) || 0) + (profile.timeDeltas[i + 1] ?? 0)));
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url ? f.url.split('/').pop() : ''}`.trim();
    self.set(name, (self.get(name) || 0) + (dt.get(n.id) || 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const busy = total - (self.get('(idle)') || 0);
  const med = rows.map((r) => r.total).sort((a, b) => a - b)[rows.length >> 1];
  console.log(`${impl} ${schema}: ${opens} opens, median ${med.toFixed(2)} ms; busy samples ${(busy / 1000).toFixed(0)} ms`);
  // By kind: wasm functions, JS (glue, shim, page), and the browser's own work (native calls such
  // as showModal or setAttribute, GC, "(program)").
  const kinds = new Map();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const us = dt.get(n.id) || 0;
    const kind = f.functionName === '(idle)' ? null : f.url.endsWith('.wasm') ? 'wasm' : f.url ? 'JS' : 'browser (native, GC, program)';
    if (kind) kinds.set(kind, (kinds.get(kind) || 0) + us);
  }
  for (const [kind, us] of [...kinds].sort((a, b) => b[1] - a[1])) {
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${(us / 1000 / opens).toFixed(3).padStart(7)} ms/open  [${kind}]`);
  }
  for (const [name, us] of [...self].filter(([n]) => n !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${(us / 1000 / opens).toFixed(3).padStart(7)} ms/open  ${name.slice(0, 110)}`);
  }
} finally {
  await browser.close();
  await server.close();
}
