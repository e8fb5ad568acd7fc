#!/usr/bin/env bash
# tictac autograder, release build, run as Gradescope runs its zip (issue 34),
# on a real /autograder: in a private mount namespace, a new root made of
# the machine's folders bound in, a fresh /tmp and an empty /autograder, so
# the machine's own / is never written to. There, as root:
# 1. `tictac autograder SUITE --command ./ttt --out ag.zip`, the suite three
#    traces (2, 1.5 and 1 points), the last `-- visibility: hidden`, its
#    players named Zanzibar and Quokka, who appear in no other test;
# 2. `unzip ag.zip -d /autograder/source`, `setup.sh` run there;
# 3. `run_autograder` copied to /autograder/ and run there, once with a
#    correct submission in /autograder/submission (the release build of the
#    model program, examples/mutant.rs, as a C course hands in an
#    executable: 4.5 of 4.5) and once with a wrong one (its `no-diagonal`
#    mistake: the two diagonal wins are missed, 2 of 4.5), whose program,
#    on the hidden test, also tries to print the suite's expected output
#    for it;
# 4. checks: the scores; the hidden test's expected text (its players'
#    names) in no file the student receives (results.json); the submission
#    ran as nobody; the suite unreadable by nobody.
# Exits non-zero on the first check that fails, saying which.
#
#   bench/check-autograder.sh     (as root; .ci/run runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
fail() {
  echo "FAIL: $*"
  exit 1
}

if [ "${TICTAC_AUTOGRADER_ROOT:-}" = "" ]; then
  [ "$(id -u)" = 0 ] || fail "check-autograder runs as root, as Gradescope runs run_autograder"
  command -v unzip >/dev/null || fail "check-autograder needs unzip (.ci/run installs it)"
  cargo build --release --quiet --bin tictac --example mutant
  newroot=$(mktemp -d)
  trap 'rmdir "$newroot"' EXIT
  # The namespace's mounts end with it; the script goes on inside the new root.
  status=0
  TICTAC_AUTOGRADER_ROOT=$newroot unshare --mount --propagation private "$0" || status=$?
  exit "$status"
fi

