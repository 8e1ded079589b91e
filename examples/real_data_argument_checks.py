"""The argument checks over real published plans, read in place from ../shared/data.

    python examples/real_data_argument_checks.py [--data ../shared/data] [--sample 50 --seed 27]

Sources (see ../shared/data/README.md):

* TaskBench gold plans of the three domains (``taskbench/gold_sample/<domain>.jsonl``) and the
  published MiniMax-Text-01 predictions (multimedia, ``taskbench/predictions_minimax/``),
  checked against the domain's own ``tool_desc.json``;
* HuggingGPT's published answers (``hugginggpt/hugginggpt_answer_<k>.txt``) and the HuggingGPT
  task lists of ``plans-in-the-wild/hugginggpt/``, checked against a registry derived here from
  TaskBench's huggingface ``tool_desc.json`` (its tools are HuggingGPT's task types: the name
  ``Image-to-Text`` is HuggingGPT's ``image-to-text``; each declared input type is a parameter
  of that name, ``image``, ``text``, ``audio`` or ``video``, as HuggingGPT's prompt asks);
* LLMCompiler plans of ``plans-in-the-wild/llmcompiler/`` (no tool definitions are published
  with them: references only).

Per source, model and domain it prints the share of plans with invalid arguments
(``arguments_valid`` fails), with a reference problem (``argument_refs_resolve`` fails, or a
``needs`` entry, which every adapter derives from the same citations, fails ``needs_resolve`` /
``needs_earlier_output`` / ``self_dependency``) and with a type mismatch (``dataflow_types``),
then a seeded random sample of the flagged plans with their violations, for a hand check.
Nothing is written.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness._errors import PlanLoadError
from harness.checks import CheckReport, check_plan
from harness.plan import load_plan
from harness.registry import Registry, load_registry

DOMAINS = ("huggingface", "multimedia", "dailylifeapis")
_REFERENCE_CHECKS = {"needs_resolve", "needs_earlier_output", "self_dependency"}


@dataclass
class Checked:
    source: str
    model: str
    domain: str
    label: str
    report: CheckReport | None  # None: the answer holds no readable plan

    def flags(self) -> set[str]:
        if self.report is None:
            return set()
        out = set()
        for v in self.report.violations:
            if v.check == "arguments_valid":
                out.add("invalid arguments")
            elif v.check == "argument_refs_resolve" or (
                v.check in _REFERENCE_CHECKS and "/needs/" in v.path
            ):
                out.add("reference problem")
            elif v.check == "dataflow_types":
                out.add("type mismatch")
        return out


def hugginggpt_registry(taskbench_huggingface: Path) -> Registry:
    """HuggingGPT's task types with their named inputs and output types (see the docstring)."""
    nodes = json.loads(taskbench_huggingface.read_text())["nodes"]
    tools = []
    for node in nodes:
        inputs = list(dict.fromkeys(node["input-type"]))
        tools.append(
            {
                "name": node["id"].lower().replace(" ", "-"),
                "description": node["desc"],
                "parameters": {
                    "type": "object",
                    "properties": {t: {"type": "string", "x-planeval-type": t} for t in inputs},
                    "required": inputs,
                    "additionalProperties": False,
                },
                "output_type": node["output-type"],
            }
        )
    return Registry.from_data(tools, source="derived from TaskBench huggingface tool_desc.json")


def _check(text: str, fmt: str, registry: Registry | None, source: str) -> CheckReport | None:
    try:
        plan = load_plan(text, format=fmt, source=source)
    except PlanLoadError:
        return None
    return check_plan(plan, registry=registry)


def checked(data: Path) -> Iterator[Checked]:
    taskbench = data / "taskbench"
    for domain in DOMAINS:
        registry = load_registry(taskbench / f"{domain}_tool_desc.json")
        for line in (taskbench / "gold_sample" / f"{domain}.jsonl").read_text().splitlines():
            label = str(json.loads(line)["id"])
            report = _check(line, "taskbench", registry, f"gold {domain} {label}")
            yield Checked("TaskBench", "gold", domain, label, report)
    registry = load_registry(taskbench / "multimedia_tool_desc.json")
    for path in sorted((taskbench / "predictions_minimax").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            label = str(json.loads(line)["id"])
            report = _check(line, "taskbench", registry, f"minimax {label}")
            yield Checked("TaskBench", "MiniMax-Text-01", "multimedia", label, report)
    hugging = hugginggpt_registry(taskbench / "huggingface_tool_desc.json")
    answers = sorted((data / "hugginggpt").glob("hugginggpt_answer_*.txt"))
    wild = sorted((data / "plans-in-the-wild" / "hugginggpt").glob("*"))
    for path in [*answers, *wild]:
        report = _check(path.read_text(), "hugginggpt", hugging, path.name)
        source = "HuggingGPT demos" if path in answers else "HuggingGPT in the wild"
        yield Checked(source, "various", "huggingface", path.name, report)
    for path in sorted((data / "plans-in-the-wild" / "llmcompiler").glob("*")):
        report = _check(path.read_text(), "llmcompiler", None, path.name)
        yield Checked("LLMCompiler in the wild", "various", "-", path.name, report)


def _share(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f}%)" if n else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data"
    )
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args(argv)
    if not (args.data / "taskbench").is_dir():
        print(f"{args.data}: no shared data here (see ../shared/data/README.md)", file=sys.stderr)
        return 2
    rows = list(checked(args.data))
    groups: dict[tuple[str, str, str], list[Checked]] = defaultdict(list)
    for row in rows:
        groups[(row.source, row.model, row.domain)].append(row)
    columns = ("invalid arguments", "reference problem", "type mismatch")
    print(f"| source | model | domain | plans | unreadable | {' | '.join(columns)} |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for (source, model, domain), items in groups.items():
        read = [r for r in items if r.report is not None]
        counts = {
            f: sum(1 for r in read if f in r.flags())
            for f in ("invalid arguments", "reference problem", "type mismatch")
        }
        print(
            f"| {source} | {model} | {domain} | {len(items)} | {len(items) - len(read)} | "
            + " | ".join(_share(counts[f], len(read)) for f in counts)
            + " |"
        )
    flagged = [r for r in rows if r.flags()]
    picked = random.Random(args.seed).sample(flagged, min(args.sample, len(flagged)))
    print(f"\n{len(flagged)} flagged plans; {len(picked)} drawn (seed {args.seed}):\n")
    for r in picked:
        assert r.report is not None
        print(f"## {r.source} / {r.model} / {r.domain} / {r.label}: {', '.join(sorted(r.flags()))}")
        for task in r.report.plan.tasks:
            arguments = json.dumps(task.to_dict().get("arguments", {}), ensure_ascii=False)
            tools = ", ".join(task.capabilities)
            print(f"   {task.id}: {tools} {arguments} deps={list(task.depends_on)}")
        for v in r.report.violations:
            if v.check in ("arguments_valid", "argument_refs_resolve", "dataflow_types") or (
                v.check in _REFERENCE_CHECKS and "/needs/" in v.path
            ):
                print(f"   - {v.check} {v.path}: {v.message}")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
