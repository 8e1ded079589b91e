"""Soak test: signals at evenly spaced moments, and concurrent executors under many names.

Two sweeps of real `planeval execute` processes, with an agent that logs every real call to a
file planeval does not manage:

- ``signals``: one run's life is measured (start-up to exit), then for each of ``--moments``
  evenly spaced moments from the interpreter's start-up (``python -c pass``) to 10% past the
  end, a fresh run gets SIGINT or SIGTERM at that moment (every third one a second signal
  20 ms later). Counted: exit codes, tracebacks, how the journal ends, and whether a resume
  then finishes without calling the agent for a task the journal had as succeeded.
- ``lock``: ``--trials`` times per spelling (same path, symlink, hard link, relative path, all
  three at once, a bind mount of the folder: those processes each in a mount namespace of its
  own, skipped where ``unshare -m`` is not allowed), three ``execute --resume`` processes
  started within milliseconds on one journal. Counted: exit codes, and double executions (a
  task whose agent was called twice).

Run:  python benchmarks/soak_signals.py [--sweep signals|lock|both] [--moments 50]
      [--trials 10] [--dir DIR]

Not a speed figure, so not on ``benchmarks/_paired.py``: the figures are counts of outcomes.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

AGENT = '''
"""Soak agent: logs each real call, sleeps SOAK_SLEEP seconds, returns the demo output."""
import os
import time

from harness.execute import demo_agent


def agent(context):
    with open(os.environ["SOAK_LOG"], "a") as calls:
        calls.write(context.task.id + "\\n")
    time.sleep(float(os.environ.get("SOAK_SLEEP", "0.1")))
    return demo_agent(context)
'''

SPELLINGS = ("same path", "symlink", "hard link", "relative path", "all at once", "bind mount")
BIND = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
"""Runs a command in a mount namespace of its own where folder $1 is also seen at $2."""


def bind_mounts_allowed(folder: Path) -> bool:
    """Whether a private mount namespace with a bind mount can be made here (root)."""
    seen = folder / "bind-probe"
    seen.mkdir()
    try:
        probe = ["unshare", "-m", "sh", "-c", BIND, "bind", str(folder), str(seen), "true"]
        return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except OSError:
        return False
    finally:
        seen.rmdir()


def _plan(tasks: int) -> dict[str, object]:
    return {
        "plan_id": "soak-signals",
        "goal": "Soak signals",
        "tasks": [
            {
                "id": f"t{i}",
                "description": f"Step {i}",
                **({"needs": {"p": f"t{i - 1}"}} if i else {}),
            }
            for i in range(tasks)
        ],
    }


def _command(folder: Path, journal: str, *extra: str) -> list[str]:
    plan, agent = folder / "plan.json", folder / "soak_agent.py"
    return [
        sys.executable,
        "-m",
        "harness",
        "execute",
        str(plan),
        "--journal",
        journal,
        "--agent",
        f"{agent}:agent",
        *extra,
    ]


def _calls(log: Path) -> Counter[str]:
    return Counter(log.read_text().split()) if log.exists() else Counter()


def _events(journal: Path) -> list[dict[str, object]]:
    if not journal.exists():
        return []
    return [json.loads(line) for line in journal.read_bytes().splitlines()]


def sweep_signals(folder: Path, moments: int) -> Counter[str]:
    counts: Counter[str] = Counter()
    env = {**os.environ, "SOAK_SLEEP": "0.3"}  # 8 tasks: the execution outlasts start-up
    env["SOAK_LOG"] = str(folder / "whole.log")
    began = time.monotonic()
    subprocess.run(
        _command(folder, str(folder / "whole.jsonl")), env=env, check=True, capture_output=True
    )
    life = time.monotonic() - began
    began = time.monotonic()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    start = time.monotonic() - began
    print(f"life of a run {life:.2f}s, interpreter start-up {start:.3f}s")
    for index in range(moments):
        moment = start + (life * 1.1 - start) * index / max(1, moments - 1)
        sig = (signal.SIGINT, signal.SIGTERM)[index % 2]
        journal, log = folder / f"s{index}.jsonl", folder / f"s{index}.log"
        env["SOAK_LOG"] = str(log)
        process = subprocess.Popen(
            _command(folder, str(journal)), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        time.sleep(moment)
        alive = process.poll() is None
        if alive:
            process.send_signal(sig)
            if index % 3 == 0:
                time.sleep(0.02)
                process.send_signal(signal.SIGINT)
                counts["second signals"] += 1
        _, stderr = process.communicate(timeout=120)
        counts["trials"] += 1
        counts[f"exit {process.returncode}" + ("" if alive else " (finished first)")] += 1
        if b"Traceback" in stderr:
            counts["tracebacks"] += 1
            print(f"traceback at {moment:.3f}s:", stderr.decode()[-600:], file=sys.stderr)
        events = _events(journal)
        if any(e["event"] == "task_started" for e in events):
            counts[f"journal ends {events[-1]['event']}"] += 1
        else:
            counts["nothing started, no journal" if not journal.exists() else "empty journal"] += 1
        done = {e["task_id"] for e in events if e["event"] == "task_succeeded"}
        before = _calls(log)
        resumed = subprocess.run(
            _command(folder, str(journal), "--resume"), env=env, capture_output=True, timeout=120
        )
        counts[f"resume exit {resumed.returncode}"] += 1
        again = _calls(log) - before
        counts["successes called again on resume"] += sum(again[t] for t in done)
    return counts


def sweep_lock(folder: Path, trials: int) -> Counter[str]:
    counts: Counter[str] = Counter()
    cwd = folder / "cwd"
    cwd.mkdir(exist_ok=True)
    bind = folder / "bind"
    bind.mkdir(exist_ok=True)
    for spelling in SPELLINGS:
        if spelling == "bind mount" and not bind_mounts_allowed(folder):
            print("lock: bind mount skipped: unshare -m / mount --bind not allowed here")
            continue
        for trial in range(trials):
            name = f"l-{spelling.replace(' ', '-')}-{trial}.jsonl"
            journal = folder / name
            relative = f"../{name}"
            link, twin = folder / f"link-{name}", cwd / f"twin-{name}"
            if spelling in ("symlink", "all at once"):
                link.symlink_to(journal)
            if spelling in ("hard link", "all at once"):
                journal.touch()
                os.link(journal, twin)
            names = {
                "same path": [str(journal)] * 3,
                "symlink": [str(journal), str(link), str(link)],
                "hard link": [str(journal), str(twin), str(twin)],
                "relative path": [str(journal), relative, relative],
                "all at once": [str(link), twin.name, relative],
                "bind mount": [str(journal), str(bind / name), str(bind / name)],
            }[spelling]
            log = folder / f"{name}.log"
            env = {**os.environ, "SOAK_SLEEP": "0.02", "SOAK_LOG": str(log)}
            procs = [
                subprocess.Popen(
                    (
                        ["unshare", "-m", "sh", "-c", BIND, "bind", str(folder), str(bind)]
                        if n.startswith(str(bind) + os.sep)
                        else []
                    )
                    + _command(folder, n, "--resume", "--max-concurrency", "1"),
                    cwd=cwd,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
                for n in names
            ]
            for process in procs:
                _, stderr = process.communicate(timeout=120)
                counts[f"exit {process.returncode}"] += 1
                counts["tracebacks"] += b"Traceback" in stderr
            counts["trials"] += 1
            calls = _calls(log)
            counts["double executions"] += sum(n - 1 for n in calls.values() if n > 1)
            counts["tasks not run"] += sum(1 for i in range(6) if calls[f"t{i}"] == 0)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", choices=["signals", "lock", "both"], default="both")
    parser.add_argument("--moments", type=int, default=50)
    parser.add_argument("--trials", type=int, default=10, help="lock trials per spelling")
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        folder = Path(tmp)
        (folder / "soak_agent.py").write_text(AGENT)
        if args.sweep in ("signals", "both"):
            (folder / "plan.json").write_text(json.dumps(_plan(8)))
            print("signals:", dict(sorted(sweep_signals(folder, args.moments).items())))
        if args.sweep in ("lock", "both"):
            (folder / "plan.json").write_text(json.dumps(_plan(6)))
            print("lock:", dict(sorted(sweep_lock(folder, args.trials).items())))


if __name__ == "__main__":
    main()
