// The header's settings menu, on every page: the language (a plain form, works without
// scripts) and the display preferences (colour scheme, board theme, coordinates; prefs.js
// stores and applies them).
const prefs = window.kondavoPrefs;
const details = document.getElementById("settings");
const form = document.getElementById("settings-form");

if (details && form && prefs) {
  form.hidden = false;  // without scripts there is nothing to set
  for (const key of ["scheme", "board"]) {
    const input = form.querySelector(`input[name=${key}][value=${prefs.read(key)}]`);
    if (input) input.checked = true;
  }
  const coords = form.querySelector("input[name=coords]");
  if (coords) coords.checked = prefs.read("coords") === "on";
  form.addEventListener("change", (ev) => {
    const input = ev.target;
    if (input.name === "coords") prefs.write("coords", input.checked ? "on" : "off");
    else if (input.name === "scheme" || input.name === "board") prefs.write(input.name, input.value);
  });
  form.addEventListener("submit", (ev) => ev.preventDefault());
  const close = (focusSummary) => {
    if (!details.open) return;
    details.open = false;
    if (focusSummary) details.querySelector("summary").focus();
  };
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && details.open) close(true);
  });
  details.addEventListener("toggle", () => {
    if (details.open) details.querySelector("select, input").focus();
  });
  document.addEventListener("pointerdown", (ev) => {
    if (details.open && !details.contains(ev.target)) close(false);
  });
}

// Language menu: a keyboard user walks the options with the arrow keys without leaving the
// page; the choice is applied with Enter or the Go button. A pointer (or a phone's picker)
// choice is applied at once.
for (const select of document.querySelectorAll("select[data-lang-menu]")) {
  let keyed = false;
  select.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      ev.preventDefault();
      select.form.requestSubmit();
    } else if (ev.key !== "Tab") {
      keyed = true;
    }
  });
  select.addEventListener("pointerdown", () => { keyed = false; });
  select.addEventListener("change", () => {
    if (!keyed) select.form.requestSubmit();
  });
}
