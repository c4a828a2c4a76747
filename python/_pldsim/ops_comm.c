/* ops_comm.c: the cross-rank calls: notify/wait, tile-level remote
 * load/store, tensor-level put/get, and the builtin collectives.  Enum
 * arguments arrive as libpld's codes (the pypto package maps upstream's). */
#include "core.h"

/* notify(file, line, target, peer, offsets, value, op) */
static PyObject *py_notify(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *target, *off;
    long long peer, value;
    int op;
    if (!PyArg_ParseTuple(args, SRC_FMT "OLOLi", SRC_PTRS, &target, &peer, &off, &value, &op))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(target, "target");
    struct pld_notify_kw kw = {.peer = peer, .value = value, .op = (pld_notify_op)op};
    if (!t || pldsim_shape(off, &kw.offsets, "offsets"))
        return NULL;
    pl_tensor tv = *t;
    PLDSIM_CALL(pld__notify(file, line, tv, kw));
    Py_RETURN_NONE;
}

/* wait(file, line, signal, offsets, expected, cmp), and defer_wait with
 * the same arguments: both take a wait's keywords. */
static PyObject *wait_like(PyObject *args,
                           void (*op)(const char *, int, pld_dtensor, struct pld_wait_kw))
{
    SRC_ARGS
    PyObject *sig, *off;
    long long expected;
    int cmp;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOLi", SRC_PTRS, &sig, &off, &expected, &cmp))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(sig, "signal");
    struct pld_wait_kw kw = {.expected = expected, .cmp = (pld_wait_cmp)cmp};
    if (!t || pldsim_shape(off, &kw.offsets, "offsets"))
        return NULL;
    pl_tensor tv = *t;
    PLDSIM_CALL(op(file, line, tv, kw));
    Py_RETURN_NONE;
}

static PyObject *py_wait(PyObject *self, PyObject *args)
{
    (void)self;
    return wait_like(args, pld__wait);
}

/* defer_next(file, line): the next collective is split-phase (defer=True) */
static PyObject *py_defer_next(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    if (!PyArg_ParseTuple(args, SRC_FMT, SRC_PTRS))
        return NULL;
    SRC_C()
    PLDSIM_CALL(pld__defer_next(file, line));
    Py_RETURN_NONE;
}

static PyObject *py_defer_wait(PyObject *self, PyObject *args)
{
    (void)self;
    return wait_like(args, pld__defer_wait);
}

/* remote_load(file, line, target, peer, offsets, shape, valid_shape or None) -> Tile */
static PyObject *py_remote_load(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *target, *off, *shape, *valid;
    long long peer;
    if (!PyArg_ParseTuple(args, SRC_FMT "OLOOO", SRC_PTRS, &target, &peer, &off, &shape, &valid))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(target, "target");
    struct pld_remote_load_kw kw = {.peer = peer};
    if (!t || pldsim_shape(off, &kw.offsets, "offsets") ||
        pldsim_shape(shape, &kw.shape, "shape") ||
        (valid != Py_None && pldsim_shape(valid, &kw.valid_shape, "valid_shape")))
        return NULL;
    pl_tensor tv = *t;
    pl_tile r;
    PLDSIM_CALL(r = pld__remote_load(file, line, tv, kw));
    return pldsim_new_tile(r);
}

/* remote_store(file, line, tile, target, peer, offsets, atomic) */
static PyObject *py_remote_store(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *tile, *target, *off;
    long long peer;
    int atomic;
    PyObject *opname = NULL;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOLOi|U", SRC_PTRS, &tile, &target, &peer, &off, &atomic,
                          &opname))
        return NULL;
    SRC_C()
    const char *op = opname ? pldsim_intern(opname) : "pld_tile_remote_store";
    if (!op)
        return NULL;
    pl_tile *tl = pldsim_tile(tile, "src_tile");
    pl_tensor *t = tl ? pldsim_view(target, "target") : NULL;
    struct pld_remote_store_kw kw = {.peer = peer, .atomic = (pl_atomic)atomic};
    if (!t || pldsim_shape(off, &kw.offsets, "offsets"))
        return NULL;
    pl_tile tv = *tl;
    pl_tensor dv = *t;
    PLDSIM_CALL(pld_embed_remote_store(file, line, op, tv, dv, kw));
    Py_RETURN_NONE;
}

