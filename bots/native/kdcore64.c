/* The module _kdcore64: the same core as kdcore.c with 64-bit boards, for boards of at most
 * 64 squares (kd_core.h). bots/engine/native.py uses it for every ruleset it can hold. */
#define KD_BB64 1
#include "kdcore.c"
