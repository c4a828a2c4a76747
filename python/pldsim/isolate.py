"""One simulation per child process, so that a process can run many.

SimGrid cannot be restarted: a process that has run the sim backend once
cannot run it again.  A test session (pytest), a persistent worker or a
script that calls a compiled program twice needs more than one run, so each
sim run happens in a forked child.  The child shares the argument tensors'
memory with the parent (``share_memory_`` moves their storage to shared
memory in place, keeping their values), so whatever the run writes into
them is there when the call returns, as it would be in-process.

What does not come back: writes into tensors that reach the run other than
through its arguments (a global, an attribute), and changes to other Python
objects.  docs/python.md says so."""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import traceback
from typing import Any, Callable, Iterable

import _pldsim

from .errors import UsageValueError
from .values import is_fork_shared, is_torch_tensor


#: signal.signal itself: a run replaces the module's with a refusal (program.py)
_install_handler = signal.signal

#: what ends a run from outside, sent to this process alone (a supervisor,
#: timeout(1), a CI runner) rather than to its whole process group
_PASSED_ON = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: the line for a signal the child could not say itself (it is libpld's
#: interrupt handler that says SIGINT's and SIGTERM's)
_ENDED = {signal.SIGINT: "interrupted (SIGINT)", signal.SIGTERM: "terminated (SIGTERM)",
          signal.SIGHUP: "hung up (SIGHUP)"}

def tensors_in(values: Iterable[Any]) -> list[Any]:
    """The torch tensors among `values`, looking into lists, tuples and
    dicts (a program may pass its outputs as a list)."""
    found: list[Any] = []
    seen: set[int] = set()

    def walk(v: Any) -> None:
        if id(v) in seen:
            return
        seen.add(id(v))
        if is_torch_tensor(v):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    for v in values:
        walk(v)
    return found


def run_in_child(run: Callable[[], tuple], tensors: list[Any], who: str) -> tuple[Any, ...]:
    """Runs `run` (which returns _pldsim.run's (rc, python_error, stats,
    kept windows) and the program's sys.exit() status or None) of `who` (as
    messages name it) in a forked child and returns that tuple as the child
    saw it; the kept windows' bytes come back through the pipe too.  A
    child that dies without a result (a signal, a crash) gives rc None,
    with the reason printed."""
    for t in tensors:
        if t.device.type == "cpu" and not is_fork_shared(t):
            t.share_memory_()
    sys.stdout.flush()
    sys.stderr.flush()
    rfd, wfd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: run, report, and leave without Python's exit
        os.close(rfd)
        code = 70
        # it dies with its parent, SIGKILL included; and the parent's
        # forwarding handlers (installed after the fork) are not its own
        if not _pldsim.die_with_parent(parent):
            os._exit(code)
        t = sys.modules.get("torch")
        if t is not None:
            # the parent's OpenMP pool did not survive the fork, and torch's
            # first parallel op here would wait for it forever: stay serial
            t.set_num_threads(1)
        try:
            rc, python_error, stats, kept, exit_request = run()
            reply = pickle.dumps((int(rc), bool(python_error), stats, kept, exit_request))
            with os.fdopen(wfd, "wb") as w:
                w.write(reply)
            code = 0
        except BaseException:  # noqa: BLE001 - the parent reports it
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    os.close(wfd)
    received: list[int] = []
    previous = _pass_signals_on(pid, received)
    try:
        with os.fdopen(rfd, "rb") as r:
            data = r.read()
        _, status = os.waitpid(pid, 0)
    finally:
        for n, handler in previous.items():
            _install_handler(n, handler)
    if received and not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == received[0]):
        # the child finished (or died otherwise) before the signal reached
        # it: the signal still ends this process, as it would have
        _end_by(received[0], said=False)
    try:
        return pickle.loads(data) if data else _dead(status, who)
    except (pickle.UnpicklingError, EOFError, ValueError):
        return _dead(status, who)


def _pass_signals_on(child: int, received: list[int]) -> dict[int, Any]:
    """While the child runs, SIGINT, SIGTERM and SIGHUP sent to this
    process alone go to the child: it ends the run and says so, and this
    process then ends by the same signal (_dead).  A second signal kills
    the child outright.  A signal the program ignores (or handles itself)
    is left alone, and so is every signal off the main thread, where
    Python cannot install handlers: the child still dies with this
    process (die_with_parent).  Returns the handlers to put back."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def forward(n: int, _frame: Any) -> None:
        received.append(n)
        try:
            os.kill(child, n if len(received) == 1 else signal.SIGKILL)
        except ProcessLookupError:
            pass

    previous: dict[int, Any] = {}
    for n in _PASSED_ON:
        handler = signal.getsignal(n)
        if handler in (signal.SIG_DFL, signal.default_int_handler):
            previous[n] = _install_handler(n, forward)
    return previous


def _end_by(n: int, said: bool) -> None:
    """Ends this process by signal `n`, as a shell expects (128 + n),
    after one line saying so unless the child said it."""
    sys.stdout.flush()
    if not said:
        print(f"pldsim: {_ENDED[n]}; the run has no result", file=sys.stderr)
        sys.stderr.flush()
    _install_handler(n, signal.SIG_DFL)
    os.kill(os.getpid(), n)


def _dead(status: int, who: str) -> tuple[Any, ...]:
    if os.WIFSIGNALED(status):
        n = os.WTERMSIG(status)
        if n in _ENDED:
            # an interrupt: the child said so in one line (libpld's handler
            # says SIGINT's and SIGTERM's); this process ends the same way
            _end_by(n, said=n != signal.SIGHUP)
        try:
            name = f" ({signal.Signals(n).name})"
        except ValueError:
            name = ""
        why = f"was killed by signal {n}{name}"
    else:
        why = f"exited with status {os.WEXITSTATUS(status)} before it finished"
    print(f"pldsim: the process simulating {who} {why}; the run has no result", file=sys.stderr)
    return None, False, None, None, None


def no_handler_in_a_run(signalnum: Any, handler: Any) -> Any:
    """signal.signal while a run is on.  A run's host, per-device functions
    and kernels are simulated devices: on thread contexts and the threads
    backend they run off Python's main thread, where Python refuses to
    install a handler (blamed on signal.py's own line), and on coroutines a
    handler installed would wait for the run to end before it could run.
    So it is refused on every context alike, at the program's line."""
    raise UsageValueError(
        "signal.signal",
        f"cannot install a handler for signal {int(signalnum)} during a run: the host, per-device "
        "functions and kernels run as simulated devices, off Python's main thread on thread contexts; "
        "install it before the run (Ctrl-C and SIGTERM already end a run with one line)",
    )
