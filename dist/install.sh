#!/bin/sh
# Installs tictac from a GitHub release on Linux or macOS, as cargo-dist's
# installers do: picks this machine's archive, checks its SHA-256, and puts
# `tictac` in $TICTAC_INSTALL_DIR (default ~/.local/bin). The release workflow
# attaches it as tictac-installer.sh with its own download folder filled in:
#
#   sh tictac-installer.sh        # downloaded from the release page
#
# TICTAC_DOWNLOAD_URL overrides that folder (a file:// URL works with curl:
# bench/check-static-binary.sh installs a local build so).
set -eu

download_url=${TICTAC_DOWNLOAD_URL:-@DOWNLOAD_URL@}
install_dir=${TICTAC_INSTALL_DIR:-$HOME/.local/bin}

say() { printf 'tictac-installer: %s\n' "$*" >&2; }
die() {
  say "$*"
  exit 1
}

case $download_url in
  @*) die "this copy has no download folder: set TICTAC_DOWNLOAD_URL, or use the release's tictac-installer.sh" ;;
esac

# Linux gets the static (musl) binary: it runs whatever the C library, or none.
os=$(uname -s)
arch=$(uname -m)
case "$os-$arch" in
  Linux-x86_64 | Linux-amd64) target=x86_64-unknown-linux-musl ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  Darwin-arm64 | Darwin-aarch64) target=aarch64-apple-darwin ;;
  *) die "no release archive for $os on $arch; build from source: cargo install --locked --path ." ;;
esac
archive=tictac-$target.tar.gz

fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl --proto '=https,file' --tlsv1.2 -fsSL "$1" -o "$2"
  elif command -v wget >/dev/null 2>&1; then
    # BusyBox's wget (Alpine, where the static archive is most wanted) has
    # no --https-only; the URL is https:// or file:// here either way.
    case "$1" in
      https://* | file://*) ;;
      *) die "refusing to download $1: not https" ;;
    esac
    if wget --help 2>&1 | grep -q -- --https-only; then
      wget -q --https-only -O "$2" "$1"
    else
      wget -q -O "$2" "$1"
    fi
  else
    die "needs curl or wget to download $1"
  fi
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  else
    shasum -a 256 "$1" | cut -d ' ' -f 1
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

say "downloading $archive"
fetch "$download_url/$archive" "$tmp/$archive" || die "could not download $download_url/$archive"
fetch "$download_url/$archive.sha256" "$tmp/$archive.sha256" || die "could not download $archive.sha256"
expected=$(cut -d ' ' -f 1 <"$tmp/$archive.sha256")
actual=$(sha256 "$tmp/$archive")
[ "$expected" = "$actual" ] || die "$archive does not match its SHA-256 (expected $expected, got $actual)"

tar -C "$tmp" -xzf "$tmp/$archive"
mkdir -p "$install_dir"
# Copied beside, then renamed: a tictac already there is replaced whole or not at all.
cp "$tmp/tictac-$target/tictac" "$install_dir/.tictac.new"
chmod 755 "$install_dir/.tictac.new"
mv -f "$install_dir/.tictac.new" "$install_dir/tictac"
say "installed $install_dir/tictac"
case ":$PATH:" in
  *":$install_dir:"*) ;;
  *) say "$install_dir is not on your PATH; add it: export PATH=\"$install_dir:\$PATH\"" ;;
esac
