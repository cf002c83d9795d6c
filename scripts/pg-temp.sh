#!/usr/bin/env bash
# A throwaway PostgreSQL for tests.
#   scripts/pg-temp.sh start DIR   initdb in DIR (first time only) and start it on a free port of
#                                  127.0.0.1, socket in DIR; prints postgres://postgres@127.0.0.1:PORT/postgres
#   scripts/pg-temp.sh stop DIR    fast shutdown (nothing to do when it is not running)
# PostgreSQL refuses to run as root, so as root it runs as the `postgres` user (DIR is chowned to
# it); as anyone else it runs as that user. Trust authentication on loopback only.
# PG_TEMP_SETTINGS adds server options (e.g. "-c shared_preload_libraries=pg_stat_statements").
set -euo pipefail

die() { printf 'pg-temp: %s\n' "$*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: pg-temp.sh start|stop DIR"
action="$1"
dir="$2"

# Debian's layout, newest version first; PG_BIN overrides.
bin="${PG_BIN:-}"
if [ -z "$bin" ]; then
  for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bin="$candidate"; break; fi
  done
fi
[ -n "$bin" ] && [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] \
  || die "PostgreSQL not found: no initdb and pg_ctl under /usr/lib/postgresql/*/bin (scripts/bootstrap.sh installs Debian's postgresql package)"

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
data="$dir/data"

# Runs a PostgreSQL tool as the user that owns the cluster.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if [ "$(id -u)" -eq 0 ]; then
  id -u postgres >/dev/null 2>&1 || die "running as root needs a 'postgres' user to run the server as"
  chown -R postgres: "$dir"
  runuser -u postgres -- test -w "$dir" \
    || die "the postgres user cannot write $dir (a parent directory is closed to it); use a directory it can reach"
fi

port_free() {
  # A refused connection means nobody listens there.
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

case "$action" in
  start)
    if [ ! -f "$data/PG_VERSION" ]; then
      as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C \
        --no-sync --no-instructions >"$dir/initdb.log" 2>&1 \
        || die "initdb failed; see $dir/initdb.log: $(tail -n 3 "$dir/initdb.log" | tr '\n' ' ')"
    fi
    if as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
      die "a server already runs in $data"
    fi
    # A restart keeps its port when it is still free, so clients can reconnect.
    port="$(cat "$dir/port" 2>/dev/null || true)"
    for attempt in 1 2 3 4 5 6 7 8; do
      if [ -z "$port" ] || ! port_free "$port"; then
        port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        port_free "$port" || { port=""; continue; }
      fi
      printf '%s\n' "$port" >"$dir/port"
      [ "$(id -u)" -ne 0 ] || chown postgres: "$dir/port"
      if as_owner "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
          -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off ${PG_TEMP_SETTINGS:-}" \
          start >/dev/null 2>&1; then
        printf 'postgres://postgres@127.0.0.1:%s/postgres\n' "$port"
        exit 0
      fi
      # Another process may have taken the port between the check and the start: try another.
      grep -q 'could not bind\|Address already in use' "$dir/server.log" 2>/dev/null \
        || die "the server did not start (attempt $attempt); see $dir/server.log: $(tail -n 3 "$dir/server.log" 2>/dev/null | tr '\n' ' ')"
      port=""
    done
    die "no free port found for PostgreSQL after 8 attempts"
    ;;
  stop)
    [ -f "$data/PG_VERSION" ] || exit 0
    if as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null \
        || die "pg_ctl stop failed; see $dir/server.log"
    fi
    ;;
  *)
    die "usage: pg-temp.sh start|stop DIR"
    ;;
esac
