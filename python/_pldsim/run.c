/* run.c: a pldsim run driven from Python: the configuration, pld_run with
 * a Python host orchestrator, dispatched Python tasks, kernels, and the
 * report of a Python exception raised inside a rank.
 *
 * Python code runs on the rank that executes it: the host trampoline and
 * the task trampoline take the GIL for the duration of the Python call,
 * and every libpld call releases it (PLDSIM_CALL), so whichever rank
 * SimGrid (or the threads backend) runs next can take it.
 *
 * On sim, SimGrid's coroutines (its default "raw" contexts) run every rank
 * on the OS thread that called run(), switching C stacks at calls into
 * libpld, the way greenlet switches Python code between C stacks.  Each
 * rank then runs Python in a thread state of its own: its frames, its
 * exception being handled, its recursion depth, its threading.local()
 * values.  A Python call on a rank that has none yet (its task, the host's
 * orchestrator) makes one and deletes it at the end, as PyGILState_Ensure
 * does for a new OS thread; a task that libpld runs on a rank while that
 * rank's Python is inside a libpld call (a pl.at body run at once, a task
 * graph's first core) continues in the thread state the call parked in its
 * guard.  No rank runs Python while it is switched out: PLDSIM_CALL
 * releases the GIL and the thread state before libpld can switch, and
 * takes its own back after.  PLDSIM_PY_CONTEXTS=thread runs every rank on
 * an OS thread of its own instead (SimGrid's thread contexts, slower: an
 * OS thread switch per rank switch), with PyGILState_Ensure per call. */
#include "core.h"
#include "gilstate.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* Whether the ranks of the run in progress share this OS thread (SimGrid's
 * coroutines), and the interpreter that their thread states belong to. */
static int coroutines;
static PyInterpreterState *interp;

void pldsim_resume(PyThreadState *ts)
{
    PyEval_RestoreThread(ts);
    if (coroutines)
        pldsim_gilstate_bind(ts);
}

/* Formats a Python exception for the report (set by the pypto package):
 * reporter(exc, who) -> (preface or None, file, line, op, message, is_python_error) */
static PyObject *reporter;
/* The run's first error was a Python exception (the runner exits 1 then). */
static int python_error_first;

struct task_args {
    PyObject *call; /* owned reference, released when the task has run */
    const char *who;
};

/* Copies a str (or None) into malloc'd memory, so that it can be printed
 * after the GIL is released. */
static char *copy_str(PyObject *s)
{
    if (!s || s == Py_None || !PyUnicode_Check(s))
        return NULL;
    const char *u = PyUnicode_AsUTF8(s);
    return u ? strdup(u) : NULL;
}

/* With the GIL held and an exception set by Python code that `who` ran:
 * clears it and returns 0 if it is the Abort of a run that is ending;
 * otherwise describes it and returns 1 with *desc filled (malloc'd). */
struct report {
    char *preface, *file, *op, *msg;
    int line, python_error;
};

static int describe(const char *who, struct report *r)
{
    memset(r, 0, sizeof *r);
    if (PyErr_ExceptionMatches(pldsim_Abort)) {
        PyErr_Clear();
        return 0;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb && value)
        PyException_SetTraceback(value, tb);
    PyObject *d =
        reporter ? PyObject_CallFunction(reporter, "Os", value ? value : Py_None, who) : NULL;
    if (d && PyTuple_Check(d) && PyTuple_GET_SIZE(d) == 6) {
        r->preface = copy_str(PyTuple_GET_ITEM(d, 0));
        r->file = copy_str(PyTuple_GET_ITEM(d, 1));
        r->line = (int)PyLong_AsLong(PyTuple_GET_ITEM(d, 2));
        r->op = copy_str(PyTuple_GET_ITEM(d, 3));
        r->msg = copy_str(PyTuple_GET_ITEM(d, 4));
        r->python_error = PyObject_IsTrue(PyTuple_GET_ITEM(d, 5)) == 1;
    } else {
        /* the reporter itself failed: say what we can */
        PyErr_Clear();
        PyObject *s = value ? PyObject_Str(value) : NULL;
        r->msg = copy_str(s);
        Py_XDECREF(s);
        r->python_error = 1;
    }
    PyErr_Clear();
    Py_XDECREF(d);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    if (!r->file)
        r->file = strdup("<python>");
    if (!r->op)
        r->op = strdup(who);
    if (!r->msg)
        r->msg = strdup("a Python exception");
    return 1;
}

