#!/usr/bin/env bash
# Writes the static site: DIR/index.html (the game), DIR/oracle.html (the
# oracle playground) and DIR/assets/, the engine compiled to WebAssembly and
# inlined in assets/engine.js. No server, no install: it works opened from
# disk (file://) in an ordinary browser, with no network, and from any static
# host (GitHub Pages, a course's web space). At most 2 MiB in all.
#
#   bash dist/site.sh DIR
#
# The pages, scripts and styles are `tictac serve`'s (src/serve/assets), as
# they are; only assets/engine.js is the site's own (crates/tictac-web/engine.js
# with the module). Needs Rust (rustup); adds the wasm32-unknown-unknown
# target when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bash dist/site.sh DIR}
limit=$((2 * 1024 * 1024))

target=wasm32-unknown-unknown
if ! rustup target list --installed | grep -qx "$target"; then
  rustup target add "$target"
fi
cargo build --locked --quiet --profile site -p tictac-web --target "$target"
module=target/$target/site/tictac_web.wasm

assets=src/serve/assets
mkdir -p "$out/assets"
cp "$assets/game.html" "$out/index.html"
cp "$assets/oracle.html" "$out/oracle.html"
for file in common.js game.js oracle.js style.css icon.svg; do
  cp "$assets/$file" "$out/assets/$file"
done
# The module goes in place of the marker line, as one base64 string.
loader=crates/tictac-web/engine.js
grep -qx '// @MODULE@' "$loader"
{
  sed '/^\/\/ @MODULE@$/,$d' "$loader"
  printf '    "'
  base64 -w0 "$module"
  printf '" +\n'
  sed '1,/^\/\/ @MODULE@$/d' "$loader"
} >"$out/assets/engine.js"

size=$(find "$out/index.html" "$out/oracle.html" "$out/assets" -type f -exec cat {} + | wc -c)
if [ "$size" -gt "$limit" ]; then
  echo "dist/site.sh: the site is $size bytes, over its limit of $limit (2 MiB)" >&2
  exit 1
fi
echo "dist/site.sh: wrote $out (index.html, oracle.html, assets/: $size bytes)"
