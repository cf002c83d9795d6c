// A question's escalation stage runs once across restarts and replicas (contract §12), with the real
// relay binary: a SQLite relay SIGKILLed before the stage's time and restarted after it sends the
// stage's elicitation.escalated webhook once; two PostgreSQL replicas on one database send each
// stage once between them, not once each.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SERVICE_TOKEN, startPostgres, startRelay, startWebhookReceiver } from './relay-harness.mjs';

const cleanups = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const secret = `whsec_${randomBytes(32).toString('base64')}`;

/** The harness's webhook receiver (checking each delivery's signature), closed after the file's tests. */
async function startReceiver() {
  const receiver = await startWebhookReceiver(secret);
  cleanups.push(receiver.close);
  return receiver;
}

async function launch(receiver, options = {}) {
  const relay = await startRelay({
    ...options,
    args: ['--webhook-url', receiver.url, '--webhook-retry-scale', '0.001'],
    env: { KODER_RELAY_WEBHOOK_SECRET: secret },
  });
  cleanups.push(() => relay.stop());
  return relay;
}

/** A question for Ana that escalates to Bo `after` its create. */
async function createTeamQuestion(relay, after) {
  const response = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      scope: { workspaceId: 'w_team' },
      audience: { users: ['u_ana'] },
      escalate: [{ after, audience: { users: ['u_bo'] } }],
      request: { message: 'Deploy build 42?', requestedSchema: { type: 'object', properties: {} } },
      serverName: 'Schedule test',
      timeoutMs: 600_000,
    }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

async function hostResult(relay, id) {
  const response = await fetch(`${relay.url}/v1/elicitations/${id}/result`, {
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}` },
  });
  assert.equal(response.status, 200);
  return response.json();
}

const escalations = (receiver, id) => receiver.deliveries.filter(({ event }) => event?.type === 'elicitation.escalated' && event.data.id === id);

/** Waits (up to `within` ms) until every id has had an escalated webhook. */
async function waitForEscalations(receiver, ids, within) {
  const deadline = Date.now() + within;
  while (ids.some((id) => escalations(receiver, id).length === 0)) {
    assert.ok(Date.now() < deadline, 'an escalation was not sent');
    await sleep(100);
  }
}

test('a relay SIGKILLed before an escalation stage and restarted after it sends the stage once', { timeout: 60_000 }, async () => {
  const receiver = await startReceiver();
  const first = await launch(receiver);
  const id = await createTeamQuestion(first, '3s');
  const created = Date.now();
  first.kill('SIGKILL');
  await sleep(created + 4_000 - Date.now());
  assert.deepEqual(escalations(receiver, id), [], 'nothing was sent while the relay was down');

  const second = await launch(receiver, { database: first.database });
  await waitForEscalations(receiver, [id], 10_000);
  // A while longer: still once.
  await sleep(2_500);
  assert.deepEqual(escalations(receiver, id).map(({ event }) => event.data), [{ id, stage: 1 }]);
  assert.equal((await hostResult(second, id)).escalated, 1);
});

test('two PostgreSQL replicas send each escalation stage once between them, not once each', { timeout: 120_000 }, async () => {
  const postgres = await startPostgres();
  cleanups.push(() => postgres.stop());
  const receiver = await startReceiver();
  const a = await launch(receiver, { database: postgres.url });
  const b = await launch(receiver, { database: postgres.url });
  const ids = [];
  for (let index = 0; index < 10; index += 1) ids.push(await createTeamQuestion(index % 2 ? a : b, '2s'));
  await waitForEscalations(receiver, ids, 15_000);
  await sleep(2_500);
  for (const id of ids) {
    assert.deepEqual(escalations(receiver, id).map(({ event }) => event.data), [{ id, stage: 1 }], id);
    assert.equal((await hostResult(a, id)).escalated, 1, id);
  }
});