/* Without the GIL: ends the run with the report (printed if it is the
 * run's first error).  Returns once the rank has been released. */
static void fail_with(struct report *r)
{
    pld_guard g;
    g.data = NULL; /* no thread state parked: no Python runs under it */
    pld_guard_push(&g);
    if (sigsetjmp(g.env, 0) == 0) {
        pld_embed_fail(PLD_EINVAL, r->file, r->line, r->op, r->preface, "%s", r->msg);
    }
    free(r->preface);
    free(r->file);
    free(r->op);
    free(r->msg);
}

/* Calls `call()` on the executing rank (or the host) and reports what it
 * raised; steals the reference to `call`. */
static void run_python(PyObject *call, const char *who)
{
    PyGILState_STATE st = PyGILState_UNLOCKED;
    PyThreadState *own = NULL;
    if (coroutines) {
        /* this rank's Python in a library call that runs this, or none */
        pld_guard *g = pld_guard_innermost();
        PyThreadState *parked = g ? g->data : NULL;
        if (!parked && !(own = PyThreadState_New(interp)))
            Py_FatalError("_pldsim: no memory for a rank's thread state");
        pldsim_resume(parked ? parked : own);
    } else {
        st = PyGILState_Ensure();
    }
    PyObject *res = PyObject_CallNoArgs(call);
    Py_DECREF(call);
    struct report r;
    int failed = 0;
    if (res)
        Py_DECREF(res);
    else if (describe(who, &r)) {
        failed = 1;
        if (r.python_error && !pld_run_aborting())
            python_error_first = 1;
    }
    if (!coroutines) {
        PyGILState_Release(st);
    } else if (own) {
        PyThreadState_Clear(own);
        PyThreadState_DeleteCurrent(); /* and releases the GIL */
    } else {
        PyEval_SaveThread(); /* back to the library call that ran it */
    }
    if (failed)
        fail_with(&r);
}

static void task_trampoline(const void *p)
{
    const struct task_args *a = p;
    run_python(a->call, a->who);
}

static void host_trampoline(const void *p)
{
    const struct task_args *a = p;
    Py_INCREF(a->call); /* the caller of pld_run keeps its own */
    run_python(a->call, a->who);
}

/* set_reporter(callable) */
static PyObject *py_set_reporter(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyCallable_Check(arg))
        return PyErr_Format(PyExc_TypeError, "the reporter must be callable");
    Py_XDECREF(reporter);
    Py_INCREF(arg);
    reporter = arg;
    Py_RETURN_NONE;
}

/* Keeps the option strings that pld_config points into for the process's
 * lifetime: one run per process on the simulator. */
static char *keep_str(const char *s)
{
    char *c = strdup(s);
    if (!c)
        abort();
    return c;
}

/* Parses pldsim's common flags `options` (a list of str) into `cfg` with
 * libpld's parser, which checks them and explains a bad one.  The strings
 * are kept for the process's lifetime, since pld_config points into them
 * (a process makes one run on the simulator).  Returns 0, a PLD_E* code
 * after libpld's message, or -1 with a Python exception set. */
static int parse_options(PyObject *options, pld_config *cfg)
{
    PyObject *fast = PySequence_Fast(options, "options must be a list of str");
    if (!fast)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    char **argv = calloc((size_t)n + 2, sizeof *argv);
    if (!argv) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    argv[0] = keep_str("pldsim-py");
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(fast, i);
        const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
        if (!s) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_TypeError, "options must be a list of str");
            return -1;
        }
        argv[i + 1] = keep_str(s);
    }
    Py_DECREF(fast);
    int argc = (int)n + 1;
    int rc = pld_parse_args(cfg, &argc, argv);
    if (rc > 0) /* --help among the options */
        rc = PLD_EUSAGE;
    if (!rc && argc > 1) {
        fprintf(stderr, "pldsim: unknown pldsim option '%s' (see pldsim-py --help)\n", argv[1]);
        rc = PLD_EUSAGE;
    }
    return rc;
}

