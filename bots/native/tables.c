/* Endgame tables: retrograde analysis over the core's own move generation (tables.h). */
#include <stdlib.h>
#include <string.h>

#include "tables.h"

#define M KD_TB_MAX_PIECES
#define NONE 255 /* no distance (yet) */
#define F_VALID 1
#define F_DONE 2
#define F_CAN_LOSE 4

static uint64_t binom(const KdTables *t, int n, int k) {
    return (n < 0 || k < 0 || n < k) ? 0 : t->binom[n][k];
}

int kd_tables_layout(KdTables *t, const KdRules *r, int max_pieces) {
    if (max_pieces < 2 || max_pieces > M || r->nsq < 1 || r->nsq > KD_MAX_SQ) return -1;
    memset(t, 0, sizeof *t);
    t->max_pieces = max_pieces;
    t->nsq = r->nsq;
    for (int n = 0; n <= KD_MAX_SQ; n++) {
        t->binom[n][0] = 1;
        for (int k = 1; k <= M; k++)
            t->binom[n][k] = n ? t->binom[n - 1][k - 1] + t->binom[n - 1][k] : 0;
    }
    for (int c = 0; c < 2; c++) {
        for (int sq = 0; sq < r->nsq; sq++) {
            if ((r->promo[c] >> sq) & 1) {
                t->slot_of[c][sq] = -1;
            } else {
                t->slot_of[c][sq] = (int16_t)t->nslots[c];
                t->slot_sq[c][t->nslots[c]++] = (uint8_t)sq;
            }
        }
    }
    size_t off = 0;
    for (int wm = 0; wm <= M; wm++)
        for (int wk = 0; wk <= M; wk++)
            for (int bm = 0; bm <= M; bm++)
                for (int bk = 0; bk <= M; bk++) {
                    if (wm + wk + bm + bk > max_pieces || !(wm + wk) || !(bm + bk)) continue;
                    size_t size = binom(t, t->nslots[0], wm) * binom(t, r->nsq, wk) *
                                  binom(t, t->nslots[1], bm) * binom(t, r->nsq, bk);
                    if (2 * size >= UINT32_MAX) return -1;
                    t->size[wm][wk][bm][bk] = size;
                    t->offset[wm][wk][bm][bk] = off;
                    off += 2 * size;
                }
    t->total = off;
    return 0;
}

/* Colex rank of a set of squares (men: over their slots); UINT64_MAX if a square has none. */
static uint64_t rank_set(const KdTables *t, kd_bb b, const int16_t *slot) {
    uint64_t rank = 0;
    int i = 0;
    while (b) {
        int sq = kd_lsb(b);
        b &= b - 1;
        int x = slot ? slot[sq] : sq;
        if (x < 0) return UINT64_MAX;
        rank += binom(t, x, ++i);
    }
    return rank;
}

static kd_bb unrank_set(const KdTables *t, uint64_t rank, int k, int n, const uint8_t *sq_of) {
    kd_bb b = 0;
    int x = n - 1;
    for (int i = k; i >= 1; i--) {
        while (binom(t, x, i) > rank) x--;
        rank -= binom(t, x, i);
        b |= kd_bit(sq_of ? sq_of[x] : x);
        x--;
    }
    return b;
}

/* Index of p inside its signature's table (both halves), or UINT64_MAX. */
static uint64_t index_of(const KdTables *t, const KdPos *p, int wk, int bm, int bk,
                         size_t size) {
    uint64_t a = rank_set(t, p->men[0], t->slot_of[0]);
    uint64_t b = rank_set(t, p->kings[0], NULL);
    uint64_t c = rank_set(t, p->men[1], t->slot_of[1]);
    uint64_t d = rank_set(t, p->kings[1], NULL);
    if (a == UINT64_MAX || c == UINT64_MAX) return UINT64_MAX;
    uint64_t idx = ((a * binom(t, t->nsq, wk) + b) * binom(t, t->nslots[1], bm) + c) *
                       binom(t, t->nsq, bk) + d;
    return idx + (p->turn ? size : 0);
}

int kd_tables_probe(const KdTables *t, const KdPos *p) {
    if (!t->data) return -1;
    int wm = kd_popcount(p->men[0]), wk = kd_popcount(p->kings[0]);
    int bm = kd_popcount(p->men[1]), bk = kd_popcount(p->kings[1]);
    if (wm + wk + bm + bk > t->max_pieces || !(wm + wk) || !(bm + bk)) return -1;
    size_t size = t->size[wm][wk][bm][bk];
    uint64_t idx = index_of(t, p, wk, bm, bk, size);
    if (!size || idx == UINT64_MAX) return -1;
    return t->data[t->offset[wm][wk][bm][bk] + idx];
}

typedef struct {
    uint32_t *v;
    size_t n, cap;
} Vec;

