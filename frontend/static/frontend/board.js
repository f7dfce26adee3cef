// Kondavo board: a rules-free draughts board (plain ES module, no build step).
//
// The board knows no rules. The server describes the board (rows, cols, playable squares
// with their labels), the position (a PDN FEN whose squares are those labels) and the legal
// moves (each with its full landing path and its captured squares). The board draws them,
// lets the player pick one of the legal moves (click-click, drag, or keyboard) and reports
// the chosen move through `onMove`. When several legal moves share a prefix or end on the
// same square, the player steps through the landing squares one by one.
//
//   import { Board } from "./board.js";
//   const board = new Board(element, { board: state.board, fen: state.fen,
//     legal: state.legal, movable: "white", onMove: (move) => send(move.path) });
//   board.set({ fen, legal, movable, lastMove });   // every change goes through set()
//   board.flip(); board.cancel(); board.destroy();
//
// Premove: while `movable` is null and `premovable` names a side, the user may pick one of
// that side's pieces and a square (shown highlighted; any further tap on the board cancels
// it). When the board is later given `movable` and its legal moves, `playPremove()` plays
// the one legal move from that piece to that square (the whole path of a multi-capture), or
// drops the premove when there is none or more than one.
//
// DOM contract: every playable square carries data-square="<label>", every piece
// data-piece="<white|black>-<man|king>". Themes are CSS classes (kb-theme-<name>).

/** All configurable state, with its defaults, in one place. */
export const DEFAULTS = Object.freeze({
  board: null,          // server board description (BoardSpec.as_dict())
  fen: "",              // position; squares are board labels, ranges "31-50" allowed
  orientation: null,    // side drawn at the bottom; null = board.bottom (or "white")
  legal: [],            // [{path: [labels], captured: [labels], notation}]
  movable: null,        // "white" | "black" | null: whose pieces the user may move
  premovable: null,     // "white" | "black" | null: whose pieces the user may premove
  lastMove: null,       // {path: [labels], captured: [labels]}
  capturedPieces: [],   // [{square, piece}] pieces taken by the last move (drawn as ghosts)
  coordinates: true,    // square numbers (numeric) or file/rank letters (algebraic)
  theme: "auto",        // CSS class kb-theme-<theme>; "auto": the visitor's choice (prefs.js)
  animation: 220,       // ms per move (0 = off); honours prefers-reduced-motion
  onMove: null,         // (move) => void, called with the chosen legal entry
  onSelect: null,       // (progress: [labels]) => void, called as the user steps
  onPremove: null,      // (path: [from, to] | null) => void: a premove was set or cleared
  onReject: null,       // ({square, piece, selected}) => void: a click that plays nothing
                        // (a piece that cannot move, or a square no selected move reaches)
  i18n: {},             // words for assistive text: "white-man".."black-king", empty, board
});

const WORDS = { white: "white", black: "black", man: "man", king: "king", empty: "empty",
                board: "Draughts board", mustChoose: "choose the next landing square" };

/** Parse a PDN FEN into {turn, pieces: Map(label -> "white-man" | ...)}. */
export function parseFen(fen) {
  const pieces = new Map();
  let turn = null;
  if (!fen) return { turn, pieces };
  const text = String(fen).trim().replace(/^\[FEN\s+"?|"?\]$/g, "").replace(/\.$/, "");
  const parts = text.split(":");
  for (const raw of parts) {
    const part = raw.trim();
    if (!part) continue;
    const head = part[0].toUpperCase();
    if ((head === "W" || head === "B") && part.length === 1 && turn === null) {
      turn = head === "W" ? "white" : "black";
      continue;
    }
    if (head !== "W" && head !== "B") continue;  // e.g. H0 / F1 counters
    const color = head === "W" ? "white" : "black";
    for (let item of part.slice(1).split(",")) {
      item = item.trim();
      if (!item) continue;
      let kind = "man";
      if (item[0] === "K" || item[0] === "k") { kind = "king"; item = item.slice(1); }
      const range = /^(\d+)-(\d+)$/.exec(item);
      if (range) {
        const lo = Number(range[1]), hi = Number(range[2]);
        for (let n = Math.min(lo, hi); n <= Math.max(lo, hi); n++) {
          pieces.set(String(n), `${color}-${kind}`);
        }
      } else {
        pieces.set(item.toLowerCase(), `${color}-${kind}`);
      }
    }
  }
  return { turn, pieces };
}

