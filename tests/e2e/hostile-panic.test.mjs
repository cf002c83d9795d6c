// Panic containment (issue #7). The release core is built with panic=abort: on a panic the Rust
// panic hook (src/element.rs `define()`) logs to the console and calls `reportPanic` in the shim
// (src/js/define.js), then the wasm traps with a WebAssembly.RuntimeError thrown out of the call
// that was running. Nothing in the public API can make the core panic (that is the point of the
// fuzzers), and a hidden trigger would be a public backdoor, so this suite proves the two halves
// separately and honestly:
//   1. the built wasm really imports `reportPanic` (the hook is wired into the release artifact);
//   2. the shim, driven by a stand-in core that does exactly what the wasm does on a panic
//      (call reportPanic, then throw RuntimeError "unreachable"), settles every outstanding
//      elicitation as cancel, fires `cancel` with source "error", removes its dialogs so the page
//      is usable, and refuses later calls with a clear ElicitationError (-32603).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchBrowser, openPage, repoRoot, startServer } from './harness.mjs';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>panic containment</title>
<script type="module">
  import { defineElement, ElicitationError } from '/src/js/define.js';
  import * as shim from '/src/js/define.js';
  window.ElicitationError = ElicitationError;
  // A stand-in for the Rust controller: renders a modal dialog per elicitation, and on a request
  // whose message is "boom" behaves like the release wasm on a panic: hook first, then the trap.
  defineElement('kme-panic-probe', (host) => {
    const shadow = host.attachShadow({ mode: 'open' });
    let open = 0;
    return {
      connected() {}, disconnected() {}, attributeChanged() {},
      elicit(text) {
        const request = JSON.parse(text);
        if ((request.params ?? request).message === 'boom') { // a JSON-RPC request, or bare params
          shim.reportPanic('panicked at src/validate.rs:1:1: boom');
          throw new WebAssembly.RuntimeError('unreachable');
        }
        const dialog = document.createElement('dialog');
        dialog.textContent = 'stand-in dialog';
        shadow.append(dialog);
        dialog.showModal();
        open += 1;
        return new Promise(() => {}); // a person never answers
      },
      elicitRequired() { return new Promise(() => {}); }, // the flow never ends on its own
      // elicitInputs(): a bare inputRequests map, every entry an elicitation.
      inputRound(text) { return Object.entries(JSON.parse(text)).map(([key, entry]) => [key, JSON.stringify(entry.params)]); },
      complete() { return true; }, cancel() {}, isOpen() { return open > 0; }, pending() { return open; },
    };
  });
  window.__ready = true;
