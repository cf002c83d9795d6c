// The npm package as a web developer gets it: `npm pack` (its prepack builds dist/), the tarball
// installed into a fresh project, then loaded from a plain <script type="module">, from an esbuild
// bundle of `import "koder-mcp-elicitation"`, and type-checked with tsc against a typed usage file.
// The custom-elements.json manifest is checked against what the element really observes and renders.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { launchBrowser, openPage, repoRoot, startServer, whenDefined } from './harness.mjs';
import { installTarball, packedTarball } from './pack.mjs';

const run = promisify(execFile);
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'";

let work; // temporary folder: the consumer project
let app; // the consumer project
let installed; // node_modules/koder-mcp-elicitation inside it
let tarballFiles;
let server;
let browser;

before(async () => {
  // `npm pack` runs prepack (node scripts/build.mjs), so the tarball holds a fresh dist/.
  const packed = await packedTarball();
  tarballFiles = packed.files;
  work = await mkdtemp(join(tmpdir(), 'kme-package-'));
  app = join(work, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  installed = await installTarball(app, packed.tarball);
  server = await startServer({ root: app, headers: { 'Content-Security-Policy': CSP } });
  browser = await launchBrowser();
}, { timeout: 600_000 });

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Elicits a one-field form, types into it, presses Submit; returns the settled ElicitResult. */
async function fillAndSubmit(page) {
  await page.evaluate(() => {
    window.__result = document.querySelector('koder-mcp-elicitation').elicit({
      message: 'Weather lookup needs your input',
      requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    window.__result.catch(() => {});
  });
  await page.locator('koder-mcp-elicitation [data-field="city"] input').fill('Porto');
  await page.locator('koder-mcp-elicitation button[part~=accept]').click();
  return page.evaluate(() => window.__result);
}

test('the tarball holds dist/, the types and the manifest, and nothing from the source tree', () => {
  for (const file of [
    'package.json',
    'README.md',
    'custom-elements.json',
    'dist/koder-mcp-elicitation.js',
    'dist/koder-mcp-elicitation.d.ts',
    'dist/elicitation_core.js',
    'dist/elicitation_core_bg.wasm',
    'dist/koder-mcp-elicitation.node.js',
    'dist/react.d.ts',
    'dist/vue.d.ts',
    'dist/svelte.d.ts',
    'dist/preact.d.ts',
  ]) {
    assert.ok(tarballFiles.includes(file), `${file} is missing from the tarball: ${tarballFiles.join(', ')}`);
  }
  const stray = tarballFiles.filter((file) => !/^(dist\/|package\.json$|README\.md$|LICENSE|custom-elements\.json$)/.test(file));
  assert.deepEqual(stray, []);
});

test('package.json: ESM, exports with types first, the defining entry kept as a side effect', async () => {
  const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
  assert.equal(pkg.type, 'module');
  // Types first; browsers and bundlers for the page take the defining entry, Node the server entry.
  for (const [subpath, types] of [['.', 'koder-mcp-elicitation'], ['./react', 'react'], ['./vue', 'vue'], ['./svelte', 'svelte'], ['./preact', 'preact']]) {
    assert.deepEqual(Object.entries(pkg.exports[subpath]), [
      ['types', `./dist/${types}.d.ts`],
      ['browser', './dist/koder-mcp-elicitation.js'],
      ['node', './dist/koder-mcp-elicitation.node.js'],
      ['default', './dist/koder-mcp-elicitation.js'],
    ], subpath);
  }
  assert.ok(pkg.sideEffects.includes('./dist/koder-mcp-elicitation.js'));
  assert.equal(pkg.customElements, 'custom-elements.json');
  // Whatever package.json points at ships.
  const targets = Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [] : Object.values(target)));
  for (const target of [...targets, pkg.customElements, pkg.types, pkg.main]) {
    await readFile(join(installed, target));
  }
});

test('the packed README speaks to installers: installed paths and package subpaths, no repository paths', async () => {
  const readme = await readFile(join(installed, 'README.md'), 'utf8');
  const firstSection = readme.slice(0, readme.indexOf('\n## The terminal'));
  assert.match(firstSection, /npm install koder-mcp-elicitation/);
  assert.match(firstSection, /src="\/node_modules\/koder-mcp-elicitation\/dist\/koder-mcp-elicitation\.js"/);
  for (const subpath of ['react', 'vue', 'svelte', 'preact']) assert.match(firstSection, new RegExp(`import "koder-mcp-elicitation/${subpath}"`));
  assert.doesNotMatch(firstSection, /src="\/dist\//, 'a repository path in the usage snippets');
  // The two commands stay near the top, and the "Develop" section explains them.
  assert.ok(readme.indexOf('npm test') < readme.indexOf('## Use it'), 'npm test near the top');
  assert.match(readme, /\n## Develop\n/);
});

test('a plain <script type="module"> from node_modules defines the element, and a form works', { timeout: 60_000 }, async () => {
  await writeFile(join(app, 'script-tag.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>script tag</title>
<script type="module" src="/node_modules/koder-mcp-elicitation/dist/koder-mcp-elicitation.js"></script>
</head><body><koder-mcp-elicitation server-name="Weather server"></koder-mcp-elicitation></body></html>`);
  const page = await openPage(browser, `${server.url}/script-tag.html`);
  await whenDefined(page);
  assert.deepEqual(await fillAndSubmit(page), { action: 'accept', content: { city: 'Porto' } });
  page.assertNoErrors();
  await page.close();
});

test('bundled with esbuild: a bare `import "koder-mcp-elicitation"` defines the element; named exports work', { timeout: 60_000 }, async () => {
  await mkdir(join(app, 'src'), { recursive: true });
  // Nothing but the side-effect import: the element is defined only if sideEffects keeps the entry.
  await writeFile(join(app, 'src', 'define-only.js'), `import 'koder-mcp-elicitation';\n`);
  await writeFile(join(app, 'src', 'named.js'), `import { ready, validateContent, parseRequest, ElicitationError } from 'koder-mcp-elicitation';
await ready;
let error;
try { parseRequest({ message: 'x', requestedSchema: { type: 'object', properties: { age: { type: 'integer', minimum: 'ten' } } } }); } catch (e) { error = e; }
window.bundled = {
  defined: customElements.get('koder-mcp-elicitation') !== undefined,
  valid: validateContent({ type: 'object', properties: { age: { type: 'integer' } } }, { age: 1.5 }),
  error: { isElicitationError: error instanceof ElicitationError, name: error?.name, code: error?.code, message: error?.message },
};
`);
  const outdir = join(app, 'out');
  await esbuild.build({
    absWorkingDir: app,
    entryPoints: ['src/define-only.js', 'src/named.js'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir,
    logLevel: 'error',
  });
  // esbuild leaves `new URL("./elicitation_core_bg.wasm", import.meta.url)` as is: the wasm goes
  // beside the bundle (the README says so).
  await cp(join(installed, 'dist', 'elicitation_core_bg.wasm'), join(outdir, 'elicitation_core_bg.wasm'));
  for (const name of ['define-only', 'named']) {
    const bundle = await readFile(join(outdir, `${name}.js`), 'utf8');
    assert.doesNotMatch(bundle, /from\s*["']koder-mcp-elicitation/, 'the package was bundled, not left external');
    await writeFile(join(app, `${name}.html`), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${name}</title>
<script type="module" src="/out/${name}.js"></script>
</head><body><koder-mcp-elicitation server-name="Weather server"></koder-mcp-elicitation></body></html>`);
  }

  const page = await openPage(browser, `${server.url}/define-only.html`);
  await whenDefined(page);
  assert.deepEqual(await fillAndSubmit(page), { action: 'accept', content: { city: 'Porto' } });
  page.assertNoErrors();
  await page.close();

  const named = await openPage(browser, `${server.url}/named.html`);
  await named.waitForFunction(() => window.bundled !== undefined);
  const { defined, valid, error } = await named.evaluate(() => window.bundled);
  assert.equal(defined, true);
  assert.equal(valid.valid, false);
  assert.equal(valid.errors[0].path, '/age');
  assert.deepEqual(error, {
    isElicitationError: true,
    name: 'ElicitationError',
    code: -32602,
    message: error.message,
  });
  assert.match(error.message, /requestedSchema\.properties\.age\.minimum/);
  named.assertNoErrors();
  await named.close();
});

test('TypeScript: a typed usage file (element, results, events, SDK wiring) passes tsc --noEmit; misuse fails', { timeout: 120_000 }, async () => {
  const ts = join(app, 'ts');
  await mkdir(ts, { recursive: true });
  // The official SDK, from this repository's devDependencies, for the README's wiring.
  await mkdir(join(app, 'node_modules', '@modelcontextprotocol'), { recursive: true });
  await symlink(join(repoRoot, 'node_modules', '@modelcontextprotocol', 'sdk'), join(app, 'node_modules', '@modelcontextprotocol', 'sdk'), 'dir');
  await writeFile(join(ts, 'usage.ts'), `import {
  ready, validateContent, parseRequest, ElicitationError,
  type ElicitResult, type KoderMcpElicitation, type ElicitationCancelDetail, type ElicitRequiredResult,
  type InputRequiredResult, type InputResponses,
} from 'koder-mcp-elicitation';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema, ElicitationCompleteNotificationSchema, UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';

await ready;
const el = document.querySelector('koder-mcp-elicitation');
if (el) {
  const same: KoderMcpElicitation = el;
  const made: KoderMcpElicitation = document.createElement('koder-mcp-elicitation');
  made.serverName = 'Weather server';
  made.strict = true;
  made.presentation = 'inline';
  made.settled = 'summary';
  made.focus();
  made.timeoutMs = 60_000;
  const timeout: string | null = made.timeoutMs;
  const open: boolean = same.open;
  const pending: number = same.pending;
  const controller = new AbortController();
  const result: ElicitResult = await el.elicit(
    { message: 'Weather', requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    { signal: controller.signal, timeoutMs: 60_000, serverName: 'Weather server' },
  );
  if (result.action === 'accept') console.log(result.content?.city);
  await el.elicit({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com', elicitationId: 'e1' } });
  await el.elicit({ type: 'elicitation/request', id: 'e_1', schema: { type: 'object', properties: {} }, title: 'T' });
  await el.elicit('{"message":"x","requestedSchema":{"type":"object","properties":{}}}');
  const done: boolean = el.complete('e1');
  el.cancel();
  el.addEventListener('cancel', (event) => {
    const detail: ElicitationCancelDetail = event.detail;
    const source: 'user' | 'server' | 'workspace' | 'rate-limit' | 'detached' = detail.source;
    console.log(source, detail.result, detail.scope.userId, open, pending, done, timeout);
  });
  el.addEventListener('invalid', (event) => console.log(event.detail.error.code));
  el.addEventListener('reject', (event) => console.log(event.detail.reason));
  document.addEventListener('complete', (event) => console.log(event.detail.elicitationId));
  document.body.addEventListener('accept', (event) => console.log(event.detail.result.content, event.detail.reply));
  document.body.addEventListener('timeout', (event) => console.log(event.detail.result?.action));
  // URL mode: the host may open the URL itself (Open again fires open; Continue's accept is resumed).
  el.addEventListener('open', (event) => {
    const again: string = event.detail.url;
    const nothing: null = event.detail.result;
    if (event.detail.mode === 'url') event.preventDefault();
    console.log(again, nothing);
  });
  el.addEventListener('accept', (event) => {
    const resumed: true | undefined = event.detail.resumed;
    if (resumed) return;
    const url: string | undefined = event.detail.url;
    if (url !== undefined) {
      event.preventDefault();
      console.log(url, event.detail.elicitationId);
    }
  });
  const required: ElicitRequiredResult = await el.elicitRequired(
    { elicitations: [{ mode: 'url', elicitationId: 'r1', url: 'https://example.com/connect', message: 'Connect' }] },
    { signal: controller.signal },
  );
  if (!required.retry) console.log(required.action, required.elicitationId);
  // MCP 2026-07-28: one round's elicitations, answered by key.
  const round: InputRequiredResult = {
    resultType: 'input_required',
    inputRequests: { city: { method: 'elicitation/create', params: { message: 'City?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } } } },
    requestState: 'opaque',
  };
  const responses: InputResponses = await el.elicitInputs(round, { signal: controller.signal });
  console.log(responses.city?.action, round.requestState);

  // The README's SDK wiring.
  const client = new Client({ name: 'my-app', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => el.elicit(request.params, { signal: extra.signal }));
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => { el.complete(n.params.elicitationId); });
  try {
    await client.callTool({ name: 'list_files', arguments: {} });
  } catch (error) {
    if (error instanceof UrlElicitationRequiredError && (await el.elicitRequired(error)).retry) {
      await client.callTool({ name: 'list_files', arguments: {} });
    }
  }
}
const check: { valid: boolean; errors: { path: string; keyword: string; message: string }[] } = validateContent({}, {}, { locale: 'pt-BR' });
try { parseRequest({}); } catch (error) { if (error instanceof ElicitationError) console.log(error.code, check); }
`);
  await writeFile(join(ts, 'misuse.ts'), `import 'koder-mcp-elicitation';
const el = document.querySelector('koder-mcp-elicitation')!;
el.elicit(42);
el.addEventListener('cancel', (event) => { const n: number = event.detail.source; console.log(n); });
const p: boolean = el.pending;
el.complete();
el.elicitRequired();
el.elicitInputs();
`);
  const tsconfig = (files) => JSON.stringify({
    compilerOptions: {
      target: 'es2022', module: 'esnext', moduleResolution: 'bundler', strict: true, noEmit: true,
      lib: ['es2022', 'dom', 'dom.iterable'], types: [], skipLibCheck: true,
    },
    files,
  });
  await writeFile(join(ts, 'tsconfig.json'), tsconfig(['usage.ts']));
  await writeFile(join(ts, 'tsconfig.misuse.json'), tsconfig(['misuse.ts']));
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

  const good = await run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], { cwd: ts }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }),
  );
  assert.equal(good.code, 0, good.out);

  const bad = await run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.misuse.json'], { cwd: ts }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }),
  );
  assert.notEqual(bad.code, 0, 'misuse.ts must not type-check');
  for (const line of [3, 4, 5, 6, 7, 8]) assert.match(bad.out, new RegExp(`misuse\\.ts\\(${line},`), bad.out);
});

