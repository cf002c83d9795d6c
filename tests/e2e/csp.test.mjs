// Strict pages (CONTRACT §1): under `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'` (no
// style allowance), and the same plus `require-trusted-types-for 'script'`, the dialog is drawn by
// its own stylesheet and nothing is reported: no `securitypolicyviolation` event, no console error.
// Each page then proves its policy is really enforced, so a header that silently stopped applying
// fails here instead of passing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { STRICT_CSP, STRICT_CSP_TT, launchBrowser, openPage, startServer } from './harness.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const FORM = {
  message: 'Which city?',
  requestedSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', title: 'City' },
      unit: { type: 'string', title: 'Unit', enum: ['C', 'F'] },
      subscribe: { type: 'boolean', title: 'Subscribe' },
    },
    required: ['city'],
  },
};

for (const [label, policy] of [['CSP', STRICT_CSP], ['CSP + Trusted Types', STRICT_CSP_TT]]) {
  test(`${label}: styled, with no violation reported`, { timeout: 60_000 }, async () => {
    const server = await startServer({ headers: { 'Content-Security-Policy': policy } });
    try {
      const page = await openPage(browser, `${server.url}/tests/e2e/pages/strict.html`);
      await page.waitForFunction(() => window.smoke);
      const call = (name, ...args) => page.evaluate(([n, a]) => window.smoke[n](...a), [name, args]);
      await call('ready');

      for (const request of [FORM, { mode: 'url', message: 'Sign in', url: 'https://auth.example.com/', elicitationId: 'u1' }]) {
        const state = await call('elicit', request);
        assert.equal(state.open, true);
        assert.ok(Math.abs(state.width - state.expectedWidth) <= 1, `dialog ${state.width}px wide; the theme gives ${state.expectedWidth}px`);
        assert.equal(state.radius, '12px');
        // A second look at a themed detail inside: the footer's accent button.
        const accent = await page.evaluate(() => {
          const root = document.querySelector('koder-mcp-elicitation').shadowRoot;
          const button = root.querySelector('button[part~=accept], button[part~=open]');
          return getComputedStyle(button).backgroundColor;
        });
        assert.equal(accent, 'rgb(11, 87, 208)', 'the primary button has the theme accent');
        await call('click', 'cancel');
        assert.deepEqual((await call('settle')).result, { action: 'cancel' });
      }
      // Two instances share one parsed sheet.
      const shared = await page.evaluate(() => {
        const second = document.createElement('koder-mcp-elicitation');
        document.body.append(second);
        const [a, b] = document.querySelectorAll('koder-mcp-elicitation');
        const sheets = [a.shadowRoot.adoptedStyleSheets, b.shadowRoot.adoptedStyleSheets];
        second.remove();
        return { counts: sheets.map((s) => s.length), same: sheets[0][0] === sheets[1][0], styleElements: a.shadowRoot.querySelectorAll('style').length };
      });
      assert.deepEqual(shared, { counts: [1, 1], same: true, styleElements: 0 });

      assert.deepEqual(await call('problems'), []);
      page.assertNoErrors();

      // The policy is live: an inline <style> is refused and reported (and so would ours have been).
      const canary = await page.evaluate(async () => {
        const style = document.createElement('style');
        style.textContent = 'body { margin-left: 77px }';
        document.head.append(style);
        await new Promise((ok) => setTimeout(ok, 50));
        const result = { inlineStyleApplied: getComputedStyle(document.body).marginLeft === '77px' };
        try {
          document.createElement('div').innerHTML = '<b>x</b>';
          result.innerHTML = 'allowed';
        } catch (e) {
          result.innerHTML = e.name;
        }
        await new Promise((ok) => setTimeout(ok, 50));
        result.problems = window.__problems.slice();
        return result;
      });
      assert.equal(canary.inlineStyleApplied, false, 'the policy blocks inline style');
      const reported = canary.problems.filter((p) => p.startsWith('CSP violation: ')).map((p) => p.split(' ')[2]);
      if (policy === STRICT_CSP_TT) {
        assert.equal(canary.innerHTML, 'TypeError', 'Trusted Types refuse a string sink');
        assert.deepEqual(reported.sort(), ['require-trusted-types-for', 'style-src-elem']);
      } else {
        assert.equal(canary.innerHTML, 'allowed');
        assert.deepEqual(reported, ['style-src-elem']);
      }
      await page.close();
    } finally {
      await server.close();
    }
  });
}
