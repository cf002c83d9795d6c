// The multi round-trip (MCP 2026-07-28) tools of the SDK v2 test peer, registered on any
// `McpServer` from `@modelcontextprotocol/server`. Used by tests/peers/mrtr-server.mjs (stdio or
// Streamable HTTP) and by the demo (demo/server.mjs).
//
//   two_forms    one round with TWO form elicitations (keys `identity` and `preferences`); the
//                answers are validated with the server's own zod schemas (`acceptedContent`).
//   url_sign_in  a URL elicitation (key `sign_in`, no elicitationId) repeated with the same URL
//                every round until the person finishes on that page (a POST to the URL), then done.
//
// Every result states what the server received and which protocol revision served the call.
import { randomUUID } from 'node:crypto';
import { acceptedContent, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import * as z from 'zod';

export const identitySchema = z.object({
  name: z.string().min(1).max(64).meta({ title: 'Your name' }),
  email: z.email().meta({ title: 'Email' }),
});

export const preferencesSchema = z.object({
  seats: z.number().int().min(1).max(8).meta({ title: 'Seats', description: 'From 1 to 8' }),
  seating: z.enum(['indoor', 'outdoor']).meta({ title: 'Seating' }),
});

const MAX_FLOWS = 1000;

/** A text result; `isError` when the server refused what it got. */
function text(lines, isError = false) {
  return { content: [{ type: 'text', text: lines.join('\n') }], ...(isError ? { isError: true } : {}) };
}

/** What an `inputResponses` entry said, for the result text: `accept {...}`, `decline`, `cancel` or `missing`. */
function described(responses, key) {
  const view = inputResponse(responses, key);
  if (view.kind !== 'elicit') return view.kind;
  return view.action === 'accept' ? `accept ${JSON.stringify(view.content ?? {})}` : view.action;
}

/**
 * URL sign-in flows, by id. The id travels as `requestState` and in the URL; it only picks a flow
 * (it grants nothing), so this test peer keeps it unsigned.
 */
export function createFlows() {
  const flows = new Map(); // id → { done, rounds }
  return {
    start() {
      const id = randomUUID();
      flows.set(id, { done: false, rounds: 0 });
      if (flows.size > MAX_FLOWS) flows.delete(flows.keys().next().value);
      return id;
    },
    get: (id) => (typeof id === 'string' ? flows.get(id) : undefined),
    /** The out-of-band step: the person finished on the page. False for an unknown flow. */
    finish(id) {
      const flow = flows.get(id);
      if (!flow) return false;
      flow.done = true;
      return true;
    },
  };
}

/**
 * Registers both tools on `mcp`. `visitUrl(flowId)` is the page of a sign-in flow (served by the
 * peer's own HTTP listener); `flows` is shared by every per-request server instance.
 */
export function registerMrtrTools(mcp, { flows, visitUrl }) {
  const revision = () => mcp.server.getNegotiatedProtocolVersion() ?? 'unknown';

  mcp.registerTool('two_forms', {
    title: 'Two forms in one round',
    description: 'Asks two questions at once (an input_required round with two form elicitations), validated with the server\'s zod schemas.',
  }, async (ctx) => {
    const responses = ctx.mcpReq.inputResponses;
    if (responses === undefined) {
      return inputRequired({
        inputRequests: {
          identity: inputRequired.elicit({ message: 'Who is booking the table?', requestedSchema: identitySchema }),
          preferences: inputRequired.elicit({ message: 'How would you like to sit?', requestedSchema: preferencesSchema }),
        },
      });
    }
    const identity = acceptedContent(responses, 'identity', identitySchema);
    const preferences = acceptedContent(responses, 'preferences', preferencesSchema);
    const received = `Received identity: ${described(responses, 'identity')}; preferences: ${described(responses, 'preferences')}.`;
    const served = `Protocol revision: ${revision()}.`;
    if (identity && preferences) {
      return text([
        received,
        `Booked ${preferences.seats} ${preferences.seating} seat(s) for ${identity.name} <${identity.email}>: both answers passed the server's zod schemas.`,
        served,
      ]);
    }
    const accepted = ['identity', 'preferences'].every((key) => {
      const view = inputResponse(responses, key);
      return view.kind === 'elicit' && view.action === 'accept';
    });
    if (accepted) {
      return text([received, 'Not booked: an answer failed the server\'s zod schemas.', served], true);
    }
    return text([received, 'Not booked: the user did not accept both questions.', served]);
  });

  mcp.registerTool('url_sign_in', {
    title: 'Sign in on a page (URL mode, repeated)',
    description: 'Asks to open a sign-in page (URL mode, no elicitationId) every round, with the same URL, until the person finishes there.',
  }, async (ctx) => {
    const state = ctx.mcpReq.requestState();
    const served = `Protocol revision: ${revision()}.`;
    let id = state;
    let flow = flows.get(state);
    if (state === undefined) {
      id = flows.start();
      flow = flows.get(id);
    } else if (!flow) {
      return text([`Unknown sign-in flow ${JSON.stringify(String(state))}: start again.`, served], true);
    } else {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'sign_in');
      const action = view.kind === 'elicit' ? view.action : view.kind;
      if (action !== 'accept') return text([`Received sign_in: ${action}.`, `Not signed in: the user chose ${action}.`, served]);
      if (flow.done) {
        return text([
          'Received sign_in: accept.',
          `Signed in: the person finished on the page after ${flow.rounds} round(s) asking for it.`,
          served,
        ]);
      }
    }
    flow.rounds += 1;
    return inputRequired({
      inputRequests: {
        sign_in: inputRequired.elicitUrl({
          message: 'Sign in to the (fake) Example account on its page, then come back.',
          url: visitUrl(id),
        }),
      },
      requestState: id,
    });
  });
}
