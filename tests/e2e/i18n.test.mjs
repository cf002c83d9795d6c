// Language (issue #4, CONTRACT §2, §8): every state rendered in pt-BR shows and announces no
// string of ours that is still its en-US counterpart, and no message id; the locale is chosen
// from `lang`, then the nearest ancestor's `lang`, then navigator.languages.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer, whenDefined } from './harness.mjs';
import {
  ANNOUNCER, EVERY_CONTROL, HOST, PAGE, SECRET, STATES, URL_BLOCKED, URL_DEV, URL_INTERNATIONAL, URL_OK, openA11yPage,
  registerSpanish,
} from './a11y-fixtures.mjs';

/** Words that are spelled the same in English and Portuguese. */
const SAME_IN_BOTH = new Set(['Site']);

/** Text the server sent (titles, messages, option names, URLs): never translated. */
const SERVER_TEXT = [
  'Weather Server',
  JSON.stringify(EVERY_CONTROL),
  JSON.stringify(SECRET),
  ...[URL_OK, URL_BLOCKED, URL_DEV, URL_INTERNATIONAL].flatMap((request) => {
    const parsed = URL.canParse(request.url) ? new URL(request.url) : null;
    return [JSON.stringify(request), parsed?.href ?? '', parsed?.hostname ?? ''];
  }),
].join('\n');

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

/**
 * Everything a user can see or hear in the open dialog, keyed by where it is: visible text,
 * live-region text (visually hidden but announced), accessible names and placeholders, and the
 * options of a closed select.
 */
const strings = (page) =>
  page.evaluate((host) => {
    const root = document.querySelector(host).shadowRoot;
    const dialog = root.querySelector('dialog[open]');
    const path = (element) => {
      const steps = [];
      for (let e = element; e && e !== dialog; e = e.parentElement) {
        steps.unshift(`${e.tagName.toLowerCase()}:${[...e.parentElement.children].indexOf(e)}`);
      }
      return steps.join('/');
    };
    const found = [];
    const walker = document.createTreeWalker(dialog, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      const parent = node.parentElement;
      if (!text) continue;
      const announced = parent.closest('[aria-live], [role=status], [role=alert]');
      const shown = parent.checkVisibility({ visibilityProperty: true }) || parent.closest('select');
      if (!shown && !announced) continue;
      if (parent.closest('[aria-hidden=true]') && !shown) continue;
      found.push({ where: `${path(parent)} text`, text });
    }
    for (const element of dialog.querySelectorAll('[aria-label], [placeholder], [title], [alt], [aria-description]')) {
      for (const name of ['aria-label', 'placeholder', 'title', 'alt', 'aria-description']) {
        const value = element.getAttribute(name)?.trim();
        if (value) found.push({ where: `${path(element)} @${name}`, text: value });
      }
    }
    return found;
  }, HOST);

/** Letters only: "Site: " and "Site" are the same word; "*", "×" and "25s" carry none to translate. */
const words = (text) => text.replace(/[^\p{L}]+/gu, ' ').trim();

// pt-BR ships; es is registered at run time (registerTranslation) and must be just as complete.
for (const [target, state, enter] of Object.entries(STATES).flatMap(([state, enter]) => [['pt-BR', state, enter], ['es', state, enter]])) {
  test(`${target}: ${state} shows no English string of ours and no message id`, { timeout: 60_000 }, async () => {
    const render = async (lang) => {
      const context = await browser.newContext({ locale: lang });
      const page = await openA11yPage(context, server.url, { lang });
      if (lang === 'es') await registerSpanish(page);
      await enter(page);
      const found = await strings(page);
      page.assertNoErrors();
      await context.close();
      return found;
    };
    const english = await render('en-US');
    const portuguese = await render(target);
    assert.ok(portuguese.length >= 5, `${state}: collected ${portuguese.length} strings`);
    assert.deepEqual(
      portuguese.map((s) => s.where),
      english.map((s) => s.where),
      `${state}: both languages render the same structure`,
    );
    const untranslated = portuguese.filter((pt, i) => {
      const en = english[i];
      if (pt.text !== en.text) return false;
      if (SERVER_TEXT.includes(pt.text)) return false;
      const letters = words(pt.text);
      return letters !== '' && !SAME_IN_BOTH.has(letters);
    });
    assert.deepEqual(untranslated, [], `${state}: strings left in English in ${target}`);
    const ids = portuguese.filter((s) => /mcp-elicitation-/.test(s.text));
    assert.deepEqual(ids, [], `${state}: message ids shown`);
  });
}

