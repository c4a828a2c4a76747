"""``pld.tensor.*``: window buffers and views, tensor-level put/get and
remote_store, and the builtin collectives."""

from pldsim.comm import (
    all_to_all,
    all_to_all_v,
    allgather,
    allreduce,
    alloc_window_buffer,
    barrier,
    broadcast,
    get,
    put,
    put_async,
    reduce_scatter,
    tensor_remote_store as remote_store,
    window,
)

__all__ = [
    "all_to_all",
    "all_to_all_v",
    "allgather",
    "allreduce",
    "alloc_window_buffer",
    "barrier",
    "broadcast",
    "get",
    "put",
    "put_async",
    "reduce_scatter",
    "remote_store",
    "window",
]