test('custom-elements.json lists exactly what the element observes, exposes and renders', { timeout: 60_000 }, async () => {
  const manifest = JSON.parse(await readFile(join(installed, 'custom-elements.json'), 'utf8'));
  assert.equal(manifest.schemaVersion, '2.1.0');
  const [mod] = manifest.modules;
  assert.equal(mod.path, 'dist/koder-mcp-elicitation.js');
  const element = mod.declarations.find((d) => d.customElement);
  assert.equal(element.tagName, 'koder-mcp-elicitation');
  assert.ok(mod.exports.some((e) => e.kind === 'custom-element-definition' && e.name === 'koder-mcp-elicitation'));
  for (const name of ['ready', 'validateContent', 'parseRequest', 'registerTranslation', 'requestNotificationPermission', 'ElicitationError']) {
    assert.ok(mod.exports.some((e) => e.kind === 'js' && e.name === name), `export ${name}`);
  }
  assert.deepEqual(element.events.map((e) => e.name).sort(), ['accept', 'cancel', 'complete', 'invalid', 'open', 'reject', 'timeout']);

  const page = await openPage(browser, `${server.url}/script-tag.html`);
  await whenDefined(page);
  const runtime = await page.evaluate(async () => {
    const el = document.querySelector('koder-mcp-elicitation');
    const Class = customElements.get('koder-mcp-elicitation');
    const proto = Class.prototype;
    const members = {};
    for (const name of ['elicit', 'elicitRequired', 'elicitInputs', 'connectRelay', 'complete', 'cancel', 'open', 'pending', 'serverName', 'lang', 'timeoutMs', 'userId',
      'workspaceId', 'conversationId', 'statusUrl', 'pollIntervalMs', 'rateLimit', 'strict', 'presentation', 'settled', 'notify', 'oneTap']) {
      members[name] = name in proto ? typeof (Object.getOwnPropertyDescriptor(proto, name)?.value ?? 'accessor') : 'missing';
    }
    const parts = new Set();
    const collect = () => {
      for (const node of el.shadowRoot.querySelectorAll('[part]')) for (const p of node.getAttribute('part').split(/\s+/)) parts.add(p);
    };
    const settle = [];
    const track = (promise) => { settle.push(promise); promise.catch(() => {}); };
    // Form mode: fields of every kind, a secret-looking one (warning), a short timeout (countdown).
    track(el.elicit({
      message: 'Everything',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 3 },
          api_token: { type: 'string', title: 'API token' },
          unit: { type: 'string', enum: ['C', 'F'] },
        },
        required: ['name'],
      },
    }, { timeoutMs: 20_000 }));
    el.elicit({ message: 'Queued', requestedSchema: { type: 'object', properties: {} } }).catch(() => {}); // "1 of 2"
    const name = el.shadowRoot.querySelector('[data-field="name"] input');
    name.value = 'x';
    name.dispatchEvent(new Event('input', { bubbles: true }));
    name.dispatchEvent(new Event('blur'));
    name.dispatchEvent(new FocusEvent('focusout', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 300));
    collect();
    el.cancel();
    el.cancel();
    // URL mode, then its waiting state after consent.
    window.open = () => null;
    track(el.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'm1' }));
    await new Promise((r) => setTimeout(r, 100));
    collect();
    el.shadowRoot.querySelector('button[part~=open]').click();
    await new Promise((r) => setTimeout(r, 100));
    collect();
    el.complete('m1');
    // MCP 2026-07-28: a URL already consented to, asked for again, offers Continue instead.
    const round = { mode: 'url', message: 'Sign in', url: 'https://example.com/round' };
    track(el.elicit(round));
    await new Promise((r) => setTimeout(r, 100));
    el.shadowRoot.querySelector('button[part~=open]').click();
    track(el.elicit(round));
    await new Promise((r) => setTimeout(r, 100));
    collect();
    el.shadowRoot.querySelector('button[part~=continue]').click();
    await Promise.allSettled(settle);
    // presentation="inline": the card, then the summary it leaves (a row holding a list).
    el.setAttribute('presentation', 'inline');
    const inline = el.elicit({
      message: 'Inline',
      requestedSchema: { type: 'object', properties: { layers: { type: 'array', items: { enum: ['rain', 'wind'] }, default: ['rain'] } } },
    });
    await new Promise((r) => setTimeout(r, 100));
    collect();
    el.shadowRoot.querySelector('button[part~=accept]').click();
    await inline;
    collect();
    // one-tap: the answers with a scope's button, then a boolean's Remember control.
    el.oneTap = true;
    const tap = el.elicit({ message: 'Tap', requestedSchema: { type: 'object', properties: {} }, _meta: { persist: 'session' } });
    await new Promise((r) => setTimeout(r, 100));
    collect();
    el.shadowRoot.querySelector('button[part~=persist]').click();
    await tap;
    const remember = el.elicit({
      message: 'Remember',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      _meta: { persist: 'always' },
    });
    await new Promise((r) => setTimeout(r, 100));
    collect();
    el.shadowRoot.querySelector('button[part~=reject]').click();
    await remember;
    return { attributes: Class.observedAttributes, members, parts: [...parts].sort() };
  });
  assert.deepEqual(element.attributes.map((a) => a.name).sort(), [...runtime.attributes].sort());
  for (const attribute of element.attributes) {
    assert.ok(element.members.some((m) => m.name === attribute.fieldName && m.attribute === attribute.name), `${attribute.name} has a field`);
  }
  for (const member of element.members) {
    assert.notEqual(runtime.members[member.name] ?? 'missing', 'missing', `${member.name} exists on the element`);
    if (member.kind === 'method') assert.equal(runtime.members[member.name], 'function', member.name);
  }
  assert.deepEqual(element.cssParts.map((p) => p.name).sort(), runtime.parts);
  page.assertNoErrors();
  await page.close();
});
