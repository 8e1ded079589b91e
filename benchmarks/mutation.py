"""Mutation score of one module against the tests of its package (mutmut).

    python benchmarks/mutation.py harness/checks/_structural.py
    python benchmarks/mutation.py harness/stats.py --tests tests/test_stats.py
    python benchmarks/mutation.py harness/gate/_gate.py --max-children 2 --survivors

The run happens in a temporary copy of the repository (the files git knows, committed or not),
so the working tree never gets mutmut's ``mutants/`` folder. The copy's ``[tool.mutmut]`` is the
project's, narrowed to MODULE and its tests. Survivors that cannot change behaviour are listed,
each with its reason, in ``tests/mutation_equivalents.toml``; they are matched by module,
function and the mutated line (not by mutmut's numbering, which moves with every edit) and left
out of the score. Prints killed / survived / equivalent / score; exits 1 under ``--min-score``.
Not part of CI: one module takes minutes (``docs/testing.md``). Not a speed figure, so not on
``benchmarks/_paired.py``: the figure is a mutation score.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "tests" / "mutation_equivalents.toml"


@dataclass(frozen=True)
class Survivor:
    """A mutant no test killed: its mutmut name, function and the line it changed."""

    name: str
    function: str
    before: str
    after: str


def default_tests(module: str) -> list[str]:
    """The tests of the module's package: harness/<pkg>/x.py -> tests/<pkg>, harness/x.py ->
    tests/test_x.py."""
    parts = Path(module).parts
    if len(parts) > 2 and parts[0] == "harness":
        return [str(Path("tests", parts[1]))]
    return [str(Path("tests", f"test_{Path(module).stem}.py"))]


def copy_repository(target: Path) -> None:
    """Copy every file git knows (tracked, or untracked and not ignored) into ``target``."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def narrow_config(
    pyproject: Path, module: str, tests: list[str], deselect: list[str] | None = None
) -> None:
    """Point the copy's ``[tool.mutmut]`` at one module and its tests (minus ``deselect``)."""
    text = pyproject.read_text()
    section = re.search(r"^\[tool\.mutmut\]\n(?:(?!^\[).*\n?)*", text, flags=re.M)
    if section is None:
        sys.exit("pyproject.toml has no [tool.mutmut] section; see docs/testing.md")
    config = tomllib.loads(section.group(0))["tool"]["mutmut"]
    config["only_mutate"] = [module]
    config["pytest_add_cli_args_test_selection"] = tests
    for node in deselect or ():
        config["pytest_add_cli_args"] = [*config.get("pytest_add_cli_args", []), "--deselect", node]
    body = "".join(f"{key} = {json.dumps(value)}\n" for key, value in config.items())
    pyproject.write_text(text[: section.start()] + "[tool.mutmut]\n" + body + text[section.end() :])


def mutated_line(diff: str) -> tuple[str, str]:
    """The first removed and added lines of ``mutmut show``'s diff, stripped."""
    before = next(
        (
            ln[1:].strip()
            for ln in diff.splitlines()
            if ln.startswith("-") and not ln.startswith("---")
        ),
        "",
    )
    after = next(
        (
            ln[1:].strip()
            for ln in diff.splitlines()
            if ln.startswith("+") and not ln.startswith("+++")
        ),
        "",
    )
    return before, after


