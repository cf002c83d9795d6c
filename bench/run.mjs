#!/usr/bin/env node
// `npm run bench` — our component beside a peer (@rjsf/core + @rjsf/validator-ajv8 + @rjsf/utils on
// React 19, bundled and minified with esbuild), both measured in the same headless Chromium run on
// the same schemas (bench/schemas.mjs). Opening is also timed for a hand-written element (a styled
// <dialog>, one shared constructable stylesheet, DOM calls per node, no validation:
// bench/pages/hand.js), alone and with the parts every one of our dialogs has. Prints a table and
// writes bench/out/results.json and bench/out/RESULTS.md. Numbers only: nothing here asserts a timing.
//
//   node bench/run.mjs [--no-build] [--quick] [--soak N] [--runs N] [--no-second-pass] [--write-results]
//
//   --no-build        use dist/ as it is (default: `node scripts/build.mjs`, release, first)
//   --quick           fewer repetitions and a 500-cycle soak, for a smoke check
//   --soak N          soak cycles (default 10000)
//   --runs N          measured repetitions per open/keystroke figure (default 60)
//   --no-second-pass  skip ours' second soak pass (it tells a memory plateau from a leak)
//   --write-results   also replace the generated part of bench/RESULTS.md (the notes after the
//                     `<!-- notes -->` marker are kept)
//
// Figures, each median and p95 over the repetitions:
//   1. transfer: gzip (9) and brotli (11) bytes of every file the page fetched for the component
//   2. cold start: import() of the entry -> `ready` (the wasm in) (ours); import() of the bundle -> evaluated (peer)
//   3. open: elicit() -> dialog in the DOM with the first field focused, then a forced layout;
//      split into build (our script + DOM calls), showModal+focus (browser style work) and layout;
//      one open at a time, in a random order of ours, the peer and the two hand-written elements
//   4. keystroke: input event -> aria-invalid and the accept button updated (peer: its error list)
//   5. soak: N open -> fill -> accept cycles; wall time, JS heap and wasm memory after a forced GC,
//      live timers, net listeners added, DOM counters and CDP DOMDebugger.getEventListeners
//   6. loading on a throttled link (bench/loading.mjs): a Vite + React app's first render with and
//      without the package, and elicit() at page load -> dialog open (`--loading-runs N`, default 9)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadingMarkdown, measureLoading } from './loading.mjs';
import { measureSizeFloor } from '../scripts/size-floor.mjs';
import { transferSize } from '../scripts/transfer-size.mjs';
import { CHROMIUM_ARGS, launchBrowser, startServer } from '../tests/e2e/harness.mjs';
import { buildPeer } from './peer/build.mjs';
import { SCHEMAS, fieldCount } from './schemas.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'out');
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const num = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const QUICK = flag('--quick');
const RUNS = num('--runs', QUICK ? 15 : 60);
const WARMUP = QUICK ? 3 : 10;
const COLD_RUNS = QUICK ? 5 : 20;
const KEY_RUNS = QUICK ? 40 : 200;
const SOAK = num('--soak', QUICK ? 500 : 10_000);
const SOAK_SCHEMA = 'weather';
const LOADING_RUNS = num('--loading-runs', QUICK ? 3 : 9);
const IMPLS = ['ours', 'peer'];
// Open latency only: the hand-written element has no validation. `handParts` is the same element with
// the parts every one of our dialogs has (bench/pages/hand.js): what our DOM costs before any logic.
const OPENERS = [...IMPLS, 'hand', 'handParts'];
const T0 = Date.now();
const log = (msg) => console.log(`bench: ${msg}`);

// --- 0. builds ---------------------------------------------------------------------------------
if (!flag('--no-build')) {
  log('building dist/ (release)…');
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    throw new Error('bench: the release build failed');
  }
}
if (!existsSync(join(ROOT, 'dist', 'koder-mcp-elicitation.js'))) throw new Error('bench: dist/ missing: run npm run build');
mkdirSync(OUT, { recursive: true });
// The core alone (crates/size-floor), built as the element's wasm is: the floor under our download.
log('building the size floor (the core alone as wasm)…');
const sizeFloor = measureSizeFloor();
log(`size floor: ${sizeFloor.gzip} B gzip`);
log('bundling the peer with esbuild…');
await buildPeer(join(OUT, 'peer'));

