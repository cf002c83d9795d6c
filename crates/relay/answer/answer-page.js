// The relay's answer page: one question, reached by a link `/answer/#t=<token>`. The token stays in
// the fragment (never sent in a URL, so no log, proxy or Referer sees it) and goes to the relay only
// in POST bodies: `/v1/links/view` reads the question, `/v1/links/answer` answers it. Once read, it
// leaves the address bar and the history (it lives on in this page's memory only). A question
// that has ended shows only how it ended, never its content.
//
// A one-tap question shows as buttons (the element's `one-tap`). An e-mail's choice link,
// `#t=<token>&c=<n>`, opens on that one choice (the relay's view words them, `oneTap.choices`) with
// a single "Confirm": nothing is answered before that tap, so a mail scanner that fetches, or even
// runs, the page answers nothing.
const element = document.querySelector('koder-mcp-elicitation');
const heading = document.querySelector('h1');
const status = document.getElementById('status');
const retry = document.getElementById('retry');
const showAgain = document.getElementById('show-again');
const messages = document.getElementById('messages').content;
const confirmStep = document.getElementById('confirm');
const confirmButton = document.getElementById('confirm-button');
const allChoices = document.getElementById('all-choices');

/** How each ended status the relay reports reads on the page. */
const ENDED = { settled: 'already-answered', complete: 'already-answered', expired: 'expired', withdrawn: 'withdrawn' };

/** The step to run again when the person presses "Try again". */
let again = null;
/** Whether showing the question moves focus: only after the person pressed one of our buttons. */
let focusQuestion = false;

const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get('t') ?? '';
/** The choice an e-mail's link selected (`c=<n>`), until the person asks for all of them. */
let chosen = /^\d{1,3}$/.test(fragment.get('c') ?? '') ? Number(fragment.get('c')) : null;
// Read: out of the address bar and the history (a shared screen, a synced history, a copied
// address would carry it on), before anything else loads or can fail.
history.replaceState(null, '', location.pathname);
/** Whether the element's module loaded (and so defined it). */
const elementLoaded = import('./koder-mcp-elicitation.js').then(() => true, () => false);
/** What "Confirm" sends, and the timer that says "Expired" when the question runs out first. */
let confirming = null;

retry.addEventListener('click', () => {
  focusQuestion = true;
  again?.();
});
showAgain.addEventListener('click', () => {
  focusQuestion = true;
  view();
});
confirmButton.addEventListener('click', () => {
  clearTimeout(confirming.expiry);
  confirmStep.hidden = true;
  answer(confirming.result);
});
allChoices.addEventListener('click', () => {
  clearTimeout(confirming.expiry);
  chosen = null;
  focusQuestion = true;
  // Read again: the time left, or how it ended meanwhile.
  view();
});
view();

/** Reads the question through the link and shows it, or how it ended. */
async function view() {
  say('loading');
  if (token === '') return say('unknown');
  const response = await post('../v1/links/view', { token }, view);
  if (response === null) return;
  if (response.status === 404) return say('unknown');
  const elicitation = response.status === 200 ? response.body?.elicitation : null;
  if (!elicitation || typeof elicitation !== 'object') return unreachable(view);
  if (elicitation.status !== 'pending') return say(ENDED[elicitation.status] ?? 'unknown');
  const choice = chosenChoice(response.body.oneTap);
  if (choice) return showChoice(elicitation, response.body.oneTap, choice);
  await ask(elicitation);
}

/** The choice `c=<n>` named among the relay's `oneTap.choices`, or `null` (none named, out of range, not one-tap). */
function chosenChoice(oneTap) {
  if (chosen === null || !Array.isArray(oneTap?.choices)) return null;
  const choice = oneTap.choices[chosen];
  const usable = typeof choice?.title === 'string' && typeof choice.result === 'object' && choice.result !== null;
  return usable ? choice : null;
}

