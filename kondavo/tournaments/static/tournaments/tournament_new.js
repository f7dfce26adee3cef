// The tournament creation form: only the fields the chosen kind uses (an arena's duration
// and berserk, a Swiss event's rounds), and the entry code only for a private one. Without
// this script every field shows and the server ignores the ones the kind does not use.
const kind = document.getElementById("t-kind");
const priv = document.getElementById("t-private");
const code = document.getElementById("t-code-field");

function update() {
  for (const el of document.querySelectorAll("#t-form [data-kinds]")) {
    el.hidden = !el.dataset.kinds.split(" ").includes(kind.value);
  }
  if (code && priv) code.hidden = !priv.checked;
}

if (kind) {
  kind.addEventListener("change", update);
  if (priv) priv.addEventListener("change", update);
  update();
}
