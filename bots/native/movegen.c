/* Move generation, apply and perft for any ruleset given as KdRules (see kd_core.h).
 *
 * The capture search mirrors the reference generator of variants (its _search) step by
 * step and in the same order (men in ascending square order, then kings; directions in the
 * ruleset's declared order; landing squares from near to far), so the first path found for
 * a move is the reference's path too.
 */
#include <string.h>

#include "kd_core.h"

static int add_group(int *n, int *deltas, kd_bb *srcs, int delta, kd_bb src) {
    for (int i = 0; i < *n; i++) {
        if (deltas[i] == delta) {
            srcs[i] |= src;
            return 0;
        }
    }
    if (*n >= KD_MAX_GROUPS) return -1;
    deltas[*n] = delta;
    srcs[*n] = src;
    (*n)++;
    return 0;
}

static int dirs_ok(const KdRules *r, int n, const int *dirs) {
    if (n < 0 || n > KD_MAX_DIRS) return 0;
    for (int i = 0; i < n; i++)
        if (dirs[i] < 0 || dirs[i] >= r->nvec) return 0;
    return 1;
}

int kd_rules_finish(KdRules *r) {
    if (r->nsq <= 0 || r->nsq > KD_MAX_SQ || r->ndirs <= 0 || r->ndirs > KD_MAX_DIRS) return -1;
    if (r->nvec < r->ndirs || r->nvec > KD_MAX_DIRS) return -1;
    if (!dirs_ok(r, r->n_king_move, r->king_move) ||
        !dirs_ok(r, r->n_king_capture, r->king_capture))
        return -1;
    for (int c = 0; c < 2; c++)
        if (!dirs_ok(r, r->n_man_move[c], r->man_move[c]) ||
            !dirs_ok(r, r->n_man_capture[c], r->man_capture[c]))
            return -1;
    if (r->n_criteria < 0 || r->n_criteria > KD_MAX_CRITERIA) return -1;
    for (int i = 0; i < r->n_criteria; i++)
        if (r->criteria[i] < KD_CRIT_MOST_PIECES || r->criteria[i] > KD_CRIT_MOST_VALUE)
            return -1;
    /* as the reference: the leading "most pieces" (then "most kings") while searching */
    r->precedence = KD_PREC_FREE;
    if (r->n_criteria >= 1 && r->criteria[0] == KD_CRIT_MOST_PIECES)
        r->precedence = (r->n_criteria >= 2 && r->criteria[1] == KD_CRIT_MOST_KINGS)
                            ? KD_PREC_MAX_PIECES_THEN_KINGS
                            : KD_PREC_MAX_PIECES;
    r->post_rank = r->n_criteria > r->precedence;
    for (int c = 0; c < 2; c++) {
        r->n_steps[c] = 0;
        for (int i = 0; i < r->n_man_move[c]; i++) {
            int d = r->man_move[c][i];
            for (int sq = 0; sq < r->nsq; sq++) {
                int n = r->neighbour[d][sq];
                if (n >= 0 && add_group(&r->n_steps[c], r->step_delta[c], r->step_src[c],
                                        n - sq, kd_bit(sq)))
                    return -1;
            }
        }
        r->n_jumps[c] = 0;
        for (int i = 0; i < r->n_man_capture[c]; i++) {
            int d = r->man_capture[c][i];
            for (int sq = 0; sq < r->nsq; sq++) {
                int v = r->neighbour[d][sq];
                int land = v >= 0 ? r->neighbour[d][v] : -1;
                if (land < 0) continue;
                int a = v - sq, b = land - sq, k;
                for (k = 0; k < r->n_jumps[c]; k++)
                    if (r->jump_victim[c][k] == a && r->jump_land[c][k] == b) break;
                if (k == r->n_jumps[c]) {
                    if (k >= KD_MAX_GROUPS) return -1;
                    r->jump_victim[c][k] = a;
                    r->jump_land[c][k] = b;
                    r->jump_src[c][k] = 0;
                    r->n_jumps[c]++;
                }
                r->jump_src[c][k] |= kd_bit(sq);
            }
        }
    }
    r->n_king_steps = 0;
    for (int i = 0; i < r->n_king_move; i++)
        for (int sq = 0, d = r->king_move[i]; sq < r->nsq; sq++) {
            int n = r->neighbour[d][sq];
            if (n >= 0 && add_group(&r->n_king_steps, r->king_step_delta, r->king_step_src,
                                    n - sq, kd_bit(sq)))
                return -1;
        }
    return 0;
}

