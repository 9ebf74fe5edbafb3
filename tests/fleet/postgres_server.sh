#!/bin/sh
# A throw-away PostgreSQL server for the fleet tests, run as an unprivileged user
# (the "postgres" user when this runs as root, else the caller), listening only on
# a Unix socket in DIR. Prints the database URI.
#   postgres_server.sh start DIR PORT | stop DIR
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "PostgreSQL server is not installed (apt-get install postgresql)" >&2; exit 77; }
as_user() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid="$(id -u postgres)" --regid="$(id -g postgres)" --clear-groups -- "$@"
  else
    "$@"
  fi
}
case "$1" in
start)
  dir=$2 port=$3
  rm -rf "$dir"
  mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
  as_user "$bin/initdb" -D "$dir/data" -A trust -U mpidle >"$dir/initdb.log" 2>&1
  as_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-k $dir -p $port -c listen_addresses=''" start >/dev/null
  echo "postgresql:///postgres?host=$dir&port=$port&user=mpidle"
  ;;
stop)
  as_user "$bin/pg_ctl" -D "$2/data" -m fast -w stop >/dev/null 2>&1 || true
  ;;
esac
