"""pldsim-py: runs a Python program written against PyPTO's pld API on
pldsim, as SMPI's smpirun runs an MPI program on SimGrid.

    pldsim-py [PLDSIM OPTIONS] PROGRAM.py [PROGRAM ARGS]
    pldsim-py [PLDSIM OPTIONS] -m MODULE [MODULE ARGS]

The options before PROGRAM.py are pldsim's; everything after it goes to
the program, whose own argparse sees exactly what it would see when run
with python.  Each option can also be given as a PLD_* variable.  `-m
pytest` runs upstream's system tests: the pytest plugin pldsim.pytest_plugin
is loaded into every pytest the program starts."""

from __future__ import annotations

import importlib.util
import os
import random
import runpy
import sys
import traceback

import _pldsim

from . import PACKAGE_DIRS, __version__, options, shape_only, timing_only, torch_compat
from .errors import RunError, UnsupportedError, UsageError

USAGE = "usage: pldsim-py [PLDSIM OPTIONS] PROGRAM.py [PROGRAM ARGS]\n       pldsim-py [PLDSIM OPTIONS] -m MODULE [MODULE ARGS]"
PYTEST_PLUGIN = "pldsim.pytest_plugin"


def _help() -> str:
    lines = [
        USAGE,
        "",
        "Runs PROGRAM.py, written against pypto.language and pypto.language.distributed",
        "(upstream PyPTO), on the pldsim simulator: every per-device function and kernel",
        "runs as Python on its simulated device, with simulated time, traces, the race",
        "detector and the deadlock report.  PROGRAM ARGS go to the program (its -p, -d, ...).",
        "-m MODULE runs a module as `python -m` does: `-m pytest --platform a2a3sim --device",
        "0-3 TESTFILE.py` runs upstream's distributed system tests (docs/python.md).",
        "",
        "Options (each also read from the PLD_* variable named on the right):",
    ]
    for var, flag, has_value, text in options.OPTIONS:
        head = f"  {flag} VALUE" if has_value else f"  {flag}"
        lines.append(f"{head:<24} {text} [{var}]")
    lines += [
        f"{'  -h, --help':<24} this help",
        f"{'  --version':<24} pldsim-py's version",
        "",
        "Exit status: the program's own (0 after OK); 1 for a Python exception in a kernel,",
        "2 for a bad option or platform, 3 for API misuse, 4 for a deadlock, 5 for a data",
        "race (--races error).  See docs/python.md.",
    ]
    return "\n".join(lines) + "\n"


class UsageExit(Exception):
    pass


def parse(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """The PLD_* settings of the options before the program, and the
    program's argv (its path first)."""
    env: dict[str, str] = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            sys.stdout.write(_help())
            raise SystemExit(0)
        if a == "--version":
            print(f"pldsim-py (pldsim) {__version__}")
            raise SystemExit(0)
        if a == "--":
            i += 1
            break
        if a == "-m":
            if i + 1 >= len(argv) or not argv[i + 1]:
                raise UsageExit("pldsim-py: -m needs a module name (see --help)")
            return env, argv[i:]
        if not a.startswith("-") or a == "-":
            break
        name, eq, value = a.partition("=")
        row = options.flag_of(name)
        if row is None:
            raise UsageExit(f"pldsim-py: unknown option '{name}' (see --help; the program's own options go after PROGRAM.py)")
        var, flag, has_value, _ = row
        if has_value:
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageExit(f"pldsim-py: {flag} needs a value (see --help)")
                i += 1
                value = argv[i]
            env[var] = f"{env[var]}\n{value}" if var in options.REPEATABLE and var in env else value
        elif eq and flag == "--summary" and value in ("json", "text"):
            env[var] = value  # --summary=json: libpld's one switch with a value
        else:
            if eq:
                raise UsageExit(f"pldsim-py: {flag} takes no value (see --help)")
            env[var] = "1"
        i += 1
    if i >= len(argv):
        raise UsageExit("pldsim-py: no program given (see --help)")
    return env, argv[i:]


#: the values of PLDSIM_PY_CONTEXTS (SimGrid's context factories; "": its default)
CONTEXT_FACTORIES = ("", "thread", "raw", "ucontext", "boost")


def _check(env: dict[str, str]) -> None:
    """Checks the options' values now, as libpld will, so that a mistake is
    reported before the program starts."""
    merged = dict(os.environ)
    merged.update(env)
    try:
        words = options.from_environment(merged)
    except ValueError as e:
        raise UsageExit(f"pldsim-py: {e}") from None
    if options.backend(merged) not in ("sim", "threads"):
        if options.backend(merged) == "mpi":
            raise UsageExit(
                "pldsim-py: Python programs run on the sim and threads backends; the mpi backend is "
                "for C programs (mpirun -np P PROG --backend mpi)"
            )
        raise UsageExit(f"pldsim-py: unknown backend '{options.backend(merged)}': expected sim or threads")
    if _pldsim.check_options(words) != 0:
        raise SystemExit(2)  # libpld said why
    if merged.get("PLD_SHAPE_ONLY", "").strip().lower() in options._TRUE:
        why = shape_only.unsupported()
        if why:
            raise UsageExit(f"pldsim-py: --shape-only {why}")
    seed = merged.get("PLD_SEED", "0")
    if not seed.isdigit():
        raise UsageExit(f"pldsim-py: --seed '{seed}': expected a non-negative integer")
    contexts = merged.get("PLDSIM_PY_CONTEXTS", "")
    if contexts not in CONTEXT_FACTORIES:  # libpld would say it without the variable's name
        raise UsageExit(f"pldsim-py: PLDSIM_PY_CONTEXTS='{contexts}': expected thread, raw, ucontext or boost (or unset)")


def _seed(value: str) -> None:
    """Seeds the generators programs draw inputs from, so that every run of
    a program computes the same numbers."""
    random.seed(int(value))
    try:
        import torch
    except ImportError:
        return
    torch.manual_seed(int(value))
    torch_compat.install()
    shape_only.install()


def main(argv: list[str], n_paths: int = 0) -> int:
    """Runs the program; `n_paths` is how many entries at the front of
    sys.path are pldsim's own (the runner script put them there)."""
    try:
        env, prog_argv = parse(argv)
        _check(env)
    except UsageExit as e:
        print(e, file=sys.stderr)
        return 2
    os.environ.update(env)
    timing_only.install()
    # every pytest this process starts gets upstream's fixtures and options
    plugins = [p for p in os.environ.get("PYTEST_PLUGINS", "").split(",") if p]
    if PYTEST_PLUGIN not in plugins:
        os.environ["PYTEST_PLUGINS"] = ",".join([*plugins, PYTEST_PLUGIN])
    if prog_argv[0] == "-m":
        _seed(os.environ.get("PLD_SEED", "0"))
        return _guarded(lambda: _run_module(prog_argv[1], prog_argv[2:], n_paths))
    path = prog_argv[0]
    why = _not_a_program(path)
    if why:
        print(f"pldsim-py: {path}: {why}", file=sys.stderr)
        return 2
    _seed(os.environ.get("PLD_SEED", "0"))
    sys.argv = prog_argv
    # as `python PROGRAM.py` does, the program's directory comes on the
    # path, but after pldsim's pypto, which must not be shadowed
    sys.path.insert(n_paths, os.path.dirname(os.path.abspath(path)))
    return _guarded(lambda: runpy.run_path(path, run_name="__main__"))


def _not_a_program(path: str) -> str | None:
    """Why `path` is no program python could run, or None: a file, or a
    directory with a __main__.py (python runs that, and so does runpy)."""
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "__main__.py")):
            return None
        return "is a directory, with no __main__.py; expected a program file (PROGRAM.py), or -m MODULE"
    if not os.path.exists(path):
        return "no such program file"
    if not os.path.isfile(path):
        return "is not a regular file; expected a program file (PROGRAM.py)"
    return None


