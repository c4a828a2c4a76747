/* ops_local.c: the local vocabulary (pl.load, pl.store, the element-wise
 * ops, pl.read/write/cast), host tensors, and the system and window calls
 * of pld, each one libpld entry point with the Python caller's file:line.
 * Every function takes (file, line, ...) first. */
#include "core.h"

/* host_view(dtype, shape, data_ptr, name, keep[, layout[, array_bytes]])
 * -> View: a host tensor's memory (a torch tensor that `keep` owns):
 * dense, or with `layout`, a strided view whose rows lie in a row-major
 * array of that shape (a slice of a dense tensor); `array_bytes` (0: not
 * known) the bytes of the whole array, which a slice's layout may not say. */
static PyObject *py_host_view(PyObject *self, PyObject *args)
{
    (void)self;
    int dtype;
    PyObject *shape, *name, *keep, *layout = Py_None;
    unsigned long long ptr;
    double array_bytes = 0;
    if (!PyArg_ParseTuple(args, "iOKUO|Od", &dtype, &shape, &ptr, &name, &keep, &layout,
                          &array_bytes))
        return NULL;
    if (!(array_bytes >= 0) || !isfinite(array_bytes))
        return PyErr_Format(PyExc_ValueError, "array_bytes %g: expected a size in bytes, >= 0",
                            array_bytes);
    pl_tensor t;
    memset(&t, 0, sizeof t);
    if (pldsim_shape(shape, &t.shape, "a host tensor's shape"))
        return NULL;
    if (layout != Py_None) {
        if (pldsim_shape(layout, &t.layout, "a host tensor's layout"))
            return NULL;
        if (t.layout.ndim != t.shape.ndim)
            return PyErr_Format(PyExc_ValueError, "layout has %d dims but the shape has %d",
                                t.layout.ndim, t.shape.ndim);
    }
    if (pl_dtype_size((pl_dtype)dtype) == 0)
        return PyErr_Format(PyExc_ValueError, "dtype code %d is not one pldsim knows", dtype);
    t.dtype = (pl_dtype)dtype;
    t.data = (void *)(uintptr_t)ptr;
    t.name = pldsim_intern(name);
    if (!t.name)
        return NULL;
    PyObject *v = pldsim_new_view(t, keep);
    if (v)
        ((ViewObject *)v)->array_bytes = array_bytes;
    return v;
}

/* alloc(file, line, bytes or None, shape or None, dtype, name) -> Buffer */
static PyObject *py_alloc(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *bytes, *shape, *name, *group = Py_None;
    int dtype;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOiU|O", SRC_PTRS, &bytes, &shape, &dtype, &name, &group))
        return NULL;
    SRC_C()
    /* the devices of the buffer's comm domain, or None for the world */
    int *ranks = NULL, nranks = 0;
    if (group != Py_None) {
        PyObject *seq = PySequence_Fast(group, "group must be a sequence of device ranks");
        if (!seq)
            return NULL;
        nranks = (int)PySequence_Fast_GET_SIZE(seq);
        ranks = PyMem_Malloc(((size_t)nranks + 1) * sizeof *ranks);
        for (int i = 0; ranks && i < nranks; i++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(seq);
                PyMem_Free(ranks);
                return NULL;
            }
            ranks[i] = (int)v;
        }
        Py_DECREF(seq);
        if (!ranks)
            return PyErr_NoMemory();
    }
    pld__alloc_arg what;
    if (shape != Py_None) {
        pl_shape s;
        if (pldsim_shape(shape, &s, "shape"))
            return NULL;
        what = pld__alloc_shape_arg(s);
    } else {
        long long b = PyLong_AsLongLong(bytes);
        if (b == -1 && PyErr_Occurred())
            return NULL;
        what = pld__alloc_bytes_arg(b);
    }
    struct pld_alloc_kw kw = {.dtype = (pl_dtype)dtype, .name = pldsim_intern(name)};
    if (!kw.name) {
        PyMem_Free(ranks);
        return NULL;
    }
    pld_buffer buf;
    /* the group is made where the allocation is, so errors name that line */
    PLDSIM_CALL(if (ranks) kw.group = pld__group_of(file, line, nranks, ranks);
                buf = pld__alloc_window_buffer(file, line, what, kw));
    PyMem_Free(ranks);
    BufferObject *o = PyObject_New(BufferObject, &Buffer_Type);
    if (!o)
        return NULL;
    o->buf = buf;
    Py_INCREF(name);
    o->name = name;
    return (PyObject *)o;
}

