// The demo page's service worker: the relay's Web Push, shown and closed by koder-mcp-elicitation/push-worker.
import { handlePush, handleNotificationClick } from "/dist/push-worker.js";
self.addEventListener("push", (event) => handlePush(event));
self.addEventListener("notificationclick", (event) => handleNotificationClick(event));
