"""``planeval score PRED --reference GOLD`` on a 500-line TaskBench predictions file against the
oracle that follows ``taskbench/evaluate.py`` (``tests/metrics/oracle.py``,
``official_file_figures``: the script's per-group loop with scikit-learn), both as whole
processes on the same files, measured with the shared paired method (``benchmarks/_paired.py``:
alternating pairs, median of the paired CPU and wall ratios with their spread, peak memory).

The oracle stands for the official script: the script itself also imports ``datasets``,
``scipy`` and ``Levenshtein`` and writes a log, so it is slower than the oracle; the ratio here
is the stricter one. Both print the 14 groups as JSON to a file; the benchmark checks that
they are equal (1e-12) before timing.

Files: by default ``--lines`` (500) predictions built from the public TaskBench gold sample
under ``../shared/data/taskbench`` (each gold record of a domain repeated under fresh ids,
every other copy perturbed: a task dropped, renamed, repeated, moved, a link reversed), with
the domain's ``tool_desc.json``. ``--predictions P --gold G --tools T`` times given files
instead (for example GNN4TaskPlan's published ``direct.json`` files).

Target: the median of the paired CPU ratios (planeval / oracle) within 1.5x.

    python benchmarks/bench_score_file.py [--pairs 7] [--lines 500] [--domain multimedia]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _installed_env import installed_env
from _paired import add_pairs_option, measure, paired

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "taskbench"
TARGET = 1.5
MODES = {"huggingface": "resource", "multimedia": "resource", "dailylifeapis": "temporal"}
ORACLE = """
import json, sys
sys.path.insert(0, {root!r})
from tests.metrics.oracle import official_file_figures
pred, gold, tools, mode, out = sys.argv[1:6]
read = lambda p: [json.loads(x) for x in open(p, encoding="utf-8") if x.strip()]
groups = official_file_figures(read(pred), read(gold), json.load(open(tools)), mode)
open(out, "w").write(json.dumps(groups))
"""


def build(folder: Path, domain: str, lines: int) -> tuple[Path, Path, Path]:
    """A gold file and a predictions file of ``lines`` records from the public gold sample."""
    sys.path.insert(0, str(ROOT))
    from tests.metrics.perturb import taskbench_variants

    source = DATA / "gold_sample" / f"{domain}.jsonl"
    tools = DATA / f"{domain}_tool_desc.json"
    names = [t["id"] for t in json.loads(tools.read_text("utf-8"))["nodes"]]
    records = [json.loads(x) for x in source.read_text("utf-8").splitlines() if x.strip()]
    rng = random.Random(25)
    gold, preds = [], []
    for k in range(lines):
        record = dict(records[k % len(records)], id=f"{k:08d}")
        plan = {key: record[key] for key in ("task_nodes", "task_links")}
        if k % 2:
            variants = taskbench_variants(plan, names, rng)
            plan = variants[k % len(variants)]
        gold.append(record)
        preds.append({"id": record["id"], "result": plan})
    gold_path, pred_path = folder / "data.json", folder / "predictions.jsonl"
    gold_path.write_text("".join(json.dumps(r) + "\n" for r in gold), encoding="utf-8")
    pred_path.write_text("".join(json.dumps(r) + "\n" for r in preds), encoding="utf-8")
    return pred_path, gold_path, tools


def planeval_command() -> list[str]:
    """The ``planeval`` console script beside this interpreter, else ``python -m harness``."""
    script = Path(sys.executable).with_name("planeval")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "harness"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_pairs_option(parser)
    parser.add_argument("--lines", type=int, default=500)
    parser.add_argument("--domain", choices=sorted(MODES), default="multimedia")
    parser.add_argument("--predictions", type=Path)
    parser.add_argument("--gold", type=Path)
    parser.add_argument("--tools", type=Path)
    parser.add_argument("--as-is", action="store_true", help="keep PYTHONDONTWRITEBYTECODE")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.predictions:
            pred, gold, tools = args.predictions, args.gold, args.tools
            if gold is None or tools is None:
                parser.error("--predictions needs --gold and --tools")
        else:
            pred, gold, tools = build(folder, args.domain, args.lines)
        mode = MODES.get(args.domain, "resource")
        env = installed_env(folder / "pycache", as_is=args.as_is)
        ours_out, oracle_out = folder / "ours.json", folder / "oracle.json"
        script = folder / "oracle.py"
        script.write_text(ORACLE.format(root=str(ROOT)), encoding="utf-8")
        ours = [
            *planeval_command(),
            "score",
            str(pred),
            "--reference",
            str(gold),
            "--tools",
            str(tools),
            "--dependency",
            mode,
            "--format",
            "json",
        ]
        oracle = [
            sys.executable,
            str(script),
            str(pred),
            str(gold),
            str(tools),
            mode,
            str(oracle_out),
        ]
        # warm the bytecode caches, and check that both give the same figures before timing
        measure(ours, env=env, stdout=ours_out)
        measure(oracle, env=env)
        _check(json.loads(ours_out.read_text()), json.loads(oracle_out.read_text()))
        result = paired(
            "planeval score vs the official-script oracle",
            ours,
            oracle,
            target=TARGET,
            pairs=args.pairs,
            env=env,
            stdout=folder / "ours-timed.json",
            warm=False,
        )
        library = _in_process(pred, gold, tools, mode)
    lines = (
        sum(1 for x in Path(pred).read_text("utf-8").splitlines() if x.strip())
        if args.predictions
        else args.lines
    )
    print(f"{lines} prediction lines")
    result.print()
    ours_s, oracle_s = library
    print(
        f"for information, in one process after the imports (scikit-learn's import, several "
        f"seconds on a cold machine, left out): planeval {ours_s:.3f} s, oracle {oracle_s:.3f} s"
        f" ({ours_s / oracle_s:.2f}x)"
    )


def _in_process(pred: Path, gold: Path, tools: Path, mode: str) -> tuple[float, float]:
    """Scoring alone, imports done: the library path of each (best of 3)."""
    sys.path.insert(0, str(ROOT))
    import sklearn.metrics  # noqa: F401  (imported before timing)

    from harness.metrics import ToolCatalogue, read_record_lines, score_taskbench_file
    from harness.registry import load_registry
    from tests.metrics.oracle import official_file_figures

    pred_text, gold_text = Path(pred).read_text("utf-8"), Path(gold).read_text("utf-8")
    desc = json.loads(Path(tools).read_text("utf-8"))

    def ours() -> None:
        catalogue = ToolCatalogue.from_registry(load_registry(tools))
        score_taskbench_file(
            read_record_lines(pred_text, "p"),
            read_record_lines(gold_text, "g"),
            catalogue=catalogue,
            dependency=mode,  # type: ignore[arg-type]
        )

    def oracle() -> None:
        preds = [json.loads(x) for x in pred_text.splitlines() if x.strip()]
        golds = [json.loads(x) for x in gold_text.splitlines() if x.strip()]
        official_file_figures(preds, golds, desc, mode)

    def best(run: Callable[[], None]) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times)

    return best(ours), best(oracle)


def _check(ours: dict, oracle: dict) -> None:
    if list(ours) != list(oracle):
        raise SystemExit("planeval and the oracle disagree on the groups")
    for group, figures in oracle.items():
        for key, value in figures.items():
            got = ours[group][key]
            if isinstance(value, dict):
                for tool, row in value.items():
                    for name, number in row.items():
                        if abs(got[tool][name] - number) > 1e-12:
                            raise SystemExit(f"{group} {key} {tool} {name}: {got} != {value}")
            elif abs(got - value) > 1e-12:
                raise SystemExit(f"{group} {key}: {got} != {value}")


if __name__ == "__main__":
    main()