/* window(file, line, buffer, shape, dtype) -> View */
static PyObject *py_window(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *buf, *shape;
    int dtype;
    if (!PyArg_ParseTuple(args, SRC_FMT "O!Oi", SRC_PTRS, &Buffer_Type, &buf, &shape, &dtype))
        return NULL;
    SRC_C()
    pl_shape s;
    if (pldsim_shape(shape, &s, "shape"))
        return NULL;
    pld_dtensor v;
    pld_buffer b = ((BufferObject *)buf)->buf;
    PLDSIM_CALL(v = pld__window(file, line, b, s, (pl_dtype)dtype));
    return pldsim_new_view(v, NULL);
}

/* view_as(view, shape[, dtype]) -> View: the same window bytes seen with
 * another shape of as many bytes (what a callee whose parameter declares
 * that shape sees; upstream passes the window's address, not its shape),
 * or with `dtype` as another element type (reinterpret_view). */
static PyObject *py_view_as(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *view, *shape;
    int dtype = 0;
    if (!PyArg_ParseTuple(args, "OO|i", &view, &shape, &dtype))
        return NULL;
    pl_tensor *t = pldsim_view(view, "the view");
    pl_shape s;
    if (!t || pldsim_shape(shape, &s, "shape"))
        return NULL;
    if (!t->win)
        return PyErr_Format(PyExc_TypeError, "view_as takes a window view");
    pl_dtype dt = dtype ? (pl_dtype)dtype : t->dtype;
    if (pl_dtype_size(dt) == 0)
        return PyErr_Format(PyExc_ValueError, "view_as: invalid dtype %d", dtype);
    if (dt != t->dtype && t->layout.ndim)
        return PyErr_Format(PyExc_ValueError, "view_as: a strided view cannot change its dtype");
    size_t have = (size_t)pl_shape_numel(t->shape) * pl_dtype_size(t->dtype),
           want = (size_t)pl_shape_numel(s) * pl_dtype_size(dt);
    if (have != want)
        return PyErr_Format(PyExc_ValueError, "view_as: %zu bytes cannot be seen as %zu", have,
                            want);
    pl_tensor v = *t;
    v.dtype = dt;
    v.shape = s;
    return pldsim_new_view(v, NULL);
}

/* comm_ctx(file, line, view) -> (rank, nranks); rank is -1 on the host */
static PyObject *py_comm_ctx(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *view;
    if (!PyArg_ParseTuple(args, SRC_FMT "O", SRC_PTRS, &view))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(view, "the argument of get_comm_ctx");
    if (!t)
        return NULL;
    pl_tensor tv = *t;
    pld_comm_ctx c;
    PLDSIM_CALL(c = pld__get_comm_ctx(file, line, tv));
    return Py_BuildValue("ii", c.rank, c.nranks);
}

/* rank(file, line, rank, nranks) and nranks(...): kernel-only reads */
static PyObject *ctx_read(PyObject *args, int which)
{
    SRC_ARGS
    pld_comm_ctx c;
    if (!PyArg_ParseTuple(args, SRC_FMT "ii", SRC_PTRS, &c.rank, &c.nranks))
        return NULL;
    SRC_C()
    int v;
    PLDSIM_CALL(v = which ? pld__nranks(file, line, c) : pld__rank(file, line, c));
    return PyLong_FromLong(v);
}

static PyObject *py_rank(PyObject *self, PyObject *args)
{
    (void)self;
    return ctx_read(args, 0);
}

static PyObject *py_nranks(PyObject *self, PyObject *args)
{
    (void)self;
    return ctx_read(args, 1);
}

/* load(file, line, view, offsets, shape, valid_shape or None, clamp[, op])
 * -> Tile; `op` names the Python op that loads (a tensor-level op) */
static PyObject *py_load(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *view, *off, *shape, *valid, *opname = NULL;
    int clamp;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOOOp|U", SRC_PTRS, &view, &off, &shape, &valid, &clamp,
                          &opname))
        return NULL;
    SRC_C()
    const char *op = opname ? pldsim_intern(opname) : "pl_load";
    if (!op)
        return NULL;
    pl_tensor *t = pldsim_view(view, "the source of pl.load");
    pl_shape o, s;
    struct pl_load_kw kw = {.clamp = clamp, .array_bytes = pldsim_view_array_bytes(view)};
    if (!t || pldsim_shape(off, &o, "offsets") || pldsim_shape(shape, &s, "shapes") ||
        (valid != Py_None && pldsim_shape(valid, &kw.valid_shape, "valid_shape")))
        return NULL;
    pl_tensor tv = *t;
    pl_tile r;
    PLDSIM_CALL(r = pld_embed_load(file, line, op, tv, o, s, kw));
    return pldsim_new_tile(r);
}

