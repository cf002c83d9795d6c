// The relay's webhooks over real HTTP: a real relay process POSTs to a real Node receiver, which
// checks every delivery with the `standardwebhooks` package hosts use. Created, settled,
// withdrawn and expired arrive signed; a receiver that refuses three times gets the event once,
// under one webhook-id; and a relay killed between a change and its delivery sends it after a
// restart on the same SQLite file. Two PostgreSQL replicas send each event once between them. The
// host helper's serverless path: create and return, then resume on the verified webhook.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createRelayElicitation, relayWebhookOutcome } from 'koder-mcp-elicitation/relay';
import { mintToken, SERVICE_TOKEN, startPostgres, startRelay, startWebhookReceiver } from './relay-harness.mjs';

const PERSON = { sub: 'u_hook', workspace: 'w_hook' };
const SCOPE = { userId: 'u_hook', workspaceId: 'w_hook', conversationId: 'c_1' };
const FORM = {
  message: 'Which city?',
  requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
// Retries in milliseconds instead of hours: 5 ms, 300 ms, 1.8 s, 7.2 s, …
const FAST_RETRIES = ['--webhook-retry-scale', '0.001'];

const cleanups = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The harness's webhook receiver, closed after the file's tests. */
async function startReceiver(secret, options) {
  const receiver = await startWebhookReceiver(secret, options);
  cleanups.push(receiver.close);
  return receiver;
}

async function launch(receiverUrl, secret, options = {}) {
  const relay = await startRelay({
    ...options,
    args: ['--webhook-url', receiverUrl, ...FAST_RETRIES],
    env: { KODER_RELAY_WEBHOOK_SECRET: secret },
  });
  cleanups.push(() => relay.stop());
  return relay;
}

async function create(relay, { timeoutMs = 600_000 } = {}) {
  const response = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope: SCOPE, request: FORM, serverName: 'Webhook test', timeoutMs }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

async function answer(relay, id, city) {
  const response = await fetch(`${relay.url}/v1/elicitations/${id}/result`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${mintToken(PERSON)}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ action: 'accept', content: { city } }),
  });
  assert.equal(response.ok, true, await response.text());
}

