#!/usr/bin/env bash
# Installs what the project needs on a bare Debian machine that has Rust (rustup) and Node 20 + npm.
#
#   bash scripts/bootstrap.sh          everything `npm test` and `.ci/run` need: the demo's part below,
#                                      then rustfmt and clippy, wasm-pack (for `wasm-pack test`), the
#                                      browsers, tmux, the example apps' npm packages, a Python venv
#                                      (the mcp SDK, the Python hosts' package and its test tools),
#                                      PostgreSQL, and the relay image's tools (the musl target,
#                                      musl-tools, podman)
#   bash scripts/bootstrap.sh --demo   only what `npm start` needs to build and serve the demo: the wasm
#                                      target, the wasm-bindgen CLI and the root's npm packages (the
#                                      relay binary is built by scripts/relay-binary.sh)
#
# Idempotent: every step checks first and skips when the tool is already there, so a warm machine
# finishes in a second or two. A `cargo install` runs side by side with the steps after it
# (scripts/side-by-side.sh: its lines are prefixed with its name). Works non-interactively (CI=true,
# no stdin). Only registries are used: crates.io, npm, PyPI, Debian.
set -euo pipefail

MODE=all
case "${1:-}" in
  "") ;;
  --demo) MODE=demo ;;
  *) printf 'bootstrap: unknown argument %s (only --demo is accepted)\n' "$1" >&2; exit 2 ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# shellcheck source=scripts/cargo-env.sh
. "$ROOT/scripts/cargo-env.sh"
# shellcheck source=scripts/side-by-side.sh
. "$ROOT/scripts/side-by-side.sh"
START=$SECONDS
say() { printf 'bootstrap: %s\n' "$*"; }
die() { printf 'bootstrap: ERROR: %s\n' "$*" >&2; exit 1; }

for tool in cargo rustup node npm; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found on PATH (need Rust via rustup, Node 20 + npm)"
done

# ==== The demo's part (npm start): the wasm build, the npm packages =============================

# 1. wasm target ------------------------------------------------------------------------------
if rustup target list --installed | grep -qx 'wasm32-unknown-unknown'; then
  say "rust target wasm32-unknown-unknown: present"
else
  say "rust target wasm32-unknown-unknown: installing"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen CLI matching the wasm-bindgen crate in Cargo.lock --------------------------
# scripts/build.mjs runs it on cargo's wasm, and `wasm-pack test` uses the wasm-bindgen-test-runner
# it comes with: both must be Cargo.lock's version exactly (wasm-pack would otherwise try to download
# one from GitHub, which is not reachable here). It compiles for a few minutes, alongside npm ci.
if [ ! -f Cargo.lock ]; then
  say "Cargo.lock: missing, generating"
  cargo generate-lockfile
