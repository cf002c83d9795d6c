// The element in a React 19 app: one import defines it and types it in JSX; attributes go by their
// HTML names, events by lowercase props whose handlers get the typed CustomEvent.
import { useRef, useState } from "react";
import "koder-mcp-elicitation/react";
import type { ElicitationAcceptDetail, ElicitResult, KoderMcpElicitation } from "koder-mcp-elicitation/react";

export function App() {
  const dialog = useRef<KoderMcpElicitation>(null);
  const [accepted, setAccepted] = useState<ElicitationAcceptDetail | null>(null);
  const [result, setResult] = useState<ElicitResult | null>(null);

  async function askForCity() {
    const answer = await dialog.current?.elicit({
      message: "Weather lookup needs your input",
      requestedSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
    if (answer) setResult(answer);
  }

  return (
    <main>
      <button type="button" onClick={askForCity}>Ask for a city</button>
      <koder-mcp-elicitation
        ref={dialog}
        server-name="Weather server"
        timeout-ms={120_000}
        onaccept={(event) => setAccepted(event.detail)}
        oncancel={(event) => console.log("cancelled by", event.detail.source)}
      />
      <p>
        accepted: <output id="accepted">{accepted ? JSON.stringify(accepted.result.content) : ""}</output>
      </p>
      <p>
        result: <output id="result">{result ? result.action : ""}</output>
      </p>
    </main>
  );
}
