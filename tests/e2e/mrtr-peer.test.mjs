// The SDK v2 MRTR peer (tests/peers/mrtr-server.mjs) from a plain SDK v2 client in Node, over both
// transports and both revisions, so the peer the browser and terminal suites drive is known good on
// its own: over 2026-07-28 the answers come back as inputResponses of a retried call; over 2025-11-25
// the SDK's legacy shim sends each input request as the server's own elicitation/create.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { repoRoot } from './harness.mjs';
import { startMrtrPeer } from '../peers/start.mjs';

const SERVER = path.join(repoRoot, 'tests', 'peers', 'mrtr-server.mjs');

/** A client that answers like a person: both forms filled in; the URL consented to, and finished there on round 2. */
function personClient(mode) {
  const client = new Client(
    { name: 'koder-mrtr-peer-test', version: '0.1.0' },
    { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode } },
  );
  const asked = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    const { params } = request;
    asked.push(params);
    if (params.mode === 'url') {
      if (asked.filter((p) => p.mode === 'url').length === 2) {
        assert.equal((await fetch(params.url, { method: 'POST' })).status, 204);
      }
      return { action: 'accept' };
    }
    if (params.message === 'Who is booking the table?') return { action: 'accept', content: { name: 'Ada', email: 'ada@example.com' } };
    return { action: 'accept', content: { seats: 2, seating: 'outdoor' } };
  });
  return { client, asked };
}

async function bothTools(client, asked, revision) {
  const text = async (name) => (await client.callTool({ name, arguments: {} })).content.map((block) => block.text).join('\n');
  assert.equal(await text('two_forms'),
    'Received identity: accept {"name":"Ada","email":"ada@example.com"}; preferences: accept {"seats":2,"seating":"outdoor"}.\n'
    + 'Booked 2 outdoor seat(s) for Ada <ada@example.com>: both answers passed the server\'s zod schemas.\n'
    + `Protocol revision: ${revision}.`);
  assert.equal(await text('url_sign_in'),
    'Received sign_in: accept.\nSigned in: the person finished on the page after 2 round(s) asking for it.\n'
    + `Protocol revision: ${revision}.`);
  const urls = asked.filter((params) => params.mode === 'url');
  assert.equal(urls.length, 2);
  assert.equal(urls[0].url, urls[1].url, 'the same URL each round');
  return urls;
}

test('Streamable HTTP, auto: 2026-07-28, no elicitationId', { timeout: 60_000 }, async () => {
  const peer = await startMrtrPeer();
  const { client, asked } = personClient('auto');
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(peer.mcpUrl)));
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const urls = await bothTools(client, asked, '2026-07-28');
    assert.deepEqual(urls.map((params) => params.elicitationId), [undefined, undefined]);
    // Bad answers are refused by the server's own zod schemas.
    const refused = new Client({ name: 'bad', version: '0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
    refused.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: '', email: 'not an email', seats: 99, seating: 'roof' } }));
    await refused.connect(new StreamableHTTPClientTransport(new URL(peer.mcpUrl)));
    const result = await refused.callTool({ name: 'two_forms', arguments: {} });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /Not booked: an answer failed the server's zod schemas\./);
    await refused.close();
  } finally {
    await client.close();
    await peer.close();
  }
});

for (const [mode, revision] of [['auto', '2026-07-28'], ['legacy', '2025-11-25']]) {
  test(`stdio, ${mode}: ${revision}`, { timeout: 60_000 }, async () => {
    const { client, asked } = personClient(mode);
    try {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' }));
      assert.equal(client.getNegotiatedProtocolVersion(), revision);
      await bothTools(client, asked, revision);
    } finally {
      await client.close();
    }
  });
}
