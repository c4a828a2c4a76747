"""Compiling and running a program: what ``.compile(...)``, ``ir.compile``,
a compiled program's call, and a direct call of a decorated function do.

pldsim compiles nothing: a "compiled" program is the program's entry (its
host orchestrator), its launch configuration, and an output directory
holding a short description of both.  Calling it starts one pldsim run
(``pld_run``) whose host orchestrator is the entry, called with the
arguments; every per-device function and kernel then runs as real Python on
its simulated rank."""

from __future__ import annotations

import atexit
import ctypes
import datetime
import os
import pathlib
import shutil
import signal
import sys
import tempfile
import time
from typing import Any

import _pldsim

from . import cube, dfx, domains, errors, host_builtins, levels, options, shape_only, timing
from . import where as _where
from .config import DistributedConfig, RunConfig, short_ids
from .errors import RunError, UnsupportedError, UsageTypeError, UsageValueError
from .isolate import no_handler_in_a_run, run_in_child, tensors_in
from .levels import _MISSING, Function, _dispatch_closure
from .metadata import of_signature
from .resident import DeviceTensor, ProgramHandle, StackedDeviceTensor, SubmitHandle, new_tensor, unwrap
from .state import DEVICE, HOST, KERNEL, run_as
from .values import HOST_NAMES, is_torch_tensor


def _run_config(config: Any, where: str) -> Any:
    if config is None:
        return RunConfig()
    if not isinstance(config, RunConfig):
        raise TypeError(f"{where}: config must be a pypto.runtime.RunConfig, got {type(config).__name__}")
    return config


def _distributed(dc: Any, where: str) -> Any:
    if dc is None:
        return DistributedConfig()
    if not isinstance(dc, DistributedConfig):
        raise TypeError(f"{where}: distributed_config must be a DistributedConfig, got {type(dc).__name__}")
    return dc


_temp_dirs: list[str] = []


def _cleanup() -> None:
    for d in _temp_dirs:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup)


def _output_dir(name: str, keep: bool, where: str | None) -> str:
    """Where a compile's artefacts go, as upstream decides it: a temporary
    directory removed at exit, unless they are to be kept (in `where`, or
    build_output/NAME_TIMESTAMP)."""
    if keep:
        d = where or os.path.join(
            "build_output", f"{name}_{datetime.datetime.now().strftime('%Y%m%d_%H%M%S')}"
        )
        os.makedirs(d, exist_ok=True)
        return os.path.abspath(d)
    d = tempfile.mkdtemp(prefix=f"pldsim_{name}_")
    _temp_dirs.append(d)
    return d


class _UnsupportedAttribute(UnsupportedError, AttributeError):
    """An attribute upstream has and pldsim lacks: hasattr() says False,
    and a use stops the program in one line."""


