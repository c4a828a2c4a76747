"""Shared GM bandwidth (docs/models.md, "Shared GM bandwidth"): the cores a
device runs at once share gm_read_bw and gm_write_bw by demand, so vector
cores streaming GM slow each other and a GEMM beside them
(tests/python/programs/gm_share.py), against closed forms."""

from __future__ import annotations

import os
import unittest

import support

PROGRAM = "gm_share.py"
TILE = 64 * 256 * 4  # the streaming blocks' tile, bytes


def run(topology: str, *args: str, trace: str | None = None):
    extra = ("--trace", trace) if trace else ()
    return support.pldsim_py("--topology", topology, *extra, support.program(PROGRAM), *args)


def quiet(**keys: str) -> str:
    """One device, no host dispatch: the kernels alone."""
    return ",".join(["mesh:1", "dispatch_lat=0"] + [f"{k}={v}" for k, v in keys.items()])


def gbps(bytes_per_us: float) -> str:
    return f"{bytes_per_us / 1e3!r}GBps"


def rows(trace: str) -> list[tuple]:
    """A text trace's ops: (start_ns, end_ns, rank, op, peer, where, ...)."""
    with open(trace) as f:
        return [(float(c[0]), float(c[1]), *c[2:]) for c in (line.split() for line in f if not line.startswith("#"))]


def gemm_end_us(trace: str) -> float:
    """When the GEMM's store of its output tile `c` ends, in us."""
    ends = [c[1] for c in rows(trace) if c[3] == "store" and c[5] == "c"]
    assert len(ends) == 1, ends
    return ends[0] / 1e3


class Sharing(unittest.TestCase):
    def test_streaming_vector_cores_share_the_reads_evenly(self):
        """V blocks each load L tiles of B bytes one after another, then
        store one.  With gm_read_bw at twice one core's hbm_bw, one or two
        of them stream at their own rate and four at half of it:
        launch + L (hbm_lat + B / rate) + (hbm_lat + B / hbm_bw)."""
        m = support.model_us()
        bw = 2 * m["hbm_bw"]
        cases = [(1, m["hbm_bw"]), (2, m["hbm_bw"]), (4, m["hbm_bw"] / 2)]
        runs = support.in_parallel(lambda c: run(quiet(gm_read_bw=gbps(bw)), "stream", str(c[0]), "10"), cases)
        for (v, rate), r in zip(cases, runs):
            with self.subTest(blocks=v):
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines()[-1], "OK")
                want = support.task_start_us(m) + 10 * (m["hbm_lat"] + TILE / rate) + m["hbm_lat"] + TILE / m["hbm_bw"]
                self.assertAlmostEqual(support.sim_time_us(r), want, delta=0.0015)  # time= has 3 decimals

    def test_writes_are_shared_apart_from_reads(self):
        """The same four blocks with gm_write_bw at half one core's rate
        and reads unshared: their loads run at hbm_bw, and their stores,
        which start together, at a quarter of gm_write_bw each."""
        m = support.model_us()
        r = run(quiet(gm_read_bw="0", gm_write_bw=gbps(m["hbm_bw"] / 2)), "stream", "4", "10")
        self.assertEqual(r.returncode, 0, r.stderr)
        want = support.task_start_us(m) + 10 * (m["hbm_lat"] + TILE / m["hbm_bw"]) + m["hbm_lat"] + TILE / (m["hbm_bw"] / 8)
        self.assertAlmostEqual(support.sim_time_us(r), want, delta=0.0015)

    def test_a_lone_core_streams_at_the_lesser_of_its_rate_and_the_devices(self):
        """One block alone shares with nobody: it loads at hbm_bw, or at
        gm_read_bw when that is less."""
        m = support.model_us()
        for bw, rate in ((2 * m["hbm_bw"], m["hbm_bw"]), (m["hbm_bw"] / 4, m["hbm_bw"] / 4)):
            with self.subTest(gm_read_bw=bw):
                r = run(quiet(gm_read_bw=gbps(bw)), "stream", "1", "10")
                self.assertEqual(r.returncode, 0, r.stderr)
                want = support.task_start_us(m) + 10 * (m["hbm_lat"] + TILE / rate) + m["hbm_lat"] + TILE / m["hbm_bw"]
                self.assertAlmostEqual(support.sim_time_us(r), want, delta=0.0015)

    def test_streaming_vector_cores_slow_a_gemm_beside_them(self):
        """bench/gemm.py's k loop on one AIC (MTE2 its slowest pipe: four
        panels of loads, then the last panel's moves and matmuls and the
        drain), beside V blocks that stream GM reads for longer than it.
        With gm_read_bw = l1_bw + hbm_bw, one block leaves the GEMM as it
        is alone; with three, the cube's loads get
        l1_bw * gm_read_bw / (l1_bw + 3 hbm_bw) for the GEMM's whole
        length, and the GEMM ends that much later.  Its task and theirs are
        submitted at once (submit_lat = 0), so that they start together."""
        m = support.model_us()
        bw = m["l1_bw"] + m["hbm_bw"]
        a, b = 128 * 256 * 2, 256 * 256 * 2  # one L1 panel of A and of B, FP16
        moves = (a / 4) / m["l0a_bw"] + (b / 4) / m["l0b_bw"]
        mad = m["cube_lat"] + 2 * 128 * 256 * 64 / m["cube_rate"]
        drain = m["l0c_lat"] + 128 * 256 * 4 / m["l0c_bw"]

        def gemm_us(l1: float) -> float:
            return m["launch_lat"] + 4 * (2 * m["hbm_lat"] + (a + b) / l1) + moves + 4 * mad + drain

        with support.scratch() as d:
            traces = [os.path.join(d, f"{v}.txt") for v in (1, 3)]
            runs = support.in_parallel(lambda vt: run(quiet(gm_read_bw=gbps(bw), submit_lat="0"), "gemm", str(vt[0]), "60", trace=vt[1]), list(zip((1, 3), traces)))
            for r in runs:
                self.assertEqual(r.returncode, 0, r.stderr)
            alone, crowded = (gemm_end_us(t) for t in traces)
        self.assertAlmostEqual(alone, gemm_us(m["l1_bw"]), delta=1e-6)
        self.assertAlmostEqual(crowded, gemm_us(m["l1_bw"] * bw / (m["l1_bw"] + 3 * m["hbm_bw"])), delta=1e-6)
        self.assertGreater(crowded, 1.25 * alone)
        # the GEMM's core and the streaming ones start together: its first
        # load sees all three only because every stream that starts at a
        # time is booked before any is priced (without the backend's
        # yield it loaded alone first, and ended at 10.66 us, not 10.87)


