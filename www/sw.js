// The demo page's service worker: the relay's Web Push, shown, closed and (a one-tap question's
// actions) answered by koder-mcp-elicitation/push-worker.
import { handlePush, handleNotificationClick } from "/dist/push-worker.js";
self.addEventListener("push", (event) => handlePush(event));
self.addEventListener("notificationclick", (event) => handleNotificationClick(event));