fi
WB_VERSION="$(awk '
  /^\[\[package\]\]/ { in_wb = 0 }
  /^name = "wasm-bindgen"$/ { in_wb = 1; next }
  in_wb && /^version = / { gsub(/"/, "", $3); print $3; exit }
' Cargo.lock)"
if [ -z "$WB_VERSION" ]; then
  # Not resolved yet (e.g. the dependency is target-specific and the lock is stale): use the pin.
  WB_VERSION="$(sed -n 's/^wasm-bindgen *= *"=\{0,1\}\([0-9][0-9.]*\)".*/\1/p' Cargo.toml | head -n1)"
fi
[ -n "$WB_VERSION" ] || die "cannot find the wasm-bindgen version in Cargo.lock or Cargo.toml"

# A debug build: it compiles in half the CPU time of a release one (161 s against 329 s measured
# here), writes byte for byte the same output, and its 0.3 s more per run do not matter.
install_wasm_bindgen_cli() {
  cargo install --debug --locked --force wasm-bindgen-cli --version "$WB_VERSION" || {
    # The CLI's own lockfile can name crate versions a registry mirror lacks.
    say "wasm-bindgen-cli: --locked install failed, retrying without --locked"
    cargo install --debug --force wasm-bindgen-cli --version "$WB_VERSION"
  }
  local got
  got="$(wasm-bindgen --version | awk '{print $2}')"
  [ "$got" = "$WB_VERSION" ] || die "wasm-bindgen on PATH is $got, expected $WB_VERSION (check PATH order)"
  say "wasm-bindgen-cli $WB_VERSION: installed"
}

have_wb="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
have_runner="$(command -v wasm-bindgen-test-runner || true)"
if [ "$have_wb" = "$WB_VERSION" ] && [ -n "$have_runner" ]; then
  say "wasm-bindgen-cli $WB_VERSION: present"
else
  say "wasm-bindgen-cli $WB_VERSION: installing with cargo, alongside the next steps (had: ${have_wb:-none}; a few minutes)"
  side_start wasm-bindgen-cli install_wasm_bindgen_cli
fi

# 3. npm dependencies -------------------------------------------------------------------------
npm_flags=(--no-audit --no-fund --loglevel=error)
if [ -f package-lock.json ]; then
  if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] \
     || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "node_modules: npm ci"
    npm ci "${npm_flags[@]}" </dev/null
  else
    say "node_modules: up to date with package-lock.json"
  fi
else
  if [ ! -d node_modules ] || [ package.json -nt node_modules ]; then
    say "node_modules: npm install (no package-lock.json)"
    npm install "${npm_flags[@]}" </dev/null
  else
    say "node_modules: present (no package-lock.json)"
  fi
fi

side_wait

if [ "$MODE" = demo ]; then
  say "demo's part done in $((SECONDS - START))s (\`npm test\` installs the rest)"
  exit 0
fi

# ==== The tests' part (npm test, .ci/run) ======================================================

# apt-get update, then install the packages named, as root or through sudo.
# shellcheck source=scripts/apt.sh
. "$ROOT/scripts/apt.sh"

# 4. rustfmt and clippy (the first stages of scripts/test.sh) ---------------------------------
missing_components=()
cargo fmt --version >/dev/null 2>&1 || missing_components+=(rustfmt)
cargo clippy --version >/dev/null 2>&1 || missing_components+=(clippy)
if [ ${#missing_components[@]} -eq 0 ]; then
  say "rustfmt, clippy: present"
else
  say "rust components ${missing_components[*]}: installing"
  rustup component add "${missing_components[@]}"
fi

# 5. wasm-pack: scripts/test.sh runs the browser tests with `wasm-pack test` ------------------
# (npm start's build does not use it.) It compiles for a few minutes, alongside the steps below.
install_wasm_pack() {
  cargo install --locked wasm-pack || {
    say "wasm-pack: --locked install failed, retrying without --locked"
    cargo install wasm-pack
  }
  say "wasm-pack: installed ($(wasm-pack --version | awk '{print $2}'))"
}
if command -v wasm-pack >/dev/null 2>&1; then
  say "wasm-pack: present ($(wasm-pack --version 2>/dev/null | awk '{print $2}'))"
else
  say "wasm-pack: installing with cargo, alongside the next steps (a few minutes)"
  side_start wasm-pack install_wasm_pack
fi

# 6. Debian packages: browsers and tools the tests drive ----------------------------------------
# Chromium + chromedriver (wasm-bindgen-test, the e2e suites); Firefox ESR, WebKitGTK's WebDriver +
# MiniBrowser and Xvfb (the contract smoke in the other two engines, tests/e2e/engines.test.mjs); tmux
# (the terminal surface's tests drive koder-elicit in its panes). One apt-get update + install for
# whatever is missing.
debian_packages=()
[ -x /usr/bin/chromium ] || debian_packages+=(chromium)
[ -x /usr/bin/chromedriver ] || debian_packages+=(chromium-driver)
[ -x /usr/bin/firefox-esr ] || debian_packages+=(firefox-esr)
if [ ! -x /usr/bin/WebKitWebDriver ] || ! compgen -G '/usr/lib/*/webkit2gtk-4.1/MiniBrowser' >/dev/null; then
  debian_packages+=(webkit2gtk-driver)
fi
[ -x /usr/bin/Xvfb ] || debian_packages+=(xvfb)
command -v tmux >/dev/null 2>&1 || debian_packages+=(tmux)
if [ ${#debian_packages[@]} -eq 0 ]; then
  say "chromium, chromium-driver, firefox-esr, webkit2gtk-driver, xvfb, tmux: present"
else
  say "${debian_packages[*]}: installing with apt-get (1-3 minutes)"
  apt_install "${debian_packages[@]}"
  for tool in /usr/bin/chromium /usr/bin/chromedriver /usr/bin/firefox-esr /usr/bin/WebKitWebDriver /usr/bin/Xvfb; do
    [ -x "$tool" ] || die "apt-get did not provide $tool"
  done
  command -v tmux >/dev/null 2>&1 || die "apt-get did not provide tmux"
fi

# 7. the example apps' npm dependencies -----------------------------------------------------------
# tests/examples/<app>/ each keep their own lockfile (Vite, React, Vue, ...), apart from the root's;
# the frameworks e2e suite installs the packed tarball into them.
shopt -s nullglob
for lock in tests/examples/*/package-lock.json; do
  example="$(dirname "$lock")"
  if [ ! -f "$example/node_modules/.package-lock.json" ] || [ "$lock" -nt "$example/node_modules/.package-lock.json" ]; then
    say "$example: npm ci"
    (cd "$example" && npm ci "${npm_flags[@]}" </dev/null)
  else
    say "$example: up to date with its package-lock.json"
  fi
done
shopt -u nullglob

# 8. the Python MCP SDK for the terminal's tests -----------------------------------------------------
# crates/terminal/tests/connect_revisions.rs drives a real server on PyPI `mcp`
# (tests/peers/python/) with the repository's own venv, .venv (gitignored). Debian's python3 needs
# python3-venv (ensurepip) to create one.
PY_MCP_VERSION=2.3.0
if [ -x .venv/bin/python ] \
   && .venv/bin/python -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$PY_MCP_VERSION')" 2>/dev/null; then
  say "python venv .venv with mcp $PY_MCP_VERSION: present"
else
  command -v python3 >/dev/null 2>&1 || die "python3 not found on PATH (the terminal tests need Python 3.10+)"
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    say "python3-venv: installing with apt-get"
    apt_install python3-venv
  fi
  say "python venv .venv: installing mcp==$PY_MCP_VERSION with pip"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "mcp==$PY_MCP_VERSION" </dev/null
fi

# 8b. the Python hosts' package (clients/python) and its test tools, in the same venv -------------
# Installed editable, so its tests run the working tree's code; pinned, so every machine runs the
# same linter, type checker, FastMCP and pydantic-ai. The stamp records what was installed: a change
# to the pins or to clients/python/pyproject.toml installs again.
PY_HOST_PINS="mcp==$PY_MCP_VERSION fastmcp==4.2.3 pydantic-ai-slim[mcp]==2.68.0 pytest==9.2.0 mypy==2.4.1 ruff==0.17.5"
PY_HOST_STAMP=".venv/.koder-python-host"
py_host_want="$PY_HOST_PINS $(sha256sum clients/python/pyproject.toml | cut -d' ' -f1)"
if [ -f "$PY_HOST_STAMP" ] && [ "$(cat "$PY_HOST_STAMP")" = "$py_host_want" ] \
   && .venv/bin/python -c 'import koder_elicitation_relay, fastmcp, pydantic_ai' 2>/dev/null; then
  say "python hosts package (clients/python) and its test tools: present"
else
  say "python hosts package (clients/python): installing with pip ($PY_HOST_PINS)"
  # shellcheck disable=SC2086 # the pins are separate arguments
  .venv/bin/python -m pip install --quiet --disable-pip-version-check $PY_HOST_PINS -e ./clients/python </dev/null
  printf '%s\n' "$py_host_want" >"$PY_HOST_STAMP"
fi

# 9. PostgreSQL for the relay's tests ---------------------------------------------------------------
# crates/relay/tests/store.rs and the relay e2e suites start throwaway servers with scripts/pg-temp.sh,
# which only needs the binaries (initdb, pg_ctl). Debian's postinst creates a "main" cluster and may
# try to start it: a temporary policy-rc.d forbids that, and any cluster still running afterwards is
# stopped, so nothing is left listening on 5432.
if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  say "postgresql: present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "need root or sudo to apt-get install postgresql"
    SUDO="sudo -n"
  fi
  say "postgresql: installing with apt-get"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
  added_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    $SUDO sh -c 'printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d'
    added_policy=yes
  fi
  install_status=0
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql </dev/null || install_status=$?
  [ -z "$added_policy" ] || $SUDO rm -f /usr/sbin/policy-rc.d
  if command -v pg_lsclusters >/dev/null 2>&1; then
    pg_lsclusters --no-header 2>/dev/null | awk '$4 == "online" { print $1, $2 }' \
      | while read -r pg_version pg_cluster; do
          say "postgresql: stopping the cluster $pg_version/$pg_cluster the package started"
          $SUDO pg_ctlcluster "$pg_version" "$pg_cluster" stop </dev/null || true
        done
  fi
  # Only the binaries matter: a postinst that failed to set up its own cluster is not fatal.
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null \
    || die "apt-get install postgresql (status $install_status) did not provide /usr/lib/postgresql/*/bin/initdb"
  [ "$install_status" -eq 0 ] || say "postgresql: apt-get exited $install_status, but initdb is installed; continuing"
fi

# 10. The relay's static binary and image (scripts/image.sh, tests/e2e/relay-image.test.mjs) -------
# shellcheck source=scripts/image-tools.sh
. "$ROOT/scripts/image-tools.sh"
install_image_tools

side_wait
say "done in $((SECONDS - START))s"
