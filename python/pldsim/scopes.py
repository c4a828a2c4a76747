"""Task graphs: ``with pl.manual_scope():`` and ``with pl.at(level=
pl.Level.CORE_GROUP, deps=[...]) as tid:`` in a per-device function.

Upstream outlines each ``pl.at`` body into a kernel and submits it to the
device's scheduler, which runs it on a free AIV core once its ``deps`` are
complete.  pldsim executes Python eagerly, so a body that must run later
has to become a function first: the per-device function's source is
rewritten, once, so that each ``with pl.at(...)`` statement defines its
body as a nested function and submits it (libpld's pld__at_task).  The
body sees the values its free names had at submission, as an outlined
kernel sees its arguments; what it computes reaches the rest of the
function only through tensors, as upstream's does.

Outside a manual scope a ``pl.at`` body runs at once, as a kernel."""

from __future__ import annotations

import ast
import enum
import inspect
import textwrap
import threading
from typing import Any

import _pldsim

from . import annotations, tensor_ops
from .config import Level
from .errors import UsageTypeError, UsageValueError
from .state import DEVICE, MIXED, in_kernel, kernel, launch_as, level
from .arrays import Array
from .taskids import TaskId
from .values import TASK_ID
from .where import caller

_UNBOUND = object()  # a free name with no value yet at submission


_open = threading.local()  # is a manual scope open on this thread (a rank's)?


def task_ids(op: str, deps: Any) -> list[tuple[int, int]]:
    """libpld's ids of a ``deps=[...]`` list: task ids, None (upstream's
    "no producer yet"), which adds no edge, and ``pl.array``s of task ids,
    which stand for every id they hold (an element not yet set adds no
    edge, as None)."""
    if deps is None:
        return []
    try:
        deps = list(deps)
    except TypeError:
        raise UsageTypeError(op, f"deps must be a list of task ids, got {deps!r}") from None
    ids: list[tuple[int, int]] = []
    for k, d in enumerate(deps):
        if d is None:
            continue
        if isinstance(d, Array) and d.dtype is TASK_ID:
            ids.extend(i for t in d._values if t is not None for i in t.ids())
            continue
        if not isinstance(d, TaskId):
            raise UsageTypeError(
                op, f"deps[{k}] is {d!r}, not a task id (from pl.submit, pl.spmd_submit, pl.system.task_dummy or `with pl.at(...) as tid`)"
            )
        ids.extend(d.ids())
    return ids


def task_dummy(deps: Any = None) -> TaskId:
    """``pl.system.task_dummy(deps=[...])``: a task id that stands for all
    of `deps`, a fan-in point for later ``deps=``.  It submits nothing, as
    upstream's, so it costs nothing."""
    ids = task_ids("pl.system.task_dummy", deps)
    if not ids:
        return TaskId(0, -1, "task_dummy")
    return TaskId(ids[0][0], ids[0][1], "task_dummy", tuple(ids[1:]))


def assemble(target: Any, source: Any, offset: Any, *, atomic: Any = 0, op: str = "pl.assemble") -> Any:
    """``pl.assemble`` anywhere: in a kernel, the store it lowers to; in a
    per-device function, outside a manual scope, a one-block task of its
    own (upstream's compiler outlines the copy into an InCore function),
    run at once as a ``pl.spmd(1)`` body would be: a load and a store."""
    if kernel() is not None or level() != DEVICE:
        return tensor_ops.assemble(target, source, offset, atomic=atomic, op=op)
    file, line = caller()
    if in_manual_scope():
        raise UsageValueError(op, "a copy of tensors in a manual scope has nothing to order it: put it in a pl.at task with the deps it needs")
    kwargs = {"target": tensor_ops.in_kernel_form(target), "source": tensor_ops.in_kernel_form(source)}

    def copy(target: Any, source: Any) -> None:
        tensor_ops.assemble(target, source, offset, atomic=atomic, op=op, tiled=True)

    def run() -> None:
        in_kernel(file, line, f"assemble_line_{line}", copy, **kwargs)

    _pldsim.scope_begin(file, line)
    _pldsim.at(file, line, f"assemble_line_{line}", run, [])
    _pldsim.scope_end(file, line)
    return target


def in_manual_scope() -> bool:
    """Is the calling per-device function inside ``pl.manual_scope()``?"""
    return bool(getattr(_open, "scope", False))


