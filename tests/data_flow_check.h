/* data_flow_check.h: the data-flow checker moved into the library
 * (generators/data_flow_check.h, used by `fennelsim sweep --check`); this
 * name stays for tests written before the move. */
#include "generators/data_flow_check.h"