class CompiledProgram:
    """A program ready to run (upstream's DistributedCompiledProgram)."""

    def __init__(self, name: str, entry: Function, self_obj: Any, platform: str, device_ids: list[int], functions: list[Function], output_dir: str):
        self.name = name
        self._entry = entry
        self._self = self_obj
        self.platform = platform
        self.device_ids = list(device_ids)
        self._functions = functions
        self.output_dir = pathlib.Path(output_dir)  # upstream gives a Path
        #: the statistics of this program's last run: the summary's numbers
        #: and each dispatch's times (timing.py), or None
        self.last_run_stats: dict | None = None
        self._write_manifest()

    def __repr__(self) -> str:
        return f"<pldsim compiled program {self.name} on {self.platform}, devices {short_ids(self.device_ids)}>"

    @property
    def program(self) -> Any:
        """Upstream's compiled IR (its passes' output).  pldsim compiles
        nothing: a program that inspects the IR stops here, in one line."""
        raise _UnsupportedAttribute(
            f"{self.name}.program", "the compiled IR is not available on pldsim, which runs the functions eagerly and compiles nothing"
        )

    @classmethod
    def from_dir(cls, output_dir: Any, *args: Any, **kwargs: Any) -> "CompiledProgram":
        """Upstream loads a program that a compile wrote to `output_dir`
        (pypto-lib's synthetic_token_loop.py compiles in a child, then loads
        both phases).  pldsim writes no kernels there, only a manifest, so
        there is nothing to load: this says so in one line."""
        raise UnsupportedError(
            "DistributedCompiledProgram.from_dir",
            f"loading a compiled program from {str(output_dir)!r} is not supported by pldsim, which compiles nothing to disk: "
            "call the @pl.jit function (or compile the @pl.program) in the process that runs it",
        )

    def _get_metadata(self) -> tuple[list, list[int], list[Any]]:
        """The entry's parameters (name, direction, shape, dtype), the
        indices of its pure outputs, and its declared results, as upstream's
        compiled program gives them (metadata.py)."""
        return of_signature(self._entry.signature())

    def _write_manifest(self) -> None:
        lines = [
            f"program: {self.name}",
            f"platform: {self.platform}",
            f"device_ids: {self.device_ids} (P = {len(self.device_ids)})",
            "pldsim compiles nothing: the functions below run eagerly, as Python, on the simulated devices.",
            "functions:",
        ]
        for f in self._functions:
            lines.append(f"  {f.name}: {f.kind} ({f.decorator}), {f.fn.__code__.co_filename}:{f.fn.__code__.co_firstlineno}")
        with open(os.path.join(self.output_dir, "pldsim-program.txt"), "w") as out:
            out.write("\n".join(lines) + "\n")

    def __call__(self, *args: Any, config: Any = None, **kwargs: Any) -> None:
        self._call(args, kwargs, config)

    def _call(self, args: tuple, kwargs: dict, config: Any, kept: bytes | None = None, reset: bool = False) -> tuple[dict, bytes | None]:
        platform = self.platform
        if config is not None:
            platform = _run_config(config, f"{self.name}(...)").platform
        dfx.configure(config, self.output_dir)
        self.last_run_stats = None
        if shape_only.enabled():  # the run sees tensors of their shapes, never written
            args, kwargs = shape_only.materialize(args), shape_only.materialize(kwargs)
        try:
            with shape_only.paused():  # torch as usual for pldsim's own work
                stats, kept_after = _run(self._entry, self._self, args, kwargs, platform, self.device_ids, kept, reset)
        finally:
            dfx.configure(None, self.output_dir)
        self.last_run_stats = stats  # what pypto.runtime.benchmark reads
        return stats, kept_after

    def prepare(
        self,
        config: Any = None,
        *,
        extra_compiled: Any = (),
        persistent: bool = False,
        reset_persistent_windows: bool | None = None,
        callbacks: Any = None,
        sub_worker_overrides: Any = None,
        startup_timeout_s: float | None = None,
    ) -> "PreparedProgram":
        """A reusable handle (upstream's DistributedWorker): each call of it
        is one run of this program.  With persistent=True the program's
        windows are kept from one call to the next: zeroed before each reuse
        (reset_persistent_windows, by default), or as the last call left
        them (reset_persistent_windows=False)."""
        del startup_timeout_s  # pldsim starts nothing ahead of a call
        if config is not None:
            _run_config(config, f"{self.name}.prepare")
        # upstream's rule: reset follows persistent unless given
        if reset_persistent_windows is None:
            reset = bool(persistent)
        elif reset_persistent_windows and not persistent:
            raise ValueError("DistributedWorker reset_persistent_windows=True requires persistent=True")
        else:
            reset = bool(reset_persistent_windows)
        for name, given in (("callbacks", callbacks), ("sub_worker_overrides", sub_worker_overrides)):
            if given:
                raise UnsupportedError(f"{self.name}.prepare", f"{name}= is not supported by pldsim yet")
        others = list(extra_compiled or ())
        for c in others:
            if not isinstance(c, CompiledProgram):
                raise TypeError(f"{self.name}.prepare: extra_compiled holds {c!r}, not a compiled program")
        return PreparedProgram(self, bool(persistent), reset, others)


class _WorkerCounters:
    """What a prepared program has of upstream's runtime worker (its
    ``_w``): only ``_next_alloc_id``, the number of comm-domain windows the
    worker has allocated, which upstream's tests read to check that a
    persistent worker allocates a domain once.  pldsim counts the same
    thing: each call adds the domains its run allocated (every domain it
    uses, unless the windows are kept)."""

    def __init__(self) -> None:
        self._next_alloc_id = 0

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"prepare()._w.{name}: pldsim has no runtime worker; of its internals only _next_alloc_id "
            "(comm-domain allocations) is modelled"
        )


