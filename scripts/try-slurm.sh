#!/usr/bin/env bash
# Runs a sharded Galley run on a real Slurm cluster of one node, this machine, and checks it
# (#37): galley plan, then a job array of 3 shards (galley run --plan), then galley merge once
# the array succeeded (sbatch --dependency=afterok), and the merged folder compared byte for
# byte with a single-machine galley run of the same inputs (the manifest apart from its run
# block, the catalog and other state in .galley/ apart); then a run into the merged folder must
# find every document unchanged (the shards' catalogs are merged); then, one article edited, a
# second round (a plan against the merged folder, the array, galley merge --into it) must draw
# only that article and leave the merged folder as a single incremental run leaves its own.
#
#   bash scripts/try-slurm.sh [GALLEY]        (default: .build/release/galley, else .build/debug/galley)
#
# Installs slurm-wlm and munge through scripts/install-deps.sh --slurm, writes a slurm.conf
# and a MUNGE key into a temporary folder (spool, state, logs, pid files and sockets all
# there), starts munged, slurmctld and slurmd as this user (root in CI; another user's slurmd
# cannot start jobs as others, which these jobs do not need), and stops the daemons it started
# on every exit, failures and Ctrl-C included. Ports 16817/16818 (SLURM_TRY_PORT overrides the
# first) so a real cluster's daemons on this machine are not disturbed. TIMEOUT (seconds,
# default 240) bounds the wait for the jobs. Exit status 0 when the merged folder is the
# single run's.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
started=$(date +%s)

galley=${1:-}
if [ -z "$galley" ]; then
  for candidate in .build/release/galley .build/debug/galley; do
    if [ -x "$candidate" ]; then galley=$candidate; break; fi
  done
fi
if [ -z "$galley" ] || [ ! -x "$galley" ]; then
  echo "try-slurm: no galley binary (build one: swift build, or bash scripts/build-release.sh)" >&2
  exit 2
fi
galley=$(cd "$(dirname "$galley")" && pwd)/$(basename "$galley")

bash scripts/install-deps.sh --slurm

