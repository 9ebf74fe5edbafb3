#!/bin/sh
# A real Slurm on this one machine, for the tests: munged, slurmctld and slurmd in a
# scratch directory of their own, on free ports, with no system service touched.
#
#   scripts/slurm.sh run [--plugstack FILE] [--task-prolog FILE] -- COMMAND...
#       starts the cluster (with that plugstack.conf and TaskProlog), runs COMMAND
#       with SLURM_CONF set, and stops the cluster and removes its directory
#       whatever happens to COMMAND (whose exit status is ours)
#   scripts/slurm.sh check
#       says why a cluster cannot start here (exit 1), or nothing (exit 0)
#
# Needs root (slurmd runs jobs as their users) and Debian's slurm-wlm and munge
# (scripts/setup.sh --test installs them). The node is this host with its CPUs,
# proctrack/linuxproc, task/none, no accounting: what a test needs and no more.
set -eu

die() { echo "slurm.sh: $*" >&2; exit 1; }

why_not() {
  [ "$(id -u)" = 0 ] || { echo "needs root (slurmd runs jobs as their users)"; return; }
  for tool in munged slurmctld slurmd srun sbatch scontrol; do
    command -v "$tool" > /dev/null 2>&1 || command -v "/usr/sbin/$tool" > /dev/null 2>&1 ||
      { echo "$tool is not installed (apt-get install slurm-wlm munge)"; return; }
  done
}

# A TCP port nobody listens on (the kernel's choice, released at once).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'
}

start() {
  dir=$1 plugstack=$2 task_prolog=$3
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  chmod 700 "$dir" "$dir/munge"
  # munge: a key of this cluster's own, its socket in the scratch directory.
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2> /dev/null
  chmod 400 "$dir/munge/munge.key"
  /usr/sbin/munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed" || die "munged did not start (see $dir/munge/munged.log)"
  host=$(hostname -s)
  cpus=$(nproc)
  cat > "$dir/slurm.conf" << CONF
ClusterName=mpidle-test
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
InactiveLimit=0
KillWait=5
MinJobAge=300
PlugStackConfig=$dir/plugstack.conf
${task_prolog:+TaskProlog=$task_prolog}
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
  if [ -n "$plugstack" ]; then cp "$plugstack" "$dir/plugstack.conf"; else : > "$dir/plugstack.conf"; fi
  export SLURM_CONF="$dir/slurm.conf"
  /usr/sbin/slurmctld -i -f "$SLURM_CONF" || die "slurmctld did not start (see $dir/slurmctld.log)"
  /usr/sbin/slurmd -f "$SLURM_CONF" || die "slurmd did not start (see $dir/slurmd.log)"
  # Up when the node is idle (a few seconds).
  i=0
  until sinfo -h -o %t 2> /dev/null | grep -q '^idle'; do
    i=$((i + 1))
    [ $i -lt 100 ] || die "the node never became idle: $(sinfo -h -o '%t %E' 2>&1) (see $dir/*.log)"
    sleep 0.2
  done
}

stop() {
  dir=$1
  for daemon in slurmd slurmctld munge/munged; do
    pid=$(cat "$dir/$daemon.pid" 2> /dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2> /dev/null || true
  done
  # Jobs' processes of this cluster that outlived their step.
  sleep 0.5
  for daemon in slurmd slurmctld munge/munged; do
    pid=$(cat "$dir/$daemon.pid" 2> /dev/null || true)
    [ -n "$pid" ] && kill -9 "$pid" 2> /dev/null || true
  done
  rm -rf "$dir"
}

case "${1:-}" in
  check)
    why=$(why_not)
    [ -z "$why" ] || { echo "$why"; exit 1; }
    ;;
  run)
    shift
    plugstack= task_prolog=
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
      case "$1" in
        --plugstack) plugstack=$2; shift 2 ;;
        --task-prolog) task_prolog=$2; shift 2 ;;
        *) die "unknown option $1" ;;
      esac
    done
    [ "${1:-}" = "--" ] || die "run needs -- COMMAND"
    shift
    why=$(why_not)
    [ -z "$why" ] || die "$why"
    dir=$(mktemp -d /tmp/mpidle-slurm.XXXXXX)
    trap 'stop "$dir"' EXIT
    trap 'exit 130' INT TERM
    start "$dir" "$plugstack" "$task_prolog"
    # The cluster's directory (slurmd.log, slurmctld.log) for COMMAND to look into.
    export MPIDLE_SLURM_DIR="$dir"
    set +e
    "$@"
    status=$?
    set -e
    exit $status
    ;;
  *)
    echo "usage: scripts/slurm.sh run [--plugstack FILE] [--task-prolog FILE] -- COMMAND... | check" >&2
    exit 2
    ;;
esac
