"""Response files: recorded answers of ``command`` planners and of imported datasets.

One file per case x model x sample:
``plan_fixtures/<suite>/<model>/<case>/sample-<k>.json``::

    {"format": "planeval-response/1",
     "provenance": {...Provenance...},
     "response": "the planner's answer, verbatim (text)",
     "latency_ms": 812.5 | null,
     "tokens": {"input": 1200, "output": 340} | null}

HTTP planners are recorded as vcrpy cassettes beside it (``sample-<k>.yaml``) instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._atomic import atomic_write_text
from harness._errors import InputError
from harness._json import json_problem
from harness.recording._provenance import Provenance

__all__ = ["RESPONSE_FORMAT", "ResponseFile", "atomic_write_text", "response_file_path"]

RESPONSE_FORMAT = "planeval-response/1"


def response_file_path(root: Path, suite: str, model: str, case: str, sample: int) -> Path:
    """Where the response file of one case x model x sample lives under ``root``."""
    return root / suite / model / case / f"sample-{sample}.json"


@dataclass(frozen=True, slots=True)
class ResponseFile:
    """A recorded planner answer with its provenance."""

    provenance: Provenance
    """Where the answer came from."""
    response: str
    """The planner's answer, verbatim."""
    latency_ms: float | None = None
    """How long the planner took, when known."""
    tokens: dict[str, int] | None = None
    """Token usage ``{"input", "output"}``, when known."""

    def to_dict(self) -> dict[str, Any]:
        """The file's JSON object."""
        return {
            "format": RESPONSE_FORMAT,
            "provenance": self.provenance.to_dict(),
            "response": self.response,
            "latency_ms": self.latency_ms,
            "tokens": self.tokens,
        }

    def write(self, path: Path) -> None:
        """Write atomically (temp file + rename): a crash never leaves half a recording."""
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
        atomic_write_text(path, text)

    @classmethod
    def read(cls, path: Path) -> ResponseFile:
        """Read a response file.

        Raises:
            InputError: the file is not a planeval response file.
        """
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(
                f"cannot read recording: {exc}",
                source=str(path),
                hint="re-record it, or delete it and run with --record-mode once",
            ) from None
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise InputError(
                json_problem(exc, "the recording")[0],
                source=str(path),
                hint="re-record it, or delete it and run with --record-mode once",
            ) from None
        if not isinstance(data, dict) or data.get("format") != RESPONSE_FORMAT:
            raise InputError(
                f"not a planeval response file (expected format {RESPONSE_FORMAT!r})",
                source=str(path),
            )
        try:
            _check_answer_fields(data)
            return cls(
                provenance=Provenance.from_dict(data["provenance"]),
                response=data["response"],
                latency_ms=data.get("latency_ms"),
                tokens=data.get("tokens"),
            )
        except (KeyError, TypeError) as exc:
            what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise InputError(f"not a usable response file: {what}", source=str(path)) from None


def _check_answer_fields(data: dict[str, Any]) -> None:
    """Raise TypeError unless the answer's fields have their documented types."""
    if not isinstance(data.get("response", ""), str):
        raise TypeError("'response' must be a string")
    latency = data.get("latency_ms")
    if latency is not None and (isinstance(latency, bool) or not isinstance(latency, int | float)):
        raise TypeError("'latency_ms' must be a number or null")
    tokens = data.get("tokens")
    if tokens is not None and not (
        isinstance(tokens, dict) and all(isinstance(v, int) for v in tokens.values())
    ):
        raise TypeError("'tokens' must be an object of integers or null")
