// Analysis board: a finished game (?game=<id>), a pasted or uploaded PDN, a FEN, or a position
// set up in the editor. Every ply's position comes from the server (POST /analysis/replay or
// the game's replay.json); the engine's evaluation and best line of the position shown come
// from POST /analysis/eval (bounded and rate-limited on the server). "Review the whole game"
// evaluates every position, marks the moves that lose half a man or more (?!), a man (?) or
// two and a half (??), draws the evaluation graph of the whole game (an SVG: click it to go
// to a move) and counts each side's inaccuracies, mistakes and blunders; a progress bar shows
// how far it is. "Continue from here" is sent by the page: a refusal (rate limit, a position
// the server does not accept) is shown next to the buttons and the position stays.
// The page asks the engine one position at a time (the server admits one request in flight
// per visitor) and, when refused for now (429/503 with Retry-After: the visitor's rate, the
// site's engine queue full), shows the server's message and asks again when it says.
import { Board, parseFen } from "./board.js";
import { showNoMoves } from "./movelist.js";
import { postAndFollow } from "./site.js";

const cfg = JSON.parse(document.getElementById("kondavo-analysis").textContent);
const I18N = cfg.i18n || {};
const $ = (id) => document.getElementById(id);

function t(key, vars = {}) {
  const text = I18N[key] !== undefined ? I18N[key] : key;
  return String(text).replace(/\{(\w+)\}/g, (_, k) => (k in vars ? vars[k] : `{${k}}`));
}

// What a move loses, in hundredths of a man, by the engine's evaluation of the positions
// before and after it (from the mover's side): the thresholds of the review's marks and of
// its per-side summary (README.md, docs/engine.md).
const INACCURACY = 50;  // "?!": half a man up to a man
const MISTAKE = 100;    // "?": a man up to two and a half
const BLUNDER = 250;    // "??": two and a half men or more
const MATE_SCORE = 10000;
const SVG_NS = "http://www.w3.org/2000/svg";

const an = {
  ruleset: cfg.ruleset,
  plies: [],           // [{fen, notation, path, captured}]
  view: 0,
  evals: new Map(),    // fen -> {score, mate_in, depth, pv, game_over, winner}
  marks: new Map(),    // ply -> "?!" | "?" | "??"
  orientation: null,
  editing: false,
  reviewing: false,
};

const board = new Board($("board"), { i18n: I18N, coordinates: true });

function spec(key = an.ruleset) { return cfg.boards[key]; }
function csrf() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

async function post(url, body) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json",
               "X-CSRFToken": csrf() },
    body: JSON.stringify(body),
  });
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  if (!r.ok) {
    const msg = data && data.error ? data.error.message : `HTTP ${r.status}`;
    const err = new Error(msg);
    err.code = data && data.error ? data.error.code : "http";
    err.status = r.status;
    const wait = parseInt(r.headers.get("Retry-After") || "", 10);
    err.retryAfter = Number.isFinite(wait) && wait > 0 ? Math.min(wait, 120) : null;
    throw err;
  }
  return data;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const RETRIES = 30;  // a refused-for-now request is asked again at most this many times

// POST that honours a "try again later" answer (429/503 + Retry-After): shows the server's
// message through onWait(message, seconds), waits, asks again.
async function postPatiently(url, body, onWait) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await post(url, body);
    } catch (err) {
      const later = (err.status === 429 || err.status === 503) && err.retryAfter;
      if (!later || attempt >= RETRIES) throw err;
      if (onWait) onWait(err.message, err.retryAfter);
      await sleep(err.retryAfter * 1000);
    }
  }
}

let toastTimer = null;
function toast(text) {
  const el = $("toast");
  el.textContent = text;
  el.classList.toggle("shown", !!text);
  clearTimeout(toastTimer);
  if (text) toastTimer = setTimeout(() => { el.classList.remove("shown"); el.textContent = ""; }, 3500);
}

