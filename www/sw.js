// The demo page's service worker: the relay's Web Push, shown and closed by koder-mcp-elicitation/push-worker.
// A one-tap question's push shows its actions ("Yes" / "No"); a tap on one answers through the
// question's link with no window, or opens the link when that fails.
import { handlePush, handleNotificationClick } from "/dist/push-worker.js";
self.addEventListener("push", (event) => handlePush(event));
self.addEventListener("notificationclick", (event) => handleNotificationClick(event));
