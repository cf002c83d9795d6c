#!/usr/bin/env node
// `npm run build` — compiles the Rust core to WebAssembly and writes the distributable into dist/.
//
//   node scripts/build.mjs         release: cargo build --release for wasm32-unknown-unknown, the
//                                  wasm-bindgen CLI, wasm-opt -Oz --converge, short import names, JS minified
//   node scripts/build.mjs --dev   fast iteration: cargo's dev profile, wasm-bindgen --debug, no wasm-opt
//
// dist/ afterwards:
//   koder-mcp-elicitation.js     the entry (src/element.js) bundled with the wasm-bindgen glue and the
//                                element shim: one module, so the wasm fetch starts after one JS request
//   koder-mcp-elicitation.d.ts   (src/element.d.ts, when present)
//   elicitation_core_bg.wasm     found beside the entry via import.meta.url
//   elicitation_core.js          the same glue unbundled, with snippets/**, for tools that import it by
//   snippets/**                  name; the entry does not load them (a second import is a second instance)
//   koder-mcp-elicitation.node.js  the server entry (src/element.node.js, package.json's `node` condition)
//   js/api.js                    the exports both entries share (src/js/api.js), unbundled for the server entry
//   js/relay.js                  the relay client the entry imports on demand (connectRelay): src/js/relay.js
//                                bundled with the modules it imports, one file
//   react.d.ts, vue.d.ts, ...    framework typings (src/frameworks/*.d.ts, package.json's `./react`, ...)
//   relay.js, relay.d.ts         the relay's host helper (src/relay/host.js, package.json's `./relay`)
//   push-worker.js, .d.ts        the service-worker helpers (src/push/worker.js, `./push-worker`)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, cpSync, copyFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { releaseRustEnv, wasmOptArgs, withCargoBin } from './release-wasm.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PKG = join(ROOT, 'pkg');
const DIST = join(ROOT, 'dist');
const CRATE = 'koder-mcp-elicitation';
const OUT_NAME = 'elicitation_core';
const ENTRY_SRC = join(ROOT, 'src', 'element.js');
const DTS_SRC = join(ROOT, 'src', 'element.d.ts');
const ENTRY_OUT = 'koder-mcp-elicitation.js';
const NODE_ENTRY_SRC = join(ROOT, 'src', 'element.node.js');
const NODE_ENTRY_OUT = 'koder-mcp-elicitation.node.js';
const FRAMEWORK_DTS_DIR = join(ROOT, 'src', 'frameworks');

const args = process.argv.slice(2);
const dev = args.includes('--dev');
for (const a of args) {
  if (a !== '--dev') {
    console.error(`build: unknown argument ${a} (only --dev is accepted)`);
    process.exit(2);
  }
}

const t0 = Date.now();
const rel = (p) => relative(ROOT, p) || '.';
const fail = (msg) => {
  console.error(`build: ERROR: ${msg}`);
  process.exit(1);
};

let env = withCargoBin(process.env);

