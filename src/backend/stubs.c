/* stubs.c: the hooks a backend has no use for point here, so that no
 * backend writes its own do-nothing functions. */
#include "internal.h"
#include "backend.h"

void pld__charge_nothing(double seconds)
{
    (void)seconds; /* on real hardware, real work takes real time */
}

void pld__settle_nothing(void)
{
    /* the clock is the wall clock: it is always where the caller is */
}
