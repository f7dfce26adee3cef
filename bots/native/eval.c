/* The fitted evaluation: the same features, integer arithmetic and king-ending rules as
 * bots/engine/features.py (FittedEvaluator.evaluate). Layout of the parameters: eval.h. */
#include <stdlib.h>
#include <string.h>

#include "eval.h"

/* What kd_eval_init reads from the array and only it needs: the windows per colour, their
 * bands and the pattern tables per band, before they are merged into KdEval's tables. */
typedef struct {
    int nwin;
    uint8_t win[2][KD_MAX_SQ][4];
    uint8_t band[KD_MAX_SQ];
    int32_t pattern[KD_MAX_BANDS][KD_PATTERN_STATES][KD_PHASES]; /* [band][state][phase] */
} EvalBuild;

/* The state, from Black's view, of a group b of k squares when White's view of the group w
 * (the same squares, possibly in another order) is s: Black's digit of a square is White's
 * with own and other swapped. */
static int black_state(const uint8_t *w, const uint8_t *b, int k, int s) {
    static const int swap[3] = {0, 2, 1};
    int digit[KD_REGION_SIZE], out = 0, scale = 1;
    for (int i = 0; i < k; i++, s /= 3) digit[i] = s % 3;
    for (int i = 0; i < k; i++, scale *= 3)
        for (int m = 0; m < k; m++)
            if (b[i] == w[m]) out += scale * swap[digit[m]];
    return out;
}

static int same_squares(const uint8_t *a, const uint8_t *b, int k) {
    int found = 0;
    for (int i = 0; i < k; i++)
        for (int m = 0; m < k; m++) found += a[i] == b[m];
    return found == k;
}

/* One window of the board: its table is White's weights (window wi, -1 for none) minus
 * Black's (window bi, -1 for none), indexed by White's view of the squares sq. */
static void add_merged(KdEval *e, const EvalBuild *bld, const uint8_t sq[4], int wi, int bi) {
    int64_t t[KD_PATTERN_STATES][KD_PHASES];
    for (int s = 0; s < KD_PATTERN_STATES; s++)
        for (int ph = 0; ph < KD_PHASES; ph++) {
            int64_t v = wi >= 0 ? bld->pattern[bld->band[wi]][s][ph] : 0;
            if (bi >= 0)
                v -= bld->pattern[bld->band[bi]][black_state(sq, bld->win[1][bi], 4, s)][ph];
            t[s][ph] = v;
        }
    int k = 0;
    while (k < e->nmerged && memcmp(e->mtab[k], t, sizeof(t))) k++;
    if (k == e->nmerged) {
        memcpy(e->mtab[k], t, sizeof(t));
        e->nmerged++;
    }
    memcpy(e->mwin[e->nmwin], sq, 4);
    e->mtab_of[e->nmwin++] = (uint8_t)k;
}

static void merge_windows(KdEval *e, const EvalBuild *bld) {
    uint8_t matched[KD_MAX_SQ] = {0};
    e->nmwin = e->nmerged = 0;
    for (int i = 0; i < bld->nwin; i++) {
        int j = 0;
        while (j < bld->nwin && (matched[j] || !same_squares(bld->win[0][i], bld->win[1][j], 4)))
            j++;
        if (j < bld->nwin) matched[j] = 1;
        add_merged(e, bld, bld->win[0][i], i, j < bld->nwin ? j : -1);
    }
    for (int j = 0; j < bld->nwin; j++)
        if (!matched[j]) add_merged(e, bld, bld->win[1][j], -1, j);
}

/* The regions, merged as the windows are. reg[c][i] are the squares of region i from colour
 * c's view, tab[ph][i][state] its weights. Merged regions whose tables come out equal (tied
 * regions of the same rows, read the same way) share one, as the windows do, and the
 * allocation shrinks to the tables kept. */
