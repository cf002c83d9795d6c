// The element in Preact's JSX.
import { useRef, useState } from "preact/hooks";
import "koder-mcp-elicitation/preact";
import type { ElicitationAcceptDetail, KoderMcpElicitation } from "koder-mcp-elicitation/preact";

export function App() {
  const dialog = useRef<KoderMcpElicitation>(null);
  const [accepted, setAccepted] = useState<ElicitationAcceptDetail | null>(null);
  return (
    <main>
      <button type="button" onClick={() => dialog.current?.elicit({ message: "Hi", requestedSchema: { type: "object", properties: {} } })}>
        Ask
      </button>
      <koder-mcp-elicitation
        ref={dialog}
        server-name="Weather server"
        timeout-ms={120_000}
        strict
        onaccept={(event) => setAccepted(event.detail)}
        oncancel={(event) => console.log(event.detail.source)}
        oninvalid={(event) => console.log(event.detail.error.message)}
      />
      <output>{accepted ? JSON.stringify(accepted.result.content) : ""}</output>
    </main>
  );
}
