#include "sg_config.h"
#include "spillgraph.h"

const char *sg_version(void) { return SG_VERSION; }
