// Small site-wide behaviour (the language menu and the display settings: settings.js), and
// postAndFollow, the one way a page sends a form itself (home.js, analysis.js).

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

/**
 * Sends a form from the page instead of posting it (the home page's play form, the analysis
 * board's "continue from here"): a POST of its fields, as the browser would send them, with
 * the CSRF token as a header and JSON asked for. A created game (a 2xx answer with a `url`)
 * is followed: the page leaves for it and this resolves to null. Anything else is a refusal
 * the page shows in place, every choice kept: `{status, code, message, wait}`, the server's
 * error code and words ("" when it gave none) and its Retry-After in seconds (0: none).
 * A network failure rejects.
 */
export async function postAndFollow(form, submitter = null) {
  const url = (submitter && submitter.getAttribute("formaction")) || form.action;
  const token = form.querySelector("input[name=csrfmiddlewaretoken]") ||
    document.querySelector("input[name=csrfmiddlewaretoken]");
  const r = await fetch(url, {
    method: "POST", body: new FormData(form),
    headers: { Accept: "application/json", "X-CSRFToken": token ? token.value : "" },
  });
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  if (r.ok && data && data.url) { location.href = data.url; return null; }
  const error = (data && data.error) || {};
  const wait = parseInt(r.headers.get("Retry-After") || "", 10);
  return { status: r.status, code: error.code || "generic", message: error.message || "",
           wait: Number.isFinite(wait) && wait > 0 ? wait : 0 };
}
