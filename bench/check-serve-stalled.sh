#!/usr/bin/env bash
# `tictac serve` with clients that never read their answers (issue 21;
# 250 of them since mem2: the peak must not grow with their number; with
# SLOWLY=1 each reads 4 KB every 0.25 s instead):
# CLIENTS (250) connections each post a trace whose transcript is near the
# 4 MiB cap and escapes to about 23 MB of JSON (`new_game("A<170,000 x
# \x01>","B")` and 10 `undo`), then read nothing. Meanwhile /healthz and
# the same request from a client that reads must answer 200; the server's
# peak RSS (VmHWM) must stay under BOUND_MIB (256); and every stalled
# connection must be closed (its answer dropped) within the time bound
# (--timeout, 5 s) and a little slack. The first line printed must be
# `tictac: serving on http://ADDR:PORT/`. Exits non-zero otherwise. Run by
# .ci/run's release step; about 20 s.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TICTAC:-target/release/tictac}
[ -n "${TICTAC:-}" ] || [ -x "$bin" ] || cargo build --release --quiet --bin tictac
exec python3 - "$bin" "${CLIENTS:-250}" "${BOUND_MIB:-256}" "${SLOWLY:-}" <<'PY'
import json, os, re, socket, subprocess, sys, time, urllib.error, urllib.request

bin, clients, bound, slowly = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
server = subprocess.Popen([bin, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
failed = []
try:
    first = server.stdout.readline()
    match = re.fullmatch(r"tictac: serving on http://(127\.0\.0\.1):(\d+)/\n", first)
    if not match:
        sys.exit(f"FAIL the first line is {first!r}")
    host, port = match[1], int(match[2])

    def status():
        fields = dict(l.split(":", 1) for l in open(f"/proc/{server.pid}/status"))
        return int(fields["VmHWM"].split()[0]) / 1024

    def connections():
        # An fd may close between the listing and its readlink (answers'
        # temporary files come and go).
        fds, count = f"/proc/{server.pid}/fd", 0
        for f in os.listdir(fds):
            try:
                count += os.readlink(f"{fds}/{f}").startswith("socket:")
            except FileNotFoundError:
                pass
        return count

    def ask(path, data=None):
        request = urllib.request.Request(f"http://{host}:{port}{path}", data=data)
        started = time.time()
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, len(answer.read()), time.time() - started
        except urllib.error.HTTPError as e:
            return e.code, len(e.read()), time.time() - started

    trace = 'new_game("A' + "\x01" * 170_000 + '","B")\n' + "undo\n" * 10
    body = json.dumps({"trace": trace}).encode()
    head = (f"POST /api/run HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    idle = connections()
    print(f"check-serve-stalled: {clients} clients post {len(body)} bytes and never read; "
          f"load average {open('/proc/loadavg').read().split()[0]}; peak at start {status():.1f} MiB")
    stalled = []
    for _ in range(clients):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect((host, port))
        s.sendall(head + body)
        stalled.append(s)
    if slowly:
        # Each reads 4 KB every 0.25 s: its answer is not read within the
        # time bound either.
        import threading
        def trickle():
            while stalled:
                for s in list(stalled):
                    try:
                        s.setblocking(False)
                        s.recv(4096)
                    except OSError:
                        pass
                time.sleep(0.25)
        threading.Thread(target=trickle, daemon=True).start()
    time.sleep(1)
    code, size, took = ask("/healthz")
    print(f"     /healthz meanwhile: {code} in {took:.2f} s")
    if code != 200:
        failed.append("/healthz")
    code, size, took = ask("/api/run", body)
    print(f"     the same request from a client that reads: {code}, {size} bytes in {took:.1f} s")
    if code != 200:
        failed.append("the reading client")
    # The stalled answers are dropped within the time bound (5 s) of their
    # first byte; runs wait for one of the run slots, so allow for that.
    deadline = time.time() + 30
    while connections() > idle and time.time() < deadline:
        time.sleep(0.25)
    left = connections() - idle
    print(f"     stalled connections still open {time.time() - deadline + 30:.1f} s after the last was sent: {left}")
    if left > 0:
        failed.append("stalled connections left open")
    peak = status()
    verdict = "ok  " if peak < bound else "FAIL"
    print(f"{verdict} peak memory with {clients} clients that never read: {peak:.1f} MiB (bound: < {bound:.0f} MiB)")
    if peak >= bound:
        failed.append("peak memory")
    for s in stalled:
        s.close()
    stalled.clear()
finally:
    server.terminate()
    server.wait()
if failed:
    sys.exit("FAIL " + ", ".join(failed))
PY
