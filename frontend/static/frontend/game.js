// Kondavo game client: one websocket to /ws/game/<id>/ (docs/protocol.md), one board.
//
// The server is the authority: this script keeps the last `state` it was sent, applies the
// versioned events (move, end, draw_offer, players, rematch, takeback, takeback_offer,
// ratings) to it, and re-renders. A gap in the event versions triggers a resync; a lost
// connection reconnects with backoff. A move the server refuses (for whatever reason) puts
// the board back as the last state has it at once, then resyncs: the move list is the
// state's, never lost.
//
// Move navigation: the positions of every ply come from the game's replay.json (fetched with
// each full state, extended by each `move` event). `client.view` is null on the live board,
// else the ply shown; arrow keys, the buttons under the board and the move list step through.
import { Board } from "./board.js";
import { showNoMoves } from "./movelist.js";
import { initChat } from "./chat.js";

const cfg = JSON.parse(document.getElementById("kondavo-game").textContent);
const I18N = cfg.i18n || {};

/** Translate `key` and fill {placeholders}. */
function t(key, vars = {}) {
  const text = I18N[key] !== undefined ? I18N[key] : key;
  return String(text).replace(/\{(\w+)\}/g, (_, k) => (k in vars ? vars[k] : `{${k}}`));
}

const $ = (id) => document.getElementById(id);
const els = {
  board: $("board"), status: $("status"), banner: $("capture-banner"), result: $("result"),
  share: $("share"), shareUrl: $("share-url"), shareCopy: $("share-copy"), toast: $("toast"),
  controls: $("controls"), flip: $("btn-flip"), sound: $("btn-sound"), moves: $("moves"),
  top: $("player-top"), bottom: $("player-bottom"), meta: $("game-meta"),
  offer: $("offer"), offerText: $("offer-text"), offerActions: $("offer-actions"),
  tbOffer: $("takeback-offer"), tbOfferText: $("takeback-offer-text"),
  tbOfferActions: $("takeback-offer-actions"), overlayRatings: $("overlay-ratings"),
  notice: $("notice"), noticeText: $("notice-text"), noticeActions: $("notice-actions"),
  overlay: $("overlay"), overlayTitle: $("overlay-title"), overlayScore: $("overlay-score"),
  overlayReason: $("overlay-reason"), overlayActions: $("overlay-actions"),
  overlayClose: $("overlay-close"), reviewNote: $("review-note"), spectators: $("spectators"),
};

// ------------------------------------------------------------------ client state
const client = {
  game: null,          // the last full state, with events applied
  version: -1,         // last event version seen
  ws: null,
  retries: 0,
  reconnectTimer: null,
  clocksAt: 0,         // performance.now() when the clocks were received
  orientation: null,   // null: follow `you`
  sound: localStorage.getItem("kondavo.sound") === "on",
  pending: false,      // a move was sent and not yet answered
  flagSentAt: -Infinity, // performance.now() of the last `flag` frame sent
  closing: false,
  plies: null,         // [{fen, notation, path, captured}] for ply 0..n (replay.json)
  view: null,          // null: the live board; else the ply shown while stepping through
  overlayShownFor: null, // the game status the end-of-game overlay was last opened for
  withdrawing: false,  // this page withdrew its own draw offer (so `by: null` is no decline)
  tbWithdrawing: false, // the same for its own takeback offer
  serverOffset: 0,     // server epoch ms minus this page's Date.now() (from presence.now)
  oppLeftAt: null,     // performance.now() from when the opponent's absence may be claimed
  confirming: null,    // {type, text, yes}: a destructive action waiting for its "yes"
};

const board = new Board(els.board, {
  i18n: I18N,
  onMove: (move) => sendMove(move),
  onSelect: (progress) => {
    if (progress.length > 1) showStatus(t("chooseCapture"));
    else if (client.game) renderStatus();
  },
  onReject: (info) => explainReject(info),
  onPremove: (path) => {
    if (path) showToast(t("premoveSet", { move: path.join("-") }), "info");
    else if (els.toast.dataset.kind === "info") showToast("");
  },
});

/** Say why a click on the board played nothing. */
function explainReject({ piece, selected }) {
  const g = client.game;
  if (!g || client.view !== null) return;
  if (!g.you) { showToast(t("spectatorNoMoves")); return; }
  if (g.status === "waiting") { showToast(t("waitingNoMoves")); return; }
  if (g.status !== "active") { showToast(t("errors").game_over || ""); return; }
  if (!myTurn()) { showToast(t("errors").not_your_turn || ""); return; }
  if (client.pending) return;
  const legal = g.legal || [];
  const forced = legal.length > 0 && legal.every((m) => m.captured && m.captured.length);
  if (selected) {
    showToast(forced ? t("mustCapture") : t("notALandingSquare"));
  } else if (piece && !piece.startsWith(g.you)) {
    showToast(t("notYourPiece"));
  } else if (piece) {
    showToast(forced ? t("mustCapture") : t("pieceCannotMove"));
  }
}