static int merge_regions(KdEval *e, int m, const uint8_t (*reg)[KD_MAX_REGIONS][KD_REGION_SIZE],
                         const int32_t *tab) {
    uint8_t matched[KD_MAX_REGIONS] = {0};
    int pairs[2 * KD_MAX_REGIONS][2];
    int np = 0;
    for (int i = 0; i < m; i++) {
        int j = 0;
        while (j < m && (matched[j] || !same_squares(reg[0][i], reg[1][j], KD_REGION_SIZE)))
            j++;
        if (j < m) matched[j] = 1;
        pairs[np][0] = i;
        pairs[np++][1] = j < m ? j : -1;
    }
    for (int j = 0; j < m; j++)
        if (!matched[j]) {
            pairs[np][0] = -1;
            pairs[np++][1] = j;
        }
    const size_t words = (size_t)KD_REGION_STATES * KD_PHASES;
    e->rtab = malloc(sizeof(int32_t) * (size_t)np * words);
    if (!e->rtab) return -1;
    e->nrtab = 0;
    for (int k = 0; k < np; k++) {
        int wi = pairs[k][0], bi = pairs[k][1];
        const uint8_t *sq = wi >= 0 ? reg[0][wi] : reg[1][bi];
        memcpy(e->mreg[k], sq, KD_REGION_SIZE);
        int32_t *out = e->rtab + (size_t)e->nrtab * words;
        for (int s = 0; s < KD_REGION_STATES; s++) {
            int bs = bi >= 0 ? black_state(sq, reg[1][bi], KD_REGION_SIZE, s) : 0;
            for (int ph = 0; ph < KD_PHASES; ph++) {
                const int32_t *t = tab + (size_t)ph * m * KD_REGION_STATES;
                int32_t v = wi >= 0 ? t[wi * KD_REGION_STATES + s] : 0;
                if (bi >= 0) v -= t[bi * KD_REGION_STATES + bs];
                out[s * KD_PHASES + ph] = v;
            }
        }
        int t = 0;
        while (t < e->nrtab && memcmp(e->rtab + (size_t)t * words, out, sizeof(int32_t) * words))
            t++;
        e->mreg_tab[k] = (uint8_t)t;
        if (t == e->nrtab) e->nrtab++;
    }
    int32_t *kept = realloc(e->rtab, sizeof(int32_t) * (size_t)e->nrtab * words);
    if (kept) e->rtab = kept; /* a failed shrink keeps the larger block, still valid */
    e->nmreg = np;
    return 0;
}

