import { defineConfig } from "vite";
import vue from "@vitejs/plugin-vue";

export default defineConfig({
  plugins: [
    vue({
      template: {
        // <koder-mcp-elicitation> is a custom element, not a Vue component.
        compilerOptions: { isCustomElement: (tag) => tag === "koder-mcp-elicitation" },
      },
    }),
  ],
});