// ------------------------------------------------------------------ socket
function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${cfg.ws}`;
}

function connect() {
  clearTimeout(client.reconnectTimer);
  const ws = new WebSocket(wsUrl());
  client.ws = ws;
  ws.addEventListener("open", () => { client.retries = 0; });
  ws.addEventListener("message", (ev) => {
    let frame;
    try { frame = JSON.parse(ev.data); } catch (_) { return; }
    handle(frame);
  });
  ws.addEventListener("close", (ev) => {
    if (client.ws !== ws || client.closing) return;
    if (ev.code === 4404) { showStatus(t("errors").not_found || ""); return; }
    scheduleReconnect();
  });
}

function scheduleReconnect() {
  const delay = Math.min(15000, 500 * 2 ** client.retries) * (0.75 + Math.random() * 0.5);
  client.retries += 1;
  showStatus(t("reconnecting"));
  client.pending = false;
  client.reconnectTimer = setTimeout(connect, delay);
}

function send(type, data = {}) {
  const ws = client.ws;
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  ws.send(JSON.stringify({ t: type, d: data }));
  return true;
}

function sendMove(move) {
  const g = client.game;
  if (!g) return;
  client.pending = true;
  if (!send("move", { ply: g.ply, path: move.path })) {
    client.pending = false;
    render();
    return;
  }
  playSound("move");
  showToast("");
}

window.addEventListener("beforeunload", () => { client.closing = true; });
document.addEventListener("visibilitychange", () => {
  // Coming back to the tab: make sure nothing was missed.
  if (document.visibilityState === "visible" && client.ws && client.ws.readyState === WebSocket.OPEN) {
    send("resync");
  }
});

// ------------------------------------------------------------------ frames
const EVENTS = new Set(["move", "end", "draw_offer", "players", "rematch", "takeback",
                        "takeback_offer", "ratings"]);

const chat = initChat({ send, words: I18N.chat });  // the game's chat rooms (chat.js)

function handle(frame) {
  const { t: type, d: data = {}, v } = frame;
  if (type.startsWith("chat")) { chat.onFrame(frame); return; }
  if (type === "state") {
    chat.onState(data);
    client.version = v;
    client.game = data;
    client.clocksAt = performance.now();
    client.pending = false;
    if (!client.plies || client.plies.length !== (data.moves || []).length + 1 ||
        client.plies[client.plies.length - 1].fen !== data.fen) {
      client.plies = null;
      loadReplay();
    }
    noteServerTime(data.presence);
    noteOpponentPresence(data.presence);
    render({ fresh: true });
    return;
  }
  if (type === "error") { onError(data); return; }
  if (type === "pong") {
    // The server answers with the game's current version: a higher one means an event
    // never reached this page (the next ping is a few seconds away).
    if (typeof v === "number" && v > client.version) send("resync");
    return;
  }
  if (type === "presence") {
    if (client.game) {
      noteServerTime(data);
      noteOpponentPresence(data);
      client.game.presence = data;
      renderPlayers(); renderControls(); renderNotice(); renderSpectators();
    }
    return;
  }
  if (!EVENTS.has(type) || !client.game) return;
  if (typeof v === "number") {
    if (v <= client.version) return;            // already applied
    if (v > client.version + 1) { send("resync"); return; }  // missed an event
    client.version = v;
  }
  const g = client.game;
  switch (type) {
    case "move": {
      g.ply = data.ply;
      g.fen = data.fen;
      g.turn = data.turn;
      g.legal = data.legal || [];
      g.moves = [...(g.moves || []), data.notation];
      g.last_move = { path: data.path, captured: data.captured };
      if (client.plies && client.plies.length === data.ply) {
        client.plies.push({ fen: data.fen, notation: data.notation, path: data.path,
                            captured: data.captured });
      }
      if ("clocks" in data) { g.clocks = data.clocks; client.clocksAt = performance.now(); }
      if ("abort_at" in data) g.abort_at = data.abort_at;
      g.takeback_offer = null;  // a takeback offer lives at its ply: any move ends it
      client.pending = false;
      // My own move sounded when it was sent; the opponent's (or any, watching) sounds now.
      if (!g.you || g.you === data.turn) playSound(data.captured && data.captured.length ? "capture" : "move");
      break;
    }
    case "end":
      g.status = data.status;
      g.result = data.result;
      g.abort = data.abort || null;
      g.abort_at = null;
      g.legal = [];
      g.draw_offer = null;
      g.takeback_offer = null;
      if (data.ratings) g.ratings = data.ratings;
      if (g.clocks) { freezeClocks(); g.clocks.running = null; }
      playSound("end");
      break;
    case "draw_offer": {
      const was = g.draw_offer;
      g.draw_offer = data.by;
      const declined = data.declined_by ? data.declined_by !== g.you
        : !client.withdrawing;  // an older server: whatever we did not withdraw was declined
      if (g.you && was === g.you && data.by === null && declined) {
        // Our offer went away and we did not withdraw it: the opponent declined (by a
        // button or by moving on).
        showToast(t("drawDeclined"), "info");
      }
      client.withdrawing = false;
      break;
    }
    case "players":
      g.players = data.players;
      if ("abort_at" in data) g.abort_at = data.abort_at;
      if (data.clocks) { g.clocks = data.clocks; client.clocksAt = performance.now(); }
      if (g.status !== data.status) send("resync");  // the game starts: fetch legal moves, clocks
      g.status = data.status;
      break;
    case "takeback_offer": {
      const was = g.takeback_offer;
      g.takeback_offer = data.by ? { by: data.by, ply: data.ply } : null;
      if (g.you && was && was.by === g.you && !data.by && !client.tbWithdrawing &&
          data.declined_by && data.declined_by !== g.you) {
        showToast(t("takebackDeclined"), "info");
      }
      client.tbWithdrawing = false;
      break;
    }
    case "ratings":
      g.ratings = data.ratings;
      break;
    case "takeback":
      client.view = null;
      g.takeback_offer = null;
      send("resync");  // the position, legal moves and clocks come with the new state
      return;
    case "rematch":
      if (data.url) {
        g.rematch = data;
        if (g.you) { location.href = data.url; return; }
      } else {
        g.rematch = { offered_by: data.offered_by };
      }
      break;
    default:
      return;
  }
  render();
}

function onError(data) {
  const code = data.code || "generic";
  const errors = I18N.errors || {};
  // The server's own words when they carry more than the stable code (e.g. "in 12 s"); the
  // socket's words are English, so a page in another language shows its own sentence only.
  const english = (document.documentElement.lang || "en").toLowerCase().startsWith("en");
  const text = code === "not_allowed" && data.message && english
    ? `${errors[code] || ""} (${data.message})`
    : (errors[code] || (english ? data.message : "") || errors.generic || "");
  showToast(text);
  if (client.pending || ["stale_ply", "illegal_move", "ambiguous_move", "not_your_turn",
                         "game_over"].includes(code)) {
    // A refused move (any refusal: also a rate limit or an outage while it was on its
    // way): the board goes back to the last state now, then the server's state is fetched.
    // The move list and the game stay as they are until it comes.
    client.pending = false;
    if (client.game) render();
    send("resync");
  }
}

// ------------------------------------------------------------------ clocks
function clockValue(side) {
  const c = client.game && client.game.clocks;
  if (!c) return null;
  let ms = c[side];
  if (c.running === side) ms -= performance.now() - client.clocksAt;
  return Math.max(0, ms);
}

function freezeClocks() {
  const c = client.game.clocks;
  for (const side of ["white", "black"]) c[side] = clockValue(side);
  client.clocksAt = performance.now();
}

function formatClock(ms) {
  if (ms === null) return "";
  const total = Math.ceil(ms / 100) / 10;  // tenths
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  if (ms < 10000) return `${minutes}:${seconds.toFixed(1).padStart(4, "0")}`;
  return `${minutes}:${String(Math.floor(seconds)).padStart(2, "0")}`;
}

function tickClocks() {
  for (const el of document.querySelectorAll(".clock[data-side]")) {
    const ms = clockValue(el.dataset.side);
    el.textContent = formatClock(ms);
    el.classList.toggle("low", ms !== null && ms < 10000 && el.classList.contains("running"));
  }
  checkFlag();
}

// When the running clock reaches zero here, ask the server to check it at once (`flag`), so
// the `end` frame comes now rather than with the server's next periodic sweep. The server
// answers with the `end` event, or a fresh `state` if its clock has time left; asked again
// at most once a second while this display stays at zero.
const FLAG_RETRY_MS = 1000;
function checkFlag() {
  const g = client.game;
  const c = g && g.clocks;
  if (!c || !c.running || g.status !== "active") return;
  if (clockValue(c.running) > 0) return;
  const now = performance.now();
  if (now - client.flagSentAt < FLAG_RETRY_MS) return;
  if (send("flag")) client.flagSentAt = now;
}
setInterval(tickClocks, 100);

// ------------------------------------------------------------------ sounds (off by default)
let audio = null;
function playSound(kind) {
  if (!client.sound) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    const freq = { move: 520, capture: 330, end: 780 }[kind] || 440;
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.12, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.15);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.16);
  } catch (_) { /* sound is optional */ }
}

// ------------------------------------------------------------------ rendering
const other = (side) => (side === "white" ? "black" : "white");

function sideName(side) {
  const g = client.game;
  const fromBoard = g && g.board && g.board.side_names && g.board.side_names[side];
  const key = side === "white" ? "White" : "Black";
  return I18N[key] || fromBoard || side;
}

function orientation() {
  const g = client.game;
  if (client.orientation) return client.orientation;
  if (g && g.you) return g.you;
  return (g && g.board && g.board.bottom) || "white";
}

function myTurn() {
  const g = client.game;
  return !!(g && g.you && g.status === "active" && g.turn === g.you);
}

function render({ fresh = false } = {}) {
  const g = client.game;
  if (!g) return;
  if (client.view !== null && client.plies && client.view >= client.plies.length - 1) {
    client.view = null;  // stepped to the last move: that is the live board
  }
  renderBoard(fresh);
  els.meta.textContent = [g.time_control === "untimed" ? t("untimed") : g.time_control,
                          g.rated ? t("rated") : t("casual")].join(" · ");
  renderPlayers();
  renderStatus();
  renderBanner();
  renderOffer();
  renderTakebackOffer();
  renderNotice();
  renderResult();
  renderOverlay();
  renderShare();
  renderControls();
  renderMoves();
  renderNav();
  renderSpectators();
  tickClocks();
}

function renderBoard(fresh = false) {
  const g = client.game;
  if (client.view !== null && client.plies) {
    const p = client.plies[client.view];
    board.set({ board: g.board, fen: p.fen, legal: [], movable: null, premovable: null,
                lastMove: p.path ? { path: p.path, captured: p.captured || [] } : null,
                orientation: orientation() });
    els.board.classList.add("reviewing");
    return;
  }
  els.board.classList.remove("reviewing");
  const movable = myTurn() && !client.pending ? g.you : null;
  // While the opponent is to move (or my move is on its way), one move may be premoved.
  const premovable = !movable && g.you && g.status === "active" ? g.you : null;
  board.set({
    board: g.board,
    fen: g.fen,
    legal: movable ? (g.legal || []) : [],
    movable,
    premovable,
    lastMove: g.last_move,
    orientation: orientation(),
    ...(fresh ? { capturedPieces: [] } : {}),
  });
  // The turn has come: the premove is played if it is legal now, else silently dropped.
  if (movable && board.state.premove) board.playPremove();
}

function playerRow(el, side) {
  const g = client.game;
  const p = g.players && g.players[side];
  el.replaceChildren();
  const who = document.createElement("div");
  who.className = "who";
  const sw = document.createElement("span");
  sw.className = `swatch ${side}`;
  sw.title = sideName(side);
  const presence = document.createElement("span");
  const online = g.presence ? !!g.presence[side] : true;
  const bot = p && p.kind === "bot";
  presence.className = `presence${online || bot ? " on" : ""}`;
  presence.title = online || bot ? t("online") : t("offline");
  const name = document.createElement(p && !bot && p.kind !== "guest" ? "a" : "span");
  name.className = "name";
  if (p) {
    name.textContent = p.name;
    if (name.tagName === "A") name.href = `/profile/${encodeURIComponent(p.name)}/`;
  } else {
    name.textContent = "…";
  }
  const meta = document.createElement("span");
  meta.className = "meta";
  const bits = [];
  const change = g.ratings && g.ratings[side];
  if (change) bits.push(ratingChange(change));
  else if (p && p.rating) bits.push(String(p.rating));
  if (bot && !p.rating && p.level) bits.push(t("level", { n: p.level }));
  if (g.you === side) bits.push(t("you"));
  meta.textContent = bits.join(" · ");
  who.append(sw, presence, name, meta);
  el.append(who);
  if (g.clocks) {
    const clock = document.createElement("span");
    const running = g.clocks.running === side && g.status === "active";
    clock.className = `clock${running ? " running" : ""}`;
    clock.dataset.side = side;
    clock.setAttribute("role", "timer");
    clock.setAttribute("aria-label", sideName(side));
    el.append(clock);
  }
  el.dataset.side = side;
  el.classList.toggle("to-move", g.status === "active" && g.turn === side);
}

/** "1500 → 1520 (+20)": what the game did to a rating. */
function ratingChange(c) {
  const sign = c.delta > 0 ? "+" : c.delta < 0 ? "−" : "±";
  return `${c.before} → ${c.after} (${sign}${Math.abs(c.delta)})`;
}

function renderRatings() {
  const el = els.overlayRatings;
  if (!el) return;
  const g = client.game;
  el.replaceChildren();
  el.hidden = !g.ratings;
  if (!g.ratings) return;
  for (const side of [orientation(), other(orientation())]) {
    const c = g.ratings[side];
    if (!c) continue;
    const line = document.createElement("span");
    line.className = `rating-change ${c.delta > 0 ? "up" : c.delta < 0 ? "down" : ""}`.trim();
    line.dataset.side = side;
    const p = g.players && g.players[side];
    const who = g.you === side ? t("you") : (p ? p.name : sideName(side));
    const numbers = document.createElement("span");
    numbers.className = "nowrap";
    numbers.textContent = ratingChange(c);
    line.append(`${who}: `, numbers);
    el.append(line);
  }
}

function renderPlayers() {
  const bottom = orientation();
  playerRow(els.bottom, bottom);
  playerRow(els.top, other(bottom));
  tickClocks();
}

function showStatus(text) { els.status.textContent = text; }

function renderStatus() {
  const g = client.game;
  if (g.status === "waiting") showStatus(g.you ? t("waiting") : t("toMove", { side: sideName(g.turn) }));
  else if (g.status === "active") {
    if (!g.you) showStatus(t("spectatorToMove", { side: sideName(g.turn) }));
    else {
      const left = firstMoveLeft();
      if (left !== null) {
        showStatus(myTurn() ? t("firstMoveYou", { s: left })
          : t("firstMoveThem", { side: sideName(g.turn), s: left }));
      } else showStatus(myTurn() ? t("yourTurn") : t("theirTurn"));
    }
  } else if (g.status === "aborted") showStatus(t("aborted"));
  else showStatus(resultHeadline());
}

function renderBanner() {
  const g = client.game;
  const legal = g.legal || [];
  const forced = client.view === null && g.status === "active" && myTurn() && legal.length > 0 &&
    legal.every((m) => m.captured && m.captured.length > 0);
  els.banner.hidden = !forced;
  if (forced) {
    const rules = I18N.captureRules || {};
    els.banner.textContent = rules[g.capture_rule] || t("captureBanner", { rule: g.capture_rule });
  }
}

function smallButton(label, type, cls = "") {
  const b = button(label, type, { cls });
  b.classList.add("small-button");
  return b;
}

/** The draw offer, in its own line with its own buttons (never glued to the status). */
function renderOffer() {
  const g = client.game;
  const offer = g.status === "active" ? g.draw_offer : null;
  els.offer.hidden = !offer;
  els.offerActions.replaceChildren();
  if (!offer) return;
  if (g.you && offer === g.you) {
    els.offerText.textContent = t("youOfferedDraw");
    const w = smallButton(t("withdraw"), "draw_decline");
    w.addEventListener("click", () => { client.withdrawing = true; }, { capture: true });
    els.offerActions.append(w);
  } else if (g.you) {
    els.offerText.textContent = t("drawOfferedBy", { side: sideName(offer) });
    els.offerActions.append(smallButton(t("accept"), "draw_accept", "primary"),
                            smallButton(t("decline"), "draw_decline"));
  } else {
    els.offerText.textContent = t("drawOfferedBy", { side: sideName(offer) });
  }
}

/** Whether I have a move of mine to take back (the server checks it again). */
function haveMoveToTakeBack() {
  const g = client.game;
  return g.turn === g.you ? g.ply >= 2 : g.ply >= 1;
}

/** The takeback offer between people: its own line, with Accept / Decline or Withdraw.
 * Each button names the ply the offer was made at: a double click, or an answer to an
 * offer a move has just ended, is refused by the server (stale_ply). */
function renderTakebackOffer() {
  const g = client.game;
  const el = els.tbOffer;
  if (!el) return;
  const offer = g.status === "active" && g.takeback_offer && g.takeback_offer.ply === g.ply
    ? g.takeback_offer : null;
  el.hidden = !offer;
  els.tbOfferActions.replaceChildren();
  if (!offer) return;
  const ply = { ply: offer.ply };
  if (g.you && offer.by === g.you) {
    els.tbOfferText.textContent = t("youOfferedTakeback");
    const w = button(t("withdraw"), "takeback_decline", { data: ply });
    w.classList.add("small-button");
    w.addEventListener("click", () => { client.tbWithdrawing = true; }, { capture: true });
    els.tbOfferActions.append(w);
  } else {
    els.tbOfferText.textContent = t("takebackOfferedBy", { side: sideName(offer.by) });
    if (g.you) {
      const yes = button(t("accept"), "takeback_accept", { cls: "primary", data: ply });
      const no = button(t("decline"), "takeback_decline", { data: ply });
      yes.classList.add("small-button");
      no.classList.add("small-button");
      els.tbOfferActions.append(yes, no);
    }
  }
}

// ------------------------------------------------------------------ first moves
function noteServerTime(presence) {
  if (presence && typeof presence.now === "number") client.serverOffset = presence.now - Date.now();
}

/** Whole seconds left for the first move of the side to move (null: no deadline). */
function firstMoveLeft() {
  const g = client.game;
  if (!g || g.status !== "active" || typeof g.abort_at !== "number") return null;
  return Math.max(0, Math.ceil((g.abort_at - (Date.now() + client.serverOffset)) / 1000));
}
let lastFirstMoveLeft = null;
setInterval(() => {
  const left = firstMoveLeft();
  if (left !== lastFirstMoveLeft) {
    lastFirstMoveLeft = left;
    if (client.game && !(board.state.progress || []).length) renderStatus();
  }
  // Past the deadline, ask the server to check it (it aborts the game, or sends the state).
  if (left === 0) checkFirstMoveDeadline();
}, 250);
let deadlineAskedAt = -Infinity;
function checkFirstMoveDeadline() {
  const now = performance.now();
  if (now - deadlineAskedAt < 2000) return;
  deadlineAskedAt = now;
  send("flag");
}

// ------------------------------------------------------------------ opponent left
// The server says from when the opponent's absence may be claimed (presence.claim_at, epoch
// ms, with its own `now`): the page counts down on its own monotonic clock from there.
function noteOpponentPresence(presence) {
  const g = client.game;
  if (!presence || !g || !g.you) return;
  const opp = other(g.you);
  const claimAt = presence.claim_at ? presence.claim_at[opp] : null;
  if (presence[opp] || claimAt === null || claimAt === undefined) {
    client.oppLeftAt = null;  // here (or nothing to claim): no countdown
  } else {
    const serverNow = typeof presence.now === "number" ? presence.now : Date.now();
    client.oppLeftAt = performance.now() + (claimAt - serverNow);  // when claiming opens
  }
}

/** Milliseconds until the player may claim the game (null: nothing to claim). */
function claimWaitMs() {
  const g = client.game;
  if (!g || !g.you || g.status !== "active" || client.oppLeftAt === null) return null;
  return Math.max(0, client.oppLeftAt - performance.now());
}

function renderNotice() {
  const wait = claimWaitMs();
  els.notice.hidden = wait === null;
  if (wait === null) { els.noticeActions.replaceChildren(); return; }
  if (wait > 0) {
    els.noticeText.textContent = t("opponentLeftCountdown", { s: Math.ceil(wait / 1000) });
    if (els.noticeActions.childElementCount) els.noticeActions.replaceChildren();
  } else {
    els.noticeText.textContent = t("opponentLeftClaim");
    if (!els.noticeActions.childElementCount) {
      els.noticeActions.append(smallButton(t("claimVictory"), "claim_victory", "primary"),
                               smallButton(t("callDraw"), "claim_draw"));
    }
  }
}
setInterval(() => { if (client.game && !els.notice.hidden) renderNotice(); }, 250);

function renderSpectators() {
  const g = client.game;
  const n = g && g.presence && typeof g.presence.spectators === "number" ? g.presence.spectators : 0;
  els.spectators.hidden = n <= 0;
  els.spectators.textContent = n > 0 ? t("spectators", { n }) : "";
}

// ------------------------------------------------------------------ result
function resultHeadline() {
  const g = client.game;
  const r = g.result;
  if (g.status === "aborted") return t("aborted");
  if (!r || !r.winner) return t("draw");
  if (g.you) return r.winner === g.you ? t("youWin") : t("youLose");
  return t("wins", { side: sideName(r.winner) });
}

function resultReason() {
  const g = client.game;
  if (g.status === "aborted") {
    const a = g.abort;
    if (a && a.reason === "no_first_move" && a.side) return t("abortedNoFirstMove", { side: sideName(a.side) });
    return a && a.reason === "by_player" ? "" : t("abortedUnrated");
  }
  return g.result ? reasonWords(g.result.reason) : "";
}

function reasonWords(reason) {
  return (I18N.reasons || {})[reason] || reason || "";
}

function renderResult() {
  const g = client.game;
  const over = g.status === "finished" || g.status === "aborted";
  els.result.hidden = !over;
  els.result.replaceChildren();
  if (!over) return;
  const head = document.createElement("span");
  head.textContent = resultHeadline();
  els.result.append(head);
  const reason = document.createElement("span");
  reason.className = "reason";
  reason.textContent = [g.result && g.result.score, resultReason()].filter(Boolean).join(" · ");
  els.result.append(reason);
  const mine = g.ratings && g.you && g.ratings[g.you];
  if (mine) {
    const r = document.createElement("span");
    r.className = "reason rating-change";
    r.textContent = t("ratingChange", { change: ratingChange(mine) });
    els.result.append(r);
  }
}

function renderOverlay() {
  const g = client.game;
  const over = g.status === "finished" || g.status === "aborted";
  if (!over) { els.overlay.hidden = true; client.overlayShownFor = null; return; }
  if (client.overlayShownFor === null) {
    client.overlayShownFor = g.status;  // opened once per ending; the × closes it
    els.overlay.hidden = false;
  }
  els.overlayScore.textContent = (g.result && g.result.score) || "";
  els.overlayScore.hidden = !(g.result && g.result.score);
  els.overlayTitle.textContent = resultHeadline();
  els.overlayReason.textContent = resultReason();
  renderRatings();
  els.overlayActions.replaceChildren(...endActions());
}

els.overlayClose.addEventListener("click", () => {
  els.overlay.hidden = true;
  renderControls();  // the end-of-game actions move under the board
  const first = els.controls.querySelector("button, a");
  if (first) first.focus();
});

/** Rematch, new game, analysis: the same buttons on the overlay and under the board. */
function endActions() {
  const g = client.game;
  const out = [];
  if (g.you && g.status === "finished") {
    const rm = g.rematch;
    if (rm && rm.url) out.push(link(t("toRematch"), rm.url, "primary"));
    else if (rm && rm.offered_by === g.you) out.push(button(t("youOfferedRematch"), "rematch", { disabled: true }));
    else {
      const label = rm && rm.offered_by ? t("acceptRematch") : t("rematch");
      out.push(button(label, "rematch", { cls: "primary" }));
    }
  }
  out.push(link(t("newGame"), "/", out.length ? "" : "primary"));
  if (cfg.analysis && (g.moves || []).length) out.push(link(t("analyse"), analysisUrl()));
  return out;
}

function analysisUrl() {
  return `${cfg.analysis}?game=${encodeURIComponent(cfg.id)}`;
}

function link(label, href, cls = "") {
  const a = document.createElement("a");
  a.className = `button ${cls}`.trim();
  a.href = href;
  a.textContent = label;
  return a;
}

function renderShare() {
  const g = client.game;
  const show = g.status === "waiting" && !!g.you;
  els.share.hidden = !show;
  if (show) els.shareUrl.value = new URL(g.url || location.pathname, location.href).href;
}

els.shareCopy.addEventListener("click", async () => {
  els.shareUrl.select();
  try { await navigator.clipboard.writeText(els.shareUrl.value); } catch (_) { /* selected */ }
  els.shareCopy.textContent = t("copied");
  setTimeout(() => { els.shareCopy.textContent = t("copy"); }, 1500);
});

// ``data``: the frame's payload, read when the button is pressed (a function) or fixed.
// ``confirm``: {text, yes}: the button asks first, in the page (no browser dialog).
function button(label, type, { cls = "", disabled = false, confirm = null, data = null } = {}) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.dataset.action = type;
  if (cls) b.className = cls;
  b.disabled = disabled;
  b.addEventListener("click", () => {
    if (confirm) {
      client.confirming = { type, ...confirm };
      renderControls();
      const no = els.controls.querySelector("[data-confirm=no]");
      if (no) no.focus();
      return;
    }
    send(type, (typeof data === "function" ? data() : data) || {});
  });
  return b;
}

/** The question of a destructive action, with its "yes" and "cancel", in the controls row. */
function confirmStrip() {
  const c = client.confirming;
  const strip = document.createElement("div");
  strip.className = "confirm-strip";
  strip.setAttribute("role", "alertdialog");
  strip.setAttribute("aria-labelledby", "confirm-text");
  const text = document.createElement("span");
  text.className = "confirm-text";
  text.id = "confirm-text";
  text.textContent = c.text;
  const actions = document.createElement("span");
  actions.className = "confirm-actions";
  const yes = document.createElement("button");
  yes.type = "button";
  yes.className = "danger-solid";
  yes.dataset.confirm = "yes";
  yes.textContent = c.yes;
  yes.addEventListener("click", () => {
    client.confirming = null;
    send(c.type, {});
    renderControls();
  });
  const no = document.createElement("button");
  no.type = "button";
  no.dataset.confirm = "no";
  no.textContent = t("cancel");
  no.addEventListener("click", () => {
    client.confirming = null;
    renderControls();
    const again = els.controls.querySelector(`[data-action="${c.type}"]`);
    if (again) again.focus();
  });
  strip.addEventListener("keydown", (ev) => { if (ev.key === "Escape") { ev.stopPropagation(); no.click(); } });
  actions.append(yes, no);
  strip.append(text, actions);
  return strip;
}

function renderControls() {
  const g = client.game;
  const c = els.controls;
  const active = document.activeElement && c.contains(document.activeElement) ? document.activeElement : null;
  const focused = active ? active.dataset.action : null;
  const focusedConfirm = active ? active.dataset.confirm : null;
  c.replaceChildren();
  c.hidden = !g.you;  // spectators get no game controls
  if (!g.you) return;
  if (client.confirming && g.status !== "active") client.confirming = null;
  if (client.confirming) {
    c.append(confirmStrip());
    if (focusedConfirm) {
      const again = c.querySelector(`[data-confirm="${focusedConfirm}"]`);
      if (again) again.focus();
    }
    return;
  }
  if (g.status === "waiting") {
    c.append(button(t("abort"), "abort"));
  } else if (g.status === "active") {
    if (g.ply < 2) c.append(button(t("abort"), "abort"));
    // Abort until both sides moved; from then on (against the computer) take back.
    // The frame names the ply this board shows: a second press (or a repeated frame) after
    // the takeback is refused by the server instead of taking back another turn.
    if (g.takeback_allowed && g.ply >= 2) {
      c.append(button(t("takeback"), "takeback", { data: () => ({ ply: client.game.ply }) }));
    }
    // Between people (casual games): offer to take back my last move; the opponent answers.
    if (g.takeback_offers && !(g.takeback_offer && g.takeback_offer.ply === g.ply) &&
        haveMoveToTakeBack()) {
      c.append(button(t("offerTakeback"), "takeback_offer",
                      { data: () => ({ ply: client.game.ply }) }));
    }
    if (!(g.draw_offer && g.draw_offer !== g.you)) {
      c.append(button(t("offerDraw"), "draw_offer", { disabled: g.draw_offer === g.you }));
    }
    c.append(button(t("resign"), "resign",
                    { cls: "danger", confirm: { text: t("confirmResign"), yes: t("confirmResignYes") } }));
  } else if (els.overlay.hidden) {
    c.append(...endActions());  // while the overlay is open, its own buttons are the ones
  }
  if (focused) {
    const again = c.querySelector(`[data-action="${focused}"]`);
    if (again && !again.disabled) again.focus();
  }
}

// ------------------------------------------------------------------ moves and navigation
function renderMoves() {
  const g = client.game;
  const moves = g.moves || [];
  const ol = els.moves;
  ol.replaceChildren();
  if (!moves.length) {
    showNoMoves(ol, t("noMoves"));
    return;
  }
  // The side that played ply 0: the side to move now if an even number of plies was played.
  const firstMover = g.ply % 2 === 0 ? g.turn : other(g.turn);
  const firstIsBoardFirst = !g.board || firstMover === g.board.first_to_move;
  let i = 0;
  let number = 1;
  const rows = [];
  if (!firstIsBoardFirst) {  // a set-up position where the "second" side starts
    rows.push([-1, 0]);  // -1: the first side's move before the position ("…")
    i = 1;
  }
  for (; i < moves.length; i += 2) rows.push([i, i + 1 < moves.length ? i + 1 : null]);
  const shown = client.view === null ? moves.length : client.view;
  for (const [a, b] of rows) {
    const li = document.createElement("li");
    const no = document.createElement("span");
    no.className = "no";
    no.textContent = `${number++}.`;
    li.append(no, moveCell(a, moves, shown), moveCell(b, moves, shown));
    ol.append(li);
  }
  const current = ol.querySelector(".current");
  if (current && client.view !== null) scrollWithin(ol, current);
  else if (client.view === null) ol.scrollTop = ol.scrollHeight;
}

function moveCell(index, moves, shown) {
  if (index === null || index < 0) {
    const span = document.createElement("span");
    span.textContent = index === null ? "" : "…";
    return span;
  }
  const b = document.createElement("button");
  b.type = "button";
  b.className = "move";
  b.textContent = moves[index];
  b.dataset.ply = String(index + 1);
  if (index + 1 === shown) { b.classList.add("current"); b.setAttribute("aria-current", "step"); }
  b.addEventListener("click", () => goTo(index + 1));
  return b;
}

function lastPly() {
  const g = client.game;
  return g ? (g.moves || []).length : 0;
}

function shownPly() {
  return client.view === null ? lastPly() : client.view;
}

/** Show ply `n` (0 = the start); the last ply is the live board. */
function goTo(n) {
  const g = client.game;
  if (!g) return;
  const target = Math.max(0, Math.min(lastPly(), n));
  if (target === lastPly()) {
    if (client.view === null) return;
    client.view = null;
  } else {
    if (!client.plies || client.plies.length !== lastPly() + 1) { loadReplay(target); return; }
    client.view = target;
  }
  render();
}

function step(kind) {
  if (kind === "first") goTo(0);
  else if (kind === "prev") goTo(shownPly() - 1);
  else if (kind === "next") goTo(shownPly() + 1);
  else goTo(lastPly());
}

function renderNav() {
  const at = shownPly();
  const last = lastPly();
  $("nav-first").disabled = at === 0;
  $("nav-prev").disabled = at === 0;
  $("nav-next").disabled = at >= last;
  $("nav-last").disabled = client.view === null;
  const reviewing = client.view !== null;
  els.reviewNote.hidden = !reviewing;
  if (reviewing) {
    const g = client.game;
    els.reviewNote.textContent = g.status === "active" ? t("reviewingLive", { n: at, total: last })
      : t("reviewing", { n: at, total: last });
  }
}

for (const b of document.querySelectorAll("[data-nav]")) {
  b.addEventListener("click", () => step(b.dataset.nav));
}

document.addEventListener("keydown", (ev) => {
  if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const target = ev.target;
  if (target && target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
  const keys = { ArrowLeft: "prev", ArrowRight: "next", ArrowUp: "first", ArrowDown: "last",
                 Home: "first", End: "last" };
  const kind = keys[ev.key];
  if (!kind || !client.game) return;
  ev.preventDefault();
  step(kind);
});

let replayLoading = null;
/** Fetch every ply's position (replay.json); then show ply `thenShow` if given. A reply
 * that does not match the game as this page knows it (a move was played while it was on its
 * way) is fetched again, a few times. */
function loadReplay(thenShow = null, attempt = 0) {
  if (!cfg.replay) return;
  if (replayLoading) { if (thenShow !== null) replayLoading.then(() => goTo(thenShow)); return; }
  let mismatch = false;
  replayLoading = fetch(cfg.replay, { headers: { Accept: "application/json" } })
    .then((r) => (r.ok ? r.json() : null))
    .then((data) => {
      if (!data || !Array.isArray(data.plies) || !client.game) return;
      if (data.plies.length === lastPly() + 1) client.plies = data.plies;
      else mismatch = true;
    })
    .catch(() => {})
    .finally(() => {
      replayLoading = null;
      if (!client.plies && mismatch && attempt < 4) {
        setTimeout(() => loadReplay(thenShow, attempt + 1), 150 * (attempt + 1));
        return;
      }
      if (thenShow !== null && client.plies) goTo(thenShow);
    });
}

let toastTimer = null;
function showToast(text, kind = "error") {
  els.toast.textContent = text;
  els.toast.dataset.kind = kind;
  els.toast.classList.toggle("shown", !!text);
  clearTimeout(toastTimer);
  if (text) toastTimer = setTimeout(() => { els.toast.textContent = ""; els.toast.classList.remove("shown"); }, 3500);
}

// ------------------------------------------------------------------ page controls
els.flip.addEventListener("click", () => {
  client.orientation = other(orientation());
  render();
});

function renderSoundButton() {
  els.sound.textContent = client.sound ? t("soundOn") : t("soundOff");
  els.sound.setAttribute("aria-pressed", client.sound ? "true" : "false");
}
els.sound.addEventListener("click", () => {
  client.sound = !client.sound;
  localStorage.setItem("kondavo.sound", client.sound ? "on" : "off");
  renderSoundButton();
  playSound("move");
});
renderSoundButton();

// For tests and debugging: the current state, read-only.
Object.defineProperty(window, "kondavoGame", {
  get: () => ({ state: client.game, version: client.version, board: board.state,
                view: client.view, plies: client.plies,
                connected: !!client.ws && client.ws.readyState === WebSocket.OPEN }),
});

showStatus(t("connecting"));
connect();
// Heartbeat: the server counts this page present while it pings (every state.heartbeat_ms).
function heartbeat() {
  send("ping");
  setTimeout(heartbeat, (client.game && client.game.heartbeat_ms) || 5000);
}
setTimeout(heartbeat, 5000);

/** Scroll `list` (not the page) so that `item` is visible. */
function scrollWithin(list, item) {
  const lr = list.getBoundingClientRect();
  const ir = item.getBoundingClientRect();
  if (ir.top < lr.top) list.scrollTop -= lr.top - ir.top;
  else if (ir.bottom > lr.bottom) list.scrollTop += ir.bottom - lr.bottom;
}
