// Importing costs nothing (CONTRACT §1): the entry defines the element at once and does not wait
// for the wasm. Each test holds the wasm response back and looks at what an app's module could do
// meanwhile (tests/e2e/pages/import.html), then lets the wasm through.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer } from './harness.mjs';

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens the page with every `.wasm` response held until `release()` (`fail`: then refused). */
async function openHeld(scenario = '', { fail = false } = {}) {
  let release;
  const released = new Promise((ok) => { release = ok; });
  const context = await browser.newContext();
  let requested = false;
  await context.route('**/*.wasm', async (route) => {
    requested = true;
    await released;
    await (fail ? route.abort('failed') : route.continue());
  });
  const allow = fail ? [/elicitation_core_bg\.wasm|Failed to fetch|WebAssembly/] : [];
  const page = await openPage(context, `${server.url}/tests/e2e/pages/import.html?scenario=${scenario}`, { waitUntil: 'domcontentloaded', allow });
  return { page, context, release, wasmRequested: () => requested };
}

/** What the page's module recorded, once `ready(app)` holds (or null after a short wait). */
const appState = (page, ready = 'app => app') =>
  page.waitForFunction(`(() => { const app = window.app; return app && (${ready})(app) ? app : null; })()`, null, { timeout: 5_000 })
    .then((handle) => handle.jsonValue(), () => null);

test('a module that imports the package finishes evaluating while the wasm is held back', { timeout: 60_000 }, async () => {
  const { page, context, release, wasmRequested } = await openHeld();
  const app = await appState(page);
  assert.ok(app, "the module's statements after the import never ran while the wasm was held");
  assert.equal(app.evaluated, true);
  assert.equal(app.defined, true, 'customElements.get("koder-mcp-elicitation") right after the import');
  assert.ok(wasmRequested(), 'the wasm download started');
  assert.equal(app.ready, undefined, 'ready waits for the wasm');
  release();
  assert.ok(await appState(page, 'app => app.ready'), 'ready resolves once the wasm is in');
  page.assertNoErrors();
  await context.close();
});

test('a synchronous export before ready throws the "await ready first" ElicitationError, and works after', { timeout: 60_000 }, async () => {
  const { page, context, release } = await openHeld();
  const app = await appState(page);
  assert.ok(app, 'the module never ran while the wasm was held');
  assert.equal(typeof app.syncExport, 'object', `validateContent ${app.syncExport} before the wasm was in`);
  assert.equal(app.syncExport.name, 'ElicitationError');
  assert.equal(app.syncExport.isElicitationError, true);
  assert.equal(app.syncExport.code, -32603);
  assert.match(app.syncExport.message, /await ready first/);
  release();
  const done = await appState(page, 'app => app.ready');
  assert.equal(done.afterReady, false, 'after ready, validateContent applies the rules');
  page.assertNoErrors();
  await context.close();
});

test('an elicit() made before the wasm arrives shows its dialog once it does, and answering it resolves', { timeout: 60_000 }, async () => {
  const { page, context, release } = await openHeld('elicit');
  const app = await appState(page, 'app => app.before');
  assert.ok(app, 'elicit() could not be called while the wasm was held');
  assert.deepEqual(app.before, { open: false, pending: 1, complete: false });
  const dialog = page.locator('koder-mcp-elicitation [part~=dialog]');
  await page.waitForTimeout(300);
  assert.equal(await dialog.isVisible(), false, 'no dialog without the wasm');

  release();
  await dialog.waitFor({ state: 'visible', timeout: 15_000 });
  // The attribute set after the call, before the wasm, is the one the dialog shows.
  assert.equal(await page.locator('koder-mcp-elicitation [part~=server]').textContent(), 'From Late Server');
  assert.equal(await page.locator('koder-mcp-elicitation [part~=message]').textContent(), 'Weather lookup needs your input');
  await page.locator('koder-mcp-elicitation [data-field="city"] input').fill('Lisbon');
  await page.locator('koder-mcp-elicitation button[part~=accept]').click();
  const outcome = await page.evaluate(() => window.app.early);
  assert.deepEqual(outcome, { result: { action: 'accept', content: { city: 'Lisbon' } } });
  assert.equal(await dialog.isVisible(), false);
  page.assertNoErrors();
  await context.close();
});

test('cancel() before the wasm withdraws the first waiting call at once; the next shows when the wasm is in', { timeout: 60_000 }, async () => {
  const { page, context, release } = await openHeld('cancel');
  const app = await appState(page, 'app => app.before');
  assert.ok(app, 'the calls could not be made while the wasm was held');
  assert.deepEqual(app.before, { pending: 1 });
  const first = await page.evaluate(() => window.app.first);
  assert.equal(first.error?.name, 'AbortError', 'the first call rejects before the wasm is in');
  assert.equal(first.error?.code, 20); // DOMException.ABORT_ERR

  release();
  const dialog = page.locator('koder-mcp-elicitation [part~=dialog]');
  await dialog.waitFor({ state: 'visible', timeout: 15_000 });
  assert.equal(await page.locator('koder-mcp-elicitation [part~=message]').textContent(), 'The second one');
  await page.locator('koder-mcp-elicitation button[part~=cancel]').click();
  assert.deepEqual(await page.evaluate(() => window.app.second), { result: { action: 'cancel' } });
  page.assertNoErrors();
  await context.close();
});

test('when the wasm cannot load, ready rejects and a waiting elicit() rejects with ElicitationError -32603', { timeout: 60_000 }, async () => {
  const { page, context, release } = await openHeld('unavailable', { fail: true });
  assert.ok(await appState(page), 'the module never ran while the wasm was held');
  release();
  const app = await appState(page, 'app => app.readyFailed');
  assert.ok(app, 'ready did not reject');
  const waiting = await page.evaluate(() => window.app.waiting);
  assert.equal(waiting.error?.name, 'ElicitationError');
  assert.equal(waiting.error?.code, -32603);
  assert.match(waiting.error.message, /did not load/);
  await context.close();
});
