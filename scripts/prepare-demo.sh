#!/usr/bin/env bash
# `npm start`'s build: what scripts/start.mjs serves. The relay's binary (scripts/relay-binary.sh, a
# debug cargo build of its own) compiles side by side with the element's part: the bootstrap's demo
# part (scripts/bootstrap.sh --demo), then dist/ (scripts/build.mjs). The relay's lines are prefixed
# `relay | `; when either part fails, the other is stopped and this fails with it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/side-by-side.sh
. "$ROOT/scripts/side-by-side.sh"
START=$SECONDS

side_start relay bash scripts/relay-binary.sh
bash scripts/bootstrap.sh --demo
node scripts/build.mjs
side_wait
printf 'prepare-demo: the element and the relay built in %ss\n' "$((SECONDS - START))"
