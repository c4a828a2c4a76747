"""The values a program handles: dtypes, host tensors (torch), window views
(``pld.DistributedTensor``), tiles, window buffers (``Ptr``) and comm
contexts, each wrapping what libpld returned."""

from __future__ import annotations

import bisect
import mmap
import sys
from typing import Any, Callable

import _pldsim

from .errors import UnsupportedError, UsageTypeError, UsageValueError


# why a tile has no values to give: the modes that keep none
NO_VALUES = "the tile holds no values (a --no-data or --timing-only run computes none there); drop the flag to read them"


class DataType:
    """An element type, as ``pl.FP32`` upstream.  ``code`` is libpld's
    pl_dtype (0: a scalar-only type such as INDEX, which no tensor has)."""

    __slots__ = ("name", "bits", "code", "torch_name", "is_float")

    def __init__(self, name: str, bits: int, code: int, torch_name: str | None, is_float: bool):
        self.name = name
        self.bits = bits
        self.code = code
        self.torch_name = torch_name
        self.is_float = is_float

    def get_byte(self) -> int:
        """Bytes per element."""
        return (self.bits + 7) // 8

    def get_bit(self) -> int:
        """Bits per element."""
        return self.bits

    def to_string(self) -> str:
        return self.name.lower()

    def __repr__(self) -> str:
        return f"pl.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


FP32 = DataType("FP32", 32, 1, "float32", True)
FP16 = DataType("FP16", 16, 2, "float16", True)
BF16 = DataType("BF16", 16, 3, "bfloat16", True)
INT8 = DataType("INT8", 8, 4, "int8", False)
INT16 = DataType("INT16", 16, 5, "int16", False)
INT32 = DataType("INT32", 32, 6, "int32", False)
INT64 = DataType("INT64", 64, 7, "int64", False)
UINT8 = DataType("UINT8", 8, 9, "uint8", False)
UINT16 = DataType("UINT16", 16, 0, None, False)
UINT32 = DataType("UINT32", 32, 8, None, False)  # tiles only: torch before 2.3 has no uint32
UINT64 = DataType("UINT64", 64, 0, None, False)
# the FP8 formats of MX quantisation (torch 2.1 has float8_e4m3fn, 2.7
# float8_e8m0fnu); libpld converts them as torch does (docs/api.md)
FP8E4M3FN = DataType("FP8E4M3FN", 8, 10, "float8_e4m3fn", True)
FP8E8M0 = DataType("FP8E8M0", 8, 11, "float8_e8m0fnu", True)
# upstream's other narrow formats, which no pldsim tensor or tile can have
FP8E5M2 = DataType("FP8E5M2", 8, 0, None, True)
FP4 = DataType("FP4", 4, 0, None, True)
HF4 = DataType("HF4", 4, 0, None, True)
HF8 = DataType("HF8", 8, 0, None, True)
INT4 = DataType("INT4", 4, 0, None, False)
UINT4 = DataType("UINT4", 4, 0, None, False)
BOOL = DataType("BOOL", 8, 0, "bool", False)
INDEX = DataType("INDEX", 64, 0, None, False)
# a task of a manual scope (`with pl.spmd(...) as tid`): a scalar and array
# type only, as upstream's
TASK_ID = DataType("TASK_ID", 64, 0, None, False)

ALL_DTYPES = (
    FP32, FP16, BF16, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, BOOL, INDEX, TASK_ID,
    FP8E4M3FN, FP8E8M0, FP8E5M2, FP4, HF4, HF8, INT4, UINT4,
)
_BY_CODE = {d.code: d for d in ALL_DTYPES if d.code}


def _dtype_by_name(name: str) -> DataType:
    return next(d for d in ALL_DTYPES if d.name == name)


def dtype_of_code(code: int) -> DataType:
    return _BY_CODE[code]


def tensor_dtype(dt: Any, op: str) -> DataType:
    """`dt` as a dtype a tensor can have on pldsim."""
    if not isinstance(dt, DataType):
        raise UsageTypeError(op, f"dtype must be a pl dtype such as pl.FP32, got {dt!r}")
    if not dt.code:
        supported = ", ".join(repr(d) for d in _BY_CODE.values())
        raise UsageValueError(op, f"{dt!r} tensors are not supported by pldsim (supported: {supported})")
    return dt