function run(cmd, argv, opts = {}) {
  console.log(`build: $ ${[cmd, ...argv].join(' ')}`);
  const r = spawnSync(cmd, argv, { cwd: ROOT, env, stdio: 'inherit', ...opts });
  if (r.error) fail(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} exited with ${r.status ?? r.signal}`);
}

function capture(cmd, argv) {
  const r = spawnSync(cmd, argv, { cwd: ROOT, env, encoding: 'utf8' });
  if (r.error) fail(`${cmd}: ${r.error.message} (run scripts/bootstrap.sh --demo)`);
  return `${r.stdout}${r.stderr}`;
}

/** The version of `name` in Cargo.lock (the wasm-bindgen CLI must match the crate exactly). */
function lockedVersion(name) {
  const lock = readFileSync(join(ROOT, 'Cargo.lock'), 'utf8');
  const entry = lock.split('[[package]]').find((block) => block.includes(`\nname = "${name}"\n`));
  const version = entry?.match(/\nversion = "([^"]+)"/)?.[1];
  if (!version) fail(`no ${name} in Cargo.lock`);
  return version;
}

/** Runs `cargo argv` and returns the path of the .wasm it built (from cargo's own artifact messages,
 *  so CARGO_TARGET_DIR and the like are honoured); diagnostics and progress still go to the terminal. */
function cargoWasm(argv) {
  const full = [...argv, '--message-format=json-render-diagnostics'];
  console.log(`build: $ cargo ${argv.join(' ')}`);
  const r = spawnSync('cargo', full, { cwd: ROOT, env, stdio: ['inherit', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.error) fail(`cargo: ${r.error.message}`);
  if (r.status !== 0) fail(`cargo exited with ${r.status ?? r.signal}`);
  const wasmFiles = r.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((message) => message.reason === 'compiler-artifact' && message.target?.kind?.includes('cdylib'))
    .flatMap((message) => message.filenames.filter((file) => file.endsWith('.wasm')));
  if (wasmFiles.length !== 1) fail(`cargo built ${wasmFiles.length} .wasm files, expected one: ${wasmFiles.join(', ')}`);
  return wasmFiles[0];
}

// 1. cargo, then the wasm-bindgen CLI -------------------------------------------------------------
// What `wasm-pack build --target web --no-typescript` ran, without wasm-pack (one tool fewer for a
// bare machine to compile): cargo builds the library for wasm32-unknown-unknown, and the
// wasm-bindgen CLI, at Cargo.lock's wasm-bindgen version, writes the glue and the wasm into pkg/.
// A dev build's glue is wasm-bindgen's --debug glue, as wasm-pack's dev profile had it.
const bindgenVersion = lockedVersion('wasm-bindgen');
const haveBindgen = capture('wasm-bindgen', ['--version']).trim().split(/\s+/)[1];
if (haveBindgen !== bindgenVersion) {
  fail(`wasm-bindgen CLI ${haveBindgen ?? 'not found'}, Cargo.lock has wasm-bindgen ${bindgenVersion}: run scripts/bootstrap.sh --demo`);
}
// Panic messages carry source paths; release builds remap them (scripts/release-wasm.mjs).
if (!dev) env = releaseRustEnv(env, ROOT);
const built = cargoWasm(['build', '--lib', '-p', CRATE, '--target', 'wasm32-unknown-unknown', ...(dev ? [] : ['--release'])]);
rmSync(PKG, { recursive: true, force: true });
run('wasm-bindgen', [built, '--out-dir', 'pkg', '--no-typescript', '--target', 'web', '--out-name', OUT_NAME, ...(dev ? ['--debug'] : [])]);

const glue = join(PKG, `${OUT_NAME}.js`);
const wasm = join(PKG, `${OUT_NAME}_bg.wasm`);
for (const f of [glue, wasm]) if (!existsSync(f)) fail(`wasm-bindgen did not produce ${rel(f)}`);

// 2. wasm-opt (release only) -----------------------------------------------------------------
const wasmOpt = join(ROOT, 'node_modules', 'binaryen', 'bin', 'wasm-opt');
if (!dev) {
  if (!existsSync(wasmOpt)) fail(`${rel(wasmOpt)} missing: run scripts/bootstrap.sh (npm ci)`);
  const before = statSync(wasm).size;
  const tmp = `${wasm}.opt`;
  // The npm binaryen ships wasm-opt as a Node script; run it with this Node.
  run(process.execPath, [wasmOpt, ...wasmOptArgs(wasm, tmp)]);
  renameSync(tmp, wasm);
  console.log(`build: wasm-opt -Oz ${before} -> ${statSync(wasm).size} bytes`);
  // Short import names in the wasm and the glue (see shortenImports, 5. below).
  const renamed = shortenImports(wasm, glue, `./${OUT_NAME}_bg.js`);
  console.log(`build: ${renamed} wasm imports renamed short -> ${statSync(wasm).size} bytes`);
}

// Short strings from the wasm without a TextDecoder call (see shortStringsInJs, 6. below).
if (!shortStringsInJs(glue)) fail(`${rel(glue)}: getStringFromWasm0 not found as expected; update shortStringsInJs`);

// 3. dist/ -----------------------------------------------------------------------------------
if (!existsSync(ENTRY_SRC)) fail(`${rel(ENTRY_SRC)} missing: it is the dist entry (the element shim)`);
rmSync(DIST, { recursive: true, force: true });
mkdirSync(DIST, { recursive: true });
copyFileSync(glue, join(DIST, `${OUT_NAME}.js`));
copyFileSync(wasm, join(DIST, `${OUT_NAME}_bg.wasm`));
if (existsSync(join(PKG, 'snippets'))) cpSync(join(PKG, 'snippets'), join(DIST, 'snippets'), { recursive: true });

// The entry plus any other local modules it imports from src/ (relative specifiers), so the
// shim may be split into several files without touching this script. A module imported on demand
// (`import("./…")`) is not copied but bundled (3b), into onDemandModules' file in dist/.
const copied = new Set();
const onDemandModules = new Map(); // its source file → its path in dist/
function copyModule(srcFile, outName) {
  if (copied.has(srcFile)) return;
  copied.add(srcFile);
  copyFileSync(srcFile, join(DIST, outName));
  const text = readFileSync(srcFile, 'utf8');
  const re = /(?:import|export)\s[^'"`;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|import\s*['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const m of text.matchAll(re)) {
    const spec = m[1] || m[2] || m[3];
    const target = resolve(dirname(srcFile), spec);
    const outRel = relative(dirname(ENTRY_SRC), target);
    if (outRel.startsWith('..')) fail(`${rel(srcFile)} imports ${spec}, outside src/`);
    const already = existsSync(join(DIST, outRel));
    if (outRel === `${OUT_NAME}.js` || outRel.startsWith('snippets/')) continue; // produced above
    if (m[2] && existsSync(target) && statSync(target).isFile()) {
      onDemandModules.set(target, outRel);
    } else if (existsSync(target) && statSync(target).isFile()) {
      mkdirSync(dirname(join(DIST, outRel)), { recursive: true });
      copyModule(target, outRel);
    } else if (!already) {
      fail(`${rel(srcFile)} imports ${spec}, which is neither in src/ nor produced by wasm-bindgen`);
    }
  }
}
copyModule(ENTRY_SRC, ENTRY_OUT);
if (existsSync(DTS_SRC)) copyFileSync(DTS_SRC, join(DIST, 'koder-mcp-elicitation.d.ts'));

