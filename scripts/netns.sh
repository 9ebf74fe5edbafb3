#!/bin/sh
# A cluster of slower, real links on one host, for procurement predictions across
# interconnects that really differ (docs/prediction.md, "Links that really
# differ"): every rank runs in a network namespace of its own, whose one interface
# (`mpidle`) is a full-duplex link of the given rate into a bridge, as a node's
# network card into a non-blocking switch. The rate is a token bucket (tc tbf),
# fixed by the kernel whatever speed state the VM is in. Needs root
# (CAP_NET_ADMIN); the tests and the bench skip without it.
#
#   netns.sh run NAME RATE [RANKS] [KIND] -- LAUNCH...  cluster up, LAUNCH, cluster down
#   netns.sh rank PROGRAM...                   (inside LAUNCH) PROGRAM in its rank's namespace
#   netns.sh up NAME RATE [RANKS] [KIND] / down NAME   for several launches in a row
#   netns.sh env NAME [KIND]                   the settings `run` exports, as shell lines
#   netns.sh check                             exit 0 where this can work
#
# KIND says how two transfers at once share the rate:
#   split  (the default) split-duplex, as a real interconnect: every rank's card has
#          its own limit on what it sends, so the two directions between two ranks,
#          and two ranks sending to others, each get the whole rate. What a rank
#          receives is not limited (a second bucket on the bridge's end halved the
#          rate at 1 Gbit/s): two ranks sending to one each get the whole rate too.
#   shared one medium: all ranks in one namespace, talking over its loopback, whose
#          one limit every packet of every direction passes (the namespaces' cards
#          then carry only the launcher's traffic).
#
# RATE: a tc rate (200mbit, 1gbit) or "unlimited". RANKS: 2 by default. `run`
# removes everything however LAUNCH ends, interrupted included, and exits with
# LAUNCH's status. Example (MPICH or Open MPI alike):
#
#   scripts/netns.sh run mpidle-200m 200mbit -- \
#     mpidle probe -o 200m.json -- mpiexec -n 2 scripts/netns.sh rank
#
# `run` exports what makes each MPI use the link: MPICH's UCX TCP transport on the
# `mpidle` interface; Open MPI's ob1 with the TCP BTL on it; and the PMIx server of
# Open MPI's launcher reachable from the namespaces (it listens on the bridge).
set -u

usage() {
  echo "usage: netns.sh run NAME RATE [RANKS] [split|shared] -- LAUNCH... | rank PROGRAM... |" \
    "up NAME RATE [RANKS] [split|shared] | down NAME | env NAME [split|shared] | check" >&2
  exit 2
}

# Interface names in the host namespace (at most 15 characters): from NAME's checksum.
short() {
  printf 'mp%s' "$(printf '%s' "$1" | cksum | cut -d' ' -f1 | cut -c1-8)"
}

# The cluster's subnet, 10.78.X.0/24, X from NAME's checksum: two clusters up at
# once (two benches) do not share an address.
subnet() {
  printf '10.78.%s' $(($(printf '%s' "$1" | cksum | cut -d' ' -f1) % 250))
}

# An Ethernet MTU (the veth default). The bucket holds about two packets, as a wire
# does: every message leaves at the rate, whatever the link did before (a 64 KiB
# bucket sent a message after a quiet spell at memory speed). A queue of 100 ms
# never drops at these rates (drops would make TCP back off and the times jump:
# `tc -s qdisc` shows them as "dropped").
shape() {
  [ "$2" = unlimited ] && return 0
  ip netns exec "$1" tc qdisc add dev "${3:-mpidle}" root tbf rate "$2" burst 4kb latency 100ms
}

# The shared medium: the loopback of the one namespace, at an Ethernet MTU (its 64 KiB
# would not fit the bucket) and the rate.
shape_loopback() {
  ip -n "$1" link set lo mtu 1500 && shape "$1" "$2" lo
}

down() {
  i=0
  while ip netns list 2>/dev/null | grep -q "^$1-$i\b"; do
    ip netns del "$1-$i" 2>/dev/null
    i=$((i + 1))
  done
  ip link del "$(short "$1")b" 2>/dev/null
  return 0
}

