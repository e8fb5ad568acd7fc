#!/usr/bin/env bash
# `tictac test` stays under 64 MiB of peak memory at -j 2 whatever the programs
# it runs print (docs/RELIABILITY.md), and ends in bounded time. Each case is a
# suite of 4 tests (or more, where it says) run by the release build against a hostile program (a shell
# script); GNU time gives the runner's own peak RSS (its children are separate
# processes). Exits 1 if a case goes over 64 MiB or 60 s, if a program it
# started is still running afterwards, or if tictac test does not end with
# the case's verdict: exit 1 and its count of tests passed where the program
# is wrong, exit 0 and every test passed only where it prints the expected
# output (no binary, a crash, an error, or a binary that ran nothing would
# have measured a run that did not happen).
#
#   bench/check-runner.sh     (TICTAC=BINARY: that binary, not a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
limit_kib=$((64 * 1024))
limit_s=60
if ! [ -x /usr/bin/time ]; then
  apt-get update -qq
  apt-get install -y -qq time
fi
bin=${TICTAC:-$PWD/target/release/tictac}
[ -n "${TICTAC:-}" ] || cargo build --release --quiet --bin tictac
[ -x "$bin" ] || { echo "FAIL: no executable tictac at $bin"; exit 1; }
work=$(mktemp -d)
mkdir "$work/here"
trap 'pkill -KILL -f "$work/" 2>/dev/null || true; rm -rf "$work"' EXIT

# A suite: 4 traces; expected outputs of SIZE bytes of "line N" rows.
suite() {
  local dir=$work/$1 rows=$2
  mkdir -p "$dir"
  for t in t1 t2 t3 t4; do
    echo 'undo' > "$dir/$t.txt"
    awk -v n="$rows" 'BEGIN { for (i = 0; i < n; i++) print "line " i }' > "$dir/$t.expected.txt"
  done
}

# A program: a script whose body is $2; $me re-runs it.
program() {
  printf '#!/bin/sh\nme="$0"\n%s\n' "$2" > "$work/$1.sh"
  chmod +x "$work/$1.sh"
}

status=0
# check WHAT SUITE PROGRAM CODE RESULT [OPTION...]: tictac test must exit
# CODE, its report holding RESULT (its closing line, or JUnit's failures).
check() {
  local what=$1 suite=$2 prog=$3 want_code=$4 want=$5
  shift 5
  local start end out peak code
  start=$(date +%s.%N)
  # Run from a folder of its own, as a student runs it from theirs: the
  # folder `tictac test` runs in is copied for each run, and this repository
  # (its target/ past the copy limits) would be run in one test at a time.
  (cd "$work/here" && /usr/bin/time -o "$work/time.txt" -f 'PEAK %M' "$bin" test --program "$work/$prog.sh" -j 2 "$@" "$work/$suite") >"$work/out.txt" 2>"$work/err.txt" && code=0 || code=$?
  end=$(date +%s.%N)
  peak=$(awk '/^PEAK/ { print $2 }' "$work/time.txt" | tail -n 1)
  local secs
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  local verdict
  verdict=$(grep -m1 -E '^     .*(printed more|ran longer|outputs differ|@@)' "$work/out.txt" | sed 's/^ *//' | cut -c1-60 || true)
  if head -c 5 "$work/out.txt" | grep -q '<?xml'; then
    verdict="JUnit, $(wc -c <"$work/out.txt") bytes, $(grep -o -m1 'failures="[0-9]*"' "$work/out.txt" | head -n 1)"
  fi
  # An exit past 1 is no verdict on the tests: none is claimed.
  [ "$code" -le 1 ] || verdict="tictac test failed"
  grep -qF -- "$want" "$work/out.txt" || verdict="not the verdict wanted"
  printf '| %-46s | exit %d, %-60s | %5s s | %6.1f MiB |\n' "$what" "$code" "${verdict:-all passed}" "$secs" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')"
  if [ "$code" != "$want_code" ] || ! grep -qF -- "$want" "$work/out.txt"; then
    echo "  FAIL: tictac test exited with status $code, not $want_code with '$want':" \
      "$(tail -c 200 "$work/out.txt") $(head -c 300 "$work/err.txt")"
    status=1
  fi
  if [ "$peak" -gt "$limit_kib" ]; then
    echo "  FAIL: peak over 64 MiB"
    status=1
  fi
  if awk -v s="$secs" -v l="$limit_s" 'BEGIN { exit !(s > l) }'; then
    echo "  FAIL: over $limit_s s"
    status=1
  fi
  sleep 0.2
  if pgrep -f "$work/" >/dev/null; then
    echo "  FAIL: processes left running:"
    pgrep -af "$work/"
    status=1
  fi
}