function startsWith(path, prefix) {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
  return true;
}

function commonPrefix(paths) {
  if (!paths.length) return [];
  const out = [];
  for (let i = 0; ; i++) {
    const v = paths[0][i];
    if (v === undefined || paths.some((p) => p[i] !== v)) return out;
    out.push(v);
  }
}

function reducedMotion() {
  return typeof window !== "undefined" && window.matchMedia &&
    window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export class Board {
  constructor(element, config = {}) {
    this.el = element;
    // Configurable state (see DEFAULTS) plus the interaction state, in one object.
    this.state = { ...DEFAULTS, ...config,
      pieces: new Map(),   // label -> piece, from the FEN (locally updated after a move)
      progress: [],        // labels stepped so far: origin, then landing squares
      goal: null,          // the square the user aimed at, while disambiguating
      focus: null,         // keyboard focus square label
      ghosts: [],          // [{square, piece}] captured pieces fading out
      dragging: null,      // {label, pointerId, x, y, moved, el}
      premove: null,       // [from, to]: the move to play when the turn comes
      preSel: null,        // the piece picked for a premove, before its square
    };
    this._built = null;    // key of the DOM skeleton currently built
    this._squares = new Map();
    this._pendingAnim = null;
    this.state.pieces = parseFen(this.state.fen).pieces;
    this._onPointerDown = this._onPointerDown.bind(this);
    this._onPointerMove = this._onPointerMove.bind(this);
    this._onPointerUp = this._onPointerUp.bind(this);
    this._onKeyDown = this._onKeyDown.bind(this);
    this.el.addEventListener("pointerdown", this._onPointerDown);
    this.el.addEventListener("keydown", this._onKeyDown);
    this.el.addEventListener("focus", () => {
      // Tabbing in (not clicking) shows the focus ring at once.
      if (performance.now() - (this._pointerAt || -1e9) > 500) {
        this._keyboard = true;
        this.el.classList.add("kb-keyboard");
      }
      this._render();
    });
    this.el.addEventListener("blur", () => this._render());
    this._render();
  }

  // ---------------------------------------------------------------- public API

  /** Change any part of the configuration; the only way state changes from outside. */
  set(config) {
    const s = this.state;
    const prevPieces = s.pieces;
    // A move played on this board (``_play``) shows its pieces before the server answers:
    // the next position given, even the same FEN (the move was refused), replaces them.
    const fenChanged = "fen" in config && (config.fen !== s.fen || this._played);
    if ("fen" in config) this._played = false;
    Object.assign(s, config);
    if (fenChanged) {
      s.pieces = parseFen(s.fen).pieces;
      this._prepareAnimation(prevPieces, s.pieces, s.lastMove);
    }
    // A piece picked for a premove stays selected when the turn comes (if it can move).
    const picked = s.movable ? s.preSel : null;
    if (s.movable || !s.premovable) s.preSel = null;
    if (!s.premovable && !s.movable && s.premove) this._setPremove(null);
    if (fenChanged || "legal" in config || "movable" in config) {
      s.progress = [];
      s.goal = null;
      if (picked && this._origins().has(picked)) s.progress = [picked];
    }
    this._render();
  }

  /** Play the premove if exactly one legal move goes from its piece to its square; else
   * drop it. Returns whether a move was played. */
  playPremove() {
    const s = this.state;
    const pm = s.premove;
    if (!pm) return false;
    this._setPremove(null);
    const from = pm[0], to = pm[pm.length - 1];
    const matches = this._legal().filter((m) => m.path[0] === from && m.path[m.path.length - 1] === to);
    if (matches.length === 1) { this._play(matches[0]); return true; }
    this._render();
    return false;
  }

  _setPremove(path) {
    const s = this.state;
    s.premove = path;
    if (typeof s.onPremove === "function") s.onPremove(path ? path.slice() : null);
  }

  /** A tap (or Enter) during the opponent's turn: pick a piece, then its square. */
  _premoveTap(label) {
    const s = this.state;
    const piece = s.pieces.get(label);
    const own = !!piece && piece.startsWith(`${s.premovable}-`);
    if (s.premove) {  // a tap anywhere cancels the premove (a tap on a piece picks it anew)
      const old = s.premove;
      this._setPremove(null);
      s.preSel = own && label !== old[0] ? label : null;
    } else if (s.preSel === null || label === s.preSel) {
      s.preSel = own && s.preSel === null ? label : null;
    } else if (own) {
      s.preSel = label;
    } else {
      const from = s.preSel;
      s.preSel = null;
      this._setPremove([from, label]);
    }
    this._render();
  }

  flip() {
    const s = this.state;
    this.set({ orientation: this._orientation() === "white" ? "black" : "white" });
    return s.orientation;
  }

  /** Forget a half-made selection (and a premove). */
  cancel() {
    this.state.progress = [];
    this.state.goal = null;
    this.state.preSel = null;
    if (this.state.premove) this._setPremove(null);
    this._render();
  }

  destroy() {
    this.el.removeEventListener("pointerdown", this._onPointerDown);
    this.el.removeEventListener("keydown", this._onKeyDown);
    this.el.replaceChildren();
  }

  // ---------------------------------------------------------------- selection logic

  _orientation() {
    const s = this.state;
    return s.orientation || (s.board && s.board.bottom) || "white";
  }

  _legal() {
    return this.state.movable ? (this.state.legal || []) : [];
  }

  /** Legal moves consistent with what the user has stepped through so far. */
  _candidates() {
    const { progress, goal } = this.state;
    return this._legal().filter((m) => startsWith(m.path, progress) &&
      (goal === null || m.path.indexOf(goal, progress.length) >= 0));
  }

  _origins() {
    return new Set(this._legal().map((m) => m.path[0]));
  }

  /** The user clicked (or dropped on, or pressed Enter on) square `label`. */
  _choose(label, { fromDrag = false } = {}) {
    const s = this.state;
    if (!label) return;
    if (!s.movable && s.premovable) { this._premoveTap(label); return; }
    const origins = this._origins();
    if (!s.progress.length) {
      if (origins.has(label)) s.progress = [label];
      else if (s.pieces.has(label)) this._reject(label, null);
      this._render();
      return;
    }
    if (label === s.progress[0] && s.progress.length === 1) {
      if (!fromDrag) s.progress = [];  // click the selected piece again: deselect
      this._render();
      return;
    }
    const candidates = this._candidates();
    const through = candidates.filter((m) => m.path.indexOf(label, s.progress.length) >= 0);
    if (through.length === 0) {
      // Not a landing square: select another piece, or drop the selection.
      if (!origins.has(label)) this._reject(label, s.progress[0]);
      s.progress = origins.has(label) && label !== s.progress[0] ? [label] : [];
      s.goal = null;
      this._render();
      return;
    }
    if (through.length === 1) { this._play(through[0]); return; }
    const k = s.progress.length;
    const direct = through.filter((m) => m.path[k] === label);
    if (direct.length) {
      // The square is the next landing square of some moves: step onto it.
      if (direct.length === 1) { this._play(direct[0]); return; }
      s.progress = [...s.progress, label];
      s.goal = null;
      this._render();
      return;
    }
    // Several moves reach this square later on: advance as far as they agree.
    const prefixes = through.map((m) => m.path.slice(0, m.path.indexOf(label, s.progress.length) + 1));
    const common = commonPrefix(prefixes);
    const reached = common[common.length - 1] === label;
    s.progress = common.length > s.progress.length ? common : s.progress;
    s.goal = reached ? null : label;
    if (reached) {
      const done = through.filter((m) => m.path.length === common.length);
      if (done.length === 1) { this._play(done[0]); return; }
    }
    this._render();
  }

  /** A click that plays nothing: flash the square and tell the page why it might be. */
  _reject(label, selected) {
    const s = this.state;
    const sq = this._squares.get(label);
    if (sq) {
      sq.el.classList.remove("kb-reject");
      void sq.el.offsetWidth;  // restart the animation
      sq.el.classList.add("kb-reject");
      clearTimeout(this._rejectTimer);
      this._rejectTimer = setTimeout(() => {
        for (const el of this.el.querySelectorAll(".kb-reject")) el.classList.remove("kb-reject");
      }, 600);
    }
    if (typeof s.onReject === "function") {
      s.onReject({ square: label, piece: s.pieces.get(label) || null, selected });
    }
  }

  _play(move) {
    const s = this.state;
    const prev = s.pieces;
    const pieces = new Map(prev);
    const from = move.path[0], to = move.path[move.path.length - 1];
    const piece = prev.get(from);
    pieces.delete(from);
    const ghosts = [];
    for (const c of move.captured || []) {
      if (pieces.has(c)) ghosts.push({ square: c, piece: pieces.get(c) });
      pieces.delete(c);
    }
    if (piece) pieces.set(to, piece);
    s.pieces = pieces;
    s.capturedPieces = ghosts;
    s.lastMove = { path: move.path.slice(), captured: (move.captured || []).slice() };
    s.progress = [];
    s.goal = null;
    s.movable = null;  // wait for the server
    this._played = true;
    if (!s.dragging || !s.dragging.moved) {
      this._pendingAnim = { path: move.path, piece: piece, ghosts };
    }
    this._render();
    if (typeof s.onMove === "function") s.onMove(move);
  }

  _prepareAnimation(prev, next, lastMove) {
    if (!lastMove || !lastMove.path || lastMove.path.length < 2) return;
    const path = lastMove.path;
    const from = path[0], to = path[path.length - 1];
    const piece = prev.get(from);
    if (!piece || !next.get(to)) return;
    const circular = from === to;
    if (!circular && next.get(from)) return;
    const captured = lastMove.captured || [];
    if (circular && !captured.some((c) => prev.has(c))) return;
    const ghosts = captured.filter((c) => prev.has(c) && !next.has(c))
      .map((c) => ({ square: c, piece: prev.get(c) }));
    this.state.capturedPieces = ghosts;
    this._pendingAnim = { path, piece: next.get(to), ghosts };
  }

  // ---------------------------------------------------------------- rendering

  _build() {
    const s = this.state;
    const b = s.board;
    const orient = this._orientation();
    const key = b ? `${b.rows}x${b.cols}:${b.squares.map((q) => q.label).join(",")}:${orient}` : "";
    if (key === this._built) return;
    this._built = key;
    this._squares = new Map();
    this.el.replaceChildren();
    this.el.classList.add("kb-board");
    this.el.setAttribute("tabindex", "0");
    this.el.setAttribute("role", "application");
    this.el.setAttribute("aria-roledescription", this._word("board"));
    if (!b) return;
    this.el.style.setProperty("--kb-rows", b.rows);
    this.el.style.setProperty("--kb-cols", b.cols);
    this.el.classList.toggle("kb-all-squares", !!b.all_squares);
    const flip = orient !== (b.bottom || "white");
    const byCell = new Map(b.squares.map((q) => [`${q.row},${q.col}`, q]));
    const grid = document.createElement("div");
    grid.className = "kb-grid";
    for (let vr = 0; vr < b.rows; vr++) {
      for (let vc = 0; vc < b.cols; vc++) {
        const row = flip ? b.rows - 1 - vr : vr;
        const col = flip ? b.cols - 1 - vc : vc;
        const q = byCell.get(`${row},${col}`);
        const cell = document.createElement("div");
        // The ruleset says which colour its played squares are (board.playing_squares);
        // the other squares take the other colour. Without it: a1 dark, (row + col) odd.
        let dark = (row + col) % 2 === 1;
        if (b.playing_squares && !b.all_squares) {
          dark = !!q === (b.playing_squares === "dark");
        }
        cell.className = `kb-cell ${dark ? "kb-dark" : "kb-light"}`;
        if (q) {
          cell.classList.add("kb-sq");
          cell.dataset.square = q.label;
          cell.id = `${this._idPrefix()}-${q.label}`;
          if (s.coordinates && b.notation === "numeric") {
            const n = document.createElement("span");
            n.className = "kb-num";
            n.textContent = q.label;
            n.setAttribute("aria-hidden", "true");
            cell.append(n);
          }
          this._squares.set(q.label, { el: cell, vr, vc, row, col });
        }
        if (s.coordinates && b.notation === "algebraic") {
          if (vc === 0) this._coord(cell, "kb-rank", String(b.rows - row));
          if (vr === b.rows - 1) this._coord(cell, "kb-file", "abcdefghijklmnopqrstuvwxyz"[col]);
        }
        grid.append(cell);
      }
    }
    this.el.append(grid);
    if (!s.focus || !this._squares.has(s.focus)) s.focus = b.squares[0] && b.squares[0].label;
  }

  _coord(cell, cls, text) {
    const c = document.createElement("span");
    c.className = `kb-coord ${cls}`;
    c.textContent = text;
    c.setAttribute("aria-hidden", "true");
    cell.append(c);
  }

  _idPrefix() {
    if (!this._id) this._id = `kb${Math.random().toString(36).slice(2, 8)}`;
    return this._id;
  }

  _word(key) {
    return (this.state.i18n && this.state.i18n[key]) || WORDS[key];
  }

  _pieceWords(piece) {
    const words = this.state.i18n || {};
    if (words[piece]) return words[piece];  // e.g. "white-man" -> "pion blanc"
    const [color, kind] = piece.split("-");
    return `${this._word(color)} ${this._word(kind)}`;
  }

  /** The single render path: derive every class and piece from the state. */
  _render() {
    this._build();
    const s = this.state;
    const b = s.board;
    if (!b) return;
    for (const c of [...this.el.classList]) {
      if (c.startsWith("kb-theme-") && c !== `kb-theme-${s.theme}`) this.el.classList.remove(c);
    }
    this.el.classList.add("kb-board", `kb-theme-${s.theme}`);
    this.el.classList.toggle("kb-interactive", !!s.movable && this._legal().length > 0);

    const origins = this._origins();
    const candidates = s.progress.length ? this._candidates() : [];
    const k = s.progress.length;
    const next = new Set();   // squares the user may click now
    const dests = new Set();  // final squares of the remaining candidates
    for (const m of candidates) {
      if (m.path.length > k) {
        next.add(m.path[k]);
        dests.add(m.path[m.path.length - 1]);
      }
    }
    // Pieces already jumped over on the stepped part of the path.
    const victims = new Set();
    if (k > 1 && candidates.length) {
      for (const c of (candidates[0].captured || []).slice(0, k - 1)) victims.add(c);
    }
    const last = s.lastMove || { path: [], captured: [] };
    const lastPath = new Set(last.path || []);
    const lastCaptured = new Set(last.captured || []);
    const ghostAt = new Map((s.capturedPieces || []).map((g) => [g.square, g.piece]));
    // The focus ring follows the keyboard; a mouse or finger does not show it.
    const focusOn = document.activeElement === this.el && this._keyboard;

    for (const [label, sq] of this._squares) {
      const cl = sq.el.classList;
      cl.toggle("kb-movable", k === 0 && origins.has(label));
      cl.toggle("kb-selected", k > 0 && label === s.progress[0]);
      cl.toggle("kb-step", k > 1 && s.progress.indexOf(label, 1) >= 0);
      cl.toggle("kb-dest", dests.has(label) && next.has(label));
      cl.toggle("kb-next", next.has(label) && !dests.has(label));
      cl.toggle("kb-goal", s.goal === label);
      cl.toggle("kb-victim", victims.has(label));
      cl.toggle("kb-last", lastPath.has(label));
      cl.toggle("kb-last-from", (last.path || [])[0] === label);
      cl.toggle("kb-captured", lastCaptured.has(label));
      cl.toggle("kb-focus", focusOn && s.focus === label);
      cl.toggle("kb-premove", !!s.premove && s.premove.indexOf(label) >= 0);
      cl.toggle("kb-preselect", s.preSel === label);
      const piece = s.pieces.get(label) || null;
      let pe = sq.el.querySelector(".kb-piece:not(.kb-ghost)");
      if (piece) {
        if (!pe) {
          pe = document.createElement("div");
          sq.el.append(pe);
        }
        if (pe.dataset.piece !== piece) {
          pe.dataset.piece = piece;
          const [color, kind] = piece.split("-");
          pe.className = `kb-piece kb-${color} kb-${kind}`;
        }
      } else if (pe) {
        pe.remove();
      }
      let ge = sq.el.querySelector(".kb-ghost");
      const ghost = ghostAt.get(label);
      if (ghost && !piece) {
        if (!ge) { ge = document.createElement("div"); sq.el.append(ge); }
        const [color, kind] = ghost.split("-");
        ge.className = `kb-piece kb-ghost kb-${color} kb-${kind}`;
        ge.dataset.ghost = ghost;
      } else if (ge) {
        ge.remove();
      }
      let desc = label;
      desc += `, ${piece ? this._pieceWords(piece) : this._word("empty")}`;
      if (next.has(label) && !dests.has(label)) desc += `, ${this._word("mustChoose")}`;
      sq.el.setAttribute("aria-label", desc);
    }
    if (focusOn && s.focus && this._squares.has(s.focus)) {
      this.el.setAttribute("aria-activedescendant", this._squares.get(s.focus).el.id);
    } else {
      this.el.removeAttribute("aria-activedescendant");
    }
    if (this._pendingAnim) {
      const anim = this._pendingAnim;
      this._pendingAnim = null;
      this._animate(anim);
    }
    if (typeof s.onSelect === "function") s.onSelect(s.progress.slice());
  }

  _animate({ path }) {
    const s = this.state;
    const duration = reducedMotion() ? 0 : Number(s.animation) || 0;
    const to = this._squares.get(path[path.length - 1]);
    if (!to) return;
    const pe = to.el.querySelector(".kb-piece:not(.kb-ghost)");
    if (duration > 0 && pe && pe.animate) {
      const frames = path.map((label) => {
        const q = this._squares.get(label);
        const dx = q ? (q.vc - to.vc) * 100 : 0, dy = q ? (q.vr - to.vr) * 100 : 0;
        return { transform: `translate(${dx}%, ${dy}%)` };
      });
      pe.classList.add("kb-anim");
      const a = pe.animate(frames, { duration: duration * (path.length - 1), easing: "ease-in-out" });
      a.onfinish = a.oncancel = () => pe.classList.remove("kb-anim");
    }
    for (const ge of this.el.querySelectorAll(".kb-ghost")) {
      if (duration > 0 && ge.animate) {
        ge.animate([{ opacity: 0.9 }, { opacity: 0.9, offset: 0.6 }, { opacity: 0.25 }],
          { duration: duration * Math.max(1, path.length - 1), fill: "forwards" });
      }
    }
  }

  // ---------------------------------------------------------------- pointer (mouse + touch)

  _squareAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const sq = hit && hit.closest ? hit.closest("[data-square]") : null;
    return sq && this.el.contains(sq) ? sq.dataset.square : null;
  }

  _onPointerDown(ev) {
    if (ev.button !== undefined && ev.button !== 0) return;
    this._keyboard = false;
    this._pointerAt = performance.now();
    this.el.classList.remove("kb-keyboard");
    const sq = ev.target.closest && ev.target.closest("[data-square]");
    if (!sq) return;
    const label = sq.dataset.square;
    const s = this.state;
    s.focus = label;
    const isOrigin = this._origins().has(label);
    const wasSelected = s.progress.length === 1 && s.progress[0] === label;
    if (isOrigin && !(s.progress.length > 1 && label === s.progress[0])) {
      // Start a (potential) drag from a movable piece.
      ev.preventDefault();
      if (!wasSelected) { s.progress = [label]; s.goal = null; }
      const pe = sq.querySelector(".kb-piece:not(.kb-ghost)");
      s.dragging = { label, pointerId: ev.pointerId, x: ev.clientX, y: ev.clientY,
                     moved: false, el: pe, wasSelected };
      try { this.el.setPointerCapture(ev.pointerId); } catch (_) { /* ignore */ }
      this.el.addEventListener("pointermove", this._onPointerMove);
      this.el.addEventListener("pointerup", this._onPointerUp);
      this.el.addEventListener("pointercancel", this._onPointerUp);
      this._render();
      this.el.focus({ preventScroll: true });
      return;
    }
    ev.preventDefault();
    this.el.focus({ preventScroll: true });
    this._choose(label);
  }

  _onPointerMove(ev) {
    const d = this.state.dragging;
    if (!d || ev.pointerId !== d.pointerId) return;
    const dx = ev.clientX - d.x, dy = ev.clientY - d.y;
    if (!d.moved && Math.hypot(dx, dy) < 6) return;
    d.moved = true;
    if (d.el) {
      d.el.classList.add("kb-dragging");
      d.el.style.transform = `translate(${dx}px, ${dy}px)`;
    }
    const over = this._squareAt(ev.clientX, ev.clientY);
    for (const el of this.el.querySelectorAll(".kb-hover")) el.classList.remove("kb-hover");
    if (over && this._squares.has(over)) this._squares.get(over).el.classList.add("kb-hover");
  }

  _onPointerUp(ev) {
    const s = this.state;
    const d = s.dragging;
    if (!d || ev.pointerId !== d.pointerId) return;
    this.el.removeEventListener("pointermove", this._onPointerMove);
    this.el.removeEventListener("pointerup", this._onPointerUp);
    this.el.removeEventListener("pointercancel", this._onPointerUp);
    for (const el of this.el.querySelectorAll(".kb-hover")) el.classList.remove("kb-hover");
    if (d.el) { d.el.classList.remove("kb-dragging"); d.el.style.transform = ""; }
    const over = ev.type === "pointercancel" ? null : this._squareAt(ev.clientX, ev.clientY);
    if (d.moved) {
      if (over && over !== d.label) this._choose(over, { fromDrag: true });
      s.dragging = null;
      this._render();
      return;
    }
    s.dragging = null;
    if (d.wasSelected) { s.progress = []; s.goal = null; }  // click on selected: deselect
    this._render();
  }

  // ---------------------------------------------------------------- keyboard

  _onKeyDown(ev) {
    const s = this.state;
    if (!s.board) return;
    const dirs = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    // Arrow keys walk the squares only for a keyboard user (the board was tabbed into); after
    // a click or a tap they are left to the page (e.g. stepping through the moves).
    if (ev.key in dirs && !this._keyboard) return;
    if (!this._keyboard) {
      this._keyboard = true;
      this.el.classList.add("kb-keyboard");
    }
    if (ev.key in dirs) {
      ev.preventDefault();
      const [dr, dc] = dirs[ev.key];
      const cur = this._squares.get(s.focus);
      if (!cur) { s.focus = s.board.squares[0].label; this._render(); return; }
      // Nearest playable square in that screen direction (diagonal boards skip a cell).
      let best = null, bestScore = Infinity;
      for (const [label, q] of this._squares) {
        const along = (q.vr - cur.vr) * dr + (q.vc - cur.vc) * dc;
        if (along <= 0) continue;
        const across = Math.abs(dr ? q.vc - cur.vc : q.vr - cur.vr);
        const score = along * 10 + across * 11;
        if (score < bestScore) { bestScore = score; best = label; }
      }
      if (best) { s.focus = best; this._render(); }
    } else if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      this._choose(s.focus);
    } else if (ev.key === "Escape") {
      this.cancel();
    }
  }
}
