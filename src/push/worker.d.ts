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
  /** The tapped action's `action` (`""` or absent for a tap on the notification itself). */
  readonly action?: string;
  waitUntil(promise: Promise<unknown>): void;
}

/** One of a push's actions: a button on the notification. */
export interface PushAction {
  /** `choice-<n>`: the key of its result in `PushAnswer.results`. */
  action: string;
  /** Its words, in the notification's language. */
  title: string;
}

/** What a one-tap push carries so a tap on an action answers through the question's link. */
export interface PushAnswer {
  /** `<public-url>/v1/links/answer`. */
  endpoint: string;
  /** The push's link token. */
  token: string;
  /** `<public-url>/answer/#t=<token>`: opened when the answer is not taken. */
  link: string;
  /** The `ElicitResult` each action answers, by its `action`. */
  results: Record<string, { action: "accept" | "decline"; content?: Record<string, unknown> }>;
}

/**
 * Handles a `push` event from the relay: `{ type: "elicitation", id, serverName, message, url?,
 * title?, body?, lang?, dir?, actions?, answer? }` shows a notification tagged `id` (the relay's
 * `title` and `body` in its `lang`, the words the element's `notify` uses; without them, the
 * server's name as the title and the message as the body; all plain text; `actions` as its
 * buttons, `answer` kept in its `data` for the tap),
 * unless a window of the app is visible and focused (unless `options.showWhenFocused`);
 * `{ type: "settled", id }` closes the notification tagged `id`. Anything else is ignored. Calls
 * `event.waitUntil` and resolves `true` when the payload was one of the relay's.
 */
export declare function handlePush(event: PushEventLike, options?: HandlePushOptions): Promise<boolean>;

/**
 * Handles a `notificationclick` on a notification `handlePush` showed: closes it; with
 * `event.action` (one of the push's actions), answers through the question's link with one
 * `POST answer.endpoint` `{ token, result }` and opens no window (resolves `true`), or, when that
 * fails (offline, `409`, `404`, any other answer), opens `answer.link` (resolves `false`).
 * Without an action, focuses the app's window at the payload's `url` (same origin as the worker,
 * else the worker's scope), or opens one. Returns `false` for any other notification (the app's
 * own to handle).
 */
export declare function handleNotificationClick(event: NotificationEventLike): false | Promise<boolean>;
