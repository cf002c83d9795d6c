// The koder-mcp-elicitation demo: one Node process on 127.0.0.1 that serves
//   /            the page (www/)
//   /dist/       the built component (dist/, written by `npm run build`)
//   /app.js      demo/client.mjs bundled in memory by esbuild at startup
//   /mcp         a real MCP server (official SDK 1.x, Streamable HTTP, one McpServer per session):
//                MCP 2025-11-25, every elicitation/create of that revision
//   /mcp-2026    a real MCP server on SDK v2 (`@modelcontextprotocol/server`), MCP 2026-07-28 only:
//                the multi round-trip tools of tests/peers/mrtr-tools.mjs (input_required rounds)
//   /visit/<id>  the sign-in page of the 2026-07-28 URL tool (GET shows it, POST finishes it)
//   /oauth/fake  the page a URL-mode elicitation points at ("Finish sign-in")
//   /demo-log    the last server-side events as JSON (handy for tests)
//   /relay/…     the demo's own koder-elicitation-relay (demo/relay.mjs), proxied so the page stays
//                same-origin: /relay/token hands the page's person a token, /relay/v1/… is the relay
//                (its Web Push subscriptions included)
//   /sw.js       the page's service worker (www/sw.js): shows the relay's pushes
//   /host/call   POST { tool }: the server-side SDK v2 host (demo/host.mjs) calls a tool of /mcp; its
//                elicitations go through the relay to the page's transcript; answers the tool result
//   /host/email  POST { tool }: the same, for a person reached only by e-mail: the relay e-mails the
//                question's link to the demo's mail catcher (demo/mail.mjs)
//   /demo/mail   GET: the messages the mail catcher received (subject, text, the answer link)
//
// Run: `npm start` (build + serve) or `node demo/server.mjs` once dist/ exists.
// PORT picks the first port to try (default 8787); a busy port moves on to the next ones.

import { createServer, request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import { stat, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { createFlows, registerMrtrTools } from '../tests/peers/mrtr-tools.mjs';
import { serveWebHandler } from '../tests/peers/node-bridge.mjs';
import { startDemoRelay } from './relay.mjs';
import { askTheTeam, memberClaims } from './team.mjs';
import { DEMO_MAIL_SCOPE, DEMO_SCOPE, startServerSideHost } from './host.mjs';
import { startMailCatcher } from './mail.mjs';
import { DEMO_MAIL_DOMAIN } from './relay.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const WWW = path.join(ROOT, 'www');
const DIST = path.join(ROOT, 'dist');
const HOST = '127.0.0.1';
const FIRST_PORT = Number.parseInt(process.env.PORT ?? '8787', 10);
const PORT_ATTEMPTS = 20;
const ELICIT_TIMEOUT_MS = 10 * 60 * 1000; // the SDK default (60 s) is short for a human
const MAX_SESSIONS = 200;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

let port = 0; // known once listening; the sign-in URL and the host checks need it
let relay = null; // the demo's relay once it runs (demo/relay.mjs); null without a relay binary
let host = null; // the server-side host's connection, made on its first call
let mailHost = null; // the same for "E-mail me a link": its questions are e-mailed
let mail = null; // the demo's mail catcher (demo/mail.mjs) once it runs

// ---------------------------------------------------------------------------------------------
// A small ring buffer of server-side events, printed and served at /demo-log.

const events = [];
function logEvent(session, tool, event, data) {
  const entry = { time: new Date().toISOString(), session, tool, event, ...(data === undefined ? {} : { data }) };
  events.push(entry);
  if (events.length > 200) events.shift();
  console.log(`[mcp] ${tool}: ${event}${data === undefined ? '' : ' ' + JSON.stringify(data)}`);
}

// ---------------------------------------------------------------------------------------------
// The MCP server: tools that elicit.

/** What the server received, exactly: one line per elicitation, asserted by tests. */
function received(result) {
  const shown = { action: result.action };
  if (result.content !== undefined) shown.content = result.content;
  return `Received: ${JSON.stringify(shown)}`;
}

function text(...lines) {
  return { content: [{ type: 'text', text: lines.join('\n') }] };
}

/** Resolves after ms, rejects as soon as signal aborts. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}

/** Resolves with promise; rejects on timeout or as soon as signal aborts. Leaves no timer behind. */
function waitFor(promise, ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => { clearTimeout(timer); reject(signal.reason); };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      reject(new Error(`Gave up waiting after ${ms / 1000} s`));
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then((value) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    }, reject);
  });
}

