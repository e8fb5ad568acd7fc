"use strict";
// The game page. The page holds the trace (the whole record of the game) and
// asks the engine (`tictac.engine`) for the state after it, the computer's
// moves appended. Nothing is kept on the server.

(() => {
  const $ = (id) => document.getElementById(id);
  const cells = [...document.querySelectorAll(".cell")];
  const saved = "tictac.game";

  // The record so far, and the computer players in it (fixed at New game).
  let game = { trace: "", bots: {} };
  let view = null;
  // Both downloads of one state share a name, so they pair up as a test.
  let stamp = tictac.stamp();

  try {
    const kept = JSON.parse(sessionStorage.getItem(saved) || "null");
    if (kept && typeof kept.trace === "string" && typeof kept.bots === "object") game = kept;
  } catch (e) { /* a fresh game */ }

  const quote = (name) => `"${name}"`;
  const computer = (name) => Object.prototype.hasOwnProperty.call(game.bots, name);
  const nameOf = (state, mark) => state.players.find((p) => p.mark === mark).name;
  const other = (mark) => (mark === "X" ? "O" : "X");

  /**
   * Asks for the state after the trace plus `commands`, `bots` answering
   * after the last one; keeps the trace when it ran. Answers the state, or
   * null (the problem is shown). Called only from a task of the queue
   * (`soon`), so one request is in flight at a time and each is made on
   * the state the one before left.
   */
  async function act(commands = [], bots = game.bots) {
    let trace = game.trace;
    if (commands.length) {
      trace += (trace === "" || trace.endsWith("\n") ? "" : "\n") + commands.join("\n") + "\n";
    }
    const request = { trace, bots };
    // `random` chooses by a seed: a fresh one each time makes its next answer
    // random, while its earlier moves stay as the trace records them.
    if (Object.values(bots).includes("random")) request.seed = Math.floor(Math.random() * 2 ** 32);
    const { reply, error } = await tictac.engine("state", request);
    if (error) {
      problem(error);
      return null;
    }
    if (reply.status !== 0) {
      problem("That command cannot be written in a trace:\n" + reply.error);
      return null;
    }
    // Kept only when it changed: a tab's first state must not write over a
    // game another page of the tab stored meanwhile.
    if (reply.trace !== game.trace) {
      stamp = tictac.stamp();
      game.trace = reply.trace;
      save();
    }
    problem("");
    show(reply);
    return reply;
  }

  function save() {
    sessionStorage.setItem(saved, JSON.stringify(game));
  }

  function problem(text) {
    $("problem").textContent = text;
    $("problem").hidden = text === "";
  }

  /** Who is to move once the first `k` entries of the history are done. */
  function nextAfter(state, k) {
    const moves = (entries) => entries.filter((e) => e.mark);
    const done = moves(state.history.slice(0, k));
    if (done.length) return other(done[done.length - 1].mark);
    const all = moves(state.history);
    return all.length ? all[0].mark : state.players.find((p) => p.name === state.next).mark;
  }

  /** A person's entry: Undo takes it back (the computer's answers go with it). */
  const persons = (state, entry) => !entry.mark || !computer(nameOf(state, entry.mark));

  function show(state) {
    const had = document.activeElement;
    view = state;
    $("banner").textContent = state.banner;
    const playing = state.phase === "play";
    state.cells.forEach((mark, k) => {
      const cell = cells[k];
      const won = state.winning.includes(k + 1);
      cell.textContent = mark || String(k + 1);
      cell.className = "cell " + (mark === "X" ? "x" : mark === "O" ? "o" : "free") + (won ? " win" : "");
      cell.disabled = !playing || mark !== "";
      const what = mark ? mark + (won ? ", in the winning line" : "")
        : playing ? "empty, plays for " + state.next : "empty";
      cell.setAttribute("aria-label", `cell ${k + 1}: ${what}`);
    });
    $("lines").textContent = [state.status_line, ...state.score_lines].join("\n");
    $("restart").disabled = state.phase === "none";
    $("play-again").disabled = state.phase === "none";
    // Only what a person did can be undone: taking back the computer's
    // opening alone would have it play again, and lose what Redo had.
    $("undo").disabled = !state.can_undo || (state.history !== null &&
      !state.history.slice(0, state.cursor).some((e) => persons(state, e)));
    $("redo").disabled = !state.can_redo;
    $("new-game").classList.toggle("suggested", state.phase === "none");
    $("play-again").classList.toggle("suggested", state.phase === "over");
    drawHistory(state);
    $("trace").textContent = game.trace.split("\n").filter((l) => l.trim() !== "")
      .map((l) => "->" + l).join("\n");
    $("download-trace").disabled = game.trace === "";
    $("download-expected").disabled = game.trace === "";
    keepFocus(had);
  }

  // The history of the round as the ETF design keeps it: its entries and
  // the cursor. Choosing an entry walks there, undo or redo that many times.
  function drawHistory(state) {
    const list = $("history");
    list.textContent = "";
    if (state.phase === "none") return;
    if (state.history === null) { // past the bound the engine sends
      const item = document.createElement("li");
      item.textContent = `(${state.cursor} entries before the cursor: too many to draw)`;
      return list.append(item);
    }
    const labels = ["Start of the round", ...state.history.map((e) => (e.mark
      ? `${nameOf(state, e.mark)} (${e.mark}) plays ${e.cell}` : "refused: " + e.refused))];
    labels.forEach((label, k) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      if (k === state.cursor) button.setAttribute("aria-current", "step");
      if (k > state.cursor) button.classList.add("undone");
      // A finished round walks nowhere; where the computer would be to move,
      // it would walk on at once.
      button.disabled = state.phase !== "play" || computer(nameOf(state, nextAfter(state, k)));
      button.addEventListener("click", () => soon(() => travel(k)));
      const item = document.createElement("li");
      item.append(button);
      list.append(item);
    });
  }

  function travel(k) {
    if (!view || view.phase !== "play" || k === view.cursor) return null;
    return act(Array(Math.abs(k - view.cursor)).fill(k < view.cursor ? "undo" : "redo"));
  }

  /** Focus that a redraw took away (its button disabled or redrawn) goes somewhere useful. */
  function keepFocus(had) {
    if (!had || had === document.body || (had.isConnected && !had.disabled)) return;
    if (had.closest("#history")) {
      const current = $("history").querySelector('[aria-current="step"]');
      if (current && !current.disabled) return current.focus();
    }
    const from = Math.max(0, cells.indexOf(had));
    const free = [...cells.slice(from), ...cells.slice(0, from)].find((c) => !c.disabled);
    focusOn(free);
  }

  /** Focuses `target`, else where a game goes on: Play again, or New game. */
  function focusOn(target) {
    (target || [$("play-again"), $("new-game")].find((b) => !b.disabled)).focus();
  }

  function play(k) {
    if (!view || view.phase !== "play" || view.cells[k - 1] !== "") return null;
    return act([`play(${quote(view.next)},${k})`]);
  }

  // Every action that asks the engine (a cell, a button, a key, an entry
  // of the history, the names of a new game) is a task of one queue: one
  // made while a request is answered waits its turn, then acts on the game
  // as it is then (a fast double tap, or Undo right after a move, is not
  // lost), or does nothing if it no longer applies there.
  let queue = Promise.resolve();
  function soon(task) {
    queue = queue.then(task).catch((e) => problem("That failed: " + e.message));
  }

  // New game: asks the names (with the computer: yours; it takes the other side).
  let opener = null;
  function askNames() {
    opener = document.activeElement;
    const opponent = $("opponent").value;
    const side = $("side").value;
    const [x, o] = view ? view.players.map((p) => p.name) : ["", ""];
    if (opponent) {
      $("first-label").textContent = "Your name (you play " + side + ")";
      $("second-label").textContent = "The computer's name (" + opponent + ")";
      const mine = side === "X" ? x : o;
      $("first-name").value = mine && !computer(mine) ? mine : "";
      $("second-name").value = "Computer";
    } else {
      $("first-label").textContent = "X's name (plays first)";
      $("second-label").textContent = "O's name";
      $("first-name").value = x;
      $("second-name").value = o;
    }
    names.forEach(checkName);
    $("names").showModal();
    $("first-name").focus();
  }

  // What a name in a trace cannot be, the dialog says, rather than the
  // game after it: only spaces, or (in the trace's "...") a double quote
  // in it or a backslash at its end, either of which ends the string elsewhere.
  const names = [$("first-name"), $("second-name")];
  function checkName(input) {
    const name = input.value.trim();
    const why = input.value !== "" && name === "" ? "A name needs more than spaces."
      : name.includes('"') ? 'A name cannot hold a double quote (").'
        : name.endsWith("\\") ? "A name cannot end with a backslash (\\)." : "";
    input.setCustomValidity(why);
  }
  names.forEach((input) => input.addEventListener("input", () => checkName(input)));

  $("names-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const first = $("first-name").value.trim();
    const second = $("second-name").value.trim();
    opener = null;
    $("names").close();
    const opponent = $("opponent").value;
    let players = [first, second];
    const bots = {};
    if (opponent) {
      bots[second] = opponent;
      if ($("side").value === "O") players = [second, first];
    }
    soon(async () => {
      await startGame(players, bots);
      focusOn(cells.find((c) => !c.disabled));
    });
  });
  $("names-cancel").addEventListener("click", () => $("names").close());
  // Cancelled (the button or Escape): back where it was opened from.
  $("names").addEventListener("close", () => {
    if (opener) focusOn(opener === document.body || opener.disabled ? $("new-game") : opener);
  });

  /** `new_game` with these names; once the game took them, these computer players. */
  async function startGame(players, bots) {
    // Nobody answers this request: if the game refuses the names, the old
    // game goes on as it was, its computer player included.
    const state = await act([`new_game(${quote(players[0])},${quote(players[1])})`], {});
    // A round that starts has an empty history; a refused new_game leaves
    // the old phase, or an entry in the old round's history.
    if (!state || state.phase !== "play" || !state.history || state.history.length !== 0) return;
    game.bots = bots;
    save();
    if (computer(state.next)) await act(); // the computer opens
  }

  // Each runs in its turn of the queue, if its button still applies then.
  const actions = {
    "new-game": askNames,
    restart: () => {
      if (!view || view.phase === "none") return askNames();
      return act([`new_game(${view.players.map((p) => quote(p.name)).join(",")})`]);
    },
    "play-again": () => act(["play_again"]),
    undo: () => act(["undo"]),
    redo: () => act(["redo"]),
  };
  const press = (id) => soon(() => ($(id).disabled ? null : actions[id]()));
  for (const id of Object.keys(actions)) $(id).addEventListener("click", () => press(id));
  cells.forEach((cell, k) => cell.addEventListener("click", () => soon(() => play(k + 1))));

  const keys = { n: "new-game", s: "restart", a: "play-again", u: "undo", r: "redo" };
  document.addEventListener("keydown", (event) => {
    if (tictac.typing(event) || $("names").open) return;
    if (event.key >= "1" && event.key <= "9") {
      soon(() => play(Number(event.key)));
    } else if (keys[event.key]) {
      press(keys[event.key]);
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

  soon(() => act());
})();