int kd_eval_init(KdEval *e, const KdRules *r, const int32_t *params, int len) {
    int n = r->nsq;
    memset(e, 0, sizeof(*e));
    if (len < KD_EVAL_HEADER) return -1;
    int m = params[KD_H_NREGIONS];
    if (m < 0 || m > KD_MAX_REGIONS || len != kd_eval_params_len(n, m)) return -1;
    e->rules = r;
    memcpy(e->w, params, sizeof(int32_t) * KD_EVAL_HEADER);
    if (e->w[KD_H_START_PIECES] < 1 || e->w[KD_H_UNIT] < 1 || e->w[KD_H_DRAW_SCALE] < 1)
        return -1;
    if (e->w[KD_H_NBANDS] < 0 || e->w[KD_H_NBANDS] > KD_MAX_BANDS) return -1;
    if (e->w[KD_H_PHASES] != KD_PHASES) return -1;
    memcpy(e->w_end, params + KD_EVAL_HEADER, sizeof(int32_t) * KD_EVAL_SCALAR_SLOTS);
    const int32_t *psq = params + KD_EVAL_HEADER + KD_EVAL_SCALAR_SLOTS;
    const int32_t *flags = psq + KD_PHASES * 2 * n;
    const int32_t *steps = flags + 2 * n;
    const int32_t *file = steps + 2 * n;
    const int32_t *cone = file + n;
    const int32_t *win = cone + 8 * n;
    const int32_t *band = win + 8 * n;
    const int32_t *pattern = band + n;
    const int32_t *region = pattern + KD_PHASES * KD_MAX_BANDS * KD_PATTERN_STATES;
    const int32_t *rtable = region + 2 * m * KD_REGION_SIZE;
    for (int c = 0; c < 2; c++) {
        for (int sq = 0; sq < n; sq++) {
            for (int ph = 0; ph < KD_PHASES; ph++)
                e->psq[c][sq][ph] = psq[(ph * 2 + c) * n + sq];
            e->steps[c][sq] = (int8_t)steps[c * n + sq];
            int f = flags[c * n + sq];
            e->sq_flags[c][sq] = (uint8_t)f;
            kd_bb b = kd_bit(sq);
            if (f & KD_SQ_BACK_RANK) e->back_rank[c] |= b;
            if (f & KD_SQ_OPP_HALF) e->opp_half[c] |= b;
            if (f & KD_SQ_LEFT) e->left[c] |= b;
            if (f & KD_SQ_RIGHT) e->right[c] |= b;
            if (f & KD_SQ_NEAR) e->near[c] |= b;
            if (f & KD_SQ_CENTRE) e->centre |= b;
            if (f & KD_SQ_MAIN_LINE) e->main_line |= b;
            const int32_t *words = cone + (c * n + sq) * 4;
            kd_bb mask = 0;
            for (int k = 3; k >= 0; k--) mask = (mask << 32) | (uint32_t)words[k];
            e->cone[c][sq] = mask;
        }
    }
    for (int sq = 0; sq < n; sq++) e->file[sq] = (int8_t)file[sq];
    EvalBuild *bld = calloc(1, sizeof(EvalBuild));
    if (!bld) return -1;
    int rc = -1;
    for (int i = 0; i < n; i++) {
        if (band[i] < 0) break;
        if (band[i] >= e->w[KD_H_NBANDS]) goto done;
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 4; k++) {
                int s = win[(c * n + i) * 4 + k];
                if (s < 0 || s >= n) goto done;
                bld->win[c][i][k] = (uint8_t)s;
            }
        bld->band[i] = (uint8_t)band[i];
        bld->nwin = i + 1;
    }
    /* Men's mobility is counted with the rules' step groups (whole-board shifts): the
       evaluation's step directions must be the rules' own. */
    for (int c = 0; c < 2; c++) {
        int rules_dirs = 0;
        for (int i = 0; i < r->n_man_move[c]; i++) rules_dirs |= 1 << r->man_move[c][i];
        if (rules_dirs != e->w[KD_H_MOVE_DIRS + c]) goto done;
    }
    e->use_patterns = 0;
    for (int ph = 0; ph < KD_PHASES; ph++)
        for (int b = 0; b < KD_MAX_BANDS; b++)
            for (int s = 0; s < KD_PATTERN_STATES; s++) {
                int32_t v = pattern[(ph * KD_MAX_BANDS + b) * KD_PATTERN_STATES + s];
                bld->pattern[b][s][ph] = v;
                if (v) e->use_patterns = 1;
            }
    merge_windows(e, bld);
    if (m) {
        uint8_t reg[2][KD_MAX_REGIONS][KD_REGION_SIZE];
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < m; i++)
                for (int k = 0; k < KD_REGION_SIZE; k++) {
                    int s = region[(c * m + i) * KD_REGION_SIZE + k];
                    if (s < 0 || s >= n) goto done;
                    reg[c][i][k] = (uint8_t)s;
                }
        for (long i = 0; i < (long)KD_PHASES * m * KD_REGION_STATES; i++)
            if (rtable[i] <= -KD_REGION_LIMIT || rtable[i] >= KD_REGION_LIMIT) goto done;
        if (merge_regions(e, m, (const uint8_t (*)[KD_MAX_REGIONS][KD_REGION_SIZE])reg, rtable))
            goto done;
    }
    rc = 0;
done:
    free(bld);
    if (rc) kd_eval_free(e);
    return rc;
}