/* ---- captures ------------------------------------------------------------------------- */

typedef struct Collector {
    const KdRules *r;
    KdMoveList *out;
    int best_n, best_k;
    kd_bb opp_kings, promo;
    int from, is_man;
    uint8_t path[KD_MAX_PATH + 1];
    uint8_t capt[KD_MAX_PATH + 1];
} Collector;

static void collect(Collector *c, int depth, kd_bb mask, int ncap, int kings, int promotes) {
    /* depth: captured pieces; the path is path[0..depth], the landing is path[depth] */
    KdMoveList *out = c->out;
    if (c->r->precedence != KD_PREC_FREE) {
        int k = c->r->precedence == KD_PREC_MAX_PIECES_THEN_KINGS ? kings : 0;
        if (ncap < c->best_n || (ncap == c->best_n && k < c->best_k)) return;
        if (ncap > c->best_n || k > c->best_k) {
            c->best_n = ncap;
            c->best_k = k;
            out->n = 0;
        }
    }
    int to = c->path[depth];
    for (int i = 0; i < out->n; i++) {
        const KdMove *m = &out->m[i];
        if (m->to == to && m->from == c->from && m->captured == mask) return;
    }
    if (out->n >= KD_MAX_MOVES) {
        out->overflow = 1;
        return;
    }
    KdMove *m = &out->m[out->n];
    m->captured = mask;
    m->from = (uint8_t)c->from;
    m->to = (uint8_t)to;
    m->promotes = (uint8_t)promotes;
    m->ncaptured = (uint8_t)ncap;
    m->nkings = (uint8_t)kings;
    m->is_man = (uint8_t)c->is_man;
    m->king_order = 0;
    if (c->r->post_rank) {
        for (int i = 0; i < depth && i < 64; i++)
            if ((c->opp_kings >> c->capt[i]) & 1) m->king_order |= (uint64_t)1 << (63 - i);
    }
    if (out->paths) {
        KdPath *p = &out->paths[out->n];
        p->len = (uint8_t)(depth + 1);
        memcpy(p->sq, c->path, (size_t)depth + 1);
        memcpy(p->captured, c->capt, (size_t)depth);
    }
    out->n++;
}

static int capture_search(Collector *c, int king, int crowned, const int *dirs, int ndirs,
                          int sq, int depth, kd_bb mask, int kings_taken, kd_bb blockers,
                          kd_bb targets, int last) {
    const KdRules *r = c->r;
    int flying = king && r->flying_captures;
    int reverse = (last >= 0 && r->no_reversal) ? r->opposite[last] : -1;
    int any = 0;
    if (depth >= KD_MAX_PATH - 1) return 0;
    for (int di = 0; di < ndirs; di++) {
        int d = dirs[di];
        if (d == reverse) continue;
        int victim;
        uint8_t landings[KD_MAX_RAY];
        int nland = 0;
        if (flying) {
            const uint8_t *ray = r->ray[d][sq];
            int n = r->ray_len[d][sq], i = 0;
            while (i < n && !((blockers >> ray[i]) & 1)) i++;
            if (i >= n - 1) continue;
            victim = ray[i];
            if (!((targets >> victim) & 1)) continue;
            for (int j = i + 1; j < n; j++) {
                if ((blockers >> ray[j]) & 1) break;
                landings[nland++] = ray[j];
                if (r->king_landing_next) break;
            }
            if (!nland) continue;
        } else {
            victim = r->neighbour[d][sq];
            if (victim < 0 || !((targets >> victim) & 1)) continue;
            int land = r->neighbour[d][victim];
            if (land < 0 || ((blockers >> land) & 1)) continue;
            landings[nland++] = (uint8_t)land;
        }
        any = 1;
        kd_bb vbit = kd_bit(victim);
        kd_bb new_mask = mask | vbit;
        int new_kings = kings_taken + (int)((c->opp_kings >> victim) & 1);
        kd_bb new_targets = targets ^ vbit;
        kd_bb new_blockers = r->immediate_removal ? blockers & ~vbit : blockers;
        uint8_t stops[KD_MAX_RAY];
        int nstops = 0, continued = 0;
        c->capt[depth] = (uint8_t)victim;
        for (int li = 0; li < nland; li++) {
            int land = landings[li];
            c->path[depth + 1] = (uint8_t)land;
            if (!king && ((c->promo >> land) & 1) && r->promotion_rule != KD_PROMO_STAYS_MAN) {
                if (r->promotion_rule == KD_PROMO_ENDS_MOVE) {
                    collect(c, depth + 1, new_mask, depth + 1, new_kings, 1);
                    continued = 1;
                } else { /* crowned: the rest of the chain is a king's capture */
                    kd_bb crowned_targets = new_targets;
                    if (!r->men_capture_kings) crowned_targets |= c->opp_kings & ~new_mask;
                    if (capture_search(c, 1, 1, r->king_capture, r->n_king_capture, land,
                                       depth + 1, new_mask, new_kings, new_blockers,
                                       crowned_targets, d))
                        continued = 1;
                    else
                        stops[nstops++] = (uint8_t)land;
                }
                continue;
            }
            if (capture_search(c, king, crowned, dirs, ndirs, land, depth + 1, new_mask,
                               new_kings, new_blockers, new_targets, d))
                continued = 1;
            else
                stops[nstops++] = (uint8_t)land;
        }
        if (!continued) {
            for (int k = 0; k < nstops; k++) {
                int land = stops[k];
                c->path[depth + 1] = (uint8_t)land;
                c->capt[depth] = (uint8_t)victim;
                collect(c, depth + 1, new_mask, depth + 1, new_kings,
                        crowned || (!king && ((c->promo >> land) & 1)));
            }
        }
    }
    return any;
}