up() {
  name=$1 rate=$2 ranks=$3 kind=${4:-split}
  case "$kind" in
    split | shared) ;;
    *) echo "netns.sh: KIND is split or shared" >&2; exit 2 ;;
  esac
  case "$name" in
    mpidle-*) ;;
    *) echo "netns.sh: names start with mpidle-" >&2; exit 2 ;;
  esac
  case "$ranks" in
    '' | *[!0-9]*) echo "netns.sh: RANKS must be a number from 1 to 200" >&2; exit 2 ;;
  esac
  if [ "$ranks" -lt 1 ] || [ "$ranks" -gt 200 ]; then
    echo "netns.sh: RANKS must be a number from 1 to 200" >&2
    exit 2
  fi
  down "$name"
  bridge=$(short "$name")b
  if ! ip link add "$bridge" type bridge 2>/dev/null; then
    echo "netns.sh: could not make a bridge (root with CAP_NET_ADMIN is needed)" >&2
    exit 77
  fi
  net=$(subnet "$name")
  ip addr add "$net.254/24" dev "$bridge" && ip link set "$bridge" up || fail=1
  # A shared medium: one namespace for every rank, its loopback limited.
  [ "$kind" = shared ] && ranks=1
  i=0
  while [ $i -lt "$ranks" ] && [ -z "${fail:-}" ]; do
    ns=$name-$i
    port=$(short "$name")v$i
    { ip netns add "$ns" &&
      ip link add "$port" type veth peer name mpidle netns "$ns" &&
      ip link set "$port" master "$bridge" && ip link set "$port" up &&
      ip -n "$ns" addr add "$net.$((i + 1))/24" dev mpidle &&
      ip -n "$ns" link set mpidle up && ip -n "$ns" link set lo up &&
      if [ "$kind" = shared ]; then shape_loopback "$ns" "$rate"; else shape "$ns" "$rate"; fi; } ||
      fail=1
    i=$((i + 1))
  done
  if [ -n "${fail:-}" ]; then
    down "$name"
    echo "netns.sh: could not make the namespaces of $name at $rate" >&2
    exit 77
  fi
}

exports() {
  device=mpidle
  [ "${2:-split}" = shared ] && device=lo
  cat <<EOF
MPIDLE_NETNS=$1
MPIDLE_NETNS_LINK=${2:-split}
UCX_TLS=tcp,self
UCX_NET_DEVICES=$device
OMPI_MCA_pml=ob1
OMPI_MCA_btl=self,tcp
OMPI_MCA_btl_tcp_if_include=$device
PMIX_MCA_ptl_tcp_if_include=$(subnet "$1").0/24
PMIX_MCA_ptl_tcp_remote_connections=1
EOF
}

[ $# -ge 1 ] || usage
command=$1
shift
case "$command" in
  check)
    name=mpidle-check$$
    ( up "$name" 1gbit 1 ) 2>/dev/null
    ok=$?
    down "$name"
    [ $ok -eq 0 ] || exit 77
    ;;
  up)
    [ $# -ge 2 ] && [ $# -le 4 ] || usage
    up "$1" "$2" "${3:-2}" "${4:-split}"
    ;;
  down)
    [ $# -eq 1 ] || usage
    down "$1"
    ;;
  env)
    [ $# -eq 1 ] || [ $# -eq 2 ] || usage
    exports "$1" "${2:-split}"
    ;;
  rank)
    [ $# -ge 1 ] || usage
    rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${SLURM_PROCID:-}}}}
    if [ -z "${MPIDLE_NETNS:-}" ] || [ -z "$rank" ]; then
      echo "netns.sh rank: run it as the program of a launch inside 'netns.sh run'" >&2
      exit 2
    fi
    [ "${MPIDLE_NETNS_LINK:-split}" = shared ] && rank=0
    if ! ip netns list | grep -q "^$MPIDLE_NETNS-$rank\b"; then
      echo "netns.sh rank: no namespace for rank $rank (give 'run' more RANKS)" >&2
      exit 2
    fi
    exec ip netns exec "$MPIDLE_NETNS-$rank" "$@"
    ;;
  run)
    [ $# -ge 4 ] || usage
    name=$1 rate=$2
    shift 2
    ranks=2 kind=split
    case "$1" in
      '' | *[!0-9]*) ;;
      *) ranks=$1; shift ;;
    esac
    case "$1" in
      split | shared) kind=$1; shift ;;
    esac
    [ $# -ge 2 ] && [ "$1" = "--" ] || usage
    shift
    trap 'down "$name"' EXIT
    trap 'down "$name"; exit 130' INT
    trap 'down "$name"; exit 143' TERM
    trap 'down "$name"; exit 129' HUP
    ( up "$name" "$rate" "$ranks" "$kind" ) || exit $?
    # The settings, exported for LAUNCH only.
    eval "$(exports "$name" "$kind" | sed 's/^/export /')"
    "$@"
    status=$?
    down "$name"
    trap - EXIT
    exit $status
    ;;
  *) usage ;;
esac