/** Shows the question with the one answer an e-mail's link chose, and "Confirm"; sends nothing. */
function showChoice(elicitation, oneTap, choice) {
  const timeoutMs = Number(elicitation.expiresInMs) || 0;
  if (timeoutMs <= 0) return say('expired');
  say(null);
  const serverName = typeof elicitation.serverName === 'string' ? elicitation.serverName : '';
  show('confirm-from', serverName !== '');
  document.getElementById('confirm-server').textContent = serverName;
  document.getElementById('confirm-message').textContent = typeof oneTap.message === 'string' ? oneTap.message : '';
  const question = typeof oneTap.question === 'string' ? oneTap.question : '';
  show('confirm-question', question !== '').textContent = question;
  document.getElementById('confirm-answer').textContent = choice.title;
  confirming = { result: choice.result, expiry: setTimeout(() => say('expired'), timeoutMs) };
  confirmStep.hidden = false;
  // Never onto "Confirm": a stray Enter must not answer.
  if (focusQuestion) heading.focus();
}

/** Shows (or hides) the element with id `id`; returns it. */
function show(id, shown) {
  const node = document.getElementById(id);
  node.hidden = !shown;
  return node;
}

/** Shows the question in the element and sends what the person decides. */
async function ask(elicitation) {
  if (!(await elementLoaded)) return unreachable(view);
  const timeoutMs = Number(elicitation.expiresInMs) || 0;
  // Over by the relay's clock, though its sweeper has not marked it yet.
  if (timeoutMs <= 0) return say('expired');
  const deadline = performance.now() + timeoutMs;
  say(null);
  element.hidden = false;
  let result;
  try {
    const pending = element.elicit(elicitation.request, {
      serverName: elicitation.serverName ?? undefined,
      timeoutMs,
    });
    // The button the person pressed is gone: focus goes back to the top, the question next in
    // Tab order. Not into a field: on a phone that would hide the question under the keyboard.
    if (focusQuestion) heading.focus();
    result = await pending;
  } catch {
    // A request the element cannot show (the relay checks each one, so this should not happen).
    element.hidden = true;
    return unreachable(view);
  }
  element.hidden = true;
  if (result?.action === 'cancel') {
    // The question timed out here, or the person put it aside: nothing is sent, so the link
    // still answers it later.
    if (performance.now() >= deadline) return say('expired');
    say('not-sent', showAgain);
    return;
  }
  await answer(result);
}

/** Sends the person's answer; says whether it went in, or how the question had ended. */
async function answer(result) {
  const send = () => answer(result);
  say('sending');
  const response = await post('../v1/links/answer', { token, result }, send);
  if (response === null) return;
  if (response.status === 200) return say(result.action === 'decline' ? 'declined' : 'sent');
  if (response.status === 404) return say('unknown');
  // Ended meanwhile (answered elsewhere, expired, withdrawn): the link's view says how.
  if (response.status === 409) return view();
  unreachable(send);
}

/**
 * POSTs `body` as JSON to `path` (relative to the page, so a relay under a path prefix works) and
 * resolves `{ status, body }` (body `null` when it is not JSON), or `null` after saying the relay
 * could not be reached (then "Try again" runs `step`).
 */
async function post(path, body, step) {
  let response;
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    unreachable(step);
    return null;
  }
  const text = await response.text().catch(() => '');
  let parsed = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: a proxy's error page, say. The status alone decides.
  }
  return { status: response.status, body: parsed };
}

/** The relay did not answer, or answered something unexpected (a proxy's 502, say): offer a retry. */
function unreachable(step) {
  again = step;
  say('unreachable', retry);
}

/**
 * Puts the message `name` (one of the template's, `null` for none) in the status line, shows only
 * the button `action` (if any), and moves focus there when it was lost with what disappeared.
 */
function say(name, action = null) {
  const text = name === null ? '' : messages.querySelector(`[data-message="${name}"]`)?.textContent ?? '';
  // Shown for good once the script runs (hidden, it says "loading" forever to a page without
  // script), and then only emptied: a live region that comes and goes is not reliably read out.
  status.hidden = false;
  status.dataset.outcome = name ?? '';
  if (status.textContent !== text) status.textContent = text;
  for (const button of [retry, showAgain]) button.hidden = button !== action;
  if (name !== null) confirmStep.hidden = true;
  const active = document.activeElement;
  const lost = active === null || active === document.body || active === element || active?.closest('[hidden]') != null;
  if (lost && name !== null && name !== 'loading' && name !== 'sending') (action ?? status).focus();
}
