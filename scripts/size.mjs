#!/usr/bin/env node
// `npm run size` — what a page downloads from dist/: raw, gzip (level 9) and brotli (quality 11)
// bytes per file, and the totals. Type declarations and source maps are not loaded by pages and
// are left out. `--json` prints the same numbers as JSON.
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

// The server entry (package.json's `node` condition) is not loaded by pages either.
const loaded = (f) => /\.(m?js|wasm)$/.test(f) && !/\.d\.[cm]?ts$/.test(f) && !f.endsWith('.node.js');
// Entry first, then glue, wasm, snippets.
const order = (f) =>
  f.endsWith('koder-mcp-elicitation.js') ? 0 : f.endsWith('.wasm') ? 2 : f.includes('/snippets/') ? 3 : 1;
const files = walk(DIST)
  .filter(loaded)
  .sort((a, b) => order(a) - order(b) || a.localeCompare(b));

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
