#!/usr/bin/env node
// `npm run size` — what a page downloads from dist/: raw, gzip (level 9) and brotli (quality 11)
// bytes per file, and the totals. That is the entry, every module it imports statically and the
// wasm ("at load"), then the modules it imports on demand (`import("./…")`, e.g. the relay client
// that connectRelay() fetches), listed apart; files a page never loads (type declarations, the
// unbundled glue kept for tools) are left out. `--json` prints the same numbers as JSON.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transferSize } from './transfer-size.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const json = process.argv.includes('--json');

if (!existsSync(DIST)) {
  console.error('size: dist/ does not exist; run `npm run build` first');
  process.exit(1);
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
  );
}

/** The entry and the modules it reaches through relative static imports; dynamic ones go to `later`. */
function reached(file, seen = new Set(), later = new Set()) {
  if (seen.has(file) || !existsSync(file)) return { seen, later };
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const re = /(?:import|export)\s*[^'"`;()]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|import\s*['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const m of text.matchAll(re)) {
    if (m[2]) later.add(resolve(dirname(file), m[2]));
    else reached(resolve(dirname(file), m[1] || m[3]), seen, later);
  }
  return { seen, later };
}
const { seen, later } = reached(join(DIST, 'koder-mcp-elicitation.js'));
const files = [...seen, ...walk(DIST).filter((f) => f.endsWith('.wasm')).sort()];
const onDemand = [...later].filter((f) => !seen.has(f) && existsSync(f));

const measure = (f) => ({ file: relative(ROOT, f), ...transferSize(readFileSync(f), f) });
const sum = (rows) => rows.reduce((t, r) => ({ raw: t.raw + r.raw, gzip: t.gzip + r.gzip, brotli: t.brotli + r.brotli }), {
  raw: 0,
  gzip: 0,
  brotli: 0,
});
const rows = files.map(measure);
const onDemandRows = onDemand.map(measure);
const total = sum(rows);

if (json) {
  console.log(JSON.stringify({ files: rows, total, onDemand: onDemandRows }, null, 2));
} else {
  const w = Math.max(24, ...[...rows, ...onDemandRows].map((r) => r.file.length + 12));
  const n = (x) => String(x).padStart(10);
  console.log(`${'file'.padEnd(w)} ${n('raw')} ${n('gzip')} ${n('brotli')}`);
  for (const r of rows) console.log(`${r.file.padEnd(w)} ${n(r.raw)} ${n(r.gzip)} ${n(r.brotli)}`);
  console.log(`${'total at load'.padEnd(w)} ${n(total.raw)} ${n(total.gzip)} ${n(total.brotli)}`);
  for (const r of onDemandRows) console.log(`${`${r.file} (on demand)`.padEnd(w)} ${n(r.raw)} ${n(r.gzip)} ${n(r.brotli)}`);
  const kb = (b) => (b / 1024).toFixed(1);
  console.log(`total gzip: ${total.gzip} bytes (${kb(total.gzip)} KB) at load`);
  console.log(`total brotli: ${total.brotli} bytes (${kb(total.brotli)} KB) at load`);
}
