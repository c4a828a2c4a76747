"""Which comm domain each window buffer of a host orchestrator lives in.

Upstream's compiler decides it before the program runs
(``MaterializeCommDomainScopes``): a buffer belongs to the devices that
the dispatches receiving its views go to.  ``device=r`` in ``for r in
pl.range(pld.world_size())`` means every device; in ``for r in
pl.range(N)`` or ``pl.range(A, B)``, devices 0..N-1 or A..B-1; a constant
``device=k``, device k; a buffer dispatched from several places gets the
union.  The signal of a collective the host calls inherits its data
window's devices.  Buffers with the same devices share a domain (one
window); each domain is a communication group of libpld.

pldsim runs the host eagerly, so a kernel may run before the host has
dispatched its last task: the domain must be known when the buffer is
allocated.  So, like upstream, this reads the host function's source once,
before it runs.  What it cannot read (a bound that is not a constant or
``pld.world_size()``, a ``device=`` that is neither a constant nor a loop's
variable, a dispatch in a helper) it leaves as the whole world, which is
what pldsim did before it knew domains."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from .config import short_ids

ALL = "all"  # the whole world (upstream's kAll)

_LOOPS = {"range", "parallel", "unroll", "pipeline"}
_WINDOW = "window"
_ALLOC = "alloc_window_buffer"
# host collectives: (data argument, signal-like arguments), by position and name
_COLLECTIVES = {
    "allreduce": ((0, "target"), [(1, "signal")]),
    "broadcast": ((0, "target"), [(1, "signal")]),
    "reduce_scatter": ((0, "target"), [(1, "signal")]),
    "allgather": ((1, "target"), [(2, "signal")]),
    "all_to_all": ((1, "target"), [(2, "signal")]),
    "all_to_all_v": ((1, "target"), [(2, "signal"), (4, "recv_counts")]),
}

_cache: dict[Any, dict[str, Any]] = {}


def _callee(node: ast.AST) -> str | None:
    """The last name of a call's function: `pld.tensor.window` -> window."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return None


