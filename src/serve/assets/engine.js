"use strict";
// The engine behind `tictac serve`'s pages: the server's JSON API
// (docs/guide/serve.md). The static site (dist/site.sh) puts the engine
// compiled to WebAssembly in this file's place; the pages do not change.
// The server writes its version into `version`, and its bound on a request's
// body with the words of its refusal below (src/serve/pages.rs).

/** A body past the server's bound is refused here, as the server would: sent, it is reset unread past a few MiB. */
const BODY_LIMIT = @BODY_LIMIT@;

tictac.useBackend({
  version: "@VERSION@",

  async call(call, request) {
    let body = request;
    if (request.trace instanceof Uint8Array) {
      // The API takes text: a file's bytes go as the text they spell, CR LF
      // kept, and a byte order mark kept (U+FEFF), which tictac -b refuses.
      let trace;
      try {
        trace = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(request.trace);
      } catch (e) {
        return { error: "the file is not UTF-8 text, which the server's API takes: run it with " +
          "tictac -b on the command line, or in the static site (dist/site.sh)" };
      }
      body = { ...request, trace };
    }
    const json = new TextEncoder().encode(JSON.stringify(body));
    if (json.length > BODY_LIMIT) return { error: "@BODY_TOO_BIG@" };
    let response;
    try {
      response = await fetch("/api/" + call, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: json,
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
});
