// Must NOT type-check: the e2e suite asserts tsc reports each marked line.
import "koder-mcp-elicitation/preact";

export const wrong = [
  <koder-mcp-elicitation timeout-ms={{ ms: 5 }} />, // line 5: an object for a number
  <koder-mcp-elicitation onaccept={(event: CustomEvent<number>) => event.detail} />, // line 6: wrong detail
  <koder-mcp-elicitation onAccept={() => {}} />, // line 7: listens for "Accept", never fires
  <koder-mcp-elicitation oncancel={(event) => event.detail.reason} />, // line 8: reason is reject's
  <koder-mcp-elicitation strict="yes" />, // line 9: a boolean
];
