"use strict";
// What both pages share: the one door to the engine, and saving text as a file.

const tictac = {
  /**
   * The engine, the only way the pages reach it (docs/ARCHITECTURE.md).
   * `call` is "run" (a trace in a mode: the output and exit status, as the
   * command line prints them) or "state" (a game after its trace, to draw).
   * `request` and the reply are the JSON of `POST /api/CALL` (docs/guide/serve.md).
   * Answers `{ reply }`, or `{ error }` in words for the page. Under
   * `tictac serve` the server answers; a static site can answer from
   * WebAssembly with the same JSON, and no page changes.
   */
  async engine(call, request) {
    let response;
    try {
      response = await fetch("/api/" + call, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request),
      });
    } catch (e) {
      return { error: "the server cannot be reached (" + e.message + ")" };
    }
    let data = null;
    try {
      data = await response.json();
    } catch (e) { /* not JSON: said below */ }
    if (response.status === 200 && data) return { reply: data };
    return { error: (data && data.error) || "the server answered " + response.status };
  },

  /** Offers `text` as a download called `name`. */
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
