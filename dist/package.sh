#!/usr/bin/env bash
# Packs a built tictac for one target as the release workflow attaches it, in
# cargo-dist's layout: target/distrib/tictac-TARGET.tar.gz (.zip for Windows)
# holding tictac-TARGET/tictac, README.md, CHANGELOG.md and docs/ (the user
# guide and the references the README links to), and beside it ARCHIVE.sha256
# (`HASH  NAME`, as sha256sum writes it), which the install scripts check.
# Prints the archive's path.
#
#   cargo build --locked --profile dist --target TARGET
#   dist/package.sh TARGET
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: dist/package.sh TARGET}
exe=tictac
case $target in *windows*) exe=tictac.exe ;; esac
bin=target/$target/dist/$exe
if ! [ -f "$bin" ]; then
  echo "dist/package.sh: no $bin; build it first: cargo build --locked --profile dist --target $target" >&2
  exit 2
fi

name=tictac-$target
out=$PWD/target/distrib
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out" "$stage/$name"
cp "$bin" README.md CHANGELOG.md "$stage/$name/"
cp -R docs "$stage/$name/docs"
case $target in
  *windows*)
    archive=$name.zip
    rm -f "$out/$archive"
    (cd "$stage" && 7z a -tzip -bd "$out/$archive" "$name" >/dev/null)
    ;;
  *)
    archive=$name.tar.gz
    tar -C "$stage" -czf "$out/$archive" "$name"
    ;;
esac
cd "$out"
if command -v sha256sum >/dev/null 2>&1; then
  sha256sum "$archive" >"$archive.sha256"
else
  shasum -a 256 "$archive" >"$archive.sha256" # macOS
fi
echo "$out/$archive"
