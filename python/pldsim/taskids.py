"""Task ids: what ``with pl.at(...) as tid``, ``pl.submit``,
``pl.spmd_submit``, ``with pl.spmd(...) as tid`` and
``pl.system.task_dummy`` give, for later ``deps=[...]``, for
``pl.Scalar[pl.TASK_ID]`` parameters and for arrays of pl.TASK_ID.  Its
own module, below the annotations and the arrays that hold task ids,
and below the scopes that make them."""

from __future__ import annotations


class TaskId:
    """What ``with pl.at(...) as tid`` (or ``pl.submit``, ``pl.spmd_submit``)
    binds: a task of the rank's manual scope, for later ``deps=[tid]``.  An
    SPMD launch is one task per block; its id stands for all of them."""

    __slots__ = ("scope", "index", "name", "blocks")

    def __init__(self, scope: int, index: int, name: str, blocks: tuple[tuple[int, int], ...] = ()):
        self.scope, self.index, self.name = scope, index, name
        self.blocks = blocks  # the (scope, index) of each further block

    def ids(self) -> list[tuple[int, int]]:
        """libpld's task ids that this one stands for (none for a task that
        ran at once, which is complete)."""
        return [i for i in [(self.scope, self.index), *self.blocks] if i[1] >= 0]

    def __repr__(self) -> str:
        return f"<pl.at task {self.name} #{self.index}>" if self.scope else f"<pl.at task {self.name} (ran at once)>"