// ------------------------------------------------------------------ loading
function setGame(data) {
  an.ruleset = data.ruleset;
  an.plies = data.plies;
  an.view = data.plies.length - 1;
  an.marks = new Map();
  an.reviewed = false;
  an.editing = false;
  $("editor").hidden = true;
  $("review-summary").hidden = true;
  $("review-progress").hidden = true;
  $("an-ruleset").value = data.ruleset;
  $("btn-review").disabled = an.plies.length < 2;
  $("review-status").textContent = "";
  $("load-error").textContent = "";
  render();
}

async function loadFromForm(ev) {
  if (ev) ev.preventDefault();
  const ruleset = $("an-ruleset").value;
  const pdn = $("an-pdn").value.trim();
  const fen = $("an-fen").value.trim();
  if (!pdn && !fen) { $("load-error").textContent = t("analysisNothing"); return; }
  try {
    const data = await post(cfg.replay, pdn ? { ruleset, pdn } : { ruleset, fen });
    setGame(data);
    window.scrollTo({ top: 0 });  // the form sits below the board: show the board
  } catch (err) {
    $("load-error").textContent = err.message;
  }
}

async function loadGame(id) {
  try {
    const r = await fetch(cfg.gameReplay.replace("GAME", encodeURIComponent(id)),
                          { headers: { Accept: "application/json" } });
    if (!r.ok) throw new Error(t("errors").not_found || "not found");
    setGame(await r.json());
  } catch (err) {
    $("load-error").textContent = err.message;
  }
}

function loadStart(key) {
  an.ruleset = key;
  setGame({ ruleset: key, plies: [{ fen: spec(key).fen, notation: null, path: null, captured: [] }] });
}

$("load-form").addEventListener("submit", loadFromForm);
$("an-file").addEventListener("change", async () => {
  const file = $("an-file").files[0];
  if (!file) return;
  if (file.size > 64000) { $("load-error").textContent = t("analysisTooLarge"); return; }
  $("an-pdn").value = await file.text();
  $("an-fen").value = "";
  loadFromForm();
});
$("an-ruleset").addEventListener("change", () => {
  if (!$("an-pdn").value.trim() && !$("an-fen").value.trim()) loadStart($("an-ruleset").value);
});

// ------------------------------------------------------------------ rendering
function orientation() {
  return an.orientation || spec().board.bottom || "white";
}

function render() {
  const p = an.plies[an.view];
  if (!p) return;
  board.set({ board: spec().board, fen: p.fen, legal: [], movable: null,
              lastMove: p.path ? { path: p.path, captured: p.captured || [] } : null,
              orientation: orientation() });
  renderMoves();
  renderNav();
  renderEval();
  renderGraph();
  $("continue-ruleset").value = an.ruleset;
  $("continue-fen").value = p.fen;
  $("continue-color").value = turnOf(p.fen);
  requestEval(an.view);
}

function turnOf(fen) {
  return String(fen).trim().toUpperCase().startsWith("B") ? "black" : "white";
}

function renderMoves() {
  const ol = $("moves");
  ol.replaceChildren();
  const moves = an.plies.slice(1);
  if (!moves.length) {
    showNoMoves(ol, t("noMoves"));
    return;
  }
  const first = turnOf(an.plies[0].fen);
  const firstIsBoardFirst = first === (spec().board.first_to_move || "white");
  const cells = [];
  if (!firstIsBoardFirst) cells.push(null);
  moves.forEach((_, i) => cells.push(i + 1));
  let number = 1;
  for (let i = 0; i < cells.length; i += 2) {
    const li = document.createElement("li");
    const no = document.createElement("span");
    no.className = "no";
    no.textContent = `${number++}.`;
    li.append(no, cell(cells[i]), cell(cells[i + 1]));
    ol.append(li);
  }
  const current = ol.querySelector(".current");
  if (current) scrollWithin(ol, current);
}

