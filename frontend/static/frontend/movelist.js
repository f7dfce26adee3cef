// Shared by the game page and the analysis board: the move list's empty state.

/** Fill the move list ``ol`` with one row saying ``text`` (no moves yet). */
export function showNoMoves(ol, text) {
  const li = document.createElement("li");
  const span = document.createElement("span");
  span.className = "small no-moves";
  span.textContent = text;
  li.append(span);
  ol.replaceChildren(li);
}