class Hbm(unittest.TestCase):
    """Reads of an array larger than l2_bytes come from HBM, whose
    hbm_chip_bw every core shares (docs/models.md, "HBM");
    tests/python/programs/hbm_reads.py: V blocks each load L tiles of
    32 KiB from slab 1 (64 KiB) of a [2, 64, 256] FP32 tensor (128 KiB),
    then store one.  The L2 is not shared here (gm_read_bw=0), so only
    the HBM can slow the loads."""

    HALF = 32 * 256 * 4  # hbm_reads.py's tile, bytes

    def times(self, cases: list[tuple[str, int, str]], hbm_bw: float) -> list[float]:
        """Each (mode, blocks, l2_bytes) run's simulated time, us."""
        runs = support.in_parallel(
            lambda c: support.pldsim_py("--topology", quiet(gm_read_bw="0", l2_bytes=c[2], hbm_chip_bw=gbps(hbm_bw)),
                                        support.program("hbm_reads.py"), c[0], str(c[1]), "10"),
            cases)
        for c, r in zip(cases, runs):
            self.assertEqual(r.returncode, 0, f"{c}: {r.stderr}")
            self.assertEqual(r.stdout.splitlines()[-1], "OK", c)
        return [support.sim_time_us(r) for r in runs]

    def want(self, rate: float, tile: int = HALF) -> float:
        """launch + L loads of `tile` bytes at `rate` + one store at the
        core's own rate."""
        m = support.model_us()
        return support.task_start_us(m) + 10 * (m["hbm_lat"] + tile / rate) + m["hbm_lat"] + tile / m["hbm_bw"]

    def test_the_array_a_load_reads_decides_whether_the_l2_holds_it(self):
        """Four blocks, hbm_chip_bw at twice one core's rate: from HBM each
        loads at half its rate, from L2 at its own.  The array is the slab
        (64 KiB) for a slice of a slice (whose own view holds 32 KiB) and
        for a region inside the slab; it is the whole tensor (128 KiB) for
        a region across both slabs.  An array of exactly l2_bytes fits."""
        m = support.model_us()
        own, half = m["hbm_bw"], m["hbm_bw"] / 2
        cases = [("slice", "48KiB", half), ("slice", "64KiB", own), ("slice", "96KiB", own),
                 ("region", "48KiB", half), ("region", "96KiB", own),
                 ("whole", "96KiB", half), ("whole", "128KiB", own)]
        got = self.times([(mode, 4, l2) for mode, l2, _ in cases], 2 * m["hbm_bw"])
        for (mode, l2, rate), t in zip(cases, got):
            with self.subTest(mode=mode, l2_bytes=l2):
                self.assertAlmostEqual(t, self.want(rate), delta=0.0015)  # time= has 3 decimals

    def test_a_row_is_not_a_slab(self):
        """One row [1, 1, 256] of slab 1 reads the whole tensor's array (a
        GEMV's row of a weight reads the weight): from HBM with l2_bytes
        between the slab and the whole, where a slab's region would fit."""
        m = support.model_us()
        row = 256 * 4
        cases = [("96KiB", m["hbm_bw"] / 2), ("128KiB", m["hbm_bw"])]
        got = self.times([("row", 4, l2) for l2, _ in cases], 2 * m["hbm_bw"])
        for (l2, rate), t in zip(cases, got):
            with self.subTest(l2_bytes=l2):
                self.assertAlmostEqual(t, self.want(rate, row), delta=0.0015)

    def test_the_front_end_names_no_array_smaller_than_the_view(self):
        """HostNames.array_bytes, the array the Python front end passes on:
        a rank's slab for a slice of a slice; 0 (libpld's own layout then)
        for a flat view of a named tensor, whose leading stride matches a
        row, for an unnamed tensor, and for a view that runs past the
        named tensor's memory (a freed name's reused addresses)."""
        code = (
            "import torch\n"
            "from pldsim.values import HostNames\n"
            "h = HostNames()\n"
            "w = torch.zeros(2, 64, 256)\n"
            "h.add(w, 'w')\n"
            "flat = torch.zeros(64, 2048, dtype=torch.bfloat16)\n"
            "h.add(flat, 'flat')\n"
            "print(h.array_bytes(w[1][0:32, :]), h.array_bytes(w[1]), h.array_bytes(w),\n"
            "      h.array_bytes(w[:, 0:16, :]), h.array_bytes(flat.view(-1)),\n"
            "      h.array_bytes(flat.view(1, -1)), h.array_bytes(torch.zeros(8, 8)))\n"
            "big = torch.zeros(4, 64, 256)\n"
            "h2 = HostNames()\n"
            "h2.add(big[0], 'small')\n"
            "print(h2.array_bytes(big[0:2].reshape(128, 256)))\n"
        )
        with support.scratch() as d:
            path = os.path.join(d, "names.py")
            with open(path, "w") as f:
                f.write(code)
            r = support.pldsim_py(path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [f"{64 * 256 * 4} {64 * 256 * 4} {2 * 64 * 256 * 4} {2 * 64 * 256 * 4} 0 0 0", "0"])

    def test_a_lone_core_reads_hbm_at_the_lesser_of_its_rate_and_the_chips(self):
        """One block shares with nobody: from HBM it loads at hbm_bw, or at
        hbm_chip_bw when that is less."""
        m = support.model_us()
        for chip, rate in ((2 * m["hbm_bw"], m["hbm_bw"]), (m["hbm_bw"] / 4, m["hbm_bw"] / 4)):
            with self.subTest(hbm_chip_bw=chip):
                (t,) = self.times([("slice", 1, "48KiB")], chip)
                self.assertAlmostEqual(t, self.want(rate), delta=0.0015)

    def test_without_the_keys_nothing_comes_from_hbm(self):
        """l2_bytes or hbm_chip_bw at 0: no HBM level, every load at the
        core's own rate (the models that give neither)."""
        m = support.model_us()
        for keys in (dict(l2_bytes="0"), dict(hbm_chip_bw="0")):
            with self.subTest(**keys):
                spec = quiet(gm_read_bw="0", **{"l2_bytes": "48KiB", "hbm_chip_bw": gbps(2 * m["hbm_bw"]), **keys})
                r = support.pldsim_py("--topology", spec, support.program("hbm_reads.py"), "slice", "4", "10")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertAlmostEqual(support.sim_time_us(r), self.want(m["hbm_bw"]), delta=0.0015)


