"""pldsim_calibrate: the package behind tools/pldsim-calibrate, which sets
the a2a3 model against real 910B runs of the same programs and fits its
keys to them (docs/validation.md).  tools/pldsim-calibrate imports
cli.main and runs it.

    readers.py       a file's text and CSV rows, a cell as a number, or
                     Refused: one line naming the file and line
    measurements.py  the data sets of bench/measurements/ as points: the
                     collectives, the cube and one-sided figures, pto-isa's
                     GEMM + allreduce; every row checked by their rules
    points.py        a point: one measured configuration, and its command line
    simulate.py      the points run on the simulator (bench/pldsim-measured,
                     tools/pldsim-py)
    layers.py        whole pypto-lib layers, run from a pypto-lib clone
    writers.py       a file to write tried before any point runs, and
                     written whole or not at all
    report.py        the table of simulated against measured, and its errors
    fit.py           `fit`: least squares of the model's keys, and the model
                     file it checks or rewrites
    validate.py      `validate`: every point on the model as built
    guard.py         `record` and `guard`: the fit's record, and the drift
                     from it
    cli.py           the command line and main()

It is not installed: it reads the source tree it sits in, TOP, whose
bench/ holds the programs the points run and bench/measurements/ the
data, DATA."""

import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(TOP, "bench", "measurements")