def int_range(dt: DataType) -> tuple[int, int] | None:
    """The values an integer dtype holds, lowest and highest (None: a
    float, BOOL or a scalar-only type such as TASK_ID)."""
    if dt.is_float or dt.name in ("BOOL", "TASK_ID"):
        return None
    if dt.name.startswith("UINT"):
        return 0, (1 << dt.bits) - 1
    return -(1 << (dt.bits - 1)), (1 << (dt.bits - 1)) - 1


def typed_scalar(v: float, dt: DataType) -> Any:
    """A number libpld gives as a double, as a scalar of `dt`: an int for
    an integer dtype."""
    return v if dt.is_float else int(v)


_ATOMIC_NONE, _ATOMIC_ADD = 0, 1


def atomic_code(atomic: Any, op: str) -> int:
    """libpld's pl_atomic for upstream's AtomicType (None_ = 0, Add = 1)."""
    if isinstance(atomic, bool) or not isinstance(atomic, int) or int(atomic) not in (0, 1):
        raise UsageTypeError(op, f"atomic must be pld.AtomicType.None_ or pld.AtomicType.Add, got {atomic!r}")
    return _ATOMIC_ADD if int(atomic) == 1 else _ATOMIC_NONE


# ---- host tensors ---------------------------------------------------------

def torch():
    """torch, imported when first needed (programs import it anyway)."""
    import torch as t

    return t


def is_torch_tensor(x: Any) -> bool:
    t = sys.modules.get("torch")
    return t is not None and isinstance(x, t.Tensor)


class HostNames:
    """The names of the host tensors of the run, found by address, so that
    ``x[r]`` is still called ``x`` in messages and traces."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._spans: list[tuple[int, int, str]] = []
        self._shapes: list[tuple[int, ...]] = []  # each span's shape; () where not row-major

    def add(self, t: Any, name: str) -> None:
        start = t.data_ptr()
        end = start + t.numel() * t.element_size()
        i = bisect.bisect(self._starts, start)
        self._starts.insert(i, start)
        self._spans.insert(i, (start, end, name))
        self._shapes.insert(i, tuple(t.shape) if t.is_contiguous() else ())

    def _find(self, t: Any) -> int:
        p = t.data_ptr()
        i = bisect.bisect(self._starts, p) - 1
        while i >= 0:
            start, end, _ = self._spans[i]
            if start <= p < end or (start == p == end):
                return i
            i -= 1
        return -1

    def name(self, t: Any) -> str:
        i = self._find(t)
        return self._spans[i][2] if i >= 0 else "tensor"

    def array_bytes(self, t: Any) -> int:
        """The bytes of the array a view `t` of a named host tensor reads
        from, which is what the clock asks of a load (does it fit the L2?).
        A slice of a slice, such as ``w[r][n0:n1, k0:k1]``, keeps only its
        own rows in its strides; the named tensor has them all.  The array
        is its dims from the one the view's leading rows step over:
        ``w[r]``'s slab [V, D] of a ``w`` of [P, V, D], not the P ranks'
        whole.  0 where that is not known (no named row-major tensor, or no
        dim with that stride): libpld then takes the view's own layout."""
        i = self._find(t)
        shape = self._shapes[i] if i >= 0 else ()
        lead = next((s for n, s in zip(t.shape, t.stride()) if n > 1), None)
        if not shape or lead is None:
            return 0
        # the bytes from the view's first element to past its last: the
        # array must hold them, and so must the named tensor (an entry
        # whose memory was freed and reused by an unnamed tensor may not)
        size = t.element_size()
        view = size * (1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride())))
        start, end, _ = self._spans[i]
        if t.data_ptr() + view > end:
            return 0
        span = 1
        for k in range(len(shape) - 1, -1, -1):  # row-major: the stride of dim k
            if span == lead and shape[k] > 1:
                n = 1
                for d in shape[k:]:
                    n *= d
                return n * size if n * size >= view else 0
            span *= shape[k]
        return 0


HOST_NAMES = HostNames()
_BY_TORCH: dict[Any, DataType] = {}


def torch_storage(dt: DataType) -> Any:
    """The torch dtype that holds a tile of `dt` in the front end: its own,
    or for UINT32 (which torch lacks before 2.3) int32, the same bits.  An
    FP8 tile's values need torch's own FP8 dtype (torch 2.1, and 2.7 for
    E8M0): on an older torch this says so in one line."""
    th = torch()
    storage = getattr(th, dt.torch_name or "int32", None)
    if storage is None:  # only the FP8 dtypes are newer than the torch pldsim needs
        raise UnsupportedError(
            repr(dt), f"{dt!r} values need torch.{dt.torch_name}, which torch {th.__version__} lacks (torch {_FP8_TORCH[dt.name]} or later has it)"
        )
    return storage


