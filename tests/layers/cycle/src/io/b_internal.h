/* b_internal.h: fixture for tools/check_layers.py: an internal header of
 * b.c that includes b.h (transparent, no cycle); b.h includes core/a.h. */
#include "io/b.h"
