"""Worker-resident device memory, as upstream's runtime worker offers it
(``rt.alloc_tensor``, ``rt.alloc_stacked_tensor``, ``rt.submit``,
``rt.run``, ``rt.register``).

A device's memory is host memory on pldsim, so a resident tensor is a
torch tensor in shared memory that the worker owns: passed to a program,
it is that tensor, and it outlives the call, as upstream's DeviceTensor
outlives its dispatches.  A stacked tensor's shards are the rows of its
leading dimension; ``worker_ids`` (which card holds which shard) is
checked but changes nothing, since every rank sees host memory.  A submit
runs its program before it returns (a pldsim run is one call), so its
handle's result() only reports what the run raised."""

from __future__ import annotations


from typing import Any

from .values import fork_shared_zeros, is_torch_tensor
from .values import torch as torch_module


class DeviceTensor:
    """A tensor that lives on the worker between dispatches, on card
    `worker_id` (which, as upstream, free_tensor must name again)."""

    def __init__(self, data: Any, owner: Any, worker_id: int = 0):
        self._data = data
        self._owner = owner
        self.worker_id = worker_id
        self.freed = False

    @property
    def shape(self) -> tuple:
        return tuple(self._data.shape)

    @property
    def dtype(self) -> Any:
        return self._data.dtype

    @property
    def data_ptr(self) -> int:
        """The buffer's address (upstream's device pointer)."""
        return self._data.data_ptr()

    @property
    def nbytes(self) -> int:
        return self._data.numel() * self._data.element_size()

    def tensor(self, where: str) -> Any:
        """The memory, for a dispatch; refused once freed."""
        if self.freed:
            raise RuntimeError(f"{where}: this DeviceTensor has been freed")
        return self._data

    def __repr__(self) -> str:
        return f"<DeviceTensor {list(self.shape)} {self.dtype}{' freed' if self.freed else ''}>"


class StackedDeviceTensor(DeviceTensor):
    """A ``[B, ...]`` tensor whose shard i lives on card worker_ids[i].

    Made by ``alloc_stacked_tensor``, or, as upstream's, from B shards that
    ``alloc_tensor`` made: ``StackedDeviceTensor(shards, full_shape,
    worker_ids)``.  A pldsim stack is one tensor, so the shards' values move
    into its rows and each shard becomes a view of its row: written through
    either, both see it, as upstream's stack references the shards."""

    def __init__(self, shards: Any, full_shape: Any, worker_ids: Any = None):
        if isinstance(shards, DeviceTensor) or is_torch_tensor(shards):
            raise TypeError("StackedDeviceTensor(shards, full_shape, worker_ids): shards must be a sequence of DeviceTensor")
        shards = list(shards)
        full = tuple(int(d) for d in full_shape)
        ids = list(range(len(shards))) if worker_ids is None else [int(w) for w in worker_ids]
        if len(full) < 2 or full[0] < 1:
            raise ValueError(f"StackedDeviceTensor.full_shape must be [B, ...] with B >= 1 and rank >= 2, got {list(full)}")
        if len(shards) != full[0] or len(ids) != full[0]:
            raise ValueError(f"StackedDeviceTensor expects {full[0]} shards and worker ids (the leading dim of {list(full)}); got {len(shards)} and {len(ids)}")
        if len(set(ids)) != len(ids):
            raise ValueError(f"StackedDeviceTensor.worker_ids must be distinct, got {ids}")
        for i, sh in enumerate(shards):
            if not isinstance(sh, DeviceTensor) or isinstance(sh, StackedDeviceTensor):
                raise TypeError(f"shard {i} must be a DeviceTensor from alloc_tensor, got {type(sh).__name__}")
            if sh.freed:
                raise ValueError(f"shard {i} has been freed")
            if sh.shape != full[1:] or sh.dtype != shards[0].dtype:
                raise ValueError(f"shard {i} is {list(sh.shape)} {sh.dtype}; expected {list(full[1:])} {shards[0].dtype}")
        data = new_tensor(full, shards[0].dtype, None, "StackedDeviceTensor")
        for i, sh in enumerate(shards):
            copy_unless_zero(data[i], sh._data)
            sh._data = data[i]
        super().__init__(data, shards[0]._owner, 0)
        self.worker_ids = ids
        self.shards = tuple(shards)

    @classmethod
    def of(cls, data: Any, owner: Any, worker_ids: list[int]) -> "StackedDeviceTensor":
        """A stack over `data` (alloc_stacked_tensor's)."""
        t = cls.__new__(cls)
        DeviceTensor.__init__(t, data, owner, 0)
        t.worker_ids = worker_ids
        t.shards = ()
        return t


def unwrap(v: Any, where: str) -> Any:
    return v.tensor(where) if isinstance(v, DeviceTensor) else v


class SubmitHandle:
    """What submit returns: the run has happened; result() re-raises what
    it raised, if anything."""

    def __init__(self, error: BaseException | None):
        self._error = error

    def result(self, timeout: float | None = None) -> None:
        del timeout
        if self._error is not None:
            raise self._error

    def done(self) -> bool:
        return True


class ProgramHandle:
    """What register(compiled) returns: calling it dispatches that
    program on the worker."""

    def __init__(self, worker: Any, compiled: Any):
        self.compiled = compiled
        self._worker = worker
        self.closed = False

    def __call__(self, *args: Any, config: Any = None) -> None:
        if self.closed:
            raise RuntimeError(f"{self.compiled.name}: handle called after close")
        self._worker.run(self.compiled, *args, config=config)


def new_tensor(shape: Any, dtype: Any, init: Any, where: str) -> Any:
    torch = torch_module()
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"{where}: shape must be a sequence of ints, got {shape!r}") from None
    if any(d <= 0 for d in shape):
        raise ValueError(f"{where}: shape {list(shape)} has a dimension that is not positive")
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"{where}: dtype must be a torch.dtype, got {dtype!r}")
    data = fork_shared_zeros(shape, dtype)
    if init is not None:
        if not is_torch_tensor(init):
            raise TypeError(f"{where}: init must be a torch.Tensor, got {type(init).__name__}")
        if tuple(init.shape) != shape or init.dtype != dtype:
            raise ValueError(f"{where}: init is {list(init.shape)} {init.dtype}; the tensor is {list(shape)} {dtype}")
        copy_unless_zero(data, init)
    return data


#: the addresses of shape-only placeholders (shape_only.py): zeros that
#: nothing writes, so they are never copied or read
NEVER_WRITTEN: set[int] = set()


def copy_unless_zero(dst: Any, src: Any) -> None:
    """dst.copy_(src) for a freshly zeroed `dst`, skipped when `src` is all
    zeros: the shared memory's pages stay unwritten, so they take no memory
    until the run writes them (model files upload gigabytes of zero-filled
    weights; reading `src` costs no memory either where it is unwritten).
    A shape-only `src` (--shape-only) has no values: nothing is copied,
    and its placeholder is not read (a read would give its pages memory)."""
    if src.device.type == "meta" or src.data_ptr() in NEVER_WRITTEN:
        return
    if src.dtype.is_floating_point:
        # -0.0 is a zero that any() misses in its bits; copy it faithfully
        if bool(src.any()) or bool(torch_module().signbit(src).any()):
            dst.copy_(src)
    elif bool(src.any()):
        dst.copy_(src)
