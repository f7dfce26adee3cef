// The notification bell, on every page of a player: one /ws/notify/ socket per page
// (docs/protocol.md, "Notification socket"). The server sends the latest notifications on
// connect, each new or changed one live, and the unread count; a challenge is answered
// here (accept / decline / block), wherever the player is.
const cfgEl = document.getElementById("kondavo-notify");
const cfg = cfgEl ? JSON.parse(cfgEl.textContent) : null;
const I18N = (cfg && cfg.i18n) || {};
const t = (key) => (I18N[key] !== undefined ? I18N[key] : key);
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (values[k] !== undefined ? values[k] : m));

const bell = document.getElementById("notify-bell");
const panel = document.getElementById("notify-panel");
const list = document.getElementById("notify-list");
const countEl = document.getElementById("notify-count");
const statusEl = document.getElementById("notify-status");
const toasts = document.getElementById("notify-toasts");
const permission = document.getElementById("notify-permission");
const readAll = document.getElementById("notify-read-all");

let ws = null;
let retries = 0;
let items = new Map();  // id -> item, newest first by insertion order on render
let unread = 0;

function send(type, data) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: type, d: data || {} }));
}

function rulesetName(key, fallback) {
  const el = document.getElementById("kondavo-rulesets");
  if (el) {
    try {
      const found = JSON.parse(el.textContent).find((r) => r.key === key);
      if (found) return found.name;
    } catch (_) { /* no names on this page */ }
  }
  return fallback || key;
}

/** The words of one notification. */
function textOf(item) {
  const d = item.data || {};
  switch (item.kind) {
    case "challenge":
      return fill(t("challenge"), {
        name: d.from, ruleset: rulesetName(d.variant, d.variant_name),
        time: d.time_control === "untimed" ? t("untimed") : d.time_control,
        mode: d.rated ? t("rated") : t("casual"), colour: t(d.color || "random"),
      });
    case "challenge_answer":
      return fill(t({ accepted: "answerAccepted", declined: "answerDeclined" }[d.status] || "answerExpired"),
                  { name: d.by });
    case "rematch": return fill(t("rematch"), { name: d.from });
    case "joined": return fill(t("joined"), { name: d.by });
    case "turn": return fill(t("turn"), { name: d.opponent });
    default:  // e.g. a tournament's: a template key and its values, in the reader's words
      return d.template && I18N[d.template] !== undefined ? fill(t(d.template), d) : d.text || "";
  }
}

/** The challenge's buttons (while it waits for an answer), or where it stands. */
function actionsOf(item) {
  const box = document.createElement("div");
  box.className = "notify-actions";
  const d = item.data || {};
  if (item.kind === "challenge" && d.status === "pending") {
    const accept = button(t("accept"), "primary", () => send("accept", { id: d.challenge_id }));
    accept.dataset.action = "accept";
    const decline = button(t("decline"), "", () => send("decline", { id: d.challenge_id }));
    decline.dataset.action = "decline";
    const block = button(t("block"), "link-button", () => send("decline", { id: d.challenge_id, block: true }));
    block.dataset.action = "block";
    box.append(accept, decline, block);
  } else if (item.kind === "challenge") {
    const s = document.createElement("span");
    s.className = "notify-state";
    s.textContent = t(d.status);
    box.append(s);
  }
  if (item.url && item.url !== location.pathname) {
    const a = document.createElement("a");
    a.href = item.url;
    a.className = "button";
    a.textContent = t("open");
    a.addEventListener("click", () => send("read", { ids: [item.id] }));
    box.append(a);
  }
  return box;
}

function button(text, cls, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  if (cls) b.className = cls;
  b.textContent = text;
  b.addEventListener("click", () => { b.disabled = true; onClick(); });
  return b;
}

function entry(item) {
  const li = document.createElement("li");
  li.className = "notify-item" + (item.read ? "" : " unread");
  li.dataset.id = item.id;
  li.dataset.kind = item.kind;
  const p = document.createElement("p");
  p.textContent = textOf(item);
  li.append(p, actionsOf(item));
  return li;
}

function render() {
  list.replaceChildren();
  const sorted = [...items.values()].sort((a, b) => b.created - a.created || b.id - a.id);
  if (!sorted.length) {
    const li = document.createElement("li");
    li.className = "notify-empty";
    li.textContent = t("empty");
    list.append(li);
  }
  for (const item of sorted) list.append(entry(item));
  countEl.textContent = String(unread);
  countEl.hidden = unread <= 0;
  bell.classList.toggle("has-unread", unread > 0);
}

