#!/usr/bin/env node
// `npm run size` — what a page downloads from dist/: raw, gzip (level 9) and brotli (quality 11)
// bytes per file, and the totals. That is the entry, every module it imports (relative static or
// dynamic imports, followed) and the wasm; files a page never loads (type declarations, the
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

/** The entry and the modules it reaches through relative imports, in the order they are found. */
function reached(file, seen = new Set()) {
  if (seen.has(file) || !existsSync(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const re = /(?:import|export)\s*[^'"`;()]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|import\s*['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const m of text.matchAll(re)) reached(resolve(dirname(file), m[1] || m[2] || m[3]), seen);
  return seen;
}
const files = [
  ...reached(join(DIST, 'koder-mcp-elicitation.js')),
  ...walk(DIST).filter((f) => f.endsWith('.wasm')).sort(),
];

const rows = files.map((f) => ({ file: relative(ROOT, f), ...transferSize(readFileSync(f), f) }));
const total = rows.reduce((t, r) => ({ raw: t.raw + r.raw, gzip: t.gzip + r.gzip, brotli: t.brotli + r.brotli }), {
  raw: 0,
  gzip: 0,
  brotli: 0,
});

if (json) {
  console.log(JSON.stringify({ files: rows, total }, null, 2));
} else {
  const w = Math.max(24, ...rows.map((r) => r.file.length));
  const n = (x) => String(x).padStart(10);
  console.log(`${'file'.padEnd(w)} ${n('raw')} ${n('gzip')} ${n('brotli')}`);
  for (const r of rows) console.log(`${r.file.padEnd(w)} ${n(r.raw)} ${n(r.gzip)} ${n(r.brotli)}`);
  console.log(`${'total'.padEnd(w)} ${n(total.raw)} ${n(total.gzip)} ${n(total.brotli)}`);
  const kb = (b) => (b / 1024).toFixed(1);
  console.log(`total gzip: ${total.gzip} bytes (${kb(total.gzip)} KB)`);
  console.log(`total brotli: ${total.brotli} bytes (${kb(total.brotli)} KB)`);
}
