"""Annotation types of ``pypto.language``: ``pl.Tensor[[shape], dtype]``,
``pl.Tile[...]``, ``pl.Scalar[dtype]``, ``pl.Out[...]``, ``pl.InOut[...]``,
``pl.dynamic(name)``, and the window-buffer token ``pl.Ptr``."""

from __future__ import annotations

from typing import Any, Union

from pldsim.annotations import DirectionAnn, DynVar, ScalarAnn, TensorAnn, tensor_annotation
from pldsim.comm import AsyncEvent, AsyncSession
from pldsim.values import DataType, Ptr, Tile, is_torch_tensor


class _TensorMeta(type):
    def __getitem__(cls, item: Any) -> TensorAnn:
        return tensor_annotation(cls, item)

    def __instancecheck__(cls, obj: Any) -> bool:
        return is_torch_tensor(obj)


class Tensor(metaclass=_TensorMeta):
    """A tensor in global memory: on pldsim, a torch tensor on the host.
    ``pl.Tensor[[1, 64], pl.FP32]`` annotates a parameter."""


class Scalar:
    """``pl.Scalar[pl.INT32]`` annotates a scalar parameter."""

    def __class_getitem__(cls, dtype: Any) -> ScalarAnn:
        if not isinstance(dtype, DataType):
            raise TypeError(f"pl.Scalar[dtype] expects a pl dtype such as pl.INT32, got {dtype!r}")
        return ScalarAnn(dtype)


class Out:
    """``pl.Out[T]``: a parameter the function writes (output only)."""

    def __class_getitem__(cls, inner: Any) -> DirectionAnn:
        return DirectionAnn("Out", inner)


class InOut:
    """``pl.InOut[T]``: a parameter the function reads and writes."""

    def __class_getitem__(cls, inner: Any) -> DirectionAnn:
        return DirectionAnn("InOut", inner)


def dynamic(name: str) -> DynVar:
    """A dimension bound at run time from the tensor passed (``pl.dynamic("NR")``)."""
    return DynVar(name)


IntLike = Union[int, DynVar]

__all__ = ["AsyncEvent", "AsyncSession", "DynVar", "InOut", "IntLike", "Out", "Ptr", "Scalar", "Tensor", "Tile", "dynamic"]
