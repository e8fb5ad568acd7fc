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
. bench/lib.sh

install_missing chromium=chromium npm="nodejs npm"
release_build

work=target/browser
rm -rf "$work/out"
mkdir -p "$work/out"
browser_test "$work"

start_server check-serve-browser "$work/server.log"

timeout 300 node "$work/e2e.mjs" "$url" "$work/out" "$bin"
# The game's two downloads make an acceptance test that passes.
"$bin" test "$work/out/downloads"
echo "check-serve-browser: screenshots in $work/out (game.png, game-phone.png, oracle.png, oracle-phone.png)"
