// The puzzle page: the game page's board (frontend/board.js) from the solver's side. The
// server holds the solution: each move the player makes is sent to POST <puzzle>/move, which
// says right or wrong and gives the opponent's reply (played here after a short pause).
// Hint (POST <puzzle>/hint) highlights the piece to move; "Show the solution" (POST
// <puzzle>/solution) plays the whole line; retry starts the puzzle again; next asks
// GET /puzzles/next. Streak mode: POST /puzzles/streak starts one, each solve brings the
// next puzzle, the first miss ends it. Endpoints: docs/protocol.md, "Puzzles".
import { Board } from "../frontend/board.js";

const cfg = JSON.parse(document.getElementById("kondavo-puzzles").textContent);
const I18N = cfg.i18n || {};
const $ = (id) => document.getElementById(id);

function t(key, vars = {}) {
  const text = I18N[key] !== undefined ? I18N[key] : key;
  return String(text).replace(/\{(\w+)\}/g, (_, k) => (k in vars ? vars[k] : `{${k}}`));
}

function csrf() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

async function call(url, body) {
  const init = body === undefined
    ? { headers: { Accept: "application/json" } }
    : { method: "POST", body: JSON.stringify(body),
        headers: { "Content-Type": "application/json", Accept: "application/json",
                   "X-CSRFToken": csrf() } };
  const r = await fetch(url, init);
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  if (!r.ok) {
    const err = new Error(data && data.error ? data.error.message : `HTTP ${r.status}`);
    err.code = r.status === 429 ? "rate_limited" : (data && data.error ? data.error.code : "http");
    throw err;
  }
  return data;
}

const pz = {
  puzzle: null,   // the payload (no solution)
  ply: 0,         // the solution's index of the solver's next move
  fen: "",        // the position shown (before the solver's next move)
  legal: [],
  over: false,    // solved, failed or shown: the board waits for retry / next
  busy: false,
  mode: cfg.mode,
  streak: null,
};

const board = new Board($("board"), {
  i18n: I18N, coordinates: true,
  onMove: (move) => play(move),
  // A tap that plays nothing while a capture is due: say which rule makes it due.
  onReject: () => {
    const p = pz.puzzle;
    if (p && !pz.over && !pz.busy && pz.legal.length && pz.legal.every((m) => m.captured.length)) {
      toast(p.captureRule);
    }
  },
});

function sideName(side) { return side === "white" ? t("pzWhite") : t("pzBlack"); }

function feedback(text, kind = "") {
  const el = $("pz-feedback");
  el.textContent = text;
  el.dataset.kind = kind;
}

function toast(text) {
  const el = $("toast");
  el.textContent = text;
  el.classList.add("shown");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.classList.remove("shown"), 2500);
}

function clearHint() {
  for (const el of document.querySelectorAll(".pz-hint")) el.classList.remove("pz-hint");
}

function showButtons({ playing }) {
  $("pz-hint").hidden = !playing;
  $("pz-solution").hidden = !playing || !pz.puzzle;
  $("pz-retry").hidden = playing || !pz.puzzle || pz.mode === "streak";
  const streakOver = pz.mode === "streak" && pz.streak && !pz.streak.alive;
  $("pz-next").hidden = playing || streakOver || (pz.mode === "streak" && !pz.streak);
  const start = $("pz-streak-start");
  if (start) start.hidden = !(pz.mode === "streak" && (!pz.streak || !pz.streak.alive));
}

function showRating(player) {
  if (!player) return;
  $("pz-rating-value").textContent = `${player.rating}${player.provisional ? "?" : ""}`;
}

function showStreak() {
  const el = $("pz-streak");
  if (!pz.streak) { el.hidden = true; return; }
  el.hidden = false;
  el.textContent = t("pzStreakCount", { count: pz.streak.count });
}

function meta() {
  const p = pz.puzzle;
  if (!p) { $("pz-meta").textContent = ""; return; }
  const parts = [p.rulesetName, t("pzPuzzleRating", { rating: p.rating })];
  if (p.themes.length) parts.push(p.themes.map((x) => x.name).join(", "));
  $("pz-meta").textContent = parts.join(" · ");
}

function load(puzzle) {
  pz.puzzle = puzzle;
  clearHint();
  $("pz-rule").hidden = true;
  if (!puzzle) {
    board.set({ movable: null, legal: [] });
    $("pz-prompt").textContent = pz.mode === "streak" && pz.streak && !pz.streak.alive
      ? "" : t("pzNone");
    feedback("");
    showButtons({ playing: false });
    meta();
    return;
  }
  if (pz.mode !== "streak") history.replaceState(null, "", puzzle.url + location.search);
  pz.ply = 0;
  pz.fen = puzzle.fen;
  pz.legal = puzzle.legal;
  pz.over = false;
  board.set({ board: puzzle.board, orientation: puzzle.solver, fen: puzzle.fen,
              legal: puzzle.legal, movable: puzzle.solver, lastMove: null,
              capturedPieces: [] });
  $("pz-prompt").textContent = t("pzYourMove", { side: sideName(puzzle.solver) });
  feedback(pz.mode === "mine" && puzzle.game && puzzle.game.played
    ? t("pzFromGame", { played: puzzle.game.played }) : "");
  meta();
  showButtons({ playing: true });
}

function stop() {
  pz.over = true;
  $("pz-prompt").textContent = "";
  board.set({ movable: null });
  showButtons({ playing: false });
}

function ratingText(r) {
  if (!r) return "";
  if (pz.puzzle) { pz.puzzle.rating = r.puzzle; meta(); }
  const sign = r.delta > 0 ? `+${r.delta}` : `${r.delta}`;
  return " " + t("pzRatingChange", { before: r.before, after: r.after, delta: sign });
}

