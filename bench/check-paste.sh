#!/usr/bin/env bash
# A paste into the shell without bracketed paste (keys one by one, as tmux's
# send-keys types them) is echoed in time linear in its length: a 20 KB line
# must be on the screen within 1 s of the last key sent (docs/RELIABILITY.md).
# The release build in a 100x30 tmux; `cat` on the same terminal is the
# floor (the terminal's own echo). Exits 1 past the bound.
#
#   bench/check-paste.sh [BYTES]      default 20000
set -euo pipefail
cd "$(dirname "$0")/.."
bytes=${1:-20000}
limit=1.0
if ! command -v tmux >/dev/null 2>&1; then
  apt-get update -qq
  apt-get install -y -qq tmux
fi
cargo build --release --quiet --bin tictac
bin=$PWD/target/release/tictac
work=$(mktemp -d)
# Named here: `seconds` runs in a command substitution's subshell, where
# adding to the list would not reach the trap (the servers were left running).
sockets=("tictac-paste-cat-$$" "tictac-paste-tictac-$$")
trap 'for s in "${sockets[@]}"; do tmux -L "$s" kill-server 2>/dev/null || true; done; rm -rf "$work"' EXIT

# The line: events with a hint all along, then one to wait for.
awk -v n="$bytes" 'BEGIN { s = ""; while (length(s) < n) s = s "play(\"Ann\",1) "; printf "%s", s "play(\"Zed\",7)" }' \
  > "$work/line.txt"
split -b 2000 "$work/line.txt" "$work/piece."

# seconds NAME COMMAND: from the first key of the paste to the whole line on
# screen, in a tmux server of its own.
seconds() {
  local socket="tictac-paste-$1-$$" start end
  tmux -L "$socket" new-session -d -s t -x 100 -y 30 "XDG_DATA_HOME=$work $2; sleep 60"
  sleep 1
  start=$(date +%s.%N)
  for piece in "$work"/piece.*; do
    tmux -L "$socket" send-keys -t t -l "$(cat "$piece")"
  done
  for _ in $(seq 1500); do
    if tmux -L "$socket" capture-pane -p -J -t t 2>/dev/null | tr -d '\n' | grep -qF 'play("Ann",1) play("Zed",7)'; then
      end=$(date +%s.%N)
      awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
      return
    fi
    sleep 0.02
  done
  echo "never"
}

floor=$(seconds cat cat)
took=$(seconds tictac "$bin -i")
verdict=ok
status=0
if [ "$took" = never ] || awk -v t="$took" -v l="$limit" 'BEGIN { exit !(t > l) }'; then
  verdict=FAIL
  status=1
fi
printf '%-4s a paste of %s bytes into tictac -i: on screen in %s s (bound %s s; cat: %s s)\n' \
  "$verdict" "$(wc -c < "$work/line.txt")" "$took" "$limit" "$floor"
exit $status
