// `koder-mcp-elicitation/relay` in an SDK v2 host: a real relay (the binary), a real MCP server on
// the TypeScript SDK v2 (tests/peers/mrtr-server.mjs over stdio, both revisions), an SDK v2 Client
// whose elicitation/create handler is `relayElicitationHandler`, and a person who answers over the
// people's API with their JWT. The tools' own results prove what the server received.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { relayElicitationHandler, RelayError } from 'koder-mcp-elicitation/relay';
import { repoRoot } from './harness.mjs';
import { mintToken, personApi, SERVICE_TOKEN, startRelay } from './relay-harness.mjs';

const SERVER = path.join(repoRoot, 'tests', 'peers', 'mrtr-server.mjs');
const IDENTITY = 'Who is booking the table?';
const PREFERENCES = 'How would you like to sit?';
const SIGN_IN = 'Sign in to the (fake) Example account on its page, then come back.';

let relay;

before(async () => {
  relay = await startRelay();
});

after(async () => {
  await relay?.stop();
});

let people = 0;
/** A fresh person (their own user id, so tests do not see each other's elicitations) and their scope. */
function newPerson() {
  people += 1;
  const scope = { userId: `u_host_${people}`, workspaceId: 'w_host', conversationId: 'c_1' };
  const token = mintToken({ sub: scope.userId, workspace: scope.workspaceId, exp: Math.floor(Date.now() / 1000) + 600 });
  return { scope, ...personApi(relay.url, token) };
}

