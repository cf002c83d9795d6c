// How a release wasm module is built (and where cargo's tools are found), shared by the element's build (scripts/build.mjs) and the
// size floor (scripts/size-floor.mjs), so the two are measured alike.
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

// Features rustc's wasm32-unknown-unknown target turns on by default (Rust >= 1.82 / LLVM 19+).
// wasm-opt reads the module's target_features section when present, but wasm-bindgen may drop
// it, so name them: without these binaryen rejects the module ("Bulk memory operations require
// bulk memory [--enable-bulk-memory]", nontrapping fptoint, ...).
const WASM_OPT_FEATURES = [
  '--enable-bulk-memory',
  '--enable-bulk-memory-opt',
  '--enable-nontrapping-float-to-int',
  '--enable-sign-ext',
  '--enable-mutable-globals',
  '--enable-multivalue',
  '--enable-reference-types',
];

// --converge repeats -Oz until it stops shrinking the module (~0.6 KB gzip for a few seconds; -Os
// and -O3 are larger). --low-memory-unused lets wasm-opt fold constant offsets into loads and stores
// (−0.7 KB gzip). It assumes nothing lives in the first 1 KiB of memory: there rustc puts the bottom
// of the 1 MiB shadow stack, which our bounded recursion (JSON 127 levels, schemas and patterns by
// limits.rs) stays far above.
export const wasmOptArgs = (input, output) => [
  input, '-o', output, '-Oz', '--converge', '--low-memory-unused', ...WASM_OPT_FEATURES,
  '--strip-debug', '--strip-producers', '--strip-target-features',
];

// `env` with ~/.cargo/bin on PATH: cargo-installed tools live there, and a fresh CI shell may not
// have it.
export function withCargoBin(env) {
  const cargoBin = join(env.CARGO_HOME || join(homedir(), '.cargo'), 'bin');
  return env.PATH.split(':').includes(cargoBin) ? { ...env } : { ...env, PATH: `${cargoBin}:${env.PATH}` };
}

// Panic messages carry source paths; remap them so the shipped wasm names no build machine's
// folders, and short: a crate's registry folder (`…/registry/src/index.crates.io-<hash>`) becomes
// `cargo` (~60 B gzip). Returns `env` with the remapping added to whatever rustflags it already had.
export function releaseRustEnv(env, root) {
  const cargoHome = env.CARGO_HOME || join(homedir(), '.cargo');
  const inherited = env.CARGO_ENCODED_RUSTFLAGS
    ? env.CARGO_ENCODED_RUSTFLAGS.split('\x1f')
    : (env.RUSTFLAGS || '').split(' ').filter(Boolean);
  const registry = join(cargoHome, 'registry', 'src');
  const indexes = existsSync(registry) ? readdirSync(registry).map((index) => join(registry, index)) : [];
  const remap = [
    `--remap-path-prefix=${cargoHome}=cargo`,
    // After the line above: of several matching prefixes rustc applies the last.
    ...indexes.map((index) => `--remap-path-prefix=${index}=cargo`),
    `--remap-path-prefix=${root}=.`,
  ];
  const out = { ...env, CARGO_ENCODED_RUSTFLAGS: [...inherited, ...remap].join('\x1f') };
  delete out.RUSTFLAGS;
  return out;
}