def _run_module(name: str, args: list[str], n_paths: int) -> None:
    """`python -m NAME ARGS`: the current directory on the path (after
    pldsim's pypto), and the module's own file as argv[0]."""
    sys.path.insert(n_paths, os.getcwd())
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise _NoModule(name)
    sys.argv = [spec.origin or name, *args]
    runpy.run_module(name, run_name="__main__", alter_sys=True)


class _NoModule(Exception):
    pass


def _guarded(run) -> int:
    """Runs the program and turns how it ended into pldsim-py's status."""
    try:
        run()
    except _NoModule as e:
        hint = " (on Debian: apt-get install python3-pytest)" if str(e) == "pytest" else ""
        print(f"pldsim-py: no module named {e}{hint}; -m runs a module on the path, as python -m does", file=sys.stderr)
        return 2
    except RunError as e:
        sys.stdout.flush()
        return e.exit_code
    except shape_only.ShapeOnlyError as e:
        sys.stdout.flush()
        print(e, file=sys.stderr)  # it names the program's line
        return 2
    except torch_compat.NewerTorchNeeded as e:
        sys.stdout.flush()
        print(f"{_innermost_user_line(e)}: {e}", file=sys.stderr)
        return 2
    except UnsupportedError as e:
        # outside a run (a run reports its own): what pldsim lacks, at the
        # program's line, in one line rather than a traceback
        sys.stdout.flush()
        print(f"{e.file}:{e.line}: {e.op}: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BaseException as e:  # noqa: BLE001 - reported as `python PROGRAM.py` would
        _print_program_traceback(e)
        return 1
    return 0


def _innermost_user_line(e: BaseException) -> str:
    """FILE:LINE of the program's innermost frame in e's traceback."""
    frames = [
        f
        for f in traceback.extract_tb(e.__traceback__)
        if not f.filename.startswith(PACKAGE_DIRS) and "runpy" not in f.filename
    ]
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "pldsim-py"


def _print_program_traceback(e: BaseException) -> None:
    """The traceback `python PROGRAM.py` prints: the program's frames, not
    the runner's or the front end's, and upstream's exception type (a
    UsageError is the TypeError or ValueError that upstream raises)."""
    sys.stdout.flush()
    frames = [
        f
        for f in traceback.extract_tb(e.__traceback__)
        if not f.filename.startswith(PACKAGE_DIRS) and "runpy" not in f.filename
    ]
    kind = type(e)
    if isinstance(e, UsageError):
        kind = next(b for b in kind.__mro__ if b.__module__ == "builtins")
    if kind is type(e):
        last = "".join(traceback.format_exception_only(kind, e))
    else:
        last = f"{kind.__name__}: {e}\n"
    sys.stderr.write("Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) + last)