/** Waits until the person has `count` pending elicitations; returns them. */
async function waitForPending(person, count, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await person.pending();
    if (pending.length >= count) return pending;
    if (Date.now() > deadline) throw new Error(`expected ${count} pending elicitation(s), have ${JSON.stringify(pending)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An SDK v2 client on the peer (`server`, over stdio) asking through the relay; `client.relayHandler` is its handler. */
async function hostClient(mode, handlerOptions, server = SERVER) {
  const client = new Client(
    { name: 'koder-relay-host-test', version: '0.1.0' },
    { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode } },
  );
  client.relayHandler = relayElicitationHandler({
    url: relay.url, serviceToken: SERVICE_TOKEN, serverName: 'MRTR test peer', ...handlerOptions,
  });
  client.setRequestHandler('elicitation/create', client.relayHandler);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [server], stderr: 'ignore' }));
  return client;
}

const toolText = (result) => result.content.map((block) => block.text).join('\n');

for (const [mode, revision] of [['auto', '2026-07-28'], ['legacy', '2025-11-25']]) {
  test(`${revision}: the person answers both forms over HTTP and the tool gets their answers`, { timeout: 60_000 }, async () => {
    const person = newPerson();
    const client = await hostClient(mode, { scope: person.scope });
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), revision);
      const call = client.callTool({ name: 'two_forms', arguments: {} });
      const seen = [];
      // Over 2026-07-28 both questions of the round wait at once; over 2025-11-25 the server asks them in turn.
      while (seen.length < 2) {
        const [shown] = (await waitForPending(person, 1)).filter((view) => !seen.includes(view.id));
        if (!shown) continue;
        seen.push(shown.id);
        assert.equal(shown.serverName, 'MRTR test peer');
        assert.deepEqual(shown.scope, person.scope);
        const content = shown.request.message === IDENTITY ? { name: 'Ada Lovelace', email: 'ada@example.com' } : { seats: 3, seating: 'outdoor' };
        const answered = await person.answer(shown.id, { action: 'accept', content });
        assert.deepEqual(answered, { status: 200, body: { status: 'settled', result: { action: 'accept', content } } });
      }
      assert.equal(toolText(await call),
        'Received identity: accept {"name":"Ada Lovelace","email":"ada@example.com"}; preferences: accept {"seats":3,"seating":"outdoor"}.\n'
        + 'Booked 3 outdoor seat(s) for Ada Lovelace <ada@example.com>: both answers passed the server\'s zod schemas.\n'
        + `Protocol revision: ${revision}.`);
      assert.deepEqual(await person.pending(), [], 'nothing left for the person');
    } finally {
      await client.close();
    }
  });

  test(`${revision}: a URL sign-in: the person consents twice, finishes on the page, and the tool signs in`, { timeout: 60_000 }, async () => {
    const person = newPerson();
    const client = await hostClient(mode, { scope: person.scope });
    try {
      const call = client.callTool({ name: 'url_sign_in', arguments: {} });
      const [first] = await waitForPending(person, 1);
      assert.equal(first.request.mode, 'url');
      assert.equal(first.request.message, SIGN_IN);
      assert.equal((await person.answer(first.id, { action: 'accept' })).status, 200);
      // Round 2 asks for the same page; the person finishes there first, then accepts again.
      const deadline = Date.now() + 20_000;
      let second;
      while (!second) {
        second = (await person.pending()).find((view) => view.id !== first.id);
        if (!second && Date.now() > deadline) throw new Error('no second round');
        if (!second) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(second.request.url, first.request.url);
      assert.equal((await fetch(second.request.url, { method: 'POST' })).status, 204);
      assert.equal((await person.answer(second.id, { action: 'accept' })).status, 200);
      assert.equal(toolText(await call),
        'Received sign_in: accept.\nSigned in: the person finished on the page after 2 round(s) asking for it.\n'
        + `Protocol revision: ${revision}.`);
    } finally {
      await client.close();
    }
  });
}

for (const [mode, revision, asked] of [['auto', '2026-07-28', 2], ['legacy', '2025-11-25', 1]]) {
  test(`${revision}: a call the host aborts withdraws its elicitations: the person gets 410`, { timeout: 60_000 }, async () => {
    const person = newPerson();
    const client = await hostClient(mode, { scope: person.scope });
    try {
      const abort = new AbortController();
      const call = client.callTool({ name: 'two_forms', arguments: {} }, { signal: abort.signal });
      // Over 2026-07-28 the round's two questions wait at once; over 2025-11-25 the first one.
      const shown = await waitForPending(person, asked);
      abort.abort(new Error('the host gave up'));
      await assert.rejects(call);
      // The withdraw follows the abort at once; the person's late answers are refused.
      const deadline = Date.now() + 10_000;
      while ((await person.pending()).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      for (const view of shown) {
        assert.equal(await person.status(view.id), 'withdrawn');
        const late = await person.answer(view.id, { action: 'accept', content: { name: 'Ada', email: 'ada@example.com' } });
        assert.equal(late.status, 410);
        assert.equal(late.body.error.status, 410);
      }
      assert.deepEqual(await person.pending(), []);
    } finally {
      await client.close();
    }
  });
}

const APPROVAL_SERVER = path.join(repoRoot, 'tests', 'peers', 'approval-server.mjs');

/**
 * `client.callTool(params)` with MCP 2026-07-28's rounds run through the relay handler (as the
 * docs show), so each answer reaches the server with its `_meta`; on 2025-11-25 a plain call.
 */
async function callRemembering(client, params) {
  let result = await client.callTool(params, { allowInputRequired: true });
  while (result.resultType === 'input_required') {
    const inputResponses = await client.relayHandler.inputResponses(result.inputRequests ?? {});
    result = await client.callTool({ ...params, inputResponses, requestState: result.requestState }, { allowInputRequired: true });
  }
  return result;
}

for (const [mode, revision] of [['auto', '2026-07-28'], ['legacy', '2025-11-25']]) {
  test(`${revision}: "remember": the person's _meta.persist reaches the server, which then stops asking`, { timeout: 60_000 }, async () => {
    const person = newPerson();
    const client = await hostClient(mode, { scope: person.scope }, APPROVAL_SERVER);
    try {
      const params = { name: 'run_command', arguments: { command: 'cargo test' } };
      const call = callRemembering(client, params);
      const [shown] = await waitForPending(person, 1);
      assert.equal(shown.request.message, 'Run `cargo test`?');
      // The person's view carries the request's _meta: what "remember" is offered from.
      assert.deepEqual(shown.request._meta.persist, ['session', 'always']);
      assert.equal(shown.request._meta.codex_approval_kind, 'exec');
      // The person's page posts the element's result as it is (connectRelay).
      const remembered = { action: 'accept', content: {}, _meta: { persist: 'session' } };
      assert.deepEqual(await person.answer(shown.id, remembered), { status: 200, body: { status: 'settled', result: remembered } });
      assert.equal(toolText(await call), `Ran \`cargo test\`; _meta.persist: session, remembered.\nProtocol revision: ${revision}.`);
      // The server remembered: the next call runs without asking the person.
      assert.equal(toolText(await callRemembering(client, params)),
        `Ran \`cargo test\` without asking: remembered (session).\nProtocol revision: ${revision}.`);
      assert.deepEqual(await person.pending(), []);
    } finally {
      await client.close();
    }
  });

  test(`${revision}: a one-time accept reaches the server with no _meta.persist; a scope not offered is refused`, { timeout: 60_000 }, async () => {
    const person = newPerson();
    const client = await hostClient(mode, { scope: person.scope }, APPROVAL_SERVER);
    try {
      const params = { name: 'run_command', arguments: { command: 'make clean', offer: ['session'] } };
      const call = callRemembering(client, params);
      const [shown] = await waitForPending(person, 1);
      assert.deepEqual(shown.request._meta.persist, ['session']);
      const always = await person.answer(shown.id, { action: 'accept', content: {}, _meta: { persist: 'always' } });
      assert.deepEqual(always, {
        status: 400,
        body: { error: { status: 400, message: '_meta.persist "always" was not offered by the request', jsonrpcCode: -32602 } },
      });
      assert.equal(await person.status(shown.id), 'pending', 'the refused answer settled nothing');
      assert.equal((await person.answer(shown.id, { action: 'accept', content: {} })).status, 200);
      assert.equal(toolText(await call), `Ran \`make clean\` this time only; _meta: null.\nProtocol revision: ${revision}.`);
      // Not remembered: the next call asks again.
      const again = callRemembering(client, params);
      const [next] = (await waitForPending(person, 1)).filter((view) => view.id !== shown.id);
      assert.ok(next, 'asked again');
      assert.equal((await person.answer(next.id, { action: 'decline' })).status, 200);
      assert.equal(toolText(await again), `Not run: the person chose decline.\nProtocol revision: ${revision}.`);
    } finally {
      await client.close();
    }
  });
}

