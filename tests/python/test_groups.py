"""Communication sub-groups under pldsim-py: a host that dispatches to
fewer devices than the world makes a comm domain of them, as upstream's
compiler does; inside it world_size, rank, nranks and the collectives are
as upstream defines them, and misuse is one message (programs/groups.py)."""

from __future__ import annotations

import os
import tempfile
import unittest

import support

PROGRAM = "tests/python/programs/groups.py"


def fault_line(name: str) -> int:
    return support.fault_line(support.program("groups.py"), name)


def run(mode: str, *opts: str):
    return support.pldsim_py(*opts, PROGRAM, mode, cwd=support.SRC)


class Groups(unittest.TestCase):
    def test_a_sub_group_has_its_own_ranks_and_its_collective_sums_its_members(self):
        # the program asserts world_size 4, rank r-1 of nranks 3 on devices
        # 1..3, the allreduce over them only, and device 0 untouched
        for backend in ("sim", "threads"):
            with self.subTest(backend=backend):
                r = run("ok", "--backend", backend)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
                self.assertIn("P=4", r.stdout)

    def test_peers_in_a_group_are_group_ranks_in_the_trace_world_ranks(self):
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "groups.txt")
            r = support.pldsim_py("--trace", trace, PROGRAM, cwd=support.SRC)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(trace) as f:
                rows = [l.split() for l in f if " notify_add " in l]
        # ranks 1..3 notify each other (peers 0..2 of the group; the
        # epilogue's credits go to themselves), never device 0
        members = ("r1", "r2", "r3")
        pairs = {(row[2], row[4]) for row in rows}
        self.assertEqual(pairs, {(a, b) for a in members for b in members})

    def test_a_group_larger_than_the_world_is_refused(self):
        r = run("too-big")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(
            [l for l in r.stderr.splitlines() if l],
            [
                f"{PROGRAM}:{fault_line('too-big')}: host: pld.tensor.alloc_window_buffer: buffer 'data_buf' is "
                "dispatched to devices 1..4 (its comm domain, from the device= of the dispatches that get its "
                "views), more than the world has: device 4 out of range [0, 4)"
            ],
        )

    def test_a_peer_outside_the_group_is_refused(self):
        r = run("peer")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn(
            f"{PROGRAM}:{fault_line('peer')}: rank 1: pld.system.notify: peer 3 out of range [0, 3) of the comm "
            "group of 'sig_buf' (devices 1, 2, 3)\n",
            r.stderr,
        )

    def test_domains_are_inferred_from_the_dispatches_as_upstream_does(self):
        r = support.pldsim_py(support.program("domains_cases.py"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "OK")


if __name__ == "__main__":
    unittest.main()