class _Analysis:
    def __init__(self, env: dict[str, Any]):
        self.env = env  # the function's globals and closure: constants live there
        self.local: dict[str, Any] = {}  # constant locals (None: assigned something else)
        self.world_names: set[str] = set()  # locals bound to pld.world_size()
        self.allocs: list[str] = []
        self.views: dict[str, str] = {}  # a view (or an alias of one) -> its buffer
        self.seen: dict[str, list[Any]] = {}  # buffer -> the descriptors of its dispatches
        self.inherit: list[tuple[str, str]] = []  # (signal buffer, data buffer)
        self.loops: list[tuple[str, Any]] = []  # enclosing loops: (variable, descriptor)

    # -- values -------------------------------------------------------------

    def const(self, node: ast.AST) -> Any:
        """The value of a constant expression (names, attributes,
        arithmetic; never a call), or None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.local:
                return self.local[node.id]
            v = self.env.get(node.id)
            return v if isinstance(v, int) and not isinstance(v, bool) else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.const(node.operand)
            return None if v is None else -v
        if isinstance(node, ast.BinOp):
            a, b = self.const(node.left), self.const(node.right)
            if a is None or b is None:
                return None
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b, ast.FloorDiv: lambda: a // b if b else None}
            f = ops.get(type(node.op))
            return f() if f else None
        return None

    def is_world(self, node: ast.AST) -> bool:
        return _callee(node) == "world_size" or (isinstance(node, ast.Name) and node.id in self.world_names)

    def loop_descriptor(self, call: ast.Call) -> Any:
        args = call.args
        if not 1 <= len(args) <= 3:
            return ALL
        stop = args[0] if len(args) == 1 else args[1]
        if self.is_world(stop):
            return ALL
        bounds = [self.const(a) for a in args]
        if any(b is None for b in bounds):
            return ALL
        return frozenset(range(*bounds))

    def buffer_of(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.views.get(node.id)
        if _callee(node) == _WINDOW and node.args and isinstance(node.args[0], ast.Name):
            name = node.args[0].id
            return name if name in self.seen else None
        return None

    # -- statements -----------------------------------------------------------

    def body(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s: ast.stmt) -> None:
        if isinstance(s, (ast.For, ast.AsyncFor)):
            self.calls(s.iter)
            var = s.target.elts[0] if isinstance(s.target, ast.Tuple) and s.target.elts else s.target
            desc = self.loop_descriptor(s.iter) if isinstance(s.iter, ast.Call) and _callee(s.iter) in _LOOPS else ALL
            self.loops.append((var.id if isinstance(var, ast.Name) else "", desc))
            self.body(s.body)
            self.loops.pop()
            self.body(s.orelse)
            return
        if isinstance(s, ast.While):
            self.calls(s.test)
            self.body(s.body)
            self.body(s.orelse)
            return
        if isinstance(s, ast.If):
            self.calls(s.test)
            self.body(s.body)
            self.body(s.orelse)
            return
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self.calls(item.context_expr)
            self.body(s.body)
            return
        if isinstance(s, ast.Try):
            for part in (s.body, *[h.body for h in s.handlers], s.orelse, s.finalbody):
                self.body(part)
            return
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        self.calls(s)  # the right-hand side runs before the names are bound
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            self.assign(targets, s.value)

    def assign(self, targets: list[ast.expr], value: ast.expr) -> None:
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        kind = _callee(value)
        buf = self.buffer_of(value)
        if buf is None and kind in _COLLECTIVES:  # x = pld.tensor.allreduce(x, s) rebinds x's buffer
            (pos, key), _ = _COLLECTIVES[kind]
            data = _arg(value, pos, key)
            buf = self.buffer_of(data) if data is not None else None
        for name in names:
            self.views.pop(name, None)
            self.world_names.discard(name)
            if kind == _ALLOC:
                self.allocs.append(name)
                self.seen[name] = []
                continue
            if buf is not None:
                self.views[name] = buf
            elif kind == "world_size":
                self.world_names.add(name)
            else:
                v = self.const(value)
                self.local[name] = v if name not in self.local or self.local[name] == v else None

    def calls(self, node: ast.AST) -> None:
        for n in ast.walk(node):
            if not isinstance(n, ast.Call):
                continue
            device = next((k.value for k in n.keywords if k.arg == "device"), None)
            if device is not None:
                self.dispatch(n, device)
            kind = _callee(n)
            if kind in _COLLECTIVES:
                (pos, key), signals = _COLLECTIVES[kind]
                data = _arg(n, pos, key)
                data_buf = self.buffer_of(data) if data is not None else None
                for spos, skey in signals:
                    s = _arg(n, spos, skey)
                    sig_buf = self.buffer_of(s) if s is not None else None
                    if data_buf and sig_buf:
                        self.inherit.append((sig_buf, data_buf))

    def dispatch(self, call: ast.Call, device: ast.expr) -> None:
        desc: Any = ALL
        v = self.const(device)
        if isinstance(device, ast.Name) and any(var == device.id for var, _ in self.loops):
            desc = next(d for var, d in reversed(self.loops) if var == device.id)
        elif v is not None:
            desc = frozenset([v])
        for a in [*call.args, *(k.value for k in call.keywords if k.arg != "device")]:
            buf = self.buffer_of(a)
            if buf is not None:
                self.seen[buf].append(desc)

    def result(self) -> dict[str, Any]:
        for sig, data in self.inherit:
            self.seen[sig].extend(self.seen[data])
        out: dict[str, Any] = {}
        for name in self.allocs:
            descs = self.seen.get(name, [])
            if not descs or any(d is ALL for d in descs):
                out[name] = ALL
            else:
                out[name] = frozenset().union(*descs)
        return out


def _arg(call: ast.Call, pos: int, key: str) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == key:
            return k.value
    return call.args[pos] if len(call.args) > pos else None


def of_function(fn: Any) -> dict[str, Any]:
    """{buffer variable: ALL or a frozenset of devices} for the host
    orchestrator `fn` (a plain function); {} when its source cannot be read."""
    if fn in _cache:
        return _cache[fn]
    result: dict[str, Any] = {}
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        tree = None
    defs = [n for n in (tree.body if tree else []) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if defs:
        env = dict(getattr(fn, "__globals__", {}))
        code = getattr(fn, "__code__", None)
        for name, cell in zip(code.co_freevars if code else (), getattr(fn, "__closure__", None) or ()):
            try:
                env[name] = cell.cell_contents
            except ValueError:
                pass
        a = _Analysis(env)
        a.body(defs[0].body)
        result = a.result()
    _cache[fn] = result
    return result


# The domains of the run in progress: set by program.py before the host
# orchestrator starts, read by alloc_window_buffer.
current: dict[str, Any] = {}


def devices_of(name: str, world: int) -> list[int] | None:
    """The devices of buffer `name` of the running host, or None for the
    whole world (a subset that is every device is the world too)."""
    d = current.get(name, ALL)
    if d is ALL:
        return None
    devices = sorted(d)
    if devices == list(range(world)):
        return None
    return devices


def describe(devices: list[int]) -> str:
    if len(devices) > 3 and devices == list(range(devices[0], devices[-1] + 1)):
        return f"devices {devices[0]}..{devices[-1]}"
    return ("device " if len(devices) == 1 else "devices ") + short_ids(devices, brackets=False)
