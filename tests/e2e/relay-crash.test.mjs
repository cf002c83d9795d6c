// The relay's exactly-once promise under a crash, over real HTTP: two relay processes on one real
// PostgreSQL, one of them killed with SIGKILL while people answer through both; and a SQLite relay
// killed and restarted on its file. Nothing may be lost and nothing may settle twice.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mintToken, SERVICE_TOKEN, startPostgres, startRelay } from './relay-harness.mjs';

const PERSON = { sub: 'u_crash', workspace: 'w_crash' };
const SCOPE = { userId: 'u_crash', workspaceId: 'w_crash', conversationId: 'c_1' };
const FORM = {
  message: 'Which city?',
  requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

let postgres;
const relays = [];

before(async () => {
  postgres = await startPostgres();
});

after(async () => {
  for (const relay of relays) await relay.stop().catch(() => {});
  await postgres?.stop();
});

async function launch(options) {
  const relay = await startRelay(options);
  relays.push(relay);
  return relay;
}

async function createOn(relay, request = FORM) {
  const response = await fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope: SCOPE, request, serverName: 'Crash test', timeoutMs: 600_000 }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

/** A person's answer; resolves with the HTTP status, or 'failed' when the connection died. */
async function answerOn(relay, id, city, token) {
  try {
    const response = await fetch(`${relay.url}/v1/elicitations/${id}/result`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ action: 'accept', content: { city } }),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 'failed';
  }
}

async function hostResult(relay, id) {
  const response = await fetch(`${relay.url}/v1/elicitations/${id}/result`, {
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}` },
  });
  assert.equal(response.status, 200);
  return response.json();
}

test('SIGKILL one of two PostgreSQL relays while people answer through both: none lost, none settled twice', { timeout: 120_000 }, async () => {
  const a = await launch({ database: postgres.url });
  const b = await launch({ database: postgres.url });
  const token = mintToken(PERSON);
  const ids = [];
  for (let index = 0; index < 60; index += 1) ids.push(await createOn(index % 2 ? a : b));

  // Two tabs answer each one differently, one through each relay, all at once; A dies mid-flight.
  const answers = ids.map((id) => Promise.all([answerOn(a, id, `A-${id}`, token), answerOn(b, id, `B-${id}`, token)]));
  setTimeout(() => a.kill('SIGKILL'), 15);
  const outcomes = await Promise.all(answers);
  assert.ok(outcomes.some(([onA]) => onA === 'failed'), 'the kill landed while answers were in flight');

  let settledByB = 0;
  for (const [index, id] of ids.entries()) {
    const [onA, onB] = outcomes[index];
    let stored = await hostResult(b, id);
    if (stored.status === 'pending') {
      // Neither answer reached the database (A died first, B's raced it): nothing is lost, it still waits.
      assert.notEqual(onB, 200, `${id}: B said 200 but nothing was stored`);
      assert.equal(await answerOn(b, id, `B-${id}`, token), 200);
      stored = await hostResult(b, id);
    }
    assert.equal(stored.status, 'settled', id);
    const city = stored.result.content.city;
    assert.ok(city === `A-${id}` || city === `B-${id}`, `${id} settled with ${city}`);
    // The answer that won is the one whose relay said 200; the other one never did.
    if (city === `B-${id}`) {
      settledByB += 1;
      assert.ok(onA !== 200, `${id}: both relays said 200`);
    } else {
      assert.notEqual(onB, 200, `${id}: B said 200 for an answer that lost`);
    }
    // Whatever happened, a different answer now is a conflict, and the same one is still fine.
    assert.equal(await answerOn(b, id, 'someone else', token), 409);
    assert.equal(await answerOn(b, id, city, token), 200);
  }
  assert.ok(settledByB > 0, 'B won some of the races');

  // A restarted on the same database sees exactly what B sees.
  const again = await launch({ database: postgres.url });
  for (const id of ids) assert.deepEqual(await hostResult(again, id), await hostResult(b, id));
});

async function streamEvents(relay, token, count) {
  const controller = new AbortController();
  const response = await fetch(`${relay.url}/v1/stream`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  assert.equal(response.status, 200);
  const decoder = new TextDecoder();
  const events = [];
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const name = /^event: ?(.*)$/m.exec(block)?.[1];
      const data = /^data: ?(.*)$/m.exec(block)?.[1];
      if (name) events.push({ name, data: JSON.parse(data) });
    }
    if (events.length >= count) break;
  }
  controller.abort();
  return events;
}

test('a SQLite relay killed and restarted on its file brings every pending elicitation back', { timeout: 60_000 }, async () => {
  const first = await launch({});
  const ids = [await createOn(first), await createOn(first), await createOn(first)];
  const token = mintToken(PERSON);
  assert.equal(await answerOn(first, ids[0], 'Lisbon', token), 200);
  first.kill('SIGKILL');

  const second = await launch({ database: first.database });
  // The stream replays the two still pending, oldest first; the answered one stays answered.
  const replayed = await streamEvents(second, token, 2);
  assert.deepEqual(replayed.map((event) => [event.name, event.data.id]), [['elicitation', ids[1]], ['elicitation', ids[2]]]);
  assert.equal(replayed[0].data.request.message, 'Which city?');
  assert.deepEqual((await hostResult(second, ids[0])).result, { action: 'accept', content: { city: 'Lisbon' } });
  assert.equal(await answerOn(second, ids[1], 'Porto', token), 200);
  assert.deepEqual(await hostResult(second, ids[1]), { status: 'settled', result: { action: 'accept', content: { city: 'Porto' } } });
  assert.deepEqual(await hostResult(second, ids[2]), { status: 'pending' });
});
