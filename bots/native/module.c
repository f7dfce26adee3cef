/* Python binding of the compiled core: bots.native._kdcore.Core.
 *
 * Core(spec: dict, eval_params: list[int], tt_mb: int) holds one ruleset's KdRules, KdEval
 * and KdEngine (the transposition table that persists between searches). Positions cross
 * the boundary as five values: white_men, white_kings, black_men, black_kings (Python
 * ints, bit i = square i) and turn (0 White, 1 Black). Moves come back as
 * (origin, destination, captured_mask) keys, or with their full path for legal_moves().
 * perft() and search() release the GIL. See bots/engine/native.py for the spec's keys.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "search.h"

typedef struct {
    PyObject_HEAD
    KdRules rules;
    KdEval eval;
    KdEngine *engine;
    KdMoveList *scratch;
    Py_buffer tables; /* the buffer the engine's endgame tables point into (.obj NULL: none):
                         bytes, or a read-only memory map of the cache file */
} CoreObject;

static int bb_from(PyObject *o, kd_bb *out) {
    if (!PyLong_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "a bitboard must be an int");
        return -1;
    }
    if (_PyLong_Sign(o) < 0) {
        PyErr_SetString(PyExc_ValueError, "a bitboard must be non-negative");
        return -1;
    }
    unsigned char buf[16];
    if (_PyLong_AsByteArray((PyLongObject *)o, buf, 16, 1, 0) < 0) return -1;
    kd_bb v = 0;
    for (int i = 15; i >= KD_BB_BITS / 8; i--)
        if (buf[i]) {
            PyErr_SetString(PyExc_ValueError, "a piece stands off the board");
            return -1;
        }
    for (int i = KD_BB_BITS / 8 - 1; i >= 0; i--) v = (v << 8) | buf[i];
    *out = v;
    return 0;
}

static PyObject *bb_to(kd_bb v) {
    unsigned char buf[16] = {0};
    for (int i = 0; i < KD_BB_BITS / 8; i++) {
        buf[i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
    return _PyLong_FromByteArray(buf, 16, 1, 0);
}

static int pos_from(CoreObject *self, PyObject *wm, PyObject *wk, PyObject *bm, PyObject *bk,
                    int turn, KdPos *p) {
    if (bb_from(wm, &p->men[0]) || bb_from(wk, &p->kings[0]) || bb_from(bm, &p->men[1]) ||
        bb_from(bk, &p->kings[1]))
        return -1;
    kd_bb all = p->men[0] | p->men[1] | p->kings[0] | p->kings[1];
    if (all & ~self->rules.full) {
        PyErr_SetString(PyExc_ValueError, "a piece stands off the board");
        return -1;
    }
    if (turn != 0 && turn != 1) {
        PyErr_SetString(PyExc_ValueError, "turn must be 0 (White) or 1 (Black)");
        return -1;
    }
    p->turn = turn;
    return 0;
}

static int get_int(PyObject *d, const char *key, int *out) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v) {
        PyErr_Format(PyExc_KeyError, "rules spec lacks %s", key);
        return -1;
    }
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = (int)x;
    return 0;
}

/* An optional int: `fallback` when the spec lacks `key`. */
static int get_int_or(PyObject *d, const char *key, int fallback, int *out) {
    if (!PyDict_GetItemString(d, key)) {
        *out = fallback;
        return 0;
    }
    return get_int(d, key, out);
}

/* A sequence of ints into out[0..max); returns the length or -1. */
static int get_ints(PyObject *seq, int *out, int max) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > max) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "rules spec table too long for the core");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)x;
    }
    Py_DECREF(fast);
    return (int)n;
}

static int get_item_ints(PyObject *d, const char *key, Py_ssize_t index, int *out, int max) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v) {
        PyErr_Format(PyExc_KeyError, "rules spec lacks %s", key);
        return -1;
    }
    if (index < 0) return get_ints(v, out, max);
    PyObject *item = PySequence_GetItem(v, index);
    if (!item) return -1;
    int n = get_ints(item, out, max);
    Py_DECREF(item);
    return n;
}