// --- helpers -----------------------------------------------------------------------------------
function stats(values) {
  const v = [...values].sort((a, b) => a - b);
  const at = (q) => v[Math.min(v.length - 1, Math.max(0, Math.ceil(q * v.length) - 1))];
  return { n: v.length, median: v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2, p95: at(0.95), min: v[0], max: v[v.length - 1] };
}
const col = (rows, name) => stats(rows.map((r) => r[name]));

// Cross-origin isolation gives performance.now() 5 µs resolution instead of 100 µs.
const server = await startServer({
  headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
});
const browser = await launchBrowser({ args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc', '--enable-precise-memory-info'] });
const chromium = browser.version();
const pageUrl = (impl, extra = '') => `${server.url}/bench/pages/bench.html?impl=${impl}${extra}`;

async function newPage(impl, extra = '') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const fetched = [];
  const errors = [];
  page.on('response', (r) => fetched.push(new URL(r.url()).pathname));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(pageUrl(impl, extra), { waitUntil: 'load' });
  await page.waitForFunction(() => window.bench);
  return { page, context, fetched, errors };
}

const results = { date: new Date().toISOString(), machine: { cores: cpus().length, cpu: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), loadStart: loadavg()[0] }, chromium, config: { RUNS, WARMUP, COLD_RUNS, KEY_RUNS, SOAK, SOAK_SCHEMA }, ours: {}, peer: {}, hand: {}, handParts: {} };
results.sizeFloor = sizeFloor;

