// Home page: a preview of the chosen ruleset's start position, and the rules link.
import { Board } from "./board.js";

const boards = JSON.parse(document.getElementById("kondavo-boards").textContent);
const form = document.getElementById("play-form");
const previewEl = document.getElementById("preview-board");
const rulesLink = document.getElementById("rules-link");
let preview = null;

function checkedInput() {
  return form.querySelector("input[name=ruleset]:checked");
}

function selected() {
  const checked = checkedInput();
  return checked ? checked.value : null;
}

function show() {
  const key = selected();
  const data = key && boards[key];
  if (!data) return;
  if (preview) preview.destroy();
  preview = new Board(previewEl, { board: data.board, fen: data.fen, coordinates: false });
  previewEl.removeAttribute("tabindex");
  const summary = document.getElementById("selected-summary");
  const own = checkedInput().closest("label").querySelector(".ruleset-summary");
  if (summary) summary.textContent = own ? own.textContent : "";
  if (rulesLink) {
    // A ruleset without a rules page gets no link (data-rules is empty).
    const href = checkedInput().dataset.rules || "";
    rulesLink.hidden = !href;
    if (href) rulesLink.href = href; else rulesLink.removeAttribute("href");
  }
}

/** The level menu names each level with its nominal rating in the chosen ruleset. */
function levelNames() {
  const data = boards[selected()];
  const select = document.getElementById("level");
  if (!data || !data.levels || !select) return;
  for (const option of select.options) {
    if (data.levels[option.value]) option.textContent = data.levels[option.value];
  }
}

form.addEventListener("change", (ev) => {
  if (ev.target.name === "ruleset") { show(); levelNames(); }
});
levelNames();
let submitting = false;  // one game per click, even on a double click
form.addEventListener("submit", (ev) => {
  if (submitting) { ev.preventDefault(); return; }
  submitting = true;
  setTimeout(() => { submitting = false; }, 4000);
});
show();
