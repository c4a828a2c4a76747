"""A pytest plugin that gives upstream's distributed system tests
(tests/st/distributed) what they take from upstream's tests/st/conftest.py,
so that they run unmodified on pldsim:

    pldsim-py -m pytest --platform a2a3sim --device 0-3 TESTFILE.py

pldsim-py loads it into every pytest it starts (PYTEST_PLUGINS), also one
a test file starts itself with pytest.main().  It provides:

- ``--platform IDS``: a comma-separated allowlist of a2a3sim, a2a3, a5sim
  and a5 (default a2a3, as upstream's).  pldsim has one model per chip, so
  a2a3sim and a2a3 are the same platform, and so are a5sim and a5: a test
  marked for a2a3 hardware only runs on pldsim's a2a3 model too.
- ``--device IDS``: the device ids, "0", "0-7", "0,1,12" or a mix (default
  0, as upstream's).  Any number of ids works: pldsim has no cards to run
  out of.
- ``--save-kernels``, ``--kernels-dir``: keep each compile's output
  directory, as upstream's do;
- ``--codegen-only``: defined because upstream's distributed conftest.py
  reads it, and refused when given: pldsim compiles nothing, so there is no
  code to generate without running.
- the fixtures ``test_config`` (a RunConfig whose platform is the first id
  of --platform) and ``device_ids`` (the --device list, in order);
- the ``platforms(*ids)`` marker: a test runs when its ids and --platform
  share a chip, and is deselected otherwise, as upstream's conftest does;
- upstream's project root on ``sys.path``, as its conftest puts it there
  for the ``examples`` package some tests import: the directory above the
  ``tests/st`` that holds the collected files."""

from __future__ import annotations

import pathlib
import sys
from typing import Any

import pytest

from .config import RunConfig, short_text

_CHIPS = {"a2a3sim": "a2a3", "a2a3": "a2a3", "a5sim": "a5", "a5": "a5"}


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("pldsim", "pldsim (upstream's system-test options)")
    group.addoption(
        "--platform",
        action="store",
        default="a2a3",
        help="comma-separated platforms to test on: a2a3sim, a2a3, a5sim, a5 (a2a3sim and a2a3 are "
        "pldsim's one a2a3 model, a5sim and a5 its a5 model; default: a2a3)",
    )
    group.addoption(
        "--device",
        action="store",
        default="0",
        help="device ids: one ('0'), a range ('0-7'), a list ('0,1,12') or a mix ('0-3,8'); "
        "the device_ids fixture (default: 0)",
    )
    group.addoption(
        "--codegen-only",
        action="store_true",
        default=False,
        help="upstream's compile-without-running; refused: pldsim compiles nothing",
    )
    group.addoption("--save-kernels", action="store_true", default=False, help="keep each compile's output directory")
    group.addoption("--kernels-dir", action="store", default=None, help="where --save-kernels keeps them")


MAX_DEVICES = 16384  # what pldsim simulates (libpld's -d says the same)
MAX_DEVICE_ID = 64 * MAX_DEVICES - 1  # libpld: device ids below 64 x its most ranks


def parse_devices(raw: str) -> list[int]:
    """The --device list: ids and inclusive ranges, in order, each once."""
    text = str(raw).strip()
    if not text:
        raise pytest.UsageError("--device must not be empty")
    devices: list[int] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        lo, dash, hi = token.partition("-")
        try:
            start, end = int(lo), int(hi if dash else lo)
        except ValueError:
            raise pytest.UsageError(f"--device {short_text(raw)}: {short_text(token)} is not a device id or a range such as 0-7") from None
        if start < 0 or end < start:
            raise pytest.UsageError(f"--device {short_text(raw)}: {short_text(token)} must be an id >= 0 or a non-decreasing range")
        # libpld's bounds (-d): checked before the range is built, which at
        # 0-99999999999 took minutes and gigabytes
        if end > MAX_DEVICE_ID:
            raise pytest.UsageError(f"--device {short_text(raw)}: id {end} is too large; expected ids 0 to {MAX_DEVICE_ID}")
        if len(devices) + end - start + 1 > MAX_DEVICES:
            raise pytest.UsageError(f"--device {short_text(raw)}: more than {MAX_DEVICES} devices; expected at most {MAX_DEVICES}")
        devices.extend(range(start, end + 1))
    if not devices:
        raise pytest.UsageError(f"--device {short_text(raw)} names no device")
    return list(dict.fromkeys(devices))


def parse_platforms(raw: str) -> list[str]:
    """The --platform allowlist, in order, each once."""
    ids = list(dict.fromkeys(t.strip() for t in str(raw).split(",") if t.strip()))
    bad = [p for p in ids if p not in _CHIPS]
    if not ids or bad:
        raise pytest.UsageError(f"--platform {raw!r}: expected a comma-separated list of {', '.join(_CHIPS)}")
    return ids


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers", "platforms(*ids): run the test only on these platforms (a2a3sim and a2a3 are one chip on pldsim)"
    )
    config.addinivalue_line("markers", "slow: a slow test")
    # checked now, so that a typo is one usage error before any collection
    if config.getoption("--codegen-only"):
        raise pytest.UsageError(
            "--codegen-only: pldsim compiles nothing, so there is no code to generate; run the tests without it"
        )
    parse_platforms(config.getoption("--platform"))
    parse_devices(config.getoption("--device"))
    for arg in config.args:
        root = _project_root(pathlib.Path(arg.split("::")[0]).resolve())
        if root is not None and str(root) not in sys.path:
            sys.path.insert(0, str(root))


def _project_root(path: pathlib.Path) -> pathlib.Path | None:
    """The root of the upstream checkout `path` is in (the parent of its
    tests/st), or None."""
    for d in (path, *path.parents):
        if d.name == "st" and d.parent.name == "tests":
            return d.parent.parent
    return None


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    chips = {_CHIPS[p] for p in parse_platforms(config.getoption("--platform"))}
    keep, drop = [], []
    for item in items:
        marker = next(item.iter_markers(name="platforms"), None)
        allowed = chips if marker is None else chips & {_CHIPS[p] for p in marker.args if p in _CHIPS}
        params = getattr(item, "callspec", None)
        platform = params.params.get("platform") if params else None
        if platform is not None:
            allowed = allowed & {_CHIPS.get(platform, platform)}
        (keep if allowed else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session")
def test_config(request: Any) -> Any:
    """The session's RunConfig: the first --platform, the first --device."""
    opt = request.config.getoption
    return RunConfig(
        platform=parse_platforms(opt("--platform"))[0],
        device_id=parse_devices(opt("--device"))[0],
        save_kernels=opt("--save-kernels"),
        save_kernels_dir=opt("--kernels-dir") if opt("--save-kernels") else None,
        codegen_only=opt("--codegen-only"),
    )


@pytest.fixture(scope="session")
def device_ids(request: Any) -> list[int]:
    """Every --device id, in the order given."""
    return parse_devices(request.config.getoption("--device"))
