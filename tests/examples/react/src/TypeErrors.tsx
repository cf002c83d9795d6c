// Must NOT type-check (tsconfig.type-check.json): each line marked below is an error a React user
// would otherwise ship. The e2e suite asserts tsc reports every one of these lines.
import { useRef } from "react";
import "koder-mcp-elicitation/react";

export function Wrong() {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <koder-mcp-elicitation timeout-ms={{ ms: 5 }} /> {/* line 10: an object for a number */}
      <koder-mcp-elicitation onaccept={(event: CustomEvent<number>) => event.detail} /> {/* line 11: wrong detail */}
      <koder-mcp-elicitation onAccept={() => {}} /> {/* line 12: never fires in React 19 */}
      <koder-mcp-elicitation onInvalid={() => {}} /> {/* line 13: React's form event, never fires here */}
      <koder-mcp-elicitation ref={input} /> {/* line 14: the ref is the element, not an input */}
      <koder-mcp-elicitation oncancel={(event) => event.detail.reason} /> {/* line 15: reason is reject's */}
      <koder-mcp-elicitation strict="yes" /> {/* line 16: a boolean */}
    </>
  );
}
