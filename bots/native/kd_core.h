/* Kondavo compiled core: positions, rules as data, move generation, perft.
 *
 * Everything a ruleset declares reaches this core as data (see bots/engine/native.py,
 * which builds a KdRules from a variants.Variant): the board geometry (neighbour and ray
 * tables, up to 128 playable squares; the board's own lines first, then any direction only
 * a piece's moves or captures use, such as (0, 2) on a diagonal board), the men's move and
 * capture directions per colour, the kings' move and capture directions, flying moves and
 * flying captures (separately), where a flying capture lands, capture precedence (piece
 * values included), removal timing, the 180-degree ban, the mid-capture promotion rule,
 * the promotion rows and the draw counter limit. Nothing here
 * knows a ruleset by name. The pure-Python engine in variants/ is the reference: this core
 * must produce exactly the same legal moves (the "unique moves" convention: one move per
 * origin, destination and captured set, keeping the first path found in the reference's
 * search order) and the same perft counts.
 */
#ifndef KD_CORE_H
#define KD_CORE_H

#include <stddef.h>
#include <stdint.h>

/* A board: bit i = the ruleset's internal square index i. The same sources build two
 * modules (setup.py): _kdcore with 128-bit boards, for any board up to 128 squares, and,
 * with KD_BB64 defined, _kdcore64 with 64-bit boards for boards of at most 64 squares (every
 * built-in ruleset: a shift, a bit count or a lowest-bit search is one instruction there,
 * not two to six). Both search the same trees. */
#ifdef KD_BB64
typedef uint64_t kd_bb;
#define KD_BB_BITS 64
#else
typedef unsigned __int128 kd_bb;
#define KD_BB_BITS 128
#endif

#define KD_MAX_SQ KD_BB_BITS
#define KD_ZOBRIST_SQ 128  /* keys drawn per piece kind: the same keys in both widths */
#define KD_MAX_DIRS 8
#define KD_MAX_RAY 16      /* longest ray (a 12x12 board has 11) */
#define KD_MAX_PATH 64     /* origin + landings of one capture */
#define KD_MAX_MOVES 768   /* moves of one position; more sets KdMoveList.overflow */
#define KD_MAX_GROUPS 32

enum { KD_WHITE = 0, KD_BLACK = 1 };
enum { KD_PREC_FREE = 0, KD_PREC_MAX_PIECES = 1, KD_PREC_MAX_PIECES_THEN_KINGS = 2 };
/* Capture-precedence criteria, applied in the declared order (each breaks the ties left by
 * the ones before): the most pieces, the most kings, a king's capture over a man's, the
 * capture meeting a king earliest in its chain, the capture taking the most value
 * (piece_value[0] per man, piece_value[1] per king). */
enum { KD_CRIT_MOST_PIECES = 1, KD_CRIT_MOST_KINGS = 2, KD_CRIT_WITH_KING = 3,
       KD_CRIT_EARLIEST_KING = 4, KD_CRIT_MOST_VALUE = 5 };
#define KD_MAX_CRITERIA 8
enum { KD_PROMO_STAYS_MAN = 0, KD_PROMO_ENDS_MOVE = 1, KD_PROMO_CONTINUES_AS_KING = 2 };

/* A position: men and kings per colour, side to move. Same meaning as variants.Position. */
typedef struct KdPos {
    kd_bb men[2];
    kd_bb kings[2];
    int turn; /* KD_WHITE or KD_BLACK */
} KdPos;

/* One legal move. `captured` is the set of captured squares (the move's captured_mask). */
typedef struct KdMove {
    kd_bb captured;
    uint8_t from, to;
    uint8_t promotes;  /* a man crowned by this move */
    uint8_t ncaptured; /* popcount of captured */
    uint8_t nkings;    /* captured kings */
    uint8_t is_man;    /* the mover is a man */
    uint64_t king_order; /* captured kings in jump order: bit 63 - i set if the i-th
                            captured piece is a king (first 64 jumps) */
} KdMove;

/* Landing squares and capture order of one move (only filled on request). */
typedef struct KdPath {
    uint8_t len;               /* squares in sq: origin then one landing per step */
    uint8_t sq[KD_MAX_PATH];
    uint8_t captured[KD_MAX_PATH]; /* captured squares in jump order (len - 1 of them) */
} KdPath;

typedef struct KdMoveList {
    int n;
    int overflow;     /* set when a position has more than KD_MAX_MOVES moves */
    KdMove m[KD_MAX_MOVES];
    KdPath *paths;    /* NULL, or KD_MAX_MOVES entries filled in parallel with m */
} KdMoveList;

