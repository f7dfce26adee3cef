/* Kondavo compiled core: the static evaluation interface.
 *
 * The search calls kd_evaluate() only; everything it needs comes from a KdEval built once
 * per ruleset by kd_eval_init() from the ruleset's KdRules and a flat array of 32-bit
 * integers computed in Python (bots/engine/features.py: native_params(), called by
 * bots/engine/native.py: eval_params()). The evaluation is the fitted model of
 * bots/engine/features.py (FittedEvaluator, the reference: tests check both score every
 * position alike). Every weight comes in KD_PHASES sets, the middle game's and the
 * ending's, blended by the pieces on the board (p = min(pieces, KD_H_START_PIECES) of
 * P = KD_H_START_PIECES): score = ((mid * p + end * (P - p)) / P) / KD_H_UNIT, each
 * division truncated towards zero. Layout of the array (all int32, n = nsq, squares are
 * internal indices; phase 0 is the middle game):
 *
 *   [0, KD_EVAL_HEADER)     header: the middle game's weights of the scalar features
 *                           (KD_W_*, 1/64 centi-men) then the constants KD_H_*
 *   scalars[16]             the ending's weights of the scalar features (KD_W_* order)
 *   psq[KD_PHASES][2][n]    per phase, colour and square: weight of a man there
 *   flags[2][n]             per colour and square: KD_SQ_* bits
 *   steps[2][n]             per colour and square: ranks still to go to promotion
 *   file[n]                 the square's file (column)
 *   cone[2][n][4]           per colour and square: squares on a man's forward paths to
 *                           promotion, 128 bits as four 32-bit words, least significant first
 *   window[2][n][4]         per colour: the pattern windows' four squares (the colour's
 *                           view), -1 padding after the last window
 *   band[n]                 per window: its pattern table (-1 padding)
 *   pattern[KD_PHASES][KD_MAX_BANDS][81]  per phase, table and state (digits 0 empty,
 *                           1 own, 2 other; the window's first square is the lowest
 *                           digit): weight, 1/64 centi-men
 *   region[2][m][8]         per colour: the regions' eight squares (the colour's view),
 *                           m = header slot KD_H_NREGIONS (0: no regions, nothing follows)
 *   rtable[KD_PHASES][m][6561]  per phase, region and state (as the patterns): weight,
 *                           1/64 centi-men, |weight| < 2^29
 *
 * Total length: kd_eval_params_len(n, m). Scores are centi-men from the side to move's point
 * of view (the scale of bots/engine/search.py: MATE = 1_000_000 is far above any
 * evaluation).
 */
#ifndef KD_EVAL_H
#define KD_EVAL_H

#include "kd_core.h"

#define KD_EVAL_HEADER 32
#define KD_EVAL_SCALAR_SLOTS 16
#define KD_PHASES 2
#define KD_MAX_BANDS 16
#define KD_PATTERN_STATES 81
#define KD_MAX_MERGED (2 * KD_MAX_SQ)
#define KD_REGION_SIZE 8
#define KD_REGION_STATES 6561 /* 3^8 */
#define KD_MAX_REGIONS 32
#define KD_MAX_MERGED_REGIONS (2 * KD_MAX_REGIONS)
#define KD_REGION_LIMIT (1 << 29) /* |region weight| below it: a merged difference fits 32 bits */

enum { /* scalar feature weights: the order of bots/engine/features.py SCALARS */
    KD_W_TEMPO = 0, KD_W_MAN, KD_W_KING, KD_W_KING_CENTRE, KD_W_KING_MOBILITY,
    KD_W_MAN_MOBILITY, KD_W_BACK_GUARD, KD_W_OUTPOST, KD_W_LOCKED, KD_W_RUNAWAY,
    KD_W_RUNAWAY_NEAR, KD_W_WING_BALANCE, KD_W_TRADE, KD_W_KING_MEN, KD_N_SCALARS
};

