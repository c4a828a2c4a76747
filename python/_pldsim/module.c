/* module.c: the _pldsim module: its value types (View, Tile, Buffer), the
 * Abort exception, interned strings, and the method tables of the other
 * files joined into one. */
#include "core.h"

#include <structmember.h>

PyObject *pldsim_Abort;
static PyObject *interned; /* str -> bytes that live until exit */

const char *pldsim_intern(PyObject *s)
{
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "expected a str, got %.80s", Py_TYPE(s)->tp_name);
        return NULL;
    }
    PyObject *b = PyDict_GetItemWithError(interned, s);
    if (!b) {
        if (PyErr_Occurred())
            return NULL;
        b = PyUnicode_AsUTF8String(s);
        if (!b)
            return NULL;
        int rc = PyDict_SetItem(interned, s, b);
        Py_DECREF(b); /* the dict keeps it */
        if (rc)
            return NULL;
    }
    return PyBytes_AS_STRING(b);
}

int pldsim_shape(PyObject *seq, pl_shape *out, const char *what)
{
    memset(out, 0, sizeof *out);
    PyObject *fast = PySequence_Fast(seq, "");
    if (!fast) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of ints, got %.80s", what,
                     Py_TYPE(seq)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n < 1 || n > PL_MAX_DIMS) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s has %zd entries; pldsim supports 1 to %d", what, n,
                     PL_MAX_DIMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyLong_Check(v) || PyBool_Check(v)) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_TypeError, "%s[%zd] must be an int, got %.80s", what, i,
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) {
            Py_DECREF(fast);
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s[%zd] does not fit in 64 bits", what, i);
            return -1;
        }
        out->dim[i] = x;
    }
    out->ndim = (int)n;
    Py_DECREF(fast);
    return 0;
}

PyObject *pldsim_abort(void)
{
    PyErr_SetString(pldsim_Abort, "the pldsim run is ending after an error (reported above)");
    return NULL;
}

/* ---- View ---- */

static void View_dealloc(ViewObject *self)
{
    Py_XDECREF(self->keep);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *shape_tuple(pl_shape s)
{
    PyObject *t = PyTuple_New(s.ndim);
    for (int i = 0; t && i < s.ndim; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(s.dim[i]));
    return t;
}

static PyObject *View_shape(ViewObject *self, void *closure)
{
    (void)closure;
    return shape_tuple(self->t.shape);
}

static PyObject *View_dtype(ViewObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->t.dtype);
}

static PyObject *View_name(ViewObject *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(self->t.name ? self->t.name : "?");
}

static PyObject *View_is_window(ViewObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->t.win != NULL);
}

/* The buffer a window view belongs to, as an int that is equal for views
 * of the same buffer (for aliasing checks); 0 for a host tensor. */
static PyObject *View_buffer_id(ViewObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(self->t.win);
}

/* The world ranks of a window view's comm group, in group-rank order, or
 * None for the world (and for a host tensor). */
static PyObject *View_group(ViewObject *self, void *closure)
{
    (void)closure;
    if (!self->t.win)
        Py_RETURN_NONE;
    pl_tensor t = self->t;
    pld_group g;
    int n;
    PLDSIM_CALL(g = pld__window_group("<pldsim>", 0, t); n = pld__group_size("<pldsim>", 0, g));
    if (!g.g)
        Py_RETURN_NONE;
    PyObject *out = PyTuple_New(n);
    for (int i = 0; out && i < n; i++) {
        int m;
        PLDSIM_CALL(m = pld__group_member("<pldsim>", 0, g, i));
        PyTuple_SET_ITEM(out, i, PyLong_FromLong(m));
    }
    return out;
}

static PyGetSetDef View_getset[] = {
    {"group", (getter)View_group, NULL, "world ranks of the view's comm group, or None", NULL},
    {"shape", (getter)View_shape, NULL, "the view's shape", NULL},
    {"dtype", (getter)View_dtype, NULL, "libpld's pl_dtype code", NULL},
    {"name", (getter)View_name, NULL, "the buffer's or tensor's name", NULL},
    {"is_window", (getter)View_is_window, NULL, "a window view (not a host tensor)", NULL},
    {"buffer_id", (getter)View_buffer_id, NULL, "identifies the window buffer", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject View_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_pldsim.View",
    .tp_basicsize = sizeof(ViewObject),
    .tp_dealloc = (destructor)View_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A libpld tensor: a window view, or a host tensor's memory.",
    .tp_getset = View_getset,
};

PyObject *pldsim_new_view(pl_tensor t, PyObject *keep)
{
    ViewObject *v = PyObject_New(ViewObject, &View_Type);
    if (!v)
        return NULL;
    v->t = t;
    Py_XINCREF(keep);
    v->keep = keep;
    v->array_bytes = 0;
    return (PyObject *)v;
}

double pldsim_view_array_bytes(PyObject *o)
{
    return PyObject_TypeCheck(o, &View_Type) ? ((ViewObject *)o)->array_bytes : 0;
}

pl_tensor *pldsim_view(PyObject *o, const char *what)
{
    if (!PyObject_TypeCheck(o, &View_Type)) {
        PyErr_Format(PyExc_TypeError, "%s must be a tensor, got %.80s", what, Py_TYPE(o)->tp_name);
        return NULL;
    }
    return &((ViewObject *)o)->t;
}

/* ---- Tile ---- */

static PyObject *Tile_shape(TileObject *self, void *closure)
{
    (void)closure;
    return shape_tuple(self->tile.shape);
}

static PyObject *Tile_dtype(TileObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->tile.dtype);
}

static PyObject *Tile_valid(TileObject *self, void *closure)
{
    (void)closure;
    return shape_tuple(self->tile.valid);
}

