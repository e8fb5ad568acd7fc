"use strict";
// The game page. The page holds the trace (the whole record of the game) and
// sends it with every action; the server answers the state after it, with
// the computer's moves appended. Nothing is kept on the server.

(() => {
  const $ = (id) => document.getElementById(id);
  const cells = [...document.querySelectorAll(".cell")];
  const saved = "tictac.game";

  // The record so far, and the bots that play in it (fixed at New game).
  let game = { trace: "", bots: {} };
  let view = null;
  let busy = false;
  // Both downloads of one state share a name, so they pair up as a test.
  let stamp = tictac.stamp();

  try {
    const kept = JSON.parse(sessionStorage.getItem(saved) || "null");
    if (kept && typeof kept.trace === "string" && typeof kept.bots === "object") game = kept;
  } catch (e) { /* a fresh game */ }

  const quote = (name) => `"${name}"`;

  /** Sends the trace plus `command` (if any); keeps it only when it ran. */
  async function act(command) {
    if (busy) return;
    busy = true;
    const trace = command === undefined ? game.trace
      : game.trace + (game.trace === "" || game.trace.endsWith("\n") ? "" : "\n") + command + "\n";
    const request = { trace, bots: game.bots };
    // `random` chooses by a seed: a fresh one each time makes its next answer
    // random, while its earlier moves stay as the trace records them.
    if (Object.values(game.bots).includes("random")) {
      request.seed = Math.floor(Math.random() * 2 ** 32);
    }
    const { status, data } = await tictac.post("/api/state", request);
    busy = false;
    if (status === 200 && data.status === 0) {
      if (data.trace !== game.trace) stamp = tictac.stamp();
      game.trace = data.trace;
      sessionStorage.setItem(saved, JSON.stringify(game));
      show(data);
      problem("");
    } else if (status === 200) {
      problem("That command cannot be written in a trace:\n" + data.error);
    } else {
      problem(data.error || "the server answered " + status);
    }
  }

  function problem(text) {
    $("problem").textContent = text;
    $("problem").hidden = text === "";
  }

  function computer() {
    return Object.keys(game.bots)[0];
  }

  function show(state) {
    view = state;
    $("banner").textContent = state.banner;
    const playing = state.phase === "play";
    state.cells.forEach((mark, k) => {
      const cell = cells[k];
      cell.textContent = mark || String(k + 1);
      cell.className = "cell " + (mark === "X" ? "x" : mark === "O" ? "o" : "free");
      cell.disabled = !playing || mark !== "";
      const what = mark ? mark : playing ? "empty, plays for " + state.next : "empty";
      cell.setAttribute("aria-label", `cell ${k + 1}: ${what}`);
    });
    $("lines").textContent = [state.status_line, ...state.score_lines].join("\n");
    $("restart").disabled = state.phase === "none";
    $("play-again").disabled = state.phase === "none";
    $("undo").disabled = !state.can_undo;
    $("redo").disabled = !state.can_redo;
    $("new-game").classList.toggle("suggested", state.phase === "none");
    $("play-again").classList.toggle("suggested", state.phase === "over");
    $("trace").textContent = game.trace.split("\n").filter((l) => l.trim() !== "")
      .map((l) => "->" + l).join("\n");
    $("download-trace").disabled = game.trace === "";
    $("download-expected").disabled = game.trace === "";
  }

  function play(k) {
    if (!view || view.phase !== "play" || view.cells[k - 1] !== "") return;
    act(`play(${quote(view.next)},${k})`);
  }

  // New game: asks the names (with the computer: yours; it takes the other side).
  function askNames() {
    const opponent = $("opponent").value;
    const side = $("side").value;
    const [x, o] = view ? view.players.map((p) => p.name) : ["", ""];
    if (opponent) {
      $("first-label").textContent = "Your name (you play " + side + ")";
      $("second-label").textContent = "The computer's name (" + opponent + ")";
      const mine = side === "X" ? x : o;
      $("first-name").value = mine && mine !== computer() ? mine : "";
      $("second-name").value = "Computer";
    } else {
      $("first-label").textContent = "X's name (plays first)";
      $("second-label").textContent = "O's name";
      $("first-name").value = x;
      $("second-name").value = o;
    }
    $("names").showModal();
    $("first-name").focus();
  }

  $("names-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const first = $("first-name").value.trim();
    const second = $("second-name").value.trim();
    $("names").close();
    const opponent = $("opponent").value;
    let names = [first, second];
    game.bots = {};
    if (opponent) {
      game.bots[second] = opponent;
      if ($("side").value === "O") names = [second, first];
    }
    act(`new_game(${quote(names[0])},${quote(names[1])})`);
  });
  $("names-cancel").addEventListener("click", () => $("names").close());

  const actions = {
    "new-game": askNames,
    restart: () => {
      if (!view || view.phase === "none") return askNames();
      const [x, o] = view.players.map((p) => p.name);
      act(`new_game(${quote(x)},${quote(o)})`);
    },
    "play-again": () => act("play_again"),
    undo: () => act("undo"),
    redo: () => act("redo"),
  };
  for (const [id, run] of Object.entries(actions)) $(id).addEventListener("click", run);
  cells.forEach((cell, k) => cell.addEventListener("click", () => play(k + 1)));

  const keys = { n: "new-game", s: "restart", a: "play-again", u: "undo", r: "redo" };
  document.addEventListener("keydown", (event) => {
    if (tictac.typing(event) || $("names").open) return;
    if (event.key >= "1" && event.key <= "9") {
      play(Number(event.key));
    } else if (keys[event.key] && !$(keys[event.key]).disabled) {
      actions[keys[event.key]]();
    } else {
      return;
    }
    event.preventDefault();
  });

  $("download-trace").addEventListener("click", () => {
    tictac.download(`game-${stamp}.txt`, game.trace);
  });
  $("download-expected").addEventListener("click", () => {
    if (view) tictac.download(`game-${stamp}.expected.txt`, view.transcript);
  });

  act();
})();
