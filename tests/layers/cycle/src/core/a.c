/* a.c: fixture for tools/check_layers.py: a.c and b.c need each other's
 * headers (the file cycle core/a -> io/b -> core/a). */
#include "core/a.h"
#include "io/b.h"
