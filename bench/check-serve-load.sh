#!/usr/bin/env bash
# Load test of `tictac serve` on loopback with wrk (docs/PERFORMANCE.md), for
# POST /api/state on a 20-command game. Bounded in time: runs of 10 s
# (LOAD_SECONDS), at most five.
#   1. throughput at 64 connections: at least 10,000 requests/s;
#   2. a fixed rate of about 2,000 requests/s (22 connections, each waiting
#      10 ms between requests): p99 latency under 10 ms;
#   3. 256 connections open: the server's peak memory (VmHWM) under 64 MiB.
# No request may fail (non-2xx, socket errors). The machine is shared, so a
# throughput or latency run that misses its bound is run once more and the
# better figure counts. Also prints the server's CPU time per request, a
# figure other work on the machine disturbs less. Exits non-zero when a bound
# is not met. Run by .ci/run's release step.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

install_missing wrk=wrk
release_build
seconds=${LOAD_SECONDS:-10}

work=$(mktemp -d)
start_server check-serve-load "$work/server.log" 'rm -rf "$work"'

# A 20-command game: two rounds, errors, undo and redo.
cat > "$work/game.txt" <<'TRACE'
new_game("Ann","Bob")
play("Ann",1) play("Bob",5) play("Ann",9) play("Bob",5) play("Bob",3)
play("Ann",7) undo redo play("Bob",4) play("Ann",8)
play_again play("Bob",5) play("Ann",1) play("Bob",9) undo undo
play("Ann",2) play("Bob",3) play_again
TRACE
python3 -c 'import json,sys; print(json.dumps({"trace": open(sys.argv[1]).read()}))' "$work/game.txt" > "$work/body.json"
commands=$(grep -oE 'new_game|play_again|play\(|undo|redo' "$work/game.txt" | wc -l)
status=$(curl -s -o /dev/null -w '%{http_code}' -d @"$work/body.json" "$url/api/state")
[ "$status" = 200 ] || { echo "check-serve-load: /api/state answered $status"; exit 1; }

cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = io.open("$work/body.json"):read("*a")
LUA
cp "$work/post.lua" "$work/paced.lua"
echo 'function delay() return 10 end' >> "$work/paced.lua"

failed=0
# A wrk latency (850.00us, 1.20ms, 1.01s) in ms.
ms() { awk '{ v = $1; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } print v }'; }
# Failed requests in a wrk report: fails the check.
no_errors() {
  if grep -qE 'Non-2xx|Socket errors' "$1"; then
    echo "FAIL failed requests: $(grep -E 'Non-2xx|Socket errors' "$1" | tr -s ' ' | tr '\n' ';')"
    failed=1
  fi
}
meets() { awk -v v="$1" -v b="$3" -v op="$2" 'BEGIN { exit !((op == ">=") ? v >= b : v < b) }'; }
report() { # name, value, op, bound
  if meets "$2" "$3" "$4"; then echo "ok   $1: $2 (bound: $3 $4)"; else echo "FAIL $1: $2 (bound: $3 $4)"; failed=1; fi
}
# The server's CPU time so far (user + system), in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }

throughput() { # sets rps; prints the CPU time per request
  local before total
  before=$(ticks)
  wrk -t2 -c64 -d"${seconds}s" --latency -s "$work/post.lua" "$url/api/state" > "$work/throughput.txt"
  no_errors "$work/throughput.txt"
  total=$(awk '/requests in/ { print $1 }' "$work/throughput.txt")
  cpu=$(awk -v t="$(( $(ticks) - before ))" -v n="$total" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz / n * 1e6 }')
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$work/throughput.txt")
  echo "     $total requests in ${seconds} s, $rps requests/s; the server's CPU time per request: $cpu µs"
}

paced() { # sets p99 (ms); prints the rate and p50
  wrk -t2 -c22 -d"${seconds}s" --latency -s "$work/paced.lua" "$url/api/state" > "$work/paced.txt"
  no_errors "$work/paced.txt"
  p99=$(awk '$1 == "99%" { print $2 }' "$work/paced.txt" | ms)
  echo "     paced run: $(awk '/^Requests\/sec:/ { print $2 }' "$work/paced.txt") requests/s," \
    "p50 $(awk '$1 == "50%" { print $2 }' "$work/paced.txt" | ms) ms, p99 $p99 ms"
}

echo "check-serve-load: POST /api/state, a $commands-command game, $(nproc) cores, wrk on loopback"
echo "     load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
throughput
if ! meets "$rps" ">=" 10000; then
  first=$rps
  echo "     once more"
  throughput
  rps=$(awk -v a="$first" -v b="$rps" 'BEGIN { print (a > b) ? a : b }')
fi
report "throughput at 64 connections (requests/s)" "$rps" ">=" 10000

paced
if ! meets "$p99" "<" 10; then
  first=$p99
  echo "     once more"
  paced
  p99=$(awk -v a="$first" -v b="$p99" 'BEGIN { print (a < b) ? a : b }')
fi
report "p99 latency at ~2,000 requests/s (ms)" "$p99" "<" 10

wrk -t2 -c256 -d"${seconds}s" -s "$work/post.lua" "$url/api/state" > "$work/many.txt"
no_errors "$work/many.txt"
echo "     256 connections: $(awk '/^Requests\/sec:/ { print $2 }' "$work/many.txt") requests/s"
peak=$(awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$server/status")
report "peak memory with 256 connections (MiB)" "$peak" "<" 64

exit "$failed"
