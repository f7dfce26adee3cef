// Kondavo live lobby: /ws/lobby/ sends the full list of open seeks after every change, and
// a `game` frame to both players when a seek is accepted. Challenges to a named player
// go out from here too (their answers come through the notification bell, notify.js).
const cfg = JSON.parse(document.getElementById("kondavo-lobby").textContent);
const I18N = cfg.i18n || {};
const t = (key) => (I18N[key] !== undefined ? I18N[key] : key);
// Ruleset names in the page's language (the seek frames carry the engine's English name).
const RULESET_NAMES = Object.fromEntries(
  JSON.parse(document.getElementById("kondavo-rulesets").textContent).map((r) => [r.key, r.name]));

const tbody = document.getElementById("seeks");
const statusEl = document.getElementById("lobby-status");
const form = document.getElementById("seek-form");
let ws = null;
let retries = 0;
let seeks = [];
// A visitor without an identity (no guest yet) is refused `seek`/`accept` with
// `not_a_player`: the page then asks for one (POST), reconnects and sends the action again.
let pending = null;
let askedIdentity = false;

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${scheme}://${location.host}${cfg.ws}`);
  const socket = ws;
  socket.addEventListener("open", () => {
    retries = 0;
    statusEl.textContent = "";
    if (pending && askedIdentity) send(pending.type, pending.data);
    pending = null;
  });
  socket.addEventListener("message", (ev) => {
    let frame;
    try { frame = JSON.parse(ev.data); } catch (_) { return; }
    if (frame.t === "seeks") { seeks = frame.d.seeks || []; render(); }
    else if (frame.t === "game" && frame.d && frame.d.url) {
      statusEl.textContent = t("gameStarting");
      location.href = frame.d.url;
    } else if (frame.t === "error") {
      if (frame.d.code === "not_a_player" && pending && !askedIdentity) { becomeGuest(); return; }
      pending = null;
      // The socket's words are English: a page in another language shows its own sentence.
      const english = (document.documentElement.lang || "en").toLowerCase().startsWith("en");
      statusEl.textContent = (I18N.errors || {})[frame.d.code] ||
        (english ? frame.d.message : "") || (I18N.errors || {}).generic || "";
      tbody.querySelectorAll("button:disabled").forEach((b) => { b.disabled = false; });
    }
  });
  socket.addEventListener("close", () => {
    if (socket !== ws) return;
    statusEl.textContent = t("reconnecting");
    const delay = Math.min(15000, 500 * 2 ** retries) * (0.75 + Math.random() * 0.5);
    retries += 1;
    setTimeout(connect, delay);
  });
}

async function becomeGuest() {
  askedIdentity = true;
  const token = (document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/) || [])[1] || "";
  const resp = await fetch(cfg.guest, { method: "POST", credentials: "same-origin",
                                         headers: { "X-CSRFToken": token, Accept: "application/json" } });
  if (!resp.ok) {
    const body = await resp.json().catch(() => ({}));
    statusEl.textContent = (body.error && body.error.message) || ((I18N.errors || {}).generic || "");
    pending = null;
    return;
  }
  const old = ws;
  ws = null;  // no reconnect timer for the old socket: reconnect now, with the new session
  if (old) old.close();
  connect();
}

function act(type, data) { pending = { type, data }; send(type, data); }

// Challenges: sent from here (or a profile, which comes back here with ?challenge=<id>);
// nobody is seated until the other player accepts. The answer arrives as a notification
// (notify.js dispatches "kondavo:notification"): accepted -> both open the game.
const challengeForm = document.getElementById("challenge-form");
const notice = document.getElementById("challenge-notice");
let waitingFor = Number(new URLSearchParams(location.search).get("challenge")) || null;

function csrf() { return (document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/) || [])[1] || ""; }

