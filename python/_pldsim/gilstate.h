/* gilstate.h: the OS thread's thread state for PyGILState_* (gilstate.c). */
#ifndef PLDSIM_PY_GILSTATE_H
#define PLDSIM_PY_GILSTATE_H

/* Whether this build can rebind it (CPython 3.11): else, no coroutines. */
int pldsim_gilstate_can_bind(void);
/* Makes `ts` the calling OS thread's thread state for PyGILState_*. */
void pldsim_gilstate_bind(PyThreadState *ts);

#endif
