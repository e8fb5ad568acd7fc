#!/usr/bin/env bash
# `tictac test --coverage` holds one test's text at a time and a bounded
# tally, whatever the suite (docs/PERFORMANCE.md): each case is a suite run by
# the release build; GNU time gives its peak RSS. Exits 1 if a case goes over
# 96 MiB or 60 s, or does not end with its `Coverage:` line.
#
#   bench/check-coverage.sh [TICTAC]
set -euo pipefail
cd "$(dirname "$0")/.."
limit_kib=$((96 * 1024))
limit_s=60
if ! [ -x /usr/bin/time ]; then
  apt-get update -qq
  apt-get install -y -qq time
fi
if [ $# -gt 0 ]; then
  bin=$1
else
  cargo build --release --quiet --bin tictac
  bin=$PWD/target/release/tictac
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A trace of about 15 MiB: RUN is its directive line (or none), LINE repeated.
big() {
  local file=$1 run=$2 line=$3
  mkdir -p "$(dirname "$file")"
  { [ -n "$run" ] && printf '%s\n' "$run"
    printf 'new_game("Ann","Bob")\n'
    awk -v line="$line" -v n=$(( 15 * 1024 * 1024 / (${#line} + 1) )) \
      'BEGIN { for (i = 0; i < n; i++) print line }'
  } > "$file"
}
game='play("Ann",5) play("Bob",1) undo redo play("Ann",9) play("Bob",2) play("Ann",3) play("Bob",7) play("Ann",6) play("Bob",4) play("Ann",8) play_again'
big "$work/valid/t.txt" "" "$game"
big "$work/types/t.txt" "" 'jump play("Ann", 10) undo(1) new_game("A", 1) play("A")'
big "$work/chunks/t.txt" "-- run: -b IN OUT" "$game"
big "$work/window/t.txt" "-- run: -w 2 _ IN" "$game"
big "$work/shell/t.txt" "-- run: -i" "$game"
big "$work/lines/t.txt" "-- run: -w 1 _ IN" '?'
mkdir -p "$work/many"
for i in $(seq 1 3000); do
  printf -- '-- run: -w 1 _ IN\nnew_game("Ann","Bob")\nplay("Ann",%d)\n' $(( i % 9 + 1 )) > "$work/many/t$i.txt"
done

status=0
printf '| %-34s | %7s | %10s |\n' "suite" "time" "peak RSS"
for case in valid types chunks window shell lines many; do
  start=$(date +%s.%N)
  out=$( { /usr/bin/time -f 'PEAK %M' "$bin" test --coverage -q "$work/$case" >"$work/out.txt"; } 2>&1 ) || true
  end=$(date +%s.%N)
  peak=$(printf '%s\n' "$out" | awk '/^PEAK/ { print $2 }' | tail -n 1)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  what="$case ($(du -sh "$work/$case" | cut -f1))"
  printf '| %-34s | %5s s | %6.1f MiB |\n' "$what" "$secs" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')"
  if ! tail -n 1 "$work/out.txt" | grep -q '^Coverage: [0-9]*/[0-9]* behaviours\.$'; then
    echo "  FAIL: no Coverage line"; tail -n 3 "$work/out.txt"; status=1
  fi
  if [ "$peak" -gt "$limit_kib" ]; then
    echo "  FAIL: peak over 96 MiB"; status=1
  fi
  if awk -v s="$secs" -v l="$limit_s" 'BEGIN { exit !(s > l) }'; then
    echo "  FAIL: over $limit_s s"; status=1
  fi
done
exit $status