try {
  // --- 1 + 2. cold start, and what the page fetched for the component ----------------------------
  // Each load in a fresh browser context (no HTTP or code cache); ours and the peer alternate.
  const cold = { ours: { times: [], files: null }, peer: { times: [], files: null } };
  for (let i = 0; i < COLD_RUNS; i++) {
    for (const impl of IMPLS) {
      const { page, context, fetched, errors } = await newPage(impl);
      const before = fetched.length;
      if (i === 0 && !(await page.evaluate(() => window.bench.crossOriginIsolated))) log('warning: page not cross-origin isolated (100 µs timer)');
      cold[impl].times.push(await page.evaluate(() => window.bench.load()));
      if (errors.length) throw new Error(`${impl}: page errors: ${errors.join('; ')}`);
      cold[impl].files ??= fetched.slice(before).filter((p) => !p.startsWith('/bench/schemas'));
      await context.close();
    }
  }
  for (const impl of IMPLS) {
    const perFile = cold[impl].files.map((p) => ({ file: p, ...transferSize(readFileSync(join(ROOT, p)), p) }));
    const total = perFile.reduce((t, f) => ({ raw: t.raw + f.raw, gzip: t.gzip + f.gzip, brotli: t.brotli + f.brotli }), { raw: 0, gzip: 0, brotli: 0 });
    results[impl].transfer = { files: perFile, total };
    results[impl].cold = stats(cold[impl].times);
    log(`${impl}: transfer ${total.gzip} B gzip / ${total.brotli} B brotli; cold start median ${results[impl].cold.median.toFixed(2)} ms`);
  }

  // --- 3 + 4. open and keystroke latency ---------------------------------------------------------
  // Every page stays open and they take turns (open: one at a time; keystroke: in ROUNDS small
  // batches), so a burst of load from anything else on the machine falls on all rather than on
  // whichever ran at that moment.
  const pages = {};
  for (const impl of OPENERS) {
    pages[impl] = await newPage(impl);
    await pages[impl].page.evaluate(() => window.bench.load());
    results[impl].open = {};
    if (IMPLS.includes(impl)) results[impl].keystroke = {};
  }
  const ROUNDS = QUICK ? 3 : 6;
  const share = (n, r) => Math.floor(n / ROUNDS) + (r < n % ROUNDS ? 1 : 0);
  for (const key of Object.keys(SCHEMAS)) {
    const open = Object.fromEntries(OPENERS.map((impl) => [impl, { rows: [], nodes: 0 }]));
    const keys = { ours: { rows: [], microtasks: 0, macrotasks: 0 }, peer: { rows: [], microtasks: 0, macrotasks: 0 } };
    // Open: one open per implementation per round, in a new random order each round, so a burst of
    // load from anything else on the machine falls on all of them alike.
    for (const impl of OPENERS) await pages[impl].page.evaluate(([k, w]) => window.bench.openLatency(k, 0, w), [key, WARMUP]);
    for (let r = 0; r < RUNS; r++) {
      for (const impl of [...OPENERS].sort(() => Math.random() - 0.5)) {
        const o = await pages[impl].page.evaluate((k) => window.bench.openLatency(k, 1, 0), key);
        open[impl].rows.push(...o.rows);
        open[impl].nodes = o.nodes;
      }
    }
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate who goes first each round, so none always follows the same neighbour.
      for (const impl of IMPLS.map((_, i) => IMPLS[(i + r) % IMPLS.length])) {
        const { page } = pages[impl];
        const ks = await page.evaluate(([k, n, w]) => window.bench.keystroke(k, n, w), [key, share(KEY_RUNS, r), r === 0 ? WARMUP : 2]);
        keys[impl].rows.push(...ks.rows);
        keys[impl].microtasks = Math.max(keys[impl].microtasks, ks.microtasks);
        keys[impl].macrotasks = Math.max(keys[impl].macrotasks, ks.macrotasks);
      }
    }
    for (const impl of OPENERS) {
      const { rows, nodes } = open[impl];
      results[impl].open[key] = { nodes, total: col(rows, 'total'), sync: col(rows, 'sync'), build: col(rows, 'build'), showFocus: col(rows, 'showFocus'), layout: col(rows, 'layout'), style: col(rows, 'style') };
      if (!IMPLS.includes(impl)) {
        log(`${impl} ${key}: open median ${results[impl].open[key].total.median.toFixed(3)} ms`);
        continue;
      }
      results[impl].keystroke[key] = { ...col(keys[impl].rows, 'total'), microtasks: keys[impl].microtasks, macrotasks: keys[impl].macrotasks };
      log(`${impl} ${key}: open median ${results[impl].open[key].total.median.toFixed(3)} ms, keystroke median ${results[impl].keystroke[key].median.toFixed(3)} ms`);
    }
  }
  for (const impl of OPENERS) {
    if (pages[impl].errors.length) throw new Error(`${impl}: page errors: ${pages[impl].errors.join('; ')}`);
    await pages[impl].context.close();
  }

  // --- 5. soak ----------------------------------------------------------------------------------
  for (const impl of IMPLS) {
    const { page, context, errors } = await newPage(impl, '&instrument');
    const cdp = await context.newCDPSession(page);
    await page.evaluate(() => window.bench.load());
    const hostExpr = impl === 'ours' ? 'document.querySelector("koder-mcp-elicitation")' : 'document.getElementById("peer-dialog")';
    const snapshot = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      const state = await page.evaluate(() => window.bench.state());
      await cdp.send('HeapProfiler.collectGarbage');
      const heap = await cdp.send('Runtime.getHeapUsage');
      const dom = await cdp.send('Memory.getDOMCounters');
      const { result } = await cdp.send('Runtime.evaluate', { expression: hostExpr });
      const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId, depth: -1, pierce: true });
      await cdp.send('Runtime.releaseObject', { objectId: result.objectId });
      return { ...state, jsHeap: heap.usedSize, domNodes: dom.nodes, jsEventListeners: dom.jsEventListeners, cdpListeners: listeners.length };
    };
    // Warm up (first-use allocations, JIT) before the "before" snapshot.
    await page.evaluate((k) => window.bench.soak(k, 50), SOAK_SCHEMA);
    const before = await snapshot();
    const { ms } = await page.evaluate(([k, n]) => window.bench.soak(k, n), [SOAK_SCHEMA, SOAK]);
    const after = await snapshot();
    // Ours keeps a high-water mark in wasm memory (linear memory never shrinks): a second pass
    // tells a plateau from a leak. The peer's pass is twice as slow and is left at one.
    let after2 = null;
    if (impl === 'ours' && !flag('--no-second-pass')) {
      await page.evaluate(([k, n]) => window.bench.soak(k, n), [SOAK_SCHEMA, SOAK]);
      after2 = await snapshot();
    }
    if (errors.length) throw new Error(`${impl}: page errors: ${errors.join('; ')}`);
    results[impl].soak = { cycles: SOAK, schema: SOAK_SCHEMA, ms, perCycleMs: ms / SOAK, before, after, after2 };
    log(`${impl} soak: ${SOAK} cycles in ${(ms / 1000).toFixed(1)} s; JS heap ${before.jsHeap} -> ${after.jsHeap}; wasm ${before.wasmBytes} -> ${after.wasmBytes}`);
    await context.close();
  }

  // --- 6. loading, throttled -----------------------------------------------------------------------
  log('loading: building the Vite + React app with and without the package…');
  results.loading = await measureLoading({ browser, runs: LOADING_RUNS, log });
} finally {
  await browser.close();
  await server.close();
}

