// `import "koder-mcp-elicitation/react"`: the package's exports, and <koder-mcp-elicitation> in
// React 19's JSX (copied to dist/react.d.ts by scripts/build.mjs). React 19 sets a prop on a custom
// element as a property when the element has one, else as an attribute, and attaches a prop named
// `on<event>` as a listener for exactly <event>: so attributes go by their HTML names and events by
// lowercase props (`onaccept`, not `onAccept`).
import type { DetailedHTMLProps, HTMLAttributes } from "react";
import type {
  KoderMcpElicitation,
  KoderMcpElicitationAttributes,
  KoderMcpElicitationEventProps,
} from "./koder-mcp-elicitation.js";

export * from "./koder-mcp-elicitation.js";

/** React's `onInvalid` is its own form event and never fires here: use `oninvalid`. (`onCancel` is React's for `<dialog>` only.) */
type ReactHostAttributes = Omit<HTMLAttributes<KoderMcpElicitation>, "onInvalid" | "onInvalidCapture">;

/** The props of `<koder-mcp-elicitation>` in React: `ref`, the element's attributes, lowercase event props. */
export type KoderMcpElicitationProps = DetailedHTMLProps<ReactHostAttributes, KoderMcpElicitation> &
  KoderMcpElicitationAttributes &
  KoderMcpElicitationEventProps;

declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "koder-mcp-elicitation": KoderMcpElicitationProps;
    }
  }
}
