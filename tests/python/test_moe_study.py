"""tools/moe-study.py, the MoE what-if study, on a toy layer laid out as
pypto-lib's (programs/moe_study/models/toy/moe.py): every --ep the file
offers, on one node and split over two, under --shape-only; the table,
the TSV and the plot it writes, and the run's refusals."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import unittest

import support

STUDY = os.path.join(support.SRC, "tools", "moe-study.py")
ROOT = os.path.join(support.PROGRAMS, "moe_study")


def study(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLD_")}
    return subprocess.run([sys.executable, STUDY, *args], capture_output=True, text=True, timeout=600, env=env)


@unittest.skipIf(support.TORCH_BEFORE_2_1, "--shape-only needs torch >= 2.1 (./bootstrap installs it)")
class MoeStudy(unittest.TestCase):
    def test_every_ep_in_both_placements_with_its_phases(self):
        with support.scratch() as d:
            r = study(ROOT, "--out", d, "--files", "toy/moe.py", "--pldsim-py", support.RUNNER, "--balanced-routing",
                      "--views")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(os.path.join(d, "study.tsv")) as f:
                rows = list(csv.DictReader(f, delimiter="\t"))
            got = {(row["ep"], row["placement"]): row for row in rows}
            # EP 2 and 4, each on one node and split over two
            self.assertEqual(sorted(got), [("2", "box"), ("2", "two-boxes"), ("4", "box"), ("4", "two-boxes")])
            for row in rows:
                self.assertEqual(row["error"], "")
                self.assertGreater(float(row["device_wall_us"]), 0)
                # the critical path runs through the file's own phases
                self.assertGreater(float(row["path_dispatch_us"]), 0)
                self.assertGreater(float(row["path_combine_us"]), 0)
            # the link that bounds dispatch and combine: over HCCS on one
            # node (56 GB/s), over a RoCE NIC (25 GB/s) where EP 2 spans two
            for phase in ("dispatch", "combine"):
                for place, prefix, gbps in (("box", "link_", "56"), ("two-boxes", "nic_", "25")):
                    row = got[("2", place)]
                    self.assertTrue(row[f"{phase}_bound_link"].startswith(prefix), row)
                    self.assertEqual(row[f"{phase}_bound_GBps"], gbps)
                    self.assertGreater(float(row[f"{phase}_bound_share"]), 0)
                    self.assertLessEqual(float(row[f"{phase}_bound_share"]), 1)
                for row in rows:  # the view of each phase, and the bound's time at full rate in it
                    self.assertGreaterEqual(float(row[f"{phase}_bound_full_us"]), 0)
                    self.assertNotEqual(row[f"{phase}_view_top_link"], "")
                    view = os.path.join(d, "views", f"toy-ep{row['ep']}-{row['placement']}-{phase}.svg")
                    with open(view) as f:
                        self.assertIn(f'>{row[f"{phase}_view_top_link"]}</text>', f.read())
            # the same tokens over RoCE between the nodes take longer
            for ep in ("2", "4"):
                self.assertGreater(float(got[(ep, "two-boxes")]["device_wall_us"]),
                                   float(got[(ep, "box")]["device_wall_us"]))
                self.assertEqual(got[(ep, "two-boxes")]["moved_bytes"], got[(ep, "box")]["moved_bytes"])
            with open(os.path.join(d, "study.md")) as f:
                table = f.read()
            self.assertIn("| `toy/moe.py` | 4 | two-boxes |", table)
            if os.access(os.path.join(support.BUILD, "tools", "pldsim-plot"), os.X_OK):
                with open(os.path.join(d, "moe-ep.svg")) as f:
                    self.assertIn("<svg", f.read())

    def test_bad_arguments_are_refused_in_one_line(self):
        for args, want in (
            (("--placements", "rack"), "--placements: 'rack': expected box or two-boxes"),
            (("--files", "none/moe.py"), "none/moe.py: no such file"),
            (("--timeout", "0"), "--timeout 0.0: expected a positive number of seconds"),
        ):
            with self.subTest(args=args):
                r = study(ROOT, *args)
                self.assertEqual(r.returncode, 2)
                self.assertIn(want, r.stderr)


if __name__ == "__main__":
    unittest.main()
