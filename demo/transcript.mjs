// The demo page's transcript view (bundled into /app.js with demo/client.mjs). A server-side host
// (demo/host.mjs, an SDK v2 Client in the demo server) calls a tool; the tool's elicitation goes
// through the demo's relay to this page, which shows it as one inline element appended to the
// conversation (connectRelay with place), and the answer goes back to the tool. Each settled
// element stays where it was, as the conversation's record of what was answered.

const TAG = 'koder-mcp-elicitation';
/** How often the mailbox is read while a question is out by e-mail. */
const MAIL_POLL_MS = 1000;

/**
 * Has a demo server host (`path`: /host/call or /host/email) call `tool`; the transcript says the
 * tool's result, which this resolves with.
 */
async function callHost(path, tool, say) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ tool }),
  });
  const result = await response.json();
  say('tool', response.ok
    ? result.content.map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('\n')
    : `${tool} failed: ${result.error}`);
  return result;
}

/**
 * "E-mail me a link": the e-mailing host calls `tool`; meanwhile the mailbox shows what the mail
 * catcher received (the answer link among it), and the tool's result ends in the transcript.
 */
async function askByEmail(tool, button, say) {
  button.disabled = true;
  say('user', `Server-side host: calling ${tool} for someone reached by e-mail…`);
  const seen = (await readMail())?.messages.length ?? 0;
  let polling = true;
  const poll = async () => {
    while (polling) {
      showMail(await readMail(), seen);
      await new Promise((resolve) => { setTimeout(resolve, MAIL_POLL_MS); });
    }
  };
  const polled = poll();
  try {
    return await callHost('/host/email', tool, say);
  } finally {
    polling = false;
    await polled;
    showMail(await readMail(), seen);
    button.disabled = false;
  }
}

/** The mail catcher's messages, or null when it cannot be read. */
async function readMail() {
  const response = await fetch('/demo/mail', { cache: 'no-store' }).catch(() => null);
  return response?.ok ? response.json() : null;
}

/** Shows the mailbox: each message as received (its text as text, its answer link as a link). */
function showMail(mail, seenBefore) {
  if (mail === null) return;
  const box = document.querySelector('#mailbox');
  const status = document.querySelector('#mail-status');
  const messages = mail.messages;
  if (box.childElementCount === messages.length) return;
  box.replaceChildren(...messages.map((message) => {
    const item = document.createElement('li');
    item.className = 'mail';
    const subject = document.createElement('p');
    subject.className = 'mail-subject';
    subject.textContent = `To ${message.to.join(', ')}: ${message.subject}`;
    const text = document.createElement('pre');
    text.className = 'output mail-text';
    text.textContent = message.text;
    item.append(subject, text);
    if (message.link !== null) {
      const open = document.createElement('a');
      open.className = 'mail-link';
      open.href = message.link;
      open.target = '_blank';
      open.rel = 'noopener noreferrer';
      open.textContent = 'Open the link (the relay\'s answer page)';
      item.append(open);
    }
    return item;
  }));
  const fresh = messages.length - seenBefore;
  status.textContent = fresh > 0
    ? `${fresh} new message${fresh === 1 ? '' : 's'} for ${mail.address}.`
    : `No new message for ${mail.address} yet.`;
}

/** Joins the relay through `hub` and wires the transcript's button. */
export async function startTranscript(hub) {
  const transcript = document.querySelector('#transcript');
  const status = document.querySelector('#relay-status');
  const ask = document.querySelector('#ask-via-relay');
  const setStatus = (message, state) => {
    status.textContent = message;
    status.dataset.state = state;
  };
  const say = (who, text) => {
    const item = document.createElement('li');
    item.className = `message ${who}`;
    item.textContent = text;
    transcript.append(item);
    return item;
  };

  const token = async () => {
    const response = await fetch('/relay/token', { cache: 'no-store' });
    if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error ?? `HTTP ${response.status}`);
    return response.text();
  };
  try {
    await token();
  } catch (error) {
    setStatus(`No relay: ${error.message}`, 'error');
    return null;
  }

  // --- the transcript wiring (as in the README) ------------------------------------------------
  const disconnect = hub.connectRelay(new URL('/relay', location.href).href, {
    token,
    // One new inline element per elicitation, at the end of its conversation; the relay client
    // asks it, posts the answer, and leaves it showing its summary.
    place(view) {
      if (view.conversationId !== transcript.dataset.conversation) return null;
      const item = document.createElement('li');
      item.className = 'message question';
      const inline = document.createElement(TAG);
      inline.setAttribute('presentation', 'inline');
      // A system notification when it arrives while the page is hidden ("Notify me" asks permission).
      inline.setAttribute('notify', '');
      inline.setAttribute('conversation-id', view.conversationId);
      item.append(inline);
      transcript.append(item);
      return inline;
    },
  });
  // --- end of the transcript wiring --------------------------------------------------------------
  setStatus('Connected to the demo relay.', 'connected');
  ask.disabled = false;

  async function askViaRelay(tool = ask.dataset.tool) {
    ask.disabled = true;
    say('user', `Server-side host: calling ${tool}…`);
    try {
      return await callHost('/host/call', tool, say);
    } finally {
      ask.disabled = false;
    }
  }
  ask.addEventListener('click', () => { askViaRelay().catch((error) => say('tool', `failed: ${error.message}`)); });
  const emailMe = document.querySelector('#email-me');
  emailMe.disabled = false;
  const emailLink = (tool = emailMe.dataset.tool) => askByEmail(tool, emailMe, say);
  emailMe.addEventListener('click', () => { emailLink().catch((error) => say('tool', `failed: ${error.message}`)); });
  return { askViaRelay, emailLink, disconnect };
}