results.machine.loadEnd = loadavg()[0];

// --- report ------------------------------------------------------------------------------------
const O = results.ours;
const Pe = results.peer;
const H = results.hand;
const HP = results.handParts;
const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const mp = (s) => `${ms(s.median)} / ${ms(s.p95)}`;
const bytes = (n) => n.toLocaleString('en-US');
const ratio = (peer, ours) => (ours > 0 ? `${(peer / ours).toFixed(1)}×` : '—');
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
const delta = (a, b) => `${b - a >= 0 ? '+' : ''}${bytes(b - a)}`;

const lines = [];
const row = (...cells) => lines.push(`| ${cells.join(' | ')} |`);
lines.push('| figure | ours (median / p95) | peer (median / p95) | peer ÷ ours |');
lines.push('|---|---:|---:|---:|');
row('transfer gzip, bytes', bytes(O.transfer.total.gzip), bytes(Pe.transfer.total.gzip), ratio(Pe.transfer.total.gzip, O.transfer.total.gzip));
row('transfer brotli, bytes', bytes(O.transfer.total.brotli), bytes(Pe.transfer.total.brotli), ratio(Pe.transfer.total.brotli, O.transfer.total.brotli));
row('transfer raw, bytes', bytes(O.transfer.total.raw), bytes(Pe.transfer.total.raw), ratio(Pe.transfer.total.raw, O.transfer.total.raw));
row('  ↳ floor: the core alone as wasm (no DOM, JS or CSS), gzip / brotli', `${bytes(sizeFloor.gzip)} / ${bytes(sizeFloor.brotli)}`, '', '');
row('cold start, ms', mp(O.cold), mp(Pe.cold), ratio(Pe.cold.median, O.cold.median));
for (const key of Object.keys(SCHEMAS)) {
  const o = O.open[key];
  const p = Pe.open[key];
  row(`open ${SCHEMAS[key].label}, ms`, mp(o.total), mp(p.total), ratio(p.total.median, o.total.median));
  row(`  ↳ build (script + DOM calls)`, mp(o.build), mp(p.build), ratio(p.build.median, o.build.median));
  row(`  ↳ showModal + focus (style + layout)`, mp(o.showFocus), mp(p.showFocus), '');
  row(`  ↳ forced layout after`, mp(o.layout), mp(p.layout), '');
  row(`  ↳ nodes in the dialog`, String(o.nodes), String(p.nodes), '');
}
for (const key of Object.keys(SCHEMAS)) {
  row(`keystroke ${SCHEMAS[key].label}, ms`, mp(O.keystroke[key]), mp(Pe.keystroke[key]), ratio(Pe.keystroke[key].median, O.keystroke[key].median));
}
const so = O.soak;
const sp = Pe.soak;
row(`soak ${bytes(SOAK)} × open→fill→accept (${SOAK_SCHEMA}), s`, (so.ms / 1000).toFixed(1), (sp.ms / 1000).toFixed(1), ratio(sp.ms, so.ms));
row('  ↳ per cycle, ms', ms(so.perCycleMs), ms(sp.perCycleMs), '');
row('  ↳ JS heap after GC, bytes (before → after)', `${bytes(so.before.jsHeap)} → ${bytes(so.after.jsHeap)} (${delta(so.before.jsHeap, so.after.jsHeap)})`, `${bytes(sp.before.jsHeap)} → ${bytes(sp.after.jsHeap)} (${delta(sp.before.jsHeap, sp.after.jsHeap)})`, '');
row('  ↳ wasm memory, bytes', `${bytes(so.before.wasmBytes)} → ${bytes(so.after.wasmBytes)} (${delta(so.before.wasmBytes, so.after.wasmBytes)})`, 'n/a', '');
if (so.after2) {
  row(`  ↳ a 2nd ${bytes(SOAK)} cycles: JS heap / wasm memory, bytes`, `${bytes(so.after2.jsHeap)} (${delta(so.after.jsHeap, so.after2.jsHeap)}) / ${bytes(so.after2.wasmBytes)} (${delta(so.after.wasmBytes, so.after2.wasmBytes)})`, 'not run', '');
}
row('  ↳ live timers (before → after)', `${so.before.timers} → ${so.after.timers}`, `${sp.before.timers} → ${sp.after.timers}`, '');
row('  ↳ net listeners added (before → after)', `${so.before.listeners} → ${so.after.listeners}`, `${sp.before.listeners} → ${sp.after.listeners}`, '');
row('  ↳ CDP listeners on host subtree', `${so.before.cdpListeners} → ${so.after.cdpListeners}`, `${sp.before.cdpListeners} → ${sp.after.cdpListeners}`, '');
row('  ↳ DOM nodes / JS listeners (Memory.getDOMCounters)', `${so.before.domNodes}/${so.before.jsEventListeners} → ${so.after.domNodes}/${so.after.jsEventListeners}`, `${sp.before.domNodes}/${sp.before.jsEventListeners} → ${sp.after.domNodes}/${sp.after.jsEventListeners}`, '');

