// URL mode safety (CONTRACT §5) with real clicks: every request the page makes is intercepted, so the
// test proves nothing reaches the URL's host before consent, and that unsafe URLs cannot be opened.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startServer, whenDefined } from './harness.mjs';

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

/** Opens basic.html with every request recorded; requests to other hosts get an empty page. */
async function recordedPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    if (url.startsWith(server.url)) return route.continue();
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<title>external</title>' });
  });
  await page.goto(`${server.url}/tests/e2e/pages/basic.html`);
  await whenDefined(page);
  return { page, requests };
}

function elicitUrl(page, url) {
  return page.evaluate((url) => {
    const el = document.querySelector('koder-mcp-elicitation');
    window.__result = el.elicit({ mode: 'url', message: 'Sign in to continue', url, elicitationId: 'sign-in-1' });
    window.__result.catch(() => {});
  }, url);
}

test('nothing goes to the URL host before the open button, then it opens with noopener', { timeout: 60_000 }, async () => {
  const { page, requests } = await recordedPage();
  const target = 'https://auth.example.com/authorize?state=abc';
  await elicitUrl(page, target);
  const el = page.locator('koder-mcp-elicitation');
  await el.locator('[part~=url-host]').waitFor();
  assert.equal(await el.locator('[part~=url]').textContent(), target);
  assert.equal(await el.locator('[part~=url-host]').textContent(), 'auth.example.com');
  assert.equal(await el.locator('a').count(), 0, 'the URL is text, never a link');
  await page.waitForTimeout(300);
  assert.deepEqual(requests.filter((url) => url.includes('auth.example.com')), [], 'no request before consent');

  const popup = page.context().waitForEvent('page');
  await el.locator('button[part~=open]').click();
  const opened = await popup;
  await opened.waitForLoadState('domcontentloaded').catch(() => {});
  assert.equal(opened.url(), target);
  assert.equal(await opened.evaluate(() => window.opener), null, 'opened with noopener');
  assert.deepEqual(await page.evaluate(() => window.__result), { action: 'accept' });
  assert.ok(requests.some((url) => url.startsWith('https://auth.example.com/')), 'the page loads only after consent');
  await page.context().close();
});

for (const url of [
  'javascript:alert(document.domain)',
  'data:text/html,<script>alert(1)</script>',
  'http://example.com/login',
  'https://user:pw@example.com/login',
  'http://[::1',
  'vbscript:msgbox(1)',
]) {
  test(`cannot be opened: ${url}`, { timeout: 60_000 }, async () => {
    const { page, requests } = await recordedPage();
    await elicitUrl(page, url);
    const el = page.locator('koder-mcp-elicitation');
    const open = el.locator('button[part~=open]');
    await open.waitFor();
    assert.equal(await open.isDisabled(), true);
    assert.ok((await el.locator('[part~=warning]').count()) > 0, 'the blocked state says why');
    let popups = 0;
    page.context().on('page', () => popups++);
    await open.click({ force: true });
    await page.waitForTimeout(200);
    assert.equal(popups, 0, 'no window opened');
    await el.locator('button[part~=reject]').click();
    assert.deepEqual(await page.evaluate(() => window.__result), { action: 'decline' });
    assert.deepEqual(requests.filter((r) => !r.startsWith(server.url)), [], 'nothing left the page');
    await page.context().close();
  });
}
