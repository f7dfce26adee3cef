// The home page's puzzle of the day: the position drawn (not playable) from the solver's side.
import { Board } from "../frontend/board.js";

const data = document.getElementById("kondavo-daily");
const host = document.getElementById("daily-board");
if (data && host) {
  const cfg = JSON.parse(data.textContent);
  new Board(host, { board: cfg.board, fen: cfg.fen, orientation: cfg.orientation,
                    coordinates: false, animation: 0 });
}
