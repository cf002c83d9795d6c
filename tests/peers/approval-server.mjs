#!/usr/bin/env node
// A real MCP server on the TypeScript SDK v2 over stdio whose tool asks for a Codex-style approval
// (MCP 2026-07-28 multi round-trip; the SDK turns it into its own elicitation/create on
// 2025-11-25): `_meta.persist` offers remembering it, `_meta.codex_approval_kind` says what kind.
// An approval whose `_meta.persist` names a scope is remembered for this process (its "session"),
// so the next call runs without asking.
//
//   run_command { command, offer? }   offer: the scopes `_meta.persist` offers (default both)
//
// Its text says what the server received and which revision served the call.
import { McpServer, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

// Commands approved with a remembered scope, for as long as this process lives.
const remembered = new Map(); // command → scope

serveStdio(() => {
  const mcp = new McpServer({ name: 'koder-approval-peer', title: 'Approval test peer', version: '1.0.0' });
  const served = () => `Protocol revision: ${mcp.server.getNegotiatedProtocolVersion() ?? 'unknown'}.`;
  const text = (...lines) => ({ content: [{ type: 'text', text: [...lines, served()].join('\n') }] });
  mcp.registerTool('run_command', {
    description: 'Runs a (pretend) command once the person approves it, or without asking when they chose to remember.',
    inputSchema: z.object({ command: z.string(), offer: z.array(z.enum(['session', 'always'])).optional() }),
  }, async ({ command, offer = ['session', 'always'] }, ctx) => {
    const scope = remembered.get(command);
    if (scope) return text(`Ran \`${command}\` without asking: remembered (${scope}).`);
    const responses = ctx.mcpReq.inputResponses;
    if (responses === undefined) {
      return inputRequired({
        inputRequests: {
          approval: inputRequired.elicit({
            message: `Run \`${command}\`?`,
            requestedSchema: { type: 'object', properties: {} },
            _meta: { persist: offer, codex_approval_kind: 'exec' },
          }),
        },
      });
    }
    const view = inputResponse(responses, 'approval');
    if (view.kind !== 'elicit' || view.action !== 'accept') return text(`Not run: the person chose ${view.action ?? view.kind}.`);
    // inputResponse() gives action and content; the entry as sent carries `_meta`.
    const meta = responses.approval?._meta;
    const persist = meta?.persist;
    if (offer.includes(persist)) {
      remembered.set(command, persist);
      return text(`Ran \`${command}\`; _meta.persist: ${persist}, remembered.`);
    }
    return text(`Ran \`${command}\` this time only; _meta: ${JSON.stringify(meta ?? null)}.`);
  });
  return mcp;
}, { onerror: (error) => console.error(`[approval peer] ${error.message}`) });
