#!/usr/bin/env bash
# tictac fuzz, release build (run by .ci/run after `cargo build --release`):
# 1. against the engine itself, nothing in 10,000 runs;
# 2. its rate at least 80 % of a loop that only starts the same program on
#    the same traces with the same -j, the same way (through the process
#    core), both measured here (--spawn-only also gives a plain fork/exec loop);
# 3. a divergence found in a trace of up to 200 commands shrinks in under 5 s.
# Exits non-zero when a bound is not met.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/tictac
[ -x "$bin" ] || cargo build --release
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "== 10,000 runs against the engine itself"
start=$(date +%s%N)
"$bin" fuzz --program "$bin" --runs 10000 --seed 1 -j 2 --out "$scratch/self" | tee "$scratch/self.log"
fuzz_ms=$(( ($(date +%s%N) - start) / 1000000 ))
tail -1 "$scratch/self.log" | grep -q " 0 divergences found.$"

echo "== the same traces, the program only started"
"$bin" fuzz --program "$bin" --runs 10000 --seed 1 -j 2 --spawn-only | tee "$scratch/spawn.log"
spawn_rate=$(sed -n 's/^Spawn only (process core).*, \([0-9]*\) runs\/s$/\1/p' "$scratch/spawn.log")
fuzz_rate=$(( 10000 * 1000 / fuzz_ms ))
ratio=$(( 100 * fuzz_rate / spawn_rate ))
echo "fuzz: $fuzz_rate runs/s; starting loop: $spawn_rate runs/s; fuzz at $ratio % of it"
[ "$ratio" -ge 80 ]

echo "== shrinking a divergence in a long trace (up to 200 commands)"
cat > "$scratch/tie.sh" <<SCRIPT
#!/bin/sh
$PWD/$bin "\$@" | sed 's/game ended in a tie/tie/'
SCRIPT
chmod +x "$scratch/tie.sh"
"$bin" fuzz --program "$scratch/tie.sh" --max-lines 200 --runs 100 --seed 2 -j 1 \
  --out "$scratch/found" | tee "$scratch/shrink.log" || true
line=$(grep '^Divergence: tie ' "$scratch/shrink.log")
from=$(echo "$line" | sed -n 's/.*shrunk from \([0-9]*\) to.*/\1/p')
secs=$(echo "$line" | sed -n 's/.* events in \([0-9.]*\) s:.*/\1/p')
echo "shrunk a $from-command trace in $secs s"
awk -v s="$secs" 'BEGIN { exit !(s < 5) }'
