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
//
// The engine runs in a worker (made from a blob: a page opened from disk may
// start no worker from a file), so a long trace never freezes the page; the
// requests go to it in turn. Where no worker can start (a host whose
// Content-Security-Policy forbids it), it runs on the page itself.

(() => {
  const MODULE =
// @MODULE@
    "";
  const bytes = Uint8Array.from(atob(MODULE), (c) => c.charCodeAt(0));

  /**
   * The engine on `module` (the module's bytes): a function that answers
   * `call(kind, request)` with `{ reply }` or `{ error }`. It runs in the
   * worker (this function's text is the worker's script), or on the page.
   */
  function engine(module) {
    const KINDS = { run: 0, state: 1, version: 2 };
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    const start = () => WebAssembly.instantiate(module).then(({ instance }) => instance.exports);
    let ready = start();

    function put(wasm, which, data) {
      const at = wasm.tictac_input(which, data.length);
      new Uint8Array(wasm.memory.buffer, at, data.length).set(data);
    }

    function take(wasm, which) {
      return new Uint8Array(wasm.memory.buffer, wasm.tictac_output(which), wasm.tictac_output_len(which)).slice();
    }

    async function answer(kind, request) {
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

    return async (kind, request) => {
      try {
        return await answer(kind, request);
      } catch (e) {
        // A module that stopped (out of memory) is started afresh for the next call.
        ready = start();
        return { error: "the engine failed: " + e.message };
      }
    };
  }

  // The worker: it starts the engine on the module it is sent first, then
  // answers each request `{ id, kind, request }` with `{ id, answer }`.
  const script = `"use strict";
const engine = ${engine.toString()};
let call = null;
onmessage = async ({ data }) => {
  if (!call) {
    call = engine(data);
    return;
  }
  const answer = await call(data.kind, data.request);
  // The output goes as its bytes alone, handed over, not copied; the page
  // decodes them (a copy of the text would cost the page as much again).
  const bytes = answer.reply && answer.reply.outputBytes;
  if (bytes) delete answer.reply.output;
  postMessage({ id: data.id, answer }, bytes ? [bytes.buffer] : []);
};
`;

  // Requests sent to the worker and not yet answered, by id.
  const waiting = new Map();
  let sent = 0;
  let worker = null;
  let onPage = null;

  /** No worker (it could not start, or failed): the engine on the page answers, those waiting first. */
  function withoutWorker() {
    if (worker) worker.terminate();
    worker = null;
    onPage = onPage || engine(bytes);
    for (const { kind, request, resolve } of waiting.values()) onPage(kind, request).then(resolve);
    waiting.clear();
  }

  try {
    worker = new Worker(URL.createObjectURL(new Blob([script], { type: "text/javascript" })));
    const decoder = new TextDecoder();
    worker.onmessage = ({ data }) => {
      const asked = waiting.get(data.id);
      waiting.delete(data.id);
      const reply = data.answer.reply;
      if (reply && reply.outputBytes) reply.output = decoder.decode(reply.outputBytes);
      if (asked) asked.resolve(data.answer);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      withoutWorker();
    };
    worker.postMessage(bytes);
  } catch (e) {
    withoutWorker();
  }

  function call(kind, request) {
    if (!worker) return onPage(kind, request);
    return new Promise((resolve) => {
      const id = sent++;
      waiting.set(id, { kind, request, resolve });
      worker.postMessage({ id, kind, request });
    });
  }

  tictac.useBackend({
    version: call("version", {}).then(({ reply, error }) => (reply ? reply.version : Promise.reject(error))),
    call,
  });
})();
