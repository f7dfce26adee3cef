/* Kondavo compiled core: the static evaluation interface.
 *
 * The search calls kd_evaluate() only; everything it needs comes from a KdEval built once
 * per ruleset by kd_eval_init() from the ruleset's KdRules and a flat array of 32-bit
 * weights and tables computed in Python (bots/engine/native.py: eval_params()). The
 * layout of that array (all values int32, squares are internal indices, n = nsq):
 *
 *   [0, KD_EVAL_HEADER)          header, indexed by the KD_W_* constants below
 *   man_table[2][n]              per colour and square: a man's positional value
 *                                (advance + centre), centi-men
 *   flags[2][n]                  per colour and square: KD_F_* bits
 *   steps[2][n]                  per colour and square: ranks still to go to promotion
 *   cone[2][n][4]                per colour and square: squares on the man's forward
 *                                paths to promotion, a 128-bit mask as four 32-bit words,
 *                                least significant first
 *
 * Total length: KD_EVAL_HEADER + 14 * n (kd_eval_params_len). Scores are centi-men from the
 * side to move's point of view (the scale of bots/engine/search.py: MATE = 1_000_000 is far
 * above any evaluation). Another evaluation may replace eval.c as long as it keeps this
 * signature and the header/array contract (new header slots are free: the reserved ones
 * are zero today).
 */
#ifndef KD_EVAL_H
#define KD_EVAL_H

#include "kd_core.h"

#define KD_EVAL_HEADER 32

enum {
    KD_W_MAN = 0,         /* value of a man */
    KD_W_KING = 1,        /* value of a king (resolved: flying or short) */
    KD_W_BACK_RANK = 2,   /* per man on its own back rank while the opponent has men */
    KD_W_MOBILITY = 3,    /* per empty square the men can step to */
    KD_W_RUNAWAY = 4,     /* a man with a free path to promotion (halved vs kings) */
    KD_W_TEMPO = 5,       /* bonus of the side to move */
    KD_W_TRADE = 6,       /* trade-down bonus when ahead in material */
    KD_W_CENTRE = 7,      /* per king on a centre square */
    KD_W_START_PIECES = 8,/* pieces in the initial position (>= 1) */
    KD_W_RUNAWAY_STEP = 9 /* runaway bonus lost per rank still to go */
};

enum {
    KD_F_BACK_RANK = 1,   /* the colour's own first row */
    KD_F_NEAR = 2,        /* close enough to promotion to test for a free path */
    KD_F_CENTRE = 4       /* a centre square (the same for both colours) */
};

typedef struct KdEval {
    int32_t w[KD_EVAL_HEADER];
    int32_t man_table[2][KD_MAX_SQ];
    int32_t steps[2][KD_MAX_SQ];
    kd_bb back_rank[2], near[2], centre;
    kd_bb cone[2][KD_MAX_SQ];
    const KdRules *rules;
} KdEval;

static inline int kd_eval_params_len(int nsq) { return KD_EVAL_HEADER + 14 * nsq; }

/* Reads the flat array (length kd_eval_params_len(r->nsq)); returns 0, or -1 if malformed. */
int kd_eval_init(KdEval *e, const KdRules *r, const int32_t *params, int len);

/* Static score of p for the side to move, centi-men. */
int kd_evaluate(const KdPos *p, const KdEval *e);

#endif
