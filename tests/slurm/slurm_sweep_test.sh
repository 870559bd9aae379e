#!/usr/bin/env bash
# scripts/slurm_sweep.sbatch under a real Slurm (issue #37): a single-node
# cluster (Debian's slurm-wlm: slurmctld and slurmd on loopback, no munge)
# is started in a temporary folder, the sweep runs as a job array of one
# shard per task, `simctl sweep merge` joins the shards, and the merged CSV
# and JSON must equal a serial sweep's byte for byte.
#
#   tests/slurm/slurm_sweep_test.sh SIMCTL [STUDY]
#
# Exits 77 (ctest: skipped), saying why, only where Slurm cannot start here:
# not root (the daemons need it), or slurm-wlm not installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
simctl=$(realpath "${1:?usage: $0 SIMCTL [STUDY]}")
study=${2:-$root/labs/03-host-to-device/pcie_study.yaml}
tasks=3

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIPPED: slurmctld and slurmd need root to start; run as root (CI does) to test the Slurm path"
  exit 77
fi
for daemon in slurmctld slurmd sbatch scontrol sinfo; do
  if ! command -v "$daemon" > /dev/null; then
    echo "SKIPPED: $daemon not found; scripts/setup installs Debian's slurm-wlm"
    exit 77
  fi
done

work=$(mktemp -d /tmp/simctl-slurm-XXXXXX)
export SLURM_CONF=$work/slurm.conf
stop() {
  scontrol shutdown > /dev/null 2>&1 || true
  for pid in "$work"/slurmctld.pid "$work"/slurmd.pid; do
    [[ -f $pid ]] && kill "$(cat "$pid")" 2> /dev/null || true
  done
  sleep 1
  rm -rf "$work"
}
trap stop EXIT

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
mkdir -p "$work/state" "$work/spool" "$work/shards"
cat > "$SLURM_CONF" << CONF
ClusterName=simctltest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=simctlnode NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF" -N simctlnode
for _ in $(seq 60); do
  [[ $(sinfo -h -o %t 2> /dev/null) == idle ]] && break
  sleep 0.5
done
if [[ $(sinfo -h -o %t 2> /dev/null) != idle ]]; then
  echo "FAILED: the local Slurm node never became idle" >&2
  tail -20 "$work"/slurm*.log >&2
  exit 1
fi

# From the checkout, as the script's header says. The default binary is the
# checkout's build/simctl (the sbatch script finds it from the submit
# folder: Slurm runs a copy of the script from its spool); another build is
# passed in SIMCTL.
cd "$root"
[[ $simctl == "$root/build/simctl" ]] || export SIMCTL=$simctl
timeout 600 sbatch --wait --array=1-$tasks --output="$work/task-%A_%a.log" \
  scripts/slurm_sweep.sbatch "$study" "$work/shards" > /dev/null || {
  echo "FAILED: the job array did not finish cleanly" >&2
  cat "$work"/task-*.log >&2 || true
  exit 1
}
shards=$(ls "$work/shards" | grep -c '^shard-.*-of-0003\.json$' || true)
if [[ $shards -ne $tasks ]]; then
  echo "FAILED: expected $tasks shard files, found $shards" >&2
  exit 1
fi
# The table as printed, less the "wrote FILE" lines, which name each run's own files.
"$simctl" sweep merge "$work/shards" --csv "$work/merged.csv" --json "$work/merged.json" | grep -v '^wrote ' > "$work/merged.txt"
"$simctl" sweep "$study" --csv "$work/serial.csv" --json "$work/serial.json" 2> /dev/null | grep -v '^wrote ' > "$work/serial.txt"
for f in csv json txt; do
  if ! cmp -s "$work/merged.$f" "$work/serial.$f"; then
    echo "FAILED: the merged $f differs from the serial sweep's" >&2
    diff "$work/merged.$f" "$work/serial.$f" | head -20 >&2
    exit 1
  fi
done
echo "ok: $tasks Slurm array tasks, merged CSV, JSON and table equal the serial sweep's ($(grep -c . "$work/serial.csv") CSV lines)"
