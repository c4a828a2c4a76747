"""``pl.prefetch``: upstream's asynchronous GM -> L2 prefetch, a cache hint
that the DeepSeek-V4 layers issue to warm the next kernels' weights.

It changes no values, so a program computes the same with or without it.
pldsim has no model of the L2 (a load costs what it costs, warm or not), so
a prefetch here moves nothing and costs nothing, and its wait is done at
once.  What is checked is what upstream's verifier checks: the source is a
tensor whose dimensions are all 1 but the last, and each handle is the
kind its op takes."""

from __future__ import annotations

import math
from typing import Any

from . import state
from .errors import UsageTypeError, UsageValueError
from .values import DistributedTensor, is_torch_tensor


class PrefetchContext:
    """``pl.prefetch.make_context()``: where prefetches are issued."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "PrefetchAsyncContext()"


class PrefetchEvent:
    """One prefetch's completion handle (upstream's AsyncEvent)."""

    __slots__ = ("bytes",)

    def __init__(self, nbytes: int):
        self.bytes = nbytes

    def __repr__(self) -> str:
        return f"AsyncEvent(prefetch of {self.bytes} B)"


class PrefetchSession:
    """The session of a prefetch context (upstream's AsyncSession)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "AsyncSession(prefetch)"


def _in_task(op: str) -> None:
    if state.kernel() is None:
        raise UsageTypeError(op, f"{op} runs in a kernel (a pl.at or pl.spmd task), where the SDMA engine is")


def make_context() -> PrefetchContext:
    _in_task("pl.prefetch.make_context")
    return PrefetchContext()


def async_prefetch(src: Any, ctx: Any) -> PrefetchEvent:
    """Starts a prefetch of `src` (a flat tensor: [N] or [1, ..., 1, N])."""
    op = "pl.prefetch.async_prefetch"
    _in_task(op)
    if not isinstance(ctx, PrefetchContext):
        raise UsageTypeError(op, f"ctx must come from pl.prefetch.make_context(), got {type(ctx).__name__}")
    if isinstance(src, DistributedTensor) or not is_torch_tensor(src):
        raise UsageTypeError(op, f"src must be a tensor in global memory, got {type(src).__name__}")
    shape = list(src.shape)
    if not shape or any(d != 1 for d in shape[:-1]):
        raise UsageValueError(op, f"src must be flat, every dimension 1 but the last ([N] or [1, N]), got {shape}: pl.reshape it")
    return PrefetchEvent(math.prod(shape) * src.element_size())


def session(ctx: Any) -> PrefetchSession:
    op = "pl.prefetch.session"
    if not isinstance(ctx, PrefetchContext):
        raise UsageTypeError(op, f"ctx must come from pl.prefetch.make_context(), got {type(ctx).__name__}")
    return PrefetchSession()


def wait(event: Any, session_handle: Any) -> bool:
    """Waits for a prefetch: done at once (pldsim has no L2 to fill)."""
    op = "pl.prefetch.wait"
    if not isinstance(event, PrefetchEvent):
        raise UsageTypeError(op, f"event must come from pl.prefetch.async_prefetch, got {type(event).__name__}")
    if not isinstance(session_handle, PrefetchSession):
        raise UsageTypeError(op, f"session must come from pl.prefetch.session, got {type(session_handle).__name__}")
    return True
