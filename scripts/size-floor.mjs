#!/usr/bin/env node
// The size floor: the core alone (crates/size-floor: every core call the web element makes, with
// no DOM, no JS glue and no stylesheet) built as a release wasm module exactly as the element's is
// (scripts/release-wasm.mjs), and its transfer size. The element's download cannot go below this
// without a smaller core. `npm run bench` prints it beside the element's; run alone it prints it.
//
//   node scripts/size-floor.mjs
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { releaseRustEnv, wasmOptArgs, withCargoBin } from './release-wasm.mjs';
import { transferSize } from './transfer-size.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function run(cmd, argv, env) {
  const r = spawnSync(cmd, argv, { cwd: ROOT, env, encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new Error(`size-floor: ${cmd} ${argv.join(' ')} failed: ${r.error?.message ?? `${r.stdout}${r.stderr}`}`);
  }
}

export function measureSizeFloor() {
  const env = releaseRustEnv(withCargoBin(process.env), ROOT);
  run('cargo', ['build', '--quiet', '--release', '--target', 'wasm32-unknown-unknown', '-p', 'koder-size-floor'], env);
  const built = join(ROOT, 'target', 'wasm32-unknown-unknown', 'release', 'koder_size_floor.wasm');
  const outDir = join(ROOT, 'target', 'size-floor');
  mkdirSync(outDir, { recursive: true });
  const optimized = join(outDir, 'koder_size_floor.wasm');
  run(process.execPath, [join(ROOT, 'node_modules', 'binaryen', 'bin', 'wasm-opt'), ...wasmOptArgs(built, optimized)], env);
  return transferSize(readFileSync(optimized), optimized);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const size = measureSizeFloor();
  console.log(`size floor (the core alone, no DOM, no JS): ${size.raw} raw / ${size.gzip} gzip / ${size.brotli} brotli bytes`);
}
