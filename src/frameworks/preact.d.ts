// `import "koder-mcp-elicitation/preact"`: the package's exports, and <koder-mcp-elicitation> in
// Preact's JSX (copied to dist/preact.d.ts by scripts/build.mjs). Preact attaches `onaccept` as a
// listener for "accept" but `onAccept` for "Accept", so events go by lowercase props.
import type { HTMLAttributes } from "preact";
import type {
  KoderMcpElicitation,
  KoderMcpElicitationAttributes,
  KoderMcpElicitationEventProps,
} from "./koder-mcp-elicitation.js";

export * from "./koder-mcp-elicitation.js";

/** Preact's `onCancel` and `onInvalid` are plain `Event` handlers: use `oncancel` and `oninvalid`. */
type PreactHostAttributes = Omit<
  HTMLAttributes<KoderMcpElicitation>,
  "onCancel" | "onCancelCapture" | "onInvalid" | "onInvalidCapture" | "lang"
>;

/** The props of `<koder-mcp-elicitation>` in Preact: `ref`, the element's attributes, lowercase event props. */
export type KoderMcpElicitationPreactProps = PreactHostAttributes &
  KoderMcpElicitationAttributes &
  KoderMcpElicitationEventProps;

declare module "preact" {
  namespace JSX {
    interface IntrinsicElements {
      "koder-mcp-elicitation": KoderMcpElicitationPreactProps;
    }
  }
}