function showWaiting(text) {
  notice.replaceChildren();
  const span = document.createElement("span");
  span.textContent = text;
  notice.append(span);
  if (waitingFor) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t("withdraw");
    const id = waitingFor;
    b.addEventListener("click", async () => {
      b.disabled = true;
      await fetch(`/games/challenges/${id}/cancel`, { method: "POST", credentials: "same-origin",
                                                       headers: { "X-CSRFToken": csrf(), Accept: "application/json" } });
      waitingFor = null;
      notice.hidden = true;
    });
    notice.append(b);
  }
  notice.hidden = false;
}

if (waitingFor) showWaiting(t("challengeSentTo"));

document.addEventListener("kondavo:notification", (ev) => {
  const item = ev.detail || {};
  const d = item.data || {};
  if (item.kind !== "challenge_answer" || !waitingFor || d.challenge_id !== waitingFor) return;
  if (d.status === "accepted" && item.url) { statusEl.textContent = t("gameStarting"); location.href = item.url; return; }
  waitingFor = null;
  showWaiting(t(d.status === "declined" ? "challengeDeclined" : "challengeExpired").replace("{name}", d.by));
});

challengeForm.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const data = new FormData(challengeForm);
  const name = String(data.get("name") || "").trim();
  if (!name) return;
  const button = challengeForm.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const resp = await fetch(`/games/challenge/${encodeURIComponent(name)}`, {
      method: "POST", credentials: "same-origin",
      headers: { "X-CSRFToken": csrf(), Accept: "application/json", "Content-Type": "application/json" },
      body: JSON.stringify({ ruleset: data.get("ruleset"), time_control: data.get("time_control"),
                             color: data.get("color"), rated: data.get("rated") === "on" }),
    });
    const body = await resp.json().catch(() => ({}));
    if (!resp.ok) {
      waitingFor = null;
      showWaiting((body.error && body.error.message) || (I18N.errors || {}).generic || "");
      return;
    }
    waitingFor = body.challenge;
    showWaiting(t("challengeWaiting").replace("{name}", body.opponent));
  } finally {
    button.disabled = false;
  }
});

function send(type, data) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: type, d: data }));
}

function render() {
  tbody.replaceChildren();
  if (!seeks.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 7;
    td.className = "empty-state";
    td.textContent = t("noSeeks");
    tr.append(td);
    tbody.append(tr);
  }
  for (const s of seeks) {
    const tr = document.createElement("tr");
    tr.dataset.seek = s.id;
    if (s.mine) tr.className = "mine";
    // The author's colour; a visitor accepting it gets the other one.
    const colour = { white: t("White"), black: t("Black"), random: t("randomColour") }[s.color || "random"];
    const cells = [s.mine ? `${s.player} (${t("you")})` : s.player,
                   s.rating ? String(s.rating) : "–",
                   RULESET_NAMES[s.variant] || s.variant_name,
                   s.time_control === "untimed" ? t("untimed") : s.time_control,
                   s.rated ? t("rated") : t("casual"), colour];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      if (i === 4) td.className = s.rated ? "mode rated" : "mode";
      if (i === 5) td.dataset.color = s.color || "random";
      tr.append(td);
    });
    const td = document.createElement("td");
    const b = document.createElement("button");
    b.type = "button";
    if (s.mine) {
      b.textContent = t("cancel");
      b.addEventListener("click", () => send("cancel", { id: s.id }));
    } else {
      b.textContent = t("join");
      b.className = "primary";
      b.addEventListener("click", () => { b.disabled = true; act("accept", { id: s.id }); });
    }
    td.append(b);
    tr.append(td);
    tbody.append(tr);
  }
  if (seeks.some((s) => s.mine)) statusEl.textContent = t("seekWaiting");
  else if (statusEl.textContent === t("seekWaiting")) statusEl.textContent = "";
}

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const data = new FormData(form);
  act("seek", { variant: data.get("variant"), time_control: data.get("time_control"),
                rated: data.get("rated") === "on", color: data.get("color") || "random" });
});

statusEl.textContent = t("connecting");
connect();
setInterval(() => send("ping", {}), 25000);
