"""planeval against promptfoo and Inspect AI on the 1,192 public WorfBench recorded plans.

Imports the five WorfBench domains of ``../shared/data/worfbench`` into a scratch project
(``run_peers.imported_project``), writes each framework's inputs from the recorded answers
into the same scratch folder (nothing is written into the checkout), then measures in
alternating pairs, whole processes (``benchmarks/_paired.py``), ``planeval run evals/`` (every
check, metrics, results.jsonl, run.json) against:

1. **promptfoo** (npm): ``promptfoo eval`` with the ``echo`` provider (the prompt is the
   recorded answer, so no model is called) and one JavaScript assertion
   (``frameworks/check.js``: acyclic, no dangling edge).
2. **Inspect AI** (PyPI, in its own virtual environment): ``inspect eval
   frameworks/inspect_task.py --model mockllm/model`` with a solver that makes the recorded
   answer the output (no model call) and a scorer checking the same two properties with
   networkx.

The tools are installed on first use into ``--tools DIR`` (default: ``peers-tools`` in the
system's temporary folder, kept between runs): ``npm install promptfoo`` and ``pip install
inspect-ai networkx``. A peer whose tool cannot be installed or run (no npm, no network) is
skipped with the reason printed; the others still run. Each peer's first run is checked to
have judged every plan before anything is timed.

The ratio is planeval / peer: below 1 means planeval used less. Run:
``python benchmarks/peers/run_frameworks.py [--pairs P] [--only promptfoo|inspect]``.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _installed_env import installed_env  # noqa: E402
from _paired import add_pairs_option, paired  # noqa: E402
from run_peers import imported_project, missing_data  # noqa: E402

FRAMEWORKS = HERE / "frameworks"
PEERS = ("promptfoo", "inspect")


def recorded_answers(project: Path) -> list[str]:
    """Every recorded answer of the imported project, in a stable order."""
    files = sorted((project / "plan_fixtures").rglob("sample-0.json"))
    return [json.loads(f.read_text(encoding="utf-8"))["response"] for f in files]


# -- promptfoo ------------------------------------------------------------------------------
def promptfoo_tool(tools: Path) -> tuple[Path | None, str]:
    """The promptfoo executable (installed into ``tools/npm`` when absent), or why not."""
    folder = tools / "npm"
    binary = folder / "node_modules" / ".bin" / "promptfoo"
    if binary.exists():
        return binary, ""
    if shutil.which("npm") is None:
        return None, "npm is not installed"
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "promptfoo"],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not binary.exists():
        return None, f"npm install promptfoo failed: {done.stderr.strip()[-300:]}"
    return binary, ""


def promptfoo_inputs(folder: Path, answers: list[str]) -> Path:
    """``promptfooconfig.yaml`` (JSON, which YAML reads) and its tests file; the config path."""
    folder.mkdir(parents=True, exist_ok=True)
    tests = [{"vars": {"answer": text}} for text in answers]
    (folder / "tests.json").write_text(json.dumps(tests), encoding="utf-8")
    config = {
        "description": "WorfBench recorded answers: acyclic, no dangling edge",
        "prompts": ["{{answer}}"],
        "providers": ["echo"],
        "defaultTest": {
            "assert": [{"type": "javascript", "value": f"file://{FRAMEWORKS / 'check.js'}"}]
        },
        "tests": "file://tests.json",
    }
    path = folder / "promptfooconfig.yaml"
    path.write_text(json.dumps(config, indent=1), encoding="utf-8")
    return path


def promptfoo_env(base: dict[str, str], folder: Path) -> dict[str, str]:
    return {
        **base,
        "PROMPTFOO_CONFIG_DIR": str(folder / "home"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "PROMPTFOO_CACHE_ENABLED": "false",
        "NO_COLOR": "1",
    }


# -- Inspect AI -----------------------------------------------------------------------------
def inspect_tool(tools: Path) -> tuple[Path | None, str]:
    """The ``inspect`` executable of a virtual environment in ``tools/inspect-venv``."""
    venv = tools / "inspect-venv"
    binary = venv / "bin" / "inspect"
    if binary.exists():
        return binary, ""
    done = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"cannot make a virtual environment: {done.stderr.strip()[-300:]}"
    done = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "inspect-ai", "networkx"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not binary.exists():
        return None, f"pip install inspect-ai failed: {done.stderr.strip()[-300:]}"
    return binary, ""


def inspect_inputs(folder: Path, answers: list[str]) -> Path:
    """The task file and its ``samples.jsonl`` in ``folder``; the task file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    task = folder / "inspect_task.py"
    shutil.copyfile(FRAMEWORKS / "inspect_task.py", task)
    with (folder / "samples.jsonl").open("w", encoding="utf-8") as out:
        for number, text in enumerate(answers):
            out.write(json.dumps({"id": number, "input": text, "target": "ok"}) + "\n")
    return task


