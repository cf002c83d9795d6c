// The system notification `notify` shows for a request that arrives while the page is hidden. The
// element owns each one with its request (src/element/notify.rs) and closes it when the request
// settles. It never asks for permission: the host calls requestNotificationPermission() from a click.

/**
 * Shows a notification when the document is hidden and permission is granted; `null` otherwise,
 * or where a page cannot construct one (Android's Chrome shows them from service workers only).
 * A click closes it, focuses the window, then calls `onClick`.
 */
export function showNotification(title, body, tag, lang, dir, onClick) {
  if (typeof Notification !== "function" || document.visibilityState !== "hidden" || Notification.permission !== "granted") return null;
  try {
    const notification = new Notification(title, { body, tag, lang, dir });
    notification.onclick = (event) => {
      event.preventDefault();
      notification.close();
      window.focus();
      onClick();
    };
    return notification;
  } catch {
    return null;
  }
}

/** Closes it and lets go of its click handler (the element is dropping it). */
export function closeNotification(notification) {
  notification.onclick = null;
  notification.close();
}
