"""Where a recorded planner answer came from, and the prompt digest that makes it stale."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["SOURCES", "Provenance", "Source", "prompt_hash"]

Source = Literal["live", "import:worfbench", "import:taskbench", "import:ruby-vcr", "handwritten"]
SOURCES: tuple[Source, ...] = (
    "live",
    "import:worfbench",
    "import:taskbench",
    "import:ruby-vcr",
    "handwritten",
)


def prompt_hash(template: str) -> str:
    """``sha256:<hex>`` of a prompt template's text, exactly as stored in its file.

    A recording whose provenance carries another digest than the suite's current template
    is ``stale``: the planner was asked something else.
    """
    return "sha256:" + hashlib.sha256(template.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Provenance:
    """What a recording is: who answered, under which prompt, when, and how it got here."""

    source: Source
    """``live`` (recorded from the planner), ``import:worfbench``, ``import:taskbench``,
    ``import:ruby-vcr`` or
    ``handwritten`` (written by a person: never presented as a model's output)."""
    model: str
    """The provider's model name (``gpt-4o-2024-08-06``) or the dataset's pseudo-model."""
    prompt_hash: str
    """``prompt_hash()`` of the template the request was rendered from."""
    recorded_at: str
    """ISO 8601 UTC date and time the answer was produced or imported."""
    harness_version: str
    """planeval's version when the recording was written."""
    params: dict[str, Any] = field(default_factory=dict)
    """Sampling parameters sent with the request (temperature, ...)."""
    origin: str | None = None
    """For imports: the dataset file and item (``worfbench/toolbench.json#toolbench_12``)."""

    def to_dict(self) -> dict[str, Any]:
        """The provenance as a JSON object."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Provenance:
        """Build provenance from its JSON object (unknown keys are ignored)."""
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})
