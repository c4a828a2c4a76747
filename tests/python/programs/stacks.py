"""Python state that lives across the switches between ranks, for the tests
of SimGrid's coroutines under pldsim-py (tests/python/test_contexts.py).

    pldsim-py stacks.py MODE

Every switch between ranks happens inside a pld call; `barrier(k)` below
is one that certainly switches (each rank notifies its peer and waits for
the peer's k-th notify).  MODE:

- deep-raise: both ranks recurse DEPTH levels, meet in a barrier at the
  bottom, and rank 1 raises ZeroDivisionError there;
- recursion: both ranks recurse LEVELS deep, every other level through a
  C call (a callable object), with a barrier every STRIDE levels, and
  check what comes back up;
- recursion-error: rank 1 recurses without end, after a barrier
  (RecursionError);
- generators: generators that are suspended across barriers, that make
  pld calls themselves when resumed, that get an exception thrown in and
  are closed after a switch, and one that rank 0 starts and rank 1
  finishes;
- thread-state: threading.local() values and a contextvars.ContextVar set
  by each rank, read back after barriers; PyGILState_Ensure and a ctypes
  callback (which takes the GIL with it) on a rank;
- threads: prints how many OS threads ran the ranks' Python."""

import contextvars
import ctypes
import sys
import threading

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

MODE = sys.argv[1]
P, SIZE = 2, 64
DEPTH = 300  # deep-raise
STRIDE = 100  # recursion: a barrier every STRIDE levels
LEVELS, LIMIT = 4000, 10000  # recursion: levels, and the recursion limit for them

shared = {}  # what the ranks hand each other (a generator, thread ids)
local = threading.local()
var = contextvars.ContextVar("var", default=None)


def barrier(sig, me: int, k: int) -> None:
    """The k-th meeting of the two ranks (k = 1, 2, ...)."""
    pld.system.notify(sig, peer=1 - me, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, offsets=[1 - me, 0], expected=k, cmp=pld.WaitCmp.Ge)


def dive(n: int, sig, me: int) -> int:
    if n == 0:
        barrier(sig, me, 1)
        if me == 1:
            return 1 // 0  # FAULT deep-raise
        return 0
    return dive(n - 1, sig, me) + 1


class Climber:
    """Recursion through a C call (slot_tp_call) at every level: each level
    costs a C frame on the rank's stack, as well as a Python one."""

    def __init__(self, sig, me: int):
        self.sig, self.me, self.met = sig, me, 0

    def __call__(self, n: int, through_c: bool) -> int:
        if n % STRIDE == 0:
            self.met += 1
            barrier(self.sig, self.me, self.met)
        if n == 0:
            return 0
        below = self(n - 1, not through_c) if through_c else plain(self, n - 1, not through_c)
        return below + n


def plain(c: Climber, n: int, through_c: bool) -> int:
    return c.__call__(n, through_c)  # an ordinary Python call


def endless(n: int) -> int:
    return endless(n + 1) + 1  # FAULT recursion-error


def loads(data, me: int):
    """Yields the peer's vector, then ours: a pld call per resumption."""
    yield pld.tile.remote_load(data, peer=1 - me, offsets=[0, 0], shape=[1, SIZE])
    yield pl.load(data, [0, 0], [1, SIZE])


def counter(start: int):
    n = start
    try:
        while True:
            got = yield n
            n += 1 if got is None else got
    except KeyError as e:
        yield f"caught {e!r} at {n}"
    finally:
        shared.setdefault("closed", []).append(start)


def handed_over(sig):
    yield "started by rank 0"
    barrier(sig, 1, 5)  # rank 1 resumes it: a barrier of rank 1's
    yield "finished by rank 1"