/* Compares a and b on every declared criterion: > 0 when a ranks higher. */
static int criteria_cmp(const KdRules *r, const KdMove *a, const KdMove *b) {
    for (int i = 0; i < r->n_criteria; i++) {
        int64_t x = 0, y = 0;
        switch (r->criteria[i]) {
        case KD_CRIT_MOST_PIECES: x = a->ncaptured; y = b->ncaptured; break;
        case KD_CRIT_MOST_KINGS: x = a->nkings; y = b->nkings; break;
        case KD_CRIT_WITH_KING: x = !a->is_man; y = !b->is_man; break;
        case KD_CRIT_MOST_VALUE:
            x = (int64_t)(a->ncaptured - a->nkings) * r->piece_value[0] +
                (int64_t)a->nkings * r->piece_value[1];
            y = (int64_t)(b->ncaptured - b->nkings) * r->piece_value[0] +
                (int64_t)b->nkings * r->piece_value[1];
            break;
        default: /* earliest king: the tuple of king flags in jump order */
            if (a->king_order != b->king_order) return a->king_order > b->king_order ? 1 : -1;
            x = a->ncaptured; /* a tuple that extends an equal one ranks higher */
            y = b->ncaptured;
        }
        if (x != y) return x > y ? 1 : -1;
    }
    return 0;
}

/* Keeps the captures that rank highest on all the criteria (order preserved). */
static void post_rank(const KdRules *r, KdMoveList *out) {
    int best = 0;
    for (int i = 1; i < out->n; i++)
        if (criteria_cmp(r, &out->m[i], &out->m[best]) > 0) best = i;
    KdMove top = out->m[best];
    int k = 0;
    for (int i = 0; i < out->n; i++) {
        if (criteria_cmp(r, &out->m[i], &top) == 0) {
            if (k != i) {
                out->m[k] = out->m[i];
                if (out->paths) out->paths[k] = out->paths[i];
            }
            k++;
        }
    }
    out->n = k;
}

static kd_bb man_starters(const KdRules *r, int color, kd_bb men, kd_bb opp, kd_bb empty) {
    kd_bb s = 0;
    for (int k = 0; k < r->n_jumps[color]; k++)
        s |= men & r->jump_src[color][k] & kd_shift(opp, -r->jump_victim[color][k]) &
             kd_shift(empty, -r->jump_land[color][k]);
    return s;
}

