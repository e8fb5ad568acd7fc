#!/usr/bin/env bash
# Whole-process benchmark of tictac's batch mode (docs/PERFORMANCE.md).
#
#   bench/run.sh [N ...]        default: 1000000 10000000
#
# For each N: generates a trace of N valid commands (mixed plays, game errors,
# undo, redo, play_again, new_game), then times `tictac -b` against `cat` of the
# very same output, both piped into `wc -c` (hyperfine), `tictac -b` into
# /dev/null, and `tictac -l` (the last command alone); and reports peak memory
# (`/usr/bin/time -v`); also `-b` with IN through a pipe (`/dev/stdin`) and as
# `-`. Prints the load average around each run. RUNS=N repetitions (10).
# Needs hyperfine and GNU time (Debian: hyperfine, time).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
for tool in hyperfine /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/run.sh needs $tool (apt-get install hyperfine time)"; exit 2; }
done
# TICTAC=path and GEN_TRACE=path measure given builds without building.
if [ -z "${TICTAC:-}" ]; then
  cargo build --release --quiet --bin tictac --example gen_trace
fi
bin=${TICTAC:-target/release/tictac}
gen=${GEN_TRACE:-target/release/examples/gen_trace}
runs=${RUNS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo 'start-up, a one-line trace:'
echo 'new_game("Ann","Bob")' > "$work/one.txt"
hyperfine -N --warmup 5 --runs 100 --style basic "$bin -b $work/one.txt" | grep -E 'Time|Range'

for n in "${sizes[@]}"; do
  trace="$work/trace-$n.txt"
  "$gen" "$n" > "$trace"
  "$bin" -b "$trace" > "$work/out.txt"
  echo
  echo "== $n commands: trace $(stat -c %s "$trace") bytes, output $(stat -c %s "$work/out.txt") bytes"
  echo "   load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  hyperfine --warmup 2 --runs "$runs" --style basic --export-json "$work/h.json" \
    "$bin -b $trace | wc -c" \
    "cat $work/out.txt | wc -c" \
    "$bin -b $trace > /dev/null" \
    "$bin -l $trace > /dev/null" \
    "cat $trace | $bin -b /dev/stdin > /dev/null" \
    "$bin -b - < $trace > /dev/null" > /dev/null
  echo "   load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 - "$work/h.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
n = int(sys.argv[2])
name = ["tictac -b | wc -c", "cat | wc -c", "tictac -b > /dev/null", "tictac -l > /dev/null",
        "cat IN | tictac -b /dev/stdin", "tictac -b - < IN"]
for label, x in zip(name, r):
    print(f"  {label:24} median {x['median']*1000:8.1f} ms   min {x['min']*1000:8.1f} ms")
med = [x["median"] for x in r]
mins = [x["min"] for x in r]
print(f"  commands per second (> /dev/null, median): {n / med[2] / 1e6:.2f} million (min: {n / mins[2] / 1e6:.2f})")
print(f"  the same, IN through a pipe / as stdin -:  {n / med[4] / 1e6:.2f} / {n / med[5] / 1e6:.2f} million")
print(f"  tictac / cat through the pipe (median):    {med[0] / med[1]:.2f}x (min / min: {mins[0] / mins[1]:.2f}x)")
print(f"  -l / full batch (median):                  {med[3] / med[2]:.2f}x")
PY
  for mode in -b -l; do
    /usr/bin/time -f "  peak memory, tictac $mode: %M KiB" "$bin" "$mode" "$trace" > /dev/null
  done
done