def generators(t, data, sig, me: int):
    g = counter(100 * me)
    first = next(g)
    barrier(sig, me, 1)
    second = g.send(10)
    data = pl.store(t, [0, 0], data)
    barrier(sig, me, 2)  # both stores are in: the loads see them
    total = None
    for tile in loads(data, me):
        if total is None:
            barrier(sig, me, 3)  # the generator is suspended across it
            total = tile
        else:
            total = pl.add(total, tile)
    thrown = g.throw(KeyError("k"))
    g.close()
    print(f"generators: rank {me}: {first} {second} {thrown}", flush=True)
    if me == 0:
        h = handed_over(sig)
        shared["h"] = (h, next(h))
        barrier(sig, me, 4)
        barrier(sig, me, 5)
    else:
        barrier(sig, me, 4)  # rank 0 has handed it over
        h, said = shared["h"]
        said2 = next(h)  # rank 1's 5th barrier, inside
        print(f"generators: {said} / {said2}; closed {sorted(shared['closed'])}", flush=True)
    return total


def thread_state(sig, me: int) -> None:
    local.rank = me
    var.set(f"rank {me}")
    barrier(sig, me, 1)
    ok = local.rank == me and var.get() == f"rank {me}"
    # PyGILState_Ensure on a rank: the GIL is this rank's already
    api = ctypes.pythonapi
    api.PyGILState_Ensure.restype = ctypes.c_int
    state = api.PyGILState_Ensure()
    held = api.PyGILState_Check()
    api.PyGILState_Release(state)
    barrier(sig, me, 2)
    # a ctypes callback from C takes the GIL itself (PyGILState_Ensure)
    libc = ctypes.CDLL(None)
    values = (ctypes.c_int * 5)(5, 1, 4, 2, 3)
    cmp_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
    libc.qsort(values, 5, ctypes.sizeof(ctypes.c_int), cmp_t(lambda a, b: a[0] - b[0]))
    barrier(sig, me, 3)
    ok = ok and local.rank == me and var.get() == f"rank {me}"
    print(f"thread-state: rank {me}: own values {ok}, GIL held {held}, sorted {list(values)}", flush=True)


@pl.jit.incore
def kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    sig: pld.DistributedTensor[[P, 1], pl.INT32],
):
    me = pld.rank(pld.get_comm_ctx(data))
    t = pl.load(x, [0, 0], [1, SIZE])
    if MODE == "deep-raise":
        dive(DEPTH, sig, me)
    elif MODE == "recursion":
        sys.setrecursionlimit(LIMIT)
        depth = LEVELS
        got = Climber(sig, me)(depth, True)
        print(f"recursion: rank {me}: {depth} levels, sum {got == depth * (depth + 1) // 2}", flush=True)
    elif MODE == "recursion-error":
        barrier(sig, me, 1)
        if me == 1:
            endless(0)
    elif MODE == "generators":
        t = generators(t, data, sig, me)
    elif MODE == "thread-state":
        thread_state(sig, me)
    elif MODE == "threads":
        shared.setdefault("ids", set()).add(threading.get_native_id())
        barrier(sig, me, 1)
        if me == 0:
            print(f"threads: {len(shared['ids'])} OS thread(s) ran the ranks", flush=True)
    return pl.store(t, [0, 0], y)


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
    sig: pld.DistributedTensor[[P, 1], pl.INT32],
):
    return kernel(x, y, data, sig)


@pl.jit.host
def host(x: pl.Tensor[[P, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[P, 1, SIZE], pl.FP32]]):
    data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([P, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
        sig = pld.window(sig_buf, [P, 1], dtype=pl.INT32)
        per_rank(x[r], y[r], data, sig, device=r)


x = torch.arange(P * SIZE, dtype=torch.float32).reshape(P, 1, SIZE)
y = torch.zeros(P, 1, SIZE)
compiled = host.compile(x, y, config=RunConfig(distributed_config=DistributedConfig(device_ids=[0, 1])))
compiled(x, y)
if MODE == "generators":
    # each rank's y is the sum of both ranks' x
    print(f"generators: y is x[0] + x[1]: {torch.equal(y[0], x[0] + x[1]) and torch.equal(y[1], x[0] + x[1])}")
print("OK")
