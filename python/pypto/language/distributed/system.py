"""``pld.system.*``: host queries, comm-context reads, notify and wait,
and the sessions and events of asynchronous puts."""

from pldsim.comm import async_session, defer_wait, get_comm_ctx, notify, nranks, rank, wait, wait_async_event, world_size

__all__ = ["async_session", "defer_wait", "get_comm_ctx", "notify", "nranks", "rank", "wait", "wait_async_event", "world_size"]
