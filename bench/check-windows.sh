#!/usr/bin/env bash
# tictac.exe, built for x86_64-pc-windows-gnu with Debian's mingw linker and
# run under Debian's wine (issue 25). Builds it with the `cross` profile (the
# release code without fat LTO), checks that it needs no DLL beside it (only
# the system's), then under wine:
# - every trace of acceptance/ (and ../shared/oracle when present) run with
#   `-b TRACE`: standard output and exit status byte-identical to the Linux
#   release binary's;
# - `tictac test` on those suites, in-process and with `--program tictac.exe`
#   (which runs their `-w`, `-l`, `-i` and OUT directives through the exe);
# - `-b IN OUT`: OUT identical to Linux's, and refused when it exists;
# - piped `-i`: identical to Linux's;
# - `tictac test --program hang.bat --timeout 2`: a batch file that never
#   ends is reported as timed out, in time;
# - `tictac test --program crash.bat`: an exit code that is an NTSTATUS
#   (0xC0000005) is reported as the exception it is, by name;
# - a program found nowhere: one error before any test;
# - `tictac test --program spawner.bat`: a batch file that starts a child
#   (a loop appending to a file) and then runs tictac.exe; the test passes
#   and the child does not outlive the run (the file stops growing);
# - `tictac grade --command ttt.bat` (and `.\ttt.bat`): two students'
#   folders (one name with a space), each with its own ttt.bat, found and run
#   in the student's folder as cmd.exe there would (not the one in the folder
#   tictac runs in); grades.csv holds one pass and one failure;
# - `tictac fuzz --program tictac.exe`: no divergence in 50 runs;
# - `tictac serve`: POST /api/run answers as the Linux server does;
# - `tictac verify`: the same table as on Linux.
# Installs nothing: it fails at once, saying what to install, without the
# Windows target, the mingw C compiler or wine (.ci/run installs them).
# Rust's standard library (1.78 on) calls ProcessPrng in
# bcryptprimitives.dll, which wine 8 lacks: a three-line DLL forwarding it
# to RtlGenRandom is built into the scratch folder beside the exe (a test
# harness only, never shipped).
#
#   bench/check-windows.sh
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-pc-windows-gnu
wine=/usr/lib/wine/wine64 # wine 8's 64-bit loader; `wine` alone tries syswow64
fail() {
  echo "FAIL: $*"
  exit 1
}
command -v x86_64-w64-mingw32-gcc >/dev/null || fail "no mingw C compiler: apt-get install gcc-mingw-w64-x86-64"
[ -x "$wine" ] || fail "no $wine: apt-get install wine wine64"
rustup target list --installed | grep -qx "$target" || fail "no $target: rustup target add $target"

start=$(date +%s)
cargo build --locked --quiet --release --bin tictac
cargo build --locked --quiet --profile cross --target "$target" --bin tictac
linux=$PWD/target/release/tictac
echo "built tictac.exe in $(($(date +%s) - start)) s: $(stat -c %s "target/$target/cross/tictac.exe") bytes"

# Every DLL it imports is one of Windows' own (no libgcc, no winpthread).
system_dlls='^(kernel32|ntdll|msvcrt|user32|gdi32|userenv|ws2_32|advapi32|oleaut32|combase|shell32|bcryptprimitives|api-ms-win-[a-z0-9-]+)\.dll$'
dlls=$(x86_64-w64-mingw32-objdump -p "target/$target/cross/tictac.exe" | awk '/DLL Name:/ { print tolower($3) }' | sort -u)
for dll in $dlls; do
  [[ $dll =~ $system_dlls ]] || fail "tictac.exe needs $dll beside it"
done
echo "imports only system DLLs: $(echo $dlls)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "target/$target/cross/tictac.exe" "$work/"
cat >"$work/prng.c" <<'EOF'
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) { ULONG c = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (!SystemFunction036(data, c)) return FALSE; data += c; len -= c; }
  return TRUE; }
EOF
x86_64-w64-mingw32-gcc -O2 -shared -o "$work/bcryptprimitives.dll" "$work/prng.c" -ladvapi32
export WINEDEBUG=-all
exe() { "$wine" "$work/tictac.exe" "$@"; }
exe --version >/dev/null || fail "tictac.exe does not start under wine"

# -b on every trace: the same bytes and status as Linux.
suites=(acceptance)
if [ -d ../shared/oracle ]; then
  suites+=(../shared/oracle)