static int parse_rules(PyObject *spec, KdRules *r) {
    memset(r, 0, sizeof(*r));
    if (!PyDict_Check(spec)) {
        PyErr_SetString(PyExc_TypeError, "spec must be a dict");
        return -1;
    }
    int tmp[KD_MAX_SQ * KD_MAX_RAY];
    if (get_int(spec, "squares", &r->nsq) || get_int(spec, "directions", &r->ndirs) ||
        get_int(spec, "rows", &r->rows) || get_int(spec, "flying_kings", &r->flying_kings) ||
        get_int(spec, "men_capture_kings", &r->men_capture_kings) ||
        get_int(spec, "immediate_removal", &r->immediate_removal) ||
        get_int(spec, "no_reversal", &r->no_reversal) ||
        get_int(spec, "promotion_rule", &r->promotion_rule) ||
        get_int(spec, "draw_plies", &r->draw_plies) ||
        get_int(spec, "repetitions", &r->repetitions))
        return -1;
    /* The rules added with the kings' own directions: optional, today's meaning when absent
       (kings move and capture along every board line, flying both ways or neither). */
    if (get_int_or(spec, "all_directions", r->ndirs, &r->nvec) ||
        get_int_or(spec, "flying_captures", r->flying_kings, &r->flying_captures) ||
        get_int_or(spec, "king_landing_next", 0, &r->king_landing_next))
        return -1;
    r->n_criteria = get_item_ints(spec, "criteria", -1, r->criteria, KD_MAX_CRITERIA);
    if (r->n_criteria < 0) return -1;
    if (r->nsq <= 0 || r->nsq > KD_MAX_SQ || r->ndirs <= 0 || r->ndirs > KD_MAX_DIRS ||
        r->nvec < r->ndirs || r->nvec > KD_MAX_DIRS || r->promotion_rule < 0 ||
        r->promotion_rule > 2) {
        PyErr_SetString(PyExc_ValueError, "rules outside what the core implements");
        return -1;
    }
    if (PyDict_GetItemString(spec, "king_moves")) {
        r->n_king_move = get_item_ints(spec, "king_moves", -1, r->king_move, KD_MAX_DIRS);
        r->n_king_capture =
            get_item_ints(spec, "king_captures", -1, r->king_capture, KD_MAX_DIRS);
        if (r->n_king_move < 0 || r->n_king_capture < 0) return -1;
    } else {
        r->n_king_move = r->n_king_capture = r->ndirs;
        for (int d = 0; d < r->ndirs; d++) r->king_move[d] = r->king_capture[d] = d;
    }
    r->piece_value[0] = r->piece_value[1] = 1;
    if (PyDict_GetItemString(spec, "piece_values") &&
        get_item_ints(spec, "piece_values", -1, r->piece_value, 2) != 2)
        goto bad;
    r->full = r->nsq == KD_BB_BITS ? ~(kd_bb)0 : ((kd_bb)1 << r->nsq) - 1;
    for (int d = 0; d < r->nvec; d++) {
        if (get_item_ints(spec, "neighbour", d, tmp, KD_MAX_SQ) != r->nsq) goto bad;
        for (int sq = 0; sq < r->nsq; sq++) {
            if (tmp[sq] < -1 || tmp[sq] >= r->nsq) goto bad;
            r->neighbour[d][sq] = (int16_t)tmp[sq];
        }
    }
    /* rays are derived from neighbours: every square from sq to the edge */
    for (int d = 0; d < r->nvec; d++)
        for (int sq = 0; sq < r->nsq; sq++) {
            int n = r->neighbour[d][sq], len = 0;
            while (n >= 0) {
                if (len >= KD_MAX_RAY) goto bad;
                r->ray[d][sq][len++] = (uint8_t)n;
                n = r->neighbour[d][n];
            }
            r->ray_len[d][sq] = (uint8_t)len;
        }
    if (get_item_ints(spec, "opposite", -1, r->opposite, KD_MAX_DIRS) != r->nvec) goto bad;
    if (get_item_ints(spec, "rank", -1, r->rank, KD_MAX_SQ) != r->nsq) goto bad;
    for (int c = 0; c < 2; c++) {
        PyObject *promo = PyDict_GetItemString(spec, "promotion");
        PyObject *item = promo ? PySequence_GetItem(promo, c) : NULL;
        if (!item) goto bad;
        int rc = bb_from(item, &r->promo[c]);
        Py_DECREF(item);
        if (rc) return -1;
        r->n_man_move[c] = get_item_ints(spec, "man_moves", c, r->man_move[c], KD_MAX_DIRS);
        r->n_man_capture[c] =
            get_item_ints(spec, "man_captures", c, r->man_capture[c], KD_MAX_DIRS);
        if (r->n_man_move[c] < 0 || r->n_man_capture[c] < 0) return -1;
    }
    for (int d = 0; d < r->nvec; d++)
        if (r->opposite[d] < 0 || r->opposite[d] >= r->nvec) goto bad;
    if (kd_rules_finish(r)) goto bad;
    return 0;
bad:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "malformed rules spec");
    return -1;
}

