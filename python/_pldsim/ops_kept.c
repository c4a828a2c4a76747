/* ops_kept.c: the tiles the front end keeps outside UB (the cube unit's
 * Mat, Left, Right and Acc buffers, held as torch tensors) and what they
 * cost: loads into them, stores from them, their tile views, and the
 * charges of the work the front end does on them itself (matmul, the
 * cube's moves, vector ops on kept tiles).  Every function takes (file,
 * line, ...) first, as in ops_local.c. */
#include "core.h"

/* load_into(file, line, op, view, offsets, shape, valid_shape or None,
 * clamp, address) -> (copied, valid): pl_load into the buffer at
 * `address` (shape's elements of the view's dtype, kept alive by the
 * caller) instead of a UB tile. */
static PyObject *py_load_into(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *opname, *view, *off, *shape, *validp;
    int clamp;
    unsigned long long addr;
    if (!PyArg_ParseTuple(args, SRC_FMT "UOOOOpK", SRC_PTRS, &opname, &view, &off, &shape, &validp,
                          &clamp, &addr))
        return NULL;
    SRC_C()
    const char *op = pldsim_intern(opname);
    pl_tensor *t = op ? pldsim_view(view, "the source") : NULL;
    pl_shape o, s;
    struct pl_load_kw kw = {.clamp = clamp, .array_bytes = pldsim_view_array_bytes(view)};
    if (!t || pldsim_shape(off, &o, "offsets") || pldsim_shape(shape, &s, "shapes") ||
        (validp != Py_None && pldsim_shape(validp, &kw.valid_shape, "valid_shape")))
        return NULL;
    pl_tensor tv = *t;
    pl_shape valid = {.ndim = 0};
    int copied;
    PLDSIM_CALL(copied = pld_embed_load_into(file, line, op, tv, o, s, kw, (void *)(uintptr_t)addr,
                                             &valid));
    PyObject *v = PyTuple_New(valid.ndim);
    for (int i = 0; v && i < valid.ndim; i++)
        PyTuple_SET_ITEM(v, i, PyLong_FromLongLong(valid.dim[i]));
    return v ? Py_BuildValue("iN", copied, v) : NULL;
}

/* store_from(file, line, op, dtype, address or 0, shape, valid, offsets,
 * view, atomic): pl_store of the values at `address` (0: none). */
static PyObject *py_store_from(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *opname, *shape, *validp, *off, *view;
    int dtype, atomic, from_acc = 0;
    unsigned long long addr;
    if (!PyArg_ParseTuple(args, SRC_FMT "UiKOOOOi|p", SRC_PTRS, &opname, &dtype, &addr, &shape,
                          &validp, &off, &view, &atomic, &from_acc))
        return NULL;
    SRC_C()
    const char *op = pldsim_intern(opname);
    pl_tensor *t = op ? pldsim_view(view, "the destination") : NULL;
    pl_shape s, v, o;
    if (!t || pldsim_shape(shape, &s, "shape") || pldsim_shape(validp, &v, "valid shape") ||
        pldsim_shape(off, &o, "offsets"))
        return NULL;
    pl_tensor tv = *t;
    struct pl_store_kw kw = {.atomic = (pl_atomic)atomic};
    PLDSIM_CALL(pld_embed_store_from(file, line, op, (pl_dtype)dtype, (const void *)(uintptr_t)addr,
                                     s, v, o, tv, kw, from_acc));
    Py_RETURN_NONE;
}

/* tile_new(file, line, op, dtype, shape, valid or None, address or 0) ->
 * Tile: a UB tile holding the values at `address` (0: zeros). */
static PyObject *py_tile_new(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *opname, *shape, *validp;
    int dtype;
    unsigned long long addr;
    if (!PyArg_ParseTuple(args, SRC_FMT "UiOOK", SRC_PTRS, &opname, &dtype, &shape, &validp, &addr))
        return NULL;
    SRC_C()
    const char *op = pldsim_intern(opname);
    pl_shape s, v = {.ndim = 0};
    if (!op || pldsim_shape(shape, &s, "shape") ||
        (validp != Py_None && pldsim_shape(validp, &v, "valid shape")))
        return NULL;
    if (pl_dtype_size((pl_dtype)dtype) == 0)
        return PyErr_Format(PyExc_ValueError, "dtype code %d is not one pldsim knows", dtype);
    pl_tile r;
    PLDSIM_CALL(
        r = pld_embed_tile(file, line, op, (pl_dtype)dtype, s, v, (const void *)(uintptr_t)addr));
    return pldsim_new_tile(r);
}

/* tile_element(file, line, op, tile, flat) -> float: one element of a tile
 * (pl.read of a tile); 0 and a warning for a tile without values under
 * --timing-only. */
static PyObject *py_tile_element(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *opname, *tile;
    long long flat;
    if (!PyArg_ParseTuple(args, SRC_FMT "UOL", SRC_PTRS, &opname, &tile, &flat))
        return NULL;
    SRC_C()
    const char *op = pldsim_intern(opname);
    pl_tile *t = pldsim_tile(tile, "the tile");
    if (!t || !op)
        return NULL;
    double v;
    PLDSIM_CALL(v = pld_embed_tile_get(file, line, op, *t, (int64_t)flat));
    return PyFloat_FromDouble(v);
}

/* tile_copy_out(file, line, op, tile, address) -> copied: the tile's
 * values (all of its shape, row-major) into the buffer at `address`; 0
 * when it has none (--no-data).  A use of the tile, as any op's. */
