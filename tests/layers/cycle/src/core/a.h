/* a.h: fixture for tools/check_layers.py: core includes io (goes up). */
#include "io/b.h"