async function play(move) {
  if (pz.busy || pz.over || !pz.puzzle) return;
  pz.busy = true;
  clearHint();
  const id = pz.puzzle.id;
  let res;
  try {
    res = await call(`${pz.puzzle.url}move`, { ply: pz.ply, move: move.notation, mode: pz.mode });
  } catch (err) {
    pz.busy = false;
    toast(err.code === "rate_limited" ? t("pzBusy") : err.message || t("pzError"));
    board.set({ fen: pz.fen, legal: pz.legal, movable: pz.puzzle.solver });
    return;
  }
  if (!pz.puzzle || pz.puzzle.id !== id) { pz.busy = false; return; }
  showRating(res.player);
  if (res.streak) { pz.streak = res.streak; showStreak(); }
  if (!res.correct) {
    feedback(t("pzWrong") + ratingText(res.rating), "wrong");
    if (res.streak && !res.streak.alive) {
      feedback(t("pzStreakOver", { count: res.streak.count, best: res.streak.best }), "wrong");
    }
    setTimeout(() => {
      board.set({ fen: pz.fen, legal: pz.legal, lastMove: null,
                  movable: pz.mode === "streak" ? null : pz.puzzle.solver });
      pz.busy = false;
      if (pz.mode === "streak") stop();
      else { $("pz-retry").hidden = false; }
    }, 700);
    return;
  }
  if (res.done) {
    const words = res.result === "helped" ? t("pzSolvedHint")
      : res.result === "practice" ? t("pzPractice") : t("pzSolved");
    feedback(words + ratingText(res.rating), "right");
    pz.busy = false;
    stop();
    if (pz.mode === "streak" && res.streak && res.streak.alive) setTimeout(next, 900);
    return;
  }
  feedback(t("pzRight"), "right");
  setTimeout(() => {
    pz.ply += 2;
    pz.fen = res.fen;
    pz.legal = res.legal;
    board.set({ fen: res.fen, lastMove: res.reply, legal: res.legal,
                movable: pz.puzzle.solver });
    const rule = $("pz-rule");
    if (res.forced && pz.puzzle.capturePoint && pz.puzzle.captureRule) {
      rule.textContent = t("pzReplyForced", { move: res.reply.notation, rule: pz.puzzle.captureRule });
      rule.hidden = false;
    } else {
      rule.hidden = true;
      feedback(t("pzReply", { move: res.reply.notation }), "right");
    }
    pz.busy = false;
  }, 450);
}

async function hint() {
  if (!pz.puzzle || pz.over || pz.busy) return;
  try {
    const res = await call(`${pz.puzzle.url}hint`, { ply: pz.ply });
    clearHint();
    const sq = document.querySelector(`#board [data-square="${CSS.escape(res.square)}"]`);
    if (sq) sq.classList.add("pz-hint");
    feedback(t("pzHintShown"));
  } catch (err) {
    toast(err.code === "rate_limited" ? t("pzBusy") : err.message || t("pzError"));
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function solution() {
  if (!pz.puzzle || pz.busy) return;
  pz.busy = true;
  let res;
  try {
    res = await call(`${pz.puzzle.url}solution`, { mode: pz.mode });
  } catch (err) {
    pz.busy = false;
    toast(err.code === "rate_limited" ? t("pzBusy") : err.message || t("pzError"));
    return;
  }
  showRating(res.player);
  if (res.streak) { pz.streak = res.streak; showStreak(); }
  stop();
  clearHint();
  board.set({ fen: pz.puzzle.fen, lastMove: null, movable: null });
  feedback(t("pzSolutionShown", { line: res.line.map((m) => m.notation).join(" ") })
    + ratingText(res.rating));
  for (const step of res.line) {
    await sleep(650);
    board.set({ fen: step.fen, lastMove: { path: step.path, captured: step.captured } });
  }
  pz.busy = false;
  if (res.streak && !res.streak.alive) {
    feedback(t("pzStreakOver", { count: res.streak.count, best: res.streak.best }), "wrong");
  }
}

function retry() {
  if (!pz.puzzle || pz.busy) return;
  load(pz.puzzle);
}

async function next() {
  if (pz.busy) return;
  const q = new URLSearchParams({ ruleset: cfg.ruleset, mode: pz.mode });
  if (cfg.theme) q.set("theme", cfg.theme);
  if (pz.puzzle) q.set("after", pz.puzzle.id);
  try {
    const res = await call(`${cfg.urls.next}?${q}`);
    if (res.streak) { pz.streak = res.streak; showStreak(); }
    load(res.puzzle);
    if (!res.puzzle && pz.streak && !pz.streak.alive) {
      feedback(t("pzStreakDone", { count: pz.streak.count }), "right");
    }
  } catch (err) {
    toast(err.code === "rate_limited" ? t("pzBusy") : err.message || t("pzError"));
  }
}

async function startStreak() {
  try {
    const res = await call(cfg.urls.streak, { ruleset: cfg.ruleset });
    pz.streak = res.streak;
    showStreak();
    load(res.puzzle);
  } catch (err) {
    toast(err.code === "rate_limited" ? t("pzBusy") : err.message || t("pzError"));
  }
}

$("pz-hint").addEventListener("click", hint);
$("pz-solution").addEventListener("click", solution);
$("pz-retry").addEventListener("click", retry);
$("pz-next").addEventListener("click", next);
if ($("pz-streak-start")) $("pz-streak-start").addEventListener("click", startStreak);
// Changing the ruleset, mode or theme opens that choice's page.
const form = $("pz-choose");
form.addEventListener("change", () => form.submit());

if (cfg.puzzle) load(cfg.puzzle);
else {
  if (pz.mode === "streak") board.set({ board: null });
  showButtons({ playing: false });
}
window.kondavoPuzzles = pz;
