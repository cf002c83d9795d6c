#!/usr/bin/env bash
# `npm start` runs the demo with its own relay: builds target/debug/koder-elicitation-relay when no
# relay binary (release or debug) is there yet or its sources changed since, and does nothing otherwise.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/cargo-env.sh
. "$ROOT/scripts/cargo-env.sh"
# A binary built after the last change to the relay's sources (and what it embeds) is current.
SOURCES=(crates i18n Cargo.toml Cargo.lock)
for profile in release debug; do
  binary="$ROOT/target/$profile/koder-elicitation-relay"
  if [ -x "$binary" ] && [ -z "$(cd "$ROOT" && find "${SOURCES[@]}" -newer "$binary" -type f -print -quit)" ]; then
    exit 0
  fi
done
echo "relay-binary: building koder-elicitation-relay for the demo (the first time, a few minutes)"
cd "$ROOT"
cargo build -p koder-elicitation-relay
