// Ask when the button is pressed; the accept event carries the content (and the reply to send back).
const dialog = document.querySelector("koder-mcp-elicitation");

document.getElementById("ask").addEventListener("click", async () => {
  const result = await dialog.elicit({
    message: "Weather lookup needs your input",
    requestedSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  });
  document.getElementById("result").textContent = result.action;
});

dialog.addEventListener("accept", (event) => {
  document.getElementById("accepted").textContent = JSON.stringify(event.detail.result.content);
});
