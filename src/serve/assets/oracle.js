"use strict";
// The playground: a trace, a mode, Run; the transcript, and a diff against
// an expected output shown as `tictac test` shows it. The trace and mode
// live in the address's fragment, so a link reproduces them.

(() => {
  const $ = (id) => document.getElementById(id);

  /**
   * The longest trace the address holds (bytes, in UTF-8). A link of megabytes
   * is no use, browsers stop updating an address past about 2 MB (a reload
   * then brings back an older trace), and rewriting it costs seconds per
   * keystroke; past this the address holds the mode only, and the page says so.
   */
  const ADDRESS_LIMIT = 64 * 1024;

  /**
   * The most of a trace file shown in the text box (bytes), and of a
   * transcript in the page (characters): a text box or a box of megabytes
   * takes the browser seconds to lay out, and freezes the tab meanwhile.
   * What is not shown still runs, and Copy and Download give it whole.
   */
  const FILE_SHOWN = 64 * 1024;
  const OUTPUT_SHOWN = 256 * 1024;

  /**
   * Reads the trace and mode from the address; true when it holds a trace
   * (which then replaces a trace file chosen).
   */
  function readAddress() {
    clearTimeout(addressTimer);
    addressTimer = 0;
    const p = new URLSearchParams(location.hash.slice(1));
    if (p.has("trace")) {
      traceEdited();
      $("trace").value = p.get("trace");
      $("address-note").hidden = true;
    }
    if (p.has("mode")) $("mode").value = p.get("mode");
    if (!$("mode").value) $("mode").value = "b";
    if (p.has("start")) $("start").value = p.get("start");
    if (p.has("end")) $("end").value = p.get("end");
    showBounds();
    return p.has("trace");
  }

  /** True when a text trace is past ADDRESS_LIMIT bytes in UTF-8 (never fewer bytes than UTF-16 units). */
  const tooLong = (trace) => trace.length > ADDRESS_LIMIT || new TextEncoder().encode(trace).length > ADDRESS_LIMIT;

  /** A rewrite of the address waiting for typing to pause (0: none). */
  let addressTimer = 0;

  /**
   * Writes the trace (when it is text of at most ADDRESS_LIMIT bytes in
   * UTF-8) and the mode to the address. A file's bytes are not put there:
   * with a file chosen the address holds the mode only, so a reload or a
   * link runs no trace other than the one shown.
   */
  function writeAddress() {
    clearTimeout(addressTimer);
    addressTimer = 0;
    const trace = $("trace").value;
    const long = !traceFile && tooLong(trace);
    const p = new URLSearchParams(traceFile || long ? {} : { trace });
    p.set("mode", $("mode").value);
    if ($("mode").value === "window") {
      p.set("start", $("start").value);
      p.set("end", $("end").value);
    }
    history.replaceState(null, "", "#" + p.toString());
    $("address-note").hidden = !long;
  }

  /** Typing rewrites the address once it pauses, not at every keystroke. */
  function writeAddressSoon() {
    clearTimeout(addressTimer);
    addressTimer = setTimeout(writeAddress, 300);
  }

  function showBounds() {
    $("window-bounds").hidden = $("mode").value !== "window";
  }

  /** A window bound: a number when it reads as one, else the text (the server says why). */
  const bound = (text) => (/^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : text.trim());

  /**
   * A trace file chosen or dropped, `{ name, bytes }`: run as it is (a text
   * box would turn CR LF into LF and cannot hold bytes that are not UTF-8),
   * until the trace is edited.
   */
  let traceFile = null;

  function request() {
    const body = { trace: traceFile ? traceFile.bytes : $("trace").value };
    switch ($("mode").value) {
      case "chunks":
        body.mode = "chunks";
        break;
      case "window":
        Object.assign(body, { mode: "window", start: bound($("start").value), end: bound($("end").value) });
        break;
      case "last":
        Object.assign(body, { mode: "window", start: -1, end: 0 });
        break;
      default:
        body.mode = "b";
    }
    return body;
  }

  /**
   * The engine's answer, with a window's bounds refused as the command line
   * refuses them: its two lines on standard output, exit status 2 (the
   * engine's message for them is the command line's first line, "Error: …").
   */
  function refused(answer) {
    if (!answer.error || !answer.error.startsWith("Error: ") || $("mode").value !== "window") return answer;
    return { reply: { status: 2, bounds: true, output: answer.error + "\nRun 'tictac -help' to see more details\n" } };
  }

  let actual = null;
  let actualBytes = null;
  let stamp = tictac.stamp();
  // Runs asked for; only the last one's answer is shown.
  let runs = 0;

  async function run() {
    writeAddress();
    const mine = ++runs;
    $("run").disabled = true;
    $("status").textContent = "(running…)";
    $("status").classList.remove("bad");
    const answer = await tictac.engine("run", request());
    if (mine !== runs) return;
    $("run").disabled = false;
    const { reply, error } = refused(answer);
    actual = reply ? reply.output : null;
    // The output's bytes, where the engine gives them (the static site's
    // WebAssembly): Download saves them as printed, bytes that are not
    // UTF-8 included; the page shows them as text.
    actualBytes = reply && reply.outputBytes ? reply.outputBytes : null;
    stamp = tictac.stamp();
    $("problem").textContent = error || "";
    $("problem").hidden = !error;
    // What tictac writes on standard error (a trace saved with a byte order
    // mark or as UTF-16: how to save it as plain UTF-8).
    $("stderr").textContent = (reply && reply.stderr) || "";
    $("stderr-box").hidden = !(reply && reply.stderr);
    const cut = actual !== null && actual.length > OUTPUT_SHOWN;
    $("output").textContent = cut ? actual.slice(0, OUTPUT_SHOWN) : actual || "";
    $("output-cut").textContent = cut ? `The transcript is ${actual.length.toLocaleString("en")} characters ` +
      `long: the page shows the first ${OUTPUT_SHOWN.toLocaleString("en")}; Copy and Download give it whole.` : "";
    $("output-cut").hidden = !cut;
    // A syntax or type error's message is one long line: it wraps, where
    // a transcript keeps its lines (and its board) as printed.
    $("output").classList.toggle("message", Boolean(reply && reply.status !== 0));
    $("status").textContent = !reply ? ""
      : reply.status === 0 ? "(exit status 0)"
        : reply.status === 2 && reply.bounds ? "(exit status 2: tictac -w refuses these bounds)"
          : reply.status === 2 ? "(exit status 2: tictac refuses this trace)"
          : "(exit status 1: the trace has an error)";
    $("status").classList.toggle("bad", Boolean(reply && reply.status !== 0));
    $("copy-output").disabled = $("download-output").disabled = actual === null;
    $("copied").textContent = "";
    compare();
  }

  // --- The diff: Myers' algorithm over lines, printed as `tictac test` does.

  function lines(text) {
    const parts = text.split("\n");
    const missingNewline = parts[parts.length - 1] !== "";
    if (!missingNewline) parts.pop();
    return { parts, missingNewline };
  }

  /** The most edits the diff looks through (its time grows as their square). */
  const EDITS = 2000;

  /** The edit script from a to b: [tag, aIndex, bIndex] with tag " ", "-", "+"; null past EDITS. */
  function editScript(a, b) {
    const n = a.length, m = b.length, max = n + m, offset = max + 1;
    const v = new Int32Array(2 * max + 3);
    const trace = [];
    let found = -1;
    for (let d = 0; d <= max && found < 0; d++) {
      if (d > EDITS) return null;
      // Only diagonals -d..d can be read back at step d: keep just those.
      trace.push(v.slice(offset - d - 1, offset + d + 2));
      for (let k = -d; k <= d; k += 2) {
        let x = (k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]))
          ? v[offset + k + 1] : v[offset + k - 1] + 1;
        let y = x - k;
        while (x < n && y < m && a[x] === b[y]) { x++; y++; }
        v[offset + k] = x;
        if (x >= n && y >= m) { found = d; break; }
      }
    }
    const script = [];
    let x = n, y = m;
    for (let d = found; d > 0; d--) {
      const prev = trace[d], at = d + 1;
      const k = x - y;
      const down = k === -d || (k !== d && prev[at + k - 1] < prev[at + k + 1]);
      const pk = down ? k + 1 : k - 1;
      const px = prev[at + pk], py = px - pk;
      while (x > px && y > py) { x--; y--; script.push([" ", x, y]); }
      if (down) { y--; script.push(["+", -1, y]); } else { x--; script.push(["-", x, -1]); }
      x = px; y = py;
    }
    while (x > 0 && y > 0) { x--; y--; script.push([" ", x, y]); }
    return script.reverse();
  }

  function visible(line) {
    const body = line.replace(/ +$/, "");
    return body.replace(/\t/g, "→").replace(/\r/g, "␍")
      // eslint-disable-next-line no-control-regex
      .replace(/[\x00-\x1f\x7f]/g, (c) => "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0")) +
      "·".repeat(line.length - body.length);
  }

  function compare() {
    const expectedText = $("expected").value;
    $("diff-box").hidden = expectedText === "" || actual === null;
    if ($("diff-box").hidden) return;
    const expected = lines(expectedText), got = lines(actual);
    const diff = $("diff");
    diff.textContent = "";
    if (expectedText === actual) {
      $("verdict").textContent = "PASS: the transcript is the expected output, byte for byte";
      $("verdict").className = "pass";
      return;
    }
    $("verdict").textContent = "FAIL: the transcript differs from the expected output";
    $("verdict").className = "fail";
    const script = editScript(expected.parts, got.parts);
    if (!script) {
      let first = 0;
      while (expected.parts[first] === got.parts[first]) first++;
      diff.textContent = `(no diff shown: more than ${EDITS.toLocaleString("en")} lines would be added or ` +
        `removed, past what this page compares; the first difference is on line ${first + 1})`;
      return;
    }
    const context = 3;
    const changed = script.map((s) => s[0] !== " ");
    const near = (i) => changed.slice(Math.max(0, i - context), i + context + 1).some(Boolean);
    const add = (cls, text) => {
      const span = document.createElement("span");
      if (cls) span.className = cls;
      span.textContent = text + "\n";
      diff.append(span);
    };
    add("mark", "--- expected\n+++ actual");
    const num = (i) => (i < 0 ? "" : String(i + 1)).padStart(5, " ");
    let inHunk = false;
    script.forEach(([tag, i, j], at) => {
      if (!near(at)) { inHunk = false; return; }
      if (!inHunk) { add("hunk", "@@ -" + (i < 0 ? "" : i + 1) + " +" + (j < 0 ? "" : j + 1) + " @@"); inHunk = true; }
      const text = tag === "+" ? got.parts[j] : expected.parts[i];
      add(tag === "-" ? "del" : tag === "+" ? "add" : "", `${tag}${num(i)} ${num(j)} | ${visible(text)}`);
      const last = tag === "+" ? j === got.parts.length - 1 && got.missingNewline
        : i === expected.parts.length - 1 && expected.missingNewline;
      if (last) add("mark", "\\ no newline at end");
    });
  }

  // --- Expected output from a file, chosen or dropped.

  function loadExpected(file) {
    if (!file) return;
    if (file.size > 4 << 20) {
      $("problem").textContent = "that file is over 4 MiB; compare it with tictac test";
      $("problem").hidden = false;
      return;
    }
    file.text().then((text) => { $("expected").value = text; compare(); });
  }
  $("expected-file").addEventListener("change", (e) => loadExpected(e.target.files[0]));

  // --- A trace from a file, chosen or dropped: its bytes run as they are.

  async function loadTrace(file) {
    if (!file) return;
    if (file.size > 16 << 20) {
      $("problem").textContent = "that trace file is over 16 MiB; run it with tictac -b";
      $("problem").hidden = false;
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    // Shown with its byte order mark, if any (U+FEFF, invisible): edited, the
    // text runs as the file does. A long file is shown in part, and cannot be
    // edited (its part would run): "Write a trace instead" empties the box.
    const whole = bytes.length <= FILE_SHOWN;
    $("trace").value = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(0, FILE_SHOWN));
    $("trace").readOnly = !whole;
    $("trace-clear").hidden = whole;
    traceFile = { name: file.name, bytes };
    $("trace-source").textContent = `Running the file ${file.name} (${bytes.length.toLocaleString("en")} ` +
      "bytes) as it is, byte for byte; " + (whole ? "editing the trace runs the text instead."
      : `the box shows its first ${FILE_SHOWN.toLocaleString("en")} bytes only.`) +
      " The page's address holds the mode only, not the file.";
    $("trace-source").hidden = false;
    run();
  }

  function traceEdited() {
    traceFile = null;
    $("trace-source").hidden = true;
    $("trace-file").value = "";
    $("trace").readOnly = false;
    $("trace-clear").hidden = true;
  }

  $("trace-clear").addEventListener("click", () => {
    traceEdited();
    $("trace").value = "";
    writeAddress();
    $("trace").focus();
  });

  $("trace-file").addEventListener("change", (e) => loadTrace(e.target.files[0]));
  $("trace").addEventListener("dragover", (e) => e.preventDefault());
  $("trace").addEventListener("drop", (e) => {
    if (e.dataTransfer.files.length) {
      e.preventDefault();
      loadTrace(e.dataTransfer.files[0]);
    }
  });
  $("trace").addEventListener("input", traceEdited);
  const drop = $("expected");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("dropping"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("dropping"));
  drop.addEventListener("drop", (e) => {
    drop.classList.remove("dropping");
    if (e.dataTransfer.files.length) {
      e.preventDefault();
      loadExpected(e.dataTransfer.files[0]);
    }
  });

  $("copy-output").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(actual);
      $("copied").textContent = "Copied.";
    } catch (e) {
      $("copied").textContent = "The browser did not allow copying (" + e.message + ").";
    }
  });
  $("download-output").addEventListener("click",
    () => tictac.download(`transcript-${stamp}.txt`, actualBytes || actual));

  $("run").addEventListener("click", run);
  $("mode").addEventListener("change", () => { showBounds(); writeAddress(); });
  for (const id of ["trace", "start", "end"]) $(id).addEventListener("input", writeAddressSoon);
  $("expected").addEventListener("input", compare);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
  });
  // Back, forward or a link within the page: its trace (or the trace file
  // still chosen, when the address holds a mode only) runs, as on load.
  window.addEventListener("hashchange", () => {
    readAddress();
    run();
  });

  /**
   * A reload loads the address as it was before the page hid: an address
   * write still waiting for typing to pause is made on the way out (for
   * history), and kept in the tab's storage for the reload, which takes it.
   */
  const PENDING = "tictac.oracle.address";
  window.addEventListener("pagehide", () => {
    if (!addressTimer) return;
    const was = location.hash;
    writeAddress();
    try {
      sessionStorage.setItem(PENDING, JSON.stringify({ was, now: location.hash }));
    } catch (e) { /* no storage: a reload runs the address before the edit */ }
  });

  /** The address write kept by pagehide, `{ was, now }`, taken out of the tab's storage. */
  function takePending() {
    try {
      const pending = JSON.parse(sessionStorage.getItem(PENDING) || "null");
      sessionStorage.removeItem(PENDING);
      return pending;
    } catch (e) {
      return null;
    }
  }
  // Back to this very page (the browser kept it): nothing to take.
  window.addEventListener("pageshow", (e) => { if (e.persisted) takePending(); });

  const pending = takePending();
  const [navigation] = performance.getEntriesByType("navigation");
  if (pending && navigation && navigation.type === "reload" && pending.was === location.hash) {
    history.replaceState(null, "", pending.now);
  }
  if (readAddress()) run();
})();
