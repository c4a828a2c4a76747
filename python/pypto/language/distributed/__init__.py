"""``pypto.language.distributed`` (``pld``) on pldsim: the distributed
vocabulary, executed eagerly by libpld's simulator.

``pld.system.*`` (world_size, get_comm_ctx, rank, nranks, notify, wait),
``pld.tensor.*`` (alloc_window_buffer, window, put, get, remote_store and
the collectives), ``pld.tile.*`` (remote_load, remote_store), the short
forms ``pld.<op>``, and the enums NotifyOp, WaitCmp, AtomicType, ReduceOp."""

from pldsim.comm import (
    AtomicType,
    NotifyOp,
    ReduceOp,
    WaitCmp,
    alloc_window_buffer,
    get_comm_ctx,
    nranks,
    rank,
    remote_load,
    unified_remote_store as remote_store,
    window,
    world_size,
)
from pldsim.values import CommCtx, DistributedTensor

from . import system, tensor, tile

CommCtxType = CommCtx

__all__ = [
    "AtomicType",
    "CommCtx",
    "CommCtxType",
    "DistributedTensor",
    "NotifyOp",
    "ReduceOp",
    "WaitCmp",
    "alloc_window_buffer",
    "get_comm_ctx",
    "nranks",
    "rank",
    "remote_load",
    "remote_store",
    "system",
    "tensor",
    "tile",
    "window",
    "world_size",
]