static int Core_init(CoreObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"spec", "eval_params", "tt_mb", NULL};
    PyObject *spec, *params;
    int tt_mb = 16;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|i", kwlist, &spec, &params, &tt_mb))
        return -1;
    if (parse_rules(spec, &self->rules)) return -1;
    /* The length depends on the regions the header declares: kd_eval_init checks it. */
    int len = kd_eval_params_len(self->rules.nsq, KD_MAX_REGIONS);
    int32_t *w = PyMem_Malloc(sizeof(int32_t) * (size_t)len);
    int *tmp = PyMem_Malloc(sizeof(int) * (size_t)(len + 1));
    if (!w || !tmp) {
        PyMem_Free(w);
        PyMem_Free(tmp);
        PyErr_NoMemory();
        return -1;
    }
    int n = get_ints(params, tmp, len + 1);
    int rc = -1;
    kd_eval_free(&self->eval);
    if (n >= 0 && n <= len) {
        for (int i = 0; i < n; i++) w[i] = tmp[i];
        rc = kd_eval_init(&self->eval, &self->rules, w, n);
    }
    PyMem_Free(w);
    PyMem_Free(tmp);
    if (rc) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "malformed eval parameters");
        return -1;
    }
    if (self->engine) kd_engine_free(self->engine);
    self->engine = kd_engine_new(&self->rules, &self->eval, tt_mb);
    if (!self->scratch) self->scratch = PyMem_Malloc(sizeof(KdMoveList));
    if (!self->engine || !self->scratch) {
        PyErr_NoMemory();
        return -1;
    }
    self->eval.rules = &self->rules;
    return 0;
}

static void Core_dealloc(CoreObject *self) {
    kd_engine_free(self->engine);
    kd_eval_free(&self->eval);
    if (self->tables.obj) PyBuffer_Release(&self->tables);
    PyMem_Free(self->scratch);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *move_key(const KdMove *m) {
    PyObject *mask = bb_to(m->captured);
    if (!mask) return NULL;
    return Py_BuildValue("(iiN)", m->from, m->to, mask);
}

#define POS_ARGS &wm, &wk, &bm, &bk, &turn

static PyObject *Core_legal_moves(CoreObject *self, PyObject *args) {
    PyObject *wm, *wk, *bm, *bk;
    int turn;
    if (!PyArg_ParseTuple(args, "OOOOi", POS_ARGS)) return NULL;
    KdPos p;
    if (pos_from(self, wm, wk, bm, bk, turn, &p)) return NULL;
    KdPath *paths = PyMem_Malloc(sizeof(KdPath) * KD_MAX_MOVES);
    if (!paths) return PyErr_NoMemory();
    KdMoveList *ml = self->scratch;
    ml->paths = paths;
    kd_legal_moves(&self->rules, &p, ml);
    ml->paths = NULL;
    if (ml->overflow) {
        PyMem_Free(paths);
        PyErr_SetString(PyExc_OverflowError, "more legal moves than the core holds");
        return NULL;
    }
    PyObject *list = PyList_New(ml->n);
    for (int i = 0; list && i < ml->n; i++) {
        const KdMove *m = &ml->m[i];
        const KdPath *pa = &paths[i];
        PyObject *path = PyTuple_New(pa->len);
        PyObject *capt = PyTuple_New(m->captured ? pa->len - 1 : 0);
        PyObject *mask = bb_to(m->captured);
        if (!path || !capt || !mask) {
            Py_XDECREF(path);
            Py_XDECREF(capt);
            Py_XDECREF(mask);
            Py_CLEAR(list);
            break;
        }
        for (int k = 0; k < pa->len; k++) PyTuple_SET_ITEM(path, k, PyLong_FromLong(pa->sq[k]));
        if (m->captured)
            for (int k = 0; k < pa->len - 1; k++)
                PyTuple_SET_ITEM(capt, k, PyLong_FromLong(pa->captured[k]));
        PyObject *t = Py_BuildValue("(NNON)", path, capt, m->promotes ? Py_True : Py_False, mask);
        if (!t) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, t);
    }
    PyMem_Free(paths);
    return list;
}