/** A notification worth interrupting for: a toast on the page (and the browser's). */
function toast(item) {
  if (item.read) return;
  for (const old of toasts.querySelectorAll(`[data-id="${item.id}"]`)) old.remove();
  const box = entry(item);
  box.classList.add("notify-toast");
  const close = button("×", "link-button notify-close", () => box.remove());
  close.setAttribute("aria-label", t("close"));
  box.prepend(close);
  toasts.prepend(box);
  while (toasts.children.length > 3) toasts.lastElementChild.remove();
  if (item.kind !== "challenge") setTimeout(() => box.remove(), 15000);
  if ("Notification" in window && Notification.permission === "granted" && document.hidden) {
    try { new Notification("Kondavo", { body: textOf(item), tag: `kondavo-${item.id}` }); } catch (_) { /* not allowed here */ }
  }
}

/** About the page being looked at (e.g. "your turn" in this game): read at once. */
function readHere(list) {
  const here = list.filter((i) => !i.read && i.url && i.url === location.pathname && i.kind !== "challenge");
  if (here.length) send("read", { ids: here.map((i) => i.id) });
  return here.length > 0;
}

function onFrame(frame) {
  const d = frame.d || {};
  if (frame.t === "notifications") {
    items = new Map((d.items || []).map((i) => [i.id, i]));
    unread = d.unread || 0;
    render();
    readHere(d.items || []);
    // A challenge still waiting for an answer shows on any page.
    for (const item of d.items || []) {
      if (item.kind === "challenge" && !item.read && (item.data || {}).status === "pending") toast(item);
    }
  } else if (frame.t === "notification") {
    const item = d.item;
    items.set(item.id, item);
    unread = d.unread || 0;
    render();
    for (const old of toasts.querySelectorAll(`[data-id="${item.id}"]`)) {
      if (item.read) old.remove(); else old.replaceWith(Object.assign(entry(item), { className: old.className }));
    }
    if (!readHere([item])) toast(item);
    document.dispatchEvent(new CustomEvent("kondavo:notification", { detail: item }));
  } else if (frame.t === "unread") {
    unread = d.unread || 0;
    for (const item of items.values()) {
      if (d.read === null || (d.read || []).includes(item.id)) item.read = true;
    }
    render();
  } else if (frame.t === "game" && d.url) {
    location.href = d.url;
  } else if (frame.t === "error") {
    const message = (I18N.errors || {})[d.code] || d.message || (I18N.errors || {}).generic || "";
    statusEl.textContent = message;
    const first = toasts.querySelector(".notify-toast");
    if (first) {
      let note = first.querySelector(".notify-error");
      if (!note) { note = document.createElement("p"); note.className = "notify-error"; first.append(note); }
      note.textContent = message;
    }
    for (const b of document.querySelectorAll(".notify-actions button:disabled")) b.disabled = false;
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${cfg.ws}`);
  ws = socket;
  socket.addEventListener("open", () => { retries = 0; statusEl.textContent = ""; });
  socket.addEventListener("message", (ev) => {
    let frame;
    try { frame = JSON.parse(ev.data); } catch (_) { return; }
    onFrame(frame);
  });
  socket.addEventListener("close", (ev) => {
    if (socket !== ws) return;
    if (ev.code === 4403) return;  // no identity: nothing to be notified of
    // After a refusal (4008, 4029) wait longer; always with jitter (a classroom reconnects
    // together after a restart).
    const base = ev.code === 4008 || ev.code === 4029 ? 30000 : Math.min(30000, 1000 * 2 ** retries);
    retries += 1;
    setTimeout(connect, base * (0.5 + Math.random()));
  });
}

if (cfg && bell && panel) {
  bell.addEventListener("click", () => {
    const open = bell.getAttribute("aria-expanded") !== "true";
    bell.setAttribute("aria-expanded", open ? "true" : "false");
    panel.hidden = !open;
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !panel.hidden) {
      panel.hidden = true;
      bell.setAttribute("aria-expanded", "false");
      bell.focus();
    }
  });
  readAll.addEventListener("click", () => send("read", { all: true }));
  // Browser notifications only after the player asks for them, from this button.
  if ("Notification" in window && Notification.permission === "default") {
    permission.hidden = false;
    permission.addEventListener("click", async () => {
      try { await Notification.requestPermission(); } finally { permission.hidden = true; }
    });
  }
  render();
  connect();
  setInterval(() => send("ping"), 25000);
}
