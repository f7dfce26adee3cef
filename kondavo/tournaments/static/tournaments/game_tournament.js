// A tournament game's page: the Berserk button (kondavo/tournaments/templates/tournaments/
// _game_tournament.html). Shown to a player of a timed arena before their first move; a
// press halves their clock (POST /tournaments/<id>/berserk/; the game socket then shows the
// new clocks). Gone once they moved or the game is over. Reads window.kondavoGame (game.js).
const button = document.getElementById("btn-berserk");
const cfgEl = document.getElementById("kondavo-game");
const T = ((cfgEl && JSON.parse(cfgEl.textContent).tournament) || {}).i18n || {};
const note = document.getElementById("berserk-note");

function csrf() { return (document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/) || [])[1] || ""; }

function stillPossible() {
  const g = window.kondavoGame;
  const s = g && g.state;
  if (!s) return true;  // not connected yet: keep it until the state says otherwise
  if (s.status && s.status !== "active" && s.status !== "waiting") return false;
  return (s.ply || 0) <= Number(button.dataset.ply);
}

if (button) {
  // On a phone the side panel is below the board: the button goes next to the game's own
  // buttons, on the first screen, while it can be used.
  const row = button.parentElement;
  const controls = document.getElementById("controls");
  if (row && controls && controls.parentElement) controls.parentElement.insertBefore(row, controls);
  const timer = setInterval(() => {
    if (!stillPossible()) { button.hidden = true; clearInterval(timer); }
  }, 500);
  button.addEventListener("click", async () => {
    button.disabled = true;
    let ok = false;
    try {
      const res = await fetch(button.dataset.url, {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRFToken": csrf(), Accept: "application/json" } });
      ok = res.ok;
    } catch (_) { ok = false; }
    button.hidden = true;
    clearInterval(timer);
    if (note) note.textContent = ok ? T.berserkDone || "" : T.failed || "";
  });
}