suite small 10
suite big 2000000    # about 25 MB expected: caps at 26 MiB
suite shuffled 15000
suite short 1
for t in t1 t2 t3 t4; do
  awk 'BEGIN { srand(1); for (i = 0; i < 500000; i++) print (rand() < 0.5 ? "a" : "b") }' > "$work/short/$t.expected.txt"
done
awk 'BEGIN { srand(2); for (i = 0; i < 500000; i++) print (rand() < 0.5 ? "a" : "b") }' > "$work/short.out"
awk 'BEGIN { for (i = 0; i < 2000000; i++) print "line " i }' > "$work/big.out"
# 1,000 tests, each failing with a 200-line diff: the JUnit report (about
# 14 MB) waits on a spool, not in memory.
mkdir -p "$work/many"
for t in $(seq 1 1000); do
  echo 'undo' > "$work/many/t$t.txt"
done
awk 'BEGIN { for (i = 0; i < 300; i++) printf "expected line %d, long enough for its diff to weigh: %d\n", i, i * 7 }' > "$work/many/t1.expected.txt"
for t in $(seq 2 1000); do cp "$work/many/t1.expected.txt" "$work/many/t$t.expected.txt"; done
awk 'BEGIN { for (i = 0; i < 300; i++) printf "program line %d, long enough for its diff to weigh: %d\n", i, i * 11 }' > "$work/many.out"
# 3,000 tests behind a slow first one (its program sleeps 15 s), each
# other failing with a 1,000-line diff of 900-byte lines: results wait to be
# reported in order, and must not wait in memory all together.
mkdir -p "$work/behind"
echo 'undo' > "$work/behind/a0000.txt"
awk 'BEGIN { for (i = 0; i < 1000; i++) { printf "expected %d ", i; for (j = 0; j < 89; j++) printf "0123456789"; print "" } }' > "$work/behind/a0000.expected.txt"
for t in $(seq 1 2999); do
  echo 'undo' > "$work/behind/t$t.txt"
  ln "$work/behind/a0000.expected.txt" "$work/behind/t$t.expected.txt"
done
sed 's/^expected/program/' "$work/behind/a0000.expected.txt" > "$work/behind.out"
awk 'BEGIN { for (i = 0; i < 15000; i++) print "line " i }' | shuf --random-source=<(yes) > "$work/shuffled.out"

program yes 'exec yes'
program yes-err 'yes >&2 & sleep 2'
program flood-both 'yes >&2 & exec yes "a long line of output that never ends, on and on"'
program same "exec cat $work/big.out"
program almost "sed 's/^line 1999999\$/LINE/' $work/big.out"
program shuffled "exec cat $work/shuffled.out"
program short "exec cat $work/short.out"
program many "exec cat $work/many.out"
program slow-first "case \"\$2\" in */a0000.txt) sleep 15 ;; esac; exec cat $work/behind.out"
program bg-holds "[ \"\$1\" = child ] && exec sleep 1000; \"\$me\" child & exec cat $work/big.out"

echo "tictac test -j 2, 4 tests a suite; the runner's peak RSS (limit 64 MiB):"
echo "| case | result | time | peak |"
echo "| --- | --- | --- | --- |"
none='Test Results: 0/4 passed.' all='Test Results: 4/4 passed.'
check 'prints forever (yes)' small yes 1 "$none"
check 'prints to stderr for 2 s, then exits' small yes-err 1 "$none" --timeout 5
check 'prints forever to both' small flood-both 1 "$none"
check '25 MB output, equal to expected' big same 0 "$all"
check '25 MB output, last line differs' big almost 1 "$none"
check '15,000 lines shuffled (diff time-bound)' shuffled shuffled 1 "$none"
check '500,000 random 1-letter lines (1 MB)' short short 1 "$none"
check '25 MB output, child holds the pipe' big bg-holds 0 "$all"
check '--format junit, 1,000 tests with 200-line diffs' many many 1 'failures="1000"' --format junit
check '3,000 failing tests behind one of 15 s' behind slow-first 1 'Test Results: 0/3000 passed.' --timeout 30
exit "$status"