# the first torch that has each FP8 dtype
_FP8_TORCH = {"FP8E4M3FN": "2.1", "FP8E8M0": "2.7"}


def _over_bytes(shape: list[int] | tuple[int, ...], dtype: Any, make: Any) -> Any:
    """A `dtype` tensor of `shape` over the uint8 tensor that `make(nbytes)`
    gives (at least one byte: an empty mapping cannot be made)."""
    th = torch()
    n = 1
    for d in shape:
        n *= int(d)
    nbytes = n * th.empty(0, dtype=dtype).element_size()
    return make(max(1, nbytes))[:nbytes].view(dtype).reshape(tuple(shape))


def lazy_zeros(shape: list[int] | tuple[int, ...], dtype: Any) -> Any:
    """A zero torch tensor whose pages take memory only once written.
    numpy's zeros come from calloc, which for a large block maps fresh
    zero pages; torch.zeros writes every page.  A model layer's kernels
    make scratch tensors of megabytes per rank and call, and under
    --timing-only most are never written (pl.create_tensor)."""
    th = torch()
    try:
        import numpy
    except ImportError:  # a torch without numpy: the pages are written
        return th.zeros(tuple(shape), dtype=dtype)
    return _over_bytes(shape, dtype, lambda nbytes: th.from_numpy(numpy.zeros(nbytes, numpy.uint8)))


#: the MAP_SHARED mappings behind fork_shared_zeros' tensors, by address
#: (kept alive with them; isolate.py shares these with a child as they are)
FORK_SHARED: dict[int, Any] = {}


# Linux's MAP_NORESERVE (Python's mmap module names it only from 3.13): no
# swap is reserved for the mapping, so a --shape-only placeholder larger
# than the machine (pro/decode_fwd.py's routed experts are 128 GB) can be
# mapped; pages still take memory when written, and none of these is.
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000 if sys.platform.startswith("linux") else 0)


def fork_shared_zeros(shape: list[int] | tuple[int, ...], dtype: Any) -> Any:
    """A zero tensor in anonymous shared memory (MAP_SHARED): a forked sim
    child writes the same pages the parent reads, as share_memory_ gives,
    but a page takes memory only once written.  torch's own shared memory
    (share_memory_, UntypedStorage._new_shared) reserves every page of its
    file at once (fallocate), so a model file's gigabytes of resident
    weights, or a --shape-only placeholder of them, took that memory before
    the run wrote a byte."""
    th = torch()
    maps: list[Any] = []

    def make(nbytes: int) -> Any:
        maps.append(mmap.mmap(-1, nbytes, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS | _MAP_NORESERVE))
        return th.frombuffer(maps[0], dtype=th.uint8)

    t = _over_bytes(shape, dtype, make)
    FORK_SHARED[t.untyped_storage().data_ptr()] = maps[0]
    return t


def is_fork_shared(t: Any) -> bool:
    """Is torch tensor `t` a view of fork_shared_zeros' memory?"""
    return t.untyped_storage().data_ptr() in FORK_SHARED


def dtype_of_torch(t: Any) -> DataType | None:
    """The pl dtype of a torch tensor, or None for one pldsim lacks."""
    if not _BY_TORCH:
        tt = torch()
        for d in ALL_DTYPES:
            if d.torch_name and hasattr(tt, d.torch_name):
                _BY_TORCH[getattr(tt, d.torch_name)] = d
    return _BY_TORCH.get(t.dtype)


def host_view(t: Any, op: str, what: str) -> Any:
    """libpld's view of a torch tensor (its memory, shape and dtype)."""
    dt = dtype_of_torch(t)
    code = dt.code if dt else 0
    if not code:
        raise UsageTypeError(op, f"{what} is a torch.{str(t.dtype).split('.')[-1]} tensor, which pldsim does not support")
    if t.device.type != "cpu":
        raise UsageValueError(op, f"{what} is on {t.device}; pldsim reads host tensors from CPU memory")
    if t.dim() == 0:
        raise UsageValueError(op, f"{what} is a 0-d tensor; a tensor needs 1 to 4 dimensions")
    if t.is_contiguous():
        return _pldsim.host_view(code, tuple(t.shape), t.data_ptr(), HOST_NAMES.name(t), t, None, float(HOST_NAMES.array_bytes(t)))
    layout = _layout_of(t)
    if layout is None:
        raise UsageValueError(
            op, f"{what} has strides {tuple(t.stride())}, which are not a slice of a row-major tensor; pass {what}.contiguous()"
        )
    return _pldsim.host_view(code, tuple(t.shape), t.data_ptr(), HOST_NAMES.name(t), t, layout, float(HOST_NAMES.array_bytes(t)))