int kd_eval_copy(KdEval *dst, const KdEval *src) {
    *dst = *src;
    if (!src->rtab) return 0;
    size_t bytes = sizeof(int32_t) * (size_t)src->nrtab * KD_REGION_STATES * KD_PHASES;
    dst->rtab = malloc(bytes);
    if (!dst->rtab) return -1;
    memcpy(dst->rtab, src->rtab, bytes);
    return 0;
}

void kd_eval_free(KdEval *e) {
    free(e->rtab);
    e->rtab = NULL;
    e->nmreg = e->nrtab = 0;
}

/* The board as bytes, from each colour's point of view: cell[c][sq] is 0 (empty), 1 (a
 * piece of colour c) or 2 (a piece of the other colour). The features below test single
 * squares; a byte load is much cheaper than a shift of a 128-bit board. */
typedef uint8_t KdCells[2][KD_MAX_SQ];

static void fill_cells(const KdPos *p, int n, KdCells cell) {
    memset(cell[0], 0, (size_t)n);
    memset(cell[1], 0, (size_t)n);
    for (int c = 0; c < 2; c++)
        for (kd_bb b = p->men[c] | p->kings[c]; b; b &= b - 1) {
            int sq = kd_lsb(b);
            cell[c][sq] = 1;
            cell[1 - c][sq] = 2;
        }
}

/* The scalar features of one colour, in KD_W_* order (tempo, trade and king_men left at 0). */
static void side_scalars(const KdPos *p, const KdEval *e, const KdCells cell, int c,
                         int out[KD_N_SCALARS]) {
    const KdRules *r = e->rules;
    const uint8_t *mine = cell[c];
    kd_bb men = p->men[c], kings = p->kings[c];
    kd_bb occ = p->men[0] | p->men[1] | p->kings[0] | p->kings[1];
    int back_dirs = e->w[KD_H_BACK_DIRS + c];
    kd_bb targets = 0;
    int locked = 0, outpost = 0, runaway = 0, runaway_near = 0, king_mob = 0;
    kd_bb empty = r->full & ~occ, movable = 0;
    for (int g = 0; g < r->n_steps[c]; g++) {
        int delta = r->step_delta[c][g];
        kd_bb t = kd_shift(men & r->step_src[c][g], delta) & empty;
        targets |= t;
        movable |= kd_shift(t, -delta);
    }
    locked = kd_popcount(men & ~movable);
    for (kd_bb b = men & e->opp_half[c]; b; b &= b - 1) {
        int sq = kd_lsb(b);
        int ok = 1;
        for (int d = 0; d < r->ndirs && ok; d++) {
            if (!(back_dirs >> d & 1)) continue;
            int m = r->neighbour[d][sq];
            if (m < 0 || mine[m] != 1) ok = 0;
        }
        outpost += ok;
    }
    for (kd_bb b = men & e->near[c]; b; b &= b - 1) {
        int sq = kd_lsb(b);
        if (!(e->cone[c][sq] & occ)) {
            runaway++;
            runaway_near += e->w[KD_H_ROWS] - e->steps[c][sq];
        }
    }
    int flying = e->w[KD_H_FLYING];
    for (kd_bb b = kings; b; b &= b - 1) {
        int sq = kd_lsb(b);
        for (int d = 0; d < r->ndirs; d++) {
            int len = r->ray_len[d][sq];
            const uint8_t *ray = r->ray[d][sq];
            for (int k = 0; k < len; k++) {
                if (mine[ray[k]]) break;
                king_mob++;
                if (!flying) break;
            }
        }
    }
    kd_bb opp_men = p->men[1 - c];
    int wing = kd_popcount(men & e->left[c]) - kd_popcount(men & e->right[c]);
    out[KD_W_TEMPO] = 0;
    out[KD_W_MAN] = kd_popcount(men);
    out[KD_W_KING] = kd_popcount(kings);
    out[KD_W_KING_CENTRE] = kd_popcount(kings & e->centre);
    out[KD_W_KING_MOBILITY] = king_mob;
    out[KD_W_MAN_MOBILITY] = kd_popcount(targets);
    out[KD_W_BACK_GUARD] = opp_men ? kd_popcount(men & e->back_rank[c]) : 0;
    out[KD_W_OUTPOST] = outpost;
    out[KD_W_LOCKED] = locked;
    out[KD_W_RUNAWAY] = runaway;
    out[KD_W_RUNAWAY_NEAR] = runaway_near;
    out[KD_W_WING_BALANCE] = wing < 0 ? -wing : wing;
    out[KD_W_TRADE] = 0;
    out[KD_W_KING_MEN] = 0;
}