/* The rules of one ruleset, as data. Built by kd_rules_finish() from the raw fields. */
typedef struct KdRules {
    /* geometry: ndirs board lines (what the evaluation reads), then up to nvec directions
       in the tables (the extra ones only serve the pieces' declared directions) */
    int nsq, ndirs, nvec, rows;
    int16_t neighbour[KD_MAX_DIRS][KD_MAX_SQ];          /* -1: off the board */
    uint8_t ray_len[KD_MAX_DIRS][KD_MAX_SQ];
    uint8_t ray[KD_MAX_DIRS][KD_MAX_SQ][KD_MAX_RAY];    /* squares from sq to the edge */
    int opposite[KD_MAX_DIRS];
    int rank[KD_MAX_SQ];                                /* rank 0 is nearest White */
    kd_bb full;
    kd_bb promo[2];                                     /* where each colour's men crown */
    /* men: direction indices per colour (Black's are White's mirrored) */
    int n_man_move[2], man_move[2][KD_MAX_DIRS];
    int n_man_capture[2], man_capture[2][KD_MAX_DIRS];
    /* kings: direction indices (the same for both colours) */
    int n_king_move, king_move[KD_MAX_DIRS];
    int n_king_capture, king_capture[KD_MAX_DIRS];
    /* declared rules: flying_kings is for moves, flying_captures for captures;
       king_landing_next: a flying capture lands only on the square right behind the piece */
    int flying_kings, flying_captures, king_landing_next;
    int piece_value[2];                       /* man, king: for KD_CRIT_MOST_VALUE */
    int immediate_removal, no_reversal, promotion_rule;
    int men_capture_kings;                    /* 0: men may not capture kings */
    int n_criteria, criteria[KD_MAX_CRITERIA]; /* capture precedence, KD_CRIT_* in order */
    int draw_plies, repetitions;
    /* derived by kd_rules_finish: the leading criteria applied while chains are searched
       (KD_PREC_*), and whether more criteria rank the complete captures afterwards */
    int precedence, post_rank;
    /* derived by kd_rules_finish: one-step shifts (delta > 0 left shift, < 0 right) */
    int n_steps[2];
    int step_delta[2][KD_MAX_GROUPS];
    kd_bb step_src[2][KD_MAX_GROUPS];
    int n_king_steps; /* along the kings' move directions */
    int king_step_delta[KD_MAX_GROUPS];
    kd_bb king_step_src[KD_MAX_GROUPS];
    /* men jump filter: src & (opp >> a) & (empty >> b), signs as above */
    int n_jumps[2];
    int jump_victim[2][KD_MAX_GROUPS], jump_land[2][KD_MAX_GROUPS];
    kd_bb jump_src[2][KD_MAX_GROUPS];
} KdRules;

/* Fills the derived tables; returns 0, or -1 when the tables overflow the core's limits. */
int kd_rules_finish(KdRules *r);

/* Legal moves of p (captures when any, else quiet moves), in the reference's order. */
void kd_legal_moves(const KdRules *r, const KdPos *p, KdMoveList *out);
/* Captures only (empty list: no capture); quiet moves only. */
void kd_captures(const KdRules *r, const KdPos *p, KdMoveList *out);
void kd_quiet_moves(const KdRules *r, const KdPos *p, KdMoveList *out);
/* Whether the side to move has any capture (cheaper than generating them). */
int kd_has_capture(const KdRules *r, const KdPos *p);
/* Whether the side to move has a non-capturing step. */
int kd_can_step(const KdRules *r, const KdPos *p);
/* The position after m (m from a legal move list of p). */
void kd_apply(const KdPos *p, const KdMove *m, KdPos *out);
/* Leaf nodes of the legal move tree depth plies deep (unique-move convention). */
uint64_t kd_perft(const KdRules *r, const KdPos *p, int depth);

/* The board's upper 64 bits (always 0 with 64-bit boards). */
static inline uint64_t kd_hi(kd_bb b) {
#ifdef KD_BB64
    (void)b;
    return 0;
#else
    return (uint64_t)(b >> 64);
#endif
}
static inline int kd_popcount(kd_bb b) {
#ifdef KD_BB64
    return __builtin_popcountll(b);
#else
    return __builtin_popcountll((uint64_t)b) + __builtin_popcountll(kd_hi(b));
#endif
}
static inline int kd_lsb(kd_bb b) {
#ifdef KD_BB64
    return __builtin_ctzll(b);
#else
    uint64_t lo = (uint64_t)b;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(kd_hi(b));
#endif
}
static inline kd_bb kd_bit(int sq) { return (kd_bb)1 << sq; }
/* The index of p, one piece a side, in a table of special outcomes (kd_engine_set_special
 * in search.h): ((turn * 2 + white_is_king) * nsq + white_sq) * 2 + black_is_king) * nsq +
 * black_sq. */
static inline size_t kd_special_index(const KdPos *p, int nsq) {
    kd_bb w = p->men[0] | p->kings[0], b = p->men[1] | p->kings[1];
    size_t n = (size_t)nsq;
    return ((((size_t)p->turn * 2 + (p->kings[0] ? 1 : 0)) * n + (size_t)kd_lsb(w)) * 2 +
            (p->kings[1] ? 1 : 0)) * n + (size_t)kd_lsb(b);
}
/* b shifted by delta squares (delta > 0: towards higher indices); step groups use it. */
static inline kd_bb kd_shift(kd_bb b, int delta) {
    return delta > 0 ? b << delta : b >> -delta;
}

#endif