/** Resolves once `check()` is true; fails with `what` after `timeoutMs`. */
async function until(check, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const accepted = (deliveries) => deliveries.filter((delivery) => delivery.status >= 200 && delivery.status < 300);
const ofType = (deliveries, type, id) => accepted(deliveries).filter((delivery) => delivery.event?.type === type && delivery.event.data.id === id);

test('created, settled, withdrawn and expired arrive signed, verified by standardwebhooks, settled with the result', { timeout: 60_000 }, async () => {
  const secret = newSecret();
  const receiver = await startReceiver(secret);
  const relay = await launch(receiver.url, secret);

  const answered = await create(relay);
  await answer(relay, answered, 'Lyon');
  const withdrawn = await create(relay);
  const withdrawal = await fetch(`${relay.url}/v1/elicitations/${withdrawn}`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}` },
  });
  assert.equal(withdrawal.ok, true);
  const expired = await create(relay, { timeoutMs: 1_000 });

  await until(() => ofType(receiver.deliveries, 'elicitation.expired', expired).length === 1, 'the expired event');
  await until(() => accepted(receiver.deliveries).length === 6, 'six events (3 created, settled, withdrawn, expired)');

  for (const delivery of receiver.deliveries) {
    assert.equal(delivery.error, null, `every delivery verifies: ${delivery.error}`);
    assert.equal(delivery.method, 'POST');
    assert.equal(delivery.path, '/hooks/relay');
    assert.equal(delivery.headers['content-type'], 'application/json');
    assert.match(delivery.headers['webhook-id'], /^msg_[0-9a-f]{32}_(created|settled|withdrawn|expired)$/);
    assert.ok(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
    assert.ok(!Number.isNaN(Date.parse(delivery.event.timestamp)), delivery.event.timestamp);
    assert.deepEqual(delivery.event.data.scope, SCOPE);
    assert.equal(delivery.event.data.serverName, 'Webhook test');
  }
  // Another key does not verify them: the check above can fail.
  const first = receiver.deliveries[0];
  assert.throws(() => new Webhook(newSecret()).verify(first.body, first.headers));

  const ids = receiver.deliveries.map((delivery) => delivery.headers['webhook-id']);
  assert.equal(new Set(ids).size, ids.length, 'each event is delivered once');
  for (const id of [answered, withdrawn, expired]) {
    const [created] = ofType(receiver.deliveries, 'elicitation.created', id);
    assert.equal(created.event.data.status, 'pending');
    assert.equal(created.event.data.result, undefined);
  }
  const [settled] = ofType(receiver.deliveries, 'elicitation.settled', answered);
  assert.equal(settled.event.data.status, 'settled');
  assert.deepEqual(settled.event.data.result, { action: 'accept', content: { city: 'Lyon' } });
  const [gone] = ofType(receiver.deliveries, 'elicitation.withdrawn', withdrawn);
  assert.equal(gone.event.data.status, 'withdrawn');
  assert.deepEqual(gone.event.data.result, { action: 'cancel' });
  const [late] = ofType(receiver.deliveries, 'elicitation.expired', expired);
  assert.equal(late.event.data.status, 'expired');
  assert.deepEqual(late.event.data.result, { action: 'cancel' });
});

test('a receiver that refuses three times gets the event once, under the same webhook-id on all four attempts', { timeout: 60_000 }, async () => {
  const secret = newSecret();
  const receiver = await startReceiver(secret, { answer: (delivery, index) => (index < 3 ? 500 : 204) });
  const relay = await launch(receiver.url, secret);
  const id = await create(relay);

  await until(() => receiver.deliveries.length >= 4, 'four attempts');
  // Long enough for a fifth attempt, were one scheduled (the next wait would be 7.2 s × 0.8 at
  // the soonest; the one after a delivery would never come).
  await new Promise((resolve) => setTimeout(resolve, 1_500));

  assert.deepEqual(receiver.deliveries.map((delivery) => delivery.status), [500, 500, 500, 204]);
  assert.deepEqual(new Set(receiver.deliveries.map((delivery) => delivery.headers['webhook-id'])), new Set([`msg_${id}_created`]));
  for (const delivery of receiver.deliveries) {
    assert.equal(delivery.error, null);
    assert.equal(delivery.event.type, 'elicitation.created');
    assert.equal(delivery.event.data.id, id);
  }
  assert.equal(ofType(receiver.deliveries, 'elicitation.created', id).length, 1);
});

test('a receiver that always refuses gets eight attempts, then the relay gives up', { timeout: 60_000 }, async () => {
  const secret = newSecret();
  const receiver = await startReceiver(secret, { answer: () => 503 });
  // The whole 28-hour schedule in about a second.
  const relay = await startRelay({
    args: ['--webhook-url', receiver.url, '--webhook-retry-scale', '0.00001'],
    env: { KODER_RELAY_WEBHOOK_SECRET: secret },
  });
  cleanups.push(() => relay.stop());
  const id = await create(relay);

  await until(() => receiver.deliveries.length >= 8, 'eight attempts');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  assert.equal(receiver.deliveries.length, 8, 'no ninth attempt');
  for (const delivery of receiver.deliveries) {
    assert.equal(delivery.error, null);
    assert.equal(delivery.headers['webhook-id'], `msg_${id}_created`);
  }
});

test('nothing is lost when the relay is killed between a change and its delivery', { timeout: 90_000 }, async () => {
  const secret = newSecret();
  // A port nobody listens on yet: the receiver is down while the changes are made.
  const probe = await startReceiver(secret);
  const port = probe.port;
  await probe.close();
  const receiverUrl = `http://127.0.0.1:${port}/hooks/relay`;

  const dir = mkdtempSync(join(tmpdir(), 'koder-relay-webhooks-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const database = `sqlite://${join(dir, 'relay.db')}`;
  const first = await launch(receiverUrl, secret, { database });
  const id = await create(first);
  await answer(first, id, 'Oslo');
  // Let the worker fail against the closed port once or twice, then kill it outright.
  await new Promise((resolve) => setTimeout(resolve, 200));
  await first.kill('SIGKILL');

  const receiver = await startReceiver(secret, { port });
  await launch(receiverUrl, secret, { database });
  await until(() => accepted(receiver.deliveries).length === 2, 'the created and settled events after the restart', 60_000);

  for (const delivery of receiver.deliveries) assert.equal(delivery.error, null);
  assert.equal(ofType(receiver.deliveries, 'elicitation.created', id).length, 1);
  const [settled] = ofType(receiver.deliveries, 'elicitation.settled', id);
  assert.deepEqual(settled.event.data.result, { action: 'accept', content: { city: 'Oslo' } });
});

test('two PostgreSQL replicas deliver each event once between them, not once each', { timeout: 120_000 }, async () => {
  const postgres = await startPostgres();
  cleanups.push(() => postgres.stop());
  const secret = newSecret();
  const receiver = await startReceiver(secret);
  const a = await launch(receiver.url, secret, { database: postgres.url });
  const b = await launch(receiver.url, secret, { database: postgres.url });

  const ids = [];
  for (let index = 0; index < 30; index += 1) ids.push(await create(index % 2 ? a : b));
  await Promise.all(ids.map((id, index) => answer(index % 2 ? b : a, id, `City ${index}`)));

  await until(() => accepted(receiver.deliveries).length >= 60, 'sixty events', 60_000);
  // Time for a duplicate to show up, were one on its way (both workers poll every second).
  await new Promise((resolve) => setTimeout(resolve, 2_500));

  for (const delivery of receiver.deliveries) assert.equal(delivery.error, null);
  const webhookIds = accepted(receiver.deliveries).map((delivery) => delivery.headers['webhook-id']);
  assert.equal(webhookIds.length, 60, 'sixty deliveries, no more');
  assert.equal(new Set(webhookIds).size, 60, 'each webhook-id once');
  for (const [index, id] of ids.entries()) {
    assert.equal(ofType(receiver.deliveries, 'elicitation.created', id).length, 1);
    const [settled] = ofType(receiver.deliveries, 'elicitation.settled', id);
    assert.deepEqual(settled.event.data.result, { action: 'accept', content: { city: `City ${index}` } });
  }
});

test('the host helper\'s serverless path: create and return at once, resume on the verified webhook', { timeout: 60_000 }, async () => {
  const secret = newSecret();
  const receiver = await startReceiver(secret);
  const relay = await launch(receiver.url, secret);

  // The first invocation: create, and return without waiting for the person.
  const created = await createRelayElicitation({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: SCOPE, request: FORM, serverName: 'Serverless' });
  assert.match(created.id, /^[0-9a-f]{32}$/);
  assert.ok(created.expiresAt > Date.now());
  // The same key again (a retried invocation) is the same elicitation.
  const again = await createRelayElicitation({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: SCOPE, request: FORM, serverName: 'Serverless', idempotencyKey: created.idempotencyKey });
  assert.equal(again.id, created.id);

  await answer(relay, created.id, 'Porto');
  await until(() => accepted(receiver.deliveries).length === 2, 'the created and settled events');

  // The webhook route: verify (standardwebhooks), then read the outcome.
  const outcomes = receiver.deliveries.map((delivery) => relayWebhookOutcome(new Webhook(secret).verify(delivery.body, delivery.headers)));
  const final = outcomes.filter((outcome) => outcome !== null);
  assert.equal(outcomes.length - final.length, 1, 'elicitation.created carries no outcome');
  assert.deepEqual(final, [{
    id: created.id, status: 'settled', result: { action: 'accept', content: { city: 'Porto' } }, scope: SCOPE,
  }]);
  assert.equal(relayWebhookOutcome({ type: 'elicitation.settled', data: { id: created.id, status: 'pending' } }), null);
});

test('the serverless path hands the answer\'s _meta on: a remembered approval\'s _meta.persist is in the outcome', { timeout: 60_000 }, async () => {
  const secret = newSecret();
  const receiver = await startReceiver(secret);
  const relay = await launch(receiver.url, secret);
  const approval = {
    message: 'Run `cargo test`?',
    requestedSchema: { type: 'object', properties: {} },
    _meta: { persist: ['session', 'always'], codex_approval_kind: 'exec' },
  };
  const created = await createRelayElicitation({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: SCOPE, request: approval });
  const remembered = { action: 'accept', content: {}, _meta: { persist: 'always' } };
  const response = await fetch(`${relay.url}/v1/elicitations/${created.id}/result`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${mintToken(PERSON)}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(remembered),
  });
  assert.equal(response.status, 200, await response.clone().text());
  await until(() => ofType(receiver.deliveries, 'elicitation.settled', created.id).length === 1, 'the settled event');
  const [settled] = ofType(receiver.deliveries, 'elicitation.settled', created.id);
  assert.deepEqual(relayWebhookOutcome(new Webhook(secret).verify(settled.body, settled.headers)),
    { id: created.id, status: 'settled', result: remembered, scope: SCOPE });
});