enum { /* header constants */
    KD_H_START_PIECES = 14, KD_H_FLYING = 15, KD_H_DIAGONAL = 16, KD_H_ROWS = 17,
    KD_H_COLS = 18, KD_H_NBANDS = 19, KD_H_KING_UNITS = 20, KD_H_DRAW_SCALE = 21,
    KD_H_DRIVE = 22, KD_H_UNIT = 23,
    KD_H_MOVE_DIRS = 24, /* [2]: bit d set = men of that colour step in direction d
                            (must be the rules' man moves) */
    KD_H_BACK_DIRS = 26, /* [2]: the directions straight behind a man's forward moves */
    KD_H_MAIN_ROAD = 28, /* a strong king on the main road against a lone king, centi-men */
    KD_H_PHASES = 29,    /* weight sets in the array: must be KD_PHASES */
    KD_H_NREGIONS = 30   /* region tables in the array (0..KD_MAX_REGIONS) */
};

enum {
    KD_SQ_BACK_RANK = 1, KD_SQ_OPP_HALF = 2, KD_SQ_LEFT = 4, KD_SQ_RIGHT = 8,
    KD_SQ_NEAR = 16, KD_SQ_CENTRE = 32, KD_SQ_MAIN_LINE = 64
};

typedef struct KdEval {
    int32_t w[KD_EVAL_HEADER];            /* middle-game scalar weights, constants */
    int32_t w_end[KD_EVAL_SCALAR_SLOTS];  /* ending scalar weights */
    int32_t psq[2][KD_MAX_SQ][KD_PHASES]; /* [colour][square][phase] */
    int8_t steps[2][KD_MAX_SQ];
    int8_t file[KD_MAX_SQ];
    kd_bb back_rank[2], opp_half[2], left[2], right[2], near[2], centre, main_line;
    uint8_t sq_flags[2][KD_MAX_SQ]; /* KD_SQ_* bits per colour and square */
    kd_bb cone[2][KD_MAX_SQ];
    int use_patterns;
    /* Both colours' pattern terms merged per window of the board (kd_eval_init): a window
       read once from White's view, its table holding White's weight minus Black's for the
       same four squares, so one lookup scores what two did. Windows whose tables are equal
       (the same ranks from both sides) share one, so the tables in use stay few. */
    int nmwin, nmerged;
    uint8_t mwin[2 * KD_MAX_SQ][4];
    uint8_t mtab_of[2 * KD_MAX_SQ];
    int64_t mtab[KD_MAX_MERGED][KD_PATTERN_STATES][KD_PHASES]; /* 64-bit: a difference of
                                                                   two int32 weights */
    /* The regions, merged the same way: region i of the board read from White's view
       (squares mreg[i]) indexes table t = mreg_tab[i] of the nrtab tables in rtab,
       rtab[(t * KD_REGION_STATES + state) * KD_PHASES + phase], White's weight minus
       Black's (32 bits: weights are below KD_REGION_LIMIT). Regions whose merged tables
       are equal (tied regions) share one. rtab is owned by this KdEval (NULL without
       regions): kd_eval_copy, kd_eval_free. */
    int nmreg, nrtab;
    uint8_t mreg[KD_MAX_MERGED_REGIONS][KD_REGION_SIZE];
    uint8_t mreg_tab[KD_MAX_MERGED_REGIONS];
    int32_t *rtab;
    const KdRules *rules;
} KdEval;

static inline int kd_eval_params_len(int nsq, int nregions) {
    return KD_EVAL_HEADER + KD_EVAL_SCALAR_SLOTS + (2 * KD_PHASES + 22) * nsq
           + KD_PHASES * KD_MAX_BANDS * KD_PATTERN_STATES
           + nregions * (2 * KD_REGION_SIZE + KD_PHASES * KD_REGION_STATES);
}

/* Reads the flat array (length kd_eval_params_len(r->nsq, params[KD_H_NREGIONS])); returns
 * 0, or -1 if malformed (or out of memory). e need not be initialised before; a KdEval that
 * was must be freed first (kd_eval_free). */
int kd_eval_init(KdEval *e, const KdRules *r, const int32_t *params, int len);

/* dst = src with its own copy of the region tables; returns 0, or -1 (out of memory). */
int kd_eval_copy(KdEval *dst, const KdEval *src);

/* Releases what kd_eval_init or kd_eval_copy allocated (the region tables). */
void kd_eval_free(KdEval *e);

/* Static score of p for the side to move, centi-men. */
int kd_evaluate(const KdPos *p, const KdEval *e);

#endif
