"""The project's Python tutorial steps under pldsim-py: every step and
mode of upstream CI's matrix prints OK and exits 0, on sim and on threads,
and on sim its text trace equals the C step's at the same P in every
column but buffer names and source locations."""

from __future__ import annotations

import os
import unittest

import support

TWO = ["-d", "0,1"]
FOUR = ["-d", "0,1,2,3"]

# upstream CI's matrix: every step at -d 0,1, then the extra runs
MATRIX: list[tuple[str, list[str]]] = [
    (s, TWO)
    for s in (
        "01_hello_rank", "02_programming_model", "03_window_buffer", "04_barrier", "05_remote_load_store",
        "06_put_get", "07_dynamic_rank_count", "08_allreduce_mesh", "09_allreduce_two_phase",
        "10_allreduce_ring", "11_allreduce_reveal", "12_broadcast", "13_allgather", "14_reduce_scatter",
        "15_all_to_all", "16_putting_it_together",
    )
] + [
    ("04_barrier", TWO + ["--use-builtin"]),
    ("05_remote_load_store", TWO + ["--mode", "store"]),
    ("06_put_get", TWO + ["--mode", "get"]),
    ("07_dynamic_rank_count", ["-d", "0,1,2"]),
    ("07_dynamic_rank_count", FOUR),
    ("08_allreduce_mesh", FOUR),
    ("09_allreduce_two_phase", FOUR),
    ("10_allreduce_ring", FOUR),
    ("11_allreduce_reveal", FOUR + ["--mode", "mesh"]),
    ("11_allreduce_reveal", FOUR + ["--mode", "ring"]),
] + [
    (s, args)
    for s in ("12_broadcast", "13_allgather", "14_reduce_scatter", "15_all_to_all")
    for args in (TWO + ["--mode", "builtin"], FOUR + ["--mode", "hand"], FOUR + ["--mode", "builtin"])
] + [("16_putting_it_together", FOUR)]


class Steps(unittest.TestCase):
    def test_every_step_and_mode_prints_ok_and_equals_the_c_trace(self):
        with support.scratch() as tmp:

            def both(case):
                i, (name, args) = case
                py_trace = os.path.join(tmp, f"py{i}.txt")
                c_trace = os.path.join(tmp, f"c{i}.txt")
                py = support.pldsim_py("--trace", py_trace, support.step(name), *args)
                c = support.run([support.c_step(name), *args, "--trace", c_trace])
                return name, args, py, c, py_trace, c_trace

            for name, args, py, c, py_trace, c_trace in support.in_parallel(both, list(enumerate(MATRIX))):
                with self.subTest(step=name, args=args):
                    self.assertEqual(py.returncode, 0, py.stderr)
                    self.assertEqual(py.stdout.splitlines()[-1], "OK")
                    self.assertIn("[pldsim] backend=sim", py.stdout)
                    self.assertEqual(c.returncode, 0, c.stderr)
                    py_rows, c_rows = support.trace_rows(py_trace), support.trace_rows(c_trace)
                    self.assertGreater(len(py_rows), 0)
                    self.assertEqual(py_rows, c_rows, f"{name} {args}: the traces differ")
                    # the same simulated time on the summary line
                    self.assertEqual(py.stdout.split("time=")[1].split()[0], c.stdout.split("time=")[1].split()[0])

    def test_every_step_and_mode_passes_on_the_threads_backend(self):
        runs = support.in_parallel(
            lambda case: support.pldsim_py("--backend", "threads", support.step(case[0]), *case[1]), MATRIX
        )
        for (name, args), r in zip(MATRIX, runs):
            with self.subTest(step=name, args=args):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
                self.assertIn("[pldsim] backend=threads", r.stdout)

    def test_the_trace_names_the_python_lines(self):
        with support.scratch() as tmp:
            path = os.path.join(tmp, "t.txt")
            r = support.pldsim_py("--trace", path, support.step("05_remote_load_store"), "--mode", "store")
            self.assertEqual(r.returncode, 0, r.stderr)
            text = open(path).read()
            self.assertIn("remote_store", text)
            self.assertIn("05_remote_load_store.py:", text)
            with open(support.step("05_remote_load_store")) as f:
                store_line = next(i for i, l in enumerate(f, 1) if "pld.tile.remote_store(" in l)
            self.assertIn(f"05_remote_load_store.py:{store_line}", text)


if __name__ == "__main__":
    unittest.main()
