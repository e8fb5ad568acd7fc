#!/usr/bin/env bash
# A fatal signal in the middle of `tictac test --program` ends the runner by
# that signal, never with a report of the runs it cut short (issue 22's
# attacker: SIGTERM 3/30, SIGHUP 3/25, Ctrl-C 2/20 printed FAIL for every
# test and `Test Results: 0/2 passed.`, exit 1). SIGTERM, SIGHUP and SIGINT,
# 30 times each, at a moment that falls anywhere in the programs' runs:
# every time the exit status is 128 + the signal and no FAIL is printed.
# Prints the count of each; exits 1 on the first false report.
#
#   bench/check-signals.sh            (TICTAC_BIN=path: that binary instead)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TICTAC_BIN:-}" ]; then
  cargo build --release --quiet --bin tictac
fi
bin=${TICTAC_BIN:-$PWD/target/release/tictac}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rounds=${ROUNDS:-30}

mkdir "$work/suite"
for k in 1 2 3 4 5 6; do
  printf 'new_game("a%s","b")\nplay("a%s",5)\n' "$k" "$k" > "$work/suite/t$k.txt"
done
"$bin" test --bless "$work/suite" > /dev/null
cat > "$work/slow.sh" <<SCRIPT
#!/bin/sh
sleep 0.5
exec $bin "\$@"
SCRIPT
chmod +x "$work/slow.sh"

# Job control: a background job gets SIGINT as a foreground one would
# (without it, the shell starts it with SIGINT ignored).
set -m
for signal in TERM HUP INT; do
  number=$(kill -l "$signal")
  for round in $(seq "$rounds"); do
    "$bin" test -j 2 --program "$work/slow.sh" "$work/suite" > "$work/out" 2>&1 &
    runner=$!
    # Anywhere from before the first program starts to the second pair
    # (the suite takes at least 1.5 s).
    sleep "0.$(( RANDOM % 9 + 1 ))"
    kill "-$signal" "$runner"
    status=0
    wait "$runner" 2>/dev/null || status=$?
    if [ "$status" -ne $(( 128 + number )) ] || grep -q FAIL "$work/out"; then
      echo "SIG$signal, round $round: exit $status, a false report:"
      cat "$work/out"
      exit 1
    fi
  done
  echo "SIG$signal: $rounds of $rounds died of the signal, no report"
done