class GemmAllreduce(unittest.TestCase):
    """bench/gemm_ar.py, pto-isa's GEMM + allreduce (the held-out figures of
    docs/validation.md, "Shared GM bandwidth"), at a small shape."""

    GEMM_AR = os.path.join(support.SRC, "bench", "gemm_ar.py")
    SMALL = ["-d", "0-1", "-m", "256", "-k", "256", "-n", "512", "--gemm-cores", "2"]

    def test_it_runs_with_and_without_the_allreduce(self):
        runs = support.in_parallel(lambda c: support.pldsim_py("--timing-only", "--no-summary", self.GEMM_AR, *self.SMALL, "--comm-cores", c), ["0", "4"])
        walls = []
        for r in runs:
            self.assertEqual(r.returncode, 0, r.stderr)
            walls.append(float(r.stdout.split("device_wall_us=")[1].split()[0]))
        self.assertGreater(walls[1], walls[0])  # the allreduce ends after the GEMM

    def test_bad_arguments_are_one_line(self):
        cases = [
            (["--comm-cores", "5"], "--comm-cores 5 and --gemm-cores 24: one must divide the other"),
            (["-d", "0,0"], "-d '0,0': expected distinct device ids, such as 0,1,2,3 or 0-7"),
            (["-m", "100"], "-m 100 is not a positive multiple of 128"),
            (["--gemm-cores", "0"], "--gemm-cores must be positive and --comm-cores at least 0"),
            # it passed, and the run ended in a 101-line deadlock report
            (["--comm-cores", "96"], "--comm-cores 96: expected at most 48, the AIV cores of the 910B"),
        ]
        for args, msg in cases:
            with self.subTest(args=args):
                r = support.pldsim_py("--timing-only", self.GEMM_AR, *args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(msg, r.stderr.splitlines()[-1])


if __name__ == "__main__":
    unittest.main()
