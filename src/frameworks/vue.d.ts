// `import "koder-mcp-elicitation/vue"`: the package's exports, and <koder-mcp-elicitation> among
// Vue 3's GlobalComponents for template type checks (copied to dist/vue.d.ts by scripts/build.mjs).
// Vue turns `@accept` into a listener for "accept" on a custom element, so its events are typed as
// `onAccept` props. Also tell Vue's compiler the tag is a custom element (`isCustomElement`, README).
import type { DefineComponent } from "vue";
import type {
  ElicitationAcceptDetail,
  ElicitationCancelDetail,
  ElicitationCompleteDetail,
  ElicitationInvalidDetail,
  ElicitationOpenDetail,
  ElicitationRejectDetail,
  ElicitationTimeoutDetail,
} from "./koder-mcp-elicitation.js";

export * from "./koder-mcp-elicitation.js";

/** The props of `<koder-mcp-elicitation>` in Vue templates (`server-name` or `serverName`; `@accept`). */
export interface KoderMcpElicitationVueProps {
  serverName?: string;
  lang?: string;
  timeoutMs?: number | string;
  userId?: string;
  workspaceId?: string;
  conversationId?: string;
  /** A template containing `{id}`. */
  statusUrl?: string;
  pollIntervalMs?: number | string;
  rateLimit?: number | string;
  strict?: boolean;
  /** `modal` (default) or `inline`: a card in the page's flow. */
  presentation?: "modal" | "inline";
  /** Inline only: `summary` (default) keeps a read-only summary once settled; `remove` leaves none. */
  settled?: "summary" | "remove";
  /** A request arriving while the page is hidden shows a system notification (permission granted). */
  notify?: boolean;
  /** A one-tap shape (no properties, one boolean, a select of 2–4) shows as buttons that settle at once. */
  oneTap?: boolean;
  onAccept?: (event: CustomEvent<ElicitationAcceptDetail>) => void;
  /** Open again (MCP 2026-07-28): cancelable; `preventDefault()` and open `detail.url` yourself. */
  onOpen?: (event: CustomEvent<ElicitationOpenDetail>) => void;
  onReject?: (event: CustomEvent<ElicitationRejectDetail>) => void;
  onCancel?: (event: CustomEvent<ElicitationCancelDetail>) => void;
  onTimeout?: (event: CustomEvent<ElicitationTimeoutDetail>) => void;
  onComplete?: (event: CustomEvent<ElicitationCompleteDetail>) => void;
  onInvalid?: (event: CustomEvent<ElicitationInvalidDetail>) => void;
}

declare module "vue" {
  interface GlobalComponents {
    "koder-mcp-elicitation": DefineComponent<KoderMcpElicitationVueProps>;
  }
}