/* The man-square weights of colour c, per phase. */
static void side_men(const KdPos *p, const KdEval *e, int c, long long part[KD_PHASES]) {
    long long mid = 0, end = 0;
    for (kd_bb b = p->men[c]; b; b &= b - 1) {
        const int32_t *w = e->psq[c][kd_lsb(b)];
        mid += w[0];
        end += w[1];
    }
    part[0] = mid;
    part[1] = end;
}

/* The pattern weights, White's minus Black's, per phase (the merged windows). */
static void patterns(const KdEval *e, const KdCells cell, long long part[KD_PHASES]) {
    const uint8_t *v = cell[0]; /* digits: 0 empty, 1 White, 2 Black */
    long long mid = 0, end = 0;
    for (int i = 0; i < e->nmwin; i++) {
        const uint8_t *q = e->mwin[i];
        int s = v[q[0]] + 3 * v[q[1]] + 9 * v[q[2]] + 27 * v[q[3]];
        const int64_t *t = e->mtab[e->mtab_of[i]][s];
        mid += t[0];
        end += t[1];
    }
    part[0] = mid;
    part[1] = end;
}

/* The region weights, White's minus Black's, per phase (the merged regions). */
static void regions(const KdEval *e, const KdCells cell, long long part[KD_PHASES]) {
    const uint8_t *v = cell[0];
    long long mid = 0, end = 0;
    for (int i = 0; i < e->nmreg; i++) {
        const uint8_t *q = e->mreg[i];
        int s = v[q[0]] + 3 * v[q[1]] + 9 * v[q[2]] + 27 * v[q[3]]
                + 81 * (v[q[4]] + 3 * v[q[5]] + 9 * v[q[6]] + 27 * v[q[7]]);
        const int32_t *t =
            e->rtab + ((size_t)e->mreg_tab[i] * KD_REGION_STATES + (size_t)s) * KD_PHASES;
        mid += t[0];
        end += t[1];
    }
    part[0] = mid;
    part[1] = end;
}

/* A strong king on the main road in a winnable ending against a lone king (flying kings on
 * a diagonal board): features.py FittedEvaluator.main_road. */
static int main_road(const KdEval *e, kd_bb strong_kings) {
    if (e->w[KD_H_FLYING] && e->w[KD_H_DIAGONAL] && (strong_kings & e->main_line))
        return e->w[KD_H_MAIN_ROAD];
    return 0;
}