function cell(ply) {
  if (ply === undefined) return document.createElement("span");
  if (ply === null) { const s = document.createElement("span"); s.textContent = "…"; return s; }
  const b = document.createElement("button");
  b.type = "button";
  b.className = "move";
  b.dataset.ply = String(ply);
  const mark = an.marks.get(ply);
  b.textContent = an.plies[ply].notation + (mark || "");
  if (mark) b.classList.add({ "??": "blunder", "?": "mistake", "?!": "inaccuracy" }[mark]);
  if (ply === an.view) { b.classList.add("current"); b.setAttribute("aria-current", "step"); }
  b.addEventListener("click", () => goTo(ply));
  return b;
}

function renderNav() {
  const last = an.plies.length - 1;
  for (const b of document.querySelectorAll("[data-nav]")) {
    const kind = b.dataset.nav;
    b.disabled = (kind === "first" || kind === "prev") ? an.view === 0 : an.view >= last;
  }
}

function formatEval(e) {
  if (!e) return "…";
  if (e.game_over) return e.winner === "white" ? t("whiteWon") : t("blackWon");
  if (e.mate_in !== null && e.mate_in !== undefined) {
    const side = e.mate_in > 0 ? t("White") : t("Black");
    return t("winIn", { side, n: Math.ceil(Math.abs(e.mate_in) / 2) });
  }
  const men = e.score / 100;
  return `${men > 0 ? "+" : ""}${men.toFixed(2)}`;
}

function evalScore(e) {
  if (!e) return null;
  if (e.game_over) return e.winner === "white" ? MATE_SCORE : -MATE_SCORE;
  if (e.mate_in !== null && e.mate_in !== undefined) return e.mate_in > 0 ? MATE_SCORE : -MATE_SCORE;
  return e.score;
}

function renderEval() {
  $("eval-bar").hidden = false;
  const p = an.plies[an.view];
  const e = p ? an.evals.get(p.fen) : null;
  const text = $("eval-text");
  const fill = $("eval-fill");
  if (!e) {
    text.textContent = t("thinking");
    $("best-line").textContent = "";
    return;
  }
  const details = e.game_over ? "" : ` · ${t("depth", { n: e.depth })}`;
  text.textContent = `${formatEval(e)}${details}`;
  text.dataset.score = String(evalScore(e));
  const s = evalScore(e);
  const white = 50 + 50 * Math.tanh(s / 500);
  fill.style.width = `${white}%`;
  $("eval-bar").classList.toggle("flipped", orientation() === "black");
  $("best-line").textContent = e.pv && e.pv.length ? `${t("bestLine")}: ${e.pv.join(" ")}` : "";
}

// ------------------------------------------------------------------ engine
let evalTimer = null;
function requestEval(ply) {
  clearTimeout(evalTimer);
  const p = an.plies[ply];
  if (!p || an.evals.has(p.fen) || an.editing) return;
  evalTimer = setTimeout(() => evaluate(p.fen).then(() => {
    if (an.plies[an.view] === p) { renderEval(); renderGraph(); }
  }).catch((err) => { if (an.plies[an.view] === p) { $("eval-text").textContent = err.message; } }), 120);
}

const inflight = new Map();
let engineQueue = Promise.resolve();  // one engine request at a time from this page
function evaluate(fen, time = null, onWait = null) {
  if (an.evals.has(fen)) return Promise.resolve(an.evals.get(fen));
  if (inflight.has(fen)) return inflight.get(fen);
  const body = { ruleset: an.ruleset, fen };
  if (time) body.time = time;
  const wait = onWait || ((message, seconds) => {
    if (an.plies[an.view] && an.plies[an.view].fen === fen) {
      $("eval-text").textContent = `${message} (${seconds} s)`;
    }
  });
  const ask = () => (an.evals.has(fen) ? an.evals.get(fen)
    : postPatiently(cfg.eval, body, wait).then((data) => {
      an.evals.set(fen, data);
      return data;
    }));
  const promise = engineQueue.then(ask, ask).finally(() => inflight.delete(fen));
  engineQueue = promise.catch(() => null);
  inflight.set(fen, promise);
  return promise;
}

