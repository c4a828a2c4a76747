"""Worker-resident tensors under pldsim-py (upstream's DistributedWorker
API: alloc_tensor, alloc_stacked_tensor, submit, run, register, close,
and a stack of per-card shards as pypto-lib's golden runner builds one):
a stacked weight uploaded once serves three dispatches after its source
is zeroed, a second program reads it too, close() reclaims what is still
owned, and each misuse raises upstream's exception with a message that
says what was wrong."""

from __future__ import annotations

import unittest

import support

SHOWN = "tests/python/programs/resident.py"


def run(mode: str = "ok"):
    return support.pldsim_py(SHOWN, mode, cwd=support.SRC)


class Resident(unittest.TestCase):
    def test_a_resident_weight_serves_every_dispatch(self):
        r = run()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "OK")

    def test_each_misuse_raises_with_a_message(self):
        cases = {
            "after-close": "RuntimeError: Add: register called after close",
            "freed": "RuntimeError: Add(...): this DeviceTensor has been freed",
            "bad-init": "ValueError: alloc_tensor: init is [3] torch.float32; the tensor is [2, 1, 64] torch.float32",
            "bad-stack": "ValueError: alloc_stacked_tensor: a stack of 2 shards on 2 cards with worker_ids=[0, 0]",
            "ambiguous": "TypeError: calling the worker is ambiguous with 2 programs prepared",
            "not-prepared": "ValueError: run: 'Add' is not a program prepared on this worker",
            "free-plain-as-stacked": "TypeError: free_stacked_tensor: <DeviceTensor [2, 1, 64] torch.float32> was made by alloc_tensor, not alloc_stacked_tensor",
            "copy-plain-as-stacked": "TypeError: copy_stacked_from: <DeviceTensor [2, 1, 64] torch.float32> was made by alloc_tensor",
            "bad-card": "ValueError: alloc_tensor: worker_id must be a card of this worker, 0..1, got 2",
            "wrong-card": "ValueError: free_tensor(..., worker_id=0): <DeviceTensor [1, 64] torch.float32> was allocated on card 1; pass the same worker_id",
        }
        names = list(cases)
        for name, r in zip(names, support.in_parallel(run, names)):
            with self.subTest(mode=name):
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(cases[name], r.stderr)

    def test_a_direct_call_is_refused_at_its_line(self):
        # issue 28: these were reported at <unknown>:0
        shown = "tests/python/programs/after_close.py"
        with open(support.program("after_close.py")) as f:
            lines = {l.rstrip().split("# FAULT ")[1]: i for i, l in enumerate(f, 1) if "# FAULT " in l}
        cases = {
            "freed": "but got a DeviceTensor [2, 1, 64] torch.float32 that has been freed (free_tensor, or its worker's close())",
            "resident": "but got a DeviceTensor [2, 1, 64] torch.float32: its worker passes it (run, submit or a registered handle)",
            "wrong-shape": "but got a torch.float32 tensor of shape [3]: 1 dimensions, not 3",
        }
        names = list(cases)
        runs = support.in_parallel(lambda m: support.pldsim_py(shown, m, cwd=support.SRC), names)
        for name, r in zip(names, runs):
            with self.subTest(mode=name):
                self.assertEqual(r.returncode, 3, r.stderr)
                errors = [l for l in r.stderr.splitlines() if not l.startswith("[pldsim]")]
                self.assertEqual(len(errors), 1, r.stderr)
                self.assertTrue(errors[0].startswith(f"{shown}:{lines[name]}: host: host: argument 'b' of host"), errors[0])
                self.assertIn(cases[name], errors[0])


if __name__ == "__main__":
    unittest.main()