work=$(mktemp -d /tmp/galley-slurm.XXXXXX)
chmod 755 "$work"
pids=()
jobs_submitted=()
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ ${#jobs_submitted[@]} -gt 0 ]; then
    SLURM_CONF=$work/slurm.conf scancel "${jobs_submitted[@]}" 2>/dev/null || true
    # Give slurmd the time to end the jobs' steps before it goes.
    for _ in $(seq 100); do
      [ -z "$(SLURM_CONF=$work/slurm.conf squeue -h -t RUNNING,COMPLETING 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  # The daemons this script started, newest first, by their process ids only.
  for (( i=${#pids[@]}-1; i>=0; i-- )); do kill "${pids[$i]}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  # A job step slurmd left behind (slurmstepd and the job under it) carries this cluster's
  # SLURM_CONF in its environment: those, and no other process, are ended too.
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}; pid=${pid%/environ}
    [ "$pid" != $$ ] && [ "$pid" != "$BASHPID" ] || continue
    if tr '\0' '\n' < "$environ" 2>/dev/null | grep -qxF "SLURM_CONF=$work/slurm.conf"; then kill -9 "$pid" 2>/dev/null || true; fi
  done
  if [ $status -ne 0 ]; then
    echo "try-slurm: failed (exit status $status); the daemons' logs:" >&2
    for log in "$work"/log/*.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -n 30 "$log" >&2; }; done
    for out in "$work"/jobs/*.out; do [ -f "$out" ] && { echo "--- $out" >&2; tail -n 20 "$out" >&2; }; done
  fi
  rm -rf "$work"
  echo "try-slurm: daemons stopped; took $(( $(date +%s) - started )) s in all"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

host=$(hostname -s)
cpus=$(nproc)
user=$(id -un)
port=${SLURM_TRY_PORT:-16817}
mkdir -p "$work"/{munge,state,spool,log,run,jobs,corpus}

# MUNGE with a key of its own and a socket in the folder: no system munged is touched.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/run/munged.pid" \
  --log-file="$work/log/munged.log" --seed-file="$work/munge/munged.seed" &
pids+=($!)
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || { echo "try-slurm: munged did not start" >&2; exit 1; }

cat > "$work/slurm.conf" <<EOF
ClusterName=galleytry
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=try Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" &
pids+=($!)
for _ in $(seq 100); do
  sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
  sleep 0.2
done
if ! sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
  echo "try-slurm: the node did not come up: $(sinfo -N 2>&1 | tail -n +2)" >&2
  exit 1
fi
echo "try-slurm: one-node cluster up on $host ($cpus CPUs) after $(( $(date +%s) - started )) s"

# The corpus: the fixtures' PDFs and articles (a broken PDF among them: it fails alike in both).
cp fixtures/pdf/*.pdf "$work/corpus/"
cp -r fixtures/articles/. "$work/corpus/articles/"
# The settings in a pipeline.yml that galley plan reads too: it leaves to the merged folder only
# documents done there with the settings the shards will use.
printf 'dpi: 40\nthumbnails: [64]\n' > "$work/pipeline.yml"
settings=(--config "$work/pipeline.yml" --jobs 2 --progress none)
if [ -z "${FONTCONFIG_FILE:-}" ]; then export FONTCONFIG_FILE=$(bash scripts/test-fonts.sh); fi

out=$work/jobs
timeout=${TIMEOUT:-240}
# One round: galley plan, a job array of 3 shards once the plan is made, galley merge ($1 are
# its arguments before the shards') once every shard finished; waits for the merge.
round() {
  local name=$1 merge_arguments=$2 plan_job array_job merge_job state reason merge_status job
  plan_job=$(sbatch --parsable --job-name=galley-plan --output="$out/$name-plan.out" --chdir="$work" \
    --wrap "'$galley' plan --shards 3 --config '$work/pipeline.yml' --input '$work/corpus' --library '$work/merged' --output '$work/$name.json'")
  jobs_submitted+=("$plan_job")
  # A shard whose documents failed (exit status 1) finished: its manifest has the failures, and
  # galley merge reports them all and exits 1. Only a shard that did not finish stops the merge.
  array_job=$(sbatch --parsable --job-name=galley-shard --array=1-3 --dependency=afterok:"$plan_job" --output="$out/$name-shard-%a.out" \
    --chdir="$work" --wrap "'$galley' run --plan '$work/$name.json' --input '$work/corpus' --output \"$work/$name/shard-\$SLURM_ARRAY_TASK_ID\" ${settings[*]} || [ \$? -eq 1 ]")
  jobs_submitted+=("$array_job")
  merge_job=$(sbatch --parsable --job-name=galley-merge --dependency=afterok:"$array_job" --output="$out/$name-merge.out" --chdir="$work" \
    --wrap "'$galley' merge $merge_arguments '$work/$name/shard-1' '$work/$name/shard-2' '$work/$name/shard-3'")
  jobs_submitted+=("$merge_job")
  echo "try-slurm: $name: submitted plan $plan_job, array $array_job (3 tasks), merge $merge_job"
  # Meanwhile, the same inputs on this machine alone, into the same folder each round; in the
  # jobs' folder, so that no pipeline.yml of the current folder applies to one and not the others.
  (cd "$work" && "$galley" run --input "$work/corpus" --output "$work/single" "${settings[@]}" > "$out/$name-single.out" 2>&1) || true
  while true; do
    state=$(scontrol show job "$merge_job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1)
    reason=$(scontrol show job "$merge_job" 2>/dev/null | sed -n 's/.*Reason=\([A-Za-z_]*\).*/\1/p' | head -1)
    case "$state" in
      COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) break ;;
    esac
    if [ "$reason" = DependencyNeverSatisfied ]; then state="never started ($reason)"; break; fi
    if [ $(( $(date +%s) - started )) -gt "$timeout" ]; then state="still ${state:-unknown} after ${timeout} s"; break; fi
    sleep 1
  done
  for job in "$plan_job" "$array_job" "$merge_job"; do
    scontrol show job "$job" 2>/dev/null | grep -oE '(JobId|ArrayTaskId|JobName|JobState|ExitCode)=[^ ]*' | paste -sd ' ' || true
  done
  # galley merge exits 1 when a document failed in some shard: the corpus has one encrypted PDF.
  merge_status=$(scontrol show job "$merge_job" 2>/dev/null | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p' | head -1)
  if [ "$state" != COMPLETED ] && ! { [ "$state" = FAILED ] && [ "$merge_status" = 1 ]; }; then
    echo "try-slurm: $name: the merge job ended $state (exit $merge_status)" >&2
    exit 1
  fi
  cat "$out/$name-plan.out" "$out/$name-merge.out"
  if ! grep -q "failed: encrypted.pdf" "$out/$name-merge.out"; then
    echo "try-slurm: $name: the merge did not report the document that failed in its shard (encrypted.pdf)" >&2
    exit 1
  fi
  python3 - "$work/single" "$work/merged" "$name" <<'EOF'
import json, os, sys
single, merged, name = sys.argv[1:]
def files(root):
    found = set()
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".galley"]
        found.update(os.path.relpath(os.path.join(folder, n), root) for n in names)
    return found
a, b = files(single), files(merged)
problems = [f"only in the single run: {p}" for p in sorted(a - b)] + [f"only in the merged folder: {p}" for p in sorted(b - a)]
for path in sorted(a & b):
    x, y = (open(os.path.join(r, path), "rb").read() for r in (single, merged))
    if path == "manifest.json":
        x, y = (json.loads(d) for d in (x, y))
        x.pop("run"); y.pop("run")
    if x != y:
        problems.append(f"differs: {path}")
for p in problems: print(f"try-slurm: {name}:", p)
if problems: sys.exit(1)
print(f"try-slurm: {name}: merged folder = single run, byte for byte ({len(a)} files, manifest apart from run)")
EOF
}

round first "'$work/merged'"

# The merged catalog came along: a run into the merged folder finds every document done.
(cd "$work" && "$galley" run --input "$work/corpus" --output "$work/merged" "${settings[@]}" > "$out/rerun.out" 2>&1) || true
grep -E "documents:|images drawn" "$out/rerun.out"
if ! grep -q "documents: 0 ok, 1 failed, 18 unchanged" "$out/rerun.out"; then
  echo "try-slurm: the run into the merged folder after the merge was not a no-change run" >&2
  exit 1
fi

# One article edited: the next plan leaves the rest to the merged folder, the shards draw that
# article (and retry the encrypted PDF), and the merge updates the folder in place, which must
# then be what a single incremental run into its own folder gives.
printf '\n<!-- edited -->\n' >> "$work/corpus/articles/magazine.html"
round nightly "--into '$work/merged' --plan '$work/nightly.json'"
drawn=$(cat "$out"/nightly-shard-*.out | sed -n 's/^galley: \([0-9]*\) images drawn.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
single_drawn=$(sed -n 's/^galley: \([0-9]*\) images drawn.*/\1/p' "$out/nightly-single.out")
echo "try-slurm: nightly: the shards drew $drawn images, the single incremental run $single_drawn"
if [ "$drawn" != "$single_drawn" ]; then
  echo "try-slurm: nightly: the shards drew other than the edited article's pages" >&2
  exit 1
fi
