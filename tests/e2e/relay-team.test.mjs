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
import { mintToken, SERVICE_TOKEN, startRelay } from './relay-harness.mjs';

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
      [{ notify: { email: ['ana@example.com', ''] } }, /`notify` must be \{ email\?, language\?, remindAfter\? \}/],
      [{ notify: { language: 'pt-BR' } }, /`notify` must be/],
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
