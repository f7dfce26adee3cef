/* Iterative deepening PVS for any ruleset given as KdRules, on kd_evaluate.
 *
 * - Transposition table (Zobrist keys over 128-bit boards), kept in the KdEngine between
 *   searches; entries carry the generation of the search that wrote them.
 * - Root: aspiration windows around the previous iteration's score; with root noise (low
 *   levels) every root move gets an exact score so the noise is fair.
 * - Move ordering: TT move, captures (most pieces), promotions, two killers per ply, the
 *   counter-move (the quiet reply that last refuted the opponent's move), then history
 *   (raised for a quiet move that cut, lowered for those tried before it).
 * - Selective search, one of three schemes per ruleset (its KdSearchProfile, search.h):
 *   - KD_SELECT_SCAN, as Scan does it, everywhere outside mate windows: a shallow cut at
 *     non-PV nodes from depth 3 (a search of the node itself at 40% of the depth with the
 *     bound beta + 20 centi-men a ply; when it fails high, the node does, by that score less
 *     the margin); late-move reductions of every quiet move that does not promote, from the
 *     second move in non-PV nodes (the fourth in PV nodes) at depth >= 2: one ply, two from
 *     the fifth move of a non-PV node, re-searched at full depth when they beat alpha.
 *   - KD_SELECT_SCAN_CALM: the same at calm nodes only (no capture for either side), never
 *     reducing a move that offers a capture.
 *   - KD_SELECT_CALM, the calm-node scheme, only at calm nodes and never for a move that
 *     captures, promotes, offers a capture or threatens one: late-move reductions graded by
 *     depth and move number (less in PV nodes and for killers, counter-moves and moves with
 *     a good history, more for a bad history; re-searched when they beat alpha); a static
 *     cut at depth 1-3 (evaluation far above beta); futility at depth 1-2 (evaluation far
 *     below alpha: quiet moves skipped); ProbCut from depth 5 (evaluation above beta + a
 *     margin, confirmed by a search 4 plies shallower with that bound).
 *   A capture is never reduced, and a node with one legal move is extended by a ply.
 * - Quiescence: captures are mandatory, so at the horizon a side with a capture plays it
 *   (no standing pat); a quiet horizon position where the opponent threatens a capture is
 *   searched one more ply (once per line); otherwise the static evaluation stands, and a
 *   side with no move at all has lost.
 * - Draws: a position repeated in the search path or in the game history given by the
 *   caller scores 0, and so does reaching the ruleset's draw counter limit.
 * - Limits: wall-clock deadline and node budget checked every KD_CHECK_EVERY nodes once the
 *   first iteration is complete; an unfinished iteration still contributes a root move
 *   that completed and beat the previous best.
 * - Time (a clock's soft_time, the target: what a move should take on average): the target
 *   is stretched while the best move keeps changing (each change adds the target once
 *   more, halved at every iteration) and when the score has just fallen (up to 1.5 times).
 *   From KD_SOFT_MIN_DEPTH no new iteration starts past KD_SOFT_NEXT of the stretched
 *   target, and an iteration under way stops at KD_SOFT_LATEST times it, like at the
 *   deadline; never past time_limit. A settled root thus ends early, an unsettled one
 *   takes longer, and the moves average about the target.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "search.h"

#define KD_CHECK_EVERY 1024
#define EXACT 0
#define LOWER 1
#define UPPER 2

/* Evaluation cache: the static evaluation of recently evaluated positions, by hash. The
   evaluation depends on the position alone (side to move included), so a hit returns what
   kd_evaluate would: the search is the same, only faster. An entry packs the hash's top
   bits (never 0: an empty slot matches no position) with the score. */
#define KD_ECACHE_BITS 16
typedef struct EvalEntry {
    uint32_t check;
    int32_t score;
} EvalEntry;

typedef struct TTEntry {
    uint64_t key;
    int32_t score;
    uint32_t capfold;
    int16_t depth;
    uint8_t bound, gen;
    uint8_t from, to, has_move, pad;
} TTEntry;

