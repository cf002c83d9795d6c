// `import "koder-mcp-elicitation/svelte"`: the package's exports, and <koder-mcp-elicitation> in
// Svelte 5's templates (copied to dist/svelte.d.ts by scripts/build.mjs). Svelte 5 attaches an
// attribute `onaccept={...}` as a listener for "accept".
import type { HTMLAttributes } from "svelte/elements";
import type {
  KoderMcpElicitation,
  KoderMcpElicitationAttributes,
  KoderMcpElicitationEventProps,
} from "./koder-mcp-elicitation.js";

export * from "./koder-mcp-elicitation.js";

/** Svelte types `oncancel` and `oninvalid` as plain `Event` handlers; here they carry the element's details. */
type SvelteHostAttributes = Omit<
  HTMLAttributes<KoderMcpElicitation>,
  "oncancel" | "oncancelcapture" | "oninvalid" | "oninvalidcapture" | "lang"
>;

/** The attributes of `<koder-mcp-elicitation>` in Svelte: `bind:this`, the element's attributes, `on<event>` handlers. */
export type KoderMcpElicitationSvelteAttributes = SvelteHostAttributes &
  KoderMcpElicitationAttributes &
  KoderMcpElicitationEventProps;

declare global {
  namespace svelteHTML {
    interface IntrinsicElements {
      "koder-mcp-elicitation": KoderMcpElicitationSvelteAttributes;
    }
  }
}