fi
traces=0
for suite in "${suites[@]}"; do
  while IFS= read -r trace; do
    case $trace in *.expected.txt | *.oracle.txt | *.actual.txt) continue ;; esac
    set +e
    "$linux" -b "$trace" >"$work/linux.out" 2>/dev/null
    linux_status=$?
    exe -b "$trace" >"$work/windows.out" 2>/dev/null
    windows_status=$?
    set -e
    cmp -s "$work/linux.out" "$work/windows.out" || fail "-b $trace: output differs from Linux's: $(diff "$work/linux.out" "$work/windows.out" | head -5)"
    [ "$linux_status" = "$windows_status" ] || fail "-b $trace: exit status $windows_status, Linux's $linux_status"
    traces=$((traces + 1))
  done < <(find "$suite" -name '*.txt' | sort)
  exe test --quiet "$suite" >"$work/report" || fail "tictac test $suite (in-process): $(cat "$work/report")"
  exe test --quiet --program "$work/tictac.exe" "$suite" >"$work/report" ||
    fail "tictac test --program tictac.exe $suite: $(cat "$work/report")"
done
echo "-b: $traces traces byte-identical to Linux's; tictac test passed in-process and with --program tictac.exe"

# -b IN OUT: OUT whole and as Linux writes it; never over an existing file.
trace=acceptance/course/01_x_wins.txt
"$linux" -b "$trace" "$work/linux-out.txt"
exe -b "$trace" "$work/windows-out.txt" >/dev/null
cmp "$work/linux-out.txt" "$work/windows-out.txt" || fail "-b IN OUT: OUT differs from Linux's"
echo kept >"$work/taken.txt"
set +e
exe -b "$trace" "$work/taken.txt" >"$work/refused" 2>&1
status=$?
set -e
[ "$status" != 0 ] && grep -q "already exists" "$work/refused" && [ "$(cat "$work/taken.txt")" = kept ] ||
  fail "-b IN OUT over an existing file: status $status, $(cat "$work/refused")"
leftovers=$(find "$work" -name '.*tictac*' | wc -l)
[ "$leftovers" = 0 ] || fail "-b IN OUT left temporary files: $(find "$work" -name '.*tictac*')"
echo "-b IN OUT: identical to Linux's; an existing OUT refused and kept"

# Piped -i: the shell's plain protocol, as on Linux.
"$linux" -i <"$trace" >"$work/linux-i.out" 2>&1 || true
exe -i <"$trace" >"$work/windows-i.out" 2>&1 || true
cmp "$work/linux-i.out" "$work/windows-i.out" || fail "piped -i differs from Linux's: $(diff "$work/linux-i.out" "$work/windows-i.out" | head -5)"
echo "piped -i: identical to Linux's"

# Programs: a batch file that hangs, and one that leaves a child behind.
mkdir "$work/suite"
cp "$trace" "$work/suite/t.txt"
cp "${trace%.txt}.expected.txt" "$work/suite/t.expected.txt"
printf '@echo off\r\n:loop\r\ngoto loop\r\n' >"$work/hang.bat"
# The child writes to $work by its absolute (wine) path: the run happens in
# a private copy of the folder, which %~dp0 names and which goes with the run.
alive='Z:'$(printf '%s' "$work/alive.txt" | tr / '\\')
printf '@echo off\r\n:loop\r\necho x>>"%s"\r\ngoto loop\r\n' "$alive" >"$work/child.bat"
printf '@echo off\r\nstart /b cmd /c "%%~dp0child.bat"\r\n:wait\r\nif not exist "%s" goto wait\r\n"%%~dp0tictac.exe" %%*\r\n' "$alive" >"$work/spawner.bat"
began=$(date +%s)
set +e
(cd "$work" && timeout 60 "$wine" tictac.exe test --timeout 2 --program hang.bat suite) >"$work/hang.report" 2>&1
status=$?
set -e
took=$(($(date +%s) - began))
[ "$status" = 1 ] && grep -q "timed out after 2 s" "$work/hang.report" ||
  fail "a hanging hang.bat: status $status after $took s: $(cat "$work/hang.report")"
[ "$took" -lt 30 ] || fail "a hanging hang.bat was stopped only after $took s"
echo "hang.bat (a bare name, found in the current folder): reported as timed out after $took s with --timeout 2"

# A crash's exit code is its exception's NTSTATUS: named, not a number.
printf '@echo off\r\nexit /b -1073741819\r\n' >"$work/crash.bat"
set +e
(cd "$work" && timeout 60 "$wine" tictac.exe test --program crash.bat suite) >"$work/crash.report" 2>&1
set -e
grep -q "crashed (exception 0xC0000005, access violation)" "$work/crash.report" ||
  fail "crash.bat (exit code 0xC0000005): $(cat "$work/crash.report")"
echo "crash.bat (exit code 0xC0000005): reported as crashed (exception 0xC0000005, access violation)"

set +e
(cd "$work" && "$wine" tictac.exe test --program no-such-program suite) >"$work/missing.report" 2>&1
status=$?
set -e
[ "$status" = 2 ] && grep -q "cannot run 'no-such-program': not found in the current folder or on PATH" "$work/missing.report" &&
  grep -q "Run 'tictac test --help'" "$work/missing.report" ||
  fail "a program that is nowhere: status $status, $(cat "$work/missing.report")"
