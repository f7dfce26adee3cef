/* Kondavo compiled core: the search (iterative deepening PVS over kd_core + kd_evaluate).
 *
 * A KdEngine belongs to one ruleset and keeps its transposition table between searches
 * (the bots' worker reuses one engine per ruleset, so the table survives from move to move
 * of a game); kd_engine_clear() empties it. One search at a time per engine (the Python
 * wrapper holds a lock); the GIL is released while it runs.
 */
#ifndef KD_SEARCH_H
#define KD_SEARCH_H

#include "eval.h"
#include "tables.h"

#define KD_MATE 1000000
#define KD_MATE_BOUND (KD_MATE - 10000)
#define KD_INF (KD_MATE + 1)
#define KD_MAX_PLY 128
#define KD_MAX_HISTORY 512

typedef struct KdSearchParams {
    int max_depth;          /* iterations 1..max_depth */
    double time_limit;      /* seconds, <= 0: none: the hard limit, checked inside the tree */
    double soft_time;       /* seconds, <= 0: none: the time a clock allots this move; the
                               search ends after an iteration once it has used a share of
                               it (search.c, Time), and never passes time_limit */
    int64_t node_limit;     /* <= 0: none */
    int noise;              /* +- centi-men per root move (low levels) */
    uint64_t seed;
    int quiet_plies;        /* the draw counter at the root */
    int fresh;              /* ignore what earlier searches left (table, history): the
                               result depends only on the position, history and limits */
    int use_tables;         /* score positions in the engine's endgame tables exactly */
    int n_history;          /* Zobrist keys of earlier positions that can still repeat */
    uint64_t history[KD_MAX_HISTORY];
} KdSearchParams;

typedef struct KdSearchResult {
    int has_move;
    KdMove best;
    int score;              /* centi-men for the side to move; +-(MATE - n) mate in n plies */
    int depth;              /* deepest completed iteration */
    int64_t nodes;
    int stopped;            /* a limit stopped the search before max_depth */
    int pv_len;
    KdMove pv[KD_MAX_PLY];
} KdSearchResult;

/* How selective a ruleset's search is (bots/engine/data/search.json, chosen by matches;
   search.c's header describes the schemes):
   KD_SELECT_SCAN: the shallow cut and fixed late-move reductions wherever they apply
   (Scan's scheme); KD_SELECT_SCAN_CALM: the same only at calm nodes, where neither side
   has a capture, never reducing a move after which the opponent can capture;
   KD_SELECT_CALM: the calm-node scheme (graded reductions, static cut, futility, ProbCut,
   only at calm nodes and never for a move that offers or threatens a capture). */
enum { KD_SELECT_SCAN = 0, KD_SELECT_SCAN_CALM = 1, KD_SELECT_CALM = 2, KD_SELECT_COUNT };

typedef struct KdSearchProfile {
    int selectivity; /* KD_SELECT_* */
} KdSearchProfile;

typedef struct KdEngine KdEngine;

KdEngine *kd_engine_new(const KdRules *rules, const KdEval *eval, int tt_mb);
void kd_engine_free(KdEngine *e);
void kd_engine_clear(KdEngine *e);
uint64_t kd_hash(const KdEngine *e, const KdPos *p);
/* A ruleset's special outcomes with one piece per side, as a table of
 * 2 (turn) * 2 (White king?) * nsq * 2 (Black king?) * nsq bytes, index
 * (((turn * 2 + white_is_king) * nsq + white_sq) * 2 + black_is_king) * nsq + black_sq;
 * values: 0 none, 1 White wins, 2 Black wins, 3 draw. NULL/0 removes it. Returns 0 or -1. */
int kd_engine_set_special(KdEngine *e, const uint8_t *table, size_t len);
/* The engine's special-outcome table (NULL: none); the endgame tables are solved with it. */
const uint8_t *kd_engine_special(const KdEngine *e);
/* Endgame tables for the engine (tables.h): `len` bytes laid out for `max_pieces`, read in
 * place (the caller keeps them alive and unchanged while the engine uses them, so several
 * engines share one copy); NULL/0 removes them. Returns 0 or -1 (wrong size). */
int kd_engine_set_tables(KdEngine *e, int max_pieces, const uint8_t *data, size_t len);
/* The engine's table byte for p (tables.h), or -1: not in its tables. */
int kd_engine_probe(const KdEngine *e, const KdPos *p);
void kd_engine_set_profile(KdEngine *e, const KdSearchProfile *profile);
void kd_search(KdEngine *e, const KdPos *root, const KdSearchParams *params,
               KdSearchResult *out);

#endif