/* store(file, line, tile, offsets, view, atomic[, op]) */
static PyObject *py_store(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *tile, *off, *view, *opname = NULL;
    int atomic;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOOi|U", SRC_PTRS, &tile, &off, &view, &atomic, &opname))
        return NULL;
    SRC_C()
    const char *op = opname ? pldsim_intern(opname) : "pl_store";
    if (!op)
        return NULL;
    pl_tile *tl = pldsim_tile(tile, "the tile of pl.store");
    pl_tensor *t = tl ? pldsim_view(view, "the destination of pl.store") : NULL;
    pl_shape o;
    if (!t || pldsim_shape(off, &o, "offsets"))
        return NULL;
    pl_tile tv = *tl;
    pl_tensor dv = *t;
    struct pl_store_kw kw = {.atomic = (pl_atomic)atomic};
    PLDSIM_CALL(pld_embed_store(file, line, op, tv, o, dv, kw));
    Py_RETURN_NONE;
}

/* elementwise(file, line, op, a, b) -> Tile; op: 0 add, 1 mul, 2 max, 3 min;
 * b is a tile or a number */
static PyObject *py_elementwise(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    int op;
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, SRC_FMT "iOO", SRC_PTRS, &op, &a, &b))
        return NULL;
    SRC_C()
    if (op < 0 || op > 4)
        return PyErr_Format(PyExc_ValueError, "unknown element-wise op %d", op);
    static pl_tile (*const tt[])(const char *, int, pl_tile, pl_tile) = {
        pl__add_tt, pl__mul_tt, pl__max_tt, pl__min_tt, pl__sub_tt};
    static pl_tile (*const ts[])(const char *, int, pl_tile, double) = {
        pl__add_ts, pl__mul_ts, pl__max_ts, pl__min_ts, pl__sub_ts};
    pl_tile *ta = pldsim_tile(a, "the first operand");
    if (!ta)
        return NULL;
    pl_tile av = *ta, r;
    if (PyObject_TypeCheck(b, &Tile_Type)) {
        pl_tile bv = ((TileObject *)b)->tile;
        PLDSIM_CALL(r = tt[op](file, line, av, bv));
    } else {
        double bv = PyFloat_AsDouble(b);
        if (bv == -1.0 && PyErr_Occurred())
            return NULL;
        PLDSIM_CALL(r = ts[op](file, line, av, bv));
    }
    return pldsim_new_tile(r);
}

/* read(file, line, view, idx) -> float */
static PyObject *py_read(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *view, *idx;
    if (!PyArg_ParseTuple(args, SRC_FMT "OO", SRC_PTRS, &view, &idx))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(view, "the tensor of pl.read");
    pl_shape i;
    if (!t || pldsim_shape(idx, &i, "indices"))
        return NULL;
    pl_tensor tv = *t;
    double v;
    PLDSIM_CALL(v = pl__read(file, line, tv, i));
    return PyFloat_FromDouble(v);
}

/* write(file, line, view, idx, value) */
static PyObject *py_write(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *view, *idx;
    double v;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOd", SRC_PTRS, &view, &idx, &v))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(view, "the tensor of pl.write");
    pl_shape i;
    if (!t || pldsim_shape(idx, &i, "indices"))
        return NULL;
    pl_tensor tv = *t;
    PLDSIM_CALL(pl__write(file, line, tv, i, v));
    Py_RETURN_NONE;
}

/* cast(file, line, value, dtype) -> float */
static PyObject *py_cast(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    double v, r;
    int dtype;
    if (!PyArg_ParseTuple(args, SRC_FMT "di", SRC_PTRS, &v, &dtype))
        return NULL;
    SRC_C()
    PLDSIM_CALL(r = pl__cast(file, line, v, (pl_dtype)dtype));
    return PyFloat_FromDouble(r);
}

/* Removes unit dim `d` of view `t` (upstream's drop_dims).  The layout
 * folds that dim into the next one, so the strides of the others stay;
 * 0, or -1 when the strides cannot be kept (the innermost dim of a
 * strided view). */
static int drop_dim(pl_tensor *t, int d)
{
    pl_shape *l = &t->layout;
    if (l->ndim) {
        if (d == l->ndim - 1)
            return -1;
        l->dim[d + 1] *= l->dim[d];
        for (int k = d; k < l->ndim - 1; k++)
            l->dim[k] = l->dim[k + 1];
        l->dim[--l->ndim] = 0;
    }
    for (int k = d; k < t->shape.ndim - 1; k++)
        t->shape.dim[k] = t->shape.dim[k + 1];
    t->shape.dim[--t->shape.ndim] = 0;
    return 0;
}

/* slice(file, line, view, shape, offsets[, drop_dims]) -> View: pl_slice,
 * then the unit dims listed in drop_dims (ascending) removed; the slice
 * keeps what owns the original's memory */