if [ "${TICTAC_AUTOGRADER_INSIDE:-}" = "" ]; then
  # In the private mount namespace: the new root, a tmpfs holding the
  # machine's folders bound in (not /tmp, which is new, nor /mnt), and an
  # empty /autograder.
  newroot=$TICTAC_AUTOGRADER_ROOT
  mount -t tmpfs -o mode=755 tictac-autograder "$newroot"
  for entry in /*; do
    name=${entry#/}
    if [ -L "$entry" ]; then
      cp -P "$entry" "$newroot/$name"
    elif [ -d "$entry" ]; then
      mkdir "$newroot/$name"
      case $name in
        tmp) mount -t tmpfs -o mode=1777 tictac-autograder-tmp "$newroot/tmp" ;;
        mnt) ;;
        *) mount --rbind "$entry" "$newroot/$name" ;;
      esac
    fi
  done
  [ -e "$newroot/autograder" ] && fail "the machine has an /autograder: this check makes its own"
  mkdir -m 755 "$newroot/autograder"
  exec env TICTAC_AUTOGRADER_INSIDE=1 TMPDIR=/tmp chroot "$newroot" "$PWD/bench/check-autograder.sh"
fi

# Inside the new root, as root.
bin=$PWD/target/release/tictac
model=$PWD/target/release/examples/mutant
work=$(mktemp -d)
ag=/autograder
[ -z "$(ls -A "$ag")" ] || fail "$ag is not empty"

mkdir "$work/suite"
printf -- '-- points: 2\nnew_game("Ann","Bob")\nplay("Ann",1)\nplay("Bob",4)\nplay("Ann",2)\nplay("Bob",5)\nplay("Ann",3)\n' \
  > "$work/suite/01_row.txt"
printf -- '-- points: 1.5\nnew_game("Ann","Bob")\nplay("Ann",3)\nplay("Bob",1)\nplay("Ann",5)\nplay("Bob",2)\nplay("Ann",7)\n' \
  > "$work/suite/02_diagonal.txt"
printf -- '-- visibility: hidden\nnew_game("Zanzibar","Quokka")\nplay("Zanzibar",3)\nplay("Quokka",1)\nplay("Zanzibar",5)\nplay("Quokka",2)\nplay("Zanzibar",7)\n' \
  > "$work/suite/03_hidden.txt"
"$bin" test --bless "$work/suite" >/dev/null
grep -q Zanzibar "$work/suite/03_hidden.expected.txt" || fail "the hidden test's expected output names no Zanzibar"

echo "== tictac autograder, unzipped into $ag/source, setup.sh there"
(cd "$work" && "$bin" autograder suite --command ./ttt --timeout 10 --out ag.zip)
mkdir "$ag/source"
unzip -q "$work/ag.zip" -d "$ag/source"
(cd "$ag/source" && ./setup.sh)
cp "$ag/source/run_autograder" "$ag/run_autograder"
if setpriv --reuid=nobody --regid=nogroup --clear-groups cat "$ag/source/suite/03_hidden.expected.txt" >/dev/null 2>&1; then
  fail "nobody can read the suite in $ag/source"
fi

# run_autograder on a submission whose program is the model with MISTAKE;
# on the hidden test a wrong one also says who it runs as and prints the
# suite's expected output, if it can read it.
grade() {
  local mistake=$1
  rm -rf "$ag/submission" "$ag/results"
  mkdir "$ag/submission"
  cp "$model" "$ag/submission/engine"
  if [ "$mistake" = none ]; then
    printf '#!/bin/sh\nexec ./engine none "$@"\n' > "$ag/submission/ttt"
  else
    cat > "$ag/submission/ttt" <<SCRIPT
#!/bin/sh
case "\$2" in *hidden*) id -un >&2; cat $ag/source/suite/03_hidden.expected.txt ;; esac
exec ./engine $mistake "\$@"
SCRIPT
  fi
  chmod 755 "$ag/submission/ttt"
  # Its standard error (tictac test's report for people) shown on a failure.
  local status=0
  (cd / && "$ag/run_autograder") 2>"$work/stderr" || status=$?
  if [ "$status" -ne 0 ]; then
    cat "$work/stderr"
    fail "run_autograder stopped with status $status"
  fi
  [ -f "$ag/results/results.json" ] || fail "run_autograder wrote no results.json"
  if grep -rlE 'Zanzibar|Quokka' "$ag/results"; then
    fail "the hidden test's expected output reached the student (above)"
  fi
}

# results.json's score, and the score of its test NAME.
score() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%g" % (r["score"] if len(sys.argv)<3 else next(t["score"] for t in r["tests"] if t["name"]==sys.argv[2])))' \
    "$ag/results/results.json" "$@"
}

echo "== a correct submission"
grade none
[ "$(score)" = 4.5 ] || fail "the correct submission scored $(score), not 4.5"
echo "score 4.5 of 4.5"

echo "== a wrong submission (the 3-5-7 diagonal does not win), reading the suite"
grade no-diagonal
[ "$(score)" = 2 ] || fail "the wrong submission scored $(score), not 2"
[ "$(score 03_hidden)" = 0 ] || fail "the hidden test scored $(score 03_hidden), not 0"
hidden=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); t=next(t for t in r["tests"] if t["name"]=="03_hidden"); print(t["visibility"]); print(t["output"])' "$ag/results/results.json")
[ "$(head -1 <<<"$hidden")" = hidden ] || fail "the hidden test is shown as $(head -1 <<<"$hidden")"
grep -q nobody <<<"$hidden" || fail "the submission did not run as nobody: $hidden"
grep -q 'Permission denied' <<<"$hidden" || fail "the submission's cat of the suite was not refused: $hidden"
echo "score 2 of 4.5; the hidden test hidden, the suite unreadable by nobody"
rm -rf "$work"
echo "ok"
