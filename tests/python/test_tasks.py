"""Task graphs under pldsim-py: pl.manual_scope with pl.at tasks,
pld.system.defer_wait and split-phase collectives (defer=True).  Deferred waiters free their cores, so a graph with
as many waiters as cores (and more) completes on sim and threads; the same
graph with blocking waits deadlocks, and the report says why; one core
fewer and it completes; each misuse is one message at the .py line."""

from __future__ import annotations

import unittest

import support

SHOWN = "tests/python/programs/deferred.py"
CORES = "mesh:2,aiv_cores=4"


def fault_line(name: str) -> int:
    return support.fault_line(support.program("deferred.py"), name)


def run(mode: str, waiters: int, backend: str = "sim"):
    env = {"PLD_TOPOLOGY": CORES, "PLD_BACKEND": backend}
    return support.pldsim_py(SHOWN, mode, str(waiters), env=env, cwd=support.SRC)


def message_lines(stderr: str) -> list[str]:
    return [l for l in stderr.splitlines() if l and not l.startswith((" ", "Traceback", "[pldsim]")) and ": warning: " not in l]


class DeferredCompletion(unittest.TestCase):
    def test_deferred_waiters_free_their_cores(self):
        cases = [(4, "sim"), (9, "sim"), (4, "threads")]
        for (waiters, backend), r in zip(cases, support.in_parallel(lambda c: run("deferred", *c), cases)):
            with self.subTest(waiters=waiters, backend=backend):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_blocking_waiters_on_every_core_deadlock(self):
        full, spare = support.in_parallel(lambda w: run("blocking", w), [4, 3])
        self.assertEqual(spare.returncode, 0, spare.stderr)
        self.assertEqual(full.returncode, 4, full.stderr)
        self.assertIn("deadlock", full.stderr)
        self.assertIn("5 tasks of this manual scope never started: all 4 AIV cores are held by tasks blocked in waits", full.stderr)
        self.assertIn("deferred.py:", full.stderr)

    def test_each_misuse_is_one_message_at_its_line(self):
        cases = {
            "incore": "pld.system.defer_wait: defer_wait belongs in a task of its own",
            "eq": "pld.system.defer_wait: .cmp is PLD_WAIT_EQ; deferred completion supports only PLD_WAIT_GE",
            "negative": "pld.system.defer_wait: expected -1 is outside [0, 2147483647]",
            "foreign-dep": "pl.at: deps[0] is 0, not a task id",
            "host-level": "pl.at: level=<Level.HOST",
            "returns": "pl.at: a pl.at body is a task of its own, submitted now and run later: it cannot return",
        }
        names = list(cases)
        for name, r in zip(names, support.in_parallel(lambda m: run(m, 1), names)):
            with self.subTest(mode=name):
                self.assertEqual(r.returncode, 3, r.stderr)
                lines = message_lines(r.stderr)
                self.assertEqual(len(lines), 1, r.stderr)
                self.assertIn(f"deferred.py:{fault_line(name)}: ", lines[0])
                self.assertIn(cases[name], lines[0])


SPLIT = "tests/python/programs/split_phase.py"
COLLECTIVES = ["allgather", "all_to_all", "all_to_all_v", "broadcast", "barrier"]


def split(mode: str, coll: str = "allgather", loop: int = 64, backend: str = "sim", *flags: str):
    return support.pldsim_py("--backend", backend, *flags, SPLIT, mode, coll, str(loop), cwd=support.SRC)


def walls_us(trace: str) -> dict[str, float]:
    """Each rank's device wall in a text trace: its first event's start to
    its last event's end, in us."""
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    with open(trace) as f:
        for line in f:
            c = line.split()
            if line.startswith("#") or len(c) < 3 or not c[2].startswith("r"):
                continue
            first.setdefault(c[2], float(c[0]))
            last[c[2]] = max(last.get(c[2], 0.0), float(c[1]))
    return {r: (last[r] - first[r]) / 1000 for r in first}


class SplitPhase(unittest.TestCase):
    """defer=True on the mesh builtins with one barrier (upstream's PR
    #2682): the call makes its puts and notifies, its waits become the
    task's deferred conditions, and its rest runs when they hold."""

    def test_each_collective_gives_its_result_split_and_blocking(self):
        cases = [(m, c, "sim") for c in COLLECTIVES for m in ("fused", "deferred")]
        cases += [("deferred", c, "threads") for c in ("allgather", "broadcast", "all_to_all_v")]
        for (mode, coll, backend), r in zip(cases, support.in_parallel(lambda c: split(c[0], c[1], 64, c[2]), cases)):
            with self.subTest(mode=mode, collective=coll, backend=backend):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_the_loop_overlaps_the_credits_in_flight(self):
        # The add loop takes 1024 steps: on the a2a3 model each add of 256
        # FP32 is 2 ns (a guess) and the split form costs a launch (349.5
        # ns) and one more task's submission (874 ns), so the overlap is
        # far beyond them and plain to see; docs/models.md gives upstream's
        # 64 steps.
        with support.scratch() as d:
            traces = {m: f"{d}/{m}.txt" for m in ("fused", "deferred")}
            runs = support.in_parallel(lambda m: split(m, "allgather", 1024, "sim", "--trace", traces[m]), list(traces))
            for r in runs:
                self.assertEqual(r.returncode, 0, r.stderr)
            fused, deferred = (walls_us(traces[m]) for m in ("fused", "deferred"))
            with open(traces["deferred"]) as f:
                text = f.read()
        for rank in ("r0", "r1"):
            with self.subTest(rank=rank):
                self.assertLess(deferred[rank], fused[rank])
        # the rank dispatched last waits for nobody: its wall is the
        # collective and the loop, in turn or side by side
        self.assertGreater(fused["r1"] / deferred["r1"], 1.2, (fused, deferred))
        self.assertIn(" defer_wait ", text)

    def test_each_misuse_is_one_message_at_its_line(self):
        cases = {
            "incore": (3, "defer=True: a split-phase collective (defer=True) belongs in a task of its own"),
            "twice": (3, "defer=True: task gather already has a split-phase collective (from "),
            "allreduce": (1, "TypeError: allreduce() got an unexpected keyword argument 'defer'"),
            "chip": (3, "called by a per-device function, a collective is a builtin kernel, which has no split form"),
            "host": (3, "called by the host orchestrator, a collective is a builtin kernel, which has no split form"),
        }
        names = list(cases)
        for name, r in zip(names, support.in_parallel(lambda m: split(m), names)):
            status, text = cases[name]
            with self.subTest(mode=name):
                self.assertEqual(r.returncode, status, r.stderr)
                lines = support.messages(r.stderr)
                self.assertIn(f"split_phase.py:{support.fault_line(support.program('split_phase.py'), name)}: ", r.stderr)
                self.assertIn(text, r.stderr)
                if status == 3:
                    self.assertEqual(len(lines), 1, r.stderr)


if __name__ == "__main__":
    unittest.main()
