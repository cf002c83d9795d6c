// The transcript page's own behaviour (a file, not inline script, so strict CSP pages can load it):
// a page button whose clicks are counted, to show the page stays usable while a question waits.
const clicks = document.getElementById('clicks');
document.getElementById('page-button').addEventListener('click', () => {
  clicks.textContent = String(Number(clicks.textContent) + 1);
});