echo "a program that is nowhere: one error before any test (status 2)"

(cd "$work" && timeout 60 "$wine" tictac.exe test --program spawner.bat suite) >"$work/spawner.report" 2>&1 ||
  fail "spawner.bat: $(cat "$work/spawner.report")"
[ -s "$work/alive.txt" ] || fail "spawner.bat's child never ran"
size=$(stat -c %s "$work/alive.txt")
sleep 2
[ "$(stat -c %s "$work/alive.txt")" = "$size" ] || fail "spawner.bat's child outlived its run (it still writes)"
echo "spawner.bat: passed, and its child was killed with the run's Job Object"

# grade: each student's ttt.bat is found in, and runs inside, the student's
# folder, as cmd.exe there finds it (a bare name and .\ttt.bat alike), not
# the ttt.bat of the folder tictac runs in; ann's runs her own copy of
# tictac.exe, ann.exe, by a bare name found only in her folder (each run is
# in a private copy of it, so a `..` path inside her script would lead
# nowhere); bob's (a name with a space) prints something else.
mkdir -p "$work/class/ann" "$work/class/bob jones"
cp "$work/tictac.exe" "$work/class/ann/ann.exe"
cp "$work/bcryptprimitives.dll" "$work/class/ann/" # wine 8 lacks it (above)
printf '@echo off\r\nann.exe %%*\r\n' >"$work/class/ann/ttt.bat"
printf '@echo off\r\necho not a game\r\n' >"$work/class/bob jones/ttt.bat"
printf '@echo off\r\necho the runner folder, not a student\r\n' >"$work/ttt.bat"
printf 'student,passed,total,points,max_points,t\nann,1,1,1,1,1\nbob jones,0,1,0,1,0\n' >"$work/grades.want"
for command in 'ttt.bat' '.\ttt.bat'; do
  rm -rf "$work/grades"
  (cd "$work" && timeout 60 "$wine" tictac.exe grade suite class/ann "class/bob jones" --command "$command" --out grades) \
    >"$work/grade.report" 2>&1 || fail "tictac grade --command $command: $(cat "$work/grade.report")"
  cmp -s "$work/grades.want" "$work/grades/grades.csv" ||
    fail "tictac grade --command $command: grades.csv is $(cat "$work/grades/grades.csv"); the reports: $(cat "$work/grades/"*.report.txt)"
  grep -q "output differs" "$work/grades/bob jones.report.txt" || fail "bob's report: $(cat "$work/grades/bob jones.report.txt")"
done
echo "grade: ttt.bat and .\\ttt.bat found and run in each student's folder (one with a space): ann passed, bob failed"

# fuzz: the exe against its own engine, with programs it starts in jobs.
exe fuzz --program "$work/tictac.exe" --runs 50 --seed 1 >"$work/fuzz.report" 2>&1 ||
  fail "tictac fuzz --program tictac.exe: $(cat "$work/fuzz.report")"
grep -q " 0 divergences found" "$work/fuzz.report" || fail "tictac fuzz: $(cat "$work/fuzz.report")"
echo "fuzz: 50 runs of tictac.exe against the engine, no divergence"

# serve: POST /api/run answers as the Linux server does.
api_run() {
  python3 - "$1" "$trace" <<'PY'
import json, sys, urllib.request
body = json.dumps({"trace": open(sys.argv[2], encoding="utf-8").read(), "mode": "b"}).encode()
print(urllib.request.urlopen("http://" + sys.argv[1] + "/api/run", body, timeout=10).read().decode())
PY
}
serve_and_ask() {
  "$@" serve --port 0 >"$work/serve.out" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    address=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/serve.out" || true)
    [ -n "$address" ] && break
    sleep 0.1
  done
  answer=$(api_run "$address" || echo "no answer from $address")
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  echo "$answer"
}
linux_answer=$(serve_and_ask "$linux")
windows_answer=$(serve_and_ask "$wine" "$work/tictac.exe")
[[ $linux_answer == *'"output":"'* ]] || fail "serve: the Linux server answered $linux_answer"
[ "$linux_answer" = "$windows_answer" ] || fail "serve: POST /api/run answered $windows_answer, Linux's server $linux_answer"
echo "serve: POST /api/run answered as on Linux"

# verify: the same table.
"$linux" verify >"$work/linux-verify"
exe verify >"$work/windows-verify"
cmp "$work/linux-verify" "$work/windows-verify" || fail "verify differs from Linux's"
echo "verify: identical to Linux's"
echo "windows: every check passed under wine ($(($(date +%s) - start)) s)"
