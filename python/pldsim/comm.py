"""The distributed vocabulary of ``pypto.language.distributed``: system
queries, window buffers and views, notify/wait, tile- and tensor-level
RMA, and the builtin collectives, each one libpld call.

Upstream's own argument checks (its TypeErrors and ValueErrors, with its
words) are made here; libpld checks the rest (bounds, dtypes, levels,
signal shapes) and says so in its one-line messages."""

from __future__ import annotations

import enum
import linecache
import re
from typing import Any

import _pldsim

from . import domains, host_builtins
from .errors import UsageTypeError, UsageValueError
from .state import HOST, level
from .values import CommCtx, DataType, DistributedTensor, Ptr, TensorValue, Tile, any_view, atomic_code, index_list, is_torch_tensor, scalar_int, tensor_dtype, tile_of
from .where import caller


class NotifyOp(enum.IntEnum):
    """How notify changes the peer's cell (upstream's stable ABI values)."""

    AtomicAdd = 0
    Set = 1


class WaitCmp(enum.IntEnum):
    """How wait compares the local cell."""

    Eq = 0
    Ge = 1


class AtomicType(enum.IntEnum):
    """A store's combine mode."""

    None_ = 0
    Add = 1


class ReduceOp(enum.IntEnum):
    """How collectives combine values."""

    Sum = 0
    Max = 1
    Min = 2
    Prod = 3


def _enum(v: Any, cls: type, op: str, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or int(v) not in {m.value for m in cls}:
        names = ", ".join(f"pld.{cls.__name__}.{m.name}" for m in cls)
        raise UsageTypeError(op, f"{what} must be one of {names}, got {v!r}")
    return int(v)


def _window(x: Any, op: str, what: str) -> Any:
    return any_view(x, op, what, window=True)


# ---- system -------------------------------------------------------------------


def world_size() -> int:
    """The number of ranks (host orchestrator only)."""
    file, line = caller()
    return _pldsim.world_size(file, line)


def get_comm_ctx(dist_tensor: Any) -> CommCtx:
    """The comm context of the window domain of a DistributedTensor."""
    op = "pld.get_comm_ctx"
    if not isinstance(dist_tensor, DistributedTensor):
        raise UsageTypeError(op, f"expects a DistributedTensor (a window view); got {type(dist_tensor).__name__}")
    file, line = caller()
    r, n = _pldsim.comm_ctx(file, line, dist_tensor._view)
    return CommCtx(r, n)


def _ctx(ctx: Any, op: str) -> CommCtx:
    if not isinstance(ctx, CommCtx):
        raise UsageTypeError(op, f"expects a CommCtx (from pld.get_comm_ctx); got {type(ctx).__name__}")
    return ctx


def rank(ctx: Any) -> int:
    """This rank, in [0, nranks) (kernel only)."""
    c = _ctx(ctx, "pld.rank")
    file, line = caller()
    return _pldsim.rank(file, line, c.rank_, c.nranks_)


def nranks(ctx: Any) -> int:
    """The number of ranks in the comm group (kernel only)."""
    c = _ctx(ctx, "pld.nranks")
    file, line = caller()
    return _pldsim.nranks(file, line, c.rank_, c.nranks_)


def notify(target: Any, peer: Any, offsets: Any, value: Any, *, op: Any) -> None:
    """Updates INT32 cell `offsets` of the peer's copy of `target`."""
    name = "pld.system.notify"
    code = {0: 1, 1: 2}[_enum(op, NotifyOp, name, "op")]
    t = _window(target, name, "target")
    file, line = caller()
    _pldsim.notify(file, line, t, scalar_int(peer, name, "peer"), index_list(offsets, name, "offsets"), scalar_int(value, name, "value"), code)


def _wait_like(name: str, fn: Any, signal: Any, offsets: Any, expected: Any, cmp: Any) -> None:
    code = {0: 1, 1: 2}[_enum(cmp, WaitCmp, name, "cmp")]
    s = _window(signal, name, "signal")
    file, line = caller()
    fn(file, line, s, index_list(offsets, name, "offsets"), scalar_int(expected, name, "expected"), code)


def wait(signal: Any, offsets: Any, expected: Any, *, cmp: Any) -> None:
    """Blocks until the local INT32 cell satisfies cmp(expected)."""
    _wait_like("pld.system.wait", _pldsim.wait, signal, offsets, expected, cmp)


def defer_wait(signal: Any, offsets: Any, expected: Any, *, cmp: Any) -> None:
    """In a ``pl.at(level=CORE_GROUP)`` task of a manual scope: makes
    ``signal[offsets] >= expected`` a condition of the task's completion
    and returns; the core is free when the kernel ends, and what depends on
    the task waits until the condition holds (Ge only)."""
    _wait_like("pld.system.defer_wait", _pldsim.defer_wait, signal, offsets, expected, cmp)


# ---- windows --------------------------------------------------------------------

_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)")


