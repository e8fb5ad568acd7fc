#!/usr/bin/env bash
# A real full disk (ENOSPC) leaves no output file: -b IN OUT, -w and -l into
# OUT and verify --trace-out on a 256 KiB tmpfs, first filling up mid-run,
# then already full. Each must exit 2 with a message naming OUT and leave
# neither OUT nor its hidden temporary file (docs/RELIABILITY.md). Mounting
# needs root; without it the check fails under CI and says it was skipped
# otherwise. (cargo test covers the same with a file size limit, EFBIG.)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin tictac
bin=$PWD/target/release/tictac
work=$(mktemp -d)
disk=$work/disk
mkdir "$disk"
trap 'umount "$disk" 2>/dev/null || true; rm -rf "$work"' EXIT
if ! mount -t tmpfs -o size=256k tmpfs "$disk" 2>/dev/null; then
  if [ -n "${CI:-}" ]; then
    echo "FAIL: cannot mount a tmpfs for the full-disk check (needs root)"
    exit 1
  fi
  echo "skipped: cannot mount a tmpfs (needs root)"
  exit 0
fi

# A trace whose transcript (about 2 MB) cannot fit.
awk 'BEGIN { print "new_game(\"Ann\",\"Bob\")"; for (i = 0; i < 10000; i++) print "play(\"Ann\",5) undo" }' \
  > "$work/big.txt"

status=0
# expect WHAT COMMAND...: exit 2, OUT named on standard output, nothing left
# on the disk but the filler.
expect() {
  local what=$1
  shift
  local out code=0
  out=$("$@" 2>&1) || code=$?
  local left
  left=$(ls -A "$disk" | grep -v '^filler$' || true)
  if [ "$code" -eq 2 ] && grep -q "out.txt" <<<"$out" && [ -z "$left" ]; then
    echo "ok    $what: exit 2, $(grep -m 1 out.txt <<<"$out")"
  else
    echo "FAIL  $what: exit $code, output: $(head -n 1 <<<"$out"), left on disk: ${left:-nothing}"
    status=1
  fi
}

expect "-b IN OUT, disk fills mid-run" "$bin" -b "$work/big.txt" "$disk/out.txt"
expect "-w 1 _ IN OUT, disk fills mid-run" "$bin" -w 1 _ "$work/big.txt" "$disk/out.txt"

# Now a disk with no room at all.
dd if=/dev/zero of="$disk/filler" bs=4k 2>/dev/null || true
expect "-l IN OUT, disk full" "$bin" -l "$work/big.txt" "$disk/out.txt"
expect "verify --trace-out, disk full" \
  "$bin" verify --strategy elm --as X --trace-out "$disk/out.txt"
exit "$status"
