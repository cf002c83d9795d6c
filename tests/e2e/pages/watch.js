// Loaded first, as a classic script, by the strict-CSP and engine pages: records what a page would
// otherwise only log, so every engine (even one driven over plain WebDriver, with no console access)
// can assert that nothing went wrong. Read by the drivers as `window.__problems`.
window.__problems = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__problems.push(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} in ${e.sourceFile || '?'}:${e.lineNumber}`);
}, true);
window.addEventListener('error', (e) => {
  window.__problems.push(`error: ${e.message || e.error || e.type} (${e.filename || (e.target && e.target.src) || '?'}:${e.lineno || 0})`);
}, true);
window.addEventListener('unhandledrejection', (e) => {
  window.__problems.push(`unhandled rejection: ${e.reason && e.reason.stack || e.reason}`);
});
