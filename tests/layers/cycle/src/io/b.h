/* b.h: fixture for tools/check_layers.py: io includes core, closing a cycle. */
#include "core/a.h"
