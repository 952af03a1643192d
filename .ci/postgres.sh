#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on 127.0.0.1 for the test suite and print its URL.
# Installs Debian's postgresql package when the server binaries are missing.
# Usage: eval "$(bash .ci/postgres.sh start DIR)"   -> exports DIGESTBOT_TEST_POSTGRES_URL
#        (PGPORT_TEST=PORT to choose the port; by default a free one)
#        bash .ci/postgres.sh stop DIR
set -euo pipefail
action=${1:?start|stop}
dir=${2:?data directory}

find_bin() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$found" ] && [ -x "$found/initdb" ] && echo "$found"
}

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
start)
  bin=$(find_bin || true)
  if [ -z "$bin" ]; then
    echo "installing PostgreSQL (Debian package)..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq postgresql >&2
    bin=$(find_bin)
  fi
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  # A port the system just handed out, unless one is asked for: a fixed default collides
  # with whatever else runs here.
  port=${PGPORT_TEST:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
  as_postgres "$bin/initdb" -D "$dir/data" -U digestbot --auth=trust -E UTF8 >/dev/null
  if ! as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >&2; then
    echo "PostgreSQL did not start on port $port; its log ends:" >&2
    tail -n 20 "$dir/server.log" >&2
    exit 1
  fi
  as_postgres "$bin/createdb" -h 127.0.0.1 -p "$port" -U digestbot digestbot_test
  echo "export DIGESTBOT_TEST_POSTGRES_URL=postgresql+psycopg://digestbot@127.0.0.1:$port/digestbot_test"
  ;;
stop)
  bin=$(find_bin)
  as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  ;;
esac
