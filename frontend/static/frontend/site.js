// Small site-wide behaviour (the language menu and the display settings: settings.js).

// The collapsed navigation menu on small screens (the menu is plain links without JS).
document.documentElement.classList.add("js");
const toggle = document.getElementById("menu-toggle");
const menu = document.getElementById("site-menu");
if (toggle && menu) {
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    menu.classList.toggle("open", open);
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && menu.classList.contains("open")) {
      toggle.setAttribute("aria-expanded", "false");
      menu.classList.remove("open");
      toggle.focus();
    }
  });
}

// The header's height as --header-h: one row, or two where the menu wraps (a guest's name
// and longer words); the desktop game and analysis boards fit the window below it.
const header = document.querySelector(".site-header");
if (header && "ResizeObserver" in window) {
  new ResizeObserver(() => {
    document.documentElement.style.setProperty("--header-h", `${header.offsetHeight}px`);
  }).observe(header);
}
