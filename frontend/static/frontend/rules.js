// Rules page: the start position drawn by the same board component (view only).
import { Board } from "./board.js";

const data = JSON.parse(document.getElementById("kondavo-rules-board").textContent);
const el = document.getElementById("rules-board");
new Board(el, { board: data.board, fen: data.fen, i18n: data.i18n || {}, animation: 0 });