// Open, four ways: the two ratios the targets are about, and ours against the hand-written element with our parts.
const r2 = (x) => `${x.toFixed(2)}×`;
const olines = ['| open, ms (median / p95) | ours | rjsf in a modal | hand-written | rjsf ÷ ours (≥ 1.2×) | ours ÷ hand-written (≤ 1.3×) | hand-written with our parts | ours ÷ that |', '|---|---:|---:|---:|---:|---:|---:|---:|'];
for (const key of Object.keys(SCHEMAS)) {
  const [o, p, h, hp] = [O, Pe, H, HP].map((impl) => impl.open[key].total);
  olines.push(`| ${SCHEMAS[key].label} | ${mp(o)} | ${mp(p)} | ${mp(h)} | ${r2(p.median / o.median)} | ${r2(o.median / h.median)} | ${mp(hp)} | ${r2(o.median / hp.median)} |`);
}
// One cell per opener: its figure at every schema, as "2 fields / 13 / 100".
const perSchema = (impl, pick) => Object.keys(SCHEMAS).map((k) => pick(impl.open[k])).join(' / ');
const detailRow = (label, pick) => olines.push(`| ${label} | ${perSchema(O, pick)} | ${perSchema(Pe, pick)} | ${perSchema(H, pick)} | | | ${perSchema(HP, pick)} | |`);
detailRow('↳ nodes in the dialog', (open) => open.nodes);
detailRow('↳ build (script + DOM calls), median', (open) => ms(open.build.median));
detailRow('↳ showModal + focus (style + layout), median', (open) => ms(open.showFocus.median));