class At:
    """``pl.at(level=..., name_hint=..., deps=[...])``: where a task body
    runs.  Only ``level=pl.Level.CORE_GROUP`` (one AIV core) is modelled."""

    def __init__(self, level: Any = None, *, name_hint: str = "", deps: Any = (), allow_early_resolve: bool = False, **kwargs: Any):
        op = "pl.at"
        self.file, self.line = caller()
        if level is not Level.CORE_GROUP:
            raise UsageValueError(op, f"level={level!r}: pldsim runs pl.at tasks on one AIV core, level=pl.Level.CORE_GROUP")
        if not isinstance(name_hint, str):
            raise UsageTypeError(op, f"name_hint must be a str, got {name_hint!r}")
        self.name = name_hint or f"at_line_{self.line}"
        self.dep_ids = task_ids(op, deps)

    def __enter__(self) -> Any:
        raise UsageTypeError(
            "pl.at",
            "this pl.at body could not be made a task (its function's source is not available to pldsim); "
            "define the per-device function in a file",
        )

    def __exit__(self, *exc: Any) -> bool:
        return False


#: the most blocks one SPMD launch may have: an Ascend kernel launch's
#: block dim is 16 bits
MAX_BLOCKS = 65535


def launch_spec(op: str, core_num: Any, sync_start: Any) -> int:
    """The block count of an SPMD launch, checked (with its sync_start)."""
    if isinstance(core_num, bool) or not isinstance(core_num, int):
        try:
            core_num = core_num.__index__()
        except (AttributeError, TypeError):
            raise UsageTypeError(op, f"core_num must be an integer, got {type(core_num).__name__}") from None
    if core_num <= 0:
        raise UsageValueError(op, f"core_num must be a positive integer, got {core_num}")
    if core_num > MAX_BLOCKS:
        # each block is a task of its own: 10**7 of them ran out of memory
        # (bad_alloc, a SIGABRT) long after the call
        raise UsageValueError(op, f"core_num {core_num} is more blocks than a launch can have; expected 1 to "
                                  f"{MAX_BLOCKS} (an Ascend kernel launch's block dim)")
    if not isinstance(sync_start, bool):
        raise UsageTypeError(op, f"sync_start must be True or False, got {sync_start!r}")
    return core_num


class Spmd(At):
    """``pl.spmd(core_num, name_hint=..., deps=[...])``: a task body run as
    `core_num` blocks, each reading its index with
    ``pl.tile.get_block_idx()`` (``with pl.spmd(n) [as tid]:``), or bound
    to the loop variable (``for i in pl.spmd(n):``)."""

    def __init__(self, core_num: Any, *, sync_start: bool = False, name_hint: str = "", deps: Any = None,
                 allow_early_resolve: bool = False, optimizations: Any = None, predicate: Any = None):
        op = "pl.spmd"
        core_num = launch_spec(op, core_num, sync_start)
        if predicate is not None:
            raise UsageValueError(op, "predicate= is not supported by pldsim")
        super().__init__(Level.CORE_GROUP, name_hint=name_hint, deps=deps or (), allow_early_resolve=allow_early_resolve)
        self.name = name_hint or f"spmd_line_{self.line}"
        self.core_num = core_num

    def __iter__(self) -> Any:
        raise UsageTypeError("pl.spmd", "a `for i in pl.spmd(n)` loop could not be made a task (its function's source is not available to pldsim)")


def _as_carrier(body: Any) -> Any:
    def run(**kwargs: Any) -> Any:
        kernel().carrier = True
        return body(**kwargs)

    return run


def _block_idx() -> int:
    """The loop variable of ``for i in pl.spmd(n)``: the running block."""
    return kernel().block_idx


def spmd(core_num: Any, **kwargs: Any) -> Spmd:
    """``pl.spmd(n, ...)`` (Spmd)."""
    return Spmd(core_num, **kwargs)


