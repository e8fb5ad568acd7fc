#!/usr/bin/env bash
# End-to-end test of `tictac serve`'s pages in Debian's Chromium, driven by
# playwright-core from npm (tests/browser/e2e.mjs): a game clicked to a win,
# a tie by keys, Undo against `perfect`, New game with names, downloads that
# pass `tictac test`, the playground against `tictac -b`, -w and -l, the link
# in the address, the diff, the history, the bugs of issue 37; axe-core (npm)
# finds no violation, light and dark, in every state reached; no script error
# or CSP violation on either page.
# Screenshots and downloads go to target/browser/out (never the repository).
# Exits non-zero on any failure. Run by .ci/run's release step.
set -euo pipefail
cd "$(dirname "$0")/.."

# Install only what is missing (a Node.js from elsewhere must not meet Debian's npm).
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
bin=${TICTAC:-target/release/tictac}
[ -x "$bin" ] || cargo build --release --quiet --bin tictac

work=target/browser
rm -rf "$work/out"
mkdir -p "$work/out"
cp tests/browser/package.json tests/browser/package-lock.json tests/browser/e2e.mjs "$work/"
(cd "$work" && npm ci --no-audit --no-fund --loglevel=error)

"$bin" serve --port 0 > "$work/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q '^tictac: serving on ' "$work/server.log" && break
  sleep 0.1
done
url=$(sed -n 's|^tictac: serving on \(http://[^/]*\)/$|\1|p' "$work/server.log")
[ -n "$url" ] || { echo "check-serve-browser: the server did not start"; cat "$work/server.log"; exit 1; }

timeout 300 node "$work/e2e.mjs" "$url" "$work/out" "$bin"
# The game's two downloads make an acceptance test that passes.
"$bin" test "$work/out/downloads"
echo "check-serve-browser: screenshots in $work/out (game.png, game-phone.png, oracle.png, oracle-phone.png)"
