// Smoke test: the built dist/ loads in Chromium, defines the element, and a form elicitation
// filled and submitted by a user resolves with the MCP ElicitResult (CONTRACT §1, §3, §4).
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

test('basic.html: elicit a required string, fill it, accept', { timeout: 60_000 }, async () => {
  const page = await openPage(browser, `${server.url}/tests/e2e/pages/basic.html`);
  await whenDefined(page);

  // Start the elicitation; keep the promise on window so we can await it after the UI steps.
  await page.evaluate(() => {
    const el = document.querySelector('koder-mcp-elicitation');
    window.__result = el.elicit({
      message: 'Weather',
      requestedSchema: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
    });
    window.__result.catch(() => {}); // awaited below; avoid an unhandled-rejection report meanwhile
  });

  const input = page.locator('koder-mcp-elicitation [data-field="city"] input');
  await input.fill('Lisbon');
  const accept = page.locator('koder-mcp-elicitation button[part~=accept]');
  await accept.click(); // waits until enabled (it is disabled while the required field is empty)

  const result = await page.evaluate(() => window.__result);
  assert.deepEqual(result, { action: 'accept', content: { city: 'Lisbon' } });
  page.assertNoErrors();
  await page.close();
});
