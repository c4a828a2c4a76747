"""What the Python tutorial steps share: their command line (the flags of
upstream's programs: -p, -d, --mode, --use-builtin, --compile-only), the
device-count rule, the run configuration, and the golden check.

The steps run under pldsim-py (``tools/pldsim-py tutorials/05_remote_load_store.py
--mode store``); each mirrors the C step of the same number, call for call,
so that the two leave the same trace."""

from __future__ import annotations

import argparse
import os

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig


def parse(
    name: str,
    *,
    exact: int | None = None,
    minimum: int = 2,
    default_devices: str = "0,1",
    modes: tuple[str, ...] = (),
    use_builtin: bool = False,
) -> tuple[argparse.Namespace, list[int]]:
    """The step's arguments and its device ids (one rank each)."""
    parser = argparse.ArgumentParser(prog=name, description=f"pldsim tutorial step {name}")
    parser.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    need = f"exactly {exact}" if exact else f"at least {minimum}"
    parser.add_argument("-d", "--device", default=default_devices, help=f"comma-separated device ids ({need})")
    if modes:
        parser.add_argument("--mode", default=modes[0], choices=list(modes))
    if use_builtin:
        parser.add_argument("--use-builtin", action="store_true")
    parser.add_argument("--compile-only", action="store_true")
    args = parser.parse_args()
    try:
        ids = [int(d) for d in args.device.split(",")]
    except ValueError:
        shown = repr(args.device) if len(args.device) <= 32 else f"'{args.device[:32]}...' ({len(args.device)} characters)"
        parser.error(f"-d/--device {shown}: expected ids like 0,1,2,3")
    # the list itself when short; else its length, as the C steps say it
    got = ids if len(ids) <= 14 else f"{len(ids)} ({ids[0]}, {ids[1]}, ...)"
    if exact and len(ids) != exact:
        raise SystemExit(f"{name} needs exactly {exact} devices, got {got}")
    if len(ids) < minimum:
        raise SystemExit(f"{name} needs at least {minimum} devices, got {got}")
    return args, ids


def config(args: argparse.Namespace, ids: list[int]) -> RunConfig:
    """The run configuration of upstream's @pl.jit steps."""
    return RunConfig(platform=args.platform, distributed_config=DistributedConfig(device_ids=ids))


def distributed(ids: list[int]) -> DistributedConfig:
    """The device list of the ir.compile steps."""
    return DistributedConfig(device_ids=ids)


def compile_only(args: argparse.Namespace, compiled) -> bool:
    """Prints where the compile went and says to stop, for --compile-only."""
    if args.compile_only:
        print(f"compile_only done: {compiled.output_dir}")
    return args.compile_only


def timing_only() -> bool:
    """Is this a --timing-only run, whose outputs hold no values to check?"""
    return os.environ.get("PLD_TIMING_ONLY", "").strip().lower() in ("1", "yes", "true", "on")


def check(got: torch.Tensor, want: torch.Tensor, what: str, exact: bool = False) -> None:
    """Compares an output with its golden; on a mismatch says where and
    exits 1 (as a failed assert does upstream).  Under --timing-only there
    is nothing to compare."""
    if timing_only():
        return
    same = torch.equal(got, want) if exact else torch.allclose(got, want, rtol=1e-5, atol=1e-5)
    if not same:
        diff = (got.double() - want.double()).abs()
        where = tuple(int(i) for i in (diff == diff.max()).nonzero()[0])
        raise SystemExit(f"FAIL: {what}: at {list(where)} got {got[where].item()}, expected {want[where].item()}")


def finish(got: torch.Tensor, want: torch.Tensor, what: str, exact: bool = False) -> int:
    """The last check of a step: prints OK when the output is right."""
    check(got, want, what, exact)
    print("OK (timing only: results not checked)" if timing_only() else "OK")
    return 0


def allreduce_golden(x: torch.Tensor) -> torch.Tensor:
    """Every rank ends with the sum over ranks: y[r] = sum_k x[k]."""
    return x.sum(dim=0, keepdim=True).expand_as(x).contiguous()


def hand_barrier(signal, me: int, nr: int, op=pld.NotifyOp.AtomicAdd) -> None:
    """The hand-rolled barrier of steps 12-15, for a kernel to call: add 1
    (or set 1) at our row of every peer's signal, then wait until every
    peer's row of ours holds at least 1."""
    for peer in pl.range(nr):
        if peer != me:
            pld.system.notify(signal, peer=peer, offsets=[me, 0], value=1, op=op)
    for src in pl.range(nr):
        if src != me:
            pld.system.wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)


def ramps(nr: int, width: int) -> torch.Tensor:
    """The inputs of steps 12-16: x[r] = arange(100r, 100r + width), [nr, 1, width]."""
    return torch.stack([torch.arange(100.0 * r, 100.0 * r + width).reshape(1, width) for r in range(nr)])
