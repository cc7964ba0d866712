/* b.c: fixture for tools/check_layers.py (see a.c); b_internal.h is a
 * header without a .c: it includes b.h back, which is no cycle. */
#include "io/b_internal.h"
