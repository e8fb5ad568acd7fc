#!/usr/bin/env bash
# The static Linux binary, as the release ships it: builds tictac for
# x86_64-unknown-linux-musl with the `dist` profile (the release workflow's),
# checks that it has no dynamic dependencies (ldd), runs the acceptance suite
# with it in-process and through the binary itself (`tictac test --program`),
# and the customer's oracle examples when ../shared/oracle is there; then packs
# it as the release does (dist/package.sh), checks that the archive holds the
# docs the README links to, installs the archive with
# dist/install.sh from a file:// URL into a scratch folder, and runs the
# installed copy; an archive whose SHA-256 does not match is refused. Exits 1 at the first failure. Needs the musl target
# (rustup target add x86_64-unknown-linux-musl) and musl-gcc (Debian's
# musl-tools); .ci/run installs both.
#
#   bench/check-static-binary.sh
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-unknown-linux-musl
fail() {
  echo "FAIL: $*"
  exit 1
}
command -v musl-gcc >/dev/null || fail "musl-gcc is missing: apt-get install musl-tools"
rustup target list --installed | grep -qx "$target" || fail "no $target: rustup target add $target"

start=$(date +%s)
cargo build --locked --quiet --profile dist --target "$target" --bin tictac
bin=$PWD/target/$target/dist/tictac
echo "built $bin in $(($(date +%s) - start)) s: $(stat -c %s "$bin") bytes"

# glibc's ldd says "statically linked" for a static-pie, "not a dynamic
# executable" for a plain static one; anything else lists libraries.
linked=$(ldd "$bin" 2>&1 || true)
case $linked in
  *"statically linked"* | *"not a dynamic executable"*) echo "ldd: ${linked//$'\t'/}" ;;
  *) fail "$bin is dynamically linked: $linked" ;;
esac

suites=(acceptance)
if [ -d ../shared/oracle ]; then
  suites+=(../shared/oracle)
fi
for suite in "${suites[@]}"; do
  "$bin" test --quiet "$suite" || fail "tictac test $suite (musl build, in-process)"
  "$bin" test --quiet --program "$bin" "$suite" || fail "tictac test --program $bin $suite"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
archive=$(dist/package.sh "$target")
# The archive holds what the README links to: the user guide, the references.
# Listed once into a file: `tar -t | grep -q` fails under pipefail when grep
# finds its line and quits while tar is still listing (SIGPIPE).
tar -tzf "$archive" >"$work/listed"
for doc in README.md CHANGELOG.md docs/guide/index.md docs/BEHAVIOUR.md; do
  grep -qx "tictac-$target/$doc" "$work/listed" || fail "the archive has no $doc"
done
TICTAC_DOWNLOAD_URL="file://$(dirname "$archive")" TICTAC_INSTALL_DIR="$work/bin" sh dist/install.sh
cmp "$bin" "$work/bin/tictac" || fail "the installed tictac is not the one packed"
"$work/bin/tictac" test --quiet --program "$work/bin/tictac" acceptance || fail "the installed tictac"
# An archive that does not match its SHA-256 is refused, and nothing installed.
mkdir "$work/bad"
cp "$archive" "$work/bad/"
echo "0000000000000000000000000000000000000000000000000000000000000000  ${archive##*/}" >"$work/bad/${archive##*/}.sha256"
if TICTAC_DOWNLOAD_URL="file://$work/bad" TICTAC_INSTALL_DIR="$work/bad-bin" sh dist/install.sh 2>"$work/bad.err"; then
  fail "dist/install.sh installed an archive that does not match its SHA-256"
fi
grep -q "does not match its SHA-256" "$work/bad.err" || fail "dist/install.sh: $(cat "$work/bad.err")"
[ ! -e "$work/bad-bin/tictac" ] || fail "dist/install.sh left a tictac from a bad archive"
echo "static binary: linked statically, acceptance suites passed, packed and installed ($(($(date +%s) - start)) s)"