struct KdEngine {
    KdRules r;
    KdEval ev;
    uint64_t z[4][KD_MAX_SQ];
    uint64_t z_side;
    TTEntry *tt;
    size_t tt_mask;
    EvalEntry ecache[1 << KD_ECACHE_BITS];
    uint8_t *special; /* see kd_engine_set_special */
    KdTables tables;  /* endgame tables (tables.data NULL: none) */
    int use_tables;
    KdSearchProfile profile;
    uint8_t gen;
    /* per search */
    int64_t nodes, node_limit;
    double deadline;
    int stop, armed, extension_ply, fresh;
    int shallow; /* > 0: inside a shallow cut's search, which cuts no further */
    int n_hist;
    uint64_t stack[KD_MAX_HISTORY + KD_MAX_PLY + 8];
    KdMove killers[KD_MAX_PLY + 8][2];
    int32_t history[KD_MAX_SQ][KD_MAX_SQ];
    /* the quiet reply that refuted a move (from * KD_MAX_SQ + to + 1, 0: none), indexed
       by that move's from and to squares */
    uint16_t counter[KD_MAX_SQ][KD_MAX_SQ];
    uint16_t path[KD_MAX_PLY + 8]; /* the move that led to each ply (same encoding) */
    int8_t threat[KD_MAX_PLY + 8]; /* whether the opponent of the side to move at a ply
                                      has a capture, when the parent found out (-1: not) */
    int8_t caps[KD_MAX_PLY + 8];   /* whether the side to move at a ply has a capture, when
                                      the parent found out (-1: not) */
    KdMoveList lists[KD_MAX_PLY + 8];
    KdMoveList root_list;
    int order[KD_MAX_PLY + 8][KD_MAX_MOVES];
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int evaluate(KdEngine *e, const KdPos *p, uint64_t h) {
    EvalEntry *ce = &e->ecache[h & ((1u << KD_ECACHE_BITS) - 1)];
    uint32_t check = (uint32_t)(h >> 32) | 1u;
    if (ce->check == check) return ce->score;
    int v = kd_evaluate(p, &e->ev);
    ce->check = check;
    ce->score = v;
    return v;
}

/* The table is TT_WAYS-way set associative: a position may sit in either slot of its
   bucket. A new position replaces the less useful one, the shallower, an entry of an
   earlier search counting TT_AGE_PLIES shallower than it is (so a deep result of the
   previous move's search outlives this search's leaves). A position already in the
   bucket is overwritten unless it holds a deeper result of this search. */
#define TT_WAYS 2
#define TT_AGE_PLIES 8

static inline TTEntry *tt_bucket(const KdEngine *e, uint64_t h) {
    return &e->tt[h & e->tt_mask & ~(size_t)(TT_WAYS - 1)];
}

static inline TTEntry *tt_find(const KdEngine *e, uint64_t h) {
    TTEntry *b = tt_bucket(e, h);
    for (int i = 0; i < TT_WAYS; i++)
        if (b[i].key == h) return &b[i];
    return NULL;
}

/* The entry for h a search may use (a "fresh" search only its own), or NULL. */
static inline TTEntry *tt_usable(const KdEngine *e, uint64_t h) {
    TTEntry *te = tt_find(e, h);
    return te && (!e->fresh || te->gen == e->gen) ? te : NULL;
}

/* The best move an entry holds, copied (the entry may be replaced while the node's moves
   are searched). */
typedef struct TTMove {
    int has;
    uint8_t from, to;
    uint32_t cap;
} TTMove;

static inline TTMove tt_move_of(const TTEntry *te) {
    TTMove t = {0, 0, 0, 0};
    if (te && te->has_move) {
        t.has = 1;
        t.from = te->from;
        t.to = te->to;
        t.cap = te->capfold;
    }
    return t;
}

/* The slot to store a result of `depth` for h in, or NULL to keep what is there. */
static inline TTEntry *tt_slot(const KdEngine *e, uint64_t h, int depth) {
    TTEntry *b = tt_bucket(e, h), *victim = b;
    int worst = 1 << 30;
    for (int i = 0; i < TT_WAYS; i++) {
        TTEntry *s = &b[i];
        if (s->key == h) return (s->gen != e->gen || depth >= s->depth) ? s : NULL;
        int value = (s->gen == e->gen ? TT_AGE_PLIES : 0) + s->depth;
        if (value < worst) {
            worst = value;
            victim = s;
        }
    }
    return victim;
}

static inline uint32_t capfold(kd_bb c) {
    uint64_t x = (uint64_t)c ^ kd_hi(c) * 0x9E3779B97F4A7C15ULL;
    return (uint32_t)(x ^ (x >> 32));
}

static void lmr_init(void);

/* Zeroed memory for the engine and its transposition table. On Linux it is mapped aligned
   to 2 MB and advised to use huge pages: the table is probed at random, and with 4 KB pages
   most probes need a page-table walk (in a profile the loads of the table and of the
   evaluation cache were a third of negamax's own time). The same tree 1-4% faster. Pages
   are still zeroed and faulted in lazily, so a temporary engine costs nothing for the part
   of its table it never touches. */
#define BIG_ALIGN ((size_t)2 << 20)
#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define BIG_MAPPED 1
#else
#define BIG_MAPPED 0
#endif

static void *big_alloc(size_t size) {
#if BIG_MAPPED
    size_t span = size + BIG_ALIGN;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *start = (char *)(((uintptr_t)raw + BIG_ALIGN - 1) & ~(uintptr_t)(BIG_ALIGN - 1));
    size_t head = (size_t)(start - raw), tail = span - head - size;
    if (head) munmap(raw, head);
    if (tail) munmap(start + size, tail);
    madvise(start, size, MADV_HUGEPAGE); /* advice only: 4 KB pages if it is refused */
    return start;
#else
    return calloc(1, size);
#endif
}

static void big_free(void *p, size_t size) {
    if (!p) return;
#if BIG_MAPPED
    munmap(p, size);
#else
    (void)size;
    free(p);
#endif
}

KdEngine *kd_engine_new(const KdRules *rules, const KdEval *eval, int tt_mb) {
    lmr_init();
    KdEngine *e = big_alloc(sizeof(KdEngine));
    if (!e) return NULL;
    e->r = *rules;
    if (kd_eval_copy(&e->ev, eval)) {
        big_free(e, sizeof(KdEngine));
        return NULL;
    }
    e->ev.rules = &e->r;
    uint64_t s = 0x4B6F6E6461766FULL; /* fixed: keys are stable across processes */
    for (int t = 0; t < 4; t++)
        for (int sq = 0; sq < KD_ZOBRIST_SQ; sq++) {
            uint64_t key = splitmix(&s);
            if (sq < KD_MAX_SQ) e->z[t][sq] = key;
        }
    e->z_side = splitmix(&s);
    size_t entries = 1;
    size_t want = ((size_t)(tt_mb > 0 ? tt_mb : 1) << 20) / sizeof(TTEntry);
    while (entries * 2 <= want) entries *= 2;
    e->tt = big_alloc(entries * sizeof(TTEntry));
    if (!e->tt) {
        kd_eval_free(&e->ev);
        big_free(e, sizeof(KdEngine));
        return NULL;
    }
    e->tt_mask = entries - 1;
    return e;
}

int kd_engine_set_special(KdEngine *e, const uint8_t *table, size_t len) {
    size_t n = (size_t)e->r.nsq;
    free(e->special);
    e->special = NULL;
    if (!table || !len) return 0;
    if (len != 8 * n * n) return -1;
    e->special = malloc(len);
    if (!e->special) return -1;
    memcpy(e->special, table, len);
    return 0;
}

const uint8_t *kd_engine_special(const KdEngine *e) { return e->special; }

void kd_engine_set_profile(KdEngine *e, const KdSearchProfile *profile) {
    e->profile = *profile;
}

static int special_score(const KdEngine *e, const KdPos *p, int ply, int *score) {
    kd_bb w = p->men[0] | p->kings[0], b = p->men[1] | p->kings[1];
    if (!w || !b || (w & (w - 1)) || (b & (b - 1))) return 0;
    int v = e->special[kd_special_index(p, e->r.nsq)];
    if (!v) return 0;
    if (v == 3) *score = 0;
    else *score = (v - 1) == p->turn ? KD_MATE - ply : -(KD_MATE - ply);
    return 1;
}

int kd_engine_set_tables(KdEngine *e, int max_pieces, const uint8_t *data, size_t len) {
    e->tables.data = NULL; /* borrowed: never freed here */
    if (!data || !len) return 0;
    KdTables t;
    if (kd_tables_layout(&t, &e->r, max_pieces) || t.total != len) return -1;
    t.data = (uint8_t *)data;
    e->tables = t;
    return 0;
}

int kd_engine_probe(const KdEngine *e, const KdPos *p) {
    return e->tables.data ? kd_tables_probe(&e->tables, p) : -1;
}

/* A position in the tables: a win or loss in d plies as a mate score from the root; a draw
   as a small share of the evaluation, so the search still prefers the drawn line where
   the opponent can go wrong and never takes it for a real advantage. */
static int table_score(const KdEngine *e, const KdPos *p, int ply, int *score) {
    int v = kd_tables_probe(&e->tables, p);
    if (v < 0) return 0;
    if (v == 0) {
        *score = kd_evaluate(p, &e->ev) / 16;
        return 1;
    }
    int d = v - 1;
    *score = kd_tb_win(v) ? KD_MATE - (ply + d) : -(KD_MATE - (ply + d));
    return 1;
}

void kd_engine_free(KdEngine *e) {
    if (!e) return;
    kd_eval_free(&e->ev);
    free(e->special);
    big_free(e->tt, (e->tt_mask + 1) * sizeof(TTEntry));
    big_free(e, sizeof(KdEngine));
}

void kd_engine_clear(KdEngine *e) {
    memset(e->tt, 0, (e->tt_mask + 1) * sizeof(TTEntry));
    memset(e->ecache, 0, sizeof(e->ecache));
    memset(e->history, 0, sizeof(e->history));
    memset(e->counter, 0, sizeof(e->counter));
    e->gen = 0;
}

uint64_t kd_hash(const KdEngine *e, const KdPos *p) {
    uint64_t h = p->turn ? e->z_side : 0;
    kd_bb bbs[4] = {p->men[0], p->kings[0], p->men[1], p->kings[1]};
    for (int t = 0; t < 4; t++) {
        kd_bb b = bbs[t];
        while (b) {
            int sq = kd_lsb(b);
            b &= b - 1;
            h ^= e->z[t][sq];
        }
    }
    return h;
}

/* Hash of the child after m (p is the parent). */
static uint64_t child_hash(const KdEngine *e, const KdPos *p, uint64_t h, const KdMove *m) {
    int c = p->turn, o = c ^ 1;
    int man = (int)((p->men[c] >> m->from) & 1);
    int t_from = c * 2 + (man ? 0 : 1);
    int t_to = (man && !m->promotes) ? c * 2 : c * 2 + 1;
    h ^= e->z_side ^ e->z[t_from][m->from] ^ e->z[t_to][m->to];
    kd_bb cap = m->captured;
    while (cap) {
        int sq = kd_lsb(cap);
        cap &= cap - 1;
        h ^= e->z[o * 2 + (int)((p->kings[o] >> sq) & 1)][sq];
    }
    return h;
}

static inline int same_move(const KdMove *a, const KdMove *b) {
    return a->from == b->from && a->to == b->to && a->captured == b->captured;
}

static int next_quiet(const KdEngine *e, const KdPos *p, const KdMove *m, int quiet) {
    if (m->captured) return 0;
    if (((p->men[p->turn] >> m->from) & 1) && e->r.rank[m->from] != e->r.rank[m->to]) return 0;
    return quiet + 1;
}

static void check_limits(KdEngine *e) {
    if (!e->armed) return;
    if (e->node_limit > 0 && e->nodes >= e->node_limit) e->stop = 1;
    else if (e->deadline > 0 && now() >= e->deadline) e->stop = 1;
}

static int opponent_threatens(const KdEngine *e, const KdPos *p) {
    KdPos q = *p;
    q.turn ^= 1;
    return kd_has_capture(&e->r, &q);
}

/* opponent_threatens() of the node at ply, from what the parent found if it looked. */
static inline int threatened(const KdEngine *e, const KdPos *p, int ply) {
    int t = e->threat[ply];
    return t >= 0 ? t : opponent_threatens(e, p);
}

/* The calm-node scheme (KD_SELECT_CALM): late-move reductions in plies by depth
   and move number, 0.75 + ln(depth) ln(i) / 2.5 rounded down (1 from the third move at
   depth 3, 2 from the ninth at depth 8), filled when the first engine is created (with the
   GIL held, so never by two threads at once); margins in centi-men a ply of depth. */
#define KD_LMR_MAX_DEPTH 64
#define KD_LMR_MAX_MOVES 64
static uint8_t lmr_table[KD_LMR_MAX_DEPTH][KD_LMR_MAX_MOVES];
static int lmr_ready;

static void lmr_init(void) {
    if (lmr_ready) return;
    for (int d = 1; d < KD_LMR_MAX_DEPTH; d++)
        for (int i = 1; i < KD_LMR_MAX_MOVES; i++)
            lmr_table[d][i] = (uint8_t)(0.75 + log((double)d) * log((double)i) / 2.5);
    lmr_ready = 1;
}

#define FUTILITY_MARGIN 70       /* depth 1-2: quiet moves skipped this far below alpha */
#define STATIC_CUT_MARGIN 80     /* depth 1-3: the evaluation this far above beta cuts */
#define PROBCUT_MARGIN 100       /* from PROBCUT_DEPTH: beta + this, confirmed by a search */
#define PROBCUT_DEPTH 5          /* ... PROBCUT_DEPTH - 1 plies shallower */

#define HISTORY_MAX 600000
#define SHALLOW_CUT_DEPTH 3       /* the shallow cut from this depth */
#define SHALLOW_CUT_PERCENT 40    /* its search: this share of the node's depth */
#define SHALLOW_CUT_MARGIN 20     /* its bound: beta + this many centi-men a ply of depth */

static inline uint16_t move_code(const KdMove *m) {
    return (uint16_t)(m->from * KD_MAX_SQ + m->to + 1);
}

static void history_add(KdEngine *e, const KdMove *m, int bonus) {
    int32_t *hv = &e->history[m->from][m->to];
    /* gravity: the entry moves towards +-HISTORY_MAX, never past it */
    *hv += bonus - (int32_t)((int64_t)*hv * (bonus < 0 ? -bonus : bonus) / HISTORY_MAX);
}

/* The node's moves again into its ply's list, which a shallower search of the same node
   (ProbCut, the shallow cut) reused; returns their number. */
static int regenerate(KdEngine *e, const KdPos *pos, int ply) {
    KdMoveList *ml = &e->lists[ply];
    kd_captures(&e->r, pos, ml);
    if (ml->n == 0) kd_quiet_moves(&e->r, pos, ml);
    return ml->n;
}

static int negamax(KdEngine *e, const KdPos *pos, uint64_t h, int depth, int alpha, int beta,
                   int ply, int quiet, int threat_ext) {
    e->nodes++;
    if ((e->nodes & (KD_CHECK_EVERY - 1)) == 0) check_limits(e);
    if (e->stop) return 0;
    e->stack[e->n_hist + ply] = h;
    if (quiet) {
        if (quiet >= e->r.draw_plies) return 0;
        if (quiet >= 4) {
            int top = e->n_hist + ply;
            for (int k = 4; k <= quiet && top - k >= 0; k += 2)
                if (e->stack[top - k] == h) return 0;
        }
    }
    if (e->special) {
        int s;
        if (special_score(e, pos, ply, &s)) return s;
    }
    if (e->use_tables) {
        int s;
        if (table_score(e, pos, ply, &s)) return s;
    }
    const KdRules *r = &e->r;
    /* The table entry is usually a cache miss: start loading it while the captures are
       generated (leaves without a capture never read it; the prefetch is then wasted). */
    __builtin_prefetch(tt_bucket(e, h));
    __builtin_prefetch((const char *)tt_bucket(e, h) + sizeof(TTEntry) * TT_WAYS - 1);
    KdMoveList *ml = &e->lists[ply];
    if (e->caps[ply] == 0) ml->n = 0; /* the parent found none: no need to generate them */
    else kd_captures(r, pos, ml);
    if (ml->n == 0) {
        if (depth <= 0 || ply >= KD_MAX_PLY - 2) {
            if (!kd_can_step(r, pos)) return -(KD_MATE - ply);
            if (threat_ext > 0 && ply < KD_MAX_PLY - 2 && threatened(e, pos, ply)) {
                depth = 1;
                threat_ext--;
            } else {
                return evaluate(e, pos, h);
            }
        }
        kd_quiet_moves(r, pos, ml);
        if (ml->n == 0) return -(KD_MATE - ply);
    }
    if (ply >= KD_MAX_PLY - 2) return evaluate(e, pos, h);
    if (depth < 0) depth = 0;

    TTEntry *te = tt_usable(e, h);
    TTMove ttm = tt_move_of(te);
    if (te && te->depth >= depth) {
        int s = te->score;
        if (s >= KD_MATE_BOUND) s -= ply;
        else if (s <= -KD_MATE_BOUND) s += ply;
        if (te->bound == EXACT || (te->bound == LOWER && s >= beta) ||
            (te->bound == UPPER && s <= alpha))
            return s;
    }

    int n = ml->n;
    int pv_node = beta - alpha > 1;
    /* where Scan's scheme applies (ml holds captures when there are any); both its uses
       need depth >= 2, so a KD_SELECT_SCAN_CALM depth-1 node skips the threat test */
    int sel = e->profile.selectivity;
    int selective = sel == KD_SELECT_SCAN ||
                    (sel == KD_SELECT_SCAN_CALM && depth >= 2 && !ml->m[0].captured &&
                     !threatened(e, pos, ply));
    /* the calm-node scheme: only where nothing is forced (no capture for the side to move,
       none threatened by the opponent), outside mate windows */
    int calm = sel == KD_SELECT_CALM && n > 1 && !ml->m[0].captured && depth > 0 &&
               alpha > -KD_MATE_BOUND && beta < KD_MATE_BOUND && !threatened(e, pos, ply);
    int static_eval = 0, futile = 0;
    if (calm && !pv_node && depth <= 3) {
        static_eval = evaluate(e, pos, h);
        /* static cut at the frontier: far above beta with nothing hanging */
        if (static_eval - STATIC_CUT_MARGIN * depth >= beta) return static_eval;
        /* futility: far below alpha, the quiet moves after the first are skipped */
        if (depth <= 2) futile = static_eval + FUTILITY_MARGIN * depth <= alpha;
    }
    if (calm && !pv_node && depth >= PROBCUT_DEPTH && ply > 0 &&
        !(te && te->depth >= depth - 3 && te->score < beta + PROBCUT_MARGIN) &&
        evaluate(e, pos, h) >= beta + PROBCUT_MARGIN) {
        /* ProbCut: well above beta by the evaluation, confirmed by a shallower search */
        int rbeta = beta + PROBCUT_MARGIN;
        int v = negamax(e, pos, h, depth - PROBCUT_DEPTH + 1, rbeta - 1, rbeta, ply, quiet,
                        threat_ext);
        if (e->stop) return 0;
        if (v >= rbeta) return v;
        n = regenerate(e, pos, ply);
        ttm = tt_move_of(tt_usable(e, h));
    }
    if (selective && !pv_node && depth >= SHALLOW_CUT_DEPTH && !e->shallow && ply > 0 &&
        alpha > -KD_MATE_BOUND && beta < KD_MATE_BOUND) {
        /* shallow cut: the node searched at a fraction of its depth well above beta is
           taken as failing high */
        int margin = SHALLOW_CUT_MARGIN * depth;
        int raised = beta + margin;
        e->shallow++;
        int v = negamax(e, pos, h, depth * SHALLOW_CUT_PERCENT / 100, raised - 1, raised, ply,
                        quiet, threat_ext);
        e->shallow--;
        if (e->stop) return 0;
        if (v >= raised) return v - margin;
        n = regenerate(e, pos, ply);
        ttm = tt_move_of(tt_usable(e, h));
    }
    uint16_t counter = 0;
    if (ply > 0 && e->path[ply - 1]) {
        int pc = e->path[ply - 1] - 1;
        counter = e->counter[pc / KD_MAX_SQ][pc % KD_MAX_SQ];
    }
    int *score = e->order[ply];
    for (int i = 0; i < n; i++) {
        const KdMove *m = &ml->m[i];
        int s;
        if (ttm.has && m->from == ttm.from && m->to == ttm.to && capfold(m->captured) == ttm.cap)
            s = 10000000;
        else if (m->captured)
            s = 1000000 + 1000 * m->ncaptured;
        else if (m->promotes)
            s = 900000;
        else if (same_move(m, &e->killers[ply][0]))
            s = 800000;
        else if (same_move(m, &e->killers[ply][1]))
            s = 700000;
        else if (counter && move_code(m) == counter)
            s = 650000;
        else
            s = e->history[m->from][m->to];
        score[i] = s;
    }
    int new_depth = depth - 1;
    if (n == 1 && ply < e->extension_ply) new_depth = depth;

    int orig_alpha = alpha, best = -KD_INF, best_i = 0;
    for (int i = 0; i < n; i++) {
        /* selection: bring the best remaining move to i */
        int bi = i;
        for (int j = i + 1; j < n; j++)
            if (score[j] > score[bi]) bi = j;
        if (bi != i) {
            KdMove tm = ml->m[i];
            ml->m[i] = ml->m[bi];
            ml->m[bi] = tm;
            int ts = score[i];
            score[i] = score[bi];
            score[bi] = ts;
        }
        KdMove m = ml->m[i];
        KdPos child;
        kd_apply(pos, &m, &child);
        e->threat[ply + 1] = -1;
        e->caps[ply + 1] = -1;
        /* the calm-node scheme never reduces or prunes a move that captures, promotes,
           offers a capture (a shot, a sacrifice) or threatens one */
        int tactical = m.captured || m.promotes || !calm;
        if (!tactical && i > 0 && (futile || depth >= 3)) {
            tactical = kd_has_capture(r, &child);
            if (!tactical) {
                e->caps[ply + 1] = 0;
                int t = opponent_threatens(e, &child);
                e->threat[ply + 1] = (int8_t)t;
                tactical = t;
            }
        }
        if (futile && i > 0 && !tactical && best > -KD_MATE_BOUND) continue;
        uint64_t ch = child_hash(e, pos, h, &m);
        int q = next_quiet(e, pos, &m, quiet);
        e->path[ply] = m.captured ? 0 : move_code(&m);
        int s;
        if (i == 0) {
            s = -negamax(e, &child, ch, new_depth, -beta, -alpha, ply + 1, q, threat_ext);
        } else {
            int reduction = 0;
            if (selective && depth >= 2 && i >= (pv_node ? 3 : 1) && !m.captured &&
                !m.promotes &&
                !(sel == KD_SELECT_SCAN_CALM && kd_has_capture(r, &child))) {
                reduction = (!pv_node && i >= 4) ? 2 : 1;
                if (reduction > new_depth) reduction = new_depth;
            } else if (calm && depth >= 3 && i >= 2 && !tactical) {
                reduction = lmr_table[depth < KD_LMR_MAX_DEPTH ? depth : KD_LMR_MAX_DEPTH - 1]
                                     [i < KD_LMR_MAX_MOVES ? i : KD_LMR_MAX_MOVES - 1];
                if (pv_node) reduction--;
                if (score[i] >= 650000) reduction--; /* killer, counter-move */
                int hist = e->history[m.from][m.to];
                if (hist > HISTORY_MAX / 4) reduction--;
                else if (hist < -HISTORY_MAX / 4) reduction++;
                if (reduction > new_depth - 1) reduction = new_depth - 1;
                if (reduction < 0) reduction = 0;
            }
            s = -negamax(e, &child, ch, new_depth - reduction, -alpha - 1, -alpha, ply + 1, q,
                         threat_ext);
            if (reduction && s > alpha && !e->stop)
                s = -negamax(e, &child, ch, new_depth, -alpha - 1, -alpha, ply + 1, q,
                             threat_ext);
            if (s > alpha && s < beta && !e->stop)
                s = -negamax(e, &child, ch, new_depth, -beta, -alpha, ply + 1, q, threat_ext);
        }
        if (e->stop) return 0;
        if (s > best) {
            best = s;
            best_i = i;
            if (s > alpha) {
                alpha = s;
                if (alpha >= beta) {
                    if (!m.captured) {
                        if (!same_move(&m, &e->killers[ply][0])) {
                            e->killers[ply][1] = e->killers[ply][0];
                            e->killers[ply][0] = m;
                        }
                        int bonus = depth * depth * 32;
                        if (bonus > HISTORY_MAX / 8) bonus = HISTORY_MAX / 8;
                        history_add(e, &m, bonus);
                        /* the quiet moves tried before it did not cut: malus */
                        for (int j = 0; j < i; j++)
                            if (!ml->m[j].captured) history_add(e, &ml->m[j], -bonus);
                        if (ply > 0 && e->path[ply - 1]) {
                            int pc = e->path[ply - 1] - 1;
                            e->counter[pc / KD_MAX_SQ][pc % KD_MAX_SQ] = move_code(&m);
                        }
                    }
                    break;
                }
            }
        }
    }
    int bound = best <= orig_alpha ? UPPER : (best >= beta ? LOWER : EXACT);
    int stored = best;
    if (stored >= KD_MATE_BOUND) stored += ply;
    else if (stored <= -KD_MATE_BOUND) stored -= ply;
    te = tt_slot(e, h, depth);
    if (te) {
        const KdMove *bm = &ml->m[best_i];
        te->key = h;
        te->score = stored;
        te->depth = (int16_t)depth;
        te->bound = (uint8_t)bound;
        te->gen = e->gen;
        te->from = bm->from;
        te->to = bm->to;
        te->capfold = capfold(bm->captured);
        te->has_move = 1;
    }
    return best;
}

static uint64_t rng_next(uint64_t *s) { return splitmix(s); }

static int static_order(const KdEngine *e, const KdMove *m) {
    if (m->captured) return 1000000 + 1000 * m->ncaptured;
    if (m->promotes) return 900000;
    return e->history[m->from][m->to];
}

static int find_move(const KdMoveList *ml, uint8_t from, uint8_t to, uint32_t cap) {
    for (int i = 0; i < ml->n; i++)
        if (ml->m[i].from == from && ml->m[i].to == to && capfold(ml->m[i].captured) == cap)
            return i;
    return -1;
}

/* The best move of a position the tables decide (the shortest win, the longest loss): the
   principal variation goes on past the transposition table to the end of the game. */
static int table_move(const KdEngine *e, const KdPos *p, KdMoveList *ml, KdMove *best) {
    if (!e->use_tables) return 0;
    int v = kd_tables_probe(&e->tables, p);
    if (v <= 0) return 0;
    int win = kd_tb_win(v), found = 0, best_d = 0;
    kd_legal_moves(&e->r, p, ml);
    for (int i = 0; i < ml->n; i++) {
        KdPos c;
        kd_apply(p, &ml->m[i], &c);
        int cv = (c.men[c.turn] | c.kings[c.turn]) ? kd_tables_probe(&e->tables, &c) : 1;
        if (cv <= 0) continue;
        int d = cv - 1, child_loses = !kd_tb_win(cv);
        if (win ? (child_loses && (!found || d < best_d))
                : (!child_loses && (!found || d > best_d))) {
            found = 1;
            best_d = d;
            *best = ml->m[i];
        }
    }
    return found;
}

/* Fills out's principal variation; returns 1 when it ends where a special outcome ends
   the game. */
static int collect_pv(KdEngine *e, const KdPos *root, const KdMove *first, KdSearchResult *out) {
    KdPos pos = *root;
    uint64_t h = kd_hash(e, root);
    uint64_t seen[64];
    int nseen = 0;
    KdMoveList *ml = &e->lists[0];
    KdMove m = *first;
    out->pv_len = 0;
    while (out->pv_len < 32 && out->pv_len < KD_MAX_PLY) {
        for (int i = 0; i < nseen; i++)
            if (seen[i] == h) return 0;
        seen[nseen++] = h;
        kd_legal_moves(&e->r, &pos, ml);
        int idx = find_move(ml, m.from, m.to, capfold(m.captured));
        if (idx < 0) return 0;
        m = ml->m[idx];
        out->pv[out->pv_len++] = m;
        KdPos child;
        kd_apply(&pos, &m, &child);
        h = child_hash(e, &pos, h, &m);
        pos = child;
        int over;
        if (e->special && special_score(e, &pos, 0, &over)) return 1; /* the game ended */
        TTEntry *te = tt_find(e, h);
        if (!te || !te->has_move) {
            if (!table_move(e, &pos, ml, &m)) return 0;
            continue;
        }
        kd_legal_moves(&e->r, &pos, ml);
        idx = find_move(ml, te->from, te->to, te->capfold);
        if (idx < 0) return 0;
        m = ml->m[idx];
    }
    return 0;
}

#define KD_SOFT_MIN_DEPTH 4
#define KD_SOFT_NEXT 0.7       /* of the stretched target: no new iteration past it */
#define KD_SOFT_LATEST 2.0     /* times the stretched target: an iteration under way stops */
#define KD_SOFT_DROP 100       /* centi-men a score fall that stretches the target 1.5 times */

/* A clocked search's target stretched for the root's state: `changes` the decaying count
   of best-move changes, `drop` how far the score fell in the last iteration (centi-men,
   <= 0: it did not). */
static double soft_target(double soft_time, double changes, int drop) {
    double f = 1.0 + changes;
    if (drop > 0) f *= 1.0 + 0.5 * (drop < KD_SOFT_DROP ? drop : KD_SOFT_DROP) / KD_SOFT_DROP;
    return f * soft_time;
}

void kd_search(KdEngine *e, const KdPos *root, const KdSearchParams *params,
               KdSearchResult *out) {
    double started = now();
    memset(out, 0, sizeof(*out));
    e->nodes = 0;
    e->stop = 0;
    e->armed = 0;
    e->node_limit = params->node_limit;
    e->deadline = params->time_limit > 0 ? started + params->time_limit : 0;
    double hard_deadline = e->deadline;
    e->gen++;
    memset(e->killers, 0, sizeof(e->killers));
    e->fresh = params->fresh;
    e->use_tables = params->use_tables && e->tables.data != NULL;
    memset(e->path, 0, sizeof(e->path));
    memset(e->threat, -1, sizeof(e->threat));
    memset(e->caps, -1, sizeof(e->caps));
    e->shallow = 0;
    if (e->fresh) {
        memset(e->history, 0, sizeof(e->history));
        memset(e->counter, 0, sizeof(e->counter));
    } else {
        for (int a = 0; a < e->r.nsq; a++)
            for (int b = 0; b < e->r.nsq; b++) e->history[a][b] /= 8;
    }
    int nh = params->n_history;
    if (nh > KD_MAX_HISTORY) nh = KD_MAX_HISTORY;
    if (nh < 0) nh = 0;
    e->n_hist = nh;
    memcpy(e->stack, params->history, sizeof(uint64_t) * (size_t)nh);

    /* root moves live in their own buffer: the tree reuses lists[] */
    KdMoveList *rl = &e->root_list;
    rl->paths = NULL;
    kd_legal_moves(&e->r, root, rl);
    int n = rl->n;
    if (n == 0) {
        out->score = -KD_MATE;
        return;
    }
    uint64_t rng = params->seed ^ 0xD1B54A32D192ED03ULL;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rng_next(&rng) % (uint64_t)(i + 1));
        KdMove t = rl->m[i];
        rl->m[i] = rl->m[j];
        rl->m[j] = t;
    }
    int noise[KD_MAX_MOVES], scores[KD_MAX_MOVES], keyv[KD_MAX_MOVES];
    for (int i = 0; i < n; i++) keyv[i] = static_order(e, &rl->m[i]);
    /* stable insertion sort, descending */
    for (int i = 1; i < n; i++) {
        KdMove m = rl->m[i];
        int k = keyv[i], j = i - 1;
        while (j >= 0 && keyv[j] < k) {
            rl->m[j + 1] = rl->m[j];
            keyv[j + 1] = keyv[j];
            j--;
        }
        rl->m[j + 1] = m;
        keyv[j + 1] = k;
    }
    for (int i = 0; i < n; i++)
        noise[i] = params->noise > 0
                       ? (int)(rng_next(&rng) % (uint64_t)(2 * params->noise + 1)) - params->noise
                       : 0;
    int max_depth = params->max_depth;
    if (max_depth < 1) max_depth = 1;
    if (max_depth > KD_MAX_PLY / 2) max_depth = KD_MAX_PLY / 2;
    uint64_t rh = kd_hash(e, root);
    KdMove best_move = rl->m[0];
    int best_score = 0, completed = 0, stopped = 0, prev = 0;
    double changes = 0; /* best-move changes between iterations, halved at each one */
    for (int depth = 1; depth <= max_depth; depth++) {
        e->extension_ply = 2 * depth + 4;
        int window = (depth >= 3 && !params->noise) ? 40 : 0;
        int lo = window ? prev - window : -KD_INF, hi = window ? prev + window : KD_INF;
        int iter_best = -KD_INF, iter_best_i = -1, partial_i = -1, partial_score = 0;
        int best_total = -KD_INF;
        for (;;) {
            int alpha = lo;
            iter_best = -KD_INF;
            best_total = -KD_INF;
            partial_i = -1;
            for (int i = 0; i < n && !e->stop; i++) {
                KdMove m = rl->m[i];
                KdPos child;
                kd_apply(root, &m, &child);
                uint64_t ch = child_hash(e, root, rh, &m);
                int q = next_quiet(e, root, &m, params->quiet_plies);
                e->stack[e->n_hist] = rh;
                e->path[0] = m.captured ? 0 : move_code(&m);
                e->threat[1] = -1;
                e->caps[1] = -1;
                int s;
                if (params->noise) {
                    s = -negamax(e, &child, ch, depth - 1, -KD_INF, KD_INF, 1, q, 1);
                } else if (i == 0) {
                    s = -negamax(e, &child, ch, depth - 1, -hi, -alpha, 1, q, 1);
                } else {
                    s = -negamax(e, &child, ch, depth - 1, -alpha - 1, -alpha, 1, q, 1);
                    if (s > alpha && s < hi && !e->stop)
                        s = -negamax(e, &child, ch, depth - 1, -hi, -alpha, 1, q, 1);
                }
                if (e->stop) break;
                scores[i] = s;
                int total = s + noise[i];
                if (total > best_total) {
                    best_total = total;
                    partial_i = i;
                    partial_score = s;
                }
                if (s > iter_best) {
                    iter_best = s;
                    iter_best_i = i;
                }
                if (s > alpha) alpha = s;
                if (!params->noise && alpha >= hi) break;
            }
            if (e->stop) break;
            if (window && (iter_best <= lo || iter_best >= hi)) {
                lo = -KD_INF;
                hi = KD_INF;
                window = 0;
                continue; /* fail low or high: search again with a full window */
            }
            break;
        }
        (void)iter_best_i;
        if (e->stop) {
            stopped = 1;
            /* a move of the unfinished iteration that completed and beat the previous best
               (which is searched first) is trustworthy */
            if (partial_i >= 0) {
                best_move = rl->m[partial_i];
                best_score = partial_score;
            }
            break;
        }
        /* order root moves by this iteration's scores (+ noise), stable */
        for (int i = 1; i < n; i++) {
            KdMove m = rl->m[i];
            int s = scores[i], nz = noise[i], j = i - 1;
            while (j >= 0 && scores[j] + noise[j] < s + nz) {
                rl->m[j + 1] = rl->m[j];
                scores[j + 1] = scores[j];
                noise[j + 1] = noise[j];
                j--;
            }
            rl->m[j + 1] = m;
            scores[j + 1] = s;
            noise[j + 1] = nz;
        }
        if (completed && !same_move(&rl->m[0], &best_move)) changes += 1.0;
        int drop = completed ? prev - scores[0] : 0;
        best_move = rl->m[0];
        best_score = scores[0];
        prev = best_score;
        completed = depth;
        e->armed = 1;
        /* store the root */
        TTEntry *te = tt_find(e, rh);
        if (!te) te = tt_slot(e, rh, depth);
        te->key = rh;
        te->score = best_score;
        te->depth = (int16_t)depth;
        te->bound = EXACT;
        te->gen = e->gen;
        te->from = best_move.from;
        te->to = best_move.to;
        te->capfold = capfold(best_move.captured);
        te->has_move = 1;
        if (e->node_limit > 0 && e->nodes >= e->node_limit) {
            stopped = depth < max_depth;
            break;
        }
        if (params->soft_time > 0 && depth >= KD_SOFT_MIN_DEPTH) {
            double target = soft_target(params->soft_time, changes, drop);
            if (now() - started >= KD_SOFT_NEXT * target) {
                stopped = depth < max_depth;
                break;
            }
            /* the next iteration stops at KD_SOFT_LATEST times the stretched target */
            double until = started + KD_SOFT_LATEST * target;
            e->deadline = hard_deadline > 0 && hard_deadline < until ? hard_deadline : until;
        }
        changes *= 0.5;
        if (e->deadline > 0) {
            double t = now();
            if (t >= e->deadline) {
                stopped = depth < max_depth;
                break;
            }
        }
        if ((best_score >= KD_MATE_BOUND || best_score <= -KD_MATE_BOUND) && !params->noise)
            break;
    }
    out->has_move = 1;
    out->best = best_move;
    out->score = best_score;
    out->depth = completed;
    out->nodes = e->nodes;
    out->stopped = stopped;
    /* The endgame tables count a special outcome won by the side to move one ply long
       (tables.h); a line that reaches it gives the exact distance: its own length. */
    if (collect_pv(e, root, &best_move, out) && out->pv_len > 0 &&
        KD_MATE - abs(out->score) > out->pv_len && abs(out->score) >= KD_MATE_BOUND)
        out->score = out->score > 0 ? KD_MATE - out->pv_len : -(KD_MATE - out->pv_len);
}