async function reviewGame() {
  if (an.reviewing || an.plies.length < 2) return;
  an.reviewing = true;
  $("btn-review").disabled = true;
  const plies = an.plies;
  const bar = $("review-progress");
  bar.max = plies.length;
  bar.value = 0;
  bar.hidden = false;
  try {
    for (let i = 0; i < plies.length; i++) {
      if (an.plies !== plies) return;  // another game was loaded
      const progress = t("reviewProgress", { n: i + 1, total: plies.length });
      $("review-status").textContent = progress;
      await evaluate(plies[i].fen, 0.3, (message, seconds) => {
        $("review-status").textContent = `${progress} ${message} (${seconds} s)`;
      });
      if (an.plies !== plies) return;
      bar.value = i + 1;
      renderGraph();  // the graph grows as the positions are evaluated
    }
    an.marks = new Map();
    const summary = { white: { "?!": 0, "?": 0, "??": 0 }, black: { "?!": 0, "?": 0, "??": 0 } };
    let count = 0;
    for (let i = 1; i < plies.length; i++) {
      const before = evalScore(an.evals.get(plies[i - 1].fen));
      const after = evalScore(an.evals.get(plies[i].fen));
      const mover = turnOf(plies[i - 1].fen);
      const loss = mover === "white" ? before - after : after - before;
      const mark = loss >= BLUNDER ? "??" : loss >= MISTAKE ? "?" : loss >= INACCURACY ? "?!" : null;
      if (!mark) continue;
      an.marks.set(i, mark);
      summary[mover][mark]++;
      if (mark !== "?!") count++;
    }
    an.summary = summary;
    an.reviewed = true;
    $("review-status").textContent = t("reviewDone", { n: count });
    renderSummary();
    render();
  } catch (err) {
    $("review-status").textContent = err.message;
  } finally {
    an.reviewing = false;
    bar.hidden = true;
    $("btn-review").disabled = an.plies.length < 2;
  }
}
$("btn-review").addEventListener("click", reviewGame);

/** Each side's inaccuracies, mistakes and blunders: a row per kind, a column per side. */
function renderSummary() {
  const box = $("review-summary");
  const body = $("review-summary-body");
  body.replaceChildren();
  const kinds = [["?!", "inaccuracies"], ["?", "mistakes"], ["??", "blunders"]];
  for (const [mark, key] of kinds) {
    const tr = document.createElement("tr");
    tr.dataset.mark = mark;
    const th = document.createElement("th");
    th.scope = "row";
    const sign = document.createElement("span");
    sign.className = `summary-mark ${key}`;
    sign.textContent = mark;
    th.append(sign, ` ${t(key)}`);
    tr.append(th);
    for (const side of ["white", "black"]) {
      const td = document.createElement("td");
      td.dataset.side = side;
      td.textContent = String(an.summary[side][mark]);
      tr.append(td);
    }
    body.append(tr);
  }
  box.hidden = false;
}

// ------------------------------------------------------------------ evaluation graph
// Drawn in the graph's own pixels (read from the page at each drawing), so the dots stay
// round; a margin keeps the first and last dots whole.
let GRAPH_W = 600;
let GRAPH_H = 88;
const GRAPH_PAD = 5;

/** The height of `score` (centi-men, White's view) on the graph: White's advantage up. */
function graphY(score) {
  return GRAPH_H / 2 - (GRAPH_H / 2 - GRAPH_PAD) * Math.tanh(score / 500);
}

function graphX(ply) {
  const last = Math.max(1, an.plies.length - 1);
  return GRAPH_PAD + (ply / last) * (GRAPH_W - 2 * GRAPH_PAD);
}

function svg(tag, attrs) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** The evaluation of every position evaluated so far, as an area over the middle line, the
 * review's marks as dots and the position shown as a line; a click goes to the nearest ply. */
