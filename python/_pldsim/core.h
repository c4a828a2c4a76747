/* core.h: what the files of the _pldsim extension share.
 *
 * _pldsim is the thin C layer between the Python front end (the pypto
 * package of python/) and libpld.  It holds libpld's values (window
 * views, tiles, buffers) in small Python objects, calls libpld's entry
 * points with the Python caller's file and line, and runs Python callables
 * as pldsim's host orchestrator and dispatched tasks.  Argument checks that
 * upstream makes in Python live in the pypto package; everything libpld
 * checks is left to libpld, so messages are the same as for C programs. */
#ifndef PLDSIM_PY_CORE_H
#define PLDSIM_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pld/pld_embed.h>

/* A libpld value held by a Python object. */
typedef struct {
    PyObject ob_base;   /* PyObject_HEAD */
    pl_tensor t;        /* a window view, or a host tensor made per call */
    PyObject *keep;     /* what owns t.data for a host tensor (a torch tensor) */
    double array_bytes; /* a host tensor's: the bytes of the array its rows lie in; 0: t's own */
} ViewObject;

typedef struct {
    PyObject ob_base; /* PyObject_HEAD */
    pl_tile tile;
} TileObject;

typedef struct {
    PyObject ob_base; /* PyObject_HEAD */
    pld_buffer buf;
    PyObject *name;
} BufferObject;

extern PyTypeObject View_Type, Tile_Type, Buffer_Type;

/* The exception a guarded call raises when the run is ending (its error
 * has been reported).  A BaseException, so that `except Exception` in user
 * code does not swallow it. */
extern PyObject *pldsim_Abort;

/* Returns a C string for `s` that lives as long as the process (libpld
 * keeps file names, op and buffer names in its traces).  NULL with an
 * exception set if `s` is not a str. */
const char *pldsim_intern(PyObject *s);

/* Converts a sequence of ints to a pl_shape (1..PL_MAX_DIMS entries).
 * Returns 0, or -1 with TypeError/ValueError set; `what` names it. */
int pldsim_shape(PyObject *seq, pl_shape *out, const char *what);

/* The pl_tensor of a View; NULL with TypeError set for anything else. */
pl_tensor *pldsim_view(PyObject *o, const char *what);
/* The bytes of the array View `o` lies in, as its maker said (0: not
 * said); a load passes it on as pl_load_kw's array_bytes. */
double pldsim_view_array_bytes(PyObject *o);
/* The pl_tile of a Tile; NULL with TypeError set for anything else. */
pl_tile *pldsim_tile(PyObject *o, const char *what);
PyObject *pldsim_new_view(pl_tensor t, PyObject *keep);
PyObject *pldsim_new_tile(pl_tile t);

/* Raises pldsim_Abort; returns NULL (for `return pldsim_abort();`). */
PyObject *pldsim_abort(void);

/* Takes the GIL back for the rank's thread state `ts` after a libpld call
 * (PyEval_RestoreThread), and when the ranks share one OS thread (SimGrid's
 * coroutines, run.c) makes `ts` the OS thread's own for PyGILState_*. */
void pldsim_resume(PyThreadState *ts);

/* Runs `stmt` (libpld calls) without the GIL, under a pld_guard.  If the
 * run ends meanwhile, the guard catches the rank's exit and the enclosing
 * function returns pldsim_abort().  Locals that `stmt` assigns are read
 * only when it completed, so they need not be volatile.  The guard keeps
 * the rank's thread state: with SimGrid's coroutines every rank runs on
 * the same OS thread, `stmt` may run the others before it returns, and a
 * task it runs on this rank continues in this thread state (run.c). */
#define PLDSIM_CALL(stmt)                                                                          \
    do {                                                                                           \
        pld_guard g_;                                                                              \
        volatile int escaped_ = 0;                                                                 \
        PyThreadState *ts_ = PyEval_SaveThread();                                                  \
        g_.data = ts_;                                                                             \
        pld_guard_push(&g_);                                                                       \
        if (sigsetjmp(g_.env, 0) == 0) {                                                           \
            stmt;                                                                                  \
            pld_guard_pop(&g_);                                                                    \
        } else {                                                                                   \
            escaped_ = 1;                                                                          \
        }                                                                                          \
        pldsim_resume(ts_);                                                                        \
        if (escaped_)                                                                              \
            return pldsim_abort();                                                                 \
    } while (0)

/* Every call takes the Python caller's (file, line) first:
 *     SRC_ARGS ... PyArg_ParseTuple(args, SRC_FMT "...", SRC_PTRS, ...); SRC_C()
 * declares, parses, and interns them into `file` and `line`. */
#define SRC_ARGS                                                                                   \
    PyObject *file_;                                                                               \
    int line_;
#define SRC_FMT  "Ui"
#define SRC_PTRS &file_, &line_
#define SRC_C()                                                                                    \
    const char *file = pldsim_intern(file_);                                                       \
    int line = line_;                                                                              \
    if (!file)                                                                                     \
        return NULL;

/* The method tables of the files below, joined by module.c. */
extern PyMethodDef pldsim_run_methods[];   /* run.c: runs, tasks, kernels */
extern PyMethodDef pldsim_local_methods[]; /* ops_local.c: pl.* and windows */
extern PyMethodDef pldsim_kept_methods[];  /* ops_kept.c: tiles kept outside UB, their costs */
extern PyMethodDef pldsim_comm_methods[];  /* ops_comm.c: signals, RMA, collectives */

#endif