def _lhs_name(file: str, line: int) -> str:
    """The variable an allocation is assigned to, as upstream's parser
    takes a buffer's name from the left-hand side."""
    m = _ASSIGNED.match(linecache.getline(file, line))
    return m.group(1) if m else ""


def alloc_window_buffer(size: Any, *, dtype: DataType | None = None, name: str = "") -> Ptr:
    """A slot in every rank's window: `size` bytes, or `shape` elements of
    `dtype` (host orchestrator only)."""
    op = "pld.tensor.alloc_window_buffer"
    file, line = caller()
    if not name:
        name = _lhs_name(file, line)
    if not name:
        raise UsageValueError(
            op,
            "pld.tensor.alloc_window_buffer must appear as the RHS of a simple assignment "
            "(its result must be bound to a named variable)",
        )
    if isinstance(size, (list, tuple)):
        if dtype is None:
            raise UsageValueError(
                op,
                "pld.tensor.alloc_window_buffer requires dtype= when the first argument is a shape "
                "(list / tuple of per-rank dimensions)",
            )
        shape = index_list(size, op, "shape")
        if not shape:
            raise UsageValueError(op, "pld.tensor.alloc_window_buffer shape must be non-empty")
        for i, d in enumerate(shape):
            if d <= 0:
                raise UsageValueError(
                    op,
                    f"pld.tensor.alloc_window_buffer shape dimension[{i}] is {d}; all dimensions must be positive",
                )
        dt = tensor_dtype(dtype, op)
        return Ptr(_pldsim.alloc(file, line, None, shape, dt.code, name, _domain(op, name, file, line)))
    if dtype is not None:
        raise UsageValueError(
            op,
            "pld.tensor.alloc_window_buffer dtype= is only valid when the first argument is a shape "
            "(list / tuple), not a scalar byte size",
        )
    return Ptr(_pldsim.alloc(file, line, scalar_int(size, op, "size"), None, 0, name, _domain(op, name, file, line)))


def _domain(op: str, name: str, file: str, line: int) -> list[int] | None:
    """The devices of buffer `name`'s comm domain (None: every device), as
    upstream's compiler infers them from the dispatches of its views."""
    if name not in domains.current or level() != HOST:
        return None
    world = _pldsim.world_size(file, line)
    devices = domains.devices_of(name, world)
    if devices is not None and (devices[0] < 0 or devices[-1] >= world):
        bad = devices[-1] if devices[-1] >= world else devices[0]
        raise UsageValueError(
            op,
            f"buffer '{name}' is dispatched to {domains.describe(devices)} (its comm domain, from the "
            f"device= of the dispatches that get its views), more than the world has: device {bad} "
            f"out of range [0, {world})",
        )
    return devices


