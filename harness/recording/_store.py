"""Where the recordings of one case x model x sample live, and their provenance sidecar.

``plan_fixtures/<suite>/<model>/<case>/``::

    sample-0.json        a response file (command planners, imported data), or
    sample-0.yaml        a vcrpy cassette (HTTP planners) with
    sample-0.meta.json   its provenance: a Provenance object, plus ``latency_ms``
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._atomic import atomic_write_text
from harness._errors import InputError
from harness._json import loads
from harness.recording._provenance import Provenance
from harness.recording._response_file import response_file_path

__all__ = ["CassetteMeta", "SamplePaths", "read_meta", "sample_paths", "write_meta"]


@dataclass(frozen=True, slots=True)
class SamplePaths:
    """The files that may hold one sample's recording."""

    response: Path
    """``sample-<k>.json``: a response file."""
    cassette: Path
    """``sample-<k>.yaml``: a vcrpy cassette."""
    meta: Path
    """``sample-<k>.meta.json``: the cassette's provenance."""

    def existing(self, prefer_cassette: bool) -> Path | None:
        """The recording to replay: the preferred form if present, else the other, else None."""
        order = (
            (self.cassette, self.response) if prefer_cassette else (self.response, self.cassette)
        )
        return next((p for p in order if p.is_file()), None)

    def remove_other_form(self, kept: Path) -> None:
        """After re-recording ``kept``, delete the other form (and a stale sidecar)."""
        if kept == self.cassette:
            self.response.unlink(missing_ok=True)
        else:
            self.cassette.unlink(missing_ok=True)
            self.meta.unlink(missing_ok=True)


def sample_paths(root: Path, suite: str, model: str, case: str, sample: int) -> SamplePaths:
    """The recording files of one case x model x sample under ``root`` (plan_fixtures/)."""
    response = response_file_path(root, suite, model, case, sample)
    return SamplePaths(
        response=response,
        cassette=response.with_name(f"sample-{sample}.yaml"),
        meta=response.with_name(f"sample-{sample}.meta.json"),
    )


@dataclass(frozen=True, slots=True)
class CassetteMeta:
    """The sidecar of a cassette."""

    provenance: Provenance
    """Where the recording came from and under which prompt."""
    latency_ms: float | None = None
    """How long the recorded call took, when known."""


def read_meta(path: Path) -> CassetteMeta | None:
    """Read a cassette's sidecar; None when there is none.

    Accepts a bare Provenance object (with an optional ``latency_ms`` beside its fields) or
    ``{"provenance": {...}, "latency_ms": ...}``.

    Raises:
        InputError: the sidecar exists but is not a provenance object.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            f"cannot read the recording's provenance: {exc}", source=str(path)
        ) from None
    data = loads(text, source=str(path), hint="re-record the sample or fix its .meta.json")
    try:
        fields: Any = data.get("provenance", data)
        latency = data.get("latency_ms")
        return CassetteMeta(
            provenance=Provenance.from_dict(fields),
            latency_ms=float(latency) if latency is not None else None,
        )
    except (ValueError, TypeError, AttributeError) as exc:
        raise InputError(
            f"not a provenance object: {exc}",
            source=str(path),
            hint="re-record the sample or fix its .meta.json",
        ) from None


def write_meta(path: Path, provenance: Provenance, *, latency_ms: float | None = None) -> None:
    """Write a cassette's sidecar atomically: the Provenance fields plus ``latency_ms``."""
    data = {**provenance.to_dict(), "latency_ms": latency_ms}
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
