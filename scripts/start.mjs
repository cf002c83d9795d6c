#!/usr/bin/env node
// The last step of `npm start`: runs the demo server (demo/server.mjs) and, once it listens, says
// where the demo is, what each part of the page shows, and how to stop it. The server's own output
// passes through unchanged; Ctrl-C (or SIGTERM) reaches the server, which stops its relay too, and
// this process exits with the server's status.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What a newcomer needs once the server listens at `url`. */
export function guide(url, { relay }) {
  return [
    '',
    `The demo is at ${url} : open it in a browser. The page has three parts:`,
    '  1. "With a real MCP server": each button calls a tool of the demo\'s MCP server (/mcp, MCP 2025-11-25,',
    '     and /mcp-2026 for the 2026-07-28 rounds). The server asks through elicitation/create, the dialog',
    '     shows the question, and "Tool result" shows exactly what the server received.',
    relay
      ? '  2. "In the conversation": "Ask for the weather" makes a host on the demo server ask through the demo\'s relay;\n' +
        '     the question appears inline in the transcript, the answer goes back to the tool, and a summary stays.\n' +
        '     "Notify me" turns on system notifications while the page is hidden, and the relay\'s Web Push for when it is closed.\n' +
        '     "Ask the team" asks a group: two members side by side both see it; when one answers, the other reads "Answered by …".'
      : '  2. "In the conversation" is off: no relay binary was built (cargo build -p koder-elicitation-relay).',
    '  3. "Without a server": buttons call el.elicit() directly; the settled result and the element\'s events show below.',
    '  The language picker switches the element between en-US, pt-BR and es (registered by the page).',
    'Stop it with Ctrl-C: the relay and its temporary database go with it. More in demo/README.md.',
    '',
  ].join('\n');
}

function main() {
  const server = spawn(process.execPath, [join(ROOT, 'demo', 'server.mjs')], {
    cwd: ROOT,
    stdio: ['inherit', 'pipe', 'inherit'],
  });
  let relay = false; // the server prints "Relay: <url> …" before it is ready when its relay runs
  createInterface({ input: server.stdout }).on('line', (line) => {
    console.log(line);
    if (line.startsWith('Relay: ')) relay = true;
    const ready = line.match(/^Demo ready: (\S+)/);
    if (ready) console.log(guide(ready[1], { relay }));
  });
  // A terminal's Ctrl-C reaches both processes; a SIGTERM sent to this one alone is passed on.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (server.exitCode === null && server.signalCode === null) server.kill(signal);
    });
  }
  server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
