"""The ``command`` provider: any executable that reads the prompt on stdin and prints a plan.

A planner written in another language (``bundle exec agentic plan --json``) is evaluated as it
is. The command runs in the project root with ``PLANEVAL_SUITE``, ``PLANEVAL_CASE``,
``PLANEVAL_GOAL``, ``PLANEVAL_MODEL`` and ``PLANEVAL_SAMPLE`` in its environment.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

from harness.providers._base import Answer, ProviderError, ProviderSetupError
from harness.suite import Case, ModelSpec

__all__ = ["CommandProvider"]


class CommandProvider:
    """Runs a planner command; its answers are recorded as response files."""

    name = "command"

    def argv(self, model: ModelSpec) -> list[str]:
        """The command line split the way a POSIX shell would."""
        try:
            argv = shlex.split(model.command or "")
        except ValueError as exc:
            raise ProviderSetupError(
                f"model {model.id!r}: cannot split its command {model.command!r}: {exc}"
            ) from None
        if not argv:
            raise ProviderSetupError(f"model {model.id!r} has an empty command")
        return argv

    def preflight(self, model: ModelSpec, cwd: Path) -> None:
        """Check the executable exists.

        Raises:
            ProviderSetupError: the program is not on PATH (or not a file under ``cwd``).
        """
        program = self.argv(model)[0]
        if shutil.which(program) is None and shutil.which(str(cwd / program)) is None:
            raise ProviderSetupError(
                f"model {model.id!r}: the command {program!r} was not found",
                hint="install it or fix the model's command in the suite file",
            )

    def run(
        self, model: ModelSpec, prompt: str, *, cwd: Path, suite: str, case: Case, sample: int
    ) -> Answer:
        """Run the command once with ``prompt`` on stdin; stdout is the answer.

        Raises:
            ProviderError: the command timed out (retryable) or exited with a non-zero status.
        """
        argv = self.argv(model)
        env = {
            **os.environ,
            "PLANEVAL_SUITE": suite,
            "PLANEVAL_CASE": case.id,
            "PLANEVAL_GOAL": case.goal,
            "PLANEVAL_MODEL": model.id,
            "PLANEVAL_SAMPLE": str(sample),
        }
        started = time.perf_counter()
        try:
            done = subprocess.run(
                argv,
                input=prompt,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                cwd=cwd,
                env=env,
                timeout=model.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ProviderError(
                f"the command {argv[0]!r} did not finish within {model.timeout:g}s", retryable=True
            ) from None
        except OSError as exc:
            raise ProviderError(f"cannot run {argv[0]!r}: {exc}", retryable=False) from None
        latency = (time.perf_counter() - started) * 1000.0
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["(no stderr)"])[-1]
            raise ProviderError(
                f"the command {argv[0]!r} exited with status {done.returncode}: {tail}",
                retryable=False,
            )
        return Answer(text=done.stdout, latency_ms=round(latency, 3))