/* tensor_remote_store(file, line, src, target, peer, offsets, atomic): src
 * a host tensor's view (libpld refuses a window view) */
static PyObject *py_tensor_remote_store(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *src, *target, *off;
    long long peer;
    int atomic;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOLOi", SRC_PTRS, &src, &target, &peer, &off, &atomic))
        return NULL;
    SRC_C()
    pl_tensor *s = pldsim_view(src, "src");
    pl_tensor *t = s ? pldsim_view(target, "target") : NULL;
    struct pld_remote_store_kw kw = {.peer = peer, .atomic = (pl_atomic)atomic};
    if (!t || pldsim_shape(off, &kw.offsets, "offsets"))
        return NULL;
    pl_tensor sv = *s, dv = *t;
    PLDSIM_CALL(pld__tensor_remote_store(file, line, sv, dv, kw));
    Py_RETURN_NONE;
}

/* Fills the region and chunk keywords shared by put and get. */
static int p2p_kw(struct pld_p2p_kw *kw, PyObject *dst_off, PyObject *src_off, PyObject *shape)
{
    if (dst_off != Py_None && pldsim_shape(dst_off, &kw->dst_offsets, "dst_offsets"))
        return -1;
    if (src_off != Py_None && pldsim_shape(src_off, &kw->src_offsets, "src_offsets"))
        return -1;
    if (shape != Py_None && pldsim_shape(shape, &kw->shape, "shape"))
        return -1;
    return 0;
}

/* put(file, line, dst, peer, src, dst_offsets, src_offsets, shape, atomic,
 *     chunk_rows, chunk_cols, pipeline) and get(...) without atomic; the
 * region arguments may be None */
static PyObject *p2p(PyObject *args, int is_put)
{
    SRC_ARGS
    PyObject *dst, *src, *doff, *soff, *shape;
    long long peer, rows, cols;
    int atomic = PL_ATOMIC_NONE, pipeline, ok;
    if (is_put)
        ok = PyArg_ParseTuple(args, SRC_FMT "OLOOOOiLLp", SRC_PTRS, &dst, &peer, &src, &doff, &soff,
                              &shape, &atomic, &rows, &cols, &pipeline);
    else
        ok = PyArg_ParseTuple(args, SRC_FMT "OLOOOOLLp", SRC_PTRS, &dst, &peer, &src, &doff, &soff,
                              &shape, &rows, &cols, &pipeline);
    if (!ok)
        return NULL;
    SRC_C()
    pl_tensor *d = pldsim_view(dst, "dst"), *s = d ? pldsim_view(src, "src") : NULL;
    struct pld_p2p_kw kw = {.peer = peer,
                            .atomic = (pl_atomic)atomic,
                            .chunk_rows = rows,
                            .chunk_cols = cols,
                            .pipeline = pipeline};
    if (!s || p2p_kw(&kw, doff, soff, shape))
        return NULL;
    kw.src = *s;
    pl_tensor dv = *d;
    if (is_put)
        PLDSIM_CALL(pld__put(file, line, dv, kw));
    else
        PLDSIM_CALL(pld__get(file, line, dv, kw));
    Py_RETURN_NONE;
}

static PyObject *py_put(PyObject *self, PyObject *args)
{
    (void)self;
    return p2p(args, 1);
}

static PyObject *py_get(PyObject *self, PyObject *args)
{
    (void)self;
    return p2p(args, 0);
}

/* tile_put(file, line, dst, peer, src, stage, stage2 or None, dst_offsets,
 *          src_offsets, shape, atomic) and tile_get(...) without atomic */
