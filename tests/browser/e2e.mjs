// End-to-end test of the pages in a real Chromium, driven by playwright-core:
// served by `tictac serve` (bench/check-serve-browser.sh, BASE_URL its
// http://ADDR:PORT), or the static site opened from disk
// (bench/check-site-browser.sh, BASE_URL file:///DIR of dist/site.sh DIR),
// where every network host is unreachable and any request that is not for
// one of the site's own files fails the test.
//   node e2e.mjs BASE_URL OUT_DIR TICTAC_BINARY
// Screenshots and downloads go to OUT_DIR (under target/), never the repository.
import { chromium } from "playwright-core";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import assert from "node:assert/strict";

// axe-core, evaluated in the pages to audit them (never served by tictac).
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const [base, out, tictac] = process.argv.slice(2);
if (!base || !out || !tictac) {
  console.error("usage: node e2e.mjs BASE_URL OUT_DIR TICTAC_BINARY");
  process.exit(2);
}
mkdirSync(join(out, "downloads"), { recursive: true });
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
// The static site, opened from disk: its two pages are files.
const site = base.startsWith("file:");
const at = site ? { game: base + "/index.html", oracle: base + "/oracle.html" }
  : { game: base + "/", oracle: base + "/oracle" };

/** What `tictac ARGS... FILE` prints for a trace. */
function commandLine(trace, ...args) {
  const file = join(out, "trace.txt");
  writeFileSync(file, trace);
  return commandLineOn(file, ...args).output;
}

/** What `tictac ARGS... FILE` prints for a file, and its exit status. */
function commandLineOn(file, ...args) {
  try {
    return { output: execFileSync(tictac, [...args, file], { encoding: "utf8" }), status: 0 };
  } catch (e) {
    return { output: e.stdout, status: e.status };
  }
}

/** What `tictac -b FILE OUT` writes to OUT (chunks of 100 lines), and its exit status. */
function chunksOn(file) {
  const written = join(out, "chunks.out");
  rmSync(written, { force: true });
  let ran;
  try {
    execFileSync(tictac, ["-b", file, written]);
    ran = 0;
  } catch (e) {
    ran = e.status;
  }
  return { output: readFileSync(written, "utf8"), status: ran };
}

// From disk, every host name resolves to nothing: a page that reached for
// the network would fail here (and is reported below even before that).
const args = ["--no-sandbox", ...(site ? ["--host-resolver-rules=MAP * ~NOTFOUND"] : [])];
const browser = await chromium.launch({ executablePath, args });
const problems = [];
let passed = 0;

async function page(viewport = { width: 1100, height: 900 }, { refusals = false } = {}) {
  const context = await browser.newContext({ viewport, acceptDownloads: true, colorScheme: "light" });
  // A wait that fails, fails in 10 s rather than playwright's 30.
  context.setDefaultTimeout(10_000);
  const p = await context.newPage();
  // Any script error or CSP violation fails the test.
  p.on("pageerror", (e) => problems.push("page error: " + e.message));
  // With `refusals`, the server's 400 or 413 for a request it refuses (the page shows why) is expected.
  p.on("console", (m) => {
    if (m.type() !== "error") return;
    if (refusals && !site && /status of (400 \(Bad Request\)|413 \(Payload Too Large\))/.test(m.text())) return;
    problems.push("console: " + m.text());
  });
  // Everything a page loads is its own: the server's, or the site's files.
  p.on("request", (r) => {
    const own = r.url().startsWith(base + "/");
    if (!own && !r.url().startsWith("blob:") && !r.url().startsWith("data:") && r.url() !== "about:blank") {
      problems.push("a request elsewhere: " + r.url());
    }
  });
  return p;
}

// A failed step is reported and the next one runs (later steps of one page
// may fail with it); the run fails at the end.
let failed = 0;
async function step(name, body) {
  const started = Date.now();
  try {
    await body();
  } catch (e) {
    failed += 1;
    const lines = String(e.message).split("\n");
    const shown = lines.length > 20 ? [...lines.slice(0, 20), `(${lines.length - 20} more lines)`] : lines;
    console.log(`FAIL ${name}\n     ${shown.join("\n     ")}`);
    return;
  }
  passed += 1;
  console.log(`ok   ${name} (${Date.now() - started} ms)`);
}