def window(buf: Any, shape: Any, *, dtype: Any) -> DistributedTensor:
    """A typed per-rank view of a window buffer."""
    op = "pld.tensor.window"
    if not isinstance(buf, Ptr):
        raise UsageTypeError(
            op,
            f"pld.tensor.window expects a Ptr handle (output of pld.tensor.alloc_window_buffer); got {type(buf).__name__}",
        )
    dt = tensor_dtype(dtype, op)
    file, line = caller()
    return DistributedTensor(_pldsim.window(file, line, buf._buf, index_list(shape, op, "shape"), dt.code))


# ---- tile-level RMA --------------------------------------------------------------


def remote_load(target: Any, peer: Any, offsets: Any, shape: Any, valid_shape: Any = None) -> Tile:
    """Pulls a region of the peer's copy of `target` into a new tile."""
    op = "pld.tile.remote_load"
    if not isinstance(target, DistributedTensor):
        raise UsageTypeError(op, f"pld.tile.remote_load expects a DistributedTensor target (window-bound); got {type(target).__name__}")
    file, line = caller()
    valid = None if valid_shape is None else index_list(valid_shape, op, "valid_shape")
    return Tile(_pldsim.remote_load(file, line, target._view, scalar_int(peer, op, "peer"), index_list(offsets, op, "offsets"), index_list(shape, op, "shape"), valid))


def tile_remote_store(src_tile: Any, target: Any, peer: Any, offsets: Any, *, atomic: Any = AtomicType.None_) -> None:
    """Pushes a tile into the peer's copy of `target` at `offsets`."""
    op = "pld.tile.remote_store"
    if not isinstance(target, DistributedTensor):
        raise UsageTypeError(op, f"pld.tile.remote_store expects a DistributedTensor target (window-bound); got {type(target).__name__}")
    t = tile_of(src_tile, op, "src_tile")
    file, line = caller()
    _pldsim.remote_store(file, line, t, target._view, scalar_int(peer, op, "peer"), index_list(offsets, op, "offsets"), atomic_code(atomic, op))


def tensor_remote_store(src: Any, target: Any, peer: Any, offsets: Any, *, atomic: Any = AtomicType.None_) -> None:
    """The tensor-level remote_store: a tile, or a host tensor (loaded
    whole into a tile first, as upstream bridges it), into the peer."""
    op = "pld.tensor.remote_store"
    if not isinstance(target, DistributedTensor):
        raise UsageTypeError(op, f"pld.tensor.remote_store expects a DistributedTensor target (window-bound); got {type(target).__name__}")
    if isinstance(src, DistributedTensor):
        raise UsageTypeError(
            op,
            "pld.tensor.remote_store expects a Tensor src (a tensor-level value); got DistributedTensor. "
            "In a tile-level kernel use pld.tile.remote_store; to push one window buffer into another use pld.tensor.put.",
        )
    if isinstance(src, Tile) or not (is_torch_tensor(src) or isinstance(src, TensorValue)):
        raise UsageTypeError(
            op,
            f"pld.tensor.remote_store expects a Tensor src (a tensor-level value); got {type(src).__name__}. "
            "In a tile-level kernel use pld.tile.remote_store; to push one window buffer into another use pld.tensor.put.",
        )
    code = atomic_code(atomic, op)
    p, offs = scalar_int(peer, op, "peer"), index_list(offsets, op, "offsets")
    file, line = caller()
    if isinstance(src, TensorValue):  # computed on-core: pushed from its tile
        _pldsim.remote_store(file, line, src._value._tile, target._view, p, offs, code, op)
    else:  # still in global memory: libpld bridges it with a load, as upstream
        _pldsim.tensor_remote_store(file, line, any_view(src, op, "src"), target._view, p, offs, code)


def unified_remote_store(src: Any, target: Any, peer: Any, offsets: Any, *, atomic: Any = AtomicType.None_) -> None:
    """pld.remote_store: the tile or the tensor form, by the source's type."""
    if isinstance(src, Tile):
        tile_remote_store(src, target, peer, offsets, atomic=atomic)
    else:
        tensor_remote_store(src, target, peer, offsets, atomic=atomic)


