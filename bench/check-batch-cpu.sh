#!/usr/bin/env bash
# Batch speed against cat (issue 36): `tictac -b` on a trace of 1,000,000
# commands of ordinary games (examples/gen_trace), its output read from a
# pipe, must cost at most BOUND times the CPU time (user + system, from
# wait4) of `cat OUT` writing the very same output into the same kind of
# pipe. The figure is the median of 15 pairs, tictac and cat alternating,
# of tictac's CPU time over cat's: CPU time, because wall time on a shared
# machine swings by half from run to run; pairs, so that both sides of a
# ratio see the same moment of the machine. docs/PERFORMANCE.md has the
# figures.
#
# The bound is 9.0: today's code measures about 7 (6.85 with fat LTO, 7.33
# without, as .ci/run builds), so a tictac a quarter slower fails. Issue 36's
# bar is 3.0 and is not met yet (docs/PERFORMANCE.md says what stands in the
# way); BOUND=3.0 checks it.
#
#   bench/check-batch-cpu.sh            # builds the release binary if missing
#
# CPU times are read by python3's os.wait4 (microseconds; GNU time prints
# hundredths of a second, and cat's side is about 0.03 s). PAIRS=N changes
# the number of pairs (15), N=... the number of commands.
set -euo pipefail
cd "$(dirname "$0")/.."
bound=${BOUND:-9.0}
pairs=${PAIRS:-15}
n=${N:-1000000}
command -v python3 >/dev/null || { echo "check-batch-cpu.sh needs python3"; exit 2; }
# TICTAC=path and GEN_TRACE=path measure given builds without building.
if [ -z "${TICTAC:-}" ]; then
  [ -x target/release/tictac ] && [ -x target/release/examples/gen_trace ] ||
    cargo build --release --quiet --bin tictac --example gen_trace
fi
bin=$(realpath "${TICTAC:-target/release/tictac}")
gen=$(realpath "${GEN_TRACE:-target/release/examples/gen_trace}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$gen" "$n" > "$work/trace.txt"
"$bin" -b "$work/trace.txt" > "$work/out.txt"

python3 - "$bin" "$work/trace.txt" "$work/out.txt" "$pairs" "$bound" <<'PY'
import os, statistics, subprocess, sys

tictac, trace, out, pairs, bound = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])

def cpu(command):
    """User + system seconds of COMMAND, its output read by wc -c through a pipe."""
    writer = subprocess.Popen(command, stdout=subprocess.PIPE)
    reader = subprocess.Popen(["wc", "-c"], stdin=writer.stdout, stdout=subprocess.PIPE)
    writer.stdout.close()
    _, status, usage = os.wait4(writer.pid, 0)
    writer.returncode = os.waitstatus_to_exitcode(status)
    size = int(reader.communicate()[0])
    if writer.returncode != 0 or size != os.path.getsize(out):
        sys.exit(f"{command[0]} exited with {writer.returncode} after {size} bytes (expected {os.path.getsize(out)})")
    return usage.ru_utime + usage.ru_stime

rows = []
for _ in range(pairs):
    t = cpu([tictac, "-b", trace])
    c = cpu(["cat", out])
    rows.append((t / c, t, c))
ratio = statistics.median(r[0] for r in rows)
tictac_median = statistics.median(r[1] for r in rows)
cat_median = statistics.median(r[2] for r in rows)
print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
print(f"tictac -b, CPU median {tictac_median:.3f} s (min {min(r[1] for r in rows):.3f}); "
      f"cat OUT, CPU median {cat_median:.3f} s (min {min(r[2] for r in rows):.3f})")
print("ratios of the pairs: " + " ".join(f"{r[0]:.2f}" for r in rows))
verdict = "ok" if ratio <= bound else "FAILED"
print(f"batch-cpu: {verdict}: tictac -b costs {ratio:.2f} times cat's CPU time (median of {pairs} pairs; bound {bound})")
sys.exit(0 if ratio <= bound else 1)
PY
