// The relay's e-mail over real SMTP: a real relay process mails a question's link to a real SMTP
// server (the `smtp-server` package) that speaks STARTTLS on a certificate this test makes (its
// own CA, given to the relay with SSL_CERT_FILE) and asks for a login; `mailparser` reads what
// arrives. One message per question, with its headers; an address off the allow list is 422;
// a server's name and message cannot add a header or markup; a server down then up, a relay
// killed before the delivery, and two PostgreSQL replicas each give one message; an answer
// before --email-after passes gives none; a 5yz gives it up, counted; the password is in no log.
// The whole path: the link taken from the message, opened in Chromium at 360×640 on the relay's
// answer page, answered; the host's long-poll reads that answer, and the link then says only
// "Already answered". A one-tap question's message also carries a link per choice: fetched, or
// opened and left alone, it answers nothing; its "Confirm" answers with that choice.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import { createRelayElicitation, RelayError } from 'koder-mcp-elicitation/relay';
import { assertNoAxeViolations, freePort, launchBrowser, repoRoot } from './harness.mjs';
import { answeredThroughALink, mintToken, SERVICE_TOKEN, startPostgres, startRelay } from './relay-harness.mjs';

const PERSON = { sub: 'u_mail', workspace: 'w_mail' };
const SCOPE = { userId: 'u_mail', workspaceId: 'w_mail' };
const FORM = {
  message: 'Deploy build 42 to production?',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
};
const SMTP_USER = 'relay-mailer';
const SMTP_PASSWORD = 'smtp-pw-9d2f7c41b8e3a6052f';
const FROM_DOMAIN = 'relay.test';
// The answer page the links point at (e-mail needs it); the browser test gives its own origin.
const PAGE_ARGS = ['--answer-page', '--answer-page-assets', join(repoRoot, 'dist')];
const PUBLIC_URL = 'https://relay.example.com';

const cleanups = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

let certs;
before(() => {
  certs = makeCertificates();
  cleanups.push(async () => rmSync(certs.dir, { recursive: true, force: true }));
});

/** A CA and a leaf for 127.0.0.1 and localhost, signed by it (openssl). */
function makeCertificates() {
  const dir = mkdtempSync(join(tmpdir(), 'koder-smtp-tls-'));
  const at = (name) => join(dir, name);
  const openssl = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '2', '-subj', '/CN=Koder test mail CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-keyout', at('leaf.key'), '-out', at('leaf.csr'), '-subj', '/CN=localhost');
  writeFileSync(at('leaf.ext'), [
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
  ].join('\n'));
  openssl('x509', '-req', '-in', at('leaf.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial',
    '-out', at('leaf.pem'), '-days', '2', '-extfile', at('leaf.ext'));
  return { dir, ca: at('ca.pem'), key: readFileSync(at('leaf.key')), cert: readFileSync(at('leaf.pem')) };
}

/**
 * A real SMTP server on 127.0.0.1 (`port` 0 picks one) with STARTTLS and a login. Every message
 * is kept: `{ raw, parsed, secure, user }`. `rcptCode(address)` may return an SMTP code to
 * refuse a recipient with (e.g. 550).
 */
async function startSmtp({ port = 0, rcptCode = () => null } = {}) {
  const messages = [];
  const server = new SMTPServer({
    key: certs.key,
    cert: certs.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: SMTP_USER });
      else callback(Object.assign(new Error('Invalid credentials'), { responseCode: 535 }));
    },
    onRcptTo(address, session, callback) {
      const code = rcptCode(address.address);
      if (code) callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: code }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks = [];
      stream.on('data', (chunk) => chunks.push(chunk));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({ raw, parsed: await simpleParser(raw), secure: session.secure, user: session.user });
        callback();
      });
    },
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = server.server.address().port;
  const close = () => new Promise((resolve) => server.close(() => resolve()));
  cleanups.push(close);
  return { port: bound, messages, close };
}

/** A relay mailing through `smtpPort`, its links on `publicUrl`, with `args` added. */
async function launch(smtpPort, { args = [], publicUrl = PUBLIC_URL, ...options } = {}) {
  const relay = await startRelay({
    ...options,
    args: [
      '--smtp-url', `smtp://127.0.0.1:${smtpPort}`,
      '--smtp-user', SMTP_USER,
      '--email-from', `Koder Relay <relay@${FROM_DOMAIN}>`,
      '--email-allow-domain', 'example.com,example.org',
      ...PAGE_ARGS,
      '--public-url', publicUrl,
      ...args,
    ],
    env: { KODER_RELAY_SMTP_PASSWORD: SMTP_PASSWORD, SSL_CERT_FILE: certs.ca },
  });
  cleanups.push(() => relay.stop());
  return relay;
}

