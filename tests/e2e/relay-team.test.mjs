// `koder-mcp-elicitation/relay` asking a team: the hosts' `audience`, `notify` and `escalate` (each a
// value or a function of the request) and the `answeredBy` they hand back.
//
// First what the host sends and refuses, over a fetch that records each call and answers as the
// relay does (no relay needed to see a body or a TypeError); then end to end: the real relay (the
// binary), a real MCP server on the TypeScript SDK v2 (tests/peers/mrtr-server.mjs over stdio), an
// SDK v2 Client whose elicitation/create handler is `relayElicitationHandler` with an audience, and
// members of a group who answer over the people's API with their JWTs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createRelayElicitation, relayElicitationHandler, relayWebhookOutcome } from 'koder-mcp-elicitation/relay';
import { repoRoot } from './harness.mjs';
import { mintToken, personApi, SERVICE_TOKEN, startRelay } from './relay-harness.mjs';

const QUESTION = { message: 'Deploy to production?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } };
const ANSWERED_BY = { userId: 'u_ana', name: 'Ana Lima' };

/**
 * A fetch that records each call (`calls`: `{ method, path, body }`) and answers as the relay does:
 * a create with an id, a long-poll with `outcome`.
 */
function recordingFetch(outcome = { status: 'settled', result: { action: 'accept', content: { ok: true } }, answeredBy: ANSWERED_BY }) {
  const calls = [];
  const fetchImpl = async (url, init) => {
    const { pathname } = new URL(url);
    calls.push({ method: init.method, path: pathname, body: init.body === undefined ? undefined : JSON.parse(init.body) });
    const answer = init.method === 'POST' ? { id: 'e_1', expiresAt: Date.now() + 60_000 } : outcome;
    return new Response(JSON.stringify(answer), { status: init.method === 'POST' ? 201 : 200, headers: { 'Content-Type': 'application/json' } });
  };
  return { calls, fetch: fetchImpl };
}

const ask = (handler, params = QUESTION) =>
  handler({ method: 'elicitation/create', params }, { mcpReq: { signal: new AbortController().signal } });

describe('what the host sends, and refuses', () => {
  test('a team question: scope names the workspace, audience the team; notify and escalate go as given', async () => {
    const relay = recordingFetch();
    const notify = { email: ['ana@example.com', 'bo@example.com'], language: 'pt-BR', remindAfter: '10m' };
    const escalate = [{ after: '30m', audience: { users: ['u_lead'] }, notify: { email: 'lead@example.com' } }];
    const handler = relayElicitationHandler({
      url: 'http://relay.test/', serviceToken: 'token', fetch: relay.fetch,
      scope: { workspaceId: 'w_1', conversationId: 'c_1' }, audience: { users: ['u_ana'], groups: ['oncall'] }, notify, escalate,
    });
    await ask(handler);
    assert.deepEqual(relay.calls[0], {
      method: 'POST',
      path: '/v1/elicitations',
      body: {
        scope: { workspaceId: 'w_1', conversationId: 'c_1' },
        audience: { users: ['u_ana'], groups: ['oncall'] },
        request: QUESTION,
        notify,
        escalate,
      },
    });
  });

  test('functions of the request are called with the request and the context, and what they return is sent', async () => {
    const relay = recordingFetch();
    const seen = [];
    const remember = (name, value) => (request, ctx) => {
      seen.push({ name, request, ctx });
      return value;
    };
    const handler = relayElicitationHandler({
      url: 'http://relay.test', serviceToken: 'token', fetch: relay.fetch,
      scope: remember('scope', { workspaceId: 'w_1' }),
      audience: remember('audience', Promise.resolve({ groups: ['finance'] })),
      notify: remember('notify', { email: 'finance@example.com' }),
      escalate: remember('escalate', [{ after: '1h', audience: { groups: ['cfo'] } }]),
    });
    const request = { method: 'elicitation/create', params: QUESTION };
    const ctx = { mcpReq: { signal: new AbortController().signal } };
    await handler(request, ctx);
    assert.deepEqual(seen.map(({ name }) => name), ['scope', 'audience', 'notify', 'escalate']);
    for (const call of seen) {
      assert.equal(call.request, request, `${call.name} got the request`);
      assert.equal(call.ctx, ctx, `${call.name} got the context`);
    }
    const { body } = relay.calls[0];
    assert.deepEqual(body.scope, { workspaceId: 'w_1' });
    assert.deepEqual(body.audience, { groups: ['finance'] });
    assert.deepEqual(body.notify, { email: 'finance@example.com' });
    assert.deepEqual(body.escalate, [{ after: '1h', audience: { groups: ['cfo'] } }]);
  });

  test('an audience function returning undefined asks scope.userId, as before', async () => {
    const relay = recordingFetch();
    const handler = relayElicitationHandler({
      url: 'http://relay.test', serviceToken: 'token', fetch: relay.fetch,
      scope: { userId: 'u_1', workspaceId: 'w_1' }, audience: () => undefined, notify: () => undefined,
    });
    await ask(handler);
    assert.deepEqual(relay.calls[0].body, { scope: { userId: 'u_1', workspaceId: 'w_1' }, request: QUESTION });
  });

  test('the result is the answer, with who gave it in a non-enumerable answeredBy the server never gets', async () => {
    const handler = relayElicitationHandler({ url: 'http://relay.test', serviceToken: 'token', fetch: recordingFetch().fetch, scope: { workspaceId: 'w_1' }, audience: { groups: ['oncall'] } });
    const result = await ask(handler);
    assert.deepEqual(result, { action: 'accept', content: { ok: true } });
    assert.deepEqual(result.answeredBy, ANSWERED_BY);
    assert.equal(JSON.stringify(result), '{"action":"accept","content":{"ok":true}}');

    const expired = recordingFetch({ status: 'expired', result: { action: 'cancel' } });
    const timedOut = await ask(relayElicitationHandler({ url: 'http://relay.test', serviceToken: 'token', fetch: expired.fetch, scope: { userId: 'u_1', workspaceId: 'w_1' } }));
    assert.deepEqual(timedOut, { action: 'cancel' });
    assert.equal(timedOut.answeredBy, undefined);
  });

  test('inputResponses hands back each answer with its answeredBy', async () => {
    const handler = relayElicitationHandler({ url: 'http://relay.test', serviceToken: 'token', fetch: recordingFetch().fetch, scope: { workspaceId: 'w_1' }, audience: { users: ['u_ana'] } });
    const { approval } = await handler.inputResponses({ approval: { method: 'elicitation/create', params: QUESTION } });
    assert.deepEqual(approval.answeredBy, ANSWERED_BY);
  });

  test('a wrong audience, notify or escalate, or both or neither of userId and audience, is a TypeError naming it; nothing is sent', async () => {
    const base = { url: 'http://relay.test', serviceToken: 'token', scope: { workspaceId: 'w_1' }, audience: { groups: ['oncall'] } };
    const refusals = [
      [{ scope: { userId: 'u_1', workspaceId: 'w_1' } }, /name one person \(`scope\.userId`\) or a team \(`audience`\), not both/],
      [{ audience: undefined }, /name one person \(`scope\.userId`\) or a team \(`audience`\), neither was given/],
      [{ audience: { users: [], groups: [] } }, /`audience` must be \{ users\?, groups\? \}/],
      [{ audience: { groups: 'oncall' } }, /`audience` must be/],
      [{ audience: { users: [''] } }, /`audience` must be/],
      [{ notify: { email: ['ana@example.com', ''] } }, /`notify` must be \{ email, language\?, remindAfter\? \}/],
      [{ notify: { language: 'pt-BR' } }, /`notify` must be/],
      [{ notify: { remindAfter: '10m' } }, /`notify` must be/],
      [{ escalate: { after: '1h', audience: { users: ['u_lead'] } } }, /`escalate` must be \[\{ after, audience, notify\? \}, …\]/],
      [{ escalate: [{ audience: { users: ['u_lead'] } }] }, /`escalate` must be/],
      [{ escalate: [{ after: '1h', notify: { email: 'lead@example.com' } }] }, /`escalate` must be/],
      [{ scope: { userId: '', workspaceId: 'w_1' } }, /`scope` must be \{ workspaceId, userId\?, conversationId\? \}/],
    ];
    for (const [change, message] of refusals) {
      assert.throws(() => relayElicitationHandler({ ...base, ...change }), { name: 'TypeError', message }, JSON.stringify(change));
      await assert.rejects(createRelayElicitation({ ...base, request: QUESTION, ...change }), { name: 'TypeError', message }, JSON.stringify(change));
    }
  });

  test('a function returning something the relay does not take rejects with a TypeError before the create', async () => {
    const relay = recordingFetch();
    const base = { url: 'http://relay.test', serviceToken: 'token', fetch: relay.fetch, scope: { workspaceId: 'w_1' }, audience: { groups: ['oncall'] } };
    const refusals = [
      [{ audience: () => ({ groups: [] }) }, /the `audience` function must return \{ users\?, groups\? \}.* or undefined/],
      [{ audience: () => undefined }, /neither was given/],
      [{ scope: () => ({ userId: 'u_1', workspaceId: 'w_1' }) }, /not both/],
      [{ notify: async () => ({ email: 42 }) }, /the `notify` function must return/],
      [{ escalate: () => [{ after: '' }] }, /the `escalate` function must return/],
    ];
    for (const [change, message] of refusals) {
      await assert.rejects(ask(relayElicitationHandler({ ...base, ...change })), { name: 'TypeError', message }, JSON.stringify(change));
    }
    assert.deepEqual(relay.calls, [], 'nothing was sent');
  });

  test('createRelayElicitation calls its functions with the request; relayWebhookOutcome carries answeredBy', async () => {
    const relay = recordingFetch();
    const seen = [];
    await createRelayElicitation({
      url: 'http://relay.test', serviceToken: 'token', fetch: relay.fetch, request: QUESTION,
      scope: { workspaceId: 'w_1' },
      audience: (request) => {
        seen.push(request);
        return { users: ['u_ana'] };
      },
      escalate: [{ after: '5m', audience: { groups: ['leads'] }, notify: { email: ['lead@example.com'] } }],
    });
    assert.deepEqual(seen, [QUESTION]);
    assert.deepEqual(relay.calls[0].body, {
      scope: { workspaceId: 'w_1' },
      audience: { users: ['u_ana'] },
      request: QUESTION,
      escalate: [{ after: '5m', audience: { groups: ['leads'] }, notify: { email: ['lead@example.com'] } }],
    });

    const data = { id: 'e_1', status: 'settled', result: { action: 'accept', content: { ok: true } }, scope: { workspaceId: 'w_1', conversationId: '' } };
    assert.deepEqual(relayWebhookOutcome({ type: 'elicitation.settled', timestamp: '', data: { ...data, answeredBy: { link: 'l_1', email: 'ana@example.com' } } }),
      { ...data, answeredBy: { link: 'l_1', email: 'ana@example.com' } });
    assert.deepEqual(relayWebhookOutcome({ type: 'elicitation.settled', timestamp: '', data }), data);
  });
});

describe('end to end: a question to a group, through the real relay and a real MCP server', () => {
  const SERVER = path.join(repoRoot, 'tests', 'peers', 'mrtr-server.mjs');
  const IDENTITY = 'Who is booking the table?';
  const WORKSPACE = 'w_team';
  let relay;

  before(async () => {
    relay = await startRelay();
  });

  after(async () => {
    await relay?.stop();
  });

  /** Someone with a token of the workspace (`groups`, `name` claims as given), answering over the people's API. */
  const member = (sub, claims = {}) =>
    personApi(relay.url, mintToken({ sub, workspace: WORKSPACE, exp: Math.floor(Date.now() / 1000) + 600, ...claims }));

  /** The member's pending question other than those in `seen`, once there is one. */
  async function nextQuestion(someone, seen, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const fresh = (await someone.pending()).find((view) => !seen.includes(view.id));
      if (fresh) return fresh;
      if (Date.now() > deadline) throw new Error(`no new question (seen ${JSON.stringify(seen)})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** An SDK v2 client on the peer whose elicitation/create handler asks through the relay; `results` collects what the handler returned. */
  async function hostClient(mode, options) {
    const client = new Client(
      { name: 'koder-relay-team-test', version: '0.1.0' },
      { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode } },
    );
    const handler = relayElicitationHandler({ url: relay.url, serviceToken: SERVICE_TOKEN, serverName: 'MRTR test peer', ...options });
    client.results = [];
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const result = await handler(request, ctx);
      client.results.push(result);
      return result;
    });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' }));
    return client;
  }

  const toolText = (result) => result.content.map((block) => block.text).join('\n');
  const contentFor = (view) => (view.request.message === IDENTITY ? { name: 'Ada Lovelace', email: 'ada@example.com' } : { seats: 3, seating: 'outdoor' });

  for (const [mode, revision] of [['legacy', '2025-11-25'], ['auto', '2026-07-28']]) {
    test(`${revision}: members of the group answer, the server gets their content, the host gets answeredBy`, { timeout: 60_000 }, async () => {
      const group = `oncall_${mode}`;
      const ana = member(`u_ana_${mode}`, { groups: [group], name: 'Ana Lima' });
      const bo = member(`u_bo_${mode}`, { groups: [group, 'finance'], name: 'Bo Chen' });
      const outsider = member(`u_out_${mode}`, { groups: ['finance'], name: 'Out Sider' });
      const client = await hostClient(mode, { scope: { workspaceId: WORKSPACE }, audience: { groups: [group] } });
      try {
        const call = client.callTool({ name: 'two_forms', arguments: {} });
        // Ana answers the first question, Bo the second; each was shown to both.
        const first = await nextQuestion(ana, []);
        assert.ok((await bo.pending()).some((view) => view.id === first.id), 'Bo sees the question too');
        assert.deepEqual(await outsider.pending(), [], 'someone outside the group sees nothing');
        assert.equal((await ana.answer(first.id, { action: 'accept', content: contentFor(first) })).status, 200);
        assert.equal((await bo.answer(first.id, { action: 'accept', content: contentFor(first) })).status, 409, 'the first answer settled it');
        const second = await nextQuestion(bo, [first.id]);
        assert.equal((await bo.answer(second.id, { action: 'accept', content: contentFor(second) })).status, 200);

        assert.equal(toolText(await call),
          'Received identity: accept {"name":"Ada Lovelace","email":"ada@example.com"}; preferences: accept {"seats":3,"seating":"outdoor"}.\n'
          + 'Booked 3 outdoor seat(s) for Ada Lovelace <ada@example.com>: both answers passed the server\'s zod schemas.\n'
          + `Protocol revision: ${revision}.`);
        const answeredBy = Object.fromEntries(client.results.map((result) => [result.content.name ?? 'preferences', result.answeredBy]));
        // On 2026-07-28 both questions come in one round, so either may reach Ana first.
        const keyOf = (view) => (view.request.message === IDENTITY ? 'Ada Lovelace' : 'preferences');
        assert.deepEqual(answeredBy, {
          [keyOf(first)]: { userId: `u_ana_${mode}`, name: 'Ana Lima' },
          [keyOf(second)]: { userId: `u_bo_${mode}`, name: 'Bo Chen' },
        });
        for (const result of client.results) assert.ok(!JSON.stringify(result).includes('answeredBy'), 'the server never gets answeredBy');
      } finally {
        await client.close();
      }
    });
  }

  test('a function-valued audience is called with each request and decides who is asked', { timeout: 60_000 }, async () => {
    const cy = member('u_cy', { name: 'Cy Diaz' });
    const seen = [];
    const client = await hostClient('legacy', {
      scope: { workspaceId: WORKSPACE },
      audience: (request, ctx) => {
        seen.push({ request, signal: ctx?.mcpReq?.signal instanceof AbortSignal });
        return { users: ['u_cy'] };
      },
    });
    try {
      const call = client.callTool({ name: 'two_forms', arguments: {} });
      const answered = [];
      while (answered.length < 2) {
        const view = await nextQuestion(cy, answered);
        answered.push(view.id);
        assert.equal((await cy.answer(view.id, { action: 'accept', content: contentFor(view) })).status, 200);
      }
      assert.match(toolText(await call), /^Received identity: accept .*preferences: accept/);
      assert.deepEqual(seen.map(({ request, signal }) => [request.method, request.params.message, signal]), [
        ['elicitation/create', IDENTITY, true],
        ['elicitation/create', 'How would you like to sit?', true],
      ]);
      assert.deepEqual(client.results.map((result) => result.answeredBy), [{ userId: 'u_cy', name: 'Cy Diaz' }, { userId: 'u_cy', name: 'Cy Diaz' }]);
    } finally {
      await client.close();
    }
  });
});
