#!/usr/bin/env bash
# The history of a round costs at most 64 bytes a command, whatever the
# command (docs/RELIABILITY.md). For each case, a trace of one new_game then
# N commands that all stay in the history (or none, for play/undo), run by
# the release build; peak RSS (GNU time) against the same case with N/10
# commands; the difference over the 0.9 N commands between them is the cost
# of a command. Exits 1 if a case costs more than 64 bytes a command.
#
#   bench/check-history.sh [N]      default 10000000
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000000}
limit=64
if ! [ -x /usr/bin/time ]; then
  apt-get update -qq
  apt-get install -y -qq time
fi
cargo build --release --quiet --bin tictac
bin=target/release/tictac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# trace FILE COUNT LINE: a new game, then COUNT lines LINE.
trace() {
  awk -v n="$2" -v line="$3" 'BEGIN { print "new_game(\"Ann\",\"Bob\")"; for (i = 0; i < n; i++) print line }' > "$1"
}

# The peak resident set in KiB, and the seconds, of tictac -b on a trace.
peak() {
  /usr/bin/time -f '%M %e' "$bin" -b "$1" 2>&1 >/dev/null | tail -n 1
}

status=0
check() {
  local what=$1
  trace "$work/small.txt" $((n / 10)) "$2"
  trace "$work/large.txt" "$n" "$2"
  local small large seconds _
  read -r small _ < <(peak "$work/small.txt")
  read -r large seconds < <(peak "$work/large.txt")
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
