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
# Both sides run under the same conditions: the writer and its reader (wc -c)
# pinned to one and the same CPU, the same for tictac and cat (CPU=N picks
# it; the last CPU this script may use by default), after one pair that is
# not counted (the files in the page cache, the binaries loaded). Unpinned,
# cat's CPU time swung threefold (0.029 to 0.094 s, at times 0.3): whenever
# the scheduler put wc on the other CPU, each 64 KiB the pipe carries was
# handed from one CPU's cache to the other's and cat's copies into the pipe
# cost two to three times as much, while tictac, whose time is mostly its own
# work, moved by a tenth. So the figure followed where wc landed more than
# tictac. Pinned, cat's side stays within a few percent.
#
# The bound is 4.0, a guard against regressions: today's code measures 2.86
# to 2.96 on a quiet machine (.ci/run's build), so a tictac about a third
# slower fails. Issue 36's bar is 3.0, met here by a few hundredths
# (docs/PERFORMANCE.md); BOUND=3.0 checks it. CI keeps the margin because a
# CI run has measured up to an eighth above a quiet one.
#
#   bench/check-batch-cpu.sh            # builds the release binary if missing
#
# CPU times are read by python3's os.wait4 (microseconds; GNU time prints
# hundredths of a second, and cat's side is about 0.03 s). PAIRS=N changes
# the number of pairs (15), N=... the number of commands.
set -euo pipefail
cd "$(dirname "$0")/.."
bound=${BOUND:-4.0}
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
# One CPU for this script, so for every writer and reader it starts.
cpus = sorted(os.sched_getaffinity(0))
cpu_used = int(os.environ.get("CPU", cpus[-1]))
os.sched_setaffinity(0, {cpu_used})

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

def quartiles(values):
    q = statistics.quantiles(values, n=4)
    return f"quartiles {q[0]:.3f} to {q[2]:.3f}, min {min(values):.3f}, max {max(values):.3f}"

cpu([tictac, "-b", trace]); cpu(["cat", out])  # the pair not counted
rows = []
for _ in range(pairs):
    t = cpu([tictac, "-b", trace])
    c = cpu(["cat", out])
    rows.append((t / c, t, c))
ratio = statistics.median(r[0] for r in rows)
tictac_median = statistics.median(r[1] for r in rows)
cat_median = statistics.median(r[2] for r in rows)
print(f"load average: {open('/proc/loadavg').read().split()[:3]}; writers and wc on CPU {cpu_used}")
print(f"tictac -b, CPU median {tictac_median:.3f} s ({quartiles([r[1] for r in rows])})")
print(f"cat OUT,   CPU median {cat_median:.3f} s ({quartiles([r[2] for r in rows])})")
print("ratios of the pairs: " + " ".join(f"{r[0]:.2f}" for r in rows))
verdict = "ok" if ratio <= bound else "FAILED"
print(f"batch-cpu: {verdict}: tictac -b costs {ratio:.2f} times cat's CPU time (median of {pairs} pairs; bound {bound})")
sys.exit(0 if ratio <= bound else 1)
PY
