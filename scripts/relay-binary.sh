#!/usr/bin/env bash
# `npm start` runs the demo with its own relay: builds target/debug/koder-elicitation-relay when no
# relay binary (release or debug) is there yet, and does nothing otherwise.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/cargo-env.sh
. "$ROOT/scripts/cargo-env.sh"
for profile in release debug; do
  if [ -x "$ROOT/target/$profile/koder-elicitation-relay" ]; then
    exit 0
  fi
done
echo "relay-binary: building koder-elicitation-relay for the demo (once; a few minutes)"
cd "$ROOT"
cargo build -p koder-elicitation-relay
