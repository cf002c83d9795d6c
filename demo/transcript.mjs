// The demo page's transcript view (bundled into /app.js with demo/client.mjs). A server-side host
// (demo/host.mjs, an SDK v2 Client in the demo server) calls a tool; the tool's elicitation goes
// through the demo's relay to this page, which shows it as one inline element appended to the
// conversation (connectRelay with place), and the answer goes back to the tool. Each settled
// element stays where it was, as the conversation's record of what was answered.

const TAG = 'koder-mcp-elicitation';

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
      const response = await fetch('/host/call', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ tool }),
      });
      const result = await response.json();
      const text = response.ok
        ? result.content.map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('\n')
        : `${tool} failed: ${result.error}`;
      say('tool', text);
      return result;
    } finally {
      ask.disabled = false;
    }
  }
  ask.addEventListener('click', () => { askViaRelay().catch((error) => say('tool', `failed: ${error.message}`)); });
  return { askViaRelay, disconnect };
}
