"""The comm domains pldsim infers from a host orchestrator's source, as
upstream's MaterializeCommDomainScopes does (pldsim.domains): run under
pldsim-py, prints OK when every case gives what upstream would."""

import pypto.language as pl
import pypto.language.distributed as pld
from pldsim import domains

ALL = domains.ALL
K = 2  # a module constant, as a loop bound


def world(x):
    a = pld.alloc_window_buffer(64)
    for r in pl.range(pld.world_size()):
        v = pld.window(a, [16], dtype=pl.FP32)
        chip(x, v, device=r)


def hoisted(x):
    nr = pld.world_size()
    a = pld.alloc_window_buffer(64)
    for r in pl.range(nr):
        chip(x, pld.window(a, [16], dtype=pl.FP32), device=r)


def ranges_and_union(x):
    a = pld.alloc_window_buffer(64)
    b = pld.alloc_window_buffer(64)
    c = pld.alloc_window_buffer(64)
    for r in pl.range(K):
        va = pld.window(a, [16], dtype=pl.FP32)
        chip(x, va, device=r)
    for i in pl.range(1, 3):
        vb = pld.window(b, [16], dtype=pl.FP32)
        chip(x, vb, device=i)
    vc = pld.window(c, [16], dtype=pl.FP32)
    chip(x, vc, device=0)
    chip(x, vc, device=3)


def signal_inherits(x):
    data = pld.alloc_window_buffer(64)
    sig = pld.alloc_window_buffer(8)
    d = pld.window(data, [16], dtype=pl.FP32)
    s = pld.window(sig, [2, 1], dtype=pl.INT32)
    for r in pl.range(2):
        chip(x, d, device=r)
    d = pld.tensor.allreduce(d, s)


def unknown_is_world(x, n):
    a = pld.alloc_window_buffer(64)
    for r in pl.range(n):  # a runtime bound: pldsim cannot read it
        chip(x, pld.window(a, [16], dtype=pl.FP32), device=r)


def chip(*args, **kwargs):
    pass


cases = [
    (world, {"a": ALL}),
    (hoisted, {"a": ALL}),
    (ranges_and_union, {"a": frozenset({0, 1}), "b": frozenset({1, 2}), "c": frozenset({0, 3})}),
    (signal_inherits, {"data": frozenset({0, 1}), "sig": frozenset({0, 1})}),
    (unknown_is_world, {"a": ALL}),
]
for fn, want in cases:
    got = domains.of_function(fn)
    assert got == want, f"{fn.__name__}: {got} != {want}"
print("OK")
