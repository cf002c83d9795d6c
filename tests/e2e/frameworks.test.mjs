// The example apps in tests/examples/, each with the packed tarball installed as a user would
// (never the source tree): Vite + React 19 and Vite + Vue 3 type-checked, built and used in
// Chromium; a plain page with one script tag; the Svelte 5 and Preact typings; and the package
// imported where there is no DOM (Node, a worker), which must neither throw nor fetch.
// The examples' own dependencies come from their lockfiles (scripts/bootstrap.sh runs npm ci).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { launchBrowser, openPage, repoRoot, startServer } from './harness.mjs';
import { installTarball, packedTarball } from './pack.mjs';

const run = promisify(execFile);
const EXAMPLES = join(repoRoot, 'tests', 'examples');
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'";

let tarball;
let work; // build output of the example apps
let browser;

before(async () => {
  ({ tarball } = await packedTarball());
  for (const name of ['react', 'vue', 'typings']) {
    if (!existsSync(join(EXAMPLES, name, 'node_modules'))) {
      throw new Error(`tests/examples/${name}/node_modules is missing: run scripts/bootstrap.sh (npm ci there)`);
    }
  }
  for (const name of ['plain', 'react', 'vue', 'typings']) await installTarball(join(EXAMPLES, name), tarball);
  work = await mkdtemp(join(tmpdir(), 'kme-frameworks-'));
  browser = await launchBrowser();
}, { timeout: 600_000 });