def _layout_of(t: Any) -> tuple[int, ...] | None:
    """The row-major array a strided torch view (a slice, such as
    ``x[:, 0:32]``) lies in, or None when its strides are not a slice's.
    A unit dim's stride is free in torch: it is taken as the next dim's
    span, which addresses the same elements."""
    shape, stride = list(t.shape), list(t.stride())
    nd = len(shape)
    for i in range(nd - 1, -1, -1):
        if shape[i] == 1:
            stride[i] = 1 if i == nd - 1 else stride[i + 1] * shape[i + 1]
    if stride[-1] != 1:
        return None
    layout = [shape[0]]
    for i in range(1, nd):
        if stride[i] <= 0 or stride[i - 1] % stride[i] or stride[i - 1] // stride[i] < shape[i]:
            return None
        layout.append(stride[i - 1] // stride[i])
    return tuple(layout)



# ---- pldsim's own values ------------------------------------------------------


class _Delegates:
    """What the classes below do that the modules built on this one
    define: tensor_ops.py a subscript (``x[key]``, ``x[key] = v``) and a
    torch function of a view or a value, annotations.py the annotation
    form ``X[[shape], dtype]`` and bind_dynamic.  Each fills its part in when imported
    (pypto.language imports both), so that this module, which they
    import, imports neither back."""

    subscript_read: Callable[[Any, Any], Any]
    subscript_write: Callable[[Any, Any, Any], None]
    torch_function: Callable[[Any, Any, Any], Any]
    tensor_annotation: Callable[[Any, Any], Any]
    bind_dynamic: Callable[[Any, Any, Any], None]


DELEGATES = _Delegates()


class Ptr:
    """A window buffer (upstream's Ptr token), from pld.alloc_window_buffer."""

    __slots__ = ("_buf",)

    def __init__(self, buf: Any):
        self._buf = buf

    @property
    def name(self) -> str:
        return self._buf.name

    def __repr__(self) -> str:
        return f"<pld window buffer {self._buf.name!r}>"


class _TensorMeta(type):
    """Lets ``pld.DistributedTensor[[shape], dtype]`` be an annotation."""

    def __getitem__(cls, item: Any) -> Any:
        return DELEGATES.tensor_annotation(cls, item)


class DistributedTensor(metaclass=_TensorMeta):
    """A per-rank view of a window buffer.  Inside a kernel it means the
    executing rank's own copy; cross-rank ops take the peer as an argument."""

    __slots__ = ("_view",)

    def __init__(self, view: Any):
        self._view = view

    @property
    def shape(self) -> list[int]:
        return list(self._view.shape)

    @property
    def dtype(self) -> DataType:
        return dtype_of_code(self._view.dtype)

    @property
    def name(self) -> str:
        return self._view.name

    def bind_dynamic(self, dim: Any, var: Any) -> None:
        """Upstream's tensor.bind_dynamic (annotations.bind_dynamic)."""
        DELEGATES.bind_dynamic(self, dim, var)

    def __getitem__(self, key: Any) -> Any:
        """``win[a:b, c:d]``: a window view of that region (upstream's
        tensor.slice); ``win[i, j]`` with every dim indexed: one element."""
        return DELEGATES.subscript_read(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        """``win[a:b, c:d] = value``: upstream's tensor.assemble of `value`
        into that region."""
        DELEGATES.subscript_write(self, key, value)

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        return DELEGATES.torch_function(func, args, kwargs)

    def __repr__(self) -> str:
        return f"<pld.DistributedTensor {self._view.name} {self.shape} {self.dtype!r}>"


class TensorValue:
    """A tensor-level value that a kernel computed (``pl.add`` of tensors,
    ``pl.cast`` of a tensor): on-core, in a UB tile, as upstream's
    ConvertTensorToTileOps lowers it.  Write it to memory with
    ``pl.assemble`` (or ``out[...] = value``), or push it to a peer with
    ``pld.tensor.remote_store``; it dies with the kernel, as its tile."""

    __slots__ = ("_value",)

    def __init__(self, tile: Tile):
        self._value = tile

    @property
    def shape(self) -> list[int]:
        return self._value.shape

    @property
    def dtype(self) -> DataType:
        return self._value.dtype

    def __getitem__(self, key: Any) -> Any:
        """``v[a:b, c:d]``: a region of the value (upstream's tile.slice)."""
        return DELEGATES.subscript_read(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        """``v[a:b, c:d] = x``: x written into that region of the value."""
        DELEGATES.subscript_write(self, key, value)

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        return DELEGATES.torch_function(func, args, kwargs)

    def __repr__(self) -> str:
        return f"<pl.Tensor value {self.shape} {self.dtype!r}>"


class Tile(metaclass=_TensorMeta):
    """A tile in the running kernel's unified buffer (UB)."""

    __slots__ = ("_tile",)

    def __init__(self, tile: Any):
        self._tile = tile

    @property
    def shape(self) -> list[int]:
        return list(self._tile.shape)

    @property
    def dtype(self) -> DataType:
        return dtype_of_code(self._tile.dtype)

    def __getitem__(self, key: Any) -> Any:
        """``t[a:b, c:d]``: a tile of that region (upstream's tile.slice)."""
        return DELEGATES.subscript_read(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        """``t[a:b, c:d] = x``: x written into that region of the tile."""
        DELEGATES.subscript_write(self, key, value)

    def tolist(self) -> list[float]:
        """The tile's values in row-major order (for debugging)."""
        values = _pldsim.tile_values(self._tile)
        if values is None:
            raise UsageValueError("Tile.tolist", NO_VALUES)
        return values

    def __repr__(self) -> str:
        return f"<pl.Tile {self.shape} {self.dtype!r}>"


class CommCtx:
    """The communication context of a window domain (upstream's CommCtx)."""

    __slots__ = ("rank_", "nranks_")

    def __init__(self, rank: int, nranks: int):
        self.rank_ = rank
        self.nranks_ = nranks

    def __repr__(self) -> str:
        return f"<pld.CommCtx rank {self.rank_} of {self.nranks_}>"


def any_view(x: Any, op: str, what: str, *, window: bool | None = None) -> Any:
    """libpld's view of a host tensor or a window view.  `window` True
    requires a window view, False a host tensor, None either."""
    if isinstance(x, DistributedTensor):
        if window is False:
            raise UsageTypeError(op, f"{what} must be a host tensor (pl.Tensor), got a window view (pld.DistributedTensor)")
        return x._view
    if is_torch_tensor(x):
        if window:
            raise UsageTypeError(
                op,
                f"{what} must be a window view (pld.DistributedTensor, from pld.window), got a host tensor",
            )
        return host_view(x, op, what)
    kinds = "a window view (pld.DistributedTensor)" if window else "a tensor"
    raise UsageTypeError(op, f"{what} must be {kinds}, got {type(x).__name__}")


def tile_of(x: Any, op: str, what: str) -> Any:
    if not isinstance(x, Tile):
        raise UsageTypeError(op, f"{what} must be a tile (from pl.load or pld.tile.remote_load), got {type(x).__name__}")
    return x._tile


def index_list(x: Any, op: str, what: str) -> list[int]:
    """`x` as a list of ints (an offsets or shape argument)."""
    if isinstance(x, int) and not isinstance(x, bool):
        return [x]
    if not isinstance(x, (list, tuple)) and hasattr(x, "__index__") and not isinstance(x, bool):
        return [int(x.__index__())]  # a pl.dynamic dim or Scalar as one bound
    if not isinstance(x, (list, tuple)):
        raise UsageTypeError(op, f"{what} must be a list of ints, got {type(x).__name__}")
    out = []
    for i, v in enumerate(x):
        if isinstance(v, bool) or not isinstance(v, int):
            try:
                v = v.__index__()
            except (AttributeError, TypeError):
                raise UsageTypeError(op, f"{what}[{i}] must be an int, got {type(v).__name__}") from None
        out.append(int(v))
    return out


def scalar_int(x: Any, op: str, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        try:
            return int(x.__index__())
        except (AttributeError, TypeError):
            raise UsageTypeError(op, f"{what} must be an int, got {type(x).__name__}") from None
    return x
