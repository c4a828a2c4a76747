/* version.c: pldsim's version, a leaf of the core, so that the summary
 * writer can name it without calling up into the option parser (libuv
 * keeps its version in src/version.c for the same reason). */
#include "internal.h"
#include "contract.h"

const char *pld_version(void)
{
    return PLD_PACKAGE_VERSION;
}
