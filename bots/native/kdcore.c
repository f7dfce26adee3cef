/* The module _kdcore (128-bit boards, up to 128 squares) as one translation unit: the core's
 * sources are compiled once per module, so the two modules built from them (kdcore64.c:
 * _kdcore64, the same core with 64-bit boards, see kd_core.h) never share object files. */
#include "module.c"
#include "movegen.c"
#include "eval.c"
#include "search.c"
#include "tables.c"
