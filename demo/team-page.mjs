// "Ask the team" (the page's side, bundled into /app.js with demo/client.mjs): two members of one
// team, Ana and Bruno, side by side, as if on two screens. Each column joins the demo's relay with
// that member's own token (/relay/token?member=…), and shows each question for the team
// as an inline element in that member's transcript. The first to answer settles it; the other's
// element closes it and leaves "Answered by {name}" (connectRelay passes the answerer's name).

const TAG = 'koder-mcp-elicitation';
const MEMBERS = ['ana', 'bruno'];

/** Joins the relay once per member and wires "Ask the team"; resolves `{ askTheTeam }`. */
export async function startTeam() {
  const ask = document.querySelector('#ask-team');
  const status = document.querySelector('#team-status');
  const relayUrl = new URL('/relay', location.href).href;
  for (const member of MEMBERS) {
    const column = document.querySelector(`#team-${member}`);
    const transcript = column.querySelector('ol');
    // The member's own connection: an element of its own, kept off the page (each question gets
    // an inline element from `place`), so the page's one modal element stays the first in it.
    document.createElement(TAG).connectRelay(relayUrl, {
      token: async () => {
        const response = await fetch(`/relay/token?member=${member}`, { cache: 'no-store' });
        if (!response.ok) throw new Error(`no token for ${member}: HTTP ${response.status}`);
        return response.text();
      },
      place() {
        const item = document.createElement('li');
        item.className = 'message question';
        const inline = document.createElement(TAG);
        inline.setAttribute('presentation', 'inline');
        inline.setAttribute('lang', document.querySelector('#lang')?.value ?? 'en-US');
        item.append(inline);
        transcript.append(item);
        return inline;
      },
    });
  }

  async function askTheTeam() {
    ask.disabled = true;
    status.textContent = 'Asked the team: Ana and Bruno both see the question.';
    try {
      const response = await fetch('/host/team', { method: 'POST' });
      const outcome = await response.json();
      const by = outcome.answeredBy;
      status.textContent = !response.ok ? `Failed: ${outcome.error}`
        : by ? `The host heard: ${outcome.result?.action ?? outcome.status}, answered by ${by.name ?? by.userId ?? by.email}.`
          : `The host heard: ${outcome.status}.`;
      return outcome;
    } finally {
      ask.disabled = false;
    }
  }
  ask.addEventListener('click', () => { askTheTeam().catch((error) => { status.textContent = `Failed: ${error.message}`; }); });
  ask.disabled = false;
  return { askTheTeam };
}