static PyObject *Core_perft(CoreObject *self, PyObject *args) {
    PyObject *wm, *wk, *bm, *bk;
    int turn, depth;
    if (!PyArg_ParseTuple(args, "OOOOii", POS_ARGS, &depth)) return NULL;
    KdPos p;
    if (pos_from(self, wm, wk, bm, bk, turn, &p)) return NULL;
    if (depth > 64) {
        PyErr_SetString(PyExc_ValueError, "perft depth too large");
        return NULL;
    }
    uint64_t n;
    Py_BEGIN_ALLOW_THREADS
    n = kd_perft(&self->rules, &p, depth);
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong(n);
}

static PyObject *Core_evaluate(CoreObject *self, PyObject *args) {
    PyObject *wm, *wk, *bm, *bk;
    int turn;
    if (!PyArg_ParseTuple(args, "OOOOi", POS_ARGS)) return NULL;
    KdPos p;
    if (pos_from(self, wm, wk, bm, bk, turn, &p)) return NULL;
    return PyLong_FromLong(kd_evaluate(&p, &self->eval));
}

static PyObject *Core_hash(CoreObject *self, PyObject *args) {
    PyObject *wm, *wk, *bm, *bk;
    int turn;
    if (!PyArg_ParseTuple(args, "OOOOi", POS_ARGS)) return NULL;
    KdPos p;
    if (pos_from(self, wm, wk, bm, bk, turn, &p)) return NULL;
    return PyLong_FromUnsignedLongLong(kd_hash(self->engine, &p));
}

static PyObject *Core_clear(CoreObject *self, PyObject *Py_UNUSED(ignored)) {
    kd_engine_clear(self->engine);
    Py_RETURN_NONE;
}

static PyObject *Core_search(CoreObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"white_men", "white_kings", "black_men", "black_kings", "turn",
                             "max_depth", "time_limit", "node_limit", "noise", "seed",
                             "quiet_plies", "history", "fresh", "tables", "soft_time", NULL};
    PyObject *wm, *wk, *bm, *bk, *history = NULL;
    int turn, max_depth = 64, noise = 0, quiet = 0, fresh = 0, tables = 0;
    double time_limit = 0, soft_time = 0;
    long long node_limit = 0;
    unsigned long long seed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOi|idLiKiOppd", kwlist, POS_ARGS,
                                     &max_depth, &time_limit, &node_limit, &noise, &seed,
                                     &quiet, &history, &fresh, &tables, &soft_time))
        return NULL;
    KdPos p;
    if (pos_from(self, wm, wk, bm, bk, turn, &p)) return NULL;
    KdSearchParams *sp = PyMem_Calloc(1, sizeof(KdSearchParams));
    KdSearchResult *res = PyMem_Calloc(1, sizeof(KdSearchResult));
    if (!sp || !res) {
        PyMem_Free(sp);
        PyMem_Free(res);
        return PyErr_NoMemory();
    }
    sp->max_depth = max_depth;
    sp->time_limit = time_limit;
    sp->soft_time = soft_time;
    sp->node_limit = node_limit;
    sp->noise = noise < 0 ? 0 : noise;
    sp->seed = seed;
    sp->quiet_plies = quiet < 0 ? 0 : quiet;
    sp->fresh = fresh;
    sp->use_tables = tables;
    if (history && history != Py_None) {
        PyObject *fast = PySequence_Fast(history, "history must be a sequence of ints");
        if (!fast) goto fail;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        Py_ssize_t start = n > KD_MAX_HISTORY ? n - KD_MAX_HISTORY : 0;
        for (Py_ssize_t i = start; i < n; i++) {
            unsigned long long h = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
            if (h == (unsigned long long)-1 && PyErr_Occurred()) {
                Py_DECREF(fast);
                goto fail;
            }
            sp->history[sp->n_history++] = h;
        }
        Py_DECREF(fast);
    }
    Py_BEGIN_ALLOW_THREADS
    kd_search(self->engine, &p, sp, res);
    Py_END_ALLOW_THREADS
    PyObject *pv = PyList_New(0);
    for (int i = 0; pv && i < res->pv_len; i++) {
        PyObject *k = move_key(&res->pv[i]);
        if (!k || PyList_Append(pv, k)) {
            Py_XDECREF(k);
            Py_CLEAR(pv);
            break;
        }
        Py_DECREF(k);
    }
    PyObject *best = NULL;
    if (pv) {
        if (res->has_move) {
            best = move_key(&res->best);
        } else {
            best = Py_None;
            Py_INCREF(best);
        }
    }
    PyObject *out = NULL;
    if (pv && best)
        out = Py_BuildValue("(NiiLiN)", best, res->score, res->depth, (long long)res->nodes,
                            res->stopped, pv);
    else {
        Py_XDECREF(pv);
        Py_XDECREF(best);
    }
    PyMem_Free(sp);
    PyMem_Free(res);
    return out;
