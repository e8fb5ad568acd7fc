#!/usr/bin/env bash
# The history of a round costs at most 64 bytes a command, whatever the
# command (docs/RELIABILITY.md). For each case, a trace of one new_game then
# N commands that all stay in the history (or none, for play/undo), run by
# the release build; peak RSS (GNU time) against the same case with N/10
# commands; the difference over the 0.9 N commands between them is the cost
# of a command. Exits 1 if a case costs more than 64 bytes a command, or if
# a run fails (no binary, a crash, an error exit, standard output not a
# state for each command): a run that did not happen costs nothing, and
# must not pass.
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

# The peak resident set in KiB, and the seconds, of tictac -b on a trace of
# COMMANDS commands after its new_game, into $work/peak.txt. Every case's
# trace is well formed: exit 0, and a state of 6 lines for the new game and
# a line and a state for each command on standard output (counted through
# wc -l). A run that does not, the work not done (no such program,
# /bin/true, an error for every trace), stops the check, saying how it
# ended: it costs nothing, and must not pass.
peak() {
  local code lines want=$((7 * ($2 + 1) + 6))
  { code=0; /usr/bin/time -f '%M %e' -o "$work/time.txt" "$bin" -b "$1" 2>"$work/err.txt" || code=$?
    echo "$code" > "$work/code.txt"; } | wc -l > "$work/lines.txt"
  code=$(cat "$work/code.txt") lines=$(cat "$work/lines.txt")
  if [ "$code" != 0 ] || [ "$lines" != "$want" ]; then
    echo "FAIL: $bin -b $(basename "$1") exited with status $code, $lines lines on standard output" \
      "(wanted 0, $want lines): $(head -c 300 "$work/err.txt")"
    exit 1
  fi
  tail -n 1 "$work/time.txt" > "$work/peak.txt"
}

status=0
# check WHAT LINE [COMMANDS]: the case of N lines LINE, each of COMMANDS
# commands (1 unless said).
check() {
  local what=$1 each=${3:-1}
  trace "$work/small.txt" $((n / 10)) "$2"
  trace "$work/large.txt" "$n" "$2"
  local small large seconds _
  peak "$work/small.txt" $((n / 10 * each))
  read -r small _ < "$work/peak.txt"
  peak "$work/large.txt" $((n * each))
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
check 'play("Ann",5) undo, on one line' 'play("Ann",5) undo' 2
exit $status
