/* async.h: the sessions of put_async (async.c), as rma.c issues into them. */
#ifndef PLD_ASYNC_H
#define PLD_ASYNC_H

#include "internal.h"
#include "detect.h"

/* Fails unless `s` is a session of the running kernel. */
void pld__async_check_session(const char *file, int line, const char *op, pld_async_session s);
/* Keeps `put` as the next event of session `s`, and returns its handle. */
pld_async_event pld__async_add(const char *file, int line, const char *op, pld_async_session s,
                               const struct pld__async_put *put);

#endif /* PLD_ASYNC_H */
