// Display preferences, applied before the first paint (a classic script in <head>, no module):
// colour scheme (auto = follow the system), board theme and coordinates, from localStorage.
// settings.js changes them from the header's settings menu. Attributes on <html>:
//   data-scheme="auto|light|dark" (the choice), data-color="light|dark" (what is shown),
//   data-board="wood|green|blue", data-coords="on|off".
(function () {
  "use strict";
  var root = document.documentElement;
  var CHOICES = { scheme: ["auto", "light", "dark"], board: ["wood", "green", "blue"],
                  coords: ["on", "off"] };
  var DEFAULTS = { scheme: "auto", board: "wood", coords: "on" };
  function read(key) {
    var value = null;
    try { value = window.localStorage.getItem("kondavo." + key); } catch (e) { value = null; }
    return CHOICES[key].indexOf(value) >= 0 ? value : DEFAULTS[key];
  }
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function apply() {
    var scheme = read("scheme");
    root.setAttribute("data-scheme", scheme);
    var dark = scheme === "dark" || (scheme === "auto" && !!media && media.matches);
    root.setAttribute("data-color", dark ? "dark" : "light");
    root.setAttribute("data-board", read("board"));
    root.setAttribute("data-coords", read("coords"));
  }
  apply();
  if (media && media.addEventListener) media.addEventListener("change", apply);
  window.kondavoPrefs = {
    read: read,
    write: function (key, value) {
      if (CHOICES[key].indexOf(value) < 0) return;
      try { window.localStorage.setItem("kondavo." + key, value); } catch (e) { /* private mode */ }
      apply();
    },
    apply: apply,
  };
}());