static int vec_push(Vec *a, uint32_t x) {
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 1024;
        uint32_t *v = realloc(a->v, cap * sizeof *v);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* The byte of a child outside the table being solved (already solved, or a side gone). */
static int outside(const KdTables *t, const KdPos *child) {
    int mover_gone = !(child->men[child->turn] | child->kings[child->turn]);
    if (mover_gone) return 1; /* the side to move has no piece: lost, distance 0 */
    int v = kd_tables_probe(t, child);
    return v < 0 ? 0 : v;     /* not representable (cannot happen): counted as a draw */
}

/* One material signature being solved: its geometry and per-position work arrays (four
 * bytes a position; no move lists are kept: predecessors come from un-moves). */
typedef struct {
    const KdTables *t;
    const KdRules *r;
    int wm, wk, bm, bk;
    size_t size;
    uint64_t nk0, nm1, nk1;
} Sig;

/* The position at index i of the signature (both halves); its piece count tells whether
 * the index is a real position (no two pieces on one square). */
static void pos_at(const Sig *s, uint32_t i, KdPos *p) {
    const KdTables *t = s->t;
    int turn = i >= s->size;
    uint64_t idx = i - (turn ? s->size : 0);
    p->kings[1] = unrank_set(t, idx % s->nk1, s->bk, t->nsq, NULL);
    idx /= s->nk1;
    p->men[1] = unrank_set(t, idx % s->nm1, s->bm, t->nslots[1], t->slot_sq[1]);
    idx /= s->nm1;
    p->kings[0] = unrank_set(t, idx % s->nk0, s->wk, t->nsq, NULL);
    p->men[0] = unrank_set(t, idx / s->nk0, s->wm, t->nslots[0], t->slot_sq[0]);
    p->turn = turn;
}

/* The quiet moves that lead to c inside the same signature, undone: the indices of the
 * positions they start from (the side that just moved to move; whether such a position
 * really has that move, i.e. no capture, is for the caller to check). A quiet move inside
 * a signature is a king's move along one of its move directions (any distance through empty
 * squares when kings fly) or a man's step that does not crown. Returns the number of indices written to out. */
static int unmoves(const Sig *s, const KdPos *c, uint32_t *out) {
    const KdRules *r = s->r;
    int mover = c->turn ^ 1, n = 0;
    kd_bb occ = c->men[0] | c->men[1] | c->kings[0] | c->kings[1];
    kd_bb kings = c->kings[mover], men = c->men[mover];
    KdPos q = *c;
    q.turn = mover;
    while (kings) {
        int sq = kd_lsb(kings);
        kings &= kings - 1;
        for (int k = 0; k < r->n_king_move; k++) {
            int d = r->opposite[r->king_move[k]]; /* back against a move direction */
            const uint8_t *ray = r->ray[d][sq];
            for (int i = 0; i < r->ray_len[d][sq]; i++) {
                if ((occ >> ray[i]) & 1) break;
                q.kings[mover] = (c->kings[mover] & ~kd_bit(sq)) | kd_bit(ray[i]);
                uint64_t j = index_of(s->t, &q, s->wk, s->bm, s->bk, s->size);
                if (j != UINT64_MAX) out[n++] = (uint32_t)j;
                if (!r->flying_kings) break;
            }
        }
    }
    q.kings[mover] = c->kings[mover];
    while (men) {
        int sq = kd_lsb(men);
        men &= men - 1;
        for (int k = 0; k < r->n_man_move[mover]; k++) {
            int from = r->neighbour[r->opposite[r->man_move[mover][k]]][sq];
            if (from < 0 || ((occ >> from) & 1)) continue;
            q.men[mover] = (c->men[mover] & ~kd_bit(sq)) | kd_bit(from);
            uint64_t j = index_of(s->t, &q, s->wk, s->bm, s->bk, s->size);
            if (j != UINT64_MAX) out[n++] = (uint32_t)j;
        }
    }
    return n;
}

/* none of the quiet moves of the side to move is legal: it must capture, or the game is
   over (a special outcome) */
#define F_NO_QUIET 8
#define MAX_UNMOVES (KD_TB_MAX_PIECES * KD_MAX_DIRS * KD_MAX_RAY)

static int solve(KdTables *t, const KdRules *r, int wm, int wk, int bm, int bk,
                 const uint8_t *special, KdMoveList *ml) {
    Sig s = {t, r, wm, wk, bm, bk, t->size[wm][wk][bm][bk], binom(t, t->nsq, wk),
             binom(t, t->nslots[1], bm), binom(t, t->nsq, bk)};
    size_t size = s.size;
    uint32_t n2 = (uint32_t)(2 * size);
    uint8_t *val = t->data + t->offset[wm][wk][bm][bk];
    int total = wm + wk + bm + bk;
    uint8_t *flags = calloc(n2, 1), *tent = malloc(n2), *extmax = calloc(n2, 1);
    uint8_t *remaining = calloc(n2, 1);
    Vec bucket[NONE] = {{0}};
    uint32_t preds[MAX_UNMOVES];
    int rc = -1;
    if (!flags || !tent || !extmax || !remaining) goto out;
    memset(tent, NONE, n2);
    for (uint32_t i = 0; i < n2; i++) {
        KdPos p;
        pos_at(&s, i, &p);
        if (kd_popcount(p.men[0] | p.kings[0] | p.men[1] | p.kings[1]) != total) continue;
        flags[i] = F_VALID;
        /* kd_engine_set_special's codes: 0 none, 1 White wins, 2 Black wins, 3 draw */
        int sp = special && total == 2 ? special[kd_special_index(&p, r->nsq)] : 0;
        if (sp) { /* the game is over: no move of it is legal */
            flags[i] |= F_NO_QUIET;
            if (sp == 3) {
                flags[i] |= F_DONE; /* a draw: its byte stays 0 */
            } else {
                int d = sp - 1 == p.turn ? 1 : 0; /* a win of the side to move: one ply */
                tent[i] = (uint8_t)d;
                if (vec_push(&bucket[d], i)) goto out;
            }
            continue;
        }
        kd_legal_moves(r, &p, ml);
        if (ml->n && ml->m[0].ncaptured) flags[i] |= F_NO_QUIET;
        int extwin = NONE, draw = 0, inside = 0;
        for (int k = 0; k < ml->n; k++) {
            KdPos c;
            kd_apply(&p, &ml->m[k], &c);
            if (kd_popcount(c.men[0]) == wm && kd_popcount(c.kings[0]) == wk &&
                kd_popcount(c.men[1]) == bm && kd_popcount(c.kings[1]) == bk) {
                inside++; /* a quiet move inside the signature: resolved by un-moves */
                continue;
            }
            int v = outside(t, &c);
            if (!v) {
                draw = 1;
            } else if (!kd_tb_win(v)) { /* the child's side to move loses */
                if (v < extwin) extwin = v;  /* we win in (v - 1) + 1 plies */
            } else if (v > extmax[i]) {
                extmax[i] = (uint8_t)v;      /* they win in (v - 1) + 1 plies at the most */
            }
        }
        if (inside > 255) goto out;
        remaining[i] = (uint8_t)inside;
        if (!ml->n) {
            tent[i] = 0;
            if (vec_push(&bucket[0], i)) goto out;
        } else if (extwin != NONE) {
            tent[i] = (uint8_t)extwin;
            if (vec_push(&bucket[extwin], i)) goto out;
        } else if (!draw) {
            flags[i] |= F_CAN_LOSE;
            if (!remaining[i]) {
                tent[i] = extmax[i];
                if (vec_push(&bucket[extmax[i]], i)) goto out;
            }
        }
    }
    /* distances in increasing order: a win is found first at its shortest distance, a
       loss once its last child is known to win (the longest) */
    for (int d = 0; d < NONE; d++) {
        for (size_t k = 0; k < bucket[d].n; k++) {
            uint32_t i = bucket[d].v[k];
            if ((flags[i] & F_DONE) || tent[i] != d) continue;
            flags[i] |= F_DONE;
            val[i] = (uint8_t)(d + 1);
            KdPos c;
            pos_at(&s, i, &c);
            int np = unmoves(&s, &c, preds);
            for (int e = 0; e < np; e++) {
                uint32_t q = preds[e];
                if (!(flags[q] & F_VALID) || (flags[q] & (F_DONE | F_NO_QUIET))) continue;
                int nd;
                if (d % 2 == 0) {
                    nd = d + 1;
                } else {
                    if (--remaining[q] || !(flags[q] & F_CAN_LOSE)) continue;
                    nd = d + 1 > extmax[q] ? d + 1 : extmax[q];
                }
                if (nd >= NONE) {
                    rc = -2;
                    goto out;
                }
                if (nd < tent[q]) {
                    tent[q] = (uint8_t)nd;
                    if (vec_push(&bucket[nd], q)) goto out;
                }
            }
        }
        free(bucket[d].v);
        bucket[d].v = NULL;
    }
    rc = 0;
out:
    free(flags);
    free(tent);
    free(extmax);
    free(remaining);
    for (int d = 0; d < NONE; d++) free(bucket[d].v);
    return rc;
}

int kd_tables_build(KdTables *t, const KdRules *r, int max_pieces, const uint8_t *special) {
    if (kd_tables_layout(t, r, max_pieces)) return -1;
    t->data = calloc(t->total ? t->total : 1, 1);
    KdMoveList *ml = malloc(sizeof *ml);
    if (!t->data || !ml) {
        free(ml);
        kd_tables_free(t);
        return -1;
    }
    ml->paths = NULL;
    /* children are captures (fewer pieces), promotions (fewer men) or in the same table */
    int rc = 0;
    for (int total = 2; total <= max_pieces && !rc; total++)
        for (int men = 0; men <= total && !rc; men++)
            for (int wm = 0; wm <= men && !rc; wm++)
                for (int wk = 0; wk <= total - men && !rc; wk++) {
                    int bm = men - wm, bk = total - men - wk;
                    if (!(wm + wk) || !(bm + bk)) continue;
                    rc = solve(t, r, wm, wk, bm, bk, special, ml);
                }
    free(ml);
    if (rc) kd_tables_free(t);
    return rc;
}

void kd_tables_free(KdTables *t) {
    free(t->data);
    t->data = NULL;
}
