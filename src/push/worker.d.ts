// `koder-mcp-elicitation/push-worker`: for an app's own service worker (see src/push/worker.js).

export interface HandlePushOptions {
  /** Show the notification even while a window of the app is visible and focused. */
  showWhenFocused?: boolean;
  /** The notification's icon URL. */
  icon?: string;
  /** The notification's badge URL (the small monochrome image on Android). */
  badge?: string;
}

/** The least of a `PushEvent` that `handlePush` reads. */
export interface PushEventLike {
  readonly data: { json(): unknown } | null;
  waitUntil(promise: Promise<unknown>): void;
}

/** The least of a `NotificationEvent` that `handleNotificationClick` reads. */
export interface NotificationEventLike {
  readonly notification: { readonly data: unknown; close(): void };
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * Handles a `push` event from the relay: `{ type: "elicitation", id, serverName, message, url?,
 * title?, body?, lang?, dir? }` shows a notification tagged `id` (the relay's `title` and `body` in
 * its `lang`, the words the element's `notify` uses; without them, the server's name as the title
 * and the message as the body; all plain text),
 * unless a window of the app is visible and focused (unless `options.showWhenFocused`);
 * `{ type: "settled", id }` closes the notification tagged `id`. Anything else is ignored. Calls
 * `event.waitUntil` and resolves `true` when the payload was one of the relay's.
 */
export declare function handlePush(event: PushEventLike, options?: HandlePushOptions): Promise<boolean>;

/**
 * Handles a `notificationclick` on a notification `handlePush` showed: closes it and focuses the
 * app's window at the payload's `url` (same origin as the worker, else the worker's scope), or
 * opens one. Returns `false` for any other notification (the app's own to handle).
 */
export declare function handleNotificationClick(event: NotificationEventLike): false | Promise<boolean>;
