# Sourced by scripts/bootstrap.sh and scripts/prepare-demo.sh: runs slow, independent steps side by
# side (two cargo builds, or a cargo build and npm ci keep both cores busy where one alone often
# leaves one idle), with every line of each prefixed by its name so the output stays readable.
#
#   side_start NAME COMMAND...   starts COMMAND (a program or a shell function) in the background
#   side_wait                    waits for all of them; when one fails, stops the others and returns
#                                its status (a failing step never waits for a slow one to finish)
#
# Each step runs in a process group of its own, so stopping it stops whatever it started (cargo and
# its rustc processes). They are therefore out of reach of the terminal's Ctrl-C: an INT or TERM
# trap (set by side_start) and an EXIT trap stop them instead.

SIDE_PIDS=()
SIDE_NAMES=()

side_start() {
  local name=$1
  shift
  if [ ${#SIDE_PIDS[@]} -eq 0 ]; then
    trap 'side_stop; exit 130' INT
    trap 'side_stop; exit 143' TERM
    trap side_stop EXIT
  fi
  # `set -m` gives the step its own process group (pgid = its pid); only for this one `&`.
  set -m
  (
    set -o pipefail
    "$@" 2>&1 </dev/null | sed -u "s/^/$name | /"
  ) &
  SIDE_PIDS+=("$!")
  SIDE_NAMES+=("$name")
  set +m
}

side_stop() {
  local pid
  for pid in "${SIDE_PIDS[@]}"; do
    kill -TERM -- "-$pid" 2>/dev/null || true
  done
  SIDE_PIDS=()
  SIDE_NAMES=()
}

side_wait() {
  local finished status i name
  while [ ${#SIDE_PIDS[@]} -gt 0 ]; do
    status=0
    finished=
    wait -n -p finished "${SIDE_PIDS[@]}" || status=$?
    if [ -z "$finished" ]; then # nothing left to wait for: should not happen, but never loop on it
      SIDE_PIDS=()
      SIDE_NAMES=()
      return "$status"
    fi
    for i in "${!SIDE_PIDS[@]}"; do
      if [ "${SIDE_PIDS[$i]}" = "$finished" ]; then
        name=${SIDE_NAMES[$i]}
        unset 'SIDE_PIDS[i]' 'SIDE_NAMES[i]'
      fi
    done
    SIDE_PIDS=("${SIDE_PIDS[@]}")
    SIDE_NAMES=("${SIDE_NAMES[@]}")
    if [ "$status" -ne 0 ]; then
      printf '%s failed (exit %s)%s\n' "$name" "$status" \
        "$([ ${#SIDE_PIDS[@]} -eq 0 ] || printf '; stopping %s' "${SIDE_NAMES[*]}")" >&2
      side_stop
      return "$status"
    fi
  done
}