static PyObject *tile_p2p(PyObject *args, int is_put)
{
    SRC_ARGS
    PyObject *dst, *src, *stage, *stage2, *doff, *soff, *shape;
    long long peer;
    int atomic = PL_ATOMIC_NONE, ok;
    if (is_put)
        ok = PyArg_ParseTuple(args, SRC_FMT "OLOOOOOOi", SRC_PTRS, &dst, &peer, &src, &stage,
                              &stage2, &doff, &soff, &shape, &atomic);
    else
        ok = PyArg_ParseTuple(args, SRC_FMT "OLOOOOOO", SRC_PTRS, &dst, &peer, &src, &stage,
                              &stage2, &doff, &soff, &shape);
    if (!ok)
        return NULL;
    SRC_C()
    pl_tensor *d = pldsim_view(dst, "dst"), *s = d ? pldsim_view(src, "src") : NULL;
    pl_tile *st = s ? pldsim_tile(stage, "stage") : NULL;
    pl_tile *st2 = st && stage2 != Py_None ? pldsim_tile(stage2, "stage2") : NULL;
    if (!st || (stage2 != Py_None && !st2))
        return NULL;
    struct pld_p2p_kw region = {0};
    if (p2p_kw(&region, doff, soff, shape))
        return NULL;
    struct pld_tile_p2p_kw kw = {.peer = peer,
                                 .src = *s,
                                 .stage = *st,
                                 .stage2 = st2 ? *st2 : (pl_tile){0},
                                 .dst_offsets = region.dst_offsets,
                                 .src_offsets = region.src_offsets,
                                 .shape = region.shape,
                                 .atomic = (pl_atomic)atomic};
    pl_tensor dv = *d;
    if (is_put)
        PLDSIM_CALL(pld__tile_put(file, line, dv, kw));
    else
        PLDSIM_CALL(pld__tile_get(file, line, dv, kw));
    Py_RETURN_NONE;
}

static PyObject *py_tile_put(PyObject *self, PyObject *args)
{
    (void)self;
    return tile_p2p(args, 1);
}

static PyObject *py_tile_get(PyObject *self, PyObject *args)
{
    (void)self;
    return tile_p2p(args, 0);
}

/* barrier(file, line, signal) */
static PyObject *py_barrier(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *sig;
    if (!PyArg_ParseTuple(args, SRC_FMT "O", SRC_PTRS, &sig))
        return NULL;
    SRC_C()
    pl_tensor *s = pldsim_view(sig, "signal");
    if (!s)
        return NULL;
    pl_tensor sv = *s;
    PLDSIM_CALL(pld__tensor_barrier(file, line, sv));
    Py_RETURN_NONE;
}

/* allreduce(file, line, target, signal, op, mode) */
static PyObject *py_allreduce(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *target, *sig;
    int op, mode;
    long long cores = 1;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOii|L", SRC_PTRS, &target, &sig, &op, &mode, &cores))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(target, "target"), *s = t ? pldsim_view(sig, "signal") : NULL;
    if (!s)
        return NULL;
    pl_tensor tv = *t, sv = *s;
    struct pld_allreduce_kw kw = {
        .op = (pld_reduce_op)op, .mode = (pld_allreduce_mode)mode, .core_num = cores};
    PLDSIM_CALL(pld__tensor_allreduce(file, line, tv, sv, kw));
    Py_RETURN_NONE;
}

/* broadcast(file, line, target, signal, root) */
static PyObject *py_broadcast(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *target, *sig;
    long long root;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOL", SRC_PTRS, &target, &sig, &root))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(target, "target"), *s = t ? pldsim_view(sig, "signal") : NULL;
    if (!s)
        return NULL;
    pl_tensor tv = *t, sv = *s;
    struct pld_broadcast_kw kw = {.root = root};
    PLDSIM_CALL(pld__tensor_broadcast(file, line, tv, sv, kw));
    Py_RETURN_NONE;
}

/* reduce_scatter(file, line, target, signal, op) */
static PyObject *py_reduce_scatter(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *target, *sig;
    int op;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOi", SRC_PTRS, &target, &sig, &op))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(target, "target"), *s = t ? pldsim_view(sig, "signal") : NULL;
    if (!s)
        return NULL;
    pl_tensor tv = *t, sv = *s;
    struct pld_reduce_scatter_kw kw = {.op = (pld_reduce_op)op};
    PLDSIM_CALL(pld__tensor_reduce_scatter(file, line, tv, sv, kw));
    Py_RETURN_NONE;
}

/* allgather(file, line, local, target, signal) and
 * all_to_all(file, line, input, target, signal) */