fail:
    PyMem_Free(sp);
    PyMem_Free(res);
    return NULL;
}

static PyObject *Core_set_profile(CoreObject *self, PyObject *args) {
    KdSearchProfile profile = {0};
    if (!PyArg_ParseTuple(args, "i", &profile.selectivity)) return NULL;
    if (profile.selectivity < 0 || profile.selectivity >= KD_SELECT_COUNT) {
        PyErr_Format(PyExc_ValueError, "selectivity must be 0..%d", KD_SELECT_COUNT - 1);
        return NULL;
    }
    kd_engine_set_profile(self->engine, &profile);
    Py_RETURN_NONE;
}

static PyObject *Core_set_special(CoreObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    int rc = kd_engine_set_special(self->engine, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    if (rc) {
        PyErr_SetString(PyExc_ValueError, "special outcome table of the wrong size");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Core_tables_size(CoreObject *self, PyObject *args) {
    int pieces;
    if (!PyArg_ParseTuple(args, "i", &pieces)) return NULL;
    KdTables t;
    if (kd_tables_layout(&t, &self->rules, pieces)) {
        PyErr_SetString(PyExc_ValueError, "endgame tables: 2 to 5 pieces");
        return NULL;
    }
    return PyLong_FromSize_t(t.total);
}

static PyObject *Core_build_tables(CoreObject *self, PyObject *args) {
    int pieces, rc;
    if (!PyArg_ParseTuple(args, "i", &pieces)) return NULL;
    KdTables *t = PyMem_Calloc(1, sizeof(KdTables));
    if (!t) return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    rc = kd_tables_build(t, &self->rules, pieces, kd_engine_special(self->engine));
    Py_END_ALLOW_THREADS
    PyObject *out = NULL;
    if (rc == 0) {
        out = PyBytes_FromStringAndSize((const char *)t->data, (Py_ssize_t)t->total);
        kd_tables_free(t);
    } else if (rc == -2) {
        PyErr_SetString(PyExc_ValueError, "endgame tables: a distance beyond 254 plies");
    } else {
        PyErr_SetString(PyExc_MemoryError, "endgame tables: bad size or no memory");
    }
    PyMem_Free(t);
    return out;
}

static PyObject *Core_set_tables(CoreObject *self, PyObject *args) {
    int pieces;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "iy*", &pieces, &view)) return NULL;
    /* the engine reads the buffer in place: hold it as long as it may (a memory map of
       the cache file is shared between processes, only the pages read are resident) */
    int rc = kd_engine_set_tables(self->engine, pieces, (const uint8_t *)view.buf,
                                  (size_t)view.len);
    if (self->tables.obj) PyBuffer_Release(&self->tables);
    if (rc || !view.len) { /* the engine has no tables now */
        PyBuffer_Release(&view);
        if (!rc) Py_RETURN_NONE;
        PyErr_SetString(PyExc_ValueError, "endgame tables of the wrong size");
        return NULL;
    }
    self->tables = view;
    Py_RETURN_NONE;
}

static PyObject *Core_probe(CoreObject *self, PyObject *args) {
    PyObject *wm, *wk, *bm, *bk;
    int turn;
    if (!PyArg_ParseTuple(args, "OOOOi", POS_ARGS)) return NULL;
    KdPos p;
    if (pos_from(self, wm, wk, bm, bk, turn, &p)) return NULL;
    return PyLong_FromLong(kd_engine_probe(self->engine, &p));
}

static PyMethodDef Core_methods[] = {
    {"tables_size", (PyCFunction)Core_tables_size, METH_VARARGS,
     "tables_size(max_pieces) -> bytes of the endgame tables (tables.h)"},
    {"build_tables", (PyCFunction)Core_build_tables, METH_VARARGS,
     "build_tables(max_pieces) -> bytes: solves the endgame tables with the special "
     "outcomes set (GIL released)"},
    {"set_tables", (PyCFunction)Core_set_tables, METH_VARARGS,
     "set_tables(max_pieces, data: buffer): the engine's endgame tables, read in place "
     "(b'' removes them)"},
    {"probe", (PyCFunction)Core_probe, METH_VARARGS,
     "probe(wm, wk, bm, bk, turn) -> table byte (tables.h), -1: not in the tables"},
    {"set_profile", (PyCFunction)Core_set_profile, METH_VARARGS,
     "set_profile(selectivity: int): how selective the search is (KD_SELECT_*, search.h)"},
    {"set_special", (PyCFunction)Core_set_special, METH_O,
     "set_special(table: bytes): special outcomes with one piece per side (search.h)"},
    {"legal_moves", (PyCFunction)Core_legal_moves, METH_VARARGS,
     "legal_moves(wm, wk, bm, bk, turn) -> [(path, captured, promotes, mask)]"},
    {"perft", (PyCFunction)Core_perft, METH_VARARGS, "perft(wm, wk, bm, bk, turn, depth)"},
    {"evaluate", (PyCFunction)Core_evaluate, METH_VARARGS,
     "evaluate(wm, wk, bm, bk, turn) -> centi-men for the side to move"},
    {"hash", (PyCFunction)Core_hash, METH_VARARGS, "hash(wm, wk, bm, bk, turn) -> Zobrist key"},
    {"clear", (PyCFunction)Core_clear, METH_NOARGS, "empty the transposition table"},
    {"search", (PyCFunction)(void (*)(void))Core_search, METH_VARARGS | METH_KEYWORDS,
     "search(wm, wk, bm, bk, turn, max_depth, time_limit, node_limit, noise, seed, "
     "quiet_plies, history, fresh, tables, soft_time) -> (best_key | None, score, depth, nodes, stopped, pv_keys)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bots.native._kdcore.Core",
    .tp_basicsize = sizeof(CoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One ruleset's compiled move generator, evaluation and search engine.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
};

/* _kdcore (boards to 128 squares) or, built with KD_BB64, _kdcore64 (to 64 squares) */
#ifdef KD_BB64
#define KD_MODULE_NAME "_kdcore64"
#define KD_MODULE_INIT PyInit__kdcore64
#else
#define KD_MODULE_NAME "_kdcore"
#define KD_MODULE_INIT PyInit__kdcore
#endif

static struct PyModuleDef kdcore_module = {
    PyModuleDef_HEAD_INIT, KD_MODULE_NAME, "Kondavo's compiled draughts core.", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC KD_MODULE_INIT(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&kdcore_module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MATE", KD_MATE);
    /* build_tables solves with the special outcomes the core has (set_special) */
    PyModule_AddIntConstant(m, "TABLES_WITH_SPECIAL", 1);
    PyModule_AddIntConstant(m, "MAX_SQUARES", KD_MAX_SQ);
    PyModule_AddIntConstant(m, "EVAL_HEADER", KD_EVAL_HEADER);
    PyModule_AddIntConstant(m, "EVAL_SCALAR_SLOTS", KD_EVAL_SCALAR_SLOTS);
    PyModule_AddIntConstant(m, "EVAL_PHASES", KD_PHASES);
    PyModule_AddIntConstant(m, "EVAL_MAX_BANDS", KD_MAX_BANDS);
    PyModule_AddIntConstant(m, "EVAL_MAX_REGIONS", KD_MAX_REGIONS);
    PyModule_AddIntConstant(m, "EVAL_REGION_LIMIT", KD_REGION_LIMIT);
    return m;
}
