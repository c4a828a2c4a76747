"""Worker-resident tensors under pldsim-py (upstream's DistributedWorker
API: alloc_tensor, alloc_stacked_tensor, submit, run, register, close):
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
        }
        names = list(cases)
        for name, r in zip(names, support.in_parallel(run, names)):
            with self.subTest(mode=name):
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(cases[name], r.stderr)


if __name__ == "__main__":
    unittest.main()
