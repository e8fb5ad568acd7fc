#!/usr/bin/env bash
# tictac grade, release build (run by .ci/run after `cargo build --release`):
# a class of 30 students graded on the built-in course suite with -j 2 runs
# at least 30 % of the rate of a bare loop that runs the same (student,
# trace) pairs with the same -j (issue 28):
#
#   xargs -P 2 sh -c 'cd STUDENT && ./ttt none -b T | cmp -s - T.expected'
#
# the median of five rounds' ratios, each round grade then the bare loop
# right after it (as bench/check-fuzz.sh: a burst of load slows both sides
# of a round alike, and the median drops a round where only one side was
# slowed; "fastest against fastest" let one lucky run of a side decide). Every
# student's program is correct, and grades.csv must say that every student
# passed every test (and the bare loop that every comparison matched): a
# wrong answer fast is no speed.
#
# The class: 30 folders, three of them with a space in their name, each
# holding its own program `ttt`, graded with `--command ./ttt`, the form of
# the guide's session (docs/guide/grade.md). An ETF course's submission is a compiled executable
# in the student's folder, so `ttt` is the release build of the model program
# (examples/mutant.rs, run as `./ttt none`: a correct one), copied into each
# folder and started directly: a wrapper script would add a shell's start to
# every run on both sides and hide the grader's own cost in the ratio. Not
# tictac itself: graded as root, a tictac below the grader refuses to answer,
# and at 43 MiB it is past the size of a folder copied for each run.
#
# The suite: `tictac course-suite` written out, keeping only the traces run
# as `-b IN` (no `-- run:` line, or `-- run: -b IN`), and both sides run that
# folder: a trace run otherwise (`-w`, `-b IN OUT`, `-i`) is left out of both
# rather than rebuilt as a shell command. Today every course trace is `-b IN`
# (46 tests, 1,380 runs a side); the script says how many it left out.
# The bound was 90 % until every run got a private copy of its student's
# folder and, graded as root, runs as `nobody` one student at a time (issue
# 33, items 6 and 7): 71 % measured on 2026-11-28 as each side's fastest
# round; as the median of paired rounds, that build and main both measure 45
# to 50 % (the same system calls per run, the same CPU): the bound is 30 %,
# under the lowest median seen; what a run costs as root, and getting the
# rate back, are in docs/PERFORMANCE.md.
# Exits non-zero when the bound is not met or a result is wrong.
#
#   bench/check-grade.sh     (figures in docs/PERFORMANCE.md)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/target/release/tictac
cargo build --release --quiet --bin tictac --example mutant
model=$PWD/target/release/examples/mutant
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ms() { echo $(($(date +%s%N) / 1000000)); }
fail() {
  echo "FAIL: $*"
  exit 1
}

"$bin" course-suite "$scratch/course" >/dev/null
mkdir "$scratch/suite"
left_out=0
for trace in "$scratch"/course/*.txt; do
  case $trace in *.expected.txt) continue ;; esac
  # The run line, if any, with its spaces as Plan reads them.
  first=$(head -n 1 "$trace" | tr -d '\r' | tr -s ' \t' '  ' | sed 's/ $//')
  if [[ $first == "-- run:"* && $first != "-- run: -b IN" ]]; then
    left_out=$((left_out + 1))
    continue
  fi
  cp "$trace" "${trace%.txt}.expected.txt" "$scratch/suite/"
done
tests=$(find "$scratch/suite" -name '*.txt' ! -name '*.expected.txt' | wc -l)
[ "$tests" -ge 40 ] || fail "only $tests course traces run as -b IN"

students=()
for k in $(seq 1 30); do
  case $k in
    7) name="dan smith" ;;
    15) name="mei ling wu" ;;
    23) name="o'brien, pat" ;;
    *) name=$(printf 'student%02d' "$k") ;;
  esac
  mkdir -p "$scratch/class/$name"
  cp "$model" "$scratch/class/$name/ttt"
  students+=("$scratch/class/$name")
done
runs=$((30 * tests))

# The bare loop's (folder, trace, expected) triples, student after student.
for dir in "${students[@]}"; do
  for trace in "$scratch"/suite/*.txt; do
    case $trace in *.expected.txt) continue ;; esac
    printf '%s\0%s\0%s\0' "$dir" "$trace" "${trace%.txt}.expected.txt"
  done
done >"$scratch/pairs"

ratios=()
for round in 1 2 3 4 5; do
  out=$scratch/grades-$round
  start=$(ms)
  "$bin" grade "$scratch/suite" "${students[@]}" --command "./ttt none" -j 2 --out "$out" >"$scratch/grade.log" 2>&1 ||
    fail "tictac grade: $(cat "$scratch/grade.log")"
  grade_ms=$(($(ms) - start))
  # Every student, every test passed: a row of `NAME,T,T,T,1,...` each.
  awk -F, -v t="$tests" 'NR == 1 { next } { rows++ } !($(NF - t - 2) == t && $(NF - t - 1) == t) { bad = bad "\n" $0 }
    END { if (rows != 30 || bad != "") { printf "%d rows%s\n", rows, bad; exit 1 } }' "$out/grades.csv" >"$scratch/bad" ||
    fail "grades.csv does not say every student passed all $tests tests: $(cat "$scratch/bad")"
  grep -q "^Graded 30 students on $tests tests of " "$scratch/grade.log" || fail "tictac grade: $(cat "$scratch/grade.log")"

  start=$(ms)
  xargs -0 -n 3 -P 2 sh -c 'cd "$1" && ./ttt none -b "$2" | cmp -s - "$3"' sh <"$scratch/pairs" ||
    fail "the bare loop: a run's output differs from its expected file"
  bare_ms=$(($(ms) - start))
  ratio=$((100 * bare_ms / grade_ms))
  echo "round $round: grade $grade_ms ms ($((runs * 1000 / grade_ms)) runs/s), bare loop $bare_ms ms ($((runs * 1000 / bare_ms)) runs/s), $runs runs each: grade at $ratio %"
  ratios+=("$ratio")
done
ratio=$(printf '%s\n' "${ratios[@]}" | sort -n | sed -n 3p)
echo "a class of 30 on $tests tests ($left_out course traces left out: not -b IN), -j 2, rounds ${ratios[*]} %:" \
  "the median, grade at $ratio % of the bare loop's rate (bound: 30 %, see docs/PERFORMANCE.md)"
[ "$ratio" -ge 30 ]
