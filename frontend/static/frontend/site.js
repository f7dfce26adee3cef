// Small site-wide behaviour: the language switcher submits on change (its button remains
// for keyboard and no-JS users).
for (const select of document.querySelectorAll("select[data-autosubmit]")) {
  select.addEventListener("change", () => select.form.requestSubmit());
  const go = select.form.querySelector(".lang-go");
  if (go) go.classList.add("visually-hidden");
}
