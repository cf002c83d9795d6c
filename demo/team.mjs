// "Ask the team" (the demo server's side): a question for a group, not one person. The demo's
// relay reads the group from each member's token (`groups`, its default --jwt-groups-claim), so the
// page's two members, Ana and Bruno, each joined with a token of their own, both see it; the first
// answer settles it, and the relay says who answered (`answeredBy`).

/** The team: both members are in the group TEAM_GROUP of the demo's workspace. */
export const TEAM_GROUP = 'demo-team';
export const TEAM = Object.freeze({
  ana: Object.freeze({ sub: 'demo-ana', name: 'Ana' }),
  bruno: Object.freeze({ sub: 'demo-bruno', name: 'Bruno' }),
});
const TEAM_WORKSPACE = 'demo';
const QUESTION = Object.freeze({
  message: 'Deploy the release to production now?',
  requestedSchema: {
    type: 'object',
    properties: {
      approve: { type: 'boolean', title: 'Approve the deploy', default: true },
      note: { type: 'string', title: 'Note for the release log' },
    },
    required: ['approve'],
  },
});
const TIMEOUT_MS = 10 * 60 * 1000;
/** The host's long-poll: how long one GET …/result waits for the answer, in seconds. */
const WAIT_S = 25;

/** A team member's relay token claims (`member`: a key of TEAM), or null for anyone else. */
export function memberClaims(member) {
  const person = Object.hasOwn(TEAM, member) ? TEAM[member] : null;
  return person && { sub: person.sub, name: person.name, workspace: TEAM_WORKSPACE, groups: [TEAM_GROUP] };
}

/**
 * Asks the team through `relay` (`{ url, serviceToken }`) as a host does, and resolves the host's
 * result once it ended: `{ status, result, answeredBy }`.
 */
export async function askTheTeam(relay) {
  const headers = { Authorization: `Bearer ${relay.serviceToken}`, 'Content-Type': 'application/json' };
  const created = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      scope: { workspaceId: TEAM_WORKSPACE },
      audience: { groups: [TEAM_GROUP] },
      request: QUESTION,
      serverName: 'Release bot (a question for the team)',
      timeoutMs: TIMEOUT_MS,
    }),
  });
  if (created.status !== 201) throw new Error(`the relay refused the question: ${created.status} ${await created.text()}`);
  const { id } = await created.json();
  for (;;) {
    const answer = await fetch(`${relay.url}/v1/elicitations/${encodeURIComponent(id)}/result?wait=${WAIT_S}`, { headers });
    if (!answer.ok) throw new Error(`the relay answered ${answer.status}`);
    const outcome = await answer.json();
    if (outcome.status !== 'pending') return outcome;
  }
}
