// A Vite + React 19 app as the README shows it: the package imported in the main bundle, the element
// rendered by the app. bench/loading.mjs builds it twice, once with `koder-mcp-elicitation` resolved to
// the package (dist/) and once to an empty module, and times the first render of each.
import "koder-mcp-elicitation";
import { StrictMode, useLayoutEffect } from "react";
import { createRoot } from "react-dom/client";

function App() {
  // The first commit: the app is on screen from here.
  useLayoutEffect(() => {
    window.firstRender ??= performance.now();
  }, []);
  return (
    <main>
      <h1>Weather</h1>
      <p>Ask the weather server for a forecast.</p>
      <koder-mcp-elicitation server-name="Weather server" />
    </main>
  );
}

createRoot(document.getElementById("root")).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
