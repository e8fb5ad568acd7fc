#!/usr/bin/env bash
# Time stays linear in the size of pathological inputs: for each shape, the
# release build runs a trace of size n and one of size 8n (best of 3 each);
# linear time gives about 8x, quadratic 64x. Exits 1 if a ratio reaches 20x
# (room for a noisy machine, far from quadratic), or if a run fails (no
# binary, a crash, an exit that is not the trace's answer): a run that did
# not happen is not a fast one. A timing check, so it lives here and not in
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

# best FILE: the fastest of three runs of tictac -b FILE, in seconds. A run
# must answer: exit 0, or 1 after a syntax or type error, or 2 refusing an
# event over 1 MiB (said on standard error); anything else (127: no such
# program, a signal, another error) stops the check, saying what it was.
best() {
  local b=999 t code
  for _ in 1 2 3; do
    code=0
    /usr/bin/time -f %e -o "$work/time.txt" "$bin" -b "$1" >/dev/null 2>"$work/err.txt" || code=$?
    if ! { [ "$code" -le 1 ] || { [ "$code" = 2 ] && grep -q 'is longer than 1 MiB' "$work/err.txt"; }; }; then
      echo "FAIL: $bin -b $(basename "$1") ($shape) exited with status $code: $(head -c 300 "$work/err.txt")" >&2
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
  small=$(best "$work/small.txt")
  large=$(best "$work/large.txt")
  ratio=$(awk -v a="$small" -v b="$large" 'BEGIN { if (a < 0.02) a = 0.02; printf "%.1f", b / a }')
  verdict=ok
  if awk -v r="$ratio" 'BEGIN { exit !(r >= 20) }'; then verdict=FAIL; status=1; fi
  printf '%-5s %-16s %6ss for n/8, %6ss for n (%sx)\n' "$verdict" "$shape" "$small" "$large" "$ratio"
done
exit $status