static PyObject *py_slice(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *view, *shape, *off, *drop = NULL;
    if (!PyArg_ParseTuple(args, SRC_FMT "OOO|O", SRC_PTRS, &view, &shape, &off, &drop))
        return NULL;
    SRC_C()
    pl_tensor *t = pldsim_view(view, "the tensor of pl.slice");
    pl_shape s, o, d = {.ndim = 0};
    if (!t || pldsim_shape(shape, &s, "shape") || pldsim_shape(off, &o, "offset"))
        return NULL;
    if (drop && PySequence_Size(drop) > 0 && pldsim_shape(drop, &d, "drop_dims"))
        return NULL;
    pl_tensor tv = *t, r;
    PLDSIM_CALL(r = pl__slice(file, line, tv, s, o));
    if (d.ndim >= r.shape.ndim)
        return PyErr_Format(PyExc_ValueError, "drop_dims would drop every dim of the slice");
    for (int i = d.ndim - 1; i >= 0; i--) { /* from the last, so the indices stay right */
        int k = (int)d.dim[i];
        if (k < 0 || k >= r.shape.ndim || r.shape.dim[k] != 1 || (i && d.dim[i - 1] >= k))
            return PyErr_Format(PyExc_ValueError,
                                "drop_dims[%d] = %d: expected ascending unit dims of the slice", i,
                                k);
        if (drop_dim(&r, k))
            return PyErr_Format(PyExc_ValueError,
                                "dropping the innermost dim of a strided view is not supported by "
                                "pldsim");
    }
    return pldsim_new_view(r, ((ViewObject *)view)->keep);
}

/* cast_tile(file, line, tile, dtype) -> Tile */
static PyObject *py_cast_tile(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *tile;
    int dtype;
    if (!PyArg_ParseTuple(args, SRC_FMT "Oi", SRC_PTRS, &tile, &dtype))
        return NULL;
    SRC_C()
    pl_tile *t = pldsim_tile(tile, "the input of pl.cast");
    if (!t)
        return NULL;
    pl_tile tv = *t, r;
    PLDSIM_CALL(r = pl__cast_tile(file, line, tv, (pl_dtype)dtype));
    return pldsim_new_tile(r);
}

/* tile_values(tile) -> list of floats: what a tile holds (for debugging;
 * charges nothing, as pl_tile_get); None when it holds no values
 * (--no-data, --timing-only), which the caller reports. */
static PyObject *py_tile_values(PyObject *self, PyObject *arg)
{
    (void)self;
    pl_tile *t = pldsim_tile(arg, "the argument");
    if (!t)
        return NULL;
    if (t->no_data)
        Py_RETURN_NONE;
    int64_t n = pl_shape_numel(t->shape);
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (int64_t i = 0; l && i < n; i++)
        PyList_SET_ITEM(l, (Py_ssize_t)i, PyFloat_FromDouble(pl_tile_get(*t, i)));
    return l;
}

PyMethodDef pldsim_local_methods[] = {
    {"host_view", py_host_view, METH_VARARGS, "host_view(dtype, shape, ptr, name, keep) -> View"},
    {"alloc", py_alloc, METH_VARARGS,
     "alloc(file, line, bytes, shape, dtype, name[, group]) -> Buffer (group: device ranks or "
     "None)"},
    {"window", py_window, METH_VARARGS, "window(file, line, buffer, shape, dtype) -> View"},
    {"view_as", py_view_as, METH_VARARGS, "view_as(view, shape[, dtype]) -> View (same bytes)"},
    {"comm_ctx", py_comm_ctx, METH_VARARGS, "comm_ctx(file, line, view) -> (rank, nranks)"},
    {"rank", py_rank, METH_VARARGS, "rank(file, line, rank, nranks) -> int"},
    {"nranks", py_nranks, METH_VARARGS, "nranks(file, line, rank, nranks) -> int"},
    {"load", py_load, METH_VARARGS, "load(file, line, view, offsets, shape) -> Tile"},
    {"store", py_store, METH_VARARGS, "store(file, line, tile, offsets, view, atomic)"},
    {"elementwise", py_elementwise, METH_VARARGS, "elementwise(file, line, op, a, b) -> Tile"},
    {"read", py_read, METH_VARARGS, "read(file, line, view, idx) -> float"},
    {"write", py_write, METH_VARARGS, "write(file, line, view, idx, value)"},
    {"cast", py_cast, METH_VARARGS, "cast(file, line, value, dtype) -> float"},
    {"slice", py_slice, METH_VARARGS, "slice(file, line, view, shape, offsets) -> View"},
    {"cast_tile", py_cast_tile, METH_VARARGS, "cast_tile(file, line, tile, dtype) -> Tile"},
    {"tile_values", py_tile_values, METH_O, "tile_values(tile) -> list of floats"},
    {NULL, NULL, 0, NULL},
};