// 3a. the server entry and the framework typings ----------------------------------------------
copyModule(NODE_ENTRY_SRC, NODE_ENTRY_OUT);
for (const name of readdirSync(FRAMEWORK_DTS_DIR).filter((n) => n.endsWith('.d.ts'))) {
  copyFileSync(join(FRAMEWORK_DTS_DIR, name), join(DIST, name));
}
// The relay's host helper (src/relay/host.js, package.json's `./relay`): no wasm; bundled below
// (3b) with the relay call, retry loop and Web Push it shares with the page (src/js/relay-*.js).
copyFileSync(join(ROOT, 'src', 'relay', 'host.d.ts'), join(DIST, 'relay.d.ts'));
// The service-worker helpers (src/push/worker.js, package.json's `./push-worker`): plain JS for an
// app's own worker; the element never loads them.
copyModule(join(ROOT, 'src', 'push', 'worker.js'), 'push-worker.js');
copyFileSync(join(ROOT, 'src', 'push', 'worker.d.ts'), join(DIST, 'push-worker.d.ts'));

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  fail('esbuild missing: run scripts/bootstrap.sh (npm ci)');
}

// 3b. one module ------------------------------------------------------------------------------
// Unbundled, a page fetches entry -> glue -> shim one after another before the wasm fetch can start
// (measured at 150 ms RTT and 1.6 Mbit/s: the wasm request starts at ~880 ms, bundled at ~500 ms).
// `new URL("./elicitation_core_bg.wasm", import.meta.url)` stays as it is: the bundle is the entry,
// beside the wasm. The exports are the entry's own. The entry defines the element before the wasm
// is in, through the shim the glue imports as a wasm-bindgen snippet: both must be one module
// instance (one queue of waiting calls, one panic state), so the glue's snippet imports resolve to
// the copies beside the entry (dist/js/, byte for byte the same source) where there are any.
const oneShim = {
  name: 'one-shim',
  setup(build) {
    build.onResolve({ filter: /^\.\/snippets\/[^/]+\/src\/js\/[^/]+\.js$/ }, (args) => {
      const beside = join(DIST, 'js', args.path.split('/').pop());
      return existsSync(beside) ? { path: beside } : undefined;
    });
  },
};
// Modules the entry loads on demand (`import("./js/….js")`, e.g. the relay client) stay files of
// their own beside it, so pages that never call them never download them (each bundled below).
const onDemand = {
  name: 'on-demand',
  setup(build) {
    build.onResolve({ filter: /^\.\/js\/[^/]+\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined);
  },
};
// What every bundle below shares.
const bundling = { bundle: true, format: 'esm', target: 'es2022', minify: !dev, legalComments: 'none', logLevel: 'error' };
await esbuild.build({
  ...bundling,
  entryPoints: [join(DIST, ENTRY_OUT)],
  plugins: [oneShim, onDemand],
  outfile: join(DIST, ENTRY_OUT),
  allowOverwrite: true,
  platform: 'browser',
});

// Each module the entry loads on demand is one file, fetched in one request however many files its
// source is. It must share no module with the entry: a bundled copy would be a second instance.
for (const [source, outRel] of onDemandModules) {
  const { metafile } = await esbuild.build({
    ...bundling,
    entryPoints: [source],
    outfile: join(DIST, outRel),
    absWorkingDir: ROOT,
    metafile: true,
    platform: 'browser',
  });
  const shared = Object.keys(metafile.inputs).filter((input) => copied.has(resolve(ROOT, input)));
  if (shared.length > 0) fail(`${rel(source)} (loaded on demand) imports ${shared.join(', ')}, which the entry loads too`);
}

// The `./relay` module is one file: its source imports the page's relay modules from one folder up
// (src/relay/ → src/js/), which a copy at dist/'s top could not resolve.
await esbuild.build({
  ...bundling,
  entryPoints: [join(ROOT, 'src', 'relay', 'host.js')],
  outfile: join(DIST, 'relay.js'),
  platform: 'neutral',
});

// 3c. minify the JS (release only) ------------------------------------------------------------
// Each remaining module is minified in place (esbuild transform, not a bundle): file names, relative
// imports, exports and `new URL(..., import.meta.url)` stay as they are.
if (!dev) {
  for (const f of walk(DIST).filter((f) => /\.m?js$/.test(f) && !f.endsWith(ENTRY_OUT))) {
    const source = readFileSync(f, 'utf8');
    const { code } = await esbuild.transform(source, {
      loader: 'js',
      format: 'esm',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      logLevel: 'error',
    });
    writeFileSync(f, code);
  }
}

// 4. sizes -----------------------------------------------------------------------------------
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
  );
}
let totalRaw = 0;
let totalGz = 0;
console.log(`build: dist/ (${dev ? 'dev' : 'release'})`);
for (const f of walk(DIST).sort()) {
  const buf = readFileSync(f);
  const gz = gzipSync(buf, { level: 9 }).length;
  totalRaw += buf.length;
  totalGz += gz;
  console.log(`  ${rel(f).padEnd(44)} ${String(buf.length).padStart(9)} B  ${String(gz).padStart(8)} B gzip`);
}
console.log(`  ${'total'.padEnd(44)} ${String(totalRaw).padStart(9)} B  ${String(totalGz).padStart(8)} B gzip`);
console.log(`build: done in ${((Date.now() - t0) / 1000).toFixed(1)}s`);