</script></head>
<body><button id="outside" type="button" onclick="window.__clicked = (window.__clicked || 0) + 1">Outside</button>
<kme-panic-probe user-id="u1"></kme-panic-probe></body></html>`;

let server;
let browser;

before(async () => {
  server = await startServer({
    routes: {
      '/panic.html': (req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(PAGE);
      },
    },
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the release wasm imports reportPanic from the shim (the panic hook is wired)', async () => {
  const wasm = await readFile(join(repoRoot, 'dist', 'elicitation_core_bg.wasm'));
  const imports = WebAssembly.Module.imports(await WebAssembly.compile(wasm));
  assert.ok(
    imports.some((i) => /reportPanic/.test(i.name)),
    `no reportPanic import among ${imports.length} imports`,
  );
});

test('a core panic settles outstanding elicitations as cancel and leaves a usable page', { timeout: 60_000 }, async () => {
  const page = await openPage(browser, `${server.url}/panic.html`);
  await page.waitForFunction(() => window.__ready === true);
  const r = await page.evaluate(async () => {
    const el = document.querySelector('kme-panic-probe');
    const events = [];
    el.addEventListener('cancel', (e) => events.push(e.detail));
    const rpc = (id, message) => ({
      jsonrpc: '2.0', id, method: 'elicitation/create',
      params: { message, requestedSchema: { type: 'object', properties: {} } },
    });
    const first = el.elicit(rpc(1, 'waiting'));
    const openBefore = el.open;
    const second = el.elicit(rpc(2, 'boom')); // the core panics inside this call
    const results = await Promise.all([first, second]);
    await new Promise((resolve) => setTimeout(resolve, 0)); // events are dispatched after the trap
    const later = await el.elicit(rpc(3, 'after')).then(
      (value) => ({ value }),
      (error) => ({ name: error.name, code: error.code, message: error.message, isClass: error instanceof window.ElicitationError }),
    );
    // The page is usable again: no modal dialog is left, a click outside lands.
    const before = window.__clicked || 0;
    const button = document.getElementById('outside');
    const rect = button.getBoundingClientRect();
    const hit = document.elementFromPoint(rect.x + 2, rect.y + 2) === button;
    return {
      openBefore,
      results,
      events,
      later,
      dialogsLeft: el.shadowRoot.querySelectorAll('dialog').length,
      open: el.open,
      pending: el.pending,
      complete: el.complete('x'),
      hit,
      before,
    };
  });
  assert.equal(r.openBefore, true);
  assert.deepEqual(r.results, [{ action: 'cancel' }, { action: 'cancel' }]);
  assert.equal(r.events.length, 2);
  assert.deepEqual(r.events.map((d) => [d.id, d.source, d.error.code, d.mode]), [[1, 'error', -32603, 'form'], [2, 'error', -32603, 'form']]);
  assert.deepEqual(r.events[0].result, { action: 'cancel' });
  assert.deepEqual(r.events[0].reply, { jsonrpc: '2.0', id: 1, result: { action: 'cancel' } });
  assert.equal(r.events[0].scope.userId, 'u1');
  assert.match(r.events[0].error.message, /boom/);
  assert.equal(r.later.name, 'ElicitationError');
  assert.equal(r.later.code, -32603);
  assert.equal(r.later.isClass, true);
  assert.match(r.later.message, /reload the page/);
  assert.equal(r.dialogsLeft, 0);
  assert.equal(r.open, false);
  assert.equal(r.pending, 0);
  assert.equal(r.complete, false);
  assert.equal(r.hit, true, 'a modal dialog still covers the page');
  await page.locator('#outside').click({ timeout: 2000 });
  assert.equal(await page.evaluate(() => window.__clicked), r.before + 1);
  page.assertNoErrors();
  await page.close();
});

test('a core panic answers every entry of an outstanding elicitInputs() round as cancel, and refuses later rounds', { timeout: 60_000 }, async () => {
  const page = await openPage(browser, `${server.url}/panic.html`);
  await page.waitForFunction(() => window.__ready === true);
  const r = await page.evaluate(async () => {
    const el = document.querySelector('kme-panic-probe');
    const entry = (message) => ({ method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties: {} } } });
    const round = el.elicitInputs({ first: entry('waiting'), second: entry('boom'), third: entry('never reached') });
    const responses = await round;
    const later = await el.elicitInputs({ k: entry('after') }).then(
      (value) => ({ value }),
      (failure) => ({ name: failure.name, code: failure.code }),
    );
    return { responses, keys: Object.keys(responses), later, dialogsLeft: el.shadowRoot.querySelectorAll('dialog').length };
  });
  assert.deepEqual(r.responses, { first: { action: 'cancel' }, second: { action: 'cancel' }, third: { action: 'cancel' } });
  assert.deepEqual(r.keys, ['first', 'second', 'third']);
  assert.deepEqual(r.later, { name: 'ElicitationError', code: -32603 });
  assert.equal(r.dialogsLeft, 0);
  page.assertNoErrors();
  await page.close();
});

test('a core panic tells an outstanding elicitRequired() not to retry, and refuses later ones', { timeout: 60_000 }, async () => {
  const page = await openPage(browser, `${server.url}/panic.html`);
  await page.waitForFunction(() => window.__ready === true);
  const r = await page.evaluate(async () => {
    const el = document.querySelector('kme-panic-probe');
    const events = [];
    el.addEventListener('cancel', (e) => events.push(e.detail));
    const error = { jsonrpc: '2.0', id: 4, error: { code: -32042, message: 'm', data: { elicitations: [] } } };
    const flow = el.elicitRequired(error);
    const boom = el.elicit({ jsonrpc: '2.0', id: 5, method: 'elicitation/create', params: { message: 'boom', requestedSchema: { type: 'object', properties: {} } } });
    const results = await Promise.all([flow, boom]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const later = await el.elicitRequired(error).then(
      (value) => ({ value }),
      (failure) => ({ name: failure.name, code: failure.code }),
    );
    return { results, events, later };
  });
  assert.deepEqual(r.results, [{ retry: false, action: 'cancel' }, { action: 'cancel' }]);
  assert.deepEqual(r.events.map((d) => [d.id, d.mode, d.source, d.result, d.reply]), [
    [4, 'url', 'error', null, null], // an error response is never answered
    [5, 'form', 'error', { action: 'cancel' }, { jsonrpc: '2.0', id: 5, result: { action: 'cancel' } }],
  ]);
  assert.deepEqual(r.later, { name: 'ElicitationError', code: -32603 });
  page.assertNoErrors();
  await page.close();
});
