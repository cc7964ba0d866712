/* b.h: fixture for tools/check_layers.py: io includes core (allowed). */
#include "core/a.h"