def submit(body: Any, env: dict, names: tuple, spec: At) -> TaskId:
    """Submits `body` (a rewritten ``pl.at`` or ``pl.spmd`` body) with the
    values its free `names` have in `env` now: one task, or one per block
    of an SPMD body (outside a manual scope they run at once, together)."""
    if not isinstance(spec, At):
        raise UsageTypeError("pl.at", f"a `with` rewritten as a task needs pl.at(...) or pl.spmd(...), got {spec!r}")
    kwargs = {n: tensor_ops.in_kernel_form(env.get(n, _UNBOUND)) for n in names}
    dims = list(getattr(annotations._bound, "stack", None) or ())
    deps = spec.dep_ids
    if not isinstance(spec, Spmd):

        def run() -> None:
            annotations._bound.stack = list(dims)
            in_kernel(spec.file, spec.line, spec.name, body, **kwargs)

        scope, index = _pldsim.at(spec.file, spec.line, spec.name, run, deps)
        return TaskId(scope, index, spec.name)

    def block(b: int) -> Any:
        def run() -> None:
            annotations._bound.stack = list(dims)
            launch_as(MIXED, b, spec.core_num)
            in_kernel(spec.file, spec.line, spec.name, _as_carrier(body), **kwargs)

        return run

    if in_manual_scope():
        ids = [_pldsim.at(spec.file, spec.line, spec.name, block(b), deps, False, b > 0) for b in range(spec.core_num)]
        return TaskId(ids[0][0], ids[0][1], spec.name, tuple(tuple(i) for i in ids[1:]))
    _pldsim.scope_begin(spec.file, spec.line)
    for b in range(spec.core_num):
        _pldsim.at(spec.file, spec.line, spec.name, block(b), [], False, b > 0)
    _pldsim.scope_end(spec.file, spec.line)
    return TaskId(0, -1, spec.name)


class manual_scope:  # noqa: N801 - upstream's name
    """``with pl.manual_scope():`` in a per-device function: the ``pl.at``
    tasks submitted inside form one task graph, with only their explicit
    ``deps`` between them; leaving the scope runs it on the device's cores
    and returns when every task is complete."""

    def __enter__(self) -> manual_scope:
        self.file, self.line = caller()
        _pldsim.scope_begin(self.file, self.line)
        _open.scope = True
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        _open.scope = False
        if exc_type is None:
            _pldsim.scope_end(self.file, self.line)
        return False  # an exception ends the run; libpld frees the scope


class ScopeMode(enum.Enum):
    """``pl.scope(mode=...)``: an AUTO scope, or a MANUAL one (pl.manual_scope)."""

    AUTO = 0
    MANUAL = 1


class _AutoScope:
    """``with pl.scope():``: upstream's orchestrator AUTO scope, which bounds
    its tasks' buffers.  pldsim runs a task outside a manual scope at once,
    in program order, and frees nothing early, so the scope changes neither
    data nor time."""

    def __enter__(self) -> _AutoScope:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False


def scope(mode: Any = ScopeMode.AUTO) -> Any:
    """``pl.scope()`` (a no-op here) or ``pl.scope(mode=pl.ScopeMode.MANUAL)``
    (pl.manual_scope)."""
    if mode is ScopeMode.MANUAL:
        return manual_scope()
    if mode is not ScopeMode.AUTO:
        raise UsageTypeError("pl.scope", f"mode must be a pl.ScopeMode, got {mode!r}")
    return _AutoScope()


# ---- the rewrite ---------------------------------------------------------------------

_HELPER, _SELF, _BLOCK = "__pldsim_submit__", "__pldsim_make__", "__pldsim_block_idx__"


def _is_call_of(expr: ast.expr, names: tuple[str, ...]) -> bool:
    if not isinstance(expr, ast.Call):
        return False
    f = expr.func
    return (isinstance(f, ast.Attribute) and f.attr in names) or (isinstance(f, ast.Name) and f.id in names)


def _is_at(expr: ast.expr) -> bool:
    return _is_call_of(expr, ("at", "spmd"))


def _is_spmd_loop(node: ast.AST) -> bool:
    return isinstance(node, ast.For) and not node.orelse and isinstance(node.target, ast.Name) and _is_call_of(node.iter, ("spmd",))


def _at_withs(node: ast.AST) -> list[ast.AST]:
    return [
        n for n in ast.walk(node)
        if (isinstance(n, ast.With) and len(n.items) == 1 and _is_at(n.items[0].context_expr)) or _is_spmd_loop(n)
    ]