# -- measuring ------------------------------------------------------------------------------
INSPECT_COUNT = """\
import pathlib, sys
from inspect_ai.log import read_eval_log
log = read_eval_log(str(max(pathlib.Path(sys.argv[1]).glob("*.eval"))), header_only=True)
passed = round(log.results.scores[0].metrics["accuracy"].value * log.results.total_samples)
print(log.results.completed_samples, passed)
"""
"""Prints the judged and passed samples of the newest Inspect log in a folder."""


def judged(peer: str, done: subprocess.CompletedProcess[str], work: Path) -> tuple[int, int]:
    """(plans judged, plans passed) by one run of the peer, read from its own output."""
    if peer == "promptfoo":
        counts = {
            word: int(m.group(1).replace(",", ""))
            for word in ("passed", "failed")
            if (m := re.search(rf"(\d[\d,]*) {word}", done.stdout))
        }
        return counts.get("passed", 0) + counts.get("failed", 0), counts.get("passed", 0)
    python = Path(done.args[0]).with_name("python")
    shown = subprocess.run(
        [str(python), "-c", INSPECT_COUNT, str(work / "logs")], capture_output=True, text=True
    )
    total, passed = (int(x) for x in shown.stdout.split()) if shown.returncode == 0 else (0, 0)
    return total, passed


def first_run(
    peer: str, command: list[str], env: dict[str, str], cwd: Path, work: Path, plans: int
) -> str:
    """Run the peer once (untimed) in ``cwd``, as the timed runs are; '' when it judged every
    plan, else why it cannot be used."""
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    if done.returncode not in (0, 100):  # promptfoo exits 100 when an assertion failed
        tail = (done.stderr or done.stdout).strip()[-400:]
        return f"exited {done.returncode}: {tail}"
    total, passed = judged(peer, done, work)
    if total != plans:
        return f"judged {total} plans, not {plans}: {done.stdout.strip()[-300:]}"
    print(f"{peer}: {passed:,} of {total:,} plans pass its check", flush=True)
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_pairs_option(parser)
    parser.add_argument("--only", choices=PEERS, action="append", help="one peer (repeatable)")
    parser.add_argument(
        "--tools",
        type=Path,
        default=Path(tempfile.gettempdir()) / "peers-tools",
        help="where promptfoo and Inspect AI are installed (kept between runs)",
    )
    parser.add_argument("--as-is", action="store_true", help="see benchmarks/_installed_env.py")
    args = parser.parse_args()
    why = missing_data()
    if why:
        print(f"skipped: {why}")
        return
    chosen = args.only or list(PEERS)
    with tempfile.TemporaryDirectory(prefix="peers-") as folder:
        root = Path(folder)
        env = installed_env(root / "pycache", as_is=args.as_is)
        project = imported_project(root, env)
        answers = recorded_answers(project)
        out = root / "run"
        planeval = [sys.executable, "-m", "harness", "run", "evals", "--out", str(out)]
        for peer in chosen:
            if peer == "promptfoo":
                tool, why = promptfoo_tool(args.tools)
                if tool is None:
                    print(f"promptfoo: skipped: {why}", flush=True)
                    continue
                work = root / "promptfoo"
                config = promptfoo_inputs(work, answers)
                peer_env = promptfoo_env(dict(os.environ), work)
                command = [str(tool), "eval", "-c", str(config), "--no-cache", "--no-table"]
                command += ["--no-write", "--no-progress-bar"]
            else:
                tool, why = inspect_tool(args.tools)
                if tool is None:
                    print(f"Inspect AI: skipped: {why}", flush=True)
                    continue
                work = project / "inspect-peer"  # inside the folder both sides run in
                task = inspect_inputs(work, answers)
                peer_env = {**os.environ, "INSPECT_DISPLAY": "none", "NO_COLOR": "1"}
                # relative: Inspect globs the task path from the working folder, and refuses an
                # absolute one
                command = [str(tool), "eval", str(task.relative_to(project))]
                command += ["--model", "mockllm/model"]
                command += ["--log-dir", str(work / "logs"), "--display", "none"]
            problem = first_run(peer, command, peer_env, project, work, len(answers))
            if problem:
                print(f"{peer}: skipped: {problem}", flush=True)
                continue
            result = paired(
                f"planeval run evals/ vs {peer} on the same plans",
                planeval,
                command,
                target=None,
                pairs=args.pairs,
                env=env,
                floor_env=peer_env,
                cwd=project,
                ok_codes=(0, 1, 100),
                before=lambda: shutil.rmtree(out, ignore_errors=True),
            )
            result.print()
            print(f"  (ratio = planeval / {peer}; below 1: planeval used less)", flush=True)


if __name__ == "__main__":
    main()