after(async () => {
  await browser?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Runs a command; resolves to `{ code, out }` whatever the exit status. */
function outcome(file, args, cwd) {
  return run(file, args, { cwd, maxBuffer: 16 * 1024 * 1024 }).then(
    (r) => ({ code: 0, out: `${r.stdout}${r.stderr}` }),
    (e) => ({ code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? e.message}` }),
  );
}

/**
 * One type check over the example's usage files and its type-error file: the usage files must be
 * clean and every marked line of the error file must be reported (a wrong prop type must fail).
 */
async function typeCheck(cwd, command, errorFile, errorLines) {
  const { code, out } = await outcome(process.execPath, command, cwd);
  assert.notEqual(code, 0, `${errorFile} must not type-check:\n${out}`);
  const reported = [...out.matchAll(/^(\S+?)\((\d+),\d+\): error/gm)].map(([, file, line]) => ({ file, line: Number(line) }));
  const elsewhere = reported.filter((r) => !r.file.endsWith(errorFile));
  assert.deepEqual(elsewhere, [], `only ${errorFile} may have type errors:\n${out}`);
  const lines = [...new Set(reported.map((r) => r.line))].sort((a, b) => a - b);
  assert.deepEqual(lines, errorLines, out);
}

async function viteBuild(example) {
  const outDir = join(work, example);
  const { code, out } = await outcome(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], join(EXAMPLES, example));
  assert.equal(code, 0, out);
  return outDir;
}

/** Opens a page, asks for a city with the page's own button, types one, accepts; returns what the page shows. */
async function askFillAccept(url) {
  const page = await openPage(browser, url);
  await page.getByRole('button', { name: 'Ask for a city' }).click();
  const dialog = page.locator('koder-mcp-elicitation');
  // The attribute the app set (as a JSX prop, a Vue attribute or in HTML) reached the element.
  assert.match(await dialog.locator('[part~=server]').innerText(), /Weather server/);
  await dialog.locator('[data-field="city"] input').fill('Porto');
  await dialog.locator('button[part~=accept]').click();
  await page.locator('#result').filter({ hasText: 'accept' }).waitFor();
  const shown = { accepted: await page.locator('#accepted').innerText(), result: await page.locator('#result').innerText() };
  page.assertNoErrors();
  await page.close();
  return shown;
}

test('Vite + React 19: typed JSX (props, ref, lowercase event props) type-checks, wrong props fail; built, onaccept gets the detail', { timeout: 180_000 }, async () => {
  const react = join(EXAMPLES, 'react');
  // One tsc run: App.tsx and main.tsx clean, TypeErrors.tsx failing on each marked line.
  await typeCheck(react, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.type-check.json'], 'src/TypeErrors.tsx', [10, 11, 12, 13, 14, 15, 16]);
  const outDir = await viteBuild('react');
  const server = await startServer({ root: outDir, headers: { 'Content-Security-Policy': CSP } });
  try {
    const shown = await askFillAccept(`${server.url}/`);
    assert.deepEqual(shown, { accepted: '{"city":"Porto"}', result: 'accept' });
    assert.ok(server.requests.some((path) => path.endsWith('.wasm')), 'Vite emitted the wasm and the page loaded it');
  } finally {
    await server.close();
  }
});

test('Vite + Vue 3: GlobalComponents types the template (vue-tsc), wrong props fail; built with isCustomElement, @accept gets the detail', { timeout: 180_000 }, async () => {
  const vue = join(EXAMPLES, 'vue');
  // One vue-tsc run (about 10 s) covers both: App.vue clean, TypeErrors.vue failing on each marked line.
  await typeCheck(vue, ['node_modules/vue-tsc/bin/vue-tsc.js', '--noEmit', '-p', 'tsconfig.type-check.json'], 'src/TypeErrors.vue', [11, 12, 13, 14]);
  const outDir = await viteBuild('vue');
  const server = await startServer({ root: outDir, headers: { 'Content-Security-Policy': CSP } });
  try {
    const shown = await askFillAccept(`${server.url}/`);
    assert.deepEqual(shown, { accepted: '{"city":"Porto"}', result: 'accept' });
  } finally {
    await server.close();
  }
});

test('a plain page with one script tag: the element is defined, the accept event carries the content', { timeout: 60_000 }, async () => {
  const server = await startServer({ root: join(EXAMPLES, 'plain'), headers: { 'Content-Security-Policy': CSP } });
  try {
    const shown = await askFillAccept(`${server.url}/index.html`);
    assert.deepEqual(shown, { accepted: '{"city":"Porto"}', result: 'accept' });
  } finally {
    await server.close();
  }
});

test('Svelte 5 (svelteHTML) and Preact typings: attributes and event details typed, wrong props fail', { timeout: 60_000 }, async () => {
  const typings = join(EXAMPLES, 'typings');
  const { code, out } = await outcome(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json'], typings);
  assert.notEqual(code, 0, out);
  const reported = [...out.matchAll(/^(\S+?)\((\d+),\d+\): error/gm)].map(([, file, line]) => `${file}:${line}`);
  assert.deepEqual(reported, [
    'preact-type-errors.tsx:5',
    'preact-type-errors.tsx:6',
    'preact-type-errors.tsx:7',
    'preact-type-errors.tsx:8',
    'preact-type-errors.tsx:9',
    'svelte-type-errors.ts:5',
    'svelte-type-errors.ts:6',
    'svelte-type-errors.ts:7',
    'svelte-type-errors.ts:8',
  ], out);
});

test('Node: `import("koder-mcp-elicitation")` resolves with no error, fetches nothing, and validateContent reads the wasm from the package', { timeout: 60_000 }, async () => {
  const plain = join(EXAMPLES, 'plain');
  // The very command from the issue, in a project that installed the tarball.
  const bare = await outcome(process.execPath, ['-e', 'import("koder-mcp-elicitation")'], plain);
  assert.deepEqual(bare, { code: 0, out: '' });

  const script = `
globalThis.fetch = () => { throw new Error('fetch called'); };
const server = await import('koder-mcp-elicitation');
const viaReact = await import('koder-mcp-elicitation/react');
const page = await import('koder-mcp-elicitation/dist/koder-mcp-elicitation.js');
await server.ready;
await page.ready;
const schema = { type: 'object', properties: { age: { type: 'integer', minimum: 18 } }, required: ['age'] };
let parseError;
try { server.parseRequest({ message: 'x', requestedSchema: { type: 'object', properties: { age: { type: 'integer', minimum: 'ten' } } } }); } catch (e) { parseError = e; }
let pageError;
try { page.validateContent(schema, {}); } catch (e) { pageError = e; }
console.log(JSON.stringify({
  exports: Object.keys(server).sort(),
  pageExports: Object.keys(page).sort(),
  sameModule: viaReact.validateContent === server.validateContent,
  oneErrorClass: page.ElicitationError === server.ElicitationError,
  valid: server.validateContent(schema, { age: 30 }),
  invalid: server.validateContent(schema, { age: 12 }, { locale: 'pt-BR' }),
  parseError: { isElicitationError: parseError instanceof server.ElicitationError, code: parseError?.code, message: parseError?.message },
  url: server.parseRequest({ mode: 'url', message: 'Sign in', url: 'https://example.com', elicitationId: 'e1' }).url,
  pageError: { isElicitationError: pageError instanceof server.ElicitationError, code: pageError?.code },
  defined: typeof customElements,
}));
`;
  const { code, out } = await outcome(process.execPath, ['--input-type=module', '-e', script], plain);
  assert.equal(code, 0, out);
  const seen = JSON.parse(out);
  const exports = ['ElicitationError', 'parseRequest', 'ready', 'registerTranslation', 'requestNotificationPermission', 'validateContent'];
  assert.deepEqual(seen.exports, exports);
  assert.deepEqual(seen.pageExports, exports, 'the page entry keeps its exports where there is no DOM');
  assert.equal(seen.sameModule, true, 'koder-mcp-elicitation/react is the same module');
  assert.equal(seen.oneErrorClass, true);
  assert.deepEqual(seen.valid, { valid: true, errors: [] });
  assert.equal(seen.invalid.valid, false);
  assert.deepEqual(seen.invalid.errors.map((e) => [e.path, e.keyword]), [['/age', 'minimum']]);
  assert.match(seen.invalid.errors[0].message, /18/);
  assert.notEqual(seen.invalid.errors[0].message, 'Must be at least 18', 'pt-BR, not English');
  assert.deepEqual(seen.parseError, { isElicitationError: true, code: -32602, message: seen.parseError.message });
  assert.match(seen.parseError.message, /requestedSchema\.properties\.age\.minimum/);
  assert.equal(seen.url, 'https://example.com');
  // The page entry loads nothing without a DOM, and says so instead of failing obscurely.
  assert.deepEqual(seen.pageError, { isElicitationError: true, code: -32603 });
  assert.equal(seen.defined, 'undefined');
});

test('a module worker imports the package: no error, the exports are there, the wasm is not fetched', { timeout: 60_000 }, async () => {
  const worker = `import * as kme from "/node_modules/koder-mcp-elicitation/dist/koder-mcp-elicitation.js";
await kme.ready;
postMessage({ exports: Object.keys(kme).sort(), error: typeof kme.ElicitationError });
`;
  const server = await startServer({
    root: join(EXAMPLES, 'plain'),
    headers: { 'Content-Security-Policy': CSP },
    routes: {
      '/worker.js': (req, res) => res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(worker),
      '/worker.html': (req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>worker</title>'),
    },
  });
  try {
    const page = await openPage(browser, `${server.url}/worker.html`);
    const seen = await page.evaluate(() => new Promise((resolve, reject) => {
      const w = new Worker('/worker.js', { type: 'module' });
      w.onmessage = (event) => resolve(event.data);
      w.onerror = (event) => reject(new Error(event.message || 'worker failed'));
    }));
    assert.deepEqual(seen, { exports: ['ElicitationError', 'parseRequest', 'ready', 'registerTranslation', 'requestNotificationPermission', 'validateContent'], error: 'function' });
    // The entry is one module (the glue and the shim are bundled into it).
    assert.ok(server.requests.includes('/node_modules/koder-mcp-elicitation/dist/koder-mcp-elicitation.js'), 'the worker loaded the package');
    assert.deepEqual(server.requests.filter((path) => path.endsWith('.wasm')), [], 'no wasm fetched in a worker');
    page.assertNoErrors();
    await page.close();
  } finally {
    await server.close();
  }
});
