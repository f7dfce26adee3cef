// Kondavo game chat (docs/protocol.md, "Chat"): the players' room and the spectators' room
// of one game, over the game's own socket (no second socket). Lines are text only: they
// are put in the page with textContent, never as HTML.
//
// initChat({ send, words }) -> { onState(state), onFrame(frame) }: ``state`` is the game's
// state (its ``chat`` and ``fair_play`` parts are used here).
//   send(type, data): a frame on the game socket; words: the page's chat translations
//   (frontend/jsi18n.py -> kondavo/chat/strings.py).

const $ = (id) => document.getElementById(id);
const MUTED_KEY = "kondavo.chat.muted";  // client-side hide (the server also stops them)

function loadMuted() {
  try { return new Set(JSON.parse(localStorage.getItem(MUTED_KEY) || "[]")); }
  catch (_) { return new Set(); }
}

export function initChat({ send, words: strings }) {
  const root = $("chat");
  if (!root) return { onState() {}, onFrame() {} };
  const els = {
    tabs: $("chat-tabs"), lines: $("chat-lines"), form: $("chat-form"),
    input: $("chat-input"), note: $("chat-note"), count: $("chat-count"),
  };
  const state = { rooms: {}, write: [], current: null, muted: loadMuted(), max: 200, me: null };
  const words = () => strings || {};
  const kindOf = (room) => room.split(".").pop();

  // Open on wide screens; on a phone the box stays folded until tapped.
  if (window.matchMedia && window.matchMedia("(min-width: 900px)").matches) root.open = true;

  function saveMuted() {
    try { localStorage.setItem(MUTED_KEY, JSON.stringify([...state.muted])); } catch (_) { /* private mode */ }
  }

  function renderTabs() {
    els.tabs.replaceChildren();
    const rooms = Object.keys(state.rooms);
    els.tabs.hidden = rooms.length < 2;
    for (const room of rooms) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "chat-tab";
      b.textContent = words()[kindOf(room)] || kindOf(room);
      b.setAttribute("aria-pressed", String(room === state.current));
      b.addEventListener("click", () => { state.current = room; render(); });
      els.tabs.append(b);
    }
  }

  function lineItem(line) {
    const li = document.createElement("li");
    li.className = "chat-line";
    li.dataset.id = String(line.id);
    const who = document.createElement("strong");
    who.textContent = line.author;
    const text = document.createElement("span");
    text.className = "chat-text";
    text.textContent = " " + line.text;
    const menu = document.createElement("span");
    menu.className = "chat-actions";
    const mute = document.createElement("button");
    mute.type = "button";
    mute.className = "chat-action";
    mute.textContent = words().mute || "mute";
    mute.title = (words().muteTitle || "").replace("{name}", line.author);
    mute.addEventListener("click", () => {
      state.muted.add(line.author); saveMuted();
      send("chat_mute", { name: line.author, mute: true });
      render();
    });
    const report = document.createElement("button");
    report.type = "button";
    report.className = "chat-action";
    report.textContent = words().report || "report";
    report.addEventListener("click", () => {
      send("chat_report", { id: line.id });
      report.disabled = true;
    });
    menu.append(mute, report);
    li.append(who, text);
    if (line.author !== state.me) li.append(menu);  // nothing to mute or report in one's own
    return li;
  }

  function renderLines() {
    const lines = (state.rooms[state.current] || []).filter((l) => !state.muted.has(l.author));
    els.lines.replaceChildren(...lines.map(lineItem));
    if (!lines.length) {
      const li = document.createElement("li");
      li.className = "chat-empty small";
      li.textContent = words().empty || "";
      els.lines.append(li);
    }
    els.lines.scrollTop = els.lines.scrollHeight;
  }

  function renderForm() {
    const canWrite = state.write.includes(state.current);
    els.form.hidden = !canWrite;
    els.input.maxLength = state.max;
    els.note.hidden = canWrite;
    els.note.textContent = canWrite ? "" : (words().readOnly || "");
  }

  function render() { renderTabs(); renderLines(); renderForm(); }

  // Why a game asked for as rated is casual (fair play: the daily limit between two players).
  function renderFairPlay(fp) {
    const el = $("fair-play-note");
    if (!el) return;
    el.hidden = !fp;
    el.textContent = fp ? (words().fairPlayPairLimit || "").replace("{n}", String(fp.limit)) : "";
  }

  function addLine(line) {
    const list = state.rooms[line.room];
    if (!list || list.some((l) => l.id === line.id)) return;
    list.push(line);
    if (list.length > 200) list.splice(0, list.length - 200);
    if (line.room === state.current) renderLines();
    if (!root.open || line.room !== state.current) els.count.textContent = "•";
  }

  els.form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = els.input.value.trim();
    if (!text || !state.current) return;
    if (send("chat", { room: kindOf(state.current), text })) els.input.value = "";
  });
  root.addEventListener("toggle", () => { if (root.open) els.count.textContent = ""; });

  return {
    onState(game) {
      renderFairPlay(game.fair_play);
      const chat = game.chat;
      if (!chat) { root.hidden = true; return; }
      root.hidden = false;
      state.rooms = {};
      for (const [room, lines] of Object.entries(chat.rooms || {})) state.rooms[room] = [...lines];
      state.write = chat.write || [];
      state.max = chat.max_length || 200;
      state.me = chat.me || null;
      for (const name of chat.muted || []) state.muted.add(name);
      const rooms = Object.keys(state.rooms);
      if (!rooms.includes(state.current)) state.current = rooms[0] || null;
      render();
    },
    onFrame({ t: type, d: data = {} }) {
      if (type === "chat" && data.line) addLine(data.line);
      else if (type === "chat_remove") {
        const ids = new Set(data.ids || []);
        const list = state.rooms[data.room];
        if (list) state.rooms[data.room] = list.filter((l) => !ids.has(l.id));
        renderLines();
      } else if (type === "chat_muted") {
        state.muted = new Set(data.muted || []); saveMuted(); renderLines();
      } else if (type === "chat_reported") {
        els.note.hidden = false;
        els.note.textContent = words().reported || "";
      }
    },
  };
}
