"""Exceptions raised by planeval on purpose.

Every error a user can cause is an ``InputError``: it names the input (``source``), the place
inside it (``location``: a JSON pointer, ``line 12`` or ``None``) and what to do (``hint``).
The CLI turns it into one line and exit code 2; nothing else is printed.

    PlanevalError
    ├── InputError (ValueError)            unusable input: exit 2
    │   ├── PlanLoadError                  a plan file or text cannot be read as a plan
    │   │   └── NoPlanFoundError           text that contains no plan
    │   ├── RegistryError                  a capability registry is malformed
    │   ├── SuiteError                     an eval suite is malformed
    │   ├── RunFormatError                 a run folder / results.jsonl / baseline is unusable
    │   ├── JournalError                   a journal cannot be used as asked
    │   │   ├── JournalDamagedError        strict replay met a damaged line (harness.journal)
    │   │   └── EventNotSerializableError  an output that is not JSON (harness.journal)
    │   ├── ProviderSetupError             live mode without its SDK, key or command
    │   ├── AgentLoadError                 --agent names nothing callable (harness.execute)
    │   ├── IncomparableRunsError          runs of different suites (harness.compare)
    │   └── GateConfigError                thresholds outside [0, 1], ... (harness.gate)
    └── InfrastructureError (RuntimeError) network, provider or disk trouble: exit 4
        └── ProviderError                  a planner call that failed after its retries

Errors specific to one subsystem live in its package; the ones above them live here.
"""

from __future__ import annotations

__all__ = [
    "InfrastructureError",
    "InputError",
    "JournalError",
    "NoPlanFoundError",
    "PlanLoadError",
    "PlanevalError",
    "RegistryError",
    "RunFormatError",
    "SuiteError",
]


class PlanevalError(Exception):
    """Base of every error planeval raises on purpose."""


class InputError(PlanevalError, ValueError):
    """An input that planeval cannot use.

    Attributes:
        what: what is wrong, in one sentence without a trailing period.
        source: the file path or label of the input (``"<text>"`` for strings).
        location: where inside the input (JSON pointer, ``line N``), or None.
        hint: what the user can do about it, or None.
    """

    def __init__(
        self,
        what: str,
        *,
        source: str | None = None,
        location: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.what = what
        self.source = source
        self.location = location
        self.hint = hint
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """The error as one line: ``source: location: what. hint``."""
        parts = [p for p in (self.source, self.location) if p]
        head = ": ".join([*parts, self.what])
        line = f"{head}. {self.hint[0].upper()}{self.hint[1:]}" if self.hint else head
        return line.replace("\r", "\\r").replace("\n", "\\n")


class PlanLoadError(InputError):
    """A plan file or text cannot be read as a plan."""


class NoPlanFoundError(PlanLoadError):
    """Text that contains no plan (no JSON object with tasks, no Node:/Edge: workflow)."""


class RegistryError(InputError):
    """A capability registry that is malformed."""


class SuiteError(InputError):
    """An eval suite that is malformed or refers to files that are not there."""


class RunFormatError(InputError):
    """A run folder, results.jsonl or baseline that cannot be read."""


class JournalError(InputError):
    """A journal that cannot be used as asked (damaged in strict mode, wrong plan, ...)."""


class InfrastructureError(PlanevalError, RuntimeError):
    """Network, provider or disk trouble that is nobody's input mistake."""
