// End-to-end test of `tictac serve` in a real Chromium, driven by
// playwright-core. Run by bench/check-serve-browser.sh:
//   node e2e.mjs BASE_URL OUT_DIR TICTAC_BINARY
// Screenshots and downloads go to OUT_DIR (under target/), never the repository.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";

const [base, out, tictac] = process.argv.slice(2);
if (!base || !out || !tictac) {
  console.error("usage: node e2e.mjs BASE_URL OUT_DIR TICTAC_BINARY");
  process.exit(2);
}
mkdirSync(join(out, "downloads"), { recursive: true });
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";

/** What `tictac ARGS... FILE` prints for a trace. */
function commandLine(trace, ...args) {
  const file = join(out, "trace.txt");
  writeFileSync(file, trace);
  try {
    return execFileSync(tictac, [...args, file], { encoding: "utf8" });
  } catch (e) {
    return e.stdout;
  }
}

const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
const problems = [];
let passed = 0;

async function page(viewport = { width: 1100, height: 900 }) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const p = await context.newPage();
  // Any script error or CSP violation fails the test.
  p.on("pageerror", (e) => problems.push("page error: " + e.message));
  p.on("console", (m) => { if (m.type() === "error") problems.push("console: " + m.text()); });
  return p;
}

async function step(name, body) {
  const started = Date.now();
  await body();
  passed += 1;
  console.log(`ok   ${name} (${Date.now() - started} ms)`);
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
async function newGame(p, first, second) {
  await p.click("#new-game");
  await p.fill("#first-name", first);
  await p.fill("#second-name", second);
  await p.click("#names-ok");
}

const game = await page();
await game.goto(base + "/");

await step("the game page opens on the initial state", async () => {
  await waitBanner(game, "start new game");
  assert.equal(await game.locator("#lines").textContent(),
    '  ok:  => start new game\n  0: score for "" (as X)\n  0: score for "" (as O)');
});

await step("New game asks the names; clicks play a whole game to a win", async () => {
  await newGame(game, "Ann", "Bob");
  await waitBanner(game, "x's turn");
  for (const [k, after] of [[1, "o's turn"], [4, "x's turn"], [2, "o's turn"], [5, "x's turn"], [3, "x won"]]) {
    await cell(game, k).click();
    await waitBanner(game, after);
  }
  assert.equal(await marks(game), "XXXOO____");
  const lines = await game.locator("#lines").textContent();
  assert.match(lines, /^ {2}there is a winner: => play again or start new game\n {2}1: score for "Ann" \(as X\)\n {2}0: score for "Bob" \(as O\)$/);
  await game.screenshot({ path: join(out, "game.png"), fullPage: true });
});

await step("the transcript and trace match the command line; downloads make a test", async () => {
  const trace = await game.locator("#trace").textContent();
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
});

await step("against perfect, Undo takes back your move and the computer's", async () => {
  await game.selectOption("#opponent", "perfect");
  await game.click("#new-game");
  assert.equal(await game.locator("#second-name").inputValue(), "Computer");
  await game.fill("#first-name", "Ann");
  await game.click("#names-ok");
  await waitBanner(game, "x's turn");
  await cell(game, 1).click();
  await game.waitForFunction(() => [...document.querySelectorAll(".cell")].filter((c) => c.textContent === "O").length === 1);
  assert.equal(await banner(game), "x's turn");
  const board = await marks(game);
  assert.equal(board[0], "X");
  await game.click("#undo");
  await game.waitForFunction(() => [...document.querySelectorAll(".cell")].every((c) => c.textContent !== "X" && c.textContent !== "O"));
  await game.click("#redo");
  await game.waitForFunction((b) => [...document.querySelectorAll(".cell")]
    .map((c) => (c.textContent === "X" || c.textContent === "O" ? c.textContent : "_")).join("") === b, board);
  const trace = await game.locator("#trace").textContent();
  assert.ok(trace.endsWith("->undo\n->undo\n->redo\n->redo"), trace);
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
  await game.waitForFunction(() => [...document.querySelectorAll(".cell")].filter((c) => c.textContent === "O").length === 1);
  const [saved] = await Promise.all([game.waitForEvent("download"), game.click("#download-trace")]);
  const [expected] = await Promise.all([game.waitForEvent("download"), game.click("#download-expected")]);
  const trace = readFileSync(await saved.path(), "utf8");
  assert.ok(/play\("Rex",[1-9]\)\n$/.test(trace), trace);
  assert.equal(readFileSync(await expected.path(), "utf8"), commandLine(trace, "-b"));
});

await step("both pages fit a phone-sized screen", async () => {
  const phone = await page({ width: 375, height: 740 });
  await phone.goto(base + "/");
  await waitBanner(phone, "start new game");
  const width = await phone.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 375, `the page is ${width} px wide on a 375 px screen`);
  const box = await phone.locator("#board").boundingBox();
  assert.ok(box.width >= 250 && box.x >= 0 && box.x + box.width <= 375, JSON.stringify(box));
  await phone.screenshot({ path: join(out, "game-phone.png"), fullPage: true });
  await phone.goto(base + "/oracle#trace=" + encodeURIComponent('new_game("A very long name indeed, longer than a phone","Bob")\n'));
  await phone.waitForFunction(() => document.getElementById("output").textContent !== "");
  const oracleWidth = await phone.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(oracleWidth <= 375, `the playground is ${oracleWidth} px wide on a 375 px screen`);
  await phone.screenshot({ path: join(out, "oracle-phone.png"), fullPage: true });
  await phone.close();
});

const oracle = await page();
const sample = 'new_game("Ann","Bob")\nplay("Ann",5) play("Bob",5)\nundo\nplay("Bob", 10)\n';

await step("the playground runs a trace and shows what tictac -b prints", async () => {
  await oracle.goto(base + "/oracle");
  await oracle.fill("#trace", 'new_game("Ann","Bob")\nplay("Ann",5) play("Bob",5)\nundo\n');
  await oracle.click("#run");
  await oracle.waitForFunction(() => document.getElementById("output").textContent !== "");
  assert.equal(await oracle.locator("#output").textContent(),
    commandLine('new_game("Ann","Bob")\nplay("Ann",5) play("Bob",5)\nundo\n', "-b"));
});

await step("a type error shows the message with exit status 1 (Ctrl+Enter runs)", async () => {
  await oracle.fill("#trace", sample);
  await oracle.locator("#trace").press("Control+Enter");
  await oracle.waitForFunction(() => document.getElementById("status").textContent.includes("exit status 1"));
  assert.equal(await oracle.locator("#output").textContent(), commandLine(sample, "-b"));
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
  await oracle.fill("#expected", right.replace("Bob plays next", "Ann plays next"));
  await oracle.waitForFunction(() => document.getElementById("verdict").textContent.startsWith("FAIL"));
  const removed = await oracle.locator("#diff .del").allTextContents();
  const added = await oracle.locator("#diff .add").allTextContents();
  assert.ok(removed.some((l) => l.includes("Ann plays next")), removed.join(""));
  assert.ok(added.some((l) => l.includes("Bob plays next")), added.join(""));
  await oracle.screenshot({ path: join(out, "oracle.png"), fullPage: true });
});

await browser.close();
if (problems.length) {
  console.error("FAIL: the pages reported errors:\n" + problems.join("\n"));
  process.exit(1);
}
console.log(`browser: ${passed} passed, 0 failed`);