class PreparedProgram:
    """What prepare() returns (upstream's DistributedWorker): call it, or
    run() one of its programs, to run a program; close() ends it and frees
    the resident tensors it still owns.  Persistent, it holds the kept
    windows' bytes between calls (a pld_windows store)."""

    def __init__(self, compiled: CompiledProgram, persistent: bool = False, reset: bool = False, others: Any = ()):
        self._compiled = compiled
        self._programs = [compiled, *others]
        self._persistent = persistent
        self._reset = reset
        self._kept: bytes | None = b"" if persistent else None
        self._w = _WorkerCounters()
        self._error: BaseException | None = None
        self._owned_tensors: list[Any] = []
        self._handles: list[Any] = []
        self.closed = False

    def __enter__(self) -> "PreparedProgram":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.closed = True
        self._kept = None  # the kept windows are released
        for t in self._owned_tensors:
            t.freed = True
        self._owned_tensors.clear()
        for h in self._handles:
            h.closed = True

    def _open(self, what: str) -> None:
        if self.closed:
            raise RuntimeError(f"{self._compiled.name}: {what} called after close")

    def __call__(self, *args: Any, config: Any = None, **kwargs: Any) -> None:
        self._open("this prepared program")
        if len(self._programs) > 1:
            raise TypeError(
                f"calling the worker is ambiguous with {len(self._programs)} programs prepared: use run(compiled, *args)"
            )
        self._dispatch(self._compiled, args, kwargs, config)

    def _dispatch(self, compiled: CompiledProgram, args: tuple, kwargs: dict, config: Any) -> None:
        where = f"{compiled.name}(...)"
        args = tuple(unwrap(a, where) for a in args)
        kwargs = {k: unwrap(v, where) for k, v in kwargs.items()}
        if compiled is not self._compiled:
            compiled._call(args, kwargs, config)
            return
        if self._error is not None:
            # as upstream's persistent worker: its windows are in an unknown state
            raise self._error
        try:
            stats, kept = self._compiled._call(args, kwargs, config, self._kept, self._reset)
        except RunError as e:
            if self._persistent:
                self._error = e
            raise
        self._w._next_alloc_id += int(stats.get("domains_allocated", 0)) if stats else 0
        if self._persistent:
            self._kept = kept

    def _prepared(self, compiled: Any, what: str) -> CompiledProgram:
        self._open(what)
        if not any(compiled is p for p in self._programs):
            raise ValueError(f"{what}: {getattr(compiled, 'name', compiled)!r} is not a program prepared on this worker")
        return compiled

    def run(self, compiled: Any, *args: Any, config: Any = None, **kwargs: Any) -> None:
        """Runs one of the worker's programs."""
        self._dispatch(self._prepared(compiled, "run"), args, kwargs, config)

    def register(self, compiled: Any) -> Any:
        """A handle that runs `compiled` (a program of this worker) when called."""
        h = ProgramHandle(self, self._prepared(compiled, "register"))
        self._handles.append(h)
        return h

    def submit(self, compiled: Any, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        """Runs `compiled` now and returns a handle whose result() reports it
        (a pldsim run completes before the call returns)."""
        c = self._prepared(compiled, "submit")
        try:
            self._dispatch(c, args, kwargs, config)
        except RunError as e:
            return SubmitHandle(e)
        return SubmitHandle(None)

    def _card(self, worker_id: Any, what: str) -> int:
        cards = len(self._compiled.device_ids)
        if isinstance(worker_id, bool) or not isinstance(worker_id, int) or not 0 <= worker_id < cards:
            raise ValueError(f"{what}: worker_id must be a card of this worker, 0..{cards - 1}, got {worker_id!r}")
        return worker_id

    def alloc_tensor(self, shape: Any, dtype: Any, init: Any = None, *, worker_id: int = 0) -> Any:
        """A tensor resident on card `worker_id` (zeroed, or a copy of `init`)."""
        self._open("alloc_tensor")
        card = self._card(worker_id, "alloc_tensor")
        t = DeviceTensor(new_tensor(shape, dtype, init, "alloc_tensor"), self, card)
        self._owned_tensors.append(t)
        return t

    def copy_from(self, dst_ptr: int, src_ptr: int, nbytes: int, *, worker_id: int = 0) -> None:
        """Copies `nbytes` of a resident tensor (at device address src_ptr)
        to host memory at dst_ptr, as upstream's D2H copy."""
        self._open("copy_from")
        card = self._card(worker_id, "copy_from")
        src = next((t for t in self._owned_tensors if t.data_ptr <= src_ptr < t.data_ptr + t.nbytes), None)
        if src is None or (src.worker_id != card and not isinstance(src, StackedDeviceTensor)):
            raise ValueError(f"copy_from: 0x{src_ptr:x} is not in a tensor this worker holds on card {card}")
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or not 0 <= nbytes <= src.data_ptr + src.nbytes - src_ptr:
            raise ValueError(f"copy_from: nbytes must be 0..{src.data_ptr + src.nbytes - src_ptr} (the rest of the tensor), got {nbytes!r}")
        ctypes.memmove(dst_ptr, src_ptr, nbytes)

    def alloc_stacked_tensor(self, host: Any, worker_ids: Any = None) -> Any:
        """A resident copy of `host`, shard i (its row i) on card worker_ids[i]."""
        self._open("alloc_stacked_tensor")
        if not is_torch_tensor(host) or host.dim() < 1:
            raise TypeError(f"alloc_stacked_tensor: expects a torch.Tensor with a leading stack dimension, got {host!r}")
        cards = len(self._compiled.device_ids)
        ids = list(range(cards)) if worker_ids is None else [int(w) for w in worker_ids]
        if host.shape[0] != cards or sorted(ids) != list(range(cards)):
            raise ValueError(
                f"alloc_stacked_tensor: a stack of {host.shape[0]} shards on {cards} cards with worker_ids={short_ids(ids)}: "
                f"expected one shard per card and worker_ids a permutation of 0..{cards - 1}"
            )
        t = StackedDeviceTensor.of(new_tensor(host.shape, host.dtype, host, "alloc_stacked_tensor"), self, ids)
        self._owned_tensors.append(t)
        return t

    def copy_stacked_from(self, t: Any, host: Any) -> None:
        """Copies the resident stack `t` into `host`."""
        self._open("copy_stacked_from")
        host.copy_(self._stacked(t, "copy_stacked_from").tensor("copy_stacked_from"))

    def _owned(self, t: Any, what: str) -> Any:
        if not any(t is o for o in self._owned_tensors):
            raise ValueError(f"{what}: {t!r} is not a tensor this worker owns (freed already?)")
        return t

    def _stacked(self, t: Any, what: str) -> Any:
        """`t`, if it is a stack this worker owns: the stacked calls take
        only what alloc_stacked_tensor made (a plain tensor has no shards)."""
        if isinstance(t, DeviceTensor) and not isinstance(t, StackedDeviceTensor):
            raise TypeError(f"{what}: {t!r} was made by alloc_tensor, not alloc_stacked_tensor; it has no shards (free it with free_tensor)")
        if isinstance(t, StackedDeviceTensor) and t.shards:
            # a stack of alloc_tensor shards: this worker owns the shards
            for sh in t.shards:
                self._owned(sh, what)
            if t.freed:
                raise ValueError(f"{what}: {t!r} has been freed")
            return t
        return self._owned(t, what)

    def free_tensor(self, t: Any, *, worker_id: int = 0) -> None:
        self._open("free_tensor")
        self._owned(t, "free_tensor")
        if isinstance(t, DeviceTensor) and t.worker_id != self._card(worker_id, "free_tensor"):
            raise ValueError(f"free_tensor(..., worker_id={worker_id}): {t!r} was allocated on card {t.worker_id}; pass the same worker_id")
        t.freed = True
        self._owned_tensors.remove(t)

    def free_stacked_tensor(self, t: Any) -> None:
        self._open("free_stacked_tensor")
        self._stacked(t, "free_stacked_tensor").freed = True
        for sh in t.shards or (t,):
            sh.freed = True
            self._owned_tensors.remove(sh)

    def release_inherited_host_tensor_refs(self) -> None:
        """Upstream's forked workers let go of inherited host tensors here;
        pldsim's runs hold none between calls."""


def _functions_of(cls: type) -> list[Function]:
    return [v for v in vars(cls).values() if isinstance(v, Function)]


def compile_function(fn: Function, args: tuple, kwargs: dict) -> CompiledProgram:
    """fn.compile(*args, config=RunConfig(...)) for a decorated function."""
    rc = _run_config(kwargs.pop("config", None), f"{fn.name}.compile")
    dc = _distributed(rc.distributed_config, f"{fn.name}.compile")
    if args or kwargs:
        sig = fn.signature()
        sig.check(fn.name, sig.bind(fn.name, args, kwargs), samples=True)
    out = _output_dir(fn.name, rc.save_kernels, rc.save_kernels_dir)
    return CompiledProgram(fn.name, fn, None, rc.platform, dc.device_ids, [fn], out)


def compile_program(program: Any, platform: str = "a2a3sim", distributed_config: Any = None, **kwargs: Any) -> CompiledProgram:
    """``pypto.ir.compile(program, platform=..., distributed_config=...)``:
    returns the compiled program: call it with the host orchestrator's
    arguments; ``.output_dir`` says where its description was written.
    Upstream's other keywords (strategy, dump_passes, ...) are accepted;
    ``output_dir=`` chooses the directory."""
    if not isinstance(program, type) or not getattr(program, "__pldsim_program__", False):
        raise TypeError(f"ir.compile expects a @pl.program class, got {program!r}")
    RunConfig(platform=platform)  # upstream's platform check and message
    dc = _distributed(distributed_config, "ir.compile")
    funcs = _functions_of(program)
    hosts = [f for f in funcs if f.kind == HOST]
    if len(hosts) > 1:
        names = ", ".join(f.name for f in hosts)
        raise ValueError(f"@pl.program {program.__name__} has {len(hosts)} host orchestrators ({names}); expected one")
    if hosts:
        entry = hosts[0]
    else:
        devices = [f for f in funcs if f.kind == DEVICE]
        if len(devices) != 1:
            raise ValueError(
                f"@pl.program {program.__name__} has no host orchestrator "
                f"(@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)) and not exactly one "
                f"orchestration function to run on each device"
            )
        entry = devices[0]
    where = kwargs.get("output_dir")
    out = _output_dir(program.__name__, bool(where or kwargs.get("save_kernels")), where)
    return CompiledProgram(program.__name__, entry, program(), platform, dc.device_ids, funcs, out)


def call_outside_run(fn: Function, self_obj: Any, args: tuple, kwargs: dict, device: Any) -> Any:
    """A decorated function called from ordinary Python: compile and run it
    (a per-device function or a kernel alone runs on every device)."""
    if device is not _MISSING:
        raise UsageTypeError(fn.name, "device= dispatches from a host orchestrator; this call is outside any run")
    compiled = compile_function(fn, args, dict(kwargs))
    kwargs.pop("config", None)
    _run(fn, self_obj, args, kwargs, compiled.platform, compiled.device_ids)
    return None


def _register_host_tensors(fn: Function, self_obj: Any, args: tuple, kwargs: dict) -> None:
    try:
        bound = fn.signature().sig.bind(*((self_obj,) if self_obj is not None else ()), *args, **kwargs)
    except TypeError:
        return  # the call itself reports it
    for name, v in bound.arguments.items():
        if is_torch_tensor(v):
            HOST_NAMES.add(v, name)


def _host_body(entry: Function, self_obj: Any, args: tuple, kwargs: dict, nranks: int):
    """The host orchestrator of the run."""
    if entry.kind == HOST:
        return lambda: run_as(HOST, entry._call, self_obj, *args, **kwargs)

    # a per-device function or a kernel called alone: every device runs it
    def host() -> None:
        def on_rank() -> None:
            if entry.kind == KERNEL:
                entry._call(self_obj, *args, **kwargs)
            else:
                # as a call at its own level: the arguments checked, the
                # pl.dynamic names bound, the pl.at bodies made tasks
                entry._inline(self_obj, args, kwargs, entry.name)

        for r in range(nranks):
            _dispatch_closure(r, entry, on_rank)

    return lambda: run_as(HOST, host)


def _run(
    entry: Function,
    self_obj: Any,
    args: tuple,
    kwargs: dict,
    platform: str,
    device_ids: list[int],
    kept: bytes | None = None,
    reset: bool = False,
) -> tuple[dict, bytes | None]:
    """One pldsim run of `entry`; returns its stats and, with `kept` (the
    bytes of a pld_windows store, b"" for an empty one), the store after the
    run (windows kept from run to run; zeroed first when `reset`)."""
    opts = options.from_environment()
    backend = options.backend()
    if backend == "mpi":
        raise UsageValueError(
            entry.name,
            "pldsim-py runs Python programs on the sim and threads backends; the mpi backend is for "
            "C programs (mpirun -np P PROG --backend mpi)",
        )
    host_builtins.signals.clear()  # the last run's windows are gone
    # each buffer's comm domain, read from the host's source as upstream's
    # compiler does (a kernel may run before the host's last dispatch)
    domains.current = domains.of_function(entry.fn) if entry.kind == HOST else {}
    host = _host_body(entry, self_obj, args, kwargs, len(device_ids))
    devices = ",".join(str(d) for d in device_ids)
    # Ctrl-C ends the process during a run: Python's handler would only run
    # once the simulation is over
    old = signal.signal(signal.SIGINT, signal.SIG_DFL)
    install = signal.signal
    signal.signal = no_handler_in_a_run
    who = f"host function {entry.name}"

    def run() -> tuple:
        # by address, once the arguments are where the run sees them (a
        # sim child's are in shared memory, at other addresses)
        _register_host_tensors(entry, self_obj, args, kwargs)
        errors.exit_request = None
        timing.start()
        cube.PRODUCT_SECONDS[0] = 0.0
        started = time.perf_counter()
        rc, python_error, stats, kept_after = _pldsim.run(opts, platform, devices, who, host, kept, reset)
        if stats is not None:
            stats = {
                **stats,
                "dispatches": timing.collected(),
                "profile_run_s": time.perf_counter() - started,
                "profile_products_s": cube.PRODUCT_SECONDS[0],
            }
        # and a sys.exit() of the program's, from the child of a sim run too
        return rc, python_error, stats, kept_after, errors.exit_request

    outer = _where.outer
    _where.outer = _where.caller()  # the program's call, for errors about its arguments
    called = time.perf_counter()
    try:
        if backend == "threads":
            rc, python_error, stats, kept_after, exit_request = run()
        else:  # SimGrid runs once per process: each run gets a child of its own
            rc, python_error, stats, kept_after, exit_request = run_in_child(run, tensors_in([*args, *kwargs.values()]), who)
    finally:
        signal.signal = install
        signal.signal(signal.SIGINT, old)
        _where.outer = outer
    if stats is not None and os.environ.get("PLDSIM_PY_PROFILE"):
        timing.print_profile(time.perf_counter() - called, stats)
    if exit_request is not None:  # the program's sys.exit(), as python ends it
        raise SystemExit(exit_request)
    if rc is None:
        raise RunError(f"the pldsim run of {entry.name} did not finish (see the message above)", -1, 1)
    if rc:
        code = 1 if python_error else _pldsim.exit_code(rc)
        raise RunError(f"the pldsim run of {entry.name} failed (see the message above)", rc, code)
    return stats, kept_after


# ---- pypto.runtime's entry points --------------------------------------------------


def run(program: Any, *args: Any, config: RunConfig | None = None) -> Any:
    """``pypto.runtime.run``: compiles `program` (a @pl.program class or a
    decorated host function) and runs it once with `args`; returns the
    compiled program."""
    if isinstance(program, Function):
        compiled = program.compile(*args, config=config)
    else:
        cfg = config or RunConfig()
        compiled = compile_program(program, platform=cfg.platform, distributed_config=cfg.distributed_config)
    compiled(*args)
    return compiled


def DistributedWorker(compiled: Any, *, inherited_host_tensors: Any = None, **kwargs: Any) -> Any:  # noqa: N802 - upstream's class name
    """``pypto.runtime.DistributedWorker``: a worker for one compiled
    program or a list of them (the first is the default; ``run(compiled,
    *args)`` picks another).  Other keywords go to ``prepare``."""
    del inherited_host_tensors  # pldsim's runs fork with every host tensor in shared memory
    programs = list(compiled) if isinstance(compiled, (list, tuple)) else [compiled]
    if not programs:
        raise ValueError("DistributedWorker needs at least one compiled program")
    return programs[0].prepare(extra_compiled=programs[1:], **kwargs)


# A Function's compile() and its call outside any run start here; levels.py
# defines Function and cannot import this module back, so it is told.
levels.set_entry_points(compile_function, call_outside_run)
