// Kondavo game client: one websocket to /ws/game/<id>/ (docs/protocol.md), one board.
//
// The server is the authority: this script keeps the last `state` it was sent, applies the
// versioned events (move, end, draw_offer, players, rematch) to it, and re-renders. A gap in
// the event versions triggers a resync; a lost connection reconnects with backoff.
import { Board } from "./board.js";

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
};

const board = new Board(els.board, {
  i18n: I18N,
  onMove: (move) => sendMove(move),
  onSelect: (progress) => {
    if (progress.length > 1) showStatus(t("chooseCapture"));
    else if (client.game) renderStatus();
  },
});

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
const EVENTS = new Set(["move", "end", "draw_offer", "players", "rematch"]);

function handle(frame) {
  const { t: type, d: data = {}, v } = frame;
  if (type === "state") {
    client.version = v;
    client.game = data;
    client.clocksAt = performance.now();
    client.pending = false;
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
    if (client.game) { client.game.presence = data; renderPlayers(); renderControls(); }
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
      if ("clocks" in data) { g.clocks = data.clocks; client.clocksAt = performance.now(); }
      client.pending = false;
      // My own move sounded when it was sent; the opponent's (or any, watching) sounds now.
      if (!g.you || g.you === data.turn) playSound(data.captured && data.captured.length ? "capture" : "move");
      break;
    }
    case "end":
      g.status = data.status;
      g.result = data.result;
      g.legal = [];
      g.draw_offer = null;
      if (g.clocks) { freezeClocks(); g.clocks.running = null; }
      playSound("end");
      break;
    case "draw_offer":
      g.draw_offer = data.by;
      break;
    case "players":
      g.players = data.players;
      if (g.status !== data.status) send("resync");  // the game starts: fetch legal moves, clocks
      g.status = data.status;
      break;
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
  showToast(errors[code] || data.message || errors.generic || "");
  if (["stale_ply", "illegal_move", "ambiguous_move", "not_your_turn", "game_over"].includes(code)) {
    client.pending = false;
    send("resync");  // put the board back as the server has it
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
  const movable = myTurn() && !client.pending ? g.you : null;
  board.set({
    board: g.board,
    fen: g.fen,
    legal: movable ? (g.legal || []) : [],
    movable,
    lastMove: g.last_move,
    orientation: orientation(),
    ...(fresh ? { capturedPieces: [] } : {}),
  });
  els.meta.textContent = [g.time_control === "untimed" ? t("untimed") : g.time_control,
                          g.rated ? t("rated") : t("casual")].join(" · ");
  renderPlayers();
  renderStatus();
  renderBanner();
  renderResult();
  renderShare();
  renderControls();
  renderMoves();
  tickClocks();
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
  presence.setAttribute("aria-hidden", "true");
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
  const bits = [sideName(side)];
  if (p && p.rating) bits.push(String(p.rating));
  if (bot) bits.push(t("bot"));
  if (g.you === side) bits.push(t("you"));
  meta.textContent = bits.join(" · ");
  who.append(sw, presence, name, meta);
  el.append(who);
  if (g.clocks) {
    const clock = document.createElement("span");
    clock.className = `clock${g.clocks.running === side ? " running" : ""}`;
    clock.dataset.side = side;
    clock.setAttribute("role", "timer");
    clock.setAttribute("aria-label", sideName(side));
    el.append(clock);
  }
  el.dataset.side = side;
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
    if (!g.you) showStatus(`${t("spectator")} ${t("toMove", { side: sideName(g.turn) })}`);
    else showStatus(myTurn() ? t("yourTurn") : t("theirTurn"));
  } else if (g.status === "aborted") showStatus(t("aborted"));
  else showStatus(g.you ? "" : t("spectator"));
  if (g.status === "active" && g.draw_offer) {
    const offer = g.draw_offer === g.you ? t("youOfferedDraw") : t("drawOfferedBy", { side: sideName(g.draw_offer) });
    showStatus(`${els.status.textContent} ${offer}`.trim());
  }
}

function renderBanner() {
  const g = client.game;
  const legal = g.legal || [];
  const forced = g.status === "active" && myTurn() && legal.length > 0 &&
    legal.every((m) => m.captured && m.captured.length > 0);
  els.banner.hidden = !forced;
  if (forced) {
    const rules = I18N.captureRules || {};
    els.banner.textContent = rules[g.capture_rule] || t("captureBanner", { rule: g.capture_rule });
  }
}

