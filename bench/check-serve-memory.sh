#!/usr/bin/env bash
# Peak memory of `tictac serve` at its worst admitted load (docs/RELIABILITY.md):
# wrk keeps 256 connections (the API admits 256 requests at once) each sending
# request bodies of exactly the 1 MiB limit (src/serve/limits.rs, BODY_LIMIT:
# the largest the server admits; a byte more is refused with 413, checked
# here), LOAD_SECONDS (10) per case, each a run that happens and answers a
# transcript just under the 4 MiB output cut (OUTPUT_LIMIT), the rest of the
# body a comment:
#   1. POST /api/run, a trace of `undo` lines: its output;
#   2. POST /api/state, a trace of type errors: its message.
# One request alone must answer 200 with the command line's bytes (tictac -b
# on the same trace), and the load must have answered some 200s: the server
# ran what it was sent, it did not just refuse it. The server must stay up
# (/healthz answers afterwards), and its peak RSS (VmHWM) stay under
# BOUND_MIB (default 512). Exits non-zero otherwise. Run by .ci/run's
# release step.
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

# Bodies of exactly the limit (1 MiB, the JSON included), their runs' output
# as the command line prints it beside them.
python3 - "$work" "$bin" <<'PY'
import json, subprocess, sys
work, tictac = sys.argv[1], sys.argv[2]
body_limit, output_limit = 1 << 20, 4 << 20
def transcript(trace):
    open(f"{work}/trace.txt", "w").write(trace)
    return subprocess.run([tictac, "-b", f"{work}/trace.txt"], capture_output=True).stdout
for name, mode, line in [("run", {"mode": "b"}, "undo\n"), ("state", {}, "undo(1)\n")]:
    # The transcript grows by the same bytes a line: as many lines as keep it
    # a KiB under the cut, then a comment up to the body limit.
    small, large = len(transcript(line * 1000)), len(transcript(line * 2000))
    per_line = (large - small) // 1000
    lines = (output_limit - 1024 - (small - 1000 * per_line)) // per_line
    body = dict(mode, trace=line * lines + "-- ")
    body["trace"] += "x" * (body_limit - len(json.dumps(body)) - 2) + "\n"
    text = json.dumps(body)
    assert len(text) == body_limit, len(text)
    expected = transcript(body["trace"])
    assert output_limit - 4096 < len(expected) <= output_limit, len(expected)
    open(f"{work}/{name}.json", "w").write(text)
    open(f"{work}/{name}.expected", "wb").write(expected)
    # A byte more: refused.
    open(f"{work}/{name}.over.json", "w").write(text[:-1] + " }")
PY

echo "check-serve-memory: 256 connections, bodies of $(stat -c %s "$work/run.json") bytes, $(nproc) cores"
echo "     load average before: $(cut -d' ' -f1-3 /proc/loadavg); the server's peak at start: $(hwm) MiB"
failed=0
# Each alone first, the server idle: admitted, run, and answered what the
# command line prints (the run's output; the state's message of type
# errors); a byte more is refused.
for case in run state; do
  status=$(curl -s -o "$work/$case.reply" -w '%{http_code}' -d @"$work/$case.json" "$url/api/$case")
  if [ "$status" = 200 ] && python3 - "$work/$case.reply" "$work/$case.expected" <<'PY'
import json, sys
reply = json.load(open(sys.argv[1]))
said = reply.get("output", reply.get("error", "")).encode()
sys.exit(said != open(sys.argv[2], "rb").read())
PY
  then
    echo "ok   /api/$case: one body of $(stat -c %s "$work/$case.json") bytes answers 200 with the command line's $(stat -c %s "$work/$case.expected") bytes"
  else
    echo "FAIL /api/$case: one body of $(stat -c %s "$work/$case.json") bytes answers $status, not 200 with the command line's output: $(head -c 300 "$work/$case.reply")"
    failed=1
  fi
  over=$(curl -s -o /dev/null -w '%{http_code}' -d @"$work/$case.over.json" "$url/api/$case")
  if [ "$over" != 413 ]; then
    echo "FAIL /api/$case: a body a byte over the limit answers $over, not 413: the limit is not where this check puts it"
    failed=1
  fi
done
for case in run state; do
  cat > "$work/$case.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = io.open("$work/$case.json"):read("*a")
LUA
  wrk -t2 -c256 -d"${seconds}s" --timeout 30s -s "$work/$case.lua" "$url/api/$case" > "$work/$case.txt" || true
  requests=$(awk '/requests in/ { print $1 }' "$work/$case.txt")
  refused=$(awk '/Non-2xx/ { print $5 }' "$work/$case.txt")
  echo "     /api/$case under load: ${requests:-0} requests in ${seconds} s, ${refused:-0} not 2xx; peak so far $(hwm) MiB"
  if [ "${requests:-0}" -le "${refused:-0}" ]; then
    echo "FAIL /api/$case under load: no request answered 2xx, so no run was measured"
    failed=1
  fi
done
if [ "$(curl -s "$url/healthz")" != ok ]; then
  echo "FAIL the server does not answer /healthz after the load"
  failed=1
fi
peak=$(hwm)
if awk -v p="$peak" -v b="$bound" 'BEGIN { exit !(p < b) }'; then
  echo "ok   peak memory with 256 admitted 1 MiB requests that run: $peak MiB (bound: < $bound MiB)"
else
  echo "FAIL peak memory with 256 admitted 1 MiB requests: $peak MiB (bound: < $bound MiB)"
  failed=1
fi
exit "$failed"
