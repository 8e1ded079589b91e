"""Research-scale suites from the user's seat: import, run, report and gate at 1k, 10k, 100k cases.

Builds a WorfBench data file of N items (the public toolbench gold items of ``../shared/data``
repeated under new ids when they sit beside the checkout, else hand-written items of the same
shape), then times each step as the user runs it, one whole process each
(``benchmarks/_paired.measure``: CPU, wall, peak memory of that process):

    planeval import worfbench DATA --suite scale --root P
    planeval run P/evals/scale.yaml --out RUN
    planeval report RUN
    planeval gate RUN --min-pass-rate 0.5
    planeval baseline RUN --out B.json
    planeval gate RUN --baseline B.json --max-drop 0.05 --no-new-failures       (gate-base)
    planeval compare RUN RUN2                                                   (compare)
    planeval report RUNS                                                        (report-2)

where RUN2 is a copy of RUN under another run id (not timed) and RUNS a folder holding RUN and
RUN2, and prints each step's time per case and the growth of peak memory per case between sizes.
The verdict for ``run`` (at most 2 KiB per case) is paired: ``run`` of the smallest size and of
each larger one as separate processes, alternating, ``--pairs`` times; the growth per case of
each pair, their median and spread (min-max). The import writes the cases to
``evals/scale.cases.jsonl`` (docs/suites.md) at every size, so no size limit stands in the way.

``--distinct`` makes every case's gold workflow its own (each node text ends with the item's
number): the public items repeat every 114 cases, so a per-plan cache would otherwise look
like flat memory.

Run: ``python benchmarks/bench_scale.py [--sizes 1000,10000,100000] [--pairs 3]
[--skip report,gate,baseline,gate-base,compare,report-2] [--distinct] [--as-is]``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _installed_env import installed_env
from _paired import MIB, Measure, measure, verdict

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "worfbench" / "toolbench.json"
STEPS = ("import", "run", "report", "gate", "baseline", "gate-base", "compare", "report-2")
NEEDS = {"gate-base": "baseline"}
"""A step that cannot run without another."""


_NODE_LINE = re.compile(r"^(\d+[:.] .+?)[ \t]*$", re.MULTILINE)


def items(count: int, *, distinct: bool = False) -> list[dict[str, Any]]:
    """``count`` WorfBench items: the public toolbench ones cycled under new ids, else
    hand-written ones (provenance: handwritten). ``distinct``: each item's gold workflow made
    its own (every node text ends with the item's number), so no per-plan cache of ``run``
    can hide memory that grows with the cases."""
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
    made = [{**base[k % len(base)], "id": f"item-{k:06d}"} for k in range(count)]
    if distinct:
        for k, item in enumerate(made):
            item["conversations"] = [_distinct_turn(turn, k) for turn in item["conversations"]]
    return made


def _distinct_turn(turn: dict[str, Any], k: int) -> dict[str, Any]:
    """An assistant turn with the item number ``k`` after each node text; others as they are."""
    if turn.get("role", turn.get("from")) not in ("assistant", "gpt"):
        return turn
    key = "content" if "content" in turn else "value"
    return {**turn, key: _NODE_LINE.sub(lambda m: f"{m.group(1)} (item {k})", turn[key])}


def steps(
    root: Path, count: int, env: dict[str, str], skip: set[str], *, distinct: bool = False
) -> dict[str, Measure]:
    """Each step of one size, timed as its own process."""
    data = root / f"data-{count}.json"
    data.write_text(json.dumps(items(count, distinct=distinct)), encoding="utf-8")
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
        "run": run_command(project, run),
        "report": [*py, "report", str(run)],
        "gate": [*py, "gate", str(run), "--min-pass-rate", "0.5"],
        "baseline": [*py, "baseline", str(run), "--out", str(root / f"baseline-{count}.json")],
        "gate-base": [
            *py,
            "gate",
            str(run),
            "--baseline",
            str(root / f"baseline-{count}.json"),
            "--max-drop",
            "0.05",
            "--no-new-failures",
        ],
        "compare": [*py, "compare", str(run), str(root / f"runs-{count}" / "second")],
        "report-2": [*py, "report", str(root / f"runs-{count}")],
    }
    found = {}
    for step in STEPS:
        if step in skip:
            continue
        if step == "compare" or (step == "report-2" and "compare" in skip):
            second_run(run, root / f"runs-{count}")
        found[step] = measure(commands[step], env=env, ok_codes=(0, 1), cwd=root)
    return found


def second_run(run: Path, folder: Path) -> None:
    """``folder`` holding ``run`` and a copy of it under another run id (``second``), as two
    runs of the suite for ``compare`` and a report of a folder of runs (not timed)."""
    if (folder / "second").exists():
        return
    folder.mkdir()
    shutil.copytree(run, folder / "first")
    shutil.copytree(run, folder / "second")
    manifest = folder / "second" / "run.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["run_id"] = f"{data['run_id']}-second"
    manifest.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def run_command(project: Path, out: Path) -> list[str]:
    """``planeval run`` of the project's suite into ``out``."""
    suite = project / "evals" / "scale.yaml"
    return [sys.executable, "-m", "harness", "run", str(suite), "--out", str(out)]


def run_pairs(
    root: Path, small: int, count: int, env: dict[str, str], pairs: int
) -> list[tuple[Measure, Measure]]:
    """``run`` of the small and the large project as separate processes, alternating
    small/large then large/small, ``pairs`` times: (small, large) per pair."""
    found = []
    for k in range(pairs):
        order = (small, count) if k % 2 == 0 else (count, small)
        got = {}
        for size in order:
            out = root / f"pair-run-{size}"
            command = run_command(root / f"project-{size}", out)
            got[size] = measure(command, env=env, ok_codes=(0, 1), cwd=root)
            shutil.rmtree(out)
        found.append((got[small], got[count]))
    return found


def print_pairs(small: int, count: int, pairs: list[tuple[Measure, Measure]]) -> None:
    """Peak memory growth per case of ``run`` from each pair: median, spread and verdict."""
    grown = [(big.peak - little.peak) / (count - small) for little, big in pairs]
    cpu = [big.cpu / count * 1e3 for _little, big in pairs]
    low, high, mid = min(grown), max(grown), statistics.median(grown)
    print(
        f"  run     peak memory growth {small:,} -> {count:,} cases, {len(pairs)} pairs: "
        f"median {mid / 1024:.2f} KiB per case (spread {low / 1024:.2f}-{high / 1024:.2f}); "
        f"target <= 2 KiB: {verdict(low, high, 2048)}; "
        f"cpu {statistics.median(cpu):.2f} ms/case (spread {min(cpu):.2f}-{max(cpu):.2f}); "
        f"peak {statistics.median(b.peak for _l, b in pairs) / MIB:.1f} MiB",
        flush=True,
    )


def clean(root: Path, count: int) -> None:
    """Remove one size's data, project and run (100,000 recordings take a while)."""
    (root / f"data-{count}.json").unlink()
    shutil.rmtree(root / f"project-{count}")
    shutil.rmtree(root / f"run-{count}", ignore_errors=True)
    shutil.rmtree(root / f"runs-{count}", ignore_errors=True)
    (root / f"baseline-{count}.json").unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument(
        "--pairs",
        type=int,
        default=3,
        help="paired runs (smallest size vs each larger one) for the run memory verdict",
    )
    parser.add_argument(
        "--skip",
        default="",
        help="steps to leave out, comma-separated (report, gate, baseline, gate-base, compare, "
        "report-2; gate-base needs baseline)",
    )
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="every case a distinct plan (each node text carries the item's number), so "
        "caches cannot hide memory that grows with the cases",
    )
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    skip = {s for s in args.skip.split(",") if s}
    if skip - set(STEPS) or {"import", "run"} & skip:
        parser.error(f"--skip takes steps after import and run, got {args.skip!r}")
    skip |= {step for step, needed in NEEDS.items() if needed in skip}
    source = "public toolbench items" if SHARED.is_file() else "hand-written items"
    if args.distinct:
        source += ", every plan distinct"
    print(f"WorfBench suites of {', '.join(f'{n:,}' for n in sizes)} cases ({source})")
    results: dict[int, dict[str, Measure]] = {}
    small = sizes[0]
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        root = Path(folder)
        env = installed_env(root / "pycache", as_is=args.as_is)
        steps(root, 20, env, skip)  # unmeasured: writes the bytecode cache, warms the page cache
        clean(root, 20)
        for count in sizes:
            results[count] = steps(root, count, env, skip, distinct=args.distinct)
            for step, m in results[count].items():
                print(
                    f"  {count:>7,} cases  {step:<9} cpu {m.cpu:8.2f} s  wall {m.wall:8.2f} s  "
                    f"peak {m.peak / MIB:7.1f} MiB  {m.cpu / count * 1e3:6.2f} ms cpu/case",
                    flush=True,
                )
            if count != small:
                if args.pairs:
                    print_pairs(small, count, run_pairs(root, small, count, env, args.pairs))
                clean(root, count)
        clean(root, small)
    for count in sizes:
        if count == small:
            continue
        for step in results[count]:
            grown = results[count][step].peak - results[small][step].peak
            print(
                f"  {step:<9} peak memory growth {small:,} -> {count:,} cases (one run each): "
                f"{grown / (count - small) / 1024:6.2f} KiB per case"
            )


if __name__ == "__main__":
    main()
