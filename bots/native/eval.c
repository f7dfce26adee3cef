/* The first compiled evaluation: the same terms and the same integer arithmetic as
 * bots/engine/evaluation.py (Evaluator.evaluate), so both engines score a position alike.
 * Layout of the parameter array: eval.h. */
#include <string.h>

#include "eval.h"

int kd_eval_init(KdEval *e, const KdRules *r, const int32_t *params, int len) {
    int n = r->nsq;
    if (len != kd_eval_params_len(n)) return -1;
    memset(e, 0, sizeof(*e));
    e->rules = r;
    memcpy(e->w, params, sizeof(int32_t) * KD_EVAL_HEADER);
    if (e->w[KD_W_START_PIECES] < 1 || e->w[KD_W_MAN] < 1) return -1;
    const int32_t *man_table = params + KD_EVAL_HEADER;
    const int32_t *flags = man_table + 2 * n;
    const int32_t *steps = flags + 2 * n;
    const int32_t *cone = steps + 2 * n;
    for (int c = 0; c < 2; c++) {
        for (int sq = 0; sq < n; sq++) {
            e->man_table[c][sq] = man_table[c * n + sq];
            e->steps[c][sq] = steps[c * n + sq];
            int f = flags[c * n + sq];
            if (f & KD_F_BACK_RANK) e->back_rank[c] |= kd_bit(sq);
            if (f & KD_F_NEAR) e->near[c] |= kd_bit(sq);
            if (f & KD_F_CENTRE) e->centre |= kd_bit(sq);
            const int32_t *words = cone + (c * n + sq) * 4;
            kd_bb m = 0;
            for (int k = 3; k >= 0; k--) m = (m << 32) | (uint32_t)words[k];
            e->cone[c][sq] = m;
        }
    }
    return 0;
}

static inline kd_bb shift_bb(kd_bb b, int delta) {
    return delta > 0 ? b << delta : b >> -delta;
}

static inline int floordiv(long long a, long long b) {
    long long q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return (int)q;
}

int kd_evaluate(const KdPos *p, const KdEval *e) {
    const KdRules *r = e->rules;
    const int32_t *w = e->w;
    kd_bb occupied = p->men[0] | p->men[1] | p->kings[0] | p->kings[1];
    kd_bb empty = r->full & ~occupied;
    int scores[2], materials[2];
    for (int c = 0; c < 2; c++) {
        kd_bb men = p->men[c], kings = p->kings[c];
        kd_bb opp_men = p->men[c ^ 1], opp_kings = p->kings[c ^ 1];
        int mat = kd_popcount(men) * w[KD_W_MAN];
        int s;
        if (kings) {
            mat += kd_popcount(kings) * w[KD_W_KING];
            s = mat + kd_popcount(kings & e->centre) * w[KD_W_CENTRE];
        } else {
            s = mat;
        }
        materials[c] = mat;
        if (men) {
            kd_bb b = men;
            while (b) {
                int sq = kd_lsb(b);
                b &= b - 1;
                s += e->man_table[c][sq];
            }
            if (opp_men) s += kd_popcount(men & e->back_rank[c]) * w[KD_W_BACK_RANK];
            kd_bb mob = 0;
            for (int g = 0; g < r->n_steps[c]; g++)
                mob |= shift_bb(men & r->step_src[c][g], r->step_delta[c][g]);
            s += kd_popcount(mob & empty) * w[KD_W_MOBILITY];
            kd_bb runners = men & e->near[c];
            if (runners) {
                int full = opp_kings ? w[KD_W_RUNAWAY] / 2 : w[KD_W_RUNAWAY];
                while (runners) {
                    int sq = kd_lsb(runners);
                    runners &= runners - 1;
                    if (!(e->cone[c][sq] & occupied))
                        s += full - w[KD_W_RUNAWAY_STEP] * e->steps[c][sq];
                }
            }
        }
        scores[c] = s;
    }
    int mover = p->turn;
    int result = scores[mover] - scores[mover ^ 1] + w[KD_W_TEMPO];
    int diff = materials[mover] - materials[mover ^ 1];
    if (diff) {
        long long start = w[KD_W_START_PIECES];
        long long total = kd_popcount(occupied);
        result += floordiv((long long)diff * w[KD_W_TRADE] * (start - total),
                           start * w[KD_W_MAN]);
    }
    return result;
}
