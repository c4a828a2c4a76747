"""pldsim's options for a Python program, from PLD_* environment variables.

``pldsim-py --topology ring:8 prog.py`` and ``PLD_TOPOLOGY=ring:8
pldsim-py prog.py`` are the same run: the runner turns its options into
these variables, and a run turns them into libpld's common flags, which
libpld checks and explains as it does for C programs."""

from __future__ import annotations

import os

#: (environment variable, libpld flag, takes a value, what it does)
OPTIONS: tuple[tuple[str, str, bool, str], ...] = (
    ("PLD_PLATFORM", "--platform", True, "a model (a2a3sim, a5, hgx-h100, ring, ...), FILE.model or FILE.xml; overrides the program's -p"),
    ("PLD_TOPOLOGY", "--topology", True, "generate the interconnect: ring:16, mesh:8,bw=56GBps,lat=1.5us, torus2d:4x4, ..."),
    ("PLD_BACKEND", "--backend", True, "sim (default) or threads (one OS thread per device, wall-clock time)"),
    ("PLD_TRACE", "--trace", True, "write a trace: FILE.json (Perfetto), FILE.svg (timeline), else the text trace"),
    ("PLD_SUMMARY", "--summary", False, "after the run: busy/waiting/idle per rank, traffic per link, critical path"),
    ("PLD_SUMMARY_JSON", "--summary-json", True, "write the run summary as JSON (docs/summary.md) to FILE, - for stdout"),
    ("PLD_NO_SUMMARY", "--no-summary", False, "do not print the one-line run summary"),
    ("PLD_RACES", "--races", True, "data-race detector: off, warn or error (default error up to 64 ranks)"),
    ("PLD_WAIT_TIMEOUT", "--wait-timeout", True, "a wait that blocks longer (simulated) is reported as a deadlock, e.g. 1ms"),
    ("PLD_SEED", "--seed", True, "seed for torch's and Python's random generators before the program starts (default 0)"),
    ("PLD_NO_DATA", "--no-data", False, "timing only: window payloads are neither kept nor copied"),
    ("PLD_TIMING_ONLY", "--timing-only", False, "no values but 32/64-bit integers: loads, products and stores are charged, not computed (float outputs keep what they held)"),
    ("PLD_SHAPE_ONLY", "--shape-only", False, "--timing-only, and big float inputs (torch.randn, torch.empty) carry only shape and dtype: never made (docs/python.md)"),
    ("PLD_NETWORK_MODEL", "--network-model", True, "sim: CM02 (default, exact latency+size/bandwidth) or LV08"),
    ("PLD_NO_CACHELINE_CHECK", "--no-cacheline-check", False, "do not warn about window buffers sharing a 64-byte line"),
    ("PLD_SAVE_PLATFORM", "--save-platform", True, "sim: write the platform XML the run simulates on to FILE"),
    ("PLD_SIMGRID_CFG", "--cfg", True, "sim: a SimGrid setting, KEY:VALUE (--cfg=network/model:LV08); repeatable"),
    ("PLD_SIMGRID_LOG", "--log", True, "sim: a SimGrid log setting (--log=root.thresh:info); repeatable"),
)

#: options given more than once: their variable holds one value per line
REPEATABLE = ("PLD_SIMGRID_CFG", "PLD_SIMGRID_LOG")

_TRUE = ("1", "yes", "true", "on")


def flag_of(name: str) -> tuple[str, str, bool, str] | None:
    """The OPTIONS row of a runner flag (`--topology`), or None."""
    return next((o for o in OPTIONS if o[1] == name), None)


def from_environment(env: os._Environ | dict | None = None) -> list[str]:
    """libpld's flags for the PLD_* variables that are set."""
    env = os.environ if env is None else env
    out: list[str] = []
    for var, flag, has_value, _ in OPTIONS:
        v = env.get(var)
        if v is None or var == "PLD_BACKEND":  # libpld reads PLD_BACKEND itself
            continue
        if var in REPEATABLE:
            out += [f"{flag}={w}" for w in v.split("\n") if w]
        elif has_value:
            out += [flag, v]
        elif var == "PLD_SUMMARY" and v.strip().lower() in ("json", "text"):
            out.append(f"{flag}={v.strip().lower()}")  # libpld's one switch with a value
        elif v.strip().lower() in _TRUE:
            # the front end's own switch: libpld sees the --timing-only it implies
            flag = "--timing-only" if var == "PLD_SHAPE_ONLY" else flag
            if flag not in out:
                out.append(flag)
        elif v.strip().lower() not in ("", "0", "no", "false", "off"):
            raise ValueError(f"{var}={v!r}: expected 1 or 0")
    return out


def backend(env: os._Environ | dict | None = None) -> str:
    env = os.environ if env is None else env
    return env.get("PLD_BACKEND") or "sim"
