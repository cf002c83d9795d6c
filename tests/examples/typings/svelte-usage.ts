// What svelte-check makes of a Svelte 5 template: every element becomes a
// svelteHTML.createElement(tag, attributes) call, checked against svelteHTML.IntrinsicElements.
//   <koder-mcp-elicitation bind:this={dialog} server-name="Weather server" timeout-ms={120000}
//     onaccept={(event) => ...} />
/// <reference path="./node_modules/svelte/svelte-html.d.ts" />
import "koder-mcp-elicitation/svelte";
import type { ElicitResult, KoderMcpElicitation } from "koder-mcp-elicitation/svelte";

const dialog: KoderMcpElicitation = svelteHTML.createElement("koder-mcp-elicitation", {
  "server-name": "Weather server",
  "timeout-ms": 120_000,
  "rate-limit": "5",
  strict: true,
  class: "dialog",
  onaccept: (event) => console.log(event.detail.result.content, event.detail.reply),
  onreject: (event) => console.log(event.detail.reason),
  oncancel: (event) => console.log(event.detail.source),
  // null when a URL-mode wait timed out: the accept already answered.
  ontimeout: (event) => console.log(event.detail.result?.action),
  oncomplete: (event) => console.log(event.detail.elicitationId),
  oninvalid: (event) => console.log(event.detail.error.code),
});
export const answer: Promise<ElicitResult> = dialog.elicit({ message: "Hi", requestedSchema: { type: "object", properties: {} } });