void kd_captures(const KdRules *r, const KdPos *p, KdMoveList *out) {
    int color = p->turn, other = color ^ 1;
    kd_bb men = p->men[color], kings = p->kings[color];
    kd_bb opp = p->men[other] | p->kings[other];
    out->n = 0;
    out->overflow = 0;
    if (!opp) return;
    kd_bb occupied = men | kings | opp;
    kd_bb man_targets = r->men_capture_kings ? opp : p->men[other];
    kd_bb starters =
        (men && man_targets) ? man_starters(r, color, men, man_targets, r->full & ~occupied) : 0;
    if (!(starters | kings)) return;
    Collector c;
    c.r = r;
    c.out = out;
    c.best_n = 0;
    c.best_k = 0;
    c.opp_kings = p->kings[other];
    c.promo = r->promo[color];
    c.is_man = 1;
    while (starters) {
        int sq = kd_lsb(starters);
        starters &= starters - 1;
        c.from = sq;
        c.path[0] = (uint8_t)sq;
        capture_search(&c, 0, 0, r->man_capture[color], r->n_man_capture[color], sq, 0, 0, 0,
                       occupied ^ kd_bit(sq), man_targets, -1);
    }
    c.is_man = 0;
    while (kings) {
        int sq = kd_lsb(kings);
        kings &= kings - 1;
        c.from = sq;
        c.path[0] = (uint8_t)sq;
        capture_search(&c, 1, 0, r->king_capture, r->n_king_capture, sq, 0, 0, 0,
                       occupied ^ kd_bit(sq), opp, -1);
    }
    if (r->post_rank && out->n > 1) post_rank(r, out);
}

int kd_has_capture(const KdRules *r, const KdPos *p) {
    int color = p->turn, other = color ^ 1;
    kd_bb opp = p->men[other] | p->kings[other];
    if (!opp) return 0;
    kd_bb men = p->men[color], kings = p->kings[color];
    kd_bb occupied = men | kings | opp;
    kd_bb empty = r->full & ~occupied;
    kd_bb man_targets = r->men_capture_kings ? opp : p->men[other];
    if (men && man_targets && man_starters(r, color, men, man_targets, empty)) return 1;
    while (kings) {
        int sq = kd_lsb(kings);
        kings &= kings - 1;
        for (int k = 0; k < r->n_king_capture; k++) {
            int d = r->king_capture[k];
            if (r->flying_captures) {
                const uint8_t *ray = r->ray[d][sq];
                int n = r->ray_len[d][sq], i = 0;
                while (i < n && ((empty >> ray[i]) & 1)) i++;
                if (i < n - 1 && ((opp >> ray[i]) & 1) && ((empty >> ray[i + 1]) & 1)) return 1;
            } else {
                int v = r->neighbour[d][sq];
                if (v < 0 || !((opp >> v) & 1)) continue;
                int land = r->neighbour[d][v];
                if (land >= 0 && ((empty >> land) & 1)) return 1;
            }
        }
    }
    return 0;
}

/* ---- quiet moves ---------------------------------------------------------------------- */

static int push_quiet(KdMoveList *out, int from, int to, int promotes, int is_man) {
    if (out->n >= KD_MAX_MOVES) {
        out->overflow = 1;
        return 0;
    }
    KdMove *m = &out->m[out->n];
    m->captured = 0;
    m->from = (uint8_t)from;
    m->to = (uint8_t)to;
    m->promotes = (uint8_t)promotes;
    m->ncaptured = 0;
    m->nkings = 0;
    m->is_man = (uint8_t)is_man;
    if (out->paths) {
        out->paths[out->n].len = 2;
        out->paths[out->n].sq[0] = (uint8_t)from;
        out->paths[out->n].sq[1] = (uint8_t)to;
    }
    out->n++;
    return 1;
}

void kd_quiet_moves(const KdRules *r, const KdPos *p, KdMoveList *out) {
    int color = p->turn, other = color ^ 1;
    kd_bb men = p->men[color], kings = p->kings[color];
    kd_bb empty = r->full & ~(men | kings | p->men[other] | p->kings[other]);
    kd_bb promo = r->promo[color];
    out->n = 0;
    out->overflow = 0;
    if (men) {
        for (int g = 0; g < r->n_steps[color]; g++) {
            int delta = r->step_delta[color][g];
            kd_bb t = kd_shift(men & r->step_src[color][g], delta) & empty;
            while (t) {
                int dest = kd_lsb(t);
                t &= t - 1;
                push_quiet(out, dest - delta, dest, (int)((promo >> dest) & 1), 1);
            }
        }
    }
    while (kings) {
        int sq = kd_lsb(kings);
        kings &= kings - 1;
        for (int k = 0; k < r->n_king_move; k++) {
            int d = r->king_move[k];
            const uint8_t *ray = r->ray[d][sq];
            int n = r->ray_len[d][sq];
            for (int i = 0; i < n; i++) {
                if (!((empty >> ray[i]) & 1)) break;
                push_quiet(out, sq, ray[i], 0, 0);
                if (!r->flying_kings) break;
            }
        }
    }
}

