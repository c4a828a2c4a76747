"""``pld.tile.*``: tile-level remote load and store."""

from pldsim.comm import remote_load
from pldsim.comm import tile_remote_store as remote_store
from pldsim.errors import UnsupportedError


def put(*args, **kwargs):
    raise UnsupportedError("pld.tile.put", "pld.tile.put (with explicit stage tiles) is not supported by pldsim; use pld.tensor.put")


def get(*args, **kwargs):
    raise UnsupportedError("pld.tile.get", "pld.tile.get (with explicit stage tiles) is not supported by pldsim; use pld.tensor.get")


__all__ = ["get", "put", "remote_load", "remote_store"]