// Targets (issue "a thin boundary"), with the figures it holds from earlier work.
const growth = so.after.jsHeap - so.before.jsHeap + (so.after.wasmBytes - so.before.wasmBytes);
const openRatio = (fn) => Object.keys(SCHEMAS).every((k) => fn(O.open[k].total.median, Pe.open[k].total.median, H.open[k].total.median));
const ratios = (fn) => Object.keys(SCHEMAS).map((k) => `${k} ${r2(fn(O.open[k].total.median, Pe.open[k].total.median, H.open[k].total.median))}`).join(', ');
const targets = [
  ['total gzip transfer ≤ 112,640 B (110 KiB)', O.transfer.total.gzip <= 110 * 1024, `${bytes(O.transfer.total.gzip)} B (${kb(O.transfer.total.gzip)}); the core alone (crates/size-floor) ${bytes(sizeFloor.gzip)} B`],
  ['a Vite + React app renders first within 5 % of the app without the package (throttled, median)', results.loading.firstRender.ratio <= 1.05, `${ms(results.loading.firstRender.with.median)} ms vs ${ms(results.loading.firstRender.without.median)} ms (${((results.loading.firstRender.ratio - 1) * 100).toFixed(1)} %)`],
  ['open ≥ 1.2× faster than rjsf in a modal, every size (median)', openRatio((o, p) => p >= 1.2 * o), ratios((o, p) => p / o)],
  ['open ≤ 1.3× the hand-written element, every size (median)', openRatio((o, p, h) => o <= 1.3 * h), ratios((o, p, h) => o / h)],
  ['cold start ahead of rjsf (median)', O.cold.median < Pe.cold.median, `${ms(O.cold.median)} ms vs ${ms(Pe.cold.median)} ms`],
  ['open 100 fields ≤ 16 ms (p95)', O.open.wide100.total.p95 <= 16, `${ms(O.open.wide100.total.p95)} ms`],
  ['keystroke ≤ 1 ms (p95, every schema)', Object.values(O.keystroke).every((k) => k.p95 <= 1), Object.entries(O.keystroke).map(([k, v]) => `${k} ${ms(v.p95)}`).join(', ')],
  [`memory growth after ${bytes(SOAK)} cycles ≤ 1 MB (JS heap + wasm)`, growth <= 1_000_000, `${delta(0, growth)} B`
    + (so.after2 ? `; a 2nd ${bytes(SOAK)} cycles: ${delta(0, so.after2.jsHeap - so.after.jsHeap + so.after2.wasmBytes - so.after.wasmBytes)} B` : '')],
  ['no timers or listeners survive the soak', so.after.timers <= so.before.timers && so.after.listeners <= so.before.listeners && so.after.cdpListeners <= so.before.cdpListeners, `timers ${so.after.timers - so.before.timers}, listeners ${so.after.listeners - so.before.listeners}, CDP ${so.after.cdpListeners - so.before.cdpListeners}`],
];
results.targets = targets.map(([target, met, value]) => ({ target, met, value }));
const tlines = ['| target | met | ours |', '|---|:---:|---|'];
for (const [target, met, value] of targets) tlines.push(`| ${target} | ${met ? 'yes' : '**no**'} | ${value} |`);

const files = (impl) => results[impl].transfer.files.map((f) => `\`${f.file}\` ${bytes(f.raw)} raw / ${bytes(f.gzip)} gzip / ${bytes(f.brotli)} brotli`).join('; ');
const md = [
  `Run ${results.date.slice(0, 16).replace('T', ' ')} UTC · ${results.machine.cores} cores (${results.machine.cpu}), 1-min load average ${results.machine.loadStart.toFixed(1)} at the start and ${results.machine.loadEnd.toFixed(1)} at the end · Chromium ${chromium} headless · `
    + `open ${RUNS} runs + warm-up, one open at a time in a random order of ours, the peer and both hand-written elements · keystroke ${KEY_RUNS} · cold start ${COLD_RUNS} fresh contexts · soak ${bytes(SOAK)} cycles · whole run ${Math.round((Date.now() - T0) / 1000)} s`,
  '',
  ...lines,
  '',
  ...olines,
  '',
  ...tlines,
  '',
  ...loadingMarkdown(results.loading),
  '',
  `Files fetched, ours: ${files('ours')}. The stylesheet is inside the wasm (one constructable stylesheet adopted by every instance), so there is no CSS request.`,
  '',
  `Files fetched, peer: ${files('peer')}. rjsf core ships no CSS (it emits Bootstrap 3 class names), so the peer's figure has none either.`,
  '',
  'Hand-written: `bench/pages/hand.js` (not a download: open latency only); "with our parts" is the same element with the empty or closed parts every one of our dialogs has at open.',
  '',
  `Field counts: ${Object.entries(SCHEMAS).map(([k, s]) => `${k} ${fieldCount(s.request)}`).join(', ')}. Sizes are deterministic, so median = p95 = the one value.`,
].join('\n');

writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(OUT, 'RESULTS.md'), `${md}\n`);
console.log(`\n${md}\n`);
log(`wrote bench/out/results.json and bench/out/RESULTS.md in ${Math.round((Date.now() - T0) / 1000)} s`);

if (flag('--write-results')) {
  const file = join(ROOT, 'bench', 'RESULTS.md');
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const marker = '<!-- notes -->';
  const notes = old.includes(marker) ? old.slice(old.indexOf(marker)) : `${marker}\n`;
  writeFileSync(file, `# Benchmark results\n\nGenerated by \`npm run bench -- --write-results\`; the notes below the marker are written by hand.\n\n${md}\n\n${notes}`);
  log('updated bench/RESULTS.md');
}