/* run(options, platform, device_list, who, host[, kept, reset])
 *     -> (rc, python_error, stats, kept after)
 * options: pldsim's common flags as argv words (validated by libpld);
 * platform: the program's platform (the options may override it);
 * device_list: "0,1,2,3"; host: called as the host orchestrator; kept:
 * None, or the bytes of a pld_windows store (b"" for an empty one) whose
 * windows the run starts from (zeroed if reset) and which it returns,
 * updated, as bytes (None without one). */
static PyObject *py_run(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *options, *host, *kept = Py_None;
    const char *platform, *devices, *who;
    int reset = 0;
    if (!PyArg_ParseTuple(args, "OzssO|Op", &options, &platform, &devices, &who, &host, &kept,
                          &reset))
        return NULL;
    if (kept != Py_None && !PyBytes_Check(kept))
        return PyErr_Format(PyExc_TypeError, "kept windows must be bytes or None");
    if (!PyCallable_Check(host))
        return PyErr_Format(PyExc_TypeError, "the host function must be callable");
    static pld_config cfg; /* big (the device list): not on the stack */
    pld_config_init(&cfg);
    if (platform)
        cfg.platform = keep_str(platform);
    int rc = pld_config_set_devices(&cfg, devices);
    if (!rc)
        rc = parse_options(options, &cfg);
    if (rc == -1)
        return NULL;
    if (!rc && strcmp(cfg.backend, "sim") == 0) {
        const char *f = getenv("PLDSIM_PY_CONTEXTS");
        cfg.context_factory = f && *f ? keep_str(f) : NULL;
        if (!pldsim_gilstate_can_bind())
            cfg.context_factory = "thread";
    }
    if (rc)
        return Py_BuildValue("iiOO", rc, 0, Py_None, Py_None);
    pld_windows *store = NULL;
    if (kept != Py_None) {
        store = pld_windows_new();
        if (!store)
            return PyErr_NoMemory();
        if (PyBytes_GET_SIZE(kept) > 0 &&
            pld_windows_load(store, (const unsigned char *)PyBytes_AS_STRING(kept),
                             (size_t)PyBytes_GET_SIZE(kept))) {
            pld_windows_free(store);
            return PyErr_Format(PyExc_ValueError, "kept windows: not the bytes of a store");
        }
        cfg.keep_windows = store;
        cfg.reset_kept_windows = reset;
    }

    PyObject *who_s = PyUnicode_FromString(who);
    const char *who_c = who_s ? pldsim_intern(who_s) : NULL;
    Py_XDECREF(who_s);
    if (!who_c) {
        pld_windows_free(store);
        return NULL;
    }
    struct task_args host_args = {host, who_c};
    python_error_first = 0;
    coroutines = strcmp(cfg.backend, "sim") == 0 &&
                 !(cfg.context_factory && strcmp(cfg.context_factory, "thread") == 0);
    interp = PyInterpreterState_Get();
    PyThreadState *main_ts = PyEval_SaveThread();
    rc = pld_run(&cfg, host_trampoline, &host_args);
    if (coroutines)
        pldsim_gilstate_bind(main_ts); /* the ranks' thread states are gone */
    coroutines = 0;
    PyEval_RestoreThread(main_ts);

    pld_run_stats st;
    pld_last_run_stats(&st);
    PyObject *after = Py_None;
    Py_INCREF(after);
    if (store) {
        unsigned char *bytes;
        size_t len;
        int src = pld_windows_save(store, &bytes, &len);
        pld_windows_free(store);
        if (src)
            return PyErr_NoMemory();
        Py_DECREF(after);
        after = PyBytes_FromStringAndSize((const char *)bytes, (Py_ssize_t)len);
        free(bytes);
        if (!after)
            return NULL;
    }
    return Py_BuildValue("ii{sdsKsisKsisi}N", rc, python_error_first, "time_s", st.time_s,
                         "bytes_moved", (unsigned long long)st.bytes_moved, "nranks", st.nranks,
                         "transfers", (unsigned long long)st.transfers, "domains", st.domains,
                         "domains_allocated", st.domains_allocated, after);
}

