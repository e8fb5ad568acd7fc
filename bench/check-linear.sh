#!/usr/bin/env bash
# Time stays linear in the size of pathological inputs: for each shape, the
# release build runs a trace of size n and one of size 8n (best of 3 each);
# linear time gives about 8x, quadratic 64x. Exits 1 if a ratio reaches 20x
# (room for a noisy machine, far from quadratic), or if a run fails (no
# binary, a crash, an exit status, line count, first or last line that is
# not the trace's answer): a run that did not happen is not a fast one. A timing check, so it lives here and not in
# cargo test.
#
#   bench/check-linear.sh [n]      default 4000000 (TICTAC=path: that build)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4000000}
if ! [ -x /usr/bin/time ]; then
  apt-get update -qq
  apt-get install -y -qq time
fi
[ -n "${TICTAC:-}" ] || cargo build --release --quiet --bin tictac
bin=${TICTAC:-$PWD/target/release/tictac}
[ -x "$bin" ] || { echo "FAIL: no executable tictac at $bin"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# make SHAPE COUNT FILE: a pathological trace of COUNT repetitions.
make() {
  awk -v shape="$1" -v n="$2" 'BEGIN {
    if (shape == "escaped-quotes") { printf "play(\""; for (i = 0; i < n; i++) printf "a\\\"\n"; print "" }
    else if (shape == "one-long-event") { print "play("; for (i = 0; i < n; i++) print "\"x\","; print "1)" }
    else if (shape == "identifiers") { for (i = 0; i < n; i++) print "play(Ora,1)" }
    else if (shape == "type-errors") { for (i = 0; i < n; i++) print "undo(1)" }
    else if (shape == "comments") { for (i = 0; i < n; i++) printf "-- c\n\n  \nundo\n" }
    else if (shape == "blank-line") { for (i = 0; i < n; i++) printf "  \t  "; printf "undo" }
  }' > "$3"
}

# The answer each shape's trace of COUNT repetitions must get (tictac -b):
# its exit status, its standard output's line count, first line and last
# line (a glob), into want_code, want_lines, want_first, want_last. An event
# over 1 MiB is refused, exit 2, nothing on standard output (want_lines 0).
syntax='Syntax Error: specification of command executions cannot be parsed'
types='Type Error: specification of command executions is not type-correct'
expect() {
  local shape=$1 count=$2 size=$3
  want_code=1 want_lines=2
  case $shape in
    escaped-quotes) want_first=$syntax want_last="parse error (Line $((count + 1)), Column 1)" ;;
    one-long-event) want_first=$types want_last='play(x, x*1) does not conform to declaration play(*' ;;
    identifiers) want_first=$syntax want_last='Unknown identifier Ora (Line *, Column 6)' ;;
    type-errors) want_first=$types want_last='undo(1) does not conform to declaration undo' want_lines=$((count + 1)) ;;
    comments | blank-line)
      want_code=0 want_first='  ok:  => start new game' want_last='  0: score for "" (as O)'
      want_lines=13
      [ "$shape" = blank-line ] || want_lines=$((7 * count + 6)) ;;
  esac
  if [ "$size" -gt 1048576 ] && [ "$want_lines" = 2 ] && [ "$shape" != identifiers ]; then
    want_code=2 want_lines=0 want_first='' want_last=''
  fi
}

# verify SHAPE COUNT FILE: one run of tictac -b FILE (not timed) must have
# done the work: the exit status, line count, first and last lines its
# shape's trace gets, and for exit 2 the refusal on standard error. A run
# that did no work (no such program, /bin/true, an early syntax error for
# every trace) is not a fast one: it stops the check, saying what it was.
verify() {
  local code lines first last
  expect "$1" "$2" "$(wc -c < "$3")"
  { code=0; "$bin" -b "$3" 2>"$work/err.txt" || code=$?; echo "$code" > "$work/code.txt"; } |
    awk 'NR == 1 { first = $0 } { last = $0 } END { printf "%d\n%s\n%s\n", NR, first, last }' > "$work/sum.txt"
  code=$(cat "$work/code.txt")
  { read -r lines; IFS= read -r first; IFS= read -r last; } < "$work/sum.txt"
  if [ "$code" != "$want_code" ] || [ "$lines" != "$want_lines" ] || [ "$first" != "$want_first" ] ||
    [[ $last != $want_last ]] || { [ "$code" = 2 ] && ! grep -q 'is longer than 1 MiB' "$work/err.txt"; }; then
    echo "FAIL: $bin -b $(basename "$3") ($1, $2 repetitions) answered exit $code, $lines lines," \
      "first '$(head -c 100 <<< "$first")', last '$(head -c 100 <<< "$last")'; wanted exit $want_code," \
      "$want_lines lines, first '$want_first', last '$want_last'. Standard error: $(head -c 300 "$work/err.txt")" >&2
    return 1
  fi
}

# best FILE: the fastest of three runs of tictac -b FILE, in seconds; each
# must exit as `verify` saw it did (want_code), else the check stops.
best() {
  local b=999 t code
  for _ in 1 2 3; do
    code=0
    /usr/bin/time -f %e -o "$work/time.txt" "$bin" -b "$1" >/dev/null 2>"$work/err.txt" || code=$?
    if [ "$code" != "$want_code" ]; then
      echo "FAIL: $bin -b $(basename "$1") ($shape) exited with status $code, not $want_code: $(head -c 300 "$work/err.txt")" >&2
      return 1
    fi
    t=$(tail -n 1 "$work/time.txt")
    b=$(awk -v a="$b" -v t="$t" 'BEGIN { print (t < a) ? t : a }')
  done
  echo "$b"
}

status=0
for shape in escaped-quotes one-long-event identifiers type-errors comments blank-line; do
  make "$shape" $((n / 8)) "$work/small.txt"
  make "$shape" "$n" "$work/large.txt"
  verify "$shape" $((n / 8)) "$work/small.txt"
  small=$(best "$work/small.txt")
  verify "$shape" "$n" "$work/large.txt"
  large=$(best "$work/large.txt")
  ratio=$(awk -v a="$small" -v b="$large" 'BEGIN { if (a < 0.02) a = 0.02; printf "%.1f", b / a }')
  verdict=ok
  if awk -v r="$ratio" 'BEGIN { exit !(r >= 20) }'; then verdict=FAIL; status=1; fi
  printf '%-5s %-16s %6ss for n/8, %6ss for n (%sx)\n' "$verdict" "$shape" "$small" "$large" "$ratio"
done
exit $status
