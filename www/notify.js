// "Notify me": from the click, the notification permission (requestNotificationPermission) and,
// when the demo's relay offers Web Push and the browser has service workers, a push subscription
// for the page's person (subscribePush, through the same-origin proxy /relay/v1/…). The demo's
// elements have `notify`, so a question that arrives while the page is hidden shows a system
// notification; with the subscription, the relay's push reaches the browser even with the page
// closed, and the page's service worker (www/sw.js) shows it. No build step: served as is.

import { requestNotificationPermission } from '/dist/koder-mcp-elicitation.js';

const button = document.getElementById('notify-me');
const status = document.getElementById('notify-status');
const say = (message, state) => {
  status.textContent = message;
  status.dataset.state = state;
};

async function personToken() {
  const response = await fetch('/relay/token', { cache: 'no-store' });
  if (!response.ok) throw new Error(`no relay token (HTTP ${response.status})`);
  return response.text();
}

async function notifyMe() {
  // First, while the click still counts as the person's: the browser asks only from a click.
  const permission = await requestNotificationPermission();
  if (permission !== 'granted') {
    say('Notifications are blocked for this page: allow them in the browser\'s site settings, then click again.', 'error');
    return;
  }
  const inPage = 'This page notifies you when a question arrives while it is hidden.';
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) {
    say(`${inPage} This browser has no Web Push here, so nothing reaches you with the page closed.`, 'partial');
    return;
  }
  say(`${inPage} Subscribing to the relay's Web Push…`, 'partial');
  try {
    await navigator.serviceWorker.register('/sw.js', { type: 'module', scope: '/' });
    const registration = await navigator.serviceWorker.ready;
    // Loaded on the click: pages that never subscribe never download it.
    const { subscribePush } = await import('/dist/relay.js');
    await subscribePush(new URL('/relay', location.href).href, { token: personToken, registration });
    say(`${inPage} Web Push is on: a question from the relay reaches you with the page closed too.`, 'on');
  } catch (error) {
    const why = error?.status === 404 ? 'the demo\'s relay runs without Web Push' : error?.message ?? String(error);
    say(`${inPage} Web Push is off: ${why}.`, 'partial');
  }
}

button.disabled = false;
button.addEventListener('click', () => {
  notifyMe().catch((error) => say(`Notifications failed: ${error.message}`, 'error'));
});
