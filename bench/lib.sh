# What the release checks share (bench/check-*.sh source it; it runs nothing
# by itself). Each function says what it sets.

# install_missing COMMAND=PACKAGES...: installs Debian's PACKAGES for each
# COMMAND that is missing, and only those (a Node.js from elsewhere must not
# meet Debian's npm).
install_missing() {
  local pair missing=()
  for pair in "$@"; do
    # shellcheck disable=SC2206 # PACKAGES is a list of words.
    command -v "${pair%%=*}" >/dev/null 2>&1 || missing+=(${pair#*=})
  done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
}

# release_build: sets bin, the executable checked: $TICTAC, or the release
# build (built when it is not there).
release_build() {
  bin=${TICTAC:-target/release/tictac}
  [ -x "$bin" ] || cargo build --release --quiet --bin tictac
}

# browser_test WORK: the browser test (tests/browser) and its npm packages
# in WORK.
browser_test() {
  cp tests/browser/package.json tests/browser/package-lock.json tests/browser/e2e.mjs "$1/"
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error)
}

# start_server CHECK LOG [CLEANUP]: starts `$bin serve` on a free port of
# loopback, its output in LOG; sets server (its pid) and url. On exit the
# server is stopped, then CLEANUP (a command) runs. Exits 1, naming CHECK,
# when the server does not start.
start_server() {
  "$bin" serve --port 0 > "$2" &
  server=$!
  # shellcheck disable=SC2064 # CLEANUP is fixed now, the pid read at exit.
  trap "kill \"\$server\" 2>/dev/null || true; wait \"\$server\" 2>/dev/null || true; ${3:-}" EXIT
  for _ in $(seq 100); do
    grep -q '^tictac: serving on ' "$2" && break
    sleep 0.1
  done
  url=$(sed -n 's|^tictac: serving on \(http://[^/]*\)/$|\1|p' "$2")
  [ -n "$url" ] || { echo "$1: the server did not start"; cat "$2"; exit 1; }
}
