"""The gate's false-alarm and detection rates, the old rule beside the shipped family.

Two runs of one simulated planner (heterogeneous cases, ``tests/gate/_simulate.py``) at
30/100/300 cases x 1/3/5 samples, 2,000 trials a cell, gated with ``--max-drop 0.05
--no-new-failures``: the share of trials that fail. Then a 10-point drop at 100 x 5 (cases
that break; every case a little worse): the share caught. The table is quoted in docs/ci.md.

Not a speed figure, so not on ``benchmarks/_paired.py``: the figures are alarm rates.

Usage (from the repository root): ``python -m benchmarks.bench_gate_noise [--trials 2000]``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small products: threads only contend

import argparse
import time

from tests.gate import _simulate as sim


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    args = parser.parse_args()
    n = args.trials
    start = time.perf_counter()
    print(f"two runs of one planner, {n} trials a cell: share failing the gate")
    print("cases x samples | before: gate  max-drop alone | now: gate  max-drop  no-new-failures")
    for cases in (30, 100, 300):
        for samples in (1, 3, 5):
            r = sim.false_alarms(cases, samples, n, seed=cases * 10 + samples)
            print(
                f"{cases:>5} x {samples}       | {r.old_gate:11.1%} {r.old_max_drop:14.1%} | "
                f"{r.new_gate:9.1%} {r.new_max_drop:9.1%} {r.new_failures:16.1%}"
            )
    print(f"\na 10-point drop at 100 cases x 5 samples, {n} trials: share caught")
    for kind in ("broken", "diffuse"):
        r = sim.detection(100, 5, n, seed=7, kind=kind)
        print(
            f"{kind:>8}: before {r.old_gate:.1%} (max-drop alone {r.old_max_drop:.1%}); "
            f"now {r.new_gate:.1%} (max-drop {r.new_max_drop:.1%}, "
            f"no-new-failures {r.new_failures:.1%})"
        )
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