static int endgame(const KdPos *p, const KdEval *e, int score) {
    int mover = p->turn;
    int scale = e->w[KD_H_DRAW_SCALE];
    if (p->men[0] | p->men[1]) {
        /* With flying kings, a side holding a king draws against at most three pieces
           when at most one piece down, and a lone king on the main diagonal draws
           against three (features.py: FittedEvaluator.drawn_with_men). */
        if (!e->w[KD_H_FLYING] || !score) return score;
        int strong = score > 0 ? mover : 1 - mover, weak = 1 - strong;
        if (!p->kings[weak]) return score;
        int ns = kd_popcount(p->men[strong] | p->kings[strong]);
        int nw = kd_popcount(p->men[weak] | p->kings[weak]);
        int lone = !p->men[weak] && nw == 1;
        if (ns <= 3 && nw <= ns &&
            (ns - nw <= 1 || (lone && (e->main_line & p->kings[weak]) != 0)))
            return score / scale;
        int road = lone ? main_road(e, p->kings[strong]) : 0;
        return strong == mover ? score + road : score - road;
    }
    int wk = kd_popcount(p->kings[0]), bk = kd_popcount(p->kings[1]);
    if (wk == bk) return score / scale;
    if (!wk || !bk) return score;
    int strong = wk > bk ? 0 : 1;
    int ks = wk > bk ? wk : bk, kw = wk > bk ? bk : wk;
    if (kw >= 2) return score / 2;
    int lone = kd_lsb(p->kings[1 - strong]);
    int need;
    if (!e->w[KD_H_FLYING] || !e->w[KD_H_DIAGONAL]) need = 2;
    else if (e->main_line >> lone & 1) need = 4;
    else need = 3;
    if (ks < need) return score / scale;
    const KdRules *r = e->rules;
    int far = 0;
    int lr = r->rank[lone], lf = e->file[lone];
    for (kd_bb b = p->kings[strong]; b; b &= b - 1) {
        int sq = kd_lsb(b);
        int dr = abs(r->rank[sq] - lr), df = abs(e->file[sq] - lf);
        far += dr > df ? dr : df;
    }
    int rows = e->w[KD_H_ROWS], cols = e->w[KD_H_COLS];
    int span = (rows > cols ? rows : cols) - 1;
    int bonus = e->w[KD_H_DRIVE] * (ks * span - far) + main_road(e, p->kings[strong]);
    return strong == mover ? score + bonus : score - bonus;
}

int kd_evaluate(const KdPos *p, const KdEval *e) {
    const int32_t *w = e->w, *we = e->w_end;
    int mover = p->turn;
    int mine[KD_N_SCALARS], theirs[KD_N_SCALARS];
    KdCells cell;
    fill_cells(p, e->rules->nsq, cell);
    side_scalars(p, e, cell, mover, mine);
    side_scalars(p, e, cell, 1 - mover, theirs);
    long long mid = w[KD_W_TEMPO], end = we[KD_W_TEMPO];
    for (int i = 1; i < KD_W_TRADE; i++) {
        int v = mine[i] - theirs[i];
        mid += (long long)w[i] * v;
        end += (long long)we[i] * v;
    }
    int units = (mine[KD_W_MAN] - theirs[KD_W_MAN])
                + w[KD_H_KING_UNITS] * (mine[KD_W_KING] - theirs[KD_W_KING]);
    int pieces = kd_popcount(p->men[0] | p->men[1] | p->kings[0] | p->kings[1]);
    int full = w[KD_H_START_PIECES];
    int gone = full - pieces;
    if (units && gone > 0) {
        mid += (long long)w[KD_W_TRADE] * units * gone;
        end += (long long)we[KD_W_TRADE] * units * gone;
    }
    int king_men = mine[KD_W_KING] * theirs[KD_W_MAN] - theirs[KD_W_KING] * mine[KD_W_MAN];
    mid += (long long)w[KD_W_KING_MEN] * king_men;
    end += (long long)we[KD_W_KING_MEN] * king_men;
    long long own[KD_PHASES], other[KD_PHASES];
    side_men(p, e, mover, own);
    side_men(p, e, 1 - mover, other);
    mid += own[0] - other[0];
    end += own[1] - other[1];
    if (e->use_patterns) {
        long long white[KD_PHASES];
        patterns(e, cell, white);
        mid += mover ? -white[0] : white[0];
        end += mover ? -white[1] : white[1];
    }
    if (e->nmreg) {
        long long white[KD_PHASES];
        regions(e, cell, white);
        mid += mover ? -white[0] : white[0];
        end += mover ? -white[1] : white[1];
    }
    /* The phase blend, then the unit: C division truncates towards zero. */
    int phase = pieces < full ? pieces : full;
    long long blend = (mid * phase + end * (full - phase)) / full;
    int score = (int)(blend / w[KD_H_UNIT]);
    return endgame(p, e, score);
}
