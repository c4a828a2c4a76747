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

from .values import is_torch_tensor
from .values import torch as torch_module


class DeviceTensor:
    """A tensor that lives on the worker between dispatches."""

    def __init__(self, data: Any, owner: Any):
        self._data = data
        self._owner = owner
        self.freed = False

    @property
    def shape(self) -> tuple:
        return tuple(self._data.shape)

    @property
    def dtype(self) -> Any:
        return self._data.dtype

    def tensor(self, where: str) -> Any:
        """The memory, for a dispatch; refused once freed."""
        if self.freed:
            raise RuntimeError(f"{where}: this DeviceTensor has been freed")
        return self._data

    def __repr__(self) -> str:
        return f"<DeviceTensor {list(self.shape)} {self.dtype}{' freed' if self.freed else ''}>"


class StackedDeviceTensor(DeviceTensor):
    """A ``[B, ...]`` tensor whose shard i lives on card worker_ids[i]."""

    def __init__(self, data: Any, owner: Any, worker_ids: list[int]):
        super().__init__(data, owner)
        self.worker_ids = worker_ids


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
    data = torch.zeros(shape, dtype=dtype).share_memory_()
    if init is not None:
        if not is_torch_tensor(init):
            raise TypeError(f"{where}: init must be a torch.Tensor, got {type(init).__name__}")
        if tuple(init.shape) != shape or init.dtype != dtype:
            raise ValueError(f"{where}: init is {list(init.shape)} {init.dtype}; the tensor is {list(shape)} {dtype}")
        data.copy_(init)
    return data
