"""Tests in upstream's style (tests/st/distributed), for the pytest plugin's
tests: they take test_config and device_ids, one is marked for a2a3
hardware and one for a5, and two call one compiled program, which on sim
means a child process per run.

    pldsim-py -m pytest --platform a2a3sim --device 0-3 pytest_cases.py"""

import pypto.language as pl
import pypto.language.distributed as pld
import pytest
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

COLS = 64


@pl.program
class Shift:
    """Each rank stores its input into its right neighbour's window."""

    @pl.function(type=pl.FunctionType.InCore)
    def step(
        self,
        x: pl.Tensor[[1, COLS], pl.FP32],
        y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
        win: pl.InOut[pld.DistributedTensor[[1, COLS], pl.FP32]],
        sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
    ) -> pl.Tensor[[1, COLS], pl.FP32]:
        ctx = pld.get_comm_ctx(win)
        me, nr = pld.rank(ctx), pld.nranks(ctx)
        t = pl.load(x, [0, 0], [1, COLS])
        pld.tile.remote_store(t, win, peer=(me + 1) % nr, offsets=[0, 0])
        pld.system.notify(target=sig, peer=(me + 1) % nr, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal=sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        got = pl.load(win, [0, 0], [1, COLS])
        return pl.store(got, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def per_rank(
        self,
        x: pl.Tensor[[1, COLS], pl.FP32],
        y: pl.Out[pl.Tensor[[1, COLS], pl.FP32]],
        win: pl.InOut[pld.DistributedTensor[[1, COLS], pl.FP32]],
        sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
    ) -> pl.Tensor[[1, COLS], pl.FP32]:
        return self.step(x, y, win, sig)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[4, 1, COLS], pl.FP32], y: pl.Out[pl.Tensor[[4, 1, COLS], pl.FP32]]):
        win_buf = pld.alloc_window_buffer([1, COLS], dtype=pl.FP32)
        sig_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            win = pld.window(win_buf, [1, COLS], dtype=pl.FP32)
            sig = pld.window(sig_buf, [1, 1], dtype=pl.INT32)
            self.per_rank(x[r], y[r], win, sig, device=r)
        return y


def _compiled(test_config, device_ids):
    if len(device_ids) < 4:
        pytest.skip(f"needs 4 devices, got {device_ids}")
    dc = DistributedConfig(device_ids=device_ids[:4])
    return ir.compile(Shift, platform=test_config.platform, distributed_config=dc)


def _check(x, y):
    assert torch.equal(y, torch.roll(x, 1, dims=0)), "rank r must hold rank r-1's row"


def test_the_fixtures(test_config, device_ids):
    print(f"platform={test_config.platform} devices={device_ids}")


def test_one_run(test_config, device_ids):
    x, y = torch.randn(4, 1, COLS), torch.zeros(4, 1, COLS)
    _compiled(test_config, device_ids)(x, y)
    _check(x, y)


def test_runs_in_a_loop(test_config, device_ids):
    compiled = _compiled(test_config, device_ids)
    for _ in range(3):
        x, y = torch.randn(4, 1, COLS), torch.zeros(4, 1, COLS)
        compiled(x, y)
        _check(x, y)


@pytest.mark.platforms("a2a3")
def test_marked_for_a2a3_hardware(test_config):
    print(f"a2a3-only test ran on {test_config.platform}")


@pytest.mark.platforms("a5", "a5sim")
def test_marked_for_a5():
    pass


def test_a_wrong_result_fails(test_config, device_ids):
    x, y = torch.randn(4, 1, COLS), torch.zeros(4, 1, COLS)
    _compiled(test_config, device_ids)(x, y)
    assert torch.equal(y, x), "deliberately wrong: y is x shifted"
