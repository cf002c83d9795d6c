// The demo's server-side MCP host: an SDK v2 Client in this Node process (as an agent backend
// would run it), connected to the demo's own MCP server at /mcp. It has no screen: its
// elicitation handler posts each elicitation/create to the relay for the person of the page's
// transcript (src/relay/host.js) and waits for their answer, which the page gives in an inline
// element it appends to that conversation (connectRelay with place, demo/client.mjs).
//
//   server-side host (here) → relay → inline question in the transcript → the answer → the tool

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { relayElicitationHandler } from '../src/relay/host.js';

/** Who answers: the page's person, in its one transcript. */
export const DEMO_SCOPE = Object.freeze({ userId: 'demo-user', workspaceId: 'demo', conversationId: 'demo-chat' });
/**
 * Who answers "E-mail me a link": someone the page is not signed in as, so the question reaches them
 * only by the e-mailed link to the relay's answer page.
 */
export const DEMO_MAIL_SCOPE = Object.freeze({ userId: 'demo-mail-reader', workspaceId: 'demo' });

const CALL_TIMEOUT_MS = 15 * 60 * 1000; // a person answers: far above the SDK's 60 s default
const ELICIT_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Connects the host to `mcpUrl` with its elicitations going through `relay` (`{ url,
 * serviceToken }`) to `scope`, e-mailed as `notify` says when given. Resolves `{ callTool(name),
 * close() }`; a call resolves with the tool's result.
 */
export async function startServerSideHost({ mcpUrl, relay, scope = DEMO_SCOPE, notify }) {
  const client = new Client(
    { name: 'koder-demo-server-side-host', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: 'auto' } },
  );
  const handler = relayElicitationHandler({
    url: relay.url,
    serviceToken: relay.serviceToken,
    scope,
    serverName: 'Demo server (via the relay)',
    timeoutMs: ELICIT_TIMEOUT_MS,
    notify,
  });
  client.setRequestHandler('elicitation/create', handler);
  client.setNotificationHandler('notifications/elicitation/complete', (n) => handler.complete(n.params.elicitationId));
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return {
    callTool: (name) => client.callTool({ name, arguments: {} }, { timeout: CALL_TIMEOUT_MS }),
    close: () => client.close(),
  };
}