// 5. short import names ---------------------------------------------------------------------
// wasm-bindgen names each import after its JS function plus a 16-hex-digit hash
// (`__wbg_setAttribute_0f3e…`) and the module after the glue file (`./elicitation_core_bg.js`):
// ~130 of them cost ~7 KB raw in the wasm's import section and again in the glue, and the hashes do
// not compress. This drops the `__wbg_` prefix and the hash (`setAttribute`; a counter tells apart
// names that then coincide) and renames the modules `a`, `b`, … (the snippets' long paths too), in
// the wasm and in the glue alike. Only the glue's own imports are renamed (a
// snippet's are its export names), and only names and modules found exactly once in the glue, as a
// key of its imports object; if the files do not look as expected, or the result does not
// validate, both are left as they were.
function shortenImports(wasmPath, gluePath, glueModule) {
  const bytes = readFileSync(wasmPath);
  let glueText = readFileSync(gluePath, 'utf8');
  let pos = 8;
  while (pos < bytes.length) {
    const id = bytes[pos];
    const [size, start] = readLeb(bytes, pos + 1);
    if (id !== 2) {
      pos = start + size;
      continue;
    }
    let [count, p] = readLeb(bytes, start);
    const entries = [];
    for (let i = 0; i < count; i++) {
      let length;
      [length, p] = readLeb(bytes, p);
      const module = bytes.subarray(p, p + length).toString('utf8');
      p += length;
      [length, p] = readLeb(bytes, p);
      const field = bytes.subarray(p, p + length).toString('utf8');
      p += length;
      const end = importDescriptionEnd(bytes, bytes[p], p + 1);
      if (end < 0) return 0;
      entries.push({ module, field, description: bytes.subarray(p, end) });
      p = end;
    }
    if (p !== start + size) return 0;
    const modules = new Map();
    for (const module of new Set(entries.map((entry) => entry.module))) {
      const key = `${JSON.stringify(module)}:`;
      if (glueText.split(key).length !== 2) return 0;
      const short = String.fromCharCode(97 + modules.size);
      glueText = glueText.replace(key, `${JSON.stringify(short)}:`);
      modules.set(module, short);
    }
    const taken = new Set(entries.map((entry) => entry.field));
    let renamed = 0;
    for (const entry of entries) {
      const ownImport = entry.module === glueModule;
      entry.module = modules.get(entry.module);
      if (!ownImport) continue;
      const key = new RegExp(`(?<![\\w$])${entry.field}(?![\\w$])`, 'g');
      if (!/^[\w$]+$/.test(entry.field) || (glueText.match(key) ?? []).length !== 1) continue;
      if (!new RegExp(`(?<![\\w$])${entry.field}:`).test(glueText)) continue;
      const base = entry.field.replace(/^__wbg_/, '').replace(/_[0-9a-f]{16}$/, '') || '_';
      let short = base;
      for (let n = 1; taken.has(short); n++) short = `${base}_${n}`;
      taken.add(short);
      glueText = glueText.replace(key, short);
      entry.field = short;
      renamed++;
    }
    const body = [Buffer.from(lebBytes(entries.length))];
    for (const entry of entries) {
      for (const text of [entry.module, entry.field]) {
        const encoded = Buffer.from(text, 'utf8');
        body.push(Buffer.from(lebBytes(encoded.length)), encoded);
      }
      body.push(entry.description);
    }
    const payload = Buffer.concat(body);
    const out = Buffer.concat([
      bytes.subarray(0, pos),
      Buffer.from([2, ...lebBytes(payload.length)]),
      payload,
      bytes.subarray(start + size),
    ]);
    if (!WebAssembly.validate(out)) return 0;
    writeFileSync(wasmPath, out);
    writeFileSync(gluePath, glueText);
    return renamed;
  }
  return 0;
}

