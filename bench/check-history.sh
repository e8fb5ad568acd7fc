#!/usr/bin/env bash
# The history of a round costs at most 64 bytes a command, whatever the
# command (docs/RELIABILITY.md). For each case, a trace of one new_game then
# N commands that all stay in the history (or none, for play/undo), run by
# the release build; peak RSS (GNU time) against the same case with N/10
# commands; the difference over the 0.9 N commands between them is the cost
# of a command. Exits 1 if a case costs more than 64 bytes a command, or if
# a run fails (no binary, a crash, an error exit): a run that did not happen
# costs nothing, and must not pass.
#
#   bench/check-history.sh [N]      default 10000000 (TICTAC=path: that build)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000000}
limit=64
if ! [ -x /usr/bin/time ]; then
  apt-get update -qq
  apt-get install -y -qq time
fi
[ -n "${TICTAC:-}" ] || cargo build --release --quiet --bin tictac
bin=${TICTAC:-target/release/tictac}
[ -x "$bin" ] || { echo "FAIL: no executable tictac at $bin"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# trace FILE COUNT LINE: a new game, then COUNT lines LINE.
trace() {
  awk -v n="$2" -v line="$3" 'BEGIN { print "new_game(\"Ann\",\"Bob\")"; for (i = 0; i < n; i++) print line }' > "$1"
}

# The peak resident set in KiB, and the seconds, of tictac -b on a trace,
# into $work/peak.txt. Every case's trace is well formed: a run that does
# not exit 0 stops the check, saying how it ended.
peak() {
  local code=0
  /usr/bin/time -f '%M %e' -o "$work/time.txt" "$bin" -b "$1" >/dev/null 2>"$work/err.txt" || code=$?
  if [ "$code" != 0 ]; then
    echo "FAIL: $bin -b $(basename "$1") exited with status $code: $(head -c 300 "$work/err.txt")"
    exit 1
  fi
  tail -n 1 "$work/time.txt" > "$work/peak.txt"
}

status=0
check() {
  local what=$1
  trace "$work/small.txt" $((n / 10)) "$2"
  trace "$work/large.txt" "$n" "$2"
  local small large seconds _
  peak "$work/small.txt"
  read -r small _ < "$work/peak.txt"
  peak "$work/large.txt"
  read -r large seconds < "$work/peak.txt"
  local per=$(((large - small) * 1024 / (n - n / 10)))
  printf '%-44s %6d KiB at N/10, %7d KiB at N (%s s): %3d bytes a command\n' \
    "$what" "$small" "$large" "$seconds" "$per"
  if [ "$per" -gt "$limit" ]; then
    echo "  FAIL: more than $limit bytes a command"
    status=1
  fi
}

echo "history cost, N = $n commands after new_game(\"Ann\",\"Bob\"):"
check 'failed new_game("Ann","Ann") (kept)' 'new_game("Ann","Ann")'
check 'failed new_game, 32-byte names (kept)' \
  'new_game("Annabelle_Montgomery_Fitzwilliam","Annabelle_Montgomery_Fitzwilliam")'
check 'play("Bob",5), not their turn (kept)' 'play("Bob",5)'
check 'play_again in play (kept)' 'play_again'
check 'play("Ann",5) undo, on one line' 'play("Ann",5) undo'
exit $status