/** axe-core finds no violation on the page as it stands, light and dark. */
async function audit(p, where) {
  for (const colorScheme of ["light", "dark"]) {
    await p.emulateMedia({ colorScheme });
    if (!(await p.evaluate(() => typeof window.axe === "object"))) await p.evaluate(axeSource);
    const found = await p.evaluate(async (preload) => (await window.axe.run(document, { preload })).violations
      .map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`), !site);
    assert.deepEqual(found, [], `axe on ${where}, ${colorScheme}`);
  }
  await p.emulateMedia({ colorScheme: "light" });
}

/** Every enabled button's text against its background, light and dark: at least 4.5:1. */
async function buttonContrast(p, where) {
  for (const colorScheme of ["light", "dark"]) {
    await p.emulateMedia({ colorScheme });
    const low = await p.evaluate(() => {
      const rgba = (s) => s.match(/[\d.]+/g).map(Number);
      const luminance = ([r, g, b]) => {
        const f = (c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      const background = (el) => {
        for (; el; el = el.parentElement) {
          const c = rgba(getComputedStyle(el).backgroundColor);
          if (c.length < 4 || c[3] === 1) return c;
        }
        return [255, 255, 255];
      };
      return [...document.querySelectorAll("button")]
        .filter((b) => !b.disabled && b.getClientRects().length > 0)
        .map((b) => {
          const [fg, bg] = [luminance(rgba(getComputedStyle(b).color)), luminance(background(b))];
          return [b.id || b.textContent.trim(), (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05)];
        })
        .filter(([, ratio]) => ratio < 4.5)
        .map(([name, ratio]) => `${name}: ${ratio.toFixed(2)}:1`);
    });
    assert.deepEqual(low, [], `buttons under 4.5:1 on ${where}, ${colorScheme}`);
  }
  await p.emulateMedia({ colorScheme: "light" });
}

const banner = (p) => p.locator("#banner").textContent();
const cell = (p, k) => p.locator(`.cell[data-cell="${k}"]`);
async function marks(p) {
  const cells = await p.locator(".cell").allTextContents();
  return cells.map((c) => (c === "X" || c === "O" ? c : "_")).join("");
}
async function waitBanner(p, text) {
  await p.waitForFunction((t) => document.getElementById("banner").textContent === t, text);
}
/** Waits until the board shows `count` marks. */
async function waitMarks(p, count) {
  await p.waitForFunction((n) => [...document.querySelectorAll(".cell")]
    .filter((c) => c.textContent === "X" || c.textContent === "O").length === n, count);
}
async function newGame(p, first, second) {
  await p.click("#new-game");
  await p.fill("#first-name", first);
  await p.fill("#second-name", second);
  await p.click("#names-ok");
}
/** A page of its own on the game, against `opponent` ("" for a person) as `side`. */
async function freshGame(opponent = "", side = "X") {
  const p = await page();
  await p.goto(at.game);
  await waitBanner(p, "start new game");
  await p.selectOption("#opponent", opponent);
  await p.selectOption("#side", side);
  return p;
}
const traceText = (p) => p.locator("#trace").textContent();
const focused = (p) => p.evaluate(() => {
  const e = document.activeElement;
  return e === document.body ? "body" : e.id || (e.dataset.cell ? "cell " + e.dataset.cell : e.tagName);
});

const game = await page();
await game.goto(at.game);

await step("the pages show the version they were built from", async () => {
  const version = execFileSync(tictac, ["-version"], { encoding: "utf8" }).trim();
  await game.waitForFunction(() => document.getElementById("version").textContent !== "");
  assert.equal("tictac " + await game.locator("#version").textContent(), version);
});

await step("the game page opens on the initial state", async () => {
  await waitBanner(game, "start new game");
  assert.equal(await game.locator("#lines").textContent(),
    '  ok:  => start new game\n  0: score for "" (as X)\n  0: score for "" (as O)');
  await audit(game, "the game at the start");
  await buttonContrast(game, "the game at the start (New game suggested)");
});

await step("New game asks the names; clicks play a whole game to a win, its three shown", async () => {
  await game.click("#new-game");
  await audit(game, "the names dialog");
  await game.fill("#first-name", "Ann");
  await game.fill("#second-name", "Bob");
  await game.click("#names-ok");
  await waitBanner(game, "x's turn");
  for (const [k, after] of [[1, "o's turn"], [4, "x's turn"], [2, "o's turn"], [5, "x's turn"], [3, "x won"]]) {
    await cell(game, k).click();
    await waitBanner(game, after);
  }
  assert.equal(await marks(game), "XXXOO____");
  const lines = await game.locator("#lines").textContent();
  assert.match(lines, /^ {2}there is a winner: => play again or start new game\n {2}1: score for "Ann" \(as X\)\n {2}0: score for "Bob" \(as O\)$/);
  const winning = await game.locator(".cell.win").evaluateAll((cs) => cs.map((c) => c.dataset.cell));
  assert.deepEqual(winning, ["1", "2", "3"]);
  assert.equal(await cell(game, 1).getAttribute("aria-label"), "cell 1: X, in the winning line");
  await game.screenshot({ path: join(out, "game.png"), fullPage: true });
  await audit(game, "the game won");
  await buttonContrast(game, "the game won (Play again suggested)");
});

await step("the history lists the round's moves, its cursor on the last", async () => {
  const entries = await game.locator("#history button").allTextContents();
  assert.deepEqual(entries, ["Start of the round", "Ann (X) plays 1", "Bob (O) plays 4",
    "Ann (X) plays 2", "Bob (O) plays 5", "Ann (X) plays 3"]);
  assert.equal(await game.locator('#history [aria-current="step"]').textContent(), "Ann (X) plays 3");
  // A finished round walks nowhere.
  assert.equal(await game.locator("#history button:enabled").count(), 0);
});

await step("the transcript and trace match the command line; downloads make a test", async () => {
  const trace = await traceText(game);
  assert.ok(trace.startsWith('->new_game("Ann","Bob")\n->play("Ann",1)'), trace);
  const [download] = await Promise.all([game.waitForEvent("download"), game.click("#download-trace")]);
  const name = download.suggestedFilename();
  assert.match(name, /^game-\d{4}-\d\d-\d\d-\d{6}\.txt$/);
  await download.saveAs(join(out, "downloads", name));
  const [expected] = await Promise.all([game.waitForEvent("download"), game.click("#download-expected")]);
  assert.equal(expected.suggestedFilename(), name.replace(/\.txt$/, ".expected.txt"));
  await expected.saveAs(join(out, "downloads", expected.suggestedFilename()));
  const saved = readFileSync(join(out, "downloads", name), "utf8");
  assert.equal(readFileSync(join(out, "downloads", expected.suggestedFilename()), "utf8"),
    commandLine(saved, "-b"));
});

await step("Play again, then keys 1-9 play a tie (cat got it)", async () => {
  await game.click("#play-again");
  await game.waitForFunction(() => document.getElementById("banner").textContent.endsWith("'s turn"));
  for (const key of ["1", "2", "3", "5", "4", "6", "8", "7"]) {
    const before = await marks(game);
    await game.keyboard.press(key);
    await game.waitForFunction((b) => [...document.querySelectorAll(".cell")]
      .map((c) => (c.textContent === "X" || c.textContent === "O" ? c.textContent : "_")).join("") !== b, before);
  }
  await game.keyboard.press("9");
  await waitBanner(game, "cat got it");
  assert.equal(await game.locator(".cell.win").count(), 0, "a tie has no winning line");
  await audit(game, "a tie");
});

await step("Undo and Redo (buttons and keys u, r) walk the history", async () => {
  await game.keyboard.press("s"); // Restart: new_game with the same names
  await waitBanner(game, "x's turn");
  await game.keyboard.press("5");
  await waitBanner(game, "o's turn");
  await game.click("#undo");
  await waitBanner(game, "x's turn");
  assert.equal(await marks(game), "_________");
  await game.keyboard.press("r");
  await waitBanner(game, "o's turn");
  assert.equal(await marks(game), "____X____");
  await game.keyboard.press("u");
  await waitBanner(game, "x's turn");
  await audit(game, "a game in play, a move undone");
});

await step("choosing a history entry walks there: undo or redo that many times", async () => {
  for (const [n, k] of ["1", "2", "3"].entries()) {
    await game.keyboard.press(k);
    await waitMarks(game, n + 1);
  }
  const before = await traceText(game);
  await game.getByRole("button", { name: "Start of the round" }).click();
  await waitMarks(game, 0);
  assert.equal(await traceText(game), before + "\n->undo\n->undo\n->undo");
  assert.equal(await game.locator('#history [aria-current="step"]').textContent(), "Start of the round");
  assert.equal(await game.locator("#history button.undone").count(), 3);
  await game.getByRole("button", { name: "Bob (O) plays 2" }).click();
  await waitMarks(game, 2);
  assert.equal(await marks(game), "XO_______");
  assert.ok((await traceText(game)).endsWith("->undo\n->redo\n->redo"));
  assert.equal(await game.locator('#history [aria-current="step"]').textContent(), "Bob (O) plays 2");
  await audit(game, "the history walked back");
});

await step("against perfect, Undo takes back your move and the computer's", async () => {
  await game.selectOption("#opponent", "perfect");
  await game.click("#new-game");
  assert.equal(await game.locator("#second-name").inputValue(), "Computer");
  await game.fill("#first-name", "Ann");
  await game.click("#names-ok");
  await waitBanner(game, "x's turn");
  await cell(game, 1).click();
  await waitMarks(game, 2);
  assert.equal(await banner(game), "x's turn");
  const board = await marks(game);
  assert.equal(board[0], "X");
  // Only where a person is to move can the history go: after Ann's move the computer would walk on.
  const enabled = await game.locator("#history button").evaluateAll((bs) => bs.map((b) => !b.disabled));
  assert.deepEqual(enabled, [true, false, true]);
  await game.click("#undo");
  await waitMarks(game, 0);
  await game.click("#redo");
  await game.waitForFunction((b) => [...document.querySelectorAll(".cell")]
    .map((c) => (c.textContent === "X" || c.textContent === "O" ? c.textContent : "_")).join("") === b, board);
  const trace = await traceText(game);
  assert.ok(trace.endsWith("->undo\n->undo\n->redo\n->redo"), trace);
  await audit(game, "a game against perfect");
});

await step("playing O against the computer: it opens", async () => {
  await game.selectOption("#opponent", "elm");
  await game.selectOption("#side", "O");
  await newGame(game, "Ann", "Hal");
  await game.waitForFunction(() => document.querySelector('.cell[data-cell="5"]').textContent === "X");
  assert.equal(await banner(game), "o's turn");
});

await step("against random, the computer answers and the record replays", async () => {
  await game.selectOption("#opponent", "random");
  await game.selectOption("#side", "X");
  await newGame(game, "Ann", "Rex");
  await waitBanner(game, "x's turn");
  await cell(game, 5).click();
  await waitMarks(game, 2);
  const [saved] = await Promise.all([game.waitForEvent("download"), game.click("#download-trace")]);
  const [expected] = await Promise.all([game.waitForEvent("download"), game.click("#download-expected")]);
  const trace = readFileSync(await saved.path(), "utf8");
  assert.ok(/play\("Rex",[1-9]\)\n$/.test(trace), trace);
  assert.equal(readFileSync(await expected.path(), "utf8"), commandLine(trace, "-b"));
});

// ---- The bugs of issue 37, each on a page of its own.

await step("a New game the game refuses leaves the computer as it was (person to computer)", async () => {
  const p = await freshGame();
  await newGame(p, "Ann", "Bob");
  await waitBanner(p, "x's turn");
  await p.selectOption("#opponent", "tla");
  await newGame(p, "1x", "Bob");
  await p.waitForFunction(() => document.getElementById("lines").textContent.startsWith("  name must start"));
  await cell(p, 1).click();
  await waitBanner(p, "o's turn");
  assert.equal(await marks(p), "X________", "Bob, a person, did not move by himself");
  await p.close();
});

await step("a New game the game refuses leaves the computer as it was (computer to person)", async () => {
  const p = await freshGame("tla");
  await newGame(p, "Ann", "Hal");
  await waitBanner(p, "x's turn");
  await p.selectOption("#opponent", "");
  await newGame(p, "1x", "Bob");
  await p.waitForFunction(() => document.getElementById("lines").textContent.startsWith("  name must start"));
  await cell(p, 1).click();
  await waitMarks(p, 2);
  assert.equal(await banner(p), "x's turn", "Hal, the computer, still answers");
  await p.close();
});

await step("playing O against the computer, Undo cannot take back its opening alone", async () => {
  const p = await freshGame("elm", "O");
  await newGame(p, "Ann", "Hal");
  await waitMarks(p, 1);
  assert.ok(await p.locator("#undo").isDisabled(), "Undo at the start would replay the opening");
  await cell(p, 1).click();
  await waitMarks(p, 3);
  await p.click("#undo");
  await waitMarks(p, 1);
  assert.ok(await p.locator("#redo").isEnabled());
  assert.ok(await p.locator("#undo").isDisabled(), "a second Undo would replay the opening, losing Redo");
  const trace = await traceText(p);
  await p.keyboard.press("u");
  await p.keyboard.press("r");
  await waitMarks(p, 3);
  assert.equal(await traceText(p), trace + "\n->redo\n->redo");
  await audit(p, "a game as O against elm");
  await p.close();
});

await step("a round too long to draw says so, and Undo still works", async () => {
  const p = await page();
  await p.goto(at.game);
  await waitBanner(p, "start new game");
  const trace = 'new_game("Ann","Bob")\n' + 'play("Bob",1)\n'.repeat(1001);
  await p.evaluate((t) => sessionStorage.setItem("tictac.game", JSON.stringify({ trace: t, bots: {} })), trace);
  await p.reload();
  await p.waitForFunction(() => document.getElementById("history").textContent !== "");
  assert.equal(await p.locator("#history").textContent(), "(1001 entries before the cursor: too many to draw)");
  await p.click("#undo");
  await p.waitForFunction(() => document.getElementById("trace").textContent.endsWith("->undo"));
  await p.close();
});

await step("the transcript boxes are no live regions; their labels are allowed", async () => {
  const p = await page();
  await p.goto(at.oracle + "#trace=" + encodeURIComponent('new_game("Ann","Bob")\n'));
  await p.waitForFunction(() => document.getElementById("output").textContent !== "");
  const live = await p.evaluate(() => ["output", "diff"].map((id) => document.getElementById(id))
    .filter((e) => e.closest('[aria-live], [role="status"], [role="log"], [role="alert"]')).map((e) => e.id));
  assert.deepEqual(live, []);
  await audit(p, "the playground after a run");
  await p.close();
});

await step("focus stays on the board after the names dialog and after a cell played with Enter", async () => {
  const p = await freshGame();
  await p.keyboard.press("n");
  await p.fill("#first-name", "Ann");
  await p.fill("#second-name", "Bob");
  await p.locator("#second-name").press("Enter");
  await waitBanner(p, "x's turn");
  assert.equal(await focused(p), "cell 1");
  await cell(p, 5).focus();
  await p.keyboard.press("Enter");
  await waitBanner(p, "o's turn");
  assert.equal(await focused(p), "cell 6");
  await p.keyboard.press("n");
  await p.keyboard.press("Escape");
  assert.equal(await focused(p), "cell 6", "a cancelled dialog gives focus back");
  await p.close();
});

await step("names of only spaces are refused by the dialog", async () => {
  const p = await freshGame();
  await newGame(p, "   ", "Bob");
  assert.ok(await p.locator("#names").evaluate((d) => d.open), "the dialog stays open");
  assert.equal(await p.locator("#first-name").evaluate((i) => i.validationMessage), "A name needs more than spaces.");
  assert.equal(await traceText(p), "");
  await p.fill("#first-name", "Ann");
  await p.click("#names-ok");
  await waitBanner(p, "x's turn");
  await p.close();
});

await step("a name holding a double quote or ending with a backslash is refused by the dialog, saying why (site-findings 8)", async () => {
  const p = await freshGame();
  for (const [name, says] of [['An"n', 'A name cannot hold a double quote (").'],
    ["Ann\\ ", "A name cannot end with a backslash (\\)."]]) {
    await newGame(p, name, "Bob");
    assert.ok(await p.locator("#names").evaluate((d) => d.open), `the dialog stays open for ${name}`);
    assert.equal(await p.locator("#first-name").evaluate((i) => i.validationMessage), says);
    await p.click("#names-cancel");
  }
  assert.equal(await traceText(p), "");
  // A backslash inside a name is fine.
  await newGame(p, "A\\nn", "Bob");
  await waitBanner(p, "x's turn");
  assert.equal(await traceText(p), '->new_game("A\\nn","Bob")');
  await p.close();
});

await step("cells, keys and buttons used during a request wait their turn in one queue (site-attack 6)", async () => {
  const p = await freshGame();
  await newGame(p, "Ann", "Bob");
  await waitBanner(p, "x's turn");
  // Each request now takes 300 ms: what comes meanwhile is queued behind it.
  await p.evaluate(() => {
    const real = tictac.engine;
    tictac.engine = async (call, request) => {
      await new Promise((done) => setTimeout(done, 300));
      return real(call, request);
    };
  });
  // A move, and Undo pressed while it is answered (Undo was not yet enabled).
  await p.keyboard.press("5");
  await p.keyboard.press("u");
  await p.waitForFunction(() => document.getElementById("trace").textContent.endsWith("->undo"));
  assert.equal(await marks(p), "_________");
  // Redo, and a cell clicked while it is answered.
  await p.evaluate(() => {
    document.getElementById("redo").click();
    document.querySelector('.cell[data-cell="3"]').click();
  });
  await waitMarks(p, 2);
  assert.equal(await marks(p), "__O_X____");
  assert.ok((await traceText(p)).endsWith('->redo\n->play("Bob",3)'), await traceText(p));
  await p.close();
});

await step("both pages fit a phone-sized screen; nothing is cut off", async () => {
  const phone = await page({ width: 375, height: 740 });
  await phone.goto(at.game);
  await waitBanner(phone, "start new game");
  const width = await phone.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 375, `the page is ${width} px wide on a 375 px screen`);
  const box = await phone.locator("#board").boundingBox();
  assert.ok(box.width >= 250 && box.x >= 0 && box.x + box.width <= 375, JSON.stringify(box));
  await newGame(phone, "Ann", "Bob");
  for (const k of [1, 4, 2, 5, 3]) await cell(phone, k).click();
  await waitBanner(phone, "x won");
  const cut = (id) => phone.evaluate((i) => {
    const e = document.getElementById(i);
    return e.scrollWidth > e.clientWidth;
  }, id);
  assert.equal(await cut("lines"), false, "the game-over status line is cut off");
  await phone.screenshot({ path: join(out, "game-phone.png"), fullPage: true });
  await audit(phone, "the game won, on a phone");
  await phone.goto(at.oracle + "#trace=" + encodeURIComponent('new_game("A very long name indeed, longer than a phone","Bob")\n'));
  await phone.waitForFunction(() => document.getElementById("output").textContent !== "");
  const oracleWidth = await phone.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(oracleWidth <= 375, `the playground is ${oracleWidth} px wide on a 375 px screen`);
  await phone.screenshot({ path: join(out, "oracle-phone.png"), fullPage: true });
  const error = 'new_game("Ann","Bob")\nplay("Ann", 5) play("Bob", 10) play("Carol", 11)\n';
  await phone.goto("about:blank");
  await phone.goto(at.oracle + "#trace=" + encodeURIComponent(error));
  await phone.waitForFunction(() => document.getElementById("status").textContent.includes("exit status 1"));
  assert.equal(await phone.locator("#output").textContent(), commandLine(error, "-b"));
  assert.equal(await cut("output"), false, "the type error's long lines are cut off");
  await audit(phone, "the playground's type error, on a phone");
  await phone.close();
});

const oracle = await page();
const sample = 'new_game("Ann","Bob")\nplay("Ann",5) play("Bob",5)\nundo\nplay("Bob", 10)\n';

await step("the playground runs a trace and shows what tictac -b prints", async () => {
  await oracle.goto(at.oracle);
  await audit(oracle, "the playground at the start");
  await oracle.fill("#trace", 'new_game("Ann","Bob")\nplay("Ann",5) play("Bob",5)\nundo\n');
  await oracle.click("#run");
  await oracle.waitForFunction(() => document.getElementById("output").textContent !== "");
  assert.equal(await oracle.locator("#output").textContent(),
    commandLine('new_game("Ann","Bob")\nplay("Ann",5) play("Bob",5)\nundo\n', "-b"));
  await buttonContrast(oracle, "the playground");
});

await step("Copy and Download give the transcript as printed", async () => {
  const printed = commandLine('new_game("Ann","Bob")\nplay("Ann",5) play("Bob",5)\nundo\n', "-b");
  const [download] = await Promise.all([oracle.waitForEvent("download"), oracle.click("#download-output")]);
  assert.match(download.suggestedFilename(), /^transcript-\d{4}-\d\d-\d\d-\d{6}\.txt$/);
  assert.equal(readFileSync(await download.path(), "utf8"), printed);
  await oracle.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await oracle.click("#copy-output");
  await oracle.waitForFunction(() => document.getElementById("copied").textContent === "Copied.");
  assert.equal(await oracle.evaluate(() => navigator.clipboard.readText()), printed);
});

await step("a type error shows the message with exit status 1 (Ctrl+Enter runs)", async () => {
  await oracle.fill("#trace", sample);
  await oracle.locator("#trace").press("Control+Enter");
  await oracle.waitForFunction(() => document.getElementById("status").textContent.includes("exit status 1"));
  assert.equal(await oracle.locator("#output").textContent(), commandLine(sample, "-b"));
  await audit(oracle, "the playground's type error");
});

await step("window mode and -l print what -w and -l print", async () => {
  const trace = 'new_game("Ann","Bob")\nplay("Ann",1)\nplay("Bob",2)\nplay("Ann",3)\n';
  await oracle.fill("#trace", trace);
  await oracle.selectOption("#mode", "window");
  await oracle.fill("#start", "2");
  await oracle.fill("#end", "4");
  await oracle.click("#run");
  await oracle.waitForFunction(() => document.getElementById("output").textContent.startsWith("  ok: => Ann"));
  assert.equal(await oracle.locator("#output").textContent(), commandLine(trace, "-w", "2", "4"));
  await audit(oracle, "the playground's window mode");
  await oracle.selectOption("#mode", "last");
  await oracle.click("#run");
  await oracle.waitForFunction((t) => document.getElementById("output").textContent === t, commandLine(trace, "-l"));
});

await step("the address holds the trace: a link reproduces the run", async () => {
  await oracle.selectOption("#mode", "b");
  await oracle.fill("#trace", sample);
  await oracle.click("#run");
  const link = oracle.url();
  assert.ok(link.includes("#trace="), link);
  const again = await page();
  await again.goto(link);
  await again.waitForFunction(() => document.getElementById("output").textContent !== "");
  assert.equal(await again.locator("#trace").inputValue(), sample);
  assert.equal(await again.locator("#output").textContent(), commandLine(sample, "-b"));
  await again.close();
});

await step("an expected output shows PASS, or a coloured diff", async () => {
  const trace = 'new_game("Ann","Bob")\nplay("Ann",5)\n';
  const right = commandLine(trace, "-b");
  await oracle.fill("#trace", trace);
  await oracle.click("#run");
  await oracle.waitForFunction((t) => document.getElementById("output").textContent === t, right);
  await oracle.fill("#expected", right);
  await oracle.waitForFunction(() => document.getElementById("verdict").textContent.startsWith("PASS"));
  await audit(oracle, "the playground's PASS");
  await oracle.fill("#expected", right.replace("Bob plays next", "Ann plays next"));
  await oracle.waitForFunction(() => document.getElementById("verdict").textContent.startsWith("FAIL"));
  const removed = await oracle.locator("#diff .del").allTextContents();
  const added = await oracle.locator("#diff .add").allTextContents();
  assert.ok(removed.some((l) => l.includes("Ann plays next")), removed.join(""));
  assert.ok(added.some((l) => l.includes("Bob plays next")), added.join(""));
  await oracle.screenshot({ path: join(out, "oracle.png"), fullPage: true });
  await audit(oracle, "the playground's diff");
});

await step("past its bound of edits the diff says it gives up, and where the first difference is", async () => {
  const right = await oracle.locator("#output").textContent();
  const lines = right.split("\n");
  const wrong = [...lines.slice(0, 3), ...Array.from({ length: 2100 }, (_, k) => `line ${k}`)].join("\n");
  // Set at once (fill types 2,000 lines slowly); the page hears one input.
  await oracle.locator("#expected").evaluate((e, text) => {
    e.value = text;
    e.dispatchEvent(new Event("input"));
  }, wrong);
  await oracle.waitForFunction(() => document.getElementById("diff").textContent.startsWith("(no diff"));
  assert.equal(await oracle.locator("#diff").textContent(),
    "(no diff shown: more than 2,000 lines would be added or removed, past what this page compares; " +
    "the first difference is on line 4)");
});

await step("the computer players (tla, elm, perfect) answer as tictac -b --bot does", async () => {
  for (const strategy of ["tla", "elm", "perfect"]) {
    const p = await freshGame(strategy);
    await newGame(p, "Ann", "Hal");
    await waitBanner(p, "x's turn");
    for (const [k, marks] of [[1, 2], [3, 4]]) {
      if (await p.locator(`.cell[data-cell="${k}"]`).textContent() !== "") continue;
      await cell(p, k).click();
      await waitMarks(p, marks);
    }
    // The person's commands alone, run with the same bot on the command line.
    const [saved] = await Promise.all([p.waitForEvent("download"), p.click("#download-trace")]);
    const trace = readFileSync(await saved.path(), "utf8");
    const person = trace.split("\n").filter((l) => !l.startsWith('play("Hal"')).join("\n");
    const [expected] = await Promise.all([p.waitForEvent("download"), p.click("#download-expected")]);
    assert.equal(readFileSync(await expected.path(), "utf8"), commandLine(person, "-b", "--bot", `Hal=${strategy}`),
      strategy);
    await p.close();
  }
});

await step("the playground matches tictac -b on the whole course suite, each file run byte for byte", async () => {
  const course = process.env.COURSE || "acceptance/course";
  const traces = readdirSync(course).filter((f) => f.endsWith(".txt") && !f.endsWith(".expected.txt")).sort();
  assert.ok(traces.length >= 40, `${traces.length} traces in ${course}`);
  const p = await page();
  await p.goto(at.oracle);
  for (const mode of ["b", "chunks"]) {
    await p.selectOption("#mode", mode);
    for (const name of traces) {
      const file = join(course, name);
      const want = mode === "b" ? commandLineOn(file, "-b") : chunksOn(file);
      await p.evaluate(() => { document.getElementById("status").textContent = ""; });
      await p.setInputFiles("#trace-file", file);
      await p.waitForFunction(() => !["", "(running…)"].includes(document.getElementById("status").textContent));
      assert.equal(await p.locator("#output").textContent(), want.output, `${mode} ${name}`);
      assert.equal(await p.locator("#status").textContent(),
        want.status === 0 ? "(exit status 0)" : "(exit status 1: the trace has an error)", `${mode} ${name}`);
    }
  }
  await p.close();
});

await step("a trace file keeps its CR LF and bytes that are not UTF-8; the download is the bytes printed", async () => {
  const p = await page();
  await p.goto(at.oracle);
  const bytes = Buffer.concat([Buffer.from('new_game("A'), Buffer.from([0xff]), Buffer.from('n","Bob")\r\nplay("Ann",5)\r\n')]);
  const file = join(out, "bytes.txt");
  writeFileSync(file, bytes);
  const want = execFileSync(tictac, ["-b", file]);
  await p.setInputFiles("#trace-file", file);
  if (!site) {
    // The server's API takes text: it says so, and where to run the file.
    await p.waitForFunction(() => !document.getElementById("problem").hidden);
    assert.match(await p.locator("#problem").textContent(), /not UTF-8 text/);
    await p.close();
    return;
  }
  await p.waitForFunction(() => !["", "(running…)"].includes(document.getElementById("status").textContent));
  assert.match(await p.locator("#trace-source").textContent(), /^Running the file bytes\.txt \(38 bytes\)/);
  assert.equal(await p.locator("#output").textContent(), new TextDecoder().decode(want));
  const [download] = await Promise.all([p.waitForEvent("download"), p.click("#download-output")]);
  assert.ok(readFileSync(await download.path()).equals(want), "the download is what tictac -b printed");
  // Edited, the trace runs as text again.
  await p.fill("#trace", 'new_game("Ann","Bob")\r\n');
  assert.ok(await p.locator("#trace-source").isHidden());
  await p.close();
});

await step("a trace file with a UTF-8 byte order mark fails as tictac -b fails it, its hint on standard error (site-findings 1)", async () => {
  const p = await page();
  await p.goto(at.oracle);
  const file = join(out, "bom.txt");
  writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('new_game("Ann","Bob")\nplay("Ann",5)\n')]));
  const want = commandLineOn(file, "-b");
  assert.equal(want.status, 1);
  await p.setInputFiles("#trace-file", file);
  await p.waitForFunction(() => !["", "(running…)"].includes(document.getElementById("status").textContent));
  assert.equal(await p.locator("#output").textContent(), want.output);
  assert.equal(await p.locator("#status").textContent(), "(exit status 1: the trace has an error)");
  // What tictac -b writes on standard error, how to save the file as plain UTF-8 (site-attack 4).
  const said = spawnSync(tictac, ["-b", file], { encoding: "utf8" }).stderr;
  assert.match(said, /begins with a UTF-8 byte order mark/);
  assert.equal(await p.locator("#stderr").textContent(), said.replace(file, "the trace"));
  await audit(p, "the playground's standard error");
  // The text shown keeps the mark: edited, it fails as the file does.
  assert.ok((await p.locator("#trace").inputValue()).startsWith("\ufeff"), "the trace shown lost its BOM");
  await p.close();
});

await step("a window's bounds refused show tictac -w's two lines and exit status 2 (site-findings 5)", async () => {
  const p = await page(undefined, { refusals: true });
  await p.goto(at.oracle);
  const trace = 'new_game("Ann","Bob")\nplay("Ann",1)\n';
  await p.fill("#trace", trace);
  await p.selectOption("#mode", "window");
  for (const [start, end] of [["5", "2"], ["abc", "_"]]) {
    await p.fill("#start", start);
    await p.fill("#end", end);
    await p.evaluate(() => { document.getElementById("status").textContent = ""; });
    await p.click("#run");
    await p.waitForFunction(() => !["", "(running…)"].includes(document.getElementById("status").textContent));
    const file = join(out, "window.txt");
    writeFileSync(file, trace);
    const want = commandLineOn(file, "-w", start, end);
    assert.equal(want.status, 2);
    assert.equal(await p.locator("#output").textContent(), want.output, `-w ${start} ${end}`);
    assert.equal(await p.locator("#status").textContent(), "(exit status 2: tictac -w refuses these bounds)");
  }
  await audit(p, "the playground's refused window");
  await p.close();
});

await step("an event over 1 MiB shows tictac -b's message on standard error and exit status 2 (site-attack 2)", async () => {
  const p = await page(undefined, { refusals: true });
  await p.goto(at.oracle);
  const file = join(out, "long-event.txt");
  writeFileSync(file, 'new_game("Ann","Bob")\nplay("Ann",5)\nnew_game("' + "N".repeat(1 << 20) + '","B")\n');
  const want = commandLineOn(file, "-b");
  assert.equal(want.status, 2);
  await p.setInputFiles("#trace-file", file);
  if (!site) {
    // The server takes bodies of up to 1 MiB: it says so, and where to run the trace.
    await p.waitForFunction(() => !document.getElementById("problem").hidden);
    assert.match(await p.locator("#problem").textContent(), /over 1 MiB; run a trace this long with the command line/);
    await p.close();
    return;
  }
  await p.waitForFunction(() => !["", "(running…)"].includes(document.getElementById("status").textContent));
  // Nothing on standard output, the message on standard error (SPEC §5).
  assert.equal(want.output, "");
  assert.equal(await p.locator("#output").textContent(), "");
  const said = spawnSync(tictac, ["-b", file], { encoding: "utf8" }).stderr;
  assert.match(said, /is longer than 1 MiB/);
  assert.equal(await p.locator("#stderr").textContent(), said.replace(file, "the trace"));
  assert.equal(await p.locator("#status").textContent(), "(exit status 2: tictac refuses this trace)");
  assert.ok(await p.locator("#problem").isHidden(), "an engine error shown beside the message");
  await p.close();
});

await step("a 9 MB trace file runs off the page's thread, shown in part, saying running…, its transcript's start shown (site-attack 6)", async () => {
  const p = await page();
  await p.goto(at.oracle);
  const file = join(out, "long-file.txt");
  const lines = 600_000;
  writeFileSync(file, 'new_game("Ann","Bob")\n' + 'play("Ann",10)\n'.repeat(lines));
  // What the page's thread does meanwhile: the statuses it shows, and the
  // longest time it was kept from its timers.
  await p.evaluate(() => {
    window.seen = [];
    const status = document.getElementById("status");
    new MutationObserver(() => window.seen.push(status.textContent))
      .observe(status, { childList: true, characterData: true, subtree: true });
    window.gap = 0;
    let last = performance.now();
    setInterval(() => {
      const now = performance.now();
      window.gap = Math.max(window.gap, now - last);
      last = now;
    }, 20);
  });
  const started = Date.now();
  await p.setInputFiles("#trace-file", file);
  await p.waitForFunction(() => document.getElementById("trace-source").textContent !== "");
  const box = await p.locator("#trace").evaluate((t) => ({ length: t.value.length, readOnly: t.readOnly }));
  assert.deepEqual(box, { length: 64 * 1024, readOnly: true }, "the box holds the file's start, read-only");
  assert.equal(await p.locator("#trace-source").textContent(), "Running the file long-file.txt (9,000,022 bytes) " +
    "as it is, byte for byte; the box shows its first 65,536 bytes only. The page's address holds the mode only, not the file.");
  if (!site) {
    // Over the server's 1 MiB, refused by the page without sending it.
    await p.waitForFunction(() => !document.getElementById("problem").hidden);
    assert.match(await p.locator("#problem").textContent(), /over 1 MiB; run a trace this long with the command line/);
    await p.close();
    return;
  }
  await p.waitForFunction(() => document.getElementById("status").textContent.includes("exit status"), undefined,
    { timeout: 120_000 });
  const elapsed = Date.now() - started;
  const { seen, gap } = await p.evaluate(() => ({ seen: window.seen, gap: window.gap }));
  assert.ok(seen.includes("(running…)"), seen.join(" | "));
  assert.ok(gap < elapsed / 2, `the page's thread stopped ${Math.round(gap)} ms of the run's ${elapsed} ms`);
  assert.equal(await p.locator("#status").textContent(), "(exit status 1: the trace has an error)");
  let printed;
  try {
    printed = execFileSync(tictac, ["-b", file], { encoding: "utf8", maxBuffer: 128 << 20 });
  } catch (e) {
    printed = e.stdout;
  }
  assert.equal(await p.locator("#output").textContent(), printed.slice(0, 256 * 1024));
  assert.equal(await p.locator("#output-cut").textContent(), `The transcript is ${printed.length.toLocaleString("en")} ` +
    "characters long: the page shows the first 262,144; Copy and Download give it whole.");
  await audit(p, "the playground with a long file");
  // Back to a trace of one's own.
  await p.click("#trace-clear");
  const cleared = await p.locator("#trace").evaluate((t) => ({ value: t.value, readOnly: t.readOnly }));
  assert.deepEqual(cleared, { value: "", readOnly: false });
  assert.ok(await p.locator("#trace-source").isHidden());
  await p.close();
});

await step("past 64 KiB the address holds no trace, says so, and a reload runs no older one (site-findings 3)", async () => {
  const p = await page();
  await p.goto(at.oracle);
  await p.fill("#trace", sample);
  await p.click("#run");
  await p.waitForFunction(() => !["", "(running…)"].includes(document.getElementById("status").textContent));
  assert.ok(p.url().includes("#trace="), p.url());
  const big = 'new_game("Ann","Bob")\n' + "undo\n".repeat(14000);
  // Set at once (fill types slowly); the page hears one input.
  await p.locator("#trace").evaluate((e, text) => {
    e.value = text;
    e.dispatchEvent(new Event("input"));
  }, big);
  await p.waitForFunction(() => !document.getElementById("address-note").hidden);
  assert.ok(!p.url().includes("trace="), "the address still holds a trace");
  await p.reload();
  await p.waitForFunction(() => document.getElementById("mode").value === "b");
  await p.waitForTimeout(500);
  assert.equal(await p.locator("#status").textContent(), "", "a reload ran a trace");
  assert.notEqual(await p.locator("#trace").inputValue(), sample, "a reload brought back the older trace");
  await audit(p, "the playground with a trace too long for the address");
  await p.close();
});

/** Waits until the playground shows a run's exit status. */
const finished = (p) => p.waitForFunction(() => document.getElementById("status").textContent.includes("exit status"));
/** The trace the page's address holds, or null. */
const addressTrace = (p) => new URLSearchParams(new URL(p.url()).hash.slice(1)).get("trace");
/** Puts `text` in the trace box at once, as a paste does (fill types slowly); the page hears one input. */
const paste = (p, text) => p.locator("#trace").evaluate((e, t) => {
  e.value = t;
  e.dispatchEvent(new Event("input"));
}, text);

await step("a trace file chosen leaves the address its mode only: a reload or a link runs no other trace (site-attack 2)", async () => {
  const p = await page();
  await p.goto(at.oracle + "#trace=" + encodeURIComponent(sample));
  await finished(p);
  const file = join(out, "crlf.txt");
  writeFileSync(file, 'new_game("Ann","Bob")\r\nplay("Ann",5)\r\n');
  await p.evaluate(() => { document.getElementById("status").textContent = ""; });
  await p.setInputFiles("#trace-file", file);
  await finished(p);
  assert.equal(await p.locator("#status").textContent(), "(exit status 0)");
  assert.equal(new URL(p.url()).hash, "#mode=b", "the address kept the text trace from before");
  assert.match(await p.locator("#trace-source").textContent(), /The page's address holds the mode only, not the file\.$/);
  // A mode chosen then writes the mode, not the file's text as decoded.
  await p.selectOption("#mode", "last");
  assert.equal(new URL(p.url()).hash, "#mode=last");
  assert.ok(await p.locator("#address-note").isHidden());
  await p.reload();
  await p.waitForFunction(() => document.getElementById("mode").value === "last");
  await p.waitForTimeout(500);
  assert.equal(await p.locator("#status").textContent(), "", "a reload ran a trace");
  await p.close();
});

await step("an edit reloaded before typing paused is kept, and runs (site-attack 1)", async () => {
  const p = await page();
  await p.goto(at.oracle + "#trace=" + encodeURIComponent(sample));
  await finished(p);
  const edited = 'new_game("Ann","Bob")\nplay("Ann",5) play("Bob",1)\n';
  // The address is rewritten 300 ms after the last keystroke: the reload comes first.
  await paste(p, edited);
  await p.reload();
  await p.waitForFunction((t) => document.getElementById("output").textContent === t, commandLine(edited, "-b"));
  assert.equal(await p.locator("#trace").inputValue(), edited);
  assert.equal(addressTrace(p), edited);
  await p.close();
});

await step("back, forward and a link within the page run the address's trace (site-attack 3, 4)", async () => {
  const p = await page();
  const first = 'new_game("Ann","Bob")\nplay("Ann",5)\n';
  const second = 'new_game("Ann","Bob")\nplay("Ann",10)\n';
  const [one, two] = [first, second].map((trace, k) => {
    const file = join(out, `hash-${k}.txt`);
    writeFileSync(file, trace);
    return commandLineOn(file, "-b");
  });
  assert.deepEqual([one.status, two.status], [0, 1]);
  const shows = (want) => p.waitForFunction(({ output, status }) =>
    document.getElementById("output").textContent === output &&
    document.getElementById("status").textContent === status, want);
  await p.goto(at.oracle + "#trace=" + encodeURIComponent(first));
  await shows({ output: one.output, status: "(exit status 0)" });
  await p.evaluate((hash) => { location.hash = hash; }, "trace=" + encodeURIComponent(second));
  await shows({ output: two.output, status: "(exit status 1: the trace has an error)" });
  await p.goBack();
  await shows({ output: one.output, status: "(exit status 0)" });
  assert.equal(await p.locator("#trace").inputValue(), first);
  await p.goForward();
  await shows({ output: two.output, status: "(exit status 1: the trace has an error)" });
  // Past 64 KiB the page says the address does not hold the trace; a trace from the address hides that again.
  await paste(p, 'new_game("Ann","Bob")\n' + "undo\n".repeat(14000));
  await p.waitForFunction(() => !document.getElementById("address-note").hidden);
  await p.evaluate((hash) => { location.hash = hash; }, "trace=" + encodeURIComponent(first));
  await shows({ output: one.output, status: "(exit status 0)" });
  assert.ok(await p.locator("#address-note").isHidden(), "the note on a long trace stayed");
  await p.close();
});

await step("the address holds a trace of at most 64 KiB in UTF-8, not 64 Ki characters (site-attack 5)", async () => {
  const p = await page();
  await p.goto(at.oracle);
  // 18 + 2 × 32,759 = 65,536 bytes, 32,777 characters.
  const most = 'new_game("A' + "é".repeat(32759) + '","B")\n';
  assert.equal(Buffer.byteLength(most), 64 * 1024);
  await paste(p, most);
  await p.waitForFunction((t) => new URLSearchParams(location.hash.slice(1)).get("trace") === t, most);
  assert.ok(await p.locator("#address-note").isHidden());
  await paste(p, most.replace("A", "Ab"));
  await p.waitForFunction(() => !document.getElementById("address-note").hidden);
  assert.equal(addressTrace(p), null, "a trace of 65,537 bytes is in the address");
  await p.close();
});

await step("cells clicked while a move is answered are played in turn, none lost (site-findings 7)", async () => {
  const p = await freshGame();
  await newGame(p, "Ann", "Bob");
  await waitBanner(p, "x's turn");
  // Three clicks at once: the second and third come while the first is answered.
  await p.evaluate(() => {
    for (const k of [1, 2, 3]) document.querySelector(`.cell[data-cell="${k}"]`).click();
  });
  await waitMarks(p, 3);
  assert.equal(await marks(p), "XOX______");
  await p.close();
});

await step("at 320 px neither page scrolls sideways (long names in the history, file inputs) (site-findings 6)", async () => {
  const p = await page({ width: 320, height: 568 });
  await p.goto(at.game);
  await waitBanner(p, "start new game");
  await newGame(p, "Bartholomew_the_Magnificent_XIV", "Bob");
  await waitBanner(p, "x's turn");
  for (const [k, n] of [[1, 1], [4, 2]]) {
    await cell(p, k).click();
    await waitMarks(p, n);
  }
  const gameWidth = await p.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(gameWidth <= 320, `the game is ${gameWidth} px wide on a 320 px screen`);
  await p.goto(at.oracle);
  const oracleWidth = await p.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(oracleWidth <= 320, `the playground is ${oracleWidth} px wide on a 320 px screen`);
  await p.close();
});

await browser.close();
if (problems.length) {
  failed += 1;
  console.log("FAIL the pages reported errors:\n     " + problems.join("\n     "));
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