async function create(relay, { notify = { email: 'ana@example.com' }, serverName = 'Weather', request = FORM } = {}) {
  return fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope: SCOPE, request, serverName, timeoutMs: 600_000, notify }),
  });
}

async function created(relay, options) {
  const response = await create(relay, options);
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()).id;
}

async function answer(relay, id) {
  const response = await fetch(`${relay.url}/v1/elicitations/${id}/result`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${mintToken(PERSON)}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ action: 'accept', content: { ok: true } }),
  });
  assert.equal(response.ok, true, await response.text());
}

/** The counter `metric{outcome}` as the relay's /metrics says. */
async function counted(relay, metric, outcome) {
  const response = await fetch(`${relay.url}/metrics`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } });
  const text = await response.text();
  const line = text.split('\n').find((l) => l.startsWith(`${metric}{outcome="${outcome}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** `koder_relay_email_deliveries_total{outcome}`. */
const emailCount = (relay, outcome) => counted(relay, 'koder_relay_email_deliveries_total', outcome);
/** `koder_relay_answer_links_total{outcome}`. */
const linkCount = (relay, outcome) => counted(relay, 'koder_relay_answer_links_total', outcome);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check()` is true; fails with `what` after `timeoutMs`. */
async function until(check, what, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The raw message's top-level header block, and its header names. */
function headerNames(raw) {
  const head = raw.split('\r\n\r\n')[0];
  return head.split('\r\n').filter((line) => !/^[ \t]/.test(line)).map((line) => line.split(':')[0].toLowerCase());
}

const isolated = (text) => text.replace(/[\u2068\u2069]/g, '');

test('a create with notify.email gets exactly one message over STARTTLS, with its headers and the link, and nothing more after the answer', { timeout: 60_000 }, async () => {
  const smtp = await startSmtp();
  const relay = await launch(smtp.port);
  const id = await created(relay);
  await until(() => smtp.messages.length === 1, 'the message');
  const [{ raw, parsed, secure, user }] = smtp.messages;
  assert.equal(secure, true, 'the relay used STARTTLS');
  assert.equal(user, SMTP_USER, 'the relay logged in');
  assert.equal(parsed.headers.get('auto-submitted'), 'auto-generated');
  assert.equal(parsed.messageId, `<elicitation-${id}@${FROM_DOMAIN}>`);
  assert.equal(isolated(parsed.subject), 'Weather needs your input');
  assert.deepEqual(parsed.to.value.map((to) => to.address), ['ana@example.com']);
  assert.equal(parsed.from.value[0].address, `relay@${FROM_DOMAIN}`);
  assert.match(raw, /multipart\/alternative/);
  assert.match(parsed.text, /Deploy build 42 to production\?/);
  assert.match(parsed.text, /^https:\/\/relay\.example\.com\/answer\/#t=[A-Za-z0-9_-]{43}$/m, 'the link in the text part');
  const link = parsed.text.match(/https:\/\/\S+#t=[A-Za-z0-9_-]{43}$/m)[0];
  assert.ok(parsed.html.includes(`<a href="${link}"`), 'the same link as a button');
  assert.match(parsed.text, /\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/, 'when it expires');
  assert.equal(await emailCount(relay, 'sent'), 1);

  await answer(relay, id);
  await sleep(1500);
  assert.equal(smtp.messages.length, 1, 'one message per question');
  assert.doesNotMatch(relay.logs(), /ana@example\.com/, 'the address is in no log line');
});

test('an address off the allow list is 422, a malformed notify 400, a repeat with the same key one message', { timeout: 60_000 }, async () => {
  const smtp = await startSmtp();
  const relay = await launch(smtp.port);
  for (const email of ['eve@evil.example', 'ana@example.com.evil.example', 'ana@@example.com']) {
    const response = await create(relay, { notify: { email } });
    assert.equal(response.status, 422, email);
    assert.match((await response.json()).error.message, /notify\.email/);
  }
  // The Node host's create passes notify on, and the refusal comes back as a RelayError.
  await assert.rejects(
    createRelayElicitation({ url: relay.url, serviceToken: SERVICE_TOKEN, scope: SCOPE, request: FORM, notify: { email: 'eve@evil.example' } }),
    (error) => error instanceof RelayError && error.status === 422 && /notify\.email/.test(error.message),
  );
  for (const notify of ['ana@example.com', { email: 'ana@example.com\r\nBcc: eve@evil.example' }, { email: 'Ana <ana@example.com>' }, { email: 5 }, { email: 'a@example.com', language: 7 }]) {
    const response = await create(relay, { notify });
    assert.equal(response.status, 400, JSON.stringify(notify));
  }
  const keyed = () => fetch(`${relay.url}/v1/elicitations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'mail-once' },
    body: JSON.stringify({ scope: SCOPE, request: FORM, notify: { email: 'bo@example.org', language: 'pt-BR' } }),
  });
  const first = await (await keyed()).json();
  const again = await (await keyed()).json();
  assert.equal(again.id, first.id);
  await until(() => smtp.messages.length === 1, 'the message');
  assert.match(isolated(smtp.messages[0].parsed.subject), /precisa da sua resposta/, 'worded in pt-BR');
  await sleep(1500);
  assert.equal(smtp.messages.length, 1);
});

test('CR, LF and HTML in the server name and message appear only as text', { timeout: 60_000 }, async () => {
  const smtp = await startSmtp();
  const relay = await launch(smtp.port);
  const serverName = 'Evil\r\nBcc: eve@evil.example\r\nX-Injected: yes <b>bold</b>';
  const message = 'Hi\r\nBcc: eve@evil.example\r\n\r\n<b>bold</b><script>alert(1)</script>';
  await created(relay, { serverName, request: { ...FORM, message } });
  await until(() => smtp.messages.length === 1, 'the message');
  const [{ raw, parsed }] = smtp.messages;
  const names = headerNames(raw);
  assert.ok(!names.includes('bcc') && !names.includes('x-injected'), names.join(', '));
  assert.deepEqual(parsed.to.value.map((to) => to.address), ['ana@example.com']);
  assert.ok(!parsed.headers.has('bcc'));
  assert.match(isolated(parsed.subject), /^Evil Bcc: eve@evil\.example X-Injected: yes <b>bold<\/b> needs your input$/);
  assert.doesNotMatch(parsed.html, /<b>|<script>/);
  assert.match(parsed.html, /&lt;b&gt;bold&lt;\/b&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(parsed.text, /<b>bold<\/b><script>alert\(1\)<\/script>/, 'the text part as written');
});

test('the SMTP server down, then up: one message', { timeout: 60_000 }, async () => {
  const first = await startSmtp();
  const port = first.port;
  await first.close();
  const relay = await launch(port);
  await created(relay);
  await until(async () => (await emailCount(relay, 'retried')) >= 1, 'a retry');
  const smtp = await startSmtp({ port });
  await until(() => smtp.messages.length === 1, 'the message after the server came back');
  await sleep(1500);
  assert.equal(smtp.messages.length, 1);
  assert.equal(await emailCount(relay, 'sent'), 1);
});

/** A host's `POST /v1/elicitations/{id}/link`: its status. */
async function hostLink(relay, id) {
  const response = await fetch(`${relay.url}/v1/elicitations/${id}/link`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${SERVICE_TOKEN}` },
  });
  await response.arrayBuffer();
  return response.status;
}

test('an e-mail retried 5 times (SMTP 451) carries the one link made for it, and the host can still make 256 links', { timeout: 120_000 }, async () => {
  let refused = 0;
  const smtp = await startSmtp({ rcptCode: () => (refused < 5 ? ((refused += 1), 451) : null) });
  const relay = await launch(smtp.port);
  const id = await created(relay);
  await until(() => smtp.messages.length === 1, 'the message after five refusals', 90_000);
  assert.equal(refused, 5, 'the server refused five attempts');
  assert.equal(await emailCount(relay, 'retried'), 5);
  assert.equal(await emailCount(relay, 'sent'), 1);
  assert.equal(await linkCount(relay, 'minted'), 1, 'one link for the message, not one per attempt');
  const link = smtp.messages[0].parsed.text.match(/https:\/\/\S+#t=([A-Za-z0-9_-]{43})$/m);
  const view = await fetch(`${relay.url}/v1/links/view`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: link[1] }),
  });
  assert.equal(view.status, 200, 'the link the message carries works');
  assert.equal((await view.json()).elicitation.id, id);

  // The relay's link is not the host's to count: the host still makes 256, then 409.
  for (let made = 0; made < 256; made += 1) assert.equal(await hostLink(relay, id), 201, `host link ${made + 1}`);
  assert.equal(await hostLink(relay, id), 409);
  assert.equal(await linkCount(relay, 'minted'), 257);
});

test('a relay killed between the create and the delivery sends the message once after a restart', { timeout: 60_000 }, async () => {
  const smtp = await startSmtp();
  const dir = mkdtempSync(join(tmpdir(), 'koder-relay-mail-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const database = `sqlite://${join(dir, 'relay.db')}`;
  const relay = await launch(smtp.port, { database, args: ['--email-after', '2s'] });
  await created(relay);
  await relay.kill('SIGKILL');
  await sleep(2500);
  assert.equal(smtp.messages.length, 0, 'nothing before the restart');
  const again = await launch(smtp.port, { database, args: ['--email-after', '2s'] });
  await until(() => smtp.messages.length === 1, 'the message after the restart');
  await sleep(1500);
  assert.equal(smtp.messages.length, 1);
  await again.stop();
});

test('two PostgreSQL replicas send one message between them', { timeout: 120_000 }, async () => {
  const smtp = await startSmtp();
  const postgres = await startPostgres();
  cleanups.push(() => postgres.stop());
  const a = await launch(smtp.port, { database: postgres.url });
  const b = await launch(smtp.port, { database: postgres.url });
  const ids = [await created(a), await created(b), await created(a)];
  await until(() => smtp.messages.length === 3, 'three messages');
  await sleep(2500);
  assert.equal(smtp.messages.length, 3);
  assert.deepEqual(smtp.messages.map((m) => m.parsed.messageId).sort(), ids.map((id) => `<elicitation-${id}@${FROM_DOMAIN}>`).sort());
  assert.equal((await emailCount(a, 'sent')) + (await emailCount(b, 'sent')), 3);
});

test('--email-after 2s with an answer in the first second: no message', { timeout: 60_000 }, async () => {
  const smtp = await startSmtp();
  const relay = await launch(smtp.port, { args: ['--email-after', '2s'] });
  const id = await created(relay);
  await answer(relay, id);
  await until(async () => (await emailCount(relay, 'skipped')) === 1, 'the e-mail skipped');
  assert.equal(smtp.messages.length, 0);
  assert.equal(await emailCount(relay, 'sent'), 0);
});

test('an SMTP 5yz gives the message up, counted as failed; the password is in no log line', { timeout: 60_000 }, async () => {
  const smtp = await startSmtp({ rcptCode: (address) => (address.startsWith('gone@') ? 550 : null) });
  const relay = await launch(smtp.port, { args: ['--log-format', 'text'] });
  await created(relay, { notify: { email: 'gone@example.com' } });
  await until(async () => (await emailCount(relay, 'failed')) === 1, 'the e-mail failed');
  assert.equal(await emailCount(relay, 'retried'), 0, 'a 5yz is not retried');
  assert.equal(smtp.messages.length, 0);
  await created(relay);
  await until(() => smtp.messages.length === 1, 'the next message');
  assert.match(relay.logs(), /e-mail given up/);
  assert.doesNotMatch(relay.logs(), new RegExp(SMTP_PASSWORD));
});

test('the relay does not start with --smtp-url but no --email-from or no answer page, nor with e-mail flags but no --smtp-url', { timeout: 30_000 }, async () => {
  const binary = join(repoRoot, 'target', 'debug', 'koder-elicitation-relay');
  assert.ok(existsSync(binary));
  const run = (args, env = {}) => {
    try {
      execFileSync(binary, ['--service-token', SERVICE_TOKEN, '--jwt-secret', 'x'.repeat(32), '--database', 'sqlite::memory:', '--listen', '127.0.0.1:0', ...args], { env: { PATH: process.env.PATH, ...env }, stdio: 'pipe', timeout: 10_000 });
      return { code: 0, stderr: '' };
    } catch (error) {
      return { code: error.status, stderr: String(error.stderr) };
    }
  };
  const noFrom = run(['--smtp-url', 'smtp://127.0.0.1:2525', ...PAGE_ARGS, '--public-url', PUBLIC_URL]);
  assert.equal(noFrom.code, 2);
  assert.match(noFrom.stderr, /--email-from/);
  const noPage = run(['--smtp-url', 'smtp://127.0.0.1:2525', '--email-from', 'relay@relay.test']);
  assert.equal(noPage.code, 2);
  assert.match(noPage.stderr, /--answer-page/);
  const noUrl = run(['--email-allow-domain', 'example.com']);
  assert.equal(noUrl.code, 2);
  assert.match(noUrl.stderr, /--smtp-url/);
  const passwordOnCommandLine = run(['--smtp-password', SMTP_PASSWORD]);
  assert.equal(passwordOnCommandLine.code, 2, 'the password has no flag');
  assert.doesNotMatch(passwordOnCommandLine.stderr, new RegExp(SMTP_PASSWORD));
});

test('the whole path: the link from the message, answered in Chromium at 360×640; the host reads that answer; the link again says only "Already answered"', { timeout: 90_000 }, async () => {
  const smtp = await startSmtp();
  const port = await freePort();
  const relay = await launch(smtp.port, { listen: `127.0.0.1:${port}`, publicUrl: `http://127.0.0.1:${port}` });
  const request = {
    message: 'Which city should the trip go to?',
    requestedSchema: { type: 'object', properties: { city: { type: 'string', title: 'City' } }, required: ['city'] },
  };
  const id = await created(relay, { serverName: 'Travel desk', request });
  await until(() => smtp.messages.length === 1, 'the message');
  const link = smtp.messages[0].parsed.text.match(/http:\/\/127\.0\.0\.1:\d+\/answer\/#t=[A-Za-z0-9_-]+/)?.[0];
  assert.ok(link, smtp.messages[0].parsed.text);
  const waiting = fetch(`${relay.url}/v1/elicitations/${id}/result?wait=30`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } })
    .then(async (response) => answeredThroughALink(await response.json(), 'ana@example.com'));

  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  const open = async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 640 }, locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(link);
    return page;
  };
  const el = 'koder-mcp-elicitation';
  const outcome = async (page, name) => {
    await page.waitForFunction((expected) => document.getElementById('status')?.dataset.outcome === expected, name);
    return page.locator('#status').textContent();
  };
  const page = await open();
  await page.locator(`${el} [data-field="city"] input`).fill('Lisbon');
  await page.locator(`${el} button[part~=accept]`).click();
  assert.match(await outcome(page, 'sent'), /^Sent/);
  assert.deepEqual(await waiting, { status: 'settled', result: { action: 'accept', content: { city: 'Lisbon' } } });
  await page.context().close();

  const again = await open();
  assert.equal(await outcome(again, 'already-answered'), 'Already answered');
  assert.equal(await again.locator(`${el} [part~=inline]`).count(), 0, 'no question is shown');
  assert.ok(!(await again.locator('body').innerText()).includes(request.message), 'nothing of the question');
  await again.context().close();
  assert.equal(smtp.messages.length, 1, 'still one message');
});

/** Every choice link of a message's text part, `{ title, url, c }`, in order. */
function choiceLinks(text) {
  return [...text.matchAll(/^(.+): (http:\/\/127\.0\.0\.1:\d+\/answer\/#t=[A-Za-z0-9_-]{43}&c=(\d+))$/gm)]
    .map(([, title, url, c]) => ({ title: isolated(title), url, c: Number(c) }));
}

test('a one-tap question\'s choice link: fetched, or opened and left alone, it answers nothing; "Confirm" answers with that choice; axe finds nothing on the confirm step', { timeout: 90_000 }, async () => {
  const smtp = await startSmtp();
  const port = await freePort();
  const relay = await launch(smtp.port, { listen: `127.0.0.1:${port}`, publicUrl: `http://127.0.0.1:${port}` });
  const id = await created(relay, { serverName: 'Deployer' });
  const ptId = await created(relay, { serverName: 'Deployer', notify: { email: 'bo@example.com', language: 'pt-BR' } });
  await until(() => smtp.messages.length === 2, 'both messages');
  const mail = (to) => smtp.messages.find((message) => message.parsed.to.value[0].address === to).parsed;
  const { text, html } = mail('ana@example.com');
  const choices = choiceLinks(text);
  assert.deepEqual(choices.map(({ title, c }) => [title, c]), [['Yes', 0], ['No', 1], ['Reject', 2]], text);
  for (const { url, title } of choices) {
    assert.match(html, new RegExp(`<a href="${url.replace('&', '&amp;').replace(/[.?]/g, '\\$&')}"[^>]*>${title}</a>`), `the ${title} button`);
  }
  const waiting = fetch(`${relay.url}/v1/elicitations/${id}/result?wait=30`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } })
    .then(async (response) => answeredThroughALink(await response.json(), 'ana@example.com'));
  const pending = async () => (await (await fetch(`${relay.url}/v1/elicitations/${id}/result`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } })).json()).status;

  // A link scanner's GET: the fragment never leaves it, the page is all it gets.
  for (const { url } of choices) {
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.match(await response.text(), /<!doctype html>/i);
  }
  assert.equal(await pending(), 'pending', 'fetching the links answered nothing');

  // A scanner that runs the page, and a person who opens "No": the confirm step, nothing sent.
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  const open = async (url, { locale = 'en-US', colorScheme = 'light' } = {}) => {
    const context = await browser.newContext({ viewport: { width: 360, height: 640 }, locale, colorScheme });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.posts = [];
    page.on('request', (request) => request.method() === 'POST' && page.posts.push(new URL(request.url()).pathname));
    await page.goto(url);
    await page.getByRole('button', { name: locale === 'pt-BR' ? 'Confirmar' : 'Confirm', exact: true }).waitFor();
    return page;
  };
  const no = choices[1].url;
  const scanner = await open(no);
  await sleep(1500);
  assert.deepEqual(scanner.posts, ['/v1/links/view'], 'the page only read the question');
  await scanner.context().close();
  assert.equal(await pending(), 'pending', 'opening the link answered nothing');

  const page = await open(no);
  assert.equal(await page.locator('#confirm-message').textContent(), FORM.message);
  assert.equal(await page.locator('#confirm-answer').textContent(), 'No');
  assert.equal(await page.evaluate(() => location.href), `${relay.url}/answer/`, 'no token left in the address bar');
  await assertNoAxeViolations(page, 'confirm step, light');
  assert.equal(await pending(), 'pending');
  await page.getByRole('button', { name: 'Confirm', exact: true }).click();
  await page.waitForFunction(() => document.getElementById('status')?.dataset.outcome === 'sent');
  assert.deepEqual(page.posts, ['/v1/links/view', '/v1/links/answer']);
  assert.deepEqual(await waiting, { status: 'settled', result: { action: 'accept', content: { ok: false } } });
  await page.context().close();

  // In Portuguese, dark: the message's words and the page's; "Sim" confirmed is a yes.
  const portuguese = choiceLinks(mail('bo@example.com').text);
  assert.deepEqual(portuguese.map(({ title }) => title), ['Sim', 'Não', 'Recusar']);
  const pt = await open(portuguese[0].url, { locale: 'pt-BR', colorScheme: 'dark' });
  assert.equal(await pt.locator('#confirm-answer').textContent(), 'Sim');
  assert.equal(await pt.getByRole('button', { name: 'Mostrar todas as opções' }).count(), 1);
  await assertNoAxeViolations(pt, 'confirm step, pt-BR, dark');
  await pt.getByRole('button', { name: 'Confirmar', exact: true }).click();
  await pt.waitForFunction(() => document.getElementById('status')?.dataset.outcome === 'sent');
  await pt.context().close();
  const settled = answeredThroughALink(await (await fetch(`${relay.url}/v1/elicitations/${ptId}/result`, { headers: { Authorization: `Bearer ${SERVICE_TOKEN}` } })).json(), 'bo@example.com');
  assert.deepEqual(settled, { status: 'settled', result: { action: 'accept', content: { ok: true } } });
  assert.equal(smtp.messages.length, 2, 'one message per question');
});

test('a text question\'s message has no choice links', { timeout: 60_000 }, async () => {
  const smtp = await startSmtp();
  const relay = await launch(smtp.port);
  const request = { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } };
  await created(relay, { request });
  await until(() => smtp.messages.length === 1, 'the message');
  const { text, html } = smtp.messages[0].parsed;
  assert.doesNotMatch(text, /&c=/);
  assert.doesNotMatch(html, /&amp;c=|&c=/);
  assert.match(html, />Answer<\/a>/);
  assert.equal((text.match(/#t=/g) ?? []).length, 1, 'the one link');
});
