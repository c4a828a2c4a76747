"""``pld.system.*``: host queries, comm-context reads, notify and wait."""

from pldsim.comm import defer_wait, get_comm_ctx, notify, nranks, rank, wait, world_size

__all__ = ["defer_wait", "get_comm_ctx", "notify", "nranks", "rank", "wait", "world_size"]
