// The demo's mail catcher: a real SMTP server (the smtp-server package) on a free port of 127.0.0.1
// that the demo's relay sends its e-mail to (`--smtp-url smtp://127.0.0.1:<port>`: plain SMTP, which
// the relay allows to localhost only). It keeps the last messages, parsed (mailparser), for the page
// to show as received: its subject, its text and the answer link in it. Nothing leaves the machine.

import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

/** How many received messages are kept (the oldest go first). */
const KEEP = 20;
/** The largest message accepted (the relay's are a few KiB). */
const MAX_MESSAGE_BYTES = 256 * 1024;

/** The answer link in a message's text: the relay's page with the token in the fragment. */
export function answerLink(text) {
  return /https?:\/\/\S+\/answer\/#t=[A-Za-z0-9_-]+/.exec(text ?? '')?.[0] ?? null;
}

/** Starts the catcher; resolves `{ port, messages(), stop() }` once it listens. */
export async function startMailCatcher() {
  const received = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    banner: 'koder demo mail catcher',
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            from: mail.from?.text ?? '',
            subject: mail.subject ?? '',
            date: (mail.date ?? new Date()).toISOString(),
            text: mail.text ?? '',
            link: answerLink(mail.text),
          });
          received.splice(0, Math.max(0, received.length - KEEP));
          callback();
        })
        .catch((error) => callback(error));
    },
  });
  const port = await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.server.address().port));
  });
  return {
    port,
    /** The messages received, oldest first. */
    messages: () => received.slice(),
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}
