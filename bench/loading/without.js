// What `koder-mcp-elicitation` resolves to in the app built without the package.
