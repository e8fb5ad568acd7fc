#!/usr/bin/env bash
# Nothing a program run by `tictac test` or `tictac fuzz` starts outlives its
# run (issue 22), release build, with cgroups where this machine can make them
# and without (TICTAC_NO_CGROUP=1: the child subreaper's sweeps alone):
# 1. `tictac fuzz --runs 600 -j 2` against a program that leaves a sleeper with
#    no tag in a session of its own on every run: at no moment more sleepers
#    alive than runs under way (2), and none once the session ends (before the
#    fix: 538 of 600 alive);
# 2. 20 suites run by `tictac test` whose program leaves a daemon that churns
#    (setsid then fork, each parent exiting a millisecond after, its
#    environment cleared): none still churning after any run (before: 2 of 5).
# Prints the wall time of each part; exits 1 on the first leftover.
#
#   bench/check-leftovers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin tictac
bin=$PWD/target/release/tictac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# Live processes whose command line names a program in $work (zombies have
# none); the pattern is read from a file, so grep's own command line does not
# name it.
alive() {
  grep -alFf "$work/pattern" /proc/[0-9]*/cmdline 2>/dev/null | grep -vc "^/proc/$$/" || true
}

printf '%s\n' "$work/sleep" "$work/churn" > "$work/pattern"
cp "$(command -v sleep)" "$work/sleep"
cat > "$work/leaves.sh" <<SCRIPT
#!/bin/sh
setsid env -i $work/sleep 1000 >/dev/null 2>&1 </dev/null &
exec $bin "\$@"
SCRIPT
chmod +x "$work/leaves.sh"

# The daemon of tests/it/containment.rs, from its one source.
cc -O2 -o "$work/churn" tests/it/churn.c
cat > "$work/daemon.sh" <<SCRIPT
#!/bin/sh
env -i $work/churn $work/beat >/dev/null 2>&1 </dev/null &
while [ ! -s $work/beat ]; do sleep 0.01; done
exec $bin "\$@"
SCRIPT
chmod +x "$work/daemon.sh"
mkdir "$work/suite"
echo 'new_game("a","b")' > "$work/suite/a.txt"
echo 'undo' > "$work/suite/b.txt"
"$bin" test --bless "$work/suite" > /dev/null

for way in cgroups sweeps; do
  no_cgroup=""
  [ "$way" = sweeps ] && no_cgroup=1
  export TICTAC_NO_CGROUP=$no_cgroup

  echo "== $way: tictac fuzz --runs 600 -j 2, a sleeper with no tag left by every run"
  start=$(ms)
  TICTAC_NO_CGROUP=$no_cgroup "$bin" fuzz --program "$work/leaves.sh" --runs 600 --seed 1 -j 2 \
    > "$work/fuzz.log" &
  fuzz=$!
  most=0
  while kill -0 "$fuzz" 2>/dev/null; do
    n=$(alive)
    [ "$n" -gt "$most" ] && most=$n
    sleep 0.05
  done
  wait "$fuzz"
  took=$(( $(ms) - start ))
  tail -1 "$work/fuzz.log"
  left=$(alive)
  echo "600 runs in $took ms; at most $most sleepers alive at once; $left left"
  if [ "$most" -gt 4 ] || [ "$left" -ne 0 ]; then
    echo "FAIL: sleepers outlived their runs"
    exit 1
  fi

  echo "== $way: 20 suites whose program leaves a churning daemon"
  start=$(ms)
  for k in $(seq 20); do
    rm -f "$work/beat"
    "$bin" test --program "$work/daemon.sh" "$work/suite" > "$work/test.log" \
      || { cat "$work/test.log"; exit 1; }
    sleep 0.1
    before=$(stat -c %s "$work/beat")
    sleep 0.4
    after=$(stat -c %s "$work/beat")
    if [ "$before" -ne "$after" ]; then
      echo "FAIL: run $k: the daemon still churns ($before then $after beats)"
      exit 1
    fi
  done
  took=$(( $(ms) - start ))
  echo "20 suites in $took ms (0.5 s of each is the wait for beats); none left churning"
done