/** Pending URL-mode sign-ins, by elicitationId: { session, tool, finished: Promise, finish() } */
const signIns = new Map();

/** Sessions that connected the fake Example Files account (the -32042 tool). */
const connectedSessions = new Set();

function createMcpServer(sessionRef) {
  const mcp = new McpServer(
    { name: 'koder-elicitation-demo', title: 'Demo server', version: '1.0.0' },
    { instructions: 'Every tool asks the user something through elicitation/create.' },
  );

  // The SDK's own elicitInput: sends elicitation/create on the tool call's stream and, for form
  // mode, validates accepted content against requestedSchema (an invalid answer throws -32602).
  const elicit = (params, extra) => mcp.server.elicitInput(params, {
    relatedRequestId: extra.requestId, // on the tools/call's own SSE stream
    signal: extra.signal,              // the tool call is cancelled → the elicitation is withdrawn
    timeout: ELICIT_TIMEOUT_MS,
  });

  // Each tool runs inside this wrapper: logging, and tidy-up when the client cancels the call.
  const tool = (name, config, run) => mcp.registerTool(name, config, async (extra) => {
    const session = sessionRef.id;
    logEvent(session, name, 'called');
    try {
      const result = await run(extra, session);
      logEvent(session, name, 'returned', result.content[0].text);
      return result;
    } catch (error) {
      if (extra.signal.aborted) {
        logEvent(session, name, 'aborted', { reason: String(extra.signal.reason ?? 'cancelled') });
        // A cancelled request gets no response, so its SSE stream would stay open forever.
        // The notifications/cancelled for the elicitation has been written to it already: close it.
        setTimeout(() => sessionRef.transport?.closeSSEStream(extra.requestId), 50);
      } else if (!(error instanceof UrlElicitationRequiredError)) {
        logEvent(session, name, 'error', { message: error.message });
      }
      throw error; // McpServer turns it into { isError: true } (nothing is sent if cancelled)
    }
  });

  tool('weather', {
    title: 'Weather',
    description: 'Asks for your city and a temperature unit, then returns a (fake) forecast.',
  }, async (extra) => {
    const result = await elicit({
      mode: 'form',
      message: 'The weather tool needs your city.',
      requestedSchema: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'Your city' },
          temperature_unit: { type: 'string', enum: ['C', 'F'] },
        },
        required: ['city'],
      },
    }, extra);
    if (result.action !== 'accept') return text(received(result), `No forecast: the user chose ${result.action}.`);
    const { city, temperature_unit: unit = 'C' } = result.content;
    const temperature = unit === 'F' ? 70 : 21;
    return text(received(result), `Forecast for ${city}: ${temperature} °${unit}, clear skies (fake data).`);
  });

  tool('delete_files', {
    title: 'Delete files',
    description: 'A destructive action that asks for explicit confirmation first.',
    annotations: { destructiveHint: true },
  }, async (extra) => {
    const result = await elicit({
      mode: 'form',
      message: 'Delete 3 files in ./build (app.js, app.css, index.html)? This cannot be undone.',
      requestedSchema: {
        type: 'object',
        properties: {
          confirm: { type: 'boolean', title: 'Yes, delete these 3 files', default: false },
          reason: { type: 'string', title: 'Reason', description: 'Optional, kept in the audit log', maxLength: 200 },
        },
        required: ['confirm'],
      },
    }, extra);
    if (result.action === 'decline') return text(received(result), 'Nothing deleted: the user declined.');
    if (result.action === 'cancel') return text(received(result), 'Nothing deleted: the user cancelled.');
    if (result.content.confirm !== true) return text(received(result), 'Nothing deleted: confirm was not ticked.');
    const why = result.content.reason ? ` Reason: ${result.content.reason}` : '';
    return text(received(result), `Deleted 3 files (pretend).${why}`);
  });

  tool('create_project', {
    title: 'Create project',
    description: 'A two-step wizard: two elicitations in a row.',
  }, async (extra) => {
    const step1 = await elicit({
      mode: 'form',
      message: 'New project, step 1 of 2: name and template.',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Project name', minLength: 1, maxLength: 64 },
          template: {
            type: 'string',
            title: 'Template',
            oneOf: [
              { const: 'web', title: 'Web app' },
              { const: 'cli', title: 'Command-line tool' },
              { const: 'lib', title: 'Library' },
            ],
            default: 'web',
          },
        },
        required: ['name', 'template'],
      },
    }, extra);
    if (step1.action !== 'accept') return text(received(step1), `Wizard stopped at step 1: the user chose ${step1.action}.`);
    const { name, template } = step1.content;
    const step2 = await elicit({
      mode: 'form',
      message: `New project "${name}", step 2 of 2: settings.`,
      requestedSchema: {
        type: 'object',
        properties: {
          language: { type: 'string', title: 'Language', enum: ['TypeScript', 'Rust', 'Python'], default: 'Rust' },
          private: { type: 'boolean', title: 'Private repository', default: true },
          homepage: { type: 'string', format: 'uri', title: 'Homepage', description: 'Optional' },
        },
        required: ['language'],
      },
    }, extra);
    if (step2.action !== 'accept') {
      return text(received(step1), received(step2), `Wizard stopped at step 2: the user chose ${step2.action}.`);
    }
    const { language, private: isPrivate = false } = step2.content;
    return text(received(step1), received(step2),
      `Created ${isPrivate ? 'private' : 'public'} ${language} ${template} project "${name}" (pretend).`);
  });

  tool('every_field', {
    title: 'Every field kind',
    description: 'One form with every field kind of the MCP 2025-11-25 schema subset, each with a default.',
  }, async (extra) => {
    const result = await elicit({
      mode: 'form',
      message: 'A form with every field kind. Every field has a default; change what you like.',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name', description: 'Plain string, 1–50 characters', minLength: 1, maxLength: 50, default: 'Ada Lovelace' },
          email: { type: 'string', format: 'email', title: 'Email', default: 'ada@example.com' },
          homepage: { type: 'string', format: 'uri', title: 'Homepage', default: 'https://example.com/ada' },
          birthday: { type: 'string', format: 'date', title: 'Birthday', default: '1815-12-10' },
          meeting: { type: 'string', format: 'date-time', title: 'Next meeting', default: '2025-11-25T10:00:00Z' },
          height: { type: 'number', title: 'Height (m)', description: 'A number from 0.5 to 2.5', minimum: 0.5, maximum: 2.5, default: 1.65 },
          seats: { type: 'integer', title: 'Seats', description: 'An integer from 1 to 10', minimum: 1, maximum: 10, default: 2 },
          newsletter: { type: 'boolean', title: 'Subscribe to the newsletter', default: true },
          color: { type: 'string', title: 'Colour (untitled enum)', enum: ['Red', 'Green', 'Blue'], default: 'Green' },
          size: {
            type: 'string',
            title: 'Size (titled oneOf)',
            oneOf: [
              { const: 's', title: 'Small' },
              { const: 'm', title: 'Medium' },
              { const: 'l', title: 'Large' },
            ],
            default: 'm',
          },
          country: {
            type: 'string',
            title: 'Country (legacy enumNames)',
            enum: ['br', 'pt', 'us'],
            enumNames: ['Brazil', 'Portugal', 'United States'],
            default: 'pt',
          },
          weekday: {
            type: 'string',
            title: 'Weekday (more than 5 options)',
            enum: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
            default: 'Wednesday',
          },
          toppings: {
            type: 'array',
            title: 'Toppings (multi-select, items.enum)',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['cheese', 'tomato', 'basil', 'olives'] },
            default: ['cheese', 'basil'],
          },
          features: {
            type: 'array',
            title: 'Features (multi-select, items.anyOf)',
            items: {
              anyOf: [
                { const: 'auth', title: 'Authentication' },
                { const: 'db', title: 'Database' },
                { const: 'ci', title: 'Continuous integration' },
              ],
            },
            default: ['auth', 'ci'],
          },
        },
        required: ['name', 'email'],
      },
    }, extra);
    if (result.action !== 'accept') return text(received(result), `Nothing to show: the user chose ${result.action}.`);
    return text(received(result), `The SDK validated ${Object.keys(result.content).length} fields against the requested schema.`);
  });

  tool('sign_in', {
    title: 'Sign in (URL mode)',
    description: 'A URL-mode elicitation: a fake sign-in page; finishing there sends notifications/elicitation/complete.',
  }, async (extra, session) => {
    const elicitationId = randomUUID();
    let finish;
    const finished = new Promise((resolve) => { finish = resolve; });
    // Sent on the tool call's stream, before the tool's result, to the client that was asked.
    const notifyComplete = mcp.server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: extra.requestId });
    signIns.set(elicitationId, { session, tool: 'sign_in', finished, finish });
    try {
      const url = `http://${HOST}:${port}/oauth/fake?id=${encodeURIComponent(elicitationId)}`;
      const result = await elicit({
        mode: 'url',
        message: 'Sign in to the (fake) Example account so the demo server can act for you.',
        url,
        elicitationId,
      }, extra);
      if (result.action !== 'accept') {
        return text(received(result), `Not signed in: the user chose ${result.action}.`);
      }
      logEvent(session, 'sign_in', 'waiting for the user to finish on the sign-in page', { elicitationId });
      await waitFor(finished, ELICIT_TIMEOUT_MS, extra.signal);
      await notifyComplete();
      logEvent(session, 'sign_in', 'sent notifications/elicitation/complete', { elicitationId });
      return text(received(result),
        `Signed in. Sent notifications/elicitation/complete for elicitationId ${elicitationId}.`);
    } finally {
      signIns.delete(elicitationId);
    }
  });

  // URLElicitationRequiredError (-32042): no elicitation/create at all. The tool fails with the
  // error until the session has connected the account; finishing on the fake page sends
  // notifications/elicitation/complete (on the session's standalone stream: the failed call is
  // over), and the client retries the call.
  tool('list_files', {
    title: 'List files (-32042)',
    description: 'Answers URLElicitationRequiredError (-32042) until you connect the (fake) Example Files account on its page; the client then retries the call.',
  }, async (_extra, session) => {
    if (connectedSessions.has(session)) {
      return text('Connected to Example Files. Your files: report.pdf, notes.txt, photo.jpg (fake data).');
    }
    const elicitationId = randomUUID();
    const notifyComplete = mcp.server.createElicitationCompletionNotifier(elicitationId);
    const finish = () => {
      connectedSessions.add(session);
      signIns.delete(elicitationId);
      notifyComplete().then(
        () => logEvent(session, 'list_files', 'sent notifications/elicitation/complete', { elicitationId }),
        (error) => logEvent(session, 'list_files', 'error', { message: error.message }),
      );
    };
    signIns.set(elicitationId, { session, tool: 'list_files', finished: Promise.resolve(), finish });
    // An abandoned sign-in is forgotten with the elicitation's timeout.
    setTimeout(() => signIns.delete(elicitationId), ELICIT_TIMEOUT_MS).unref();
    logEvent(session, 'list_files', 'answered -32042: URL elicitation required', { elicitationId });
    throw new UrlElicitationRequiredError([{
      mode: 'url',
      elicitationId,
      url: `http://${HOST}:${port}/oauth/fake?id=${encodeURIComponent(elicitationId)}`,
      message: 'Connect your (fake) Example Files account so the demo server can list your files.',
    }], 'Connect your Example Files account first.');
  });

  tool('slow_task', {
    title: 'Slow task (cancellable)',
    description: 'Elicits, then works for 5 s. Cancelling the call withdraws the open elicitation (the server aborts it).',
  }, async (extra) => {
    extra.signal.addEventListener('abort', () => {
      logEvent(sessionRef.id, 'slow_task', 'abort signal fired; withdrawing the elicitation (notifications/cancelled)');
    }, { once: true });
    const result = await elicit({
      mode: 'form',
      message: 'The slow task will take a while. Pick a priority — or cancel the call from the page to see the server withdraw this request.',
      requestedSchema: {
        type: 'object',
        properties: {
          priority: { type: 'string', title: 'Priority', enum: ['low', 'normal', 'high'], default: 'normal' },
        },
        required: ['priority'],
      },
    }, extra);
    if (result.action !== 'accept') return text(received(result), `Slow task not started: the user chose ${result.action}.`);
    await sleep(5000, extra.signal);
    return text(received(result), `Slow task finished with ${result.content.priority} priority.`);
  });

  return mcp;
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP sessions at /mcp

