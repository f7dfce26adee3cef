// A tournament page: the socket /ws/tournament/<id>/ (docs/protocol.md, "Tournament
// socket"): standings, games and the podium live; "game" takes the player into a new game.
import { initChat } from "../frontend/chat.js";

const cfg = JSON.parse(document.getElementById("kondavo-tournament").textContent);
const T = JSON.parse(document.getElementById("kondavo-tournament-i18n").textContent);
const $ = (id) => document.getElementById(id);
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (values[k] !== undefined ? values[k] : m));
let ws = null;
let retry = 1000;
let state = { status: $("t-clock").dataset.status, starts: +$("t-clock").dataset.starts * 1000,
              ends: $("t-clock").dataset.ends ? +$("t-clock").dataset.ends * 1000 : null,
              skew: 0, round: 0, rounds: 0 };
let shown = 0;

function fmt(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = String(m).padStart(h ? 2 : 1, "0"), ss = String(r).padStart(2, "0");
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

function tick() {
  const now = Date.now() + state.skew;
  const el = $("t-clock");
  if (state.status === "created") el.textContent = fill(T.startsIn, { time: fmt(state.starts - now) });
  else if (state.status === "started" && cfg.kind === "arena" && state.ends)
    el.textContent = fill(T.endsIn, { time: fmt(state.ends - now) });
  else if (state.status === "started")
    el.textContent = fill(T.round, { n: state.round, m: state.rounds });
  else el.textContent = state.status === "cancelled" ? T.cancelled : T.finished;
}

function points(n) {
  const whole = Math.floor(n);
  return n === whole ? String(n) : (whole ? `${whole}½` : "½");
}

const pointsText = (p) => (cfg.kind === "arena" ? String(p) : points(p / 2));

function sheet(items) {
  return items.map((g) => {
    const span = document.createElement("span");
    span.className = `t-pt t-${g.r}${g.f ? " t-fire" : ""}${g.k ? " t-berserk" : ""}`;
    // Arenas show the points a game gave (2/1/0, doubled on a streak, +1 berserk); Swiss
    // and round-robin count half points (p is twice the score: a win 1, a draw ½, a bye 1).
    span.textContent = pointsText(g.p);
    return span;
  });
}

function row(r) {
  const li = document.createElement("li");
  li.className = "t-row" + (r.id === cfg.player ? " t-mine" : "");
  li.dataset.player = r.id;
  const rank = document.createElement("span"); rank.className = "t-rank"; rank.textContent = r.rank;
  const name = document.createElement("a"); name.className = "t-name";
  name.href = `/profile/${encodeURIComponent(r.name)}/`; name.textContent = r.name;
  const rating = document.createElement("span"); rating.className = "small t-rating";
  rating.textContent = r.rating ?? "";
  const marks = document.createElement("span"); marks.className = "small t-marks";
  marks.textContent = [r.playing ? T.playing : "", r.paused ? T.paused : "",
                       r.withdrawn ? T.withdrawn : ""].filter(Boolean).join(" ");
  if (r.fire) {  // a winning streak: the next win counts double
    const fire = document.createElement("span");
    fire.className = "t-streak"; fire.title = T.fire; fire.textContent = "×2";
    marks.prepend(fire, marks.textContent ? " " : "");
  }
  const sh = document.createElement("span"); sh.className = "t-sheet"; sh.append(...sheet(r.sheet.slice(-10)));
  const score = document.createElement("strong"); score.className = "t-score"; score.textContent = r.score;
  score.setAttribute("aria-label", fill(T.score, { n: r.score }));
  li.append(rank, name, rating, marks, sh, score);
  return li;
}

function standings(d) {
  state.status = d.status; state.round = d.round; state.rounds = d.rounds;
  state.starts = d.starts_at; state.ends = d.ends_at; state.skew = d.now - Date.now();
  $("t-players").textContent = `· ${fill(T.players, { n: d.players })}`;
  const rows = $("t-rows");
  rows.replaceChildren(...d.rows.map(row));
  shown = d.rows.length;
  $("t-more").hidden = shown >= d.players;
  const f = $("t-featured");
  f.hidden = !d.featured;
  if (d.featured) $("t-featured-link").href = d.featured.url;
  $("t-games").replaceChildren(...d.games.map((g) => {
    const li = document.createElement("li");
    li.className = "t-pairing";
    const text = g.black === null ? `${g.white} — ${T.bye}`
      : `${g.white} – ${g.black}` + (g.result ? ` (${pointsText(g.points[0])}–${pointsText(g.points[1])})` : "");
    if (g.url) { const a = document.createElement("a"); a.href = g.url; a.textContent = text; li.append(a); }
    else li.textContent = text;
    return li;
  }));
  const pod = $("t-podium");
  pod.hidden = !d.podium;
  if (d.podium) {
    pod.replaceChildren(...d.podium.map((p) => {
      const div = document.createElement("div");
      div.className = `t-step t-step-${p.rank}`;
      const n = document.createElement("strong"); n.textContent = p.name;
      const s = document.createElement("span"); s.textContent = fill(T.score, { n: p.score });
      const r = document.createElement("span"); r.className = "t-place"; r.textContent = p.rank;
      div.append(r, n, s);
      return div;
    }));
  }
  tick();
}

function me(entry) {
  const box = $("t-game");
  if (!entry) { box.hidden = true; return; }
  $("t-me-line").textContent = fill(T.you, { rank: entry.rank, score: entry.score, games: entry.games });
  $("t-results").replaceChildren(...sheet(entry.sheet));
  box.hidden = !entry.game;
  if (entry.game) {
    $("t-game-link").href = entry.game.url;
    $("t-berserk").hidden = !(cfg.kind === "arena" && cfg.berserk !== false && !entry.game.berserk);
  }
}

function send(type, data) {
  if (!ws || ws.readyState !== 1) return false;
  ws.send(JSON.stringify({ t: type, d: data || {} }));
  return true;
}

// The tournament's chat room (chat.js, the game page's chat box) over this socket.
const chat = initChat({ send, words: T.chat });

function onFrame(f) {
  if (f.t.startsWith("chat")) { chat.onFrame(f); return; }
  switch (f.t) {
    case "tournament":
      cfg.berserk = f.d.berserk; standings(f.d.standings); chat.onState({ chat: f.d.chat });
      break;
    case "error": {  // a refused chat line says why, under the chat's field
      const note = $("chat-note");
      const words = T.errors || {};
      if (note && f.d && words[f.d.code]) { note.hidden = false; note.textContent = words[f.d.code]; }
      break;
    }
    case "standings": standings(f.d); break;
    case "me": me(f.d.entry); break;
    case "game": location.href = f.d.url; break;  // a new game: into it, as lichess does
    default: break;
  }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}${cfg.ws}`);
  ws.onopen = () => { retry = 1000; };
  ws.onmessage = (ev) => onFrame(JSON.parse(ev.data));
  ws.onclose = () => { setTimeout(connect, retry); retry = Math.min(retry * 2, 15000); };
}

$("t-berserk").addEventListener("click", () => {
  send("berserk");
  $("t-berserk").hidden = true;
  $("t-me-line").textContent = T.berserkDone;
});
$("t-more").addEventListener("click", async () => {
  const res = await fetch(`/tournaments/${cfg.id}/standings.json?offset=${shown}`);
  if (!res.ok) return;
  const d = await res.json();
  $("t-rows").append(...d.rows.map(row));
  shown += d.rows.length;
  $("t-more").hidden = shown >= d.players;
});
setInterval(() => send("ping"), 25000);
setInterval(tick, 1000);
tick();
connect();
