"""Written here, for the tests (not pypto-lib's code): named golden.runner
because --timing-only adjusts the module of that name.

golden.run(program, tensors, golden_fn=None, golden_data=None): runs the
program on the tensors, then compares each output with what golden_fn
computes on copies of the inputs; with neither golden_fn nor golden_data
it says the validation is skipped, as pypto-lib's runner does."""

from __future__ import annotations

from typing import Any, Callable


def run(program: Any, tensors: dict[str, Any], golden_fn: Callable | None = None, golden_data: str | None = None) -> bool:
    expected = None
    if golden_fn is not None:
        expected = {k: v.clone() for k, v in tensors.items()}
        golden_fn(expected)
    program(*tensors.values())
    if expected is None:
        print("[RUN] PASS (validation skipped: no golden_fn or golden_data)")
        return True
    ok = all(bool((tensors[k] - expected[k]).abs().max() <= 1e-6) for k in tensors)
    print("[RUN] PASS" if ok else "[RUN] FAIL")
    return ok