int kd_can_step(const KdRules *r, const KdPos *p) {
    int color = p->turn, other = color ^ 1;
    kd_bb men = p->men[color], kings = p->kings[color];
    kd_bb empty = r->full & ~(men | kings | p->men[other] | p->kings[other]);
    for (int g = 0; g < r->n_steps[color]; g++)
        if (kd_shift(men & r->step_src[color][g], r->step_delta[color][g]) & empty) return 1;
    if (kings)
        for (int g = 0; g < r->n_king_steps; g++)
            if (kd_shift(kings & r->king_step_src[g], r->king_step_delta[g]) & empty) return 1;
    return 0;
}

void kd_legal_moves(const KdRules *r, const KdPos *p, KdMoveList *out) {
    kd_captures(r, p, out);
    if (out->n == 0 && !out->overflow) kd_quiet_moves(r, p, out);
}

void kd_apply(const KdPos *p, const KdMove *m, KdPos *out) {
    int color = p->turn, other = color ^ 1;
    kd_bb o = kd_bit(m->from), d = kd_bit(m->to);
    *out = *p;
    if (p->men[color] & o) {
        out->men[color] ^= o;
        if (m->promotes)
            out->kings[color] |= d;
        else
            out->men[color] |= d;
    } else {
        out->kings[color] = (out->kings[color] ^ o) | d;
    }
    if (m->captured) {
        out->men[other] &= ~m->captured;
        out->kings[other] &= ~m->captured;
    }
    out->turn = other;
}

/* ---- perft ---------------------------------------------------------------------------- */

static uint64_t perft_rec(const KdRules *r, const KdPos *p, int depth, KdMoveList *lists) {
    KdMoveList *ml = &lists[0];
    kd_captures(r, p, ml);
    if (ml->n) {
        if (depth == 1) return (uint64_t)ml->n;
        uint64_t total = 0;
        for (int i = 0; i < ml->n; i++) {
            KdPos child;
            kd_apply(p, &ml->m[i], &child);
            total += perft_rec(r, &child, depth - 1, lists + 1);
        }
        return total;
    }
    int color = p->turn, other = color ^ 1;
    kd_bb men = p->men[color], kings = p->kings[color];
    kd_bb empty = r->full & ~(men | kings | p->men[other] | p->kings[other]);
    if (depth == 1) {
        uint64_t count = 0;
        for (int g = 0; g < r->n_steps[color]; g++)
            count += (uint64_t)kd_popcount(
                kd_shift(men & r->step_src[color][g], r->step_delta[color][g]) & empty);
        while (kings) {
            int sq = kd_lsb(kings);
            kings &= kings - 1;
            for (int k = 0; k < r->n_king_move; k++) {
                const uint8_t *ray = r->ray[r->king_move[k]][sq];
                int n = r->ray_len[r->king_move[k]][sq];
                for (int i = 0; i < n; i++) {
                    if (!((empty >> ray[i]) & 1)) break;
                    count++;
                    if (!r->flying_kings) break;
                }
            }
        }
        return count;
    }
    kd_quiet_moves(r, p, ml);
    uint64_t total = 0;
    for (int i = 0; i < ml->n; i++) {
        KdPos child;
        kd_apply(p, &ml->m[i], &child);
        total += perft_rec(r, &child, depth - 1, lists + 1);
    }
    return total;
}

#include <stdlib.h>

uint64_t kd_perft(const KdRules *r, const KdPos *p, int depth) {
    if (depth <= 0) return 1;
    KdMoveList *lists = malloc(sizeof(KdMoveList) * (size_t)depth);
    if (!lists) return 0;
    for (int i = 0; i < depth; i++) lists[i].paths = NULL;
    uint64_t n = perft_rec(r, p, depth, lists);
    free(lists);
    return n;
}
