// Watch page: a small board per live game (the list itself is server-rendered; the page
// reloads it every 20 s while visible).
import { Board } from "./board.js";

const cfg = JSON.parse(document.getElementById("kondavo-watch").textContent);

function drawBoards(root) {
  for (const el of root.querySelectorAll(".mini-board[data-ruleset]")) {
    const spec = cfg.boards[el.dataset.ruleset];
    if (!spec || el.dataset.drawn) continue;
    new Board(el, { board: spec.board, fen: el.dataset.fen, coordinates: false, animation: 0 });
    el.removeAttribute("tabindex");
    el.removeAttribute("role");
    el.setAttribute("aria-hidden", "true");
    el.dataset.drawn = "1";
  }
}
drawBoards(document);

async function refresh() {
  if (document.visibilityState !== "visible") return;
  try {
    const r = await fetch(cfg.refresh, { headers: { Accept: "text/html" } });
    if (!r.ok) return;
    const doc = new DOMParser().parseFromString(await r.text(), "text/html");
    const list = doc.getElementById("live-games");
    const status = doc.getElementById("watch-status");
    if (list) { document.getElementById("live-games").replaceWith(list); drawBoards(list); }
    if (status) document.getElementById("watch-status").textContent = status.textContent;
  } catch (_) { /* try again later */ }
}
setInterval(refresh, 20000);