# ---- tensor-level put/get ---------------------------------------------------------


def _chunks(op: str, chunk_rows: Any, chunk_cols: Any, pipeline: Any) -> None:
    for label, value in (("chunk_rows", chunk_rows), ("chunk_cols", chunk_cols)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise UsageTypeError(op, f"{op} {label} must be an int (static), got {type(value).__name__}")
        if value < 0:
            raise UsageValueError(op, f"{op} {label} must be non-negative (0 = full), got {value}")
    if pipeline and not (chunk_rows > 0 and chunk_cols > 0):
        raise UsageValueError(
            op,
            f"{op} pipeline=True requires both chunk_rows>0 and chunk_cols>0 (got chunk_rows={chunk_rows}, chunk_cols={chunk_cols})",
        )


def _region(op: str, dst_offsets: Any, src_offsets: Any, shape: Any) -> tuple[Any, Any, Any]:
    given = [x is not None for x in (dst_offsets, src_offsets, shape)]
    if any(given) and not all(given):
        raise UsageValueError(op, f"{op} dst_offsets, src_offsets, and shape must be provided together")
    if not any(given):
        return (None, None, None)
    return (index_list(dst_offsets, op, "dst_offsets"), index_list(src_offsets, op, "src_offsets"), index_list(shape, op, "shape"))


def put(dst: Any, peer: Any, src: Any, dst_offsets: Any = None, src_offsets: Any = None, shape: Any = None, *, atomic: Any = AtomicType.None_, chunk_rows: int = 0, chunk_cols: int = 0, pipeline: bool = False) -> None:
    """Synchronous push of the local `src` into the peer's copy of `dst`."""
    op = "pld.tensor.put"
    _chunks(op, chunk_rows, chunk_cols, pipeline)
    if not isinstance(dst, DistributedTensor):
        raise UsageTypeError(op, f"pld.tensor.put expects a DistributedTensor dst (window-bound); got {type(dst).__name__}")
    if not (isinstance(src, DistributedTensor) or is_torch_tensor(src)):
        raise UsageTypeError(op, f"pld.tensor.put expects a Tensor or DistributedTensor src; got {type(src).__name__}")
    region = _region(op, dst_offsets, src_offsets, shape)
    s = any_view(src, op, "src")
    file, line = caller()
    _pldsim.put(file, line, dst._view, scalar_int(peer, op, "peer"), s, *region, atomic_code(atomic, op), chunk_rows, chunk_cols, bool(pipeline))


def get(dst: Any, peer: Any, src: Any, dst_offsets: Any = None, src_offsets: Any = None, shape: Any = None, *, chunk_rows: int = 0, chunk_cols: int = 0, pipeline: bool = False) -> None:
    """Synchronous pull of the peer's copy of `src` into the local `dst`."""
    op = "pld.tensor.get"
    _chunks(op, chunk_rows, chunk_cols, pipeline)
    if not (isinstance(dst, DistributedTensor) or is_torch_tensor(dst)):
        raise UsageTypeError(op, f"pld.tensor.get expects a Tensor or DistributedTensor dst; got {type(dst).__name__}")
    if not isinstance(src, DistributedTensor):
        raise UsageTypeError(op, f"pld.tensor.get expects a DistributedTensor src (window-bound); got {type(src).__name__}")
    region = _region(op, dst_offsets, src_offsets, shape)
    d = any_view(dst, op, "dst")
    file, line = caller()
    _pldsim.get(file, line, d, scalar_int(peer, op, "peer"), src._view, *region, chunk_rows, chunk_cols, bool(pipeline))


# ---- asynchronous put (SDMA) ------------------------------------------------------


class AsyncSession:
    """A kernel's SDMA session (upstream's pl.AsyncSession): made by
    pld.system.async_session, valid in the kernel that made it."""

    __slots__ = ("_h",)

    def __init__(self, handle: tuple) -> None:
        self._h = handle

    def __repr__(self) -> str:
        return f"AsyncSession(id={self._h[0]}, rank={self._h[1]}, sync_id={self._h[3]}, block_bytes={self._h[4]})"


class AsyncEvent:
    """The completion handle of one put_async (upstream's pl.AsyncEvent)."""

    __slots__ = ("_h",)

    def __init__(self, handle: tuple) -> None:
        self._h = handle

    def __repr__(self) -> str:
        return f"AsyncEvent(id={self._h[0]}, session={self._h[1]}, rank={self._h[2]})"


def _static_int(value: Any, op: str, label: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise UsageTypeError(op, f"{op} {label} must be an int (static), got {type(value).__name__}")
    return value


def async_session(*, sync_id: int = 0, block_bytes: int = 0) -> AsyncSession:
    """Opens an SDMA session in the running kernel: what put_async issues
    to and wait_async_event drains.  `sync_id` is 0..7; `block_bytes` is the
    engine's transfer block (0: 1 MiB)."""
    op = "pld.system.async_session"
    file, line = caller()
    return AsyncSession(_pldsim.async_session(file, line, _static_int(sync_id, op, "sync_id"), _static_int(block_bytes, op, "block_bytes")))


def put_async(dst: Any, peer: Any, src: Any, session: Any, dst_offsets: Any = None, src_offsets: Any = None, shape: Any = None) -> AsyncEvent:
    """Starts copying the local `src` into the peer's copy of `dst` on a DMA
    engine and returns at once; the bytes have landed when
    wait_async_event returns for the event."""
    op = "pld.tensor.put_async"
    if not isinstance(dst, DistributedTensor):
        raise UsageTypeError(op, f"pld.tensor.put_async expects a DistributedTensor dst (window-bound); got {type(dst).__name__}")
    if not (isinstance(src, DistributedTensor) or is_torch_tensor(src)):
        raise UsageTypeError(op, f"pld.tensor.put_async expects a Tensor or DistributedTensor src; got {type(src).__name__}")
    if not isinstance(session, AsyncSession):
        raise UsageTypeError(op, f"pld.tensor.put_async expects an AsyncSession (from pld.system.async_session); got {type(session).__name__}")
    region = _region(op, dst_offsets, src_offsets, shape)
    s = any_view(src, op, "src")
    file, line = caller()
    return AsyncEvent(_pldsim.put_async(file, line, dst._view, scalar_int(peer, op, "peer"), s, session._h, *region))


def wait_async_event(event: Any, session: Any) -> bool:
    """Blocks until the event's transfer has landed; returns True."""
    op = "pld.system.wait_async_event"
    if not isinstance(event, AsyncEvent):
        raise UsageTypeError(op, f"pld.system.wait_async_event expects an AsyncEvent (from pld.tensor.put_async); got {type(event).__name__}")
    if not isinstance(session, AsyncSession):
        raise UsageTypeError(op, f"pld.system.wait_async_event expects an AsyncSession (from pld.system.async_session); got {type(session).__name__}")
    file, line = caller()
    return bool(_pldsim.wait_async_event(file, line, event._h, session._h))


def tile_put(dst: Any, peer: Any, src: Any, stage: Any, stage2: Any = None, dst_offsets: Any = None, src_offsets: Any = None, shape: Any = None, *, atomic: Any = AtomicType.None_) -> None:
    """pld.tensor.put staged through the caller's own tiles: chunks of
    `stage`'s shape, double-buffered with `stage2`."""
    op = "pld.tile.put"
    if not isinstance(dst, DistributedTensor):
        raise UsageTypeError(op, f"pld.tile.put expects a DistributedTensor dst (window-bound); got {type(dst).__name__}")
    if not (isinstance(src, DistributedTensor) or is_torch_tensor(src)):
        raise UsageTypeError(op, f"pld.tile.put expects a Tensor or DistributedTensor src; got {type(src).__name__}")
    st, st2 = tile_of(stage, op, "stage"), None if stage2 is None else tile_of(stage2, op, "stage2")
    region = _region(op, dst_offsets, src_offsets, shape)
    s = any_view(src, op, "src")
    file, line = caller()
    _pldsim.tile_put(file, line, dst._view, scalar_int(peer, op, "peer"), s, st, st2, *region, atomic_code(atomic, op))


def tile_get(dst: Any, peer: Any, src: Any, stage: Any, stage2: Any = None, dst_offsets: Any = None, src_offsets: Any = None, shape: Any = None) -> None:
    """pld.tensor.get staged through the caller's own tiles."""
    op = "pld.tile.get"
    if not (isinstance(dst, DistributedTensor) or is_torch_tensor(dst)):
        raise UsageTypeError(op, f"pld.tile.get expects a Tensor or DistributedTensor dst; got {type(dst).__name__}")
    if not isinstance(src, DistributedTensor):
        raise UsageTypeError(op, f"pld.tile.get expects a DistributedTensor src (window-bound); got {type(src).__name__}")
    st, st2 = tile_of(stage, op, "stage"), None if stage2 is None else tile_of(stage2, op, "stage2")
    region = _region(op, dst_offsets, src_offsets, shape)
    d = any_view(dst, op, "dst")
    file, line = caller()
    _pldsim.tile_get(file, line, d, scalar_int(peer, op, "peer"), src._view, st, st2, *region)


# ---- collectives --------------------------------------------------------------------

_MISSING = object()


def _split(defer: Any, op: str, file: str, line: int) -> None:
    """defer=True: the call is split-phase (its waits become the task's
    deferred conditions, its rest runs when they hold)."""
    if not isinstance(defer, bool):
        raise UsageTypeError(op, f"{op} defer must be a bool, got {type(defer).__name__}")
    if defer:
        _pldsim.defer_next(file, line)


#: the largest core_num libpld can be handed (an int64); a larger one is
#: refused here, where it would otherwise be an OverflowError traceback
_CORE_NUM_MAX = 2**63 - 1


def _core_num(op: str, core_num: Any) -> None:
    """A collective's core_num: a positive int that libpld can take (the
    device's own AIV count is checked there, with the device named)."""
    if not isinstance(core_num, int) or isinstance(core_num, bool):
        raise UsageTypeError(op, f"{op} core_num must be a positive compile-time int, got {type(core_num).__name__}")
    if core_num <= 0:
        raise UsageValueError(op, f"{op} core_num must be positive, got {core_num}")
    if core_num > _CORE_NUM_MAX:
        raise UsageValueError(op, f"{op} core_num {core_num} is more cores than any device has; expected 1 to "
                                  "the device's vector cores (aiv_cores)")


def barrier(signal: Any, *, defer: bool = False) -> Any:
    """Every rank meets; returns `signal` (reusable: self-clearing)."""
    op = "pld.tensor.barrier"
    s = _window(signal, op, "signal")
    file, line = caller()
    _split(defer, op, file, line)
    _pldsim.barrier(file, line, s)
    return signal


def allreduce(target: Any, signal: Any = _MISSING, *, op: Any = ReduceOp.Sum, mode: str = "mesh", core_num: int = 1) -> Any:
    """Every rank's `target` becomes the reduction over ranks; returns it."""
    name = "pld.tensor.allreduce"
    _core_num(name, core_num)
    on_host = level() == HOST
    file, line = caller()
    if signal is _MISSING:
        if mode != "mesh":
            raise UsageValueError(
                name,
                f'pld.tensor.allreduce mode="{mode}" requires an explicit signal; host signal synthesis only supports '
                'mesh mode. Pass a window-bound signal, e.g. pld.tensor.allreduce(target, signal, mode="ring").',
            )
        if not on_host:
            raise UsageTypeError(name, "pld.tensor.allreduce in a kernel needs a signal window (only the host orchestrator's form synthesizes one)")
        signal = host_builtins.synthesized_signal(file, line, target, core_num)
    if signal is None:
        raise UsageTypeError(name, "pld.tensor.allreduce signal cannot be None; omit the signal argument for host synthesis")
    if core_num != 1 and not on_host:
        raise UsageValueError(name, f"pld.tensor.allreduce in a kernel takes core_num=1 (got {core_num})")
    if mode not in ("mesh", "ring"):
        raise UsageValueError(name, f'pld.tensor.allreduce mode must be "mesh" or "ring", got {mode!r}')
    code = _enum(op, ReduceOp, name, "op") + 1
    t, s = _window(target, name, "target"), _window(signal, name, "signal")
    _pldsim.allreduce(file, line, t, s, code, 1 if mode == "mesh" else 2, core_num)
    return target


def broadcast(target: Any, signal: Any, *, root: Any, defer: bool = False) -> Any:
    """Every rank's `target` becomes root's; returns it."""
    op = "pld.tensor.broadcast"
    if isinstance(root, bool) or not isinstance(root, int) or root < 0:
        raise UsageValueError(op, f"pld.tensor.broadcast root must be a non-negative int, got {root!r}")
    t, s = _window(target, op, "target"), _window(signal, op, "signal")
    file, line = caller()
    _split(defer, op, file, line)
    _pldsim.broadcast(file, line, t, s, root)
    return target


def allgather(local_data: Any, target: Any, signal: Any, *, defer: bool = False) -> Any:
    """Row `me` of every rank's `target` becomes my `local_data`; returns `target`."""
    op = "pld.tensor.allgather"
    loc = any_view(local_data, op, "local_data")
    t, s = _window(target, op, "target"), _window(signal, op, "signal")
    file, line = caller()
    _split(defer, op, file, line)
    _pldsim.allgather(file, line, loc, t, s)
    return target


def reduce_scatter(target: Any, signal: Any, *, op: Any = ReduceOp.Sum) -> Any:
    """Row `me` of my `target` becomes the reduction of every rank's row `me`."""
    name = "pld.tensor.reduce_scatter"
    code = _enum(op, ReduceOp, name, "op") + 1
    t, s = _window(target, name, "target"), _window(signal, name, "signal")
    file, line = caller()
    _pldsim.reduce_scatter(file, line, t, s, code)
    return target


def all_to_all(input: Any, target: Any, signal: Any, *, defer: bool = False) -> Any:  # noqa: A002 - upstream's name
    """Row d of my `input` goes to row `me` of rank d's `target`; returns `target`."""
    op = "pld.tensor.all_to_all"
    i = any_view(input, op, "input")
    t, s = _window(target, op, "target"), _window(signal, op, "signal")
    file, line = caller()
    _split(defer, op, file, line)
    _pldsim.all_to_all(file, line, i, t, s)
    return target


def all_to_all_v(input: Any, target: Any, signal: Any, send_counts: Any, recv_counts: Any, *, defer: bool = False, core_num: int = 1) -> Any:  # noqa: A002
    """Block d (MAX_RECV = rows / P rows) of my `input` goes to block `me` of
    rank d's `target`, and min(send_counts[d], MAX_RECV) to d's
    recv_counts[me]; returns `target`.  On the host, core_num = L launches
    the builtin B = L if L < P else L // P * P blocks wide (signal [P, >= B])."""
    op = "pld.tensor.all_to_all_v"
    _core_num(op, core_num)
    i, c = any_view(input, op, "input"), any_view(send_counts, op, "send_counts")
    t, s, r = _window(target, op, "target"), _window(signal, op, "signal"), _window(recv_counts, op, "recv_counts")
    file, line = caller()
    _split(defer, op, file, line)
    _pldsim.all_to_all_v(file, line, i, t, s, c, r, core_num)
    return target