def _bound_outside(fdef: ast.FunctionDef) -> set[str]:
    """Names the function binds outside its pl.at bodies: its parameters
    and what it assigns."""
    a = fdef.args
    names = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    names |= {p.arg for p in (a.vararg, a.kwarg) if p}
    inside = {id(n) for w in _at_withs(fdef) for b in w.body for n in ast.walk(b)}

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if id(child) in inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
                names.add(child.id)
            visit(child)

    visit(fdef)
    return names


class _Rewriter(ast.NodeTransformer):
    def __init__(self, bound: set[str], file: str, first_line: int):
        self.bound = bound
        self.count = 0
        self.file, self.offset = file, first_line - 1

    def visit_For(self, node: ast.For) -> Any:
        """``for i in pl.spmd(n): body`` is ``with pl.spmd(n): i =
        pl.tile.get_block_idx(); body``."""
        if not _is_spmd_loop(node):
            return self.generic_visit(node)
        index = ast.Assign(
            targets=[ast.Name(id=node.target.id, ctx=ast.Store())],
            value=ast.Call(func=ast.Name(id=_BLOCK, ctx=ast.Load()), args=[], keywords=[]),
        )
        ast.copy_location(index, node)
        with_node = ast.With(items=[ast.withitem(context_expr=node.iter, optional_vars=None)], body=[index, *node.body])
        ast.copy_location(with_node, node)
        return self.visit_With(with_node)

    def visit_With(self, node: ast.With) -> Any:
        if not (len(node.items) == 1 and _is_at(node.items[0].context_expr)):
            return self.generic_visit(node)
        inner = node.body[0] if len(node.body) == 1 else None
        if _is_call_of(node.items[0].context_expr, ("spmd",)) and isinstance(inner, ast.With) and len(inner.items) == 1 \
                and _is_call_of(inner.items[0].context_expr, ("at",)):
            # an explicit pl.at as the sole statement is the blocks' kernel, not a task of its own
            node.body = inner.body
        for n in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)):
                raise UsageTypeError(
                    "pl.at",
                    "a pl.at body is a task of its own, submitted now and run later: it cannot return or yield "
                    "(store results into a tensor)",
                    where=(self.file, n.lineno + self.offset),
                )
        used = sorted({n.id for b in node.body for n in ast.walk(b) if isinstance(n, ast.Name)} & self.bound)
        self.count += 1
        name = f"__pldsim_task_{node.lineno}_{self.count}"
        args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=u) for u in used], kwonlyargs=[], kw_defaults=[], defaults=[])
        body_def = ast.FunctionDef(name=name, args=args, body=node.body, decorator_list=[], returns=None, type_comment=None)
        call = ast.Call(
            func=ast.Name(id=_HELPER, ctx=ast.Load()),
            args=[
                ast.Name(id=name, ctx=ast.Load()),
                ast.Call(func=ast.Name(id="locals", ctx=ast.Load()), args=[], keywords=[]),
                ast.Constant(value=tuple(used)),
                node.items[0].context_expr,
            ],
            keywords=[],
        )
        target = node.items[0].optional_vars
        stmt: ast.stmt = ast.Assign(targets=[target], value=call) if target is not None else ast.Expr(value=call)
        out = [body_def, stmt]
        for s in out:
            ast.copy_location(s, node)
        return out


def rewrite(fn: Any) -> Any:
    """`fn` with each ``with pl.at(...)`` statement made a submission, or
    `fn` itself when it has none (or its source cannot be read)."""
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return fn
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return fn
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or not _at_withs(fdef):
        return fn
    fdef.decorator_list = []
    for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs:
        a.annotation = None  # evaluated once already, with the original
    for a in (fdef.args.vararg, fdef.args.kwarg):
        if a:
            a.annotation = None
    fdef.returns = None
    code = fn.__code__
    fdef = _Rewriter(_bound_outside(fdef), code.co_filename, code.co_firstlineno).visit(fdef)
    free = list(code.co_freevars)
    make = ast.FunctionDef(
        name=_SELF,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in [_HELPER, _BLOCK, *free]], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    module = ast.Module(body=[make], type_ignores=[])
    ast.copy_location(make, fdef)
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, code.co_firstlineno - 1)
    ns: dict[str, Any] = {}
    exec(compile(module, code.co_filename, "exec"), fn.__globals__, ns)
    cells = [c.cell_contents for c in (fn.__closure__ or ())]
    new = ns[_SELF](submit, _block_idx, *cells)
    new.__qualname__ = fn.__qualname__
    return new