const sessions = new Map(); // sessionId → { transport, mcp }

async function handleMcp(req, res) {
  const sessionId = req.headers['mcp-session-id'];
  let body;
  if (req.method === 'POST') {
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return sendJson(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    }
  }
  const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (existing) return existing.transport.handleRequest(req, res, body);
  if (sessionId !== undefined) {
    return sendJson(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
  }
  // A client negotiating the revision first probes with server/discover (MCP 2026-07-28). This
  // endpoint speaks 2025-11-25 only: "Method not found" sends the client to `initialize`. (The SDK's
  // own answer, HTTP 400 for a request without a session, works too, but the browser logs it as an error.)
  if (req.method === 'POST' && body?.method === 'server/discover' && body.id !== undefined) {
    return sendJson(res, 200, { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found: this server speaks MCP 2025-11-25 (initialize)' } });
  }
  if (req.method !== 'POST' || !isInitializeRequest(body)) {
    return sendJson(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no valid session ID' }, id: null });
  }

  const sessionRef = { id: undefined, transport: undefined };
  const mcp = createMcpServer(sessionRef);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      sessionRef.id = id;
      sessions.set(id, { transport, mcp });
      if (sessions.size > MAX_SESSIONS) {
        const [oldest] = sessions.keys();
        sessions.get(oldest).transport.close().catch(() => {});
      }
    },
    // Only this page may talk to the server (DNS-rebinding protection).
    enableDnsRebindingProtection: true,
    allowedHosts: [`${HOST}:${port}`, `localhost:${port}`],
    allowedOrigins: [`http://${HOST}:${port}`, `http://localhost:${port}`],
  });
  sessionRef.transport = transport;
  transport.onclose = () => {
    if (sessionRef.id) {
      sessions.delete(sessionRef.id);
      connectedSessions.delete(sessionRef.id);
    }
    mcp.close().catch(() => {});
  };
  await mcp.connect(transport);
  await transport.handleRequest(req, res, body);
}

// ---------------------------------------------------------------------------------------------
// MCP 2026-07-28 at /mcp-2026: an SDK v2 server, one instance per HTTP request (no sessions), whose
// tools return input_required rounds. Their sign-in flows outlive a request, so they live here.

const mrtrFlows = createFlows();
const mrtrHandler = createMcpHandler(() => {
  const mcp = new McpServerV2({ name: 'koder-elicitation-demo-2026', title: 'MRTR demo server', version: '1.0.0' });
  registerMrtrTools(mcp, { flows: mrtrFlows, visitUrl: (id) => `http://${HOST}:${port}/visit/${encodeURIComponent(id)}` });
  return mcp;
}, { legacy: 'reject', onerror: (error) => logEvent(undefined, 'mcp-2026', 'error', { message: error.message }) });

function handleMcp2026(req, res) {
  // Only this page may talk to the server (DNS-rebinding protection), as on /mcp.
  const hosts = [`${HOST}:${port}`, `localhost:${port}`];
  const origin = req.headers.origin;
  if (!hosts.includes(String(req.headers.host)) || (origin !== undefined && !hosts.some((host) => origin === `http://${host}`))) {
    return sendJson(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden host or origin' }, id: null });
  }
  return serveWebHandler(mrtrHandler, req, res, `http://${HOST}:${port}`);
}

async function handleVisit(req, res, id) {
  if (req.method === 'GET' || req.method === 'HEAD') {
    if (!mrtrFlows.get(id)) return oauthPage(res, 404, 'Unknown sign-in', '<p>This sign-in request is unknown or has expired. You can close this tab.</p>');
    return oauthPage(res, 200, 'Example account — sign in',
      `<p>The <strong>MRTR demo server</strong> asks to act on your (fake) Example account.</p>
<p>Finish here, then go back to the demo page and press <strong>Continue</strong>: the server asks for this page again until you do.</p>
<form method="post"><button type="submit">Finish sign-in</button></form>`);
  }
  if (req.method === 'POST') {
    await readBody(req);
    if (!mrtrFlows.finish(id)) return oauthPage(res, 404, 'Unknown sign-in', '<p>This sign-in request is unknown or has expired. You can close this tab.</p>');
    logEvent(undefined, 'url_sign_in', 'user pressed "Finish sign-in"', { flow: id });
    return oauthPage(res, 200, 'Signed in', '<p>Done. Go back to the demo page and press Continue; you can close this tab.</p>');
  }
  res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, POST' });
  return res.end('Method not allowed');
}

// ---------------------------------------------------------------------------------------------
// The fake third-party sign-in page of the URL-mode elicitation

const OAUTH_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function oauthPage(res, status, title, bodyHtml) {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #1d2433; }
  .card { border: 1px solid #d5dae3; border-radius: 12px; padding: 1.5rem; }
  button { font: inherit; padding: .6rem 1.2rem; border-radius: 8px; border: 0; background: #2456d3; color: #fff; cursor: pointer; }
  code { font-size: .85em; word-break: break-all; }
</style></head>
<body><main class="card"><h1>${escapeHtml(title)}</h1>${bodyHtml}</main></body></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': OAUTH_CSP,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  res.end(html);
}

async function handleOauth(req, res, url) {
  if (url.pathname === '/oauth/fake' && (req.method === 'GET' || req.method === 'HEAD')) {
    const id = url.searchParams.get('id') ?? '';
    if (!signIns.has(id)) {
      return oauthPage(res, 404, 'Unknown sign-in', '<p>This sign-in request is unknown or has expired. You can close this tab.</p>');
    }
    return oauthPage(res, 200, 'Example account — sign in',
      `<p>The <strong>Demo server</strong> asks to act on your (fake) Example account.</p>
<p>This page stands in for a real third-party sign-in: nothing you do here passes through the MCP client.</p>
<form method="post" action="/oauth/fake/finish">
  <input type="hidden" name="id" value="${escapeHtml(id)}">
  <button type="submit">Finish sign-in</button>
</form>
<p><small>Elicitation <code>${escapeHtml(id)}</code></small></p>`);
  }
  if (url.pathname === '/oauth/fake/finish' && req.method === 'POST') {
    const raw = await readBody(req);
    const type = String(req.headers['content-type'] ?? '');
    let id = '';
    if (type.includes('application/json')) {
      try { id = String(JSON.parse(raw).id ?? ''); } catch { /* stays empty */ }
    } else {
      id = new URLSearchParams(raw).get('id') ?? '';
    }
    const entry = signIns.get(id);
    if (!entry) {
      return oauthPage(res, 404, 'Unknown sign-in', '<p>This sign-in request is unknown or has expired. You can close this tab.</p>');
    }
    entry.finish();
    logEvent(entry.session, entry.tool, 'user pressed "Finish sign-in"', { elicitationId: id });
    return oauthPage(res, 200, 'Signed in', '<p>Done. The demo server has told your MCP client; you can close this tab.</p>');
  }
  res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, POST' });
  res.end('Method not allowed');
}

// ---------------------------------------------------------------------------------------------
// The relay path: a server-side host asks, the page answers in its transcript.

/**
 * GET /relay/token: the page's person's relay token (the demo signs in nobody: one person), or with
 * `?member=ana|bruno` a team member's ("Ask the team"), with their name and group.
 */
function handleRelayToken(req, res, url) {
  if (req.method !== 'GET') return sendJson(res, 405, { error: 'GET only' });
  if (relay === null) return sendJson(res, 503, { error: 'the demo runs without a relay: build it with `cargo build -p koder-elicitation-relay`' });
  const member = url.searchParams.get('member');
  const claims = member === null ? { sub: DEMO_SCOPE.userId, workspace: DEMO_SCOPE.workspaceId } : memberClaims(member);
  if (claims === null) return sendJson(res, 404, { error: 'no such team member' });
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(relay.personToken(claims));
}

/** POST /host/team: asks the team (demo/team.mjs) and answers with the host's result. */
async function handleHostTeam(req, res) {
  if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST only' });
  if (relay === null) return sendJson(res, 503, { error: 'the demo runs without a relay' });
  logEvent(undefined, 'ask the team', 'asked the group through the relay');
  try {
    const outcome = await askTheTeam(relay);
    logEvent(undefined, 'ask the team', `ended: ${outcome.status}`, { answeredBy: outcome.answeredBy ?? null });
    return sendJson(res, 200, outcome);
  } catch (error) {
    return sendJson(res, 502, { error: error.message });
  }
}

// The person's side of the relay, as the element calls it (the stream, the pending list, answers),
// and as subscribePush and unsubscribePush call it (the VAPID key, the person's subscriptions).
const RELAY_PATHS = /^\/v1\/(stream|elicitations|elicitations\/[^/]+\/result|push\/key|push\/subscriptions|push\/subscriptions\/[^/]+)$/;
const RELAY_REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'last-event-id'];
const RELAY_RESPONSE_HEADERS = ['content-type', 'cache-control', 'retry-after'];

/** /relay/v1/…: passes the request to the relay and streams its answer back (SSE included). */
function proxyRelay(req, res, relayPath, search) {
  if (relay === null) return sendJson(res, 503, { error: 'the demo runs without a relay' });
  if (!RELAY_PATHS.test(relayPath)) return notFound(res);
  const headers = {};
  for (const name of RELAY_REQUEST_HEADERS) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  const upstream = httpRequest(new URL(relayPath + search, relay.url), { method: req.method, headers }, (answer) => {
    const forwarded = {};
    for (const name of RELAY_RESPONSE_HEADERS) if (answer.headers[name] !== undefined) forwarded[name] = answer.headers[name];
    res.writeHead(answer.statusCode ?? 502, forwarded);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) sendJson(res, 502, { error: 'the relay did not answer' });
    else res.end();
  });
  // The page went away (a closed stream): so does the relay's side of it.
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

/** POST /host/call { tool }: the server-side host calls the tool and answers with its result. */
function handleHostCall(req, res) {
  return callThroughHost(req, res, 'the server-side host', () => {
    host ??= startServerSideHost({ mcpUrl: `http://${HOST}:${port}/mcp`, relay });
    return host;
  }, () => { host = null; });
}

/** The address "E-mail me a link" writes to (the relay e-mails only its allowed domain). */
const DEMO_MAIL_ADDRESS = `you@${DEMO_MAIL_DOMAIN}`;

/**
 * POST /host/email { tool }: a second server-side host calls the tool for a person the page is not
 * signed in as; the relay e-mails them the question's link, which the mail catcher receives.
 */
function handleHostEmail(req, res) {
  if (mail === null) return sendJson(res, 503, { error: 'the demo runs without its mail catcher' });
  return callThroughHost(req, res, 'the e-mailing host', () => {
    mailHost ??= startServerSideHost({
      mcpUrl: `http://${HOST}:${port}/mcp`,
      relay,
      scope: DEMO_MAIL_SCOPE,
      notify: { email: DEMO_MAIL_ADDRESS },
    });
    return mailHost;
  }, () => { mailHost = null; });
}

/** GET /demo/mail: what the mail catcher received, newest last. */
function handleMail(req, res) {
  if (req.method !== 'GET') return sendJson(res, 405, { error: 'GET only' });
  if (mail === null) return sendJson(res, 503, { error: 'the demo runs without its mail catcher' });
  return sendJson(res, 200, { address: DEMO_MAIL_ADDRESS, messages: mail.messages() });
}

/** A host (`connect()` resolves its connection; `forget()` drops a failed one) calls the body's tool. */
async function callThroughHost(req, res, who, connect, forget) {
  if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST only' });
  if (relay === null) return sendJson(res, 503, { error: 'the demo runs without a relay' });
  let tool;
  try {
    tool = JSON.parse(await readBody(req)).tool;
  } catch {
    return sendJson(res, 400, { error: 'the body must be JSON: { "tool": "weather" }' });
  }
  if (typeof tool !== 'string') return sendJson(res, 400, { error: '`tool` must be a string' });
  logEvent(undefined, tool, `called by ${who}`);
  try {
    const result = await (await connect()).callTool(tool);
    logEvent(undefined, tool, `${who} got the result`);
    return sendJson(res, 200, result);
  } catch (error) {
    forget(); // connect again on the next call
    logEvent(undefined, tool, `${who} failed`, { message: error.message });
    return sendJson(res, 502, { error: error.message });
  }
}

// ---------------------------------------------------------------------------------------------
// Static files: www/ at /, dist/ at /dist/

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.ftl': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

async function serveStatic(req, res, rootDir, relPath) {
  // relPath is the decoded URL path below the mount point. Reject anything that could escape.
  if (relPath.includes('\0') || relPath.includes('\\')) return notFound(res);
  const segments = relPath.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.' || s.startsWith('.'))) return notFound(res);
  let file = path.resolve(rootDir, ...segments);
  if (file !== rootDir && !file.startsWith(rootDir + path.sep)) return notFound(res);
  let info;
  try {
    info = await stat(file);
    if (info.isDirectory()) {
      file = path.join(file, 'index.html');
      info = await stat(file);
    }
  } catch {
    return notFound(res);
  }
  if (!info.isFile()) return notFound(res);
  const body = await readFile(file);
  res.writeHead(200, {
    'Content-Type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': body.length,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function notFound(res) {
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end('Not found');
}

function sendJson(res, status, value) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(value));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) { reject(new Error('Body too large')); req.destroy(); return; }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// ---------------------------------------------------------------------------------------------
// /app.js: the browser client, bundled once at startup, in memory

async function bundleClient() {
  const result = await esbuild.build({
    entryPoints: [path.join(HERE, 'client.mjs')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['browser'], // the SDK's browser build
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return Buffer.from(result.outputFiles[0].contents);
}

// ---------------------------------------------------------------------------------------------

async function route(req, res, appJs) {
  const url = new URL(req.url ?? '/', `http://${HOST}:${port}`);
  let pathname;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return notFound(res);
  }
  if (pathname === '/mcp') return handleMcp(req, res);
  if (pathname === '/mcp-2026') return handleMcp2026(req, res);
  const visit = /^\/visit\/([^/]+)$/.exec(pathname);
  if (visit) return handleVisit(req, res, visit[1]);
  if (pathname === '/oauth/fake' || pathname === '/oauth/fake/finish') return handleOauth(req, res, url);
  if (pathname === '/host/call') return handleHostCall(req, res);
  if (pathname === '/host/email') return handleHostEmail(req, res);
  if (pathname === '/demo/mail') return handleMail(req, res);
  if (pathname === '/relay/token') return handleRelayToken(req, res, url);
  if (pathname === '/host/team') return handleHostTeam(req, res);
  if (pathname.startsWith('/relay/v1/')) return proxyRelay(req, res, pathname.slice('/relay'.length), url.search);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' });
    return res.end('Method not allowed');
  }
  if (pathname === '/app.js') {
    res.writeHead(200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Length': appJs.length,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    return res.end(req.method === 'HEAD' ? undefined : appJs);
  }
  if (pathname === '/demo-log') return sendJson(res, 200, events);
  if (pathname === '/dist' ) {
    res.writeHead(301, { Location: '/dist/' });
    return res.end();
  }
  if (pathname.startsWith('/dist/')) return serveStatic(req, res, DIST, pathname.slice('/dist/'.length));
  return serveStatic(req, res, WWW, pathname);
}

function listen(server, firstPort) {
  return new Promise((resolve, reject) => {
    let candidate = firstPort;
    const tryPort = () => {
      const onError = (error) => {
        server.off('listening', onListening);
        if (error.code === 'EADDRINUSE' && candidate !== 0 && candidate < firstPort + PORT_ATTEMPTS - 1) {
          candidate += 1;
          tryPort();
        } else {
          reject(error);
        }
      };
      const onListening = () => {
        server.off('error', onError);
        resolve(server.address().port);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(candidate, HOST);
    };
    tryPort();
  });
}

async function main() {
  if (!Number.isInteger(FIRST_PORT) || FIRST_PORT < 0 || FIRST_PORT > 65535) {
    throw new Error(`PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
  }
  const appJs = await bundleClient();
  if (!existsSync(path.join(DIST, 'koder-mcp-elicitation.js'))) {
    console.warn('Warning: dist/koder-mcp-elicitation.js is missing; run `npm run build` (or `npm start`).');
  }
  const server = createServer((req, res) => {
    route(req, res, appJs).catch((error) => {
      console.error('Request failed:', error);
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal server error' });
      else res.end();
    });
  });
  port = await listen(server, FIRST_PORT);
  try {
    mail = await startMailCatcher();
  } catch (error) {
    console.warn(`Warning: running without the mail catcher ("E-mail me a link" is off): ${error.message}`);
  }
  try {
    relay = await startDemoRelay({ root: ROOT, allowOrigin: `http://${HOST}:${port}`, smtpPort: mail?.port });
    console.log(`Relay: ${relay.url} (SQLite in a temp dir, removed on exit). Development secrets, made for this run:`);
    console.log(`  --service-token ${relay.serviceToken}`);
    console.log(`  --jwt-secret    ${relay.jwtSecret}`);
    console.log(relay.vapidPublicKey === null
      ? 'Web Push: off (this relay binary has no `vapid generate`: rebuild it)'
      : `Web Push: on, with a VAPID key made for this run (public key ${relay.vapidPublicKey}); "Notify me" on the page subscribes`);
    console.log(`Answer page: ${relay.url}/answer/ (a question's link opens it)`);
    if (mail !== null) console.log(`E-mail: to the demo's mail catcher on smtp://127.0.0.1:${mail.port} ("E-mail me a link" shows what it received)`);
  } catch (error) {
    console.warn(`Warning: running without a relay (the transcript view is off): ${error.message}`);
  }
  console.log(`Demo ready: http://${HOST}:${port}/`);

  let stopping = false;
  const shutdown = async () => {
    // Ctrl-C reaches this process twice (from the terminal, and passed on by scripts/start.mjs): a
    // second signal must not kill it before the relay and its temp dir are gone.
    if (stopping) return;
    stopping = true;
    // The relay first, waited for: its temp dir goes once it has exited.
    await relay?.stop();
    for (const connecting of [host, mailHost]) connecting?.then((connected) => connected.close()).catch(() => {});
    mail?.stop();
    for (const { transport } of sessions.values()) transport.close().catch(() => {});
    mrtrHandler.close().catch(() => {});
    server.close(() => process.exit(0));
    server.closeAllConnections?.();
    setTimeout(() => process.exit(0), 1000).unref();
  };
  // However the process ends, the relay and its temp dir go with it.
  process.once('exit', () => relay?.stopNow());
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