function renderGraph() {
  const host = $("eval-graph");
  const points = [];
  an.plies.forEach((p, i) => {
    const s = evalScore(an.evals.get(p.fen));
    if (s !== null) points.push([i, s]);
  });
  const show = an.plies.length > 1 && points.length > 1 && !an.editing;
  host.hidden = !show;
  if (!show) { host.replaceChildren(); return; }
  GRAPH_W = Math.max(100, Math.round(host.clientWidth || 600));
  GRAPH_H = Math.max(40, Math.round(host.clientHeight || 88));
  const root = svg("svg", { viewBox: `0 0 ${GRAPH_W} ${GRAPH_H}`,
                            class: "eval-graph-svg", "aria-hidden": "true" });
  const mid = GRAPH_H / 2;
  let d = `M${graphX(points[0][0]).toFixed(1)},${mid}`;
  for (const [i, s] of points) d += ` L${graphX(i).toFixed(1)},${graphY(s).toFixed(1)}`;
  d += ` L${graphX(points[points.length - 1][0]).toFixed(1)},${mid} Z`;
  root.append(svg("rect", { x: 0, y: 0, width: GRAPH_W, height: GRAPH_H, class: "graph-bg" }));
  root.append(svg("path", { d, class: "graph-area" }));
  root.append(svg("line", { x1: 0, y1: mid, x2: GRAPH_W, y2: mid, class: "graph-mid" }));
  for (const [ply, mark] of an.marks) {
    const s = evalScore(an.evals.get(an.plies[ply].fen));
    if (s === null) continue;
    root.append(svg("circle", { cx: graphX(ply), cy: graphY(s), r: 4,
                                class: `graph-mark ${{ "??": "blunder", "?": "mistake", "?!": "inaccuracy" }[mark]}` }));
  }
  const x = graphX(an.view);
  root.append(svg("line", { x1: x, y1: 0, x2: x, y2: GRAPH_H, class: "graph-now" }));
  host.replaceChildren(root);
  host.dataset.points = String(points.length);
}

$("eval-graph").addEventListener("click", (ev) => {
  const rect = $("eval-graph").getBoundingClientRect();
  if (!rect.width) return;
  const last = an.plies.length - 1;
  const inner = (ev.clientX - rect.left - GRAPH_PAD) / Math.max(1, rect.width - 2 * GRAPH_PAD);
  goTo(Math.round(Math.max(0, Math.min(1, inner)) * last));
});
let graphResize = null;
window.addEventListener("resize", () => {
  clearTimeout(graphResize);
  graphResize = setTimeout(renderGraph, 150);
});

// ------------------------------------------------------------------ navigation
function goTo(n) {
  const target = Math.max(0, Math.min(an.plies.length - 1, n));
  if (target === an.view) return;
  an.view = target;
  render();
}

function step(kind) {
  if (kind === "first") goTo(0);
  else if (kind === "prev") goTo(an.view - 1);
  else if (kind === "next") goTo(an.view + 1);
  else goTo(an.plies.length - 1);
}
for (const b of document.querySelectorAll("[data-nav]")) b.addEventListener("click", () => step(b.dataset.nav));
document.addEventListener("keydown", (ev) => {
  if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  if (ev.target && ev.target.closest && ev.target.closest("input, textarea, select, [contenteditable]")) return;
  const kind = { ArrowLeft: "prev", ArrowRight: "next", ArrowUp: "first", ArrowDown: "last",
                 Home: "first", End: "last" }[ev.key];
  if (!kind) return;
  ev.preventDefault();
  step(kind);
});
$("btn-flip").addEventListener("click", () => {
  an.orientation = orientation() === "white" ? "black" : "white";
  render();
});

