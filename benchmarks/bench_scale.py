"""Research-scale suites from the user's seat: import, run, report and gate at 1k, 10k, 100k cases.

Builds a WorfBench data file of N items (the public toolbench gold items of ``../shared/data``
repeated under new ids when they sit beside the checkout, else hand-written items of the same
shape), then times each step as the user runs it, one whole process each
(``benchmarks/_paired.measure``: CPU, wall, peak memory of that process):

    planeval import worfbench DATA --suite scale --root P
    planeval run P/evals/scale.yaml --out RUN
    planeval report RUN
    planeval gate RUN --min-pass-rate 0.5

and prints each step's time per case and the growth of peak memory per case between sizes
(target for ``run``: at most 2 KiB per case). Past 1,000 cases the import writes the cases to
``evals/scale.cases.jsonl`` (docs/suites.md), so no size limit stands in the way.

Run: ``python benchmarks/bench_scale.py [--sizes 1000,10000,100000] [--as-is]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from _installed_env import installed_env
from _paired import MIB, Measure, measure

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "worfbench" / "toolbench.json"
STEPS = ("import", "run", "report", "gate")


def items(count: int) -> list[dict[str, Any]]:
    """``count`` WorfBench items: the public toolbench ones cycled under new ids, else
    hand-written ones (provenance: handwritten)."""
    if SHARED.is_file():
        base = json.loads(SHARED.read_text(encoding="utf-8"))
    else:
        system = "You are a helpful task planner.\nKeep your output in format:\nNode:\n...\n"
        base = [
            {
                "source": "handwritten",
                "id": f"h{k}",
                "conversations": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": f"Task: Do thing {k}\n"},
                    {
                        "role": "assistant",
                        "content": "Node:\n1: Look it up\n2: Report it\n"
                        "Edge: (START,1) (1,2) (2,END)",
                    },
                ],
            }
            for k in range(50)
        ]
    return [{**base[k % len(base)], "id": f"item-{k:06d}"} for k in range(count)]


def steps(root: Path, count: int, env: dict[str, str]) -> dict[str, Measure]:
    """Each step of one size, timed as its own process."""
    data = root / f"data-{count}.json"
    data.write_text(json.dumps(items(count)), encoding="utf-8")
    project, run = root / f"project-{count}", root / f"run-{count}"
    py = [sys.executable, "-m", "harness"]
    commands = {
        "import": [
            *py,
            "import",
            "worfbench",
            str(data),
            "--suite",
            "scale",
            "--root",
            str(project),
        ],
        "run": [*py, "run", str(project / "evals" / "scale.yaml"), "--out", str(run)],
        "report": [*py, "report", str(run)],
        "gate": [*py, "gate", str(run), "--min-pass-rate", "0.5"],
    }
    found = {}
    for step in STEPS:
        found[step] = measure(commands[step], env=env, ok_codes=(0, 1), cwd=root)
    return found


def clean(root: Path, count: int) -> None:
    """Remove one size's data, project and run (100,000 recordings take a while)."""
    (root / f"data-{count}.json").unlink()
    shutil.rmtree(root / f"project-{count}")
    shutil.rmtree(root / f"run-{count}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    source = "public toolbench items" if SHARED.is_file() else "hand-written items"
    print(f"WorfBench suites of {', '.join(f'{n:,}' for n in sizes)} cases ({source})")
    results: dict[int, dict[str, Measure]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        root = Path(folder)
        env = installed_env(root / "pycache", as_is=args.as_is)
        steps(root, 20, env)  # unmeasured: writes the bytecode cache, warms the page cache
        clean(root, 20)
        for count in sizes:
            results[count] = steps(root, count, env)
            for step, m in results[count].items():
                print(
                    f"  {count:>7,} cases  {step:<7} cpu {m.cpu:8.2f} s  wall {m.wall:8.2f} s  "
                    f"peak {m.peak / MIB:7.1f} MiB  {m.cpu / count * 1e3:6.2f} ms cpu/case",
                    flush=True,
                )
            clean(root, count)
    small = min(sizes)
    for count in sizes:
        if count == small:
            continue
        for step in STEPS:
            grown = results[count][step].peak - results[small][step].peak
            per_case = grown / (count - small)
            target = ""
            if step == "run":
                target = f" (target <= 2 KiB: {'met' if per_case <= 2048 else 'MISSED'})"
            print(
                f"  {step:<7} peak memory growth {small:,} -> {count:,} cases: "
                f"{per_case / 1024:6.2f} KiB per case{target}"
            )


if __name__ == "__main__":
    main()
