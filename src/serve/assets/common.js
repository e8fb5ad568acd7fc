"use strict";
// What both pages share: the one door to the engine, and saving text as a file.

const tictac = {
  /**
   * The engine, the only way the pages reach it (docs/ARCHITECTURE.md).
   * `call` is "run" (a trace in a mode: the output and exit status, as the
   * command line prints them) or "state" (a game after its trace, to draw).
   * `request` and the reply are the JSON of `POST /api/CALL` (docs/guide/serve.md);
   * `request.trace` may also be a file's bytes (a Uint8Array), run byte for byte.
   * Answers `{ reply }`, or `{ error }` in words for the page. The backend
   * is `assets/engine.js`: under `tictac serve` the server's API, in the
   * static site (dist/site.sh) the engine compiled to WebAssembly.
   */
  async engine(call, request) {
    if (!tictac.backend) return { error: "the page's engine (assets/engine.js) did not load" };
    try {
      return await tictac.backend.call(call, request);
    } catch (e) {
      return { error: "the engine failed: " + e.message };
    }
  },

  /**
   * The backend: `{ version, call(call, request) }`, `version` a string or
   * a Promise of one; set once, by assets/engine.js.
   */
  backend: null,

  /** Installs the backend and shows the version it was built from. */
  useBackend(backend) {
    tictac.backend = backend;
    Promise.resolve(backend.version).then((version) => {
      document.getElementById("version").textContent = version;
    }, () => { /* the engine's own error says why, at its first call */ });
  },

  /** Offers `text` (a string, or bytes saved as they are) as a download called `name`. */
  download(name, text) {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  },

  /** Local date and time as YYYY-MM-DD-HHMMSS, for file names. */
  stamp(date = new Date()) {
    const two = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}-` +
      `${two(date.getHours())}${two(date.getMinutes())}${two(date.getSeconds())}`;
  },

  /** True when a key press belongs to a text field, not to the page. */
  typing(event) {
    const t = event.target;
    return event.ctrlKey || event.metaKey || event.altKey ||
      (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName)));
  },
};