// ------------------------------------------------------------------ continue from here
// Sent by the page, not as a plain form: a refusal (429 with Retry-After, 503, a position
// the server does not accept) is shown in the form and the board keeps its position; only a
// created game leaves the page.
$("continue-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = $("continue-form");
  const submitter = ev.submitter || form.querySelector("button[type=submit]");
  const error = $("continue-error");
  error.textContent = "";
  for (const b of form.querySelectorAll("button")) b.disabled = true;
  try {
    const refusal = await postAndFollow(form, submitter);
    if (!refusal) return;
    // An HTTP answer speaks the visitor's language: its own words say the most (which
    // problem the position has); the code's sentence when it has none.
    const message = refusal.message || (I18N.errors || {})[refusal.code] ||
      (I18N.errors || {}).generic || `HTTP ${refusal.status}`;
    error.textContent = refusal.wait
      ? `${message} ${t("tryAgainIn", { s: refusal.wait })}` : message;
  } catch (_) {
    error.textContent = (I18N.errors || {}).generic || "";
  } finally {
    for (const b of form.querySelectorAll("button")) b.disabled = false;
  }
});

// ------------------------------------------------------------------ position editor
const editor = { pieces: new Map() };

function editorFen() {
  const side = (color) => {
    const items = [];
    for (const [label, piece] of editor.pieces) {
      if (!piece.startsWith(color)) continue;
      items.push(piece.endsWith("king") ? `K${label}` : label);
    }
    return items.join(",");
  };
  return `${$("editor-turn").value}:W${side("white")}:B${side("black")}`;
}

function editorShow() {
  board.set({ board: spec().board, fen: editorFen(), legal: [], movable: null, lastMove: null,
              orientation: orientation() });
  $("eval-bar").hidden = true;
  $("eval-graph").hidden = true;
  $("eval-text").textContent = t("editorHint");
  $("best-line").textContent = "";
}

function openEditor() {
  an.editing = true;
  $("editor").hidden = false;
  const p = an.plies[an.view];
  editor.pieces = parseFen(p ? p.fen : spec().fen).pieces;
  $("editor-turn").value = turnOf(p ? p.fen : spec().fen) === "black" ? "B" : "W";
  editorShow();
}

$("btn-editor").addEventListener("click", openEditor);
$("editor-turn").addEventListener("change", editorShow);
$("editor-clear").addEventListener("click", () => { editor.pieces = new Map(); editorShow(); });
$("editor-start").addEventListener("click", () => {
  editor.pieces = parseFen(spec().fen).pieces;
  editorShow();
});
$("editor-done").addEventListener("click", async () => {
  $("an-pdn").value = "";
  $("an-fen").value = editorFen();
  await loadFromForm();
});
// While editing, a click on a square places the chosen piece (before the board sees it).
$("board").addEventListener("pointerdown", (ev) => {
  if (!an.editing) return;
  const sq = ev.target.closest && ev.target.closest("[data-square]");
  if (!sq) return;
  ev.preventDefault();
  ev.stopImmediatePropagation();
  const label = sq.dataset.square;
  const choice = document.querySelector("input[name=palette]:checked").value;
  if (choice === "empty" || editor.pieces.get(label) === choice) editor.pieces.delete(label);
  else editor.pieces.set(label, choice);
  editorShow();
}, { capture: true });

// For tests and debugging.
Object.defineProperty(window, "kondavoAnalysis", {
  get: () => ({ ruleset: an.ruleset, plies: an.plies, view: an.view, marks: Object.fromEntries(an.marks),
                evals: Object.fromEntries(an.evals), editing: an.editing, board: board.state }),
});

if (cfg.game) loadGame(cfg.game);
else loadStart(an.ruleset);

/** Scroll `list` (not the page) so that `item` is visible. */
function scrollWithin(list, item) {
  const lr = list.getBoundingClientRect();
  const ir = item.getBoundingClientRect();
  if (ir.top < lr.top) list.scrollTop -= lr.top - ir.top;
  else if (ir.bottom > lr.bottom) list.scrollTop += ir.bottom - lr.bottom;
}