/* check_options(options) -> rc: parses pldsim's flags as a run would,
 * printing libpld's message for a bad one (so a runner can refuse them
 * before the program starts).  0 when they are all good. */
static PyObject *py_check_options(PyObject *self, PyObject *arg)
{
    (void)self;
    static pld_config cfg; /* big (the device list): not on the stack */
    pld_config_init(&cfg);
    int rc = parse_options(arg, &cfg);
    return rc == -1 ? NULL : PyLong_FromLong(rc);
}

/* dispatch(file, line, rank, name, call): runs call() on device `rank`. */
static PyObject *py_dispatch(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *file, *name, *call;
    int line;
    long long rank;
    if (!PyArg_ParseTuple(args, "UiLUO", &file, &line, &rank, &name, &call))
        return NULL;
    const char *f = pldsim_intern(file), *nm = pldsim_intern(name);
    if (!f || !nm)
        return NULL;
    Py_INCREF(call);
    struct task_args ta = {call, nm};
    PLDSIM_CALL(pld__dispatch(f, line, (int64_t)rank, nm, task_trampoline, &ta, sizeof ta));
    Py_RETURN_NONE;
}

/* scope_begin(file, line) / scope_end(file, line): a manual scope. */
static PyObject *py_scope(PyObject *args, int begin)
{
    PyObject *file;
    int line;
    if (!PyArg_ParseTuple(args, "Ui", &file, &line))
        return NULL;
    const char *f = pldsim_intern(file);
    if (!f)
        return NULL;
    if (begin)
        PLDSIM_CALL(pld__scope_begin(f, line));
    else
        PLDSIM_CALL(pld__scope_end(f, line));
    Py_RETURN_NONE;
}

static PyObject *py_scope_begin(PyObject *self, PyObject *args)
{
    (void)self;
    return py_scope(args, 1);
}

static PyObject *py_scope_end(PyObject *self, PyObject *args)
{
    (void)self;
    return py_scope(args, 0);
}

/* at(file, line, name, call, deps[, cube[, block]]) -> (scope, index):
 * submits call() as a task of the rank's manual scope (or runs it now,
 * outside one); `deps` is a sequence of earlier results; `block`: a later
 * block of the SPMD task submitted last.  call() enters its kernel itself. */
static PyObject *py_at(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *file, *name, *call, *deps;
    int line, cube = 0, block = 0;
    if (!PyArg_ParseTuple(args, "UiUOO|pp", &file, &line, &name, &call, &deps, &cube, &block))
        return NULL;
    const char *f = pldsim_intern(file), *nm = pldsim_intern(name);
    if (!f || !nm)
        return NULL;
    PyObject *seq = PySequence_Fast(deps, "deps must be a sequence of task ids");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    pld_task_id *ids = PyMem_Calloc((size_t)n + 1, sizeof *ids);
    if (!ids) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "ii", &ids[k].scope,
                              &ids[k].index)) {
            PyMem_Free(ids);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    Py_INCREF(call);
    struct task_args ta = {call, nm};
    pld_task_id id = {0};
    PLDSIM_CALL(
        id = pld__at_task(f, line, nm, task_trampoline, &ta, sizeof ta, ids, n, 0, cube, block));
    PyMem_Free(ids);
    return Py_BuildValue("(ii)", id.scope, id.index);
}

/* incore_enter(file, line, name) / incore_exit(): around a kernel's body. */
static PyObject *py_incore_enter(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *file, *name;
    int line;
    if (!PyArg_ParseTuple(args, "UiU", &file, &line, &name))
        return NULL;
    const char *f = pldsim_intern(file), *nm = pldsim_intern(name);
    if (!f || !nm)
        return NULL;
    PLDSIM_CALL(pld__incore_enter(f, line, nm));
    Py_RETURN_NONE;
}

static PyObject *py_incore_exit(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PLDSIM_CALL(pld__incore_exit());
    Py_RETURN_NONE;
}

/* incore_unwind(): a Python exception leaves the kernel (pld_embed.h). */
static PyObject *py_incore_unwind(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    pld_embed_incore_unwind();
    Py_RETURN_NONE;
}

