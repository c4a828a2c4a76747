/* gilstate.c: tells CPython which thread state the OS thread runs, when the
 * ranks take turns on one OS thread (SimGrid's coroutines, run.c).
 *
 * CPython keeps, per OS thread, the thread state that PyGILState_Ensure
 * and PyGILState_Check take for "this thread's" (the OS thread's first
 * one).  With every rank on one OS thread that would be the main thread's
 * state while a rank runs in its own: an extension calling
 * PyGILState_Ensure there (pybind11's gil_scoped_acquire, numpy's error
 * paths) would wait for the GIL it holds, or run in the wrong thread state.
 * Rebinding the OS thread's slot to the running rank's state whenever it
 * takes the GIL keeps them right.  CPython has no API for it: the slot is
 * the runtime's autoTSSkey, whose place is private to each minor version;
 * this file knows 3.11's (Debian 12's), and says so otherwise, so that a
 * run on another version keeps SimGrid's thread contexts. */
#define PY_SSIZE_T_CLEAN
#define Py_BUILD_CORE_MODULE 1
#include <Python.h>

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#include <internal/pycore_runtime.h>
#define HAVE_GILSTATE_SLOT 1
#endif

#include "gilstate.h"

int pldsim_gilstate_can_bind(void)
{
#ifdef HAVE_GILSTATE_SLOT
    return 1;
#else
    return 0;
#endif
}

void pldsim_gilstate_bind(PyThreadState *ts)
{
#ifdef HAVE_GILSTATE_SLOT
    if (PyThread_tss_set(&_PyRuntime.gilstate.autoTSSkey, ts))
        Py_FatalError("_pldsim: cannot bind the thread state to the OS thread");
#else
    (void)ts;
#endif
}