function renderResult() {
  const g = client.game;
  const r = g.result;
  els.result.hidden = !(g.status === "finished" || g.status === "aborted");
  els.result.replaceChildren();
  if (els.result.hidden) return;
  const head = document.createElement("span");
  if (g.status === "aborted") head.textContent = t("aborted");
  else if (!r || !r.winner) head.textContent = t("draw");
  else if (g.you) head.textContent = r.winner === g.you ? t("youWin") : t("youLose");
  else head.textContent = t("wins", { side: sideName(r.winner) });
  els.result.append(head);
  if (r) {
    const reason = document.createElement("span");
    reason.className = "reason";
    const words = (I18N.reasons || {})[r.reason] || r.reason || "";
    reason.textContent = [r.score, words].filter(Boolean).join(" · ");
    els.result.append(reason);
  }
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

function button(label, type, { cls = "", disabled = false, confirmText = null } = {}) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.dataset.action = type;
  if (cls) b.className = cls;
  b.disabled = disabled;
  b.addEventListener("click", () => {
    if (confirmText && !window.confirm(confirmText)) return;
    send(type);
  });
  return b;
}

function renderControls() {
  const g = client.game;
  const c = els.controls;
  const focused = document.activeElement && c.contains(document.activeElement)
    ? document.activeElement.dataset.action : null;
  c.replaceChildren();
  c.hidden = !g.you;  // spectators get no game controls
  if (!g.you) return;
  const opp = other(g.you);
  if (g.status === "waiting") {
    c.append(button(t("abort"), "abort"));
  } else if (g.status === "active") {
    if (g.ply < 2) c.append(button(t("abort"), "abort"));
    if (g.draw_offer && g.draw_offer !== g.you) {
      c.append(button(t("accept"), "draw_accept", { cls: "primary" }), button(t("decline"), "draw_decline"));
    } else {
      c.append(button(t("offerDraw"), "draw_offer", { disabled: g.draw_offer === g.you }));
    }
    c.append(button(t("resign"), "resign", { cls: "danger", confirmText: t("confirmResign") }));
    const oppPlayer = g.players && g.players[opp];
    if (g.presence && !g.presence[opp] && oppPlayer && oppPlayer.kind !== "bot") {
      c.append(button(t("claimVictory"), "claim_victory"));
    }
  } else {
    const rm = g.rematch;
    if (rm && rm.url) {
      const a = document.createElement("a");
      a.className = "button primary";
      a.href = rm.url;
      a.textContent = t("toRematch");
      c.append(a);
    } else if (rm && rm.offered_by === g.you) {
      c.append(button(t("youOfferedRematch"), "rematch", { disabled: true }));
    } else {
      const label = rm && rm.offered_by ? `${t("rematch")} ✓` : t("rematch");
      c.append(button(label, "rematch", { cls: "primary" }));
      if (rm && rm.offered_by) showStatus(t("rematchOffered", { side: sideName(rm.offered_by) }));
    }
    const a = document.createElement("a");
    a.className = "button";
    a.href = "/";
    a.textContent = t("newGame");
    c.append(a);
  }
  if (focused) {
    const again = c.querySelector(`[data-action="${focused}"]`);
    if (again && !again.disabled) again.focus();
  }
}

function renderMoves() {
  const g = client.game;
  const moves = g.moves || [];
  const ol = els.moves;
  ol.replaceChildren();
  if (!moves.length) {
    const li = document.createElement("li");
    const span = document.createElement("span");
    span.className = "small";
    span.style.gridColumn = "1 / -1";
    span.textContent = t("noMoves");
    li.append(span);
    ol.append(li);
    return;
  }
  // The side that played ply 0: the side to move now if an even number of plies was played.
  const firstMover = g.ply % 2 === 0 ? g.turn : other(g.turn);
  const firstIsBoardFirst = !g.board || firstMover === g.board.first_to_move;
  let i = 0;
  let number = 1;
  const rows = [];
  if (!firstIsBoardFirst) {  // a set-up position where the "second" side starts
    rows.push([null, moves[0]]);
    i = 1;
  }
  for (; i < moves.length; i += 2) rows.push([moves[i], moves[i + 1]]);
  for (const [a, b] of rows) {
    const li = document.createElement("li");
    const no = document.createElement("span");
    no.className = "no";
    no.textContent = `${number++}.`;
    const sa = document.createElement("span");
    sa.textContent = a === null ? "…" : a;
    const sb = document.createElement("span");
    sb.textContent = b || "";
    li.append(no, sa, sb);
    ol.append(li);
  }
  const spans = ol.querySelectorAll("li span:not(.no)");
  const lastIndex = (firstIsBoardFirst ? 0 : 1) + moves.length - 1;
  if (spans[lastIndex]) spans[lastIndex].classList.add("current");
  ol.scrollTop = ol.scrollHeight;
}

let toastTimer = null;
function showToast(text) {
  els.toast.textContent = text;
  clearTimeout(toastTimer);
  if (text) toastTimer = setTimeout(() => { els.toast.textContent = ""; }, 5000);
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