static PyObject *exchange(PyObject *args, int to_all)
{
    SRC_ARGS
    PyObject *local, *target, *sig;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOO", SRC_PTRS, &local, &target, &sig))
        return NULL;
    SRC_C()
    pl_tensor *l = pldsim_view(local, to_all ? "input" : "local_data");
    pl_tensor *t = l ? pldsim_view(target, "target") : NULL;
    pl_tensor *s = t ? pldsim_view(sig, "signal") : NULL;
    if (!s)
        return NULL;
    pl_tensor lv = *l, tv = *t, sv = *s;
    if (to_all)
        PLDSIM_CALL(pld__tensor_all_to_all(file, line, lv, tv, sv));
    else
        PLDSIM_CALL(pld__tensor_allgather(file, line, lv, tv, sv));
    Py_RETURN_NONE;
}

static PyObject *py_allgather(PyObject *self, PyObject *args)
{
    (void)self;
    return exchange(args, 0);
}

static PyObject *py_all_to_all(PyObject *self, PyObject *args)
{
    (void)self;
    return exchange(args, 1);
}

/* all_to_all_v(file, line, input, target, signal, send_counts, recv_counts, core_num) */
static PyObject *py_all_to_all_v(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *input, *target, *sig, *send, *recv;
    long long core_num;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOOOOL", SRC_PTRS, &input, &target, &sig, &send, &recv,
                          &core_num))
        return NULL;
    SRC_C()
    pl_tensor *i = pldsim_view(input, "input");
    pl_tensor *t = i ? pldsim_view(target, "target") : NULL;
    pl_tensor *s = t ? pldsim_view(sig, "signal") : NULL;
    pl_tensor *sc = s ? pldsim_view(send, "send_counts") : NULL;
    pl_tensor *rc = sc ? pldsim_view(recv, "recv_counts") : NULL;
    if (!rc)
        return NULL;
    pl_tensor iv = *i, tv = *t, sv = *s, scv = *sc, rcv = *rc;
    struct pld_all_to_all_v_kw kw = {.core_num = core_num};
    PLDSIM_CALL(pld__tensor_all_to_all_v(file, line, iv, tv, sv, scv, rcv, kw));
    Py_RETURN_NONE;
}

/* Sessions and events cross into Python as plain tuples (what the C
 * handles hold); pldsim.comm wraps them in AsyncSession and AsyncEvent. */
static PyObject *session_tuple(pld_async_session s)
{
    return Py_BuildValue("(iiKiL)", s.id, s.rank, (unsigned long long)s.epoch, s.sync_id,
                         (long long)s.block_bytes);
}

static int session_of(PyObject *o, pld_async_session *s)
{
    unsigned long long epoch;
    long long block;
    if (!PyArg_ParseTuple(o, "iiKiL", &s->id, &s->rank, &epoch, &s->sync_id, &block))
        return -1;
    s->epoch = epoch;
    s->block_bytes = block;
    return 0;
}

/* async_session(file, line, sync_id, block_bytes) -> session tuple */
static PyObject *py_async_session(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    long long sync_id, block;
    if (!PyArg_ParseTuple(args, SRC_FMT "LL", SRC_PTRS, &sync_id, &block))
        return NULL;
    SRC_C()
    struct pld_async_session_kw kw = {.sync_id = sync_id, .block_bytes = block};
    pld_async_session s = {0};
    PLDSIM_CALL(s = pld__async_session(file, line, kw));
    return session_tuple(s);
}

/* put_async(file, line, dst, peer, src, session, dst_offsets, src_offsets,
 *           shape) -> event tuple (id, session, rank); the region may be None */
static PyObject *py_put_async(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *dst, *src, *sess, *doff, *soff, *shape;
    long long peer;
    if (!PyArg_ParseTuple(args, SRC_FMT "OLOO!OOO", SRC_PTRS, &dst, &peer, &src, &PyTuple_Type,
                          &sess, &doff, &soff, &shape))
        return NULL;
    SRC_C()
    pl_tensor *d = pldsim_view(dst, "dst"), *sv = d ? pldsim_view(src, "src") : NULL;
    struct pld_p2p_kw region = {0};
    struct pld_put_async_kw kw = {.peer = peer};
    if (!sv || session_of(sess, &kw.session) || p2p_kw(&region, doff, soff, shape))
        return NULL;
    kw.src = *sv;
    kw.dst_offsets = region.dst_offsets;
    kw.src_offsets = region.src_offsets;
    kw.shape = region.shape;
    pl_tensor dv = *d;
    pld_async_event e = {0};
    PLDSIM_CALL(e = pld__put_async(file, line, dv, kw));
    return Py_BuildValue("(Lii)", (long long)e.id, e.session, e.rank);
}

