// One small adapter per browser engine, so a test body written once runs in all three:
//
//   const session = await ENGINES.firefox.open(url);
//   await session.call('elicit', request);   // window.smoke.elicit(request) in the page, awaited, JSON back
//   await session.type('Lisbon');            // real key presses into the focused element
//   await session.press('Escape');           // 'Escape', 'Tab' or 'Enter'
//   session.errors                           // console errors the driver saw (none over plain WebDriver)
//   await session.close();
//
// Chromium: Debian's chromium through playwright-core (harness.mjs). Firefox: Debian's firefox-esr
// over WebDriver BiDi with puppeteer-core. WebKit: Debian's WebKitWebDriver + MiniBrowser on an Xvfb
// display, through plain W3C WebDriver REST calls. Nothing is downloaded; scripts/bootstrap.sh
// installs the three.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort, launchBrowser } from './harness.mjs';

export const FIREFOX_PATH = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER || '/usr/bin/WebKitWebDriver';
const MINIBROWSER_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib'];
export const MINIBROWSER = process.env.MINIBROWSER
  || MINIBROWSER_DIRS.map((dir) => `${dir}/webkit2gtk-4.1/MiniBrowser`).find((path) => existsSync(path))
  || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

const pageCall = ([name, args]) => window.smoke[name](...args);

/** Waits until `probe()` is truthy, polling; throws `what` after `ms`. */
async function until(probe, what, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await probe()) return;
    } catch {}
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

async function chromium(url) {
  const browser = await launchBrowser();
  const page = await browser.newPage();
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console.error: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await page.waitForFunction(() => window.smoke);
  return {
    name: 'chromium',
    errors,
    version: browser.version(),
    call: (name, ...args) => page.evaluate(pageCall, [name, args]),
    type: (text) => page.keyboard.type(text),
    press: (key) => page.keyboard.press(key),
    close: () => browser.close(),
  };
}

async function firefox(url) {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    protocolTimeout: 60_000,
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(`console.error: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(url);
    await page.waitForFunction(() => window.smoke);
    return {
      name: 'firefox',
      errors,
      version: await browser.version(),
      call: (name, ...args) => page.evaluate(pageCall, [name, args]),
      type: (text) => page.keyboard.type(text),
      press: (key) => page.keyboard.press(key),
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

/** Starts Xvfb on the first free display (it picks and reports the number itself: -displayfd). */
function startXvfb() {
  return new Promise((ok, ko) => {
    const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    xvfb.stderr.on('data', (d) => (err += d));
    xvfb.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) ok({ process: xvfb, display: `:${out.trim()}` });
    });
    xvfb.once('error', (e) => ko(new Error(`Xvfb: ${e.message}`)));
    xvfb.once('exit', (code) => ko(new Error(`Xvfb exited with ${code}: ${err.trim()}`)));
  });
}

const WEBDRIVER_KEYS = { Escape: '\uE00C', Tab: '\uE004', Enter: '\uE007' };

async function webkit(url) {
  const xvfb = await startXvfb();
  const port = await freePort();
  const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], {
    env: { ...process.env, DISPLAY: xvfb.display },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  let session = null;
  const stop = async () => {
    if (session) await fetch(`${base}/session/${session}`, { method: 'DELETE' }).catch(() => {});
    driver.kill();
    xvfb.process.kill();
  };
  const command = async (method, path, body) => {
    const response = await fetch(`${base}/session/${session}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const { value } = await response.json();
    if (!response.ok) throw new Error(`WebDriver ${path}: ${value?.error}: ${value?.message}`);
    return value;
  };
  try {
    await until(() => fetch(`${base}/status`).then((r) => r.ok), `WebKitWebDriver on port ${port}`);
    const created = await fetch(`${base}/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } } },
      }),
    }).then((r) => r.json());
    session = created.value?.sessionId;
    if (!session) throw new Error(`WebKitWebDriver: no session: ${JSON.stringify(created.value)}`);
    await command('POST', '/timeouts', { script: 30_000, pageLoad: 30_000 });
    await command('POST', '/url', { url });
    await until(() => command('POST', '/execute/sync', { script: 'return Boolean(window.smoke)', args: [] }), 'window.smoke');
    const keys = (values) =>
      command('POST', '/actions', {
        actions: [{
          type: 'key',
          id: 'keyboard',
          actions: values.flatMap((value) => [{ type: 'keyDown', value }, { type: 'keyUp', value }]),
        }],
      });
    const capabilities = created.value.capabilities || {};
    return {
      name: 'webkit',
      errors: [],
      version: `${capabilities.browserName ?? 'MiniBrowser'} ${capabilities.browserVersion ?? ''}`.trim(),
      call: async (name, ...args) => {
        const answer = await command('POST', '/execute/async', {
          script: `const [name, args, done] = arguments;
            window.smoke[name](...args).then((value) => done({ value }), (e) => done({ error: String(e && e.stack || e) }));`,
          args: [name, args],
        });
        if (answer?.error) throw new Error(`page: ${answer.error}`);
        return answer?.value;
      },
      type: (text) => keys([...text]),
      press: (key) => keys([WEBDRIVER_KEYS[key] ?? key]),
      close: stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

export const ENGINES = { chromium, firefox, webkit };