/* world_size(file, line) */
static PyObject *py_world_size(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *file;
    int line;
    int64_t v = 0;
    if (!PyArg_ParseTuple(args, "Ui", &file, &line))
        return NULL;
    const char *f = pldsim_intern(file);
    if (!f)
        return NULL;
    PLDSIM_CALL(v = pld__world_size(f, line));
    return PyLong_FromLongLong(v);
}

static PyObject *py_self(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(pld_embed_self());
}

static PyObject *py_ub_usable(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyFloat_FromDouble(pld_embed_ub_usable());
}

static PyObject *py_aborting(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(pld_run_aborting());
}

static PyObject *py_time(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyFloat_FromDouble(pld_time());
}

/* die_with_parent(parent_pid): in a forked sim child, ties its life to the
 * parent's.  A SIGKILL (or any death) of the process that forked it must
 * not leave a simulation running, adopted by init, that nobody will read.
 * Linux's PR_SET_PDEATHSIG does it; the parent may have died before the
 * call, so that is checked after it.  Returns True if the child should go
 * on, False if its parent is already gone.  Elsewhere, always True: the
 * parent's handlers (isolate.py) still stop it on SIGINT and SIGTERM. */
static PyObject *py_die_with_parent(PyObject *self, PyObject *arg)
{
    (void)self;
    long parent = PyLong_AsLong(arg);
    if (parent == -1 && PyErr_Occurred())
        return NULL;
#ifdef __linux__
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    if ((long)getppid() != parent)
        Py_RETURN_FALSE;
#endif
    Py_RETURN_TRUE;
}

/* exit_code(rc): the process status pldsim gives a run's result. */
static PyObject *py_exit_code(PyObject *self, PyObject *arg)
{
    (void)self;
    long rc = PyLong_AsLong(arg);
    if (rc == -1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromLong(pld_exit_code((int)rc));
}

/* usage(): pldsim's common options, as the C programs print them. */
static PyObject *py_usage(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return PyErr_NoMemory();
    pld_print_common_usage(f);
    fclose(f);
    PyObject *s = PyUnicode_FromStringAndSize(buf, (Py_ssize_t)len);
    free(buf);
    return s;
}

PyMethodDef pldsim_run_methods[] = {
    {"set_reporter", py_set_reporter, METH_O, "set_reporter(fn): formats Python errors of ranks"},
    {"check_options", py_check_options, METH_O, "check_options(options) -> 0 or a PLD_E* code"},
    {"run", py_run, METH_VARARGS,
     "run(options, platform, devices, who, host[, kept, reset]) -> (rc, pyerr, stats, kept)"},
    {"dispatch", py_dispatch, METH_VARARGS, "dispatch(file, line, rank, name, call)"},
    {"incore_enter", py_incore_enter, METH_VARARGS, "incore_enter(file, line, kernel_name)"},
    {"scope_begin", py_scope_begin, METH_VARARGS, "scope_begin(file, line): opens a manual scope"},
    {"scope_end", py_scope_end, METH_VARARGS, "scope_end(file, line): runs its task graph"},
    {"at", py_at, METH_VARARGS,
     "at(file, line, name, call, deps[, cube]) -> (scope, index); cube: on an AIC core"},
    {"incore_exit", py_incore_exit, METH_NOARGS, "incore_exit()"},
    {"incore_unwind", py_incore_unwind, METH_NOARGS, "incore_unwind()"},
    {"world_size", py_world_size, METH_VARARGS, "world_size(file, line) -> int"},
    {"self", py_self, METH_NOARGS, "the executing rank, -1 on the host, -2 outside a run"},
    {"ub_usable", py_ub_usable, METH_NOARGS,
     "the UB bytes a kernel of the executing rank may use (0: none)"},
    {"aborting", py_aborting, METH_NOARGS, "whether the run is ending after an error"},
    {"time", py_time, METH_NOARGS, "seconds since the run started (simulated on sim)"},
    {"die_with_parent", py_die_with_parent, METH_O,
     "die_with_parent(parent_pid) -> False if the parent is gone (a forked sim child)"},
    {"exit_code", py_exit_code, METH_O, "exit_code(rc) -> the process status for a run result"},
    {"usage", py_usage, METH_NOARGS, "the help text of pldsim's common options"},
    {NULL, NULL, 0, NULL},
};
