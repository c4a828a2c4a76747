"""On-core arrays: ``pl.array.create(extent, dtype)``, read and written
by subscript (``a[i]``, ``a[i] = v``) or by ``pl.array.get_element`` and
``pl.array.update_element``.

Upstream keeps such an array on the core's scalar stack (ScalarLocal): a
compile-time number of integer (or BOOL) elements, private to the
function that made it.  pldsim holds it as a Python list; reading and
writing cost nothing, as scalar work costs nothing elsewhere.  A value is
stored as the dtype holds it: an integer wraps to the dtype's width, as C
would.  An array of pl.TASK_ID holds the task ids of a manual scope, for
later ``deps=``; an element not yet set is upstream's invalid id, None
here, which adds no edge.  An index outside the array is an error here (upstream
does not check it)."""

from __future__ import annotations

from typing import Any

from .errors import UsageTypeError, UsageValueError
from .taskids import TaskId
from .values import BOOL, TASK_ID, DataType


class Array:
    """A fixed-size array of integers (upstream's pl.Array)."""

    __slots__ = ("_values", "dtype")

    def __init__(self, extent: int, dtype: DataType):
        self.dtype = dtype
        self._values: list[Any] = [None if dtype is TASK_ID else 0] * extent

    def __len__(self) -> int:
        return len(self._values)

    def _index(self, op: str, index: Any) -> int:
        if isinstance(index, bool) or not isinstance(index, int):
            try:
                index = index.__index__()
            except (AttributeError, TypeError):
                raise UsageTypeError(op, f"an array index must be an integer, got {type(index).__name__}") from None
        if not 0 <= index < len(self._values):
            raise UsageValueError(op, f"index {index} is outside the array's {len(self._values)} elements")
        return index

    def _convert(self, op: str, value: Any) -> Any:
        if self.dtype is TASK_ID:
            if not isinstance(value, TaskId):
                raise UsageTypeError(op, f"an array of pl.TASK_ID holds task ids (from `with pl.at(...) as tid`), got {value!r}")
            return value
        if isinstance(value, float) or not isinstance(value, (int, bool)):
            try:
                value = value.__index__()
            except (AttributeError, TypeError):
                raise UsageTypeError(op, f"an array of {self.dtype!r} holds integers, got {type(value).__name__}") from None
        value = int(value)
        if self.dtype is BOOL:
            return int(bool(value))
        bits = self.dtype.bits
        value &= (1 << bits) - 1
        if not self.dtype.name.startswith("UINT") and value >= 1 << (bits - 1):
            value -= 1 << bits
        return value

    def __getitem__(self, index: Any) -> Any:
        # an element of a TASK_ID array not yet set is upstream's invalid id
        # (array.create fills PTO2TaskId::invalid()), read as None: in deps=
        # it adds no edge (qwen3_14b/prefill_fwd.py's first layer does so)
        return self._values[self._index("array.get_element", index)]

    def __setitem__(self, index: Any, value: Any) -> None:
        op = "array.update_element"
        self._values[self._index(op, index)] = self._convert(op, value)

    def __iter__(self):
        raise UsageTypeError("pl.array", "an array is read by index (a[i]), not iterated")

    def __repr__(self) -> str:
        return f"<pl.Array [{len(self._values)}] {self.dtype!r}>"


_INTEGER = ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "BOOL", "INDEX", "TASK_ID")


#: the most elements pl.array.create makes
MAX_EXTENT = 1 << 20


def create(extent: Any, dtype: Any) -> Array:
    """``pl.array.create(extent, dtype)``: `extent` zeros (undefined on
    hardware) of an integer or BOOL dtype, or `extent` empty slots for
    task ids (pl.TASK_ID)."""
    op = "pl.array.create"
    if isinstance(extent, bool) or not isinstance(extent, int):
        raise UsageTypeError(op, f"the extent must be a compile-time int, got {type(extent).__name__}")
    if extent <= 0:
        raise UsageValueError(op, f"the extent must be positive, got {extent}")
    if extent > MAX_EXTENT:
        # an array is a small scalar buffer on the device; here a Python
        # list, 8 bytes a slot: 10**9 silently took 7.9 GB
        raise UsageValueError(op, f"the extent {extent} is more than an array can hold; expected 1 to {MAX_EXTENT} "
                                  "(an array is a scalar buffer for indices, counts and task ids: keep larger data "
                                  "in a tensor)")
    if not isinstance(dtype, DataType) or dtype.name not in _INTEGER:
        raise UsageTypeError(op, f"an array's dtype must be an integer, BOOL or TASK_ID, got {dtype!r}")
    return Array(extent, dtype)


def get_element(array: Any, index: Any) -> int:
    """``pl.array.get_element(a, i)``: a[i]."""
    if not isinstance(array, Array):
        raise UsageTypeError("array.get_element", f"the first argument must be an array (pl.array.create), got {type(array).__name__}")
    return array[index]


def update_element(array: Any, index: Any, value: Any) -> Array:
    """``pl.array.update_element(a, i, v)``: a new array, `a` with a[i] = v
    (upstream's update is functional: `a` itself is unchanged)."""
    if not isinstance(array, Array):
        raise UsageTypeError("array.update_element", f"the first argument must be an array (pl.array.create), got {type(array).__name__}")
    out = Array(len(array), array.dtype)
    out._values = list(array._values)
    out[index] = value
    return out
