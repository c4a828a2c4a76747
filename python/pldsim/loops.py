"""Loops with carried values: ``pl.range(..., init_values=...)`` and
``pl.yield_``, run eagerly.

Upstream's compiler turns a loop into SSA form, so a value that changes in
a loop is declared: ``for i, (acc,) in pl.range(n, init_values=(x,)):``
gives the body the carried values, and ``pl.yield_(v)`` at the end of the
body hands ``v`` to the next iteration (and, after the last one, to the
name it is assigned to).  Executed as Python, the body sees the values its
previous iteration yielded, and ``pl.yield_`` returns what it was given, so
``out = pl.yield_(v)`` leaves ``out`` holding the last iteration's value.

Outside such a loop (upstream also yields from the branches of an ``if``),
``pl.yield_`` only returns its values.  A loop that runs no iteration
leaves the names assigned in its body unbound, where upstream would bind
them to the initial values."""

from __future__ import annotations

import threading
from typing import Any, Iterable, Iterator

from .errors import UsageTypeError, UsageValueError

# each rank runs its Python on a thread of its own: loops nest per thread
_local = threading.local()


def _stack() -> list["CarriedLoop"]:
    stack = getattr(_local, "loops", None)
    if stack is None:
        stack = _local.loops = []
    return stack


class CarriedLoop:
    """The iterations of one loop and the values it carries."""

    def __init__(self, indices: Iterable[int], init_values: Any):
        if not isinstance(init_values, (tuple, list)):
            raise UsageTypeError("pl.range", f"init_values must be a tuple or a list, got {type(init_values).__name__}")
        self._indices = indices
        self._values = tuple(init_values)
        self._yielded: tuple | None = None

    def __iter__(self) -> Iterator[tuple[int, tuple]]:
        stack = _stack()
        stack.append(self)
        try:
            for i in self._indices:
                self._yielded = None
                yield i, self._values
                if self._yielded is not None:
                    self._values = self._yielded
        finally:
            stack.remove(self)

    def take(self, values: tuple) -> None:
        if len(values) != len(self._values):
            raise UsageValueError(
                "pl.yield_",
                f"the loop carries {len(self._values)} value(s) (init_values) but pl.yield_ gives {len(values)}",
            )
        self._yielded = values


def yield_(*values: Any) -> Any:
    """Hands `values` to the next iteration of the innermost carried loop;
    returns them (one value as itself, several as a tuple)."""
    stack = _stack()
    if stack:
        stack[-1].take(values)
    if not values:
        return None
    return values[0] if len(values) == 1 else values