test('pt-BR: texts with numbers and plurals read naturally', { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ locale: 'pt-BR' });
  const page = await openA11yPage(context, server.url, { lang: 'pt-BR' });
  await STATES['form-errors'](page);
  const error = (field) => page.locator(`${HOST} [data-field="${field}"] [part~=error]`).textContent();
  assert.equal(await error('city'), 'Digite pelo menos 2 caracteres');
  assert.equal(await error('days'), 'Deve ser no máximo 14');
  assert.equal(await error('threshold'), 'Deve ser no mínimo 0,5');
  assert.equal(await error('unit'), 'Obrigatório');
  assert.equal(await error('layers'), 'Obrigatório');
  assert.equal(await error('contact.hours'), 'Digite no máximo 3 caracteres');
  assert.equal(await error('email'), 'Digite um endereço de e-mail válido');
  assert.equal(await page.locator(`${HOST} button[part~=accept]`).textContent(), 'Enviar');
  await context.close();

  const countdown = await browser.newContext({ locale: 'pt-BR' });
  const timed = await openA11yPage(countdown, server.url, { lang: 'pt-BR' });
  await STATES.countdown(timed);
  assert.match(await timed.locator(`${HOST} [part~=countdown]`).textContent(), /^Fechando em 2[0-5]s$/);
  assert.match(
    await timed.locator(`${HOST} ${ANNOUNCER}`).textContent(),
    /^Este pedido fecha em 2[0-5] segundos\.$/,
  );
  await countdown.close();
});

test('locale: lang on the element, else the nearest ancestor lang, else navigator.languages', { timeout: 60_000 }, async () => {
  const accept = async ({ locale, htmlLang, elementLang }) => {
    const context = await browser.newContext({ locale });
    const page = await openPage(context, `${server.url}${PAGE}`);
    await whenDefined(page);
    const text = await page.evaluate(
      async ([htmlLang, elementLang, request]) => {
        if (htmlLang === null) document.documentElement.removeAttribute('lang');
        else document.documentElement.setAttribute('lang', htmlLang);
        const el = document.querySelector('koder-mcp-elicitation');
        if (elementLang) el.setAttribute('lang', elementLang);
        el.elicit(request).catch(() => {});
        const dialog = el.shadowRoot.querySelector('dialog[open]');
        const accept = el.shadowRoot.querySelector('button[part~=accept]').textContent;
        el.cancel();
        return `${accept} ${dialog.getAttribute('lang')}`;
      },
      [htmlLang, elementLang, SECRET],
    );
    await context.close();
    return text;
  };
  assert.equal(await accept({ locale: 'en-US', htmlLang: 'en', elementLang: 'pt-BR' }), 'Enviar pt-BR');
  assert.equal(await accept({ locale: 'en-US', htmlLang: 'pt-BR', elementLang: null }), 'Enviar pt-BR');
  assert.equal(await accept({ locale: 'pt-BR', htmlLang: 'en', elementLang: null }), 'Submit en-US');
  assert.equal(await accept({ locale: 'pt-BR', htmlLang: null, elementLang: null }), 'Enviar pt-BR');
  assert.equal(await accept({ locale: 'fr-FR', htmlLang: 'de', elementLang: null }), 'Submit en-US');
});

test('registerTranslation: an object of id → pattern registers; a malformed one throws naming the message and registers nothing', { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ locale: 'de-DE' });
  const page = await openA11yPage(context, server.url, { lang: 'de' });
  const result = await page.evaluate(async (request) => {
    const { registerTranslation, ElicitationError } = await import('/dist/koder-mcp-elicitation.js');
    const refused = (messages) => {
      try {
        registerTranslation('de', messages);
        return null;
      } catch (error) {
        return { elicitationError: error instanceof ElicitationError, code: error.code, message: error.message };
      }
    };
    const malformed = refused({ 'mcp-elicitation-action-accept': 'Senden', 'mcp-elicitation-action-cancel': 'Abbrechen {' });
    const notMessages = refused(undefined);
    registerTranslation('de', {
      'mcp-elicitation-action-accept': 'Senden',
      'mcp-elicitation-timeout-announce':
        '{ $seconds ->\n [one] Diese Anfrage schließt in { $seconds } Sekunde.\n *[other] Diese Anfrage schließt in { $seconds } Sekunden.\n}',
    });
    const el = document.querySelector('koder-mcp-elicitation');
    el.elicit(request).catch(() => {});
    const text = (part) => el.shadowRoot.querySelector(`button[part~=${part}]`).textContent;
    const shown = { accept: text('accept'), cancel: text('cancel'), lang: el.shadowRoot.querySelector('dialog').lang };
    el.cancel();
    return { malformed, notMessages, shown };
  }, SECRET);
  assert.deepEqual(result.malformed, {
    elicitationError: true,
    code: -32602,
    message: 'the translation for `de` was not registered: message `mcp-elicitation-action-cancel`: expected a `$variable` or a "string" inside `{ }`',
  });
  assert.equal(result.notMessages.elicitationError, true);
  // The object registered; what it lacks falls back to en-US.
  assert.deepEqual(result.shown, { accept: 'Senden', cancel: 'Cancel', lang: 'de' });
  page.assertNoErrors();
  await context.close();
});
