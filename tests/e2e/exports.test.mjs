// The distributable's module exports (CONTRACT §1): `ready`, `validateContent`, `parseRequest`,
// `ElicitationError`; importing twice is harmless; what the form accepts, validateContent accepts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer, whenDefined } from './harness.mjs';

let server;
let browser;
let page;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  page = await openPage(browser, `${server.url}/tests/e2e/pages/basic.html`);
  await whenDefined(page);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const WEATHER = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    temperature_unit: { type: 'string', enum: ['C', 'F'] },
  },
  required: ['city'],
};

test('a second import is harmless and ready resolves', async () => {
  const result = await page.evaluate(async () => {
    const first = await import('/dist/koder-mcp-elicitation.js');
    const again = await import('/dist/koder-mcp-elicitation.js?second-copy');
    await first.ready;
    await again.ready;
    return {
      defined: typeof customElements.get('koder-mcp-elicitation'),
      sameClass: customElements.get('koder-mcp-elicitation') === document.querySelector('koder-mcp-elicitation').constructor,
      readyIsPromise: first.ready instanceof Promise,
    };
  });
  assert.deepEqual(result, { defined: 'function', sameClass: true, readyIsPromise: true });
  page.assertNoErrors();
});

test('validateContent applies the same rules, with localized messages', async () => {
  const result = await page.evaluate(async (schema) => {
    const { validateContent } = await import('/dist/koder-mcp-elicitation.js');
    return {
      valid: validateContent(schema, { city: 'Lisbon', temperature_unit: 'C' }),
      invalid: validateContent(schema, { city: 'L', temperature_unit: 'K' }),
      missing: validateContent(schema, {}, { locale: 'pt-BR' }),
      scalar: validateContent({ type: 'integer', maximum: 3 }, 4),
    };
  }, WEATHER);
  assert.deepEqual(result.valid, { valid: true, errors: [] });
  assert.deepEqual(result.invalid, {
    valid: false,
    errors: [
      { path: '/city', keyword: 'minLength', message: 'Enter at least 2 characters' },
      { path: '/temperature_unit', keyword: 'enum', message: 'Choose one of the listed options' },
    ],
  });
  // The property's name is the server's: isolated (FSI … PDI) in the message.
  assert.deepEqual(result.missing.errors, [{ path: '', keyword: 'required', message: '\u2068city\u2069 é obrigatório' }]);
  assert.deepEqual(result.scalar.errors, [{ path: '', keyword: 'maximum', message: 'Must be at most 3' }]);
});

test('a malformed schema or request throws ElicitationError naming the path', async () => {
  const result = await page.evaluate(async () => {
    const { validateContent, parseRequest, ElicitationError } = await import('/dist/koder-mcp-elicitation.js');
    const caught = (fn) => {
      try {
        fn();
        return null;
      } catch (error) {
        return { isElicitationError: error instanceof ElicitationError, name: error.name, code: error.code, message: error.message };
      }
    };
    return {
      schema: caught(() => validateContent({ properties: { age: { type: 'integer', minimum: '3' } } }, {})),
      request: caught(() => parseRequest({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: { message: 'x' } })),
    };
  });
  assert.deepEqual(result.schema, {
    isElicitationError: true,
    name: 'ElicitationError',
    code: -32602,
    message: 'requestedSchema.properties.age.minimum must be a number',
  });
  assert.deepEqual(result.request, {
    isElicitationError: true,
    name: 'ElicitationError',
    code: -32602,
    message: 'params.requestedSchema is required',
  });
});

test('parseRequest normalizes every shape', async () => {
  const result = await page.evaluate(async (schema) => {
    const { parseRequest } = await import('/dist/koder-mcp-elicitation.js');
    return {
      rpc: parseRequest({ jsonrpc: '2.0', id: 9, method: 'elicitation/create', params: { message: 'Hi', requestedSchema: schema } }),
      envelope: parseRequest(JSON.stringify({ type: 'elicitation/request', id: 'e_1', schema, title: 'T', timeout: 5000 })),
      url: parseRequest({ mode: 'url', message: 'Go', url: 'https://example.com', elicitationId: 'abc' }),
    };
  }, WEATHER);
  assert.equal(result.rpc.protocol, 'jsonrpc');
  assert.equal(result.rpc.id, 9);
  assert.equal(result.rpc.mode, 'form');
  assert.deepEqual(result.rpc.fields.map((f) => [f.name, f.required]), [['city', true], ['temperature_unit', false]]);
  assert.equal(result.envelope.protocol, 'envelope');
  assert.equal(result.envelope.title, 'T');
  assert.equal(result.envelope.timeoutMs, 5000);
  assert.equal(result.url.mode, 'url');
  assert.equal(result.url.elicitationId, 'abc');
  assert.equal(result.url.url, 'https://example.com');
});

test('what the form accepts, validateContent accepts', async () => {
  await page.evaluate((schema) => {
    window.__accepted = document.querySelector('koder-mcp-elicitation').elicit({ message: 'Weather', requestedSchema: schema });
  }, WEATHER);
  const el = page.locator('koder-mcp-elicitation');
  await el.locator('[data-field="city"] input').fill('Lisbon');
  await el.locator('[data-field="temperature_unit"] input[value="F"]').check();
  await el.locator('button[part~=accept]').click();
  const verdict = await page.evaluate(async (schema) => {
    const { validateContent } = await import('/dist/koder-mcp-elicitation.js');
    const result = await window.__accepted;
    return { result, check: validateContent(schema, result.content) };
  }, WEATHER);
  assert.deepEqual(verdict.result, { action: 'accept', content: { city: 'Lisbon', temperature_unit: 'F' } });
  assert.deepEqual(verdict.check, { valid: true, errors: [] });
});
