#!/usr/bin/env bash
# Whole-process benchmark of tictac's batch mode (docs/PERFORMANCE.md).
#
#   bench/run.sh [N ...]        default: 1000000 10000000
#
# For each N: generates a trace of N valid commands (mixed plays, game errors,
# undo, redo, play_again, new_game), then times `tictac -b` against `cat` of the
# very same output, both piped into `wc -c` (hyperfine), `tictac -b` into
# /dev/null, and `tictac -l` (the last command alone); and reports peak memory
# (`/usr/bin/time -v`). Needs hyperfine and GNU time (Debian: hyperfine, time).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
for tool in hyperfine /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/run.sh needs $tool (apt-get install hyperfine time)"; exit 2; }
done
cargo build --release --quiet --bin tictac --example gen_trace
bin=target/release/tictac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo 'start-up, a one-line trace:'
echo 'new_game("Ann","Bob")' > "$work/one.txt"
hyperfine -N --warmup 5 --runs 100 --style basic "$bin -b $work/one.txt" | grep -E 'Time|Range'

for n in "${sizes[@]}"; do
  trace="$work/trace-$n.txt"
  target/release/examples/gen_trace "$n" > "$trace"
  "$bin" -b "$trace" > "$work/out.txt"
  echo
  echo "== $n commands: trace $(stat -c %s "$trace") bytes, output $(stat -c %s "$work/out.txt") bytes"
  hyperfine --warmup 2 --runs 10 --style basic --export-json "$work/h.json" \
    "$bin -b $trace | wc -c" \
    "cat $work/out.txt | wc -c" \
    "$bin -b $trace > /dev/null" \
    "$bin -l $trace > /dev/null" > /dev/null
  python3 - "$work/h.json" "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
n = int(sys.argv[2])
name = ["tictac -b | wc -c", "cat | wc -c", "tictac -b > /dev/null", "tictac -l > /dev/null"]
for label, x in zip(name, r):
    print(f"  {label:24} median {x['median']*1000:8.1f} ms   min {x['min']*1000:8.1f} ms")
med = [x["median"] for x in r]
print(f"  commands per second (> /dev/null, median): {n / med[2] / 1e6:.2f} million")
print(f"  tictac / cat through the pipe (median):    {med[0] / med[1]:.2f}x")
print(f"  -l / full batch (median):                  {med[3] / med[2]:.2f}x")
PY
  for mode in -b -l; do
    /usr/bin/time -f "  peak memory, tictac $mode: %M KiB" "$bin" "$mode" "$trace" > /dev/null
  done
done
