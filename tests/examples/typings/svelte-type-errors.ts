// Must NOT type-check: the e2e suite asserts tsc reports each marked line.
/// <reference path="./node_modules/svelte/svelte-html.d.ts" />
import "koder-mcp-elicitation/svelte";

svelteHTML.createElement("koder-mcp-elicitation", { "timeout-ms": { ms: 5 } }); // line 5: an object for a number
svelteHTML.createElement("koder-mcp-elicitation", { onaccept: (event: CustomEvent<number>) => event.detail }); // line 6: wrong detail
svelteHTML.createElement("koder-mcp-elicitation", { oncancel: (event) => event.detail.reason }); // line 7: reason is reject's
svelteHTML.createElement("koder-mcp-elicitation", { strict: "yes" }); // line 8: a boolean