/** An unsigned LEB128 at `pos`: [value, the position after it]. */
function readLeb(bytes, pos) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[pos++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, pos];
}

function lebBytes(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

/** Where an import's description of `kind` starting at `pos` ends; -1 for a kind not known here. */
function importDescriptionEnd(bytes, kind, pos) {
  const limitsEnd = (p) => {
    const flags = bytes[p++];
    [, p] = readLeb(bytes, p);
    if (flags & 1) [, p] = readLeb(bytes, p);
    return p;
  };
  switch (kind) {
    case 0: return readLeb(bytes, pos)[1]; // function: its type index
    case 1: return limitsEnd(pos + 1); // table: element type, limits
    case 2: return limitsEnd(pos); // memory: limits
    case 3: return pos + 2; // global: value type, mutability
    default: return -1;
  }
}

// 6. short strings -----------------------------------------------------------------------------
// Every &str the wasm hands to JS (tag names, attribute names and values, texts) goes through
// TextDecoder.decode, a call into the browser however short the string: 0.17 ms of a 2-field open
// in the profile, 0.01 ms after this. Strings under 64 bytes that are all ASCII are read byte by byte
// instead; anything else still goes to the decoder, so the result is the same string either way.
function shortStringsInJs(gluePath) {
  const text = readFileSync(gluePath, 'utf8');
  const old = /function getStringFromWasm0\(ptr, len\) \{\n\s*ptr = ptr >>> 0;\n\s*return decodeText\(getUint8ArrayMemory0\(\)\.subarray\(ptr, ptr \+ len\)\);\n\}/;
  if (!old.test(text)) return false;
  const fast = `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    const bytes = getUint8ArrayMemory0();
    if (len < 64) {
        let s = '';
        for (let i = ptr, end = ptr + len; i < end; i++) {
            const c = bytes[i];
            if (c > 127) return decodeText(bytes.subarray(ptr, ptr + len));
            s += String.fromCharCode(c);
        }
        return s;
    }
    return decodeText(bytes.subarray(ptr, ptr + len));
}`;
  writeFileSync(gluePath, text.replace(old, fast));
  return true;
}