/* wait_async_event(file, line, event, session) -> True */
static PyObject *py_wait_async_event(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *ev, *sess;
    if (!PyArg_ParseTuple(args, SRC_FMT "O!O!", SRC_PTRS, &PyTuple_Type, &ev, &PyTuple_Type, &sess))
        return NULL;
    SRC_C()
    pld_async_event e = {0};
    pld_async_session s = {0};
    long long id;
    if (!PyArg_ParseTuple(ev, "Lii", &id, &e.session, &e.rank) || session_of(sess, &s))
        return NULL;
    e.id = id;
    int done = 0;
    PLDSIM_CALL(done = pld__wait_async_event(file, line, e, s));
    return PyBool_FromLong(done);
}

PyMethodDef pldsim_comm_methods[] = {
    {"notify", py_notify, METH_VARARGS, "notify(file, line, target, peer, offsets, value, op)"},
    {"wait", py_wait, METH_VARARGS, "wait(file, line, signal, offsets, expected, cmp)"},
    {"defer_next", py_defer_next, METH_VARARGS, "defer_next(file, line)"},
    {"defer_wait", py_defer_wait, METH_VARARGS,
     "defer_wait(file, line, signal, offsets, expected, cmp)"},
    {"remote_load", py_remote_load, METH_VARARGS,
     "remote_load(file, line, target, peer, offsets, shape) -> Tile"},
    {"remote_store", py_remote_store, METH_VARARGS,
     "remote_store(file, line, tile, target, peer, offsets, atomic)"},
    {"tensor_remote_store", py_tensor_remote_store, METH_VARARGS,
     "tensor_remote_store(file, line, src, target, peer, offsets, atomic)"},
    {"put", py_put, METH_VARARGS,
     "put(file, line, dst, peer, src, dst_off, src_off, shape, atomic, rows, cols, pipeline)"},
    {"get", py_get, METH_VARARGS,
     "get(file, line, dst, peer, src, dst_off, src_off, shape, rows, cols, pipeline)"},
    {"tile_put", py_tile_put, METH_VARARGS,
     "tile_put(file, line, dst, peer, src, stage, stage2, dst_off, src_off, shape, atomic)"},
    {"tile_get", py_tile_get, METH_VARARGS,
     "tile_get(file, line, dst, peer, src, stage, stage2, dst_off, src_off, shape)"},
    {"async_session", py_async_session, METH_VARARGS,
     "async_session(file, line, sync_id, block_bytes) -> session"},
    {"put_async", py_put_async, METH_VARARGS,
     "put_async(file, line, dst, peer, src, session, dst_off, src_off, shape) -> event"},
    {"wait_async_event", py_wait_async_event, METH_VARARGS,
     "wait_async_event(file, line, event, session) -> bool"},
    {"barrier", py_barrier, METH_VARARGS, "barrier(file, line, signal)"},
    {"allreduce", py_allreduce, METH_VARARGS,
     "allreduce(file, line, target, signal, op, mode[, core_num])"},
    {"broadcast", py_broadcast, METH_VARARGS, "broadcast(file, line, target, signal, root)"},
    {"reduce_scatter", py_reduce_scatter, METH_VARARGS,
     "reduce_scatter(file, line, target, signal, op)"},
    {"allgather", py_allgather, METH_VARARGS, "allgather(file, line, local, target, signal)"},
    {"all_to_all", py_all_to_all, METH_VARARGS, "all_to_all(file, line, input, target, signal)"},
    {"all_to_all_v", py_all_to_all_v, METH_VARARGS,
     "all_to_all_v(file, line, input, target, signal, send_counts, recv_counts, core_num)"},
    {NULL, NULL, 0, NULL},
};
