#!/usr/bin/env bash
# `npm test` — every check, in order, stopping at the first failure:
#   fmt, clippy (host), clippy (wasm32), cargo test (native, the relay's against real SQLite and a
#   throwaway PostgreSQL), wasm-bindgen-test in headless Chromium (tests/browser_*.rs), npm run
#   build (plus the relay binary), the Python hosts' package (clients/python: ruff, mypy --strict,
#   pytest against that relay binary), the relay's static binary, tarball and image
#   (scripts/image.sh), the repository's own checks (node --test tests/repo: the docs'
#   links and examples, npm start's bootstrap and guide), node --test tests/e2e/*.test.mjs
#   (Chromium, plus the contract smoke in Firefox and WebKit: tests/e2e/engines.test.mjs).
# `npm test` runs scripts/bootstrap.sh first, so this assumes the toolchain is installed.
#
# Environment:
#   CHROMEDRIVER     chromedriver for wasm-pack test      (default /usr/bin/chromedriver)
#   CHROMIUM_PATH    browser for the e2e suites           (default /usr/bin/chromium)
#   FIREFOX_PATH, WEBKIT_DRIVER, MINIBROWSER   the other engines (defaults: the Debian packages)
#   WASM_TESTS       cargo --test pattern for the browser tests (default 'browser_*')
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# shellcheck source=scripts/cargo-env.sh
. "$ROOT/scripts/cargo-env.sh"

START=$SECONDS
STAGE=""
STAGE_START=$SECONDS
DONE=()

finish_stage() {
  if [ -n "$STAGE" ]; then
    DONE+=("$STAGE $((SECONDS - STAGE_START))s")
  fi
}
stage() {
  finish_stage
  STAGE="$1"
  STAGE_START=$SECONDS
  printf '\n==== [%s] %s ====\n' "$(date +%H:%M:%S)" "$STAGE"
}
on_exit() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    printf '\ntest.sh: FAILED in stage "%s" (exit %s) after %ss; passed before it: %s\n' \
      "$STAGE" "$rc" "$((SECONDS - START))" "${DONE[*]:-none}" >&2
  fi
}
trap on_exit EXIT

stage "cargo fmt --check"
cargo fmt --all -- --check

stage "cargo clippy (host)"
cargo clippy --workspace --all-targets -- -D warnings

stage "cargo clippy (wasm32-unknown-unknown)"
cargo clippy -p koder-mcp-elicitation -p koder-mcp-elicitation-core --all-targets --target wasm32-unknown-unknown -- -D warnings

stage "cargo test (native, every crate)"
cargo test --workspace

stage "wasm-pack test --headless --chrome"
WASM_TESTS="${WASM_TESTS:-browser_*}"
shopt -s nullglob
browser_tests=(tests/${WASM_TESTS}.rs)
shopt -u nullglob
if [ ${#browser_tests[@]} -eq 0 ]; then
  echo "no tests/${WASM_TESTS}.rs files: skipped"
else
  export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
  # wasm-bindgen-test-runner reads browser capabilities from this file (default: ./webdriver.json
  # relative to its working directory); pin it so it never depends on where cargo runs it.
  export WASM_BINDGEN_TEST_WEBDRIVER_JSON="${WASM_BINDGEN_TEST_WEBDRIVER_JSON:-$ROOT/webdriver.json}"
  # The browser suites plus any #[wasm_bindgen_test] inside src/ (--lib); the harness=false
  # runners and doctests are native-only and already ran under `cargo test`.
  wasm-pack test --headless --chrome --chromedriver "$CHROMEDRIVER" -- --lib --test "$WASM_TESTS"
fi

stage "npm run build"
node scripts/build.mjs
# The e2e suites start real relays from target/debug (tests/e2e/relay-harness.mjs).
cargo build -p koder-elicitation-relay

stage "python hosts (ruff, mypy --strict, pytest)"
# clients/python, in the repository's .venv (scripts/bootstrap.sh installs it there, editable, with
# its pinned test tools). Its pytest suites start the relay binary built above. tests/test_frameworks.py
# is the agent frameworks' matrix: a venv per framework and mcp line, made with `pip install
# <framework> ./clients/python` and cached in target/python-frameworks (keyed by a hash of the package
# and the framework), so a warm run only runs them. Any non-zero exit fails the stage, pytest's 5
# ("no tests ran") included.
(
  cd clients/python
  ../../.venv/bin/ruff check .
  ../../.venv/bin/ruff format --check .
  ../../.venv/bin/mypy
  ../../.venv/bin/python -m pytest -q -p no:cacheprovider
)

stage "relay image (npm run image)"
# Once, here: the static binary, its tarball and the image (when an engine works here) that
# tests/e2e/relay-image.test.mjs checks. After the build, so the image carries dist/.
bash scripts/image.sh --allow-no-engine

stage "docs and scripts (node --test tests/repo)"
# After the build: the docs' runnable examples import dist/, and npm start's check runs the demo.
node --test --test-concurrency=1 tests/repo/*.test.mjs

stage "e2e (node --test tests/e2e)"
shopt -s nullglob
e2e=(tests/e2e/*.test.mjs)
shopt -u nullglob
if [ ${#e2e[@]} -eq 0 ]; then
  echo "no tests/e2e/*.test.mjs: skipped"
else
  # One suite at a time: each launches its own Chromium and the CI machine has 2 cores.
  node --test --test-concurrency=1 "${e2e[@]}"
fi

finish_stage
STAGE="summary"
printf '\ntest.sh: all %d stages passed in %ss: %s\n' "${#DONE[@]}" "$((SECONDS - START))" "$(IFS=,; echo "${DONE[*]}" | sed 's/,/, /g')"
