// Home page: a preview of the chosen ruleset's start position, and the rules link.
import { Board } from "./board.js";
import { postAndFollow } from "./site.js";

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
const I18N = JSON.parse(document.getElementById("kondavo-home-i18n").textContent);

function clearErrors() {
  for (const el of form.querySelectorAll(".action-error")) el.textContent = "";
}

// Sent by the page, not as a plain form: a refusal (a rate limit, a ruleset no longer
// offered, too many games going) is shown in place, in the visitor's language (the server's
// message), and every choice stays as it was; only a created game leaves the page. Without
// scripts the form posts as usual and the page comes back filled in with the message.
let submitting = false;  // one game per click, even on a double click
form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (submitting) return;
  const submitter = ev.submitter || form.querySelector("button[type=submit]");
  const card = submitter.closest(".action-card");
  const error = (card && card.querySelector(".action-error")) ||
    form.querySelector(".action-error");
  submitting = true;
  let leaving = false;  // a game was made: no second one while the page changes
  clearErrors();
  submitter.setAttribute("aria-busy", "true");
  try {
    const refusal = await postAndFollow(form, submitter);
    if (!refusal) { leaving = true; return; }
    const message = refusal.message || I18N.generic;
    error.textContent = refusal.wait
      ? `${message} ${I18N.tryAgainIn.replace("{s}", refusal.wait)}` : message;
  } catch (_) {
    error.textContent = I18N.generic;
  } finally {
    submitting = leaving;
    submitter.removeAttribute("aria-busy");
  }
  if (error.textContent) error.scrollIntoView({ block: "nearest", behavior: "smooth" });
});
show();