test('inputResponses: a round asks all at once, takes only elicitation/create, and an abort withdraws it', { timeout: 60_000 }, async () => {
  const person = newPerson();
  const handler = relayElicitationHandler({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: person.scope });
  const ask = (message) => ({ method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties: {} } } });
  await assert.rejects(handler.inputResponses({ approval: ask('Proceed?'), roots: { method: 'roots/list' } }), {
    name: 'TypeError',
    message: 'inputResponses: input request "roots" is "roots/list", not an elicitation/create the relay can ask',
  });
  assert.deepEqual(await person.pending(), [], 'nothing was asked');

  const abort = new AbortController();
  const round = handler.inputResponses({ first: ask('First?'), second: ask('Second?') }, { signal: abort.signal });
  const shown = await waitForPending(person, 2);
  abort.abort(new Error('the host gave up'));
  await assert.rejects(round, { message: 'the host gave up' });
  for (const view of shown) {
    const deadline = Date.now() + 10_000;
    while (await person.status(view.id) !== 'withdrawn') {
      if (Date.now() > deadline) throw new Error(`${view.request.message} was not withdrawn`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
});

// A 2025-11-25 server whose `sign_in` tool asks for a URL-mode elicitation and, once accepted,
// reports it complete (`notifications/elicitation/complete`).
const URL_COMPLETION_SERVER = `
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
serveStdio(() => {
  const mcp = new McpServer({ name: 'url-completion-peer', version: '1.0.0' });
  mcp.registerTool('sign_in', { description: 'URL mode with a completion' }, async (ctx) => {
    const elicitationId = 'sign-in-flow-1';
    const result = await ctx.mcpReq.elicitInput({ mode: 'url', message: 'Sign in on the page.', url: 'https://example.com/sign-in', elicitationId });
    if (result.action === 'accept') await mcp.server.createElicitationCompletionNotifier(elicitationId)();
    return { content: [{ type: 'text', text: 'sign_in: ' + result.action }] };
  });
  return mcp;
});
`;

test('2025-11-25: the server\'s URL completion reaches the relay through handler.complete', { timeout: 60_000 }, async () => {
  const person = newPerson();
  const client = new Client({ name: 'koder-relay-host-test', version: '0.1.0' }, { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: 'legacy' } });
  const handler = relayElicitationHandler({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: person.scope });
  client.setRequestHandler('elicitation/create', handler);
  client.setNotificationHandler('notifications/elicitation/complete', (n) => handler.complete(n.params.elicitationId));
  await client.connect(new StdioClientTransport({
    command: process.execPath, args: ['--input-type=module', '--eval', URL_COMPLETION_SERVER], cwd: repoRoot, stderr: 'ignore',
  }));
  try {
    const call = client.callTool({ name: 'sign_in', arguments: {} });
    const [shown] = await waitForPending(person, 1);
    assert.equal(shown.request.elicitationId, 'sign-in-flow-1');
    assert.equal((await person.answer(shown.id, { action: 'accept' })).status, 200);
    assert.equal(toolText(await call), 'sign_in: accept');
    const deadline = Date.now() + 10_000;
    while (await person.status(shown.id) !== 'complete') {
      if (Date.now() > deadline) throw new Error('the completion never reached the relay');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.close();
  }
});

test('nobody answers in time: the relay expires it and the tool gets cancel', { timeout: 60_000 }, async () => {
  const person = newPerson();
  const client = await hostClient('auto', { scope: person.scope, timeoutMs: 1000 });
  try {
    const started = Date.now();
    const result = await client.callTool({ name: 'two_forms', arguments: {} });
    assert.ok(Date.now() - started >= 900, 'the relay waited for the person first');
    assert.equal(toolText(result),
      'Received identity: cancel; preferences: cancel.\nNot booked: the user did not accept both questions.\nProtocol revision: 2026-07-28.');
  } finally {
    await client.close();
  }
});

test('a retried create (its first answer lost) makes one elicitation, not two', { timeout: 60_000 }, async () => {
  const person = newPerson();
  let creates = 0;
  // The first create reaches the relay, but its answer is lost on the way back.
  const losingFetch = async (url, init) => {
    const response = await fetch(url, init);
    if (init?.method === 'POST' && String(url).endsWith('/v1/elicitations') && ++creates === 1) {
      throw new TypeError('fetch failed (connection reset)');
    }
    return response;
  };
  const handler = relayElicitationHandler({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: person.scope, fetch: losingFetch });
  const answer = handler({ method: 'elicitation/create', params: { message: 'Proceed?', requestedSchema: { type: 'object', properties: {} } } }, {
    mcpReq: { signal: new AbortController().signal },
  });
  const pending = await waitForPending(person, 1);
  await new Promise((resolve) => setTimeout(resolve, 500)); // the retry has happened by now
  assert.equal(creates, 2, 'the create was sent twice');
  assert.equal((await person.pending()).length, 1, 'and made one elicitation');
  await person.answer(pending[0].id, { action: 'decline' });
  assert.deepEqual(await answer, { action: 'decline' });
});

test('a relay error rejects with the relay\'s message', { timeout: 60_000 }, async () => {
  const person = newPerson();
  const handler = relayElicitationHandler({ url: relay.url, serviceToken: 'not-the-service-token', scope: person.scope });
  const request = { method: 'elicitation/create', params: { message: 'Proceed?', requestedSchema: { type: 'object', properties: {} } } };
  const refused = await handler(request, { mcpReq: { signal: new AbortController().signal } }).then(() => null, (error) => error);
  assert.ok(refused instanceof RelayError, String(refused));
  assert.equal(refused.status, 401);
  assert.equal(refused.body.error.status, 401);
  assert.match(refused.message, new RegExp(`^koder-elicitation-relay answered 401: ${escapeRegExp(refused.body.error.message)}$`));

  // A request the relay's core refuses carries its message and the JSON-RPC code for the server.
  const good = relayElicitationHandler({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: person.scope });
  const invalid = await good({ method: 'elicitation/create', params: { message: 'No schema' } }, undefined).then(() => null, (error) => error);
  assert.ok(invalid instanceof RelayError, String(invalid));
  assert.equal(invalid.status, 400);
  assert.equal(invalid.code, -32602);
  assert.ok(invalid.message.endsWith(invalid.body.error.message));
  assert.deepEqual(await person.pending(), [], 'nothing was created');
});

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