static PyGetSetDef Tile_getset[] = {
    {"shape", (getter)Tile_shape, NULL, "the tile's shape", NULL},
    {"valid", (getter)Tile_valid, NULL, "the leading part of the tile that holds data", NULL},
    {"dtype", (getter)Tile_dtype, NULL, "libpld's pl_dtype code", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject Tile_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_pldsim.Tile",
    .tp_basicsize = sizeof(TileObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A libpld tile in the running kernel's unified buffer.",
    .tp_getset = Tile_getset,
};

PyObject *pldsim_new_tile(pl_tile t)
{
    TileObject *o = PyObject_New(TileObject, &Tile_Type);
    if (o)
        o->tile = t;
    return (PyObject *)o;
}

pl_tile *pldsim_tile(PyObject *o, const char *what)
{
    if (!PyObject_TypeCheck(o, &Tile_Type)) {
        PyErr_Format(PyExc_TypeError, "%s must be a tile, got %.80s", what, Py_TYPE(o)->tp_name);
        return NULL;
    }
    return &((TileObject *)o)->tile;
}

/* ---- Buffer ---- */

static void Buffer_dealloc(BufferObject *self)
{
    Py_XDECREF(self->name);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef Buffer_members[] = {
    {"name", T_OBJECT, offsetof(BufferObject, name), READONLY, "the buffer's name"},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject Buffer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_pldsim.Buffer",
    .tp_basicsize = sizeof(BufferObject),
    .tp_dealloc = (destructor)Buffer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A window buffer: the same slot in every rank's window.",
    .tp_members = Buffer_members,
};

/* ---- libpld's op names as Python users write them ---- */

static const char *python_op_name(const char *op)
{
    static const char *const names[][2] = {
        {"pl_load", "pl.load"},
        {"pl_store", "pl.store"},
        {"pl_read", "pl.read"},
        {"pl_write", "pl.write"},
        {"pl_cast", "pl.cast"},
        {"pl_slice", "pl.slice"},
        {"pl_add", "pl.add"},
        {"pl_mul", "pl.mul"},
        {"pl_max", "pl.maximum"},
        {"pl_min", "pl.minimum"},
        {"pl_sub", "pl.sub"},
        {"pl_incore", "kernel call"},
        {"pld_dispatch", "dispatch (device=)"},
        {"pld_world_size", "pld.world_size"},
        {"pld_get_comm_ctx", "pld.get_comm_ctx"},
        {"pld_rank", "pld.rank"},
        {"pld_nranks", "pld.nranks"},
        {"pld_alloc_window_buffer", "pld.alloc_window_buffer"},
        {"pld_window", "pld.window"},
        {"pld_system_notify", "pld.system.notify"},
        {"pld_system_wait", "pld.system.wait"},
        {"pld_system_defer_wait", "pld.system.defer_wait"},
        {"pld_deferred", "defer=True"},
        {"pld_manual_scope_begin", "pl.manual_scope"},
        {"pld_manual_scope_end", "pl.manual_scope"},
        {"pld_at", "pl.at"},
        {"pld_tile_remote_load", "pld.tile.remote_load"},
        {"pld_tile_remote_store", "pld.tile.remote_store"},
        {"pld_tensor_remote_store", "pld.tensor.remote_store"},
        {"pld_tensor_put", "pld.tensor.put"},
        {"pld_tensor_get", "pld.tensor.get"},
        {"pld_tensor_barrier", "pld.tensor.barrier"},
        {"pld_tensor_allreduce", "pld.tensor.allreduce"},
        {"pld_tensor_broadcast", "pld.tensor.broadcast"},
        {"pld_tensor_allgather", "pld.tensor.allgather"},
        {"pld_tensor_reduce_scatter", "pld.tensor.reduce_scatter"},
        {"pld_tensor_all_to_all", "pld.tensor.all_to_all"},
        {"pld_tensor_all_to_all_v", "pld.tensor.all_to_all_v"},
        {"pld_tile_put", "pld.tile.put"},
        {"pld_tensor_put_async", "pld.tensor.put_async"},
        {"pld_system_async_session", "pld.system.async_session"},
        {"pld_system_wait_async_event", "pld.system.wait_async_event"},
        {"pld_tile_get", "pld.tile.get"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(op, names[i][0]) == 0)
            return names[i][1];
    return NULL;
}

/* ---- the module ---- */

static PyMethodDef *const tables[] = {pldsim_run_methods, pldsim_local_methods, pldsim_kept_methods,
                                      pldsim_comm_methods};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_pldsim",
    .m_doc = "libpld for the pldsim Python front end (used by the pypto package of pldsim).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__pldsim(void)
{
    if (PyType_Ready(&View_Type) < 0 || PyType_Ready(&Tile_Type) < 0 ||
        PyType_Ready(&Buffer_Type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        if (PyModule_AddFunctions(m, tables[i]) < 0)
            goto fail;
    pld_embed_set_op_names(python_op_name);
    interned = PyDict_New();
    pldsim_Abort = PyErr_NewExceptionWithDoc(
        "_pldsim.Abort",
        "The pldsim run is ending after an error that has been reported; it unwinds the rank.",
        PyExc_BaseException, NULL);
    if (!interned || !pldsim_Abort || PyModule_AddObjectRef(m, "Abort", pldsim_Abort) < 0 ||
        PyModule_AddObjectRef(m, "View", (PyObject *)&View_Type) < 0 ||
        PyModule_AddObjectRef(m, "Tile", (PyObject *)&Tile_Type) < 0 ||
        PyModule_AddObjectRef(m, "Buffer", (PyObject *)&Buffer_Type) < 0 ||
        PyModule_AddIntConstant(m, "MAX_RANKS", PLD_MAX_RANKS) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
