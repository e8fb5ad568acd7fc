#!/usr/bin/env bash
# Peak memory of `tictac serve` at its worst admitted load (docs/RELIABILITY.md):
# wrk keeps 256 connections (the API admits 256 requests at once) each sending
# request bodies at the 1 MiB limit, LOAD_SECONDS (10) per case:
#   1. POST /api/run, a trace of `undo` lines whose transcript runs into the
#      4 MiB output cut (the most a run can hold);
#   2. POST /api/state, a trace of type errors (a message as long as the cut).
# The server must stay up (/healthz answers afterwards), and its peak RSS
# (VmHWM) stay under BOUND_MIB (default 512). Exits non-zero otherwise. Run by
# .ci/run's release step.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

install_missing wrk=wrk
release_build
seconds=${LOAD_SECONDS:-10}
bound=${BOUND_MIB:-512}

work=$(mktemp -d)
start_server check-serve-memory "$work/server.log" 'rm -rf "$work"'
hwm() { awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$server/status"; }

# Bodies just under the limit (1 MiB, the JSON included).
python3 - "$work" <<'PY'
import json, sys
limit = 1 << 20
for name, mode, line in [("run", {"mode": "b"}, "undo\n"), ("state", {}, "undo(1)\n")]:
    body = dict(mode, trace="")
    room = limit - len(json.dumps(body)) - 64
    body["trace"] = line * (room // len(json.dumps(line)[1:-1]))
    text = json.dumps(body)
    assert len(text) <= limit, len(text)
    open(f"{sys.argv[1]}/{name}.json", "w").write(text)
PY

echo "check-serve-memory: 256 connections, bodies of $(stat -c %s "$work/run.json") bytes, $(nproc) cores"
echo "     load average before: $(cut -d' ' -f1-3 /proc/loadavg); the server's peak at start: $(hwm) MiB"
failed=0
for case in run state; do
  status=$(curl -s -o /dev/null -w '%{http_code}' -d @"$work/$case.json" "$url/api/$case")
  cat > "$work/$case.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = io.open("$work/$case.json"):read("*a")
LUA
  wrk -t2 -c256 -d"${seconds}s" --timeout 30s -s "$work/$case.lua" "$url/api/$case" > "$work/$case.txt" || true
  echo "     /api/$case (one alone answers $status): $(awk '/requests in/ { print $1 }' "$work/$case.txt") requests in ${seconds} s," \
    "$(awk '/Non-2xx/ { print $5 }' "$work/$case.txt") not 2xx; peak so far $(hwm) MiB"
done
if [ "$(curl -s "$url/healthz")" != ok ]; then
  echo "FAIL the server does not answer /healthz after the load"
  failed=1
fi
peak=$(hwm)
if awk -v p="$peak" -v b="$bound" 'BEGIN { exit !(p < b) }'; then
  echo "ok   peak memory with 256 admitted 1 MiB requests: $peak MiB (bound: < $bound MiB)"
else
  echo "FAIL peak memory with 256 admitted 1 MiB requests: $peak MiB (bound: < $bound MiB)"
  failed=1
fi
exit "$failed"
