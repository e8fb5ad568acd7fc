#!/usr/bin/env bash
# The static site (dist/site.sh) in Debian's Chromium, opened from disk
# (file://) with every network host unreachable: the same end-to-end test as
# bench/check-serve-browser.sh (tests/browser/e2e.mjs: a game against each
# computer player, the playground against tictac -b, -b IN OUT, -w and -l, on
# the whole course suite, file by file, byte for byte; axe-core, light and
# dark), with no server running. Fails on any request that is not for one of
# the site's own files. Screenshots go to target/site-browser/out.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

install_missing chromium=chromium npm="nodejs npm"
release_build

work=target/site-browser
rm -rf "$work/out" "$work/site"
mkdir -p "$work/out"
bash dist/site.sh "$work/site"
browser_test "$work"

timeout 300 node "$work/e2e.mjs" "file://$PWD/$work/site" "$work/out" "$bin"
"$bin" test "$work/out/downloads"
echo "check-site-browser: screenshots in $work/out (game.png, game-phone.png, oracle.png, oracle-phone.png)"
