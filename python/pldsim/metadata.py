"""A compiled program's parameter metadata, as upstream's compiled
programs describe their entry (``compiled._get_metadata()``).

Tools built on upstream's runtime read it to put their arguments in the
entry's order and to tell outputs from inputs: pypto-lib's golden runner,
for one, builds each call's arguments from it.  pldsim reads the same
facts from the entry function's annotations: each parameter's name, its
direction (``pl.Out``, ``pl.InOut`` or neither), its shape (-1 for a
``pl.dynamic`` dimension, None for a scalar) and its dtype."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from .annotations import DirectionAnn, ScalarAnn, Signature, TensorAnn
from .values import DataType


class ParamDirection(enum.Enum):
    """How a function uses a parameter (upstream's ParamDirection)."""

    In = 0
    Out = 1
    InOut = 2


@dataclass
class ParamInfo:
    """One parameter of a compiled program's entry (upstream's _ParamInfo)."""

    name: str
    direction: ParamDirection
    shape: list[int] | None  # None for a scalar; -1 for a dimension bound at run time
    dtype: DataType | None


def _return_types(sig: Signature) -> list[Any]:
    """The declared results: the return annotation, one entry per value."""
    ret = sig.anns.get("return")
    if ret is None:
        return []
    args = getattr(ret, "__args__", None)
    if getattr(ret, "__origin__", None) is tuple and args is not None:
        return list(args)
    return [ret]


def of_signature(sig: Signature) -> tuple[list[ParamInfo], list[int], list[Any]]:
    """(parameters, indices of the pure outputs, declared results) of the
    function `sig` describes."""
    infos: list[ParamInfo] = []
    outputs: list[int] = []
    for i, p in enumerate(sig.params):
        ann = sig.anns.get(p.name)
        direction = ParamDirection.In
        if isinstance(ann, DirectionAnn):
            direction = ParamDirection.Out if ann.direction == "Out" else ParamDirection.InOut
            ann = ann.inner
        shape: list[int] | None = None
        dtype: DataType | None = None
        if isinstance(ann, TensorAnn):
            dtype = ann.dtype
            if ann.shape is not None:
                shape = [d if isinstance(d, int) else -1 for d in ann.shape]
        elif isinstance(ann, ScalarAnn):
            dtype = ann.dtype
        infos.append(ParamInfo(p.name, direction, shape, dtype))
        if direction is ParamDirection.Out:
            outputs.append(i)
    return infos, outputs, _return_types(sig)
