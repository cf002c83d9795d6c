// Loading (issue: a thin boundary): the entry is one module, so the wasm download starts after a
// single JS request rather than after entry -> glue -> shim; with the README's preload hint it
// starts with the page, and the preloaded response is the one instantiated (fetched once).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer, whenDefined } from './harness.mjs';

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

/** The component files the page asked for, in order. */
const fetched = () => server.requests.filter((path) => path.startsWith('/dist/'));

test('one JS request, then the wasm', { timeout: 60_000 }, async () => {
  server.requests.length = 0;
  const page = await openPage(browser, `${server.url}/tests/e2e/pages/basic.html`);
  await whenDefined(page);
  assert.deepEqual(fetched(), ['/dist/koder-mcp-elicitation.js', '/dist/elicitation_core_bg.wasm']);
  const started = await page.evaluate(() => {
    const entry = performance.getEntriesByType('resource');
    const find = (suffix) => entry.find((e) => e.name.endsWith(suffix));
    return { entryEnd: find('/koder-mcp-elicitation.js').responseEnd, wasmStart: find('.wasm').startTime };
  });
  assert.ok(started.wasmStart >= started.entryEnd, 'the wasm is requested by the entry itself');
  page.assertNoErrors();
  await page.close();
});

test('with the README preload hint, the wasm is fetched once, before the entry has arrived', { timeout: 60_000 }, async () => {
  server.requests.length = 0;
  const page = await openPage(browser, `${server.url}/tests/e2e/pages/preload.html`);
  await whenDefined(page);
  assert.deepEqual([...fetched()].sort(), ['/dist/elicitation_core_bg.wasm', '/dist/koder-mcp-elicitation.js']);
  const started = await page.evaluate(() => {
    const entry = performance.getEntriesByType('resource');
    const find = (suffix) => entry.find((e) => e.name.endsWith(suffix));
    return { entryEnd: find('/koder-mcp-elicitation.js').responseEnd, wasmStart: find('.wasm').startTime };
  });
  assert.ok(started.wasmStart < started.entryEnd, `wasm requested at ${started.wasmStart} ms, entry done at ${started.entryEnd} ms`);
  page.assertNoErrors();
  await page.close();
});
