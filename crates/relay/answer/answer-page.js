// The answer page's script (a placeholder the page's own replaces): it reads the link's token
// from the fragment, which never reaches the relay in a URL, and sends it in a POST body.
const token = new URLSearchParams(location.hash.slice(1)).get("t");
const status = document.getElementById("answer-status");
if (token && status) {
  fetch("/v1/links/view", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  })
    .then((response) => response.json())
    .then((body) => {
      status.textContent = body.elicitation ? body.elicitation.status : "";
    });
}
