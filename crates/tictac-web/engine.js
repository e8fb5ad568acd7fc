"use strict";
// The engine behind the static site's pages (dist/site.sh): tictac's engine
// compiled to WebAssembly (crates/tictac-web), the module inlined below as
// base64, so that the pages fetch nothing and work opened from disk
// (file://) in an ordinary browser, or from any static host. The pages are
// `tictac serve`'s (src/serve/assets); this file takes the place of its
// engine.js there, behind the same `tictac.engine(call, request)`.
//
// The module's exports (crates/tictac-web/src/lib.rs): `tictac_input(which, len)`
// makes room for the request's JSON (0) or the trace's bytes (1) and answers
// where to write them; `tictac_call(kind)` runs "run" (0), "state" (1) or
// "version" (2) and answers 0 (a reply) or 1 (a refused request: its
// error); `tictac_output(which)` and `tictac_output_len(which)` give the reply's JSON (0)
// and, for "run", the bytes printed (1).

(() => {
  const MODULE =
// @MODULE@
    "";
  const KINDS = { run: 0, state: 1, version: 2 };
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const bytes = Uint8Array.from(atob(MODULE), (c) => c.charCodeAt(0));
  const ready = WebAssembly.instantiate(bytes).then(({ instance }) => instance.exports);

  function put(wasm, which, data) {
    const at = wasm.tictac_input(which, data.length);
    new Uint8Array(wasm.memory.buffer, at, data.length).set(data);
  }

  function take(wasm, which) {
    return new Uint8Array(wasm.memory.buffer, wasm.tictac_output(which), wasm.tictac_output_len(which)).slice();
  }

  async function call(kind, request) {
    const wasm = await ready;
    if (!(kind in KINDS)) return { error: "no such call: " + kind };
    const { trace, ...rest } = request;
    if (kind !== "version" && typeof trace !== "string" && !(trace instanceof Uint8Array)) {
      return { error: "invalid request: \"trace\" is text, or a file's bytes" };
    }
    put(wasm, 0, encoder.encode(JSON.stringify(rest)));
    put(wasm, 1, typeof trace === "string" ? encoder.encode(trace) : trace ?? new Uint8Array());
    const refused = wasm.tictac_call(KINDS[kind]);
    const reply = JSON.parse(decoder.decode(take(wasm, 0)));
    if (refused) return { error: reply.error };
    if (kind === "run") {
      reply.outputBytes = take(wasm, 1);
      reply.output = decoder.decode(reply.outputBytes);
    }
    return { reply };
  }

  tictac.useBackend({
    version: call("version", {}).then(({ reply, error }) => (reply ? reply.version : Promise.reject(error))),
    call,
  });
})();