def survivors(workdir: Path, env: dict[str, str]) -> list[Survivor]:
    """Every surviving mutant with the line it changed."""
    listing = subprocess.run(
        ["mutmut", "results"], cwd=workdir, env=env, capture_output=True, text=True, check=True
    ).stdout
    found = []
    for line in listing.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if status != "survived":
            continue
        diff = subprocess.run(
            ["mutmut", "show", name],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        function = re.sub(r"__mutmut_\d+$", "", name.rsplit(".", 1)[-1]).replace("xǁ", "")
        found.append(Survivor(name, function.replace("ǁ", "."), *mutated_line(diff)))
    return found


def load_equivalents(module: str) -> list[dict[str, Any]]:
    """The accepted survivors of ``module`` from tests/mutation_equivalents.toml."""
    if not EQUIVALENTS.exists():
        return []
    entries = tomllib.loads(EQUIVALENTS.read_text()).get("equivalent", [])
    return [e for e in entries if e.get("module") == module]


def is_equivalent(survivor: Survivor, accepted: list[dict[str, Any]]) -> bool:
    """True when an entry names this survivor's function, line and change (``function`` and
    ``after`` may be lists: one reason that covers several mutants)."""

    def listed(value: str | list[str]) -> list[str]:
        return [v.strip() for v in ([value] if isinstance(value, str) else value)]

    return any(
        survivor.function in listed(e["function"])
        and e["before"].strip() == survivor.before
        and survivor.after in listed(e["after"])
        for e in accepted
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="a file under harness/, e.g. harness/stats.py")
    parser.add_argument("--tests", nargs="+", help="test paths (default: the package's tests)")
    parser.add_argument(
        "--deselect",
        action="append",
        metavar="NODEID",
        help="leave out one slow test (repeatable); the score is then a lower bound",
    )
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--survivors", action="store_true", help="list every survivor's change")
    parser.add_argument("--min-score", type=float, help="exit 1 below this score (0-100)")
    args = parser.parse_args()
    module = Path(args.module).as_posix()
    if not (ROOT / module).is_file():
        print(f"mutation: {module}: no such file under {ROOT}", file=sys.stderr)
        return 2
    if shutil.which("mutmut") is None:
        print("mutation: mutmut is not installed; pip install -e '.[dev]'", file=sys.stderr)
        return 2
    tests = args.tests or default_tests(module)
    # One OpenMP thread: mutmut forks a child per mutant, and a child of a process whose torch
    # thread pool has started hangs in it until mutmut's CPU limit (a "timeout", counted as
    # killed) when the embeddings matcher's tests run.
    env = {"OMP_NUM_THREADS": "1", **os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory(prefix="planeval-mutation-") as tmp:
        workdir = Path(tmp)
        copy_repository(workdir)
        narrow_config(workdir / "pyproject.toml", module, tests, args.deselect)
        run = subprocess.run(
            ["mutmut", "run", "--max-children", str(args.max_children)],
            cwd=workdir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if run.returncode != 0:
            print(f"mutation: mutmut run failed:\n{run.stderr[-2000:]}", file=sys.stderr)
            return 2
        subprocess.run(
            ["mutmut", "export-cicd-stats"], cwd=workdir, env=env, check=True, capture_output=True
        )
        stats = json.loads((workdir / "mutants" / "mutmut-cicd-stats.json").read_text())
        left = survivors(workdir, env)
    accepted = load_equivalents(module)
    equivalent = [s for s in left if is_equivalent(s, accepted)]
    live = [s for s in left if not is_equivalent(s, accepted)]
    killed = stats["killed"] + stats["timeout"] + stats["segfault"]
    scored = stats["total"] - len(equivalent) - stats["skipped"]
    score = 100.0 * killed / scored if scored else 100.0
    print(f"module      {module}")
    print(f"tests       {' '.join(tests)}")
    for node in args.deselect or ():
        print(f"deselected  {node}")
    print(f"mutants     {stats['total']}")
    print(f"killed      {killed}  (timeouts {stats['timeout']})")
    print(f"survived    {len(live)}")
    print(f"equivalent  {len(equivalent)}  (tests/mutation_equivalents.toml)")
    print(f"no tests    {stats['no_tests']}  suspicious {stats['suspicious']}")
    print(f"score       {score:.1f}%  = killed / (mutants - equivalent)")
    if args.survivors:
        for s in live:
            print(f"  {s.function}: {s.before!r} -> {s.after!r}  [{s.name}]")
    return 1 if args.min_score is not None and score < args.min_score else 0


if __name__ == "__main__":
    sys.exit(main())
