"""Annotation types of ``pypto.language``: ``pl.Tensor[[shape], dtype]``,
``pl.Tile[...]``, ``pl.Scalar[dtype]``, ``pl.Array[N, dtype]``, ``pl.Out[...]``, ``pl.InOut[...]``,
``pl.dynamic(name)``, and the window-buffer token ``pl.Ptr``.

Each name is pldsim's, re-exported: the annotation types from
pldsim/annotations.py, Tile and Ptr from pldsim/values.py, the async
session and event from pldsim/comm.py."""

from pldsim.annotations import Array, DynVar, InOut, IntLike, Out, Scalar, Tensor, dynamic
from pldsim.comm import AsyncEvent, AsyncSession
from pldsim.values import Ptr, Tile

__all__ = ["Array", "AsyncEvent", "AsyncSession", "DynVar", "InOut", "IntLike", "Out", "Ptr", "Scalar", "Tensor", "Tile", "dynamic"]
