"""``pld.tile.*``: tile-level remote load and store, and put/get staged
through the caller's own tiles."""

from pldsim.comm import remote_load
from pldsim.comm import tile_get as get
from pldsim.comm import tile_put as put
from pldsim.comm import tile_remote_store as remote_store

__all__ = ["get", "put", "remote_load", "remote_store"]