static PyObject *py_tile_copy_out(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *opname, *tile;
    unsigned long long addr;
    if (!PyArg_ParseTuple(args, SRC_FMT "UOK", SRC_PTRS, &opname, &tile, &addr))
        return NULL;
    SRC_C()
    pl_tile *t = pldsim_tile(tile, "the tile");
    if (!t || !pldsim_intern(opname))
        return NULL;
    pl_tile tv = *t;
    if (tv.no_data)
        return PyLong_FromLong(0);
    /* pl_tile_get checks that the tile is alive, and counts as its use */
    PLDSIM_CALL((void)pl__tile_get(file, line, tv, 0));
    memcpy((void *)(uintptr_t)addr, tv.data,
           (size_t)pl_shape_numel(tv.shape) * pl_dtype_size(tv.dtype));
    return PyLong_FromLong(1);
}

/* tile_alias(tile, shape, valid[, dtype]) -> Tile: the same UB bytes seen
 * with another shape of as many bytes (a reshape, or with `dtype` a
 * reinterpret_view), which copies nothing. */
static PyObject *py_tile_alias(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *tile, *shape, *validp;
    int dtype = 0;
    if (!PyArg_ParseTuple(args, "OOO|i", &tile, &shape, &validp, &dtype))
        return NULL;
    pl_tile *t = pldsim_tile(tile, "the tile");
    pl_shape s, v;
    if (!t || pldsim_shape(shape, &s, "shape") || pldsim_shape(validp, &v, "valid shape"))
        return NULL;
    pl_dtype dt = dtype ? (pl_dtype)dtype : t->dtype;
    if (pl_dtype_size(dt) == 0)
        return PyErr_Format(PyExc_ValueError, "tile_alias: invalid dtype %d", dtype);
    if ((size_t)pl_shape_numel(s) * pl_dtype_size(dt) !=
            (size_t)pl_shape_numel(t->shape) * pl_dtype_size(t->dtype) ||
        v.ndim != s.ndim)
        return PyErr_Format(PyExc_ValueError, "tile_alias: the shapes do not match");
    pl_tile r = *t;
    r.dtype = dt;
    r.shape = s;
    r.valid = v;
    return pldsim_new_tile(r);
}

/* charge_vector(file, line, op, elems): vector time for `elems` element
 * operations on the running kernel's core. */
static PyObject *py_charge_vector(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *opname;
    long long elems;
    if (!PyArg_ParseTuple(args, SRC_FMT "UL", SRC_PTRS, &opname, &elems))
        return NULL;
    SRC_C()
    const char *op = pldsim_intern(opname);
    if (!op)
        return NULL;
    PLDSIM_CALL(pld_embed_charge_vector(file, line, op, (int64_t)elems));
    Py_RETURN_NONE;
}

/* matmul_cost(file, line, op, m, n, k, dtype): one matmul on the cube. */
static PyObject *py_matmul_cost(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *opname;
    long long m, n, k;
    int dtype;
    if (!PyArg_ParseTuple(args, SRC_FMT "ULLLi", SRC_PTRS, &opname, &m, &n, &k, &dtype))
        return NULL;
    SRC_C()
    const char *op = pldsim_intern(opname);
    if (!op)
        return NULL;
    PLDSIM_CALL(
        pld_embed_matmul(file, line, op, (int64_t)m, (int64_t)n, (int64_t)k, (pl_dtype)dtype));
    Py_RETURN_NONE;
}

/* cube_move(file, line, op, path, bytes): a move along a cube path
 * (0: L1 -> L0A, 1: L1 -> L0B, 2: L0C -> UB). */
static PyObject *py_cube_move(PyObject *self, PyObject *args)
{
    (void)self;
    SRC_ARGS
    PyObject *opname;
    int path;
    long long bytes;
    if (!PyArg_ParseTuple(args, SRC_FMT "UiL", SRC_PTRS, &opname, &path, &bytes))
        return NULL;
    SRC_C()
    const char *op = pldsim_intern(opname);
    if (!op)
        return NULL;
    if (path < PLD_CUBE_TO_L0A || path > PLD_CUBE_DRAIN_UB) {
        PyErr_Format(PyExc_ValueError, "cube_move: path %d is not 0, 1 or 2", path);
        return NULL;
    }
    PLDSIM_CALL(pld_embed_cube_move(file, line, op, (enum pld_cube_path)path, (int64_t)bytes));
    Py_RETURN_NONE;
}

PyMethodDef pldsim_kept_methods[] = {
    {"matmul_cost", py_matmul_cost, METH_VARARGS, "matmul_cost(file, line, op, m, n, k, dtype)"},
    {"cube_move", py_cube_move, METH_VARARGS, "cube_move(file, line, op, path, bytes)"},
    {"load_into", py_load_into, METH_VARARGS,
     "load_into(file, line, op, view, offsets, shape, valid, clamp, address) -> (copied, valid)"},
    {"store_from", py_store_from, METH_VARARGS,
     "store_from(file, line, op, dtype, address, shape, valid, offsets, view, atomic)"},
    {"tile_new", py_tile_new, METH_VARARGS,
     "tile_new(file, line, op, dtype, shape, valid, address) -> Tile"},
    {"tile_element", py_tile_element, METH_VARARGS,
     "tile_element(file, line, op, tile, flat) -> float"},
    {"tile_copy_out", py_tile_copy_out, METH_VARARGS,
     "tile_copy_out(file, line, op, tile, address) -> copied"},
    {"tile_alias", py_tile_alias, METH_VARARGS, "tile_alias(tile, shape, valid[, dtype]) -> Tile"},
    {"charge_vector", py_charge_vector, METH_VARARGS, "charge_vector(file, line, op, elems)"},
    {NULL, NULL, 0, NULL},
};
