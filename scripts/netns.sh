#!/bin/sh
# A network namespace whose loopback is a real, slower link: TCP between the ranks
# of one host then crosses a token bucket of the given rate, fixed by the kernel
# whatever speed state the VM is in (docs/prediction.md, "Links that really
# differ"). Needs root (CAP_NET_ADMIN); the tests and the bench skip without it.
#
#   scripts/netns.sh run NAME RATE -- COMMAND...   namespace up, COMMAND inside, down
#   scripts/netns.sh up NAME RATE                   leave it up (then: down NAME)
#   scripts/netns.sh down NAME
#   scripts/netns.sh check                          exit 0 where namespaces can be made
#
# RATE: a tc rate (200mbit, 1gbit) or "unlimited" (plain loopback TCP). `run`
# removes the namespace however COMMAND ends, interrupted included, and exits with
# COMMAND's status.
set -u

usage() {
  echo "usage: netns.sh run NAME RATE -- COMMAND... | up NAME RATE | down NAME | check" >&2
  exit 2
}

# An Ethernet MTU (loopback's is 64 KiB: a packet larger than the bucket would never
# leave it). The bucket holds 64 KiB: one burst at most leaves at line speed, so
# that a large message's time is set by the rate, not by how full the bucket was
# when it came. A queue of 100 ms never drops at these rates (drops would make TCP
# back off and the times jump: tc -s shows them as "dropped").
shape() {
  ip netns exec "$1" ip link set lo mtu 1500 || return 1
  [ "$2" = unlimited ] && return 0
  ip netns exec "$1" tc qdisc add dev lo root tbf rate "$2" burst 64kb latency 100ms
}

up() {
  case "$1" in
    mpidle-*) ;;
    *) echo "netns.sh: namespace names start with mpidle-" >&2; exit 2 ;;
  esac
  ip netns del "$1" 2>/dev/null
  if ! ip netns add "$1"; then
    echo "netns.sh: could not make namespace $1 (root with CAP_NET_ADMIN is needed)" >&2
    exit 77
  fi
  if ! ip netns exec "$1" ip link set lo up || ! shape "$1" "$2"; then
    ip netns del "$1" 2>/dev/null
    echo "netns.sh: could not shape the loopback of $1 at $2" >&2
    exit 77
  fi
}

down() {
  ip netns del "$1" 2>/dev/null
  return 0
}

[ $# -ge 1 ] || usage
command=$1
shift
case "$command" in
  check)
    name=mpidle-check-$$
    ip netns add "$name" 2>/dev/null || exit 77
    ok=0
    ip netns exec "$name" ip link set lo up 2>/dev/null &&
      ip netns exec "$name" tc qdisc add dev lo root tbf rate 1gbit burst 64kb latency 100ms \
        2>/dev/null || ok=77
    ip netns del "$name"
    exit $ok
    ;;
  up)
    [ $# -eq 2 ] || usage
    up "$1" "$2"
    ;;
  down)
    [ $# -eq 1 ] || usage
    down "$1"
    ;;
  run)
    [ $# -ge 4 ] && [ "$3" = "--" ] || usage
    name=$1
    rate=$2
    shift 3
    up "$name" "$rate"
    trap 'down "$name"' EXIT
    trap 'down "$name"; exit 130' INT
    trap 'down "$name"; exit 143' TERM
    trap 'down "$name"; exit 129' HUP
    ip netns exec "$name" "$@"
    status=$?
    down "$name"
    trap - EXIT
    exit $status
    ;;
  *) usage ;;
esac
