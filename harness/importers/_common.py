"""What the importers share: the result record, name rules and YAML output."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from harness._errors import InputError

if TYPE_CHECKING:
    from harness.importers._staging import StagedFiles
    from harness.recording._provenance import Source

__all__ = [
    "MAX_DATA_BYTES",
    "NAME_PATTERN",
    "SHOWN_CASES",
    "GoldAnswers",
    "ImportResult",
    "check_name",
    "dump_yaml",
    "read_data_text",
    "slug",
    "stage_suite",
    "utc_now",
]

MAX_DATA_BYTES = 512 << 20
"""A benchmark data file larger than this is refused (the largest TaskBench and WorfBench
files are tens of MiB); whatever the file is, no more than this and one byte is read."""

NAME_PATTERN = re.compile(r"[A-Za-z0-9._-]+")
"""Suite, model and case ids become file names: nothing else is allowed."""


SHOWN_CASES = 10
"""How many case ids an ``ImportResult`` keeps (the first ones, in file order)."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import wrote: counts, and the first few case ids (an import of 100,000 cases
    keeps no list of them)."""

    suite: str
    """The suite name."""
    suite_path: Path
    """The suite file written (``evals/<suite>.yaml``)."""
    model: str
    """The model id the recordings belong to (the first, when a cassette has several)."""
    case_count: int
    """How many cases were imported."""
    first_cases: tuple[str, ...]
    """The first ``SHOWN_CASES`` case ids, in file order."""
    recording_count: int
    """How many response files were written."""
    files: tuple[Path, ...]
    """What was written: each folder of recordings replaced as a whole, then each file outside
    them (suite, cases file, prompt, registry, license note)."""
    skipped: int = 0
    """Items left out by ``--limit``."""

    @property
    def more_cases(self) -> int:
        """How many case ids ``first_cases`` leaves out."""
        return self.case_count - len(self.first_cases)


def read_data_text(path: Path, *, encoding: str = "utf-8-sig") -> str:
    """A benchmark data file's text, read with a bound (``MAX_DATA_BYTES``) whatever the file
    is (``/dev/zero``, a pipe).

    Raises:
        InputError: missing, unreadable, over the bound, or not UTF-8.
    """
    from harness._size import over_limit, read_at_most

    source = str(path)
    try:
        data = read_at_most(path, MAX_DATA_BYTES)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", source=source) from None
    if len(data) > MAX_DATA_BYTES:
        raise InputError(over_limit(None, MAX_DATA_BYTES), source=source)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", source=source) from None


def check_name(value: str, *, what: str, source: str | None = None) -> str:
    """Return ``value`` if it can be a file name, else raise an ``InputError``."""
    if not NAME_PATTERN.fullmatch(value) or value in (".", ".."):
        raise InputError(
            f"{what} {value!r} is not usable as a file name",
            source=source,
            hint="use only letters, digits, '.', '_' and '-'",
        )
    return value


def slug(text: str, *, limit: int = 60) -> str:
    """A file-name-safe, lower-case id made from free text (``Create a Ruby agent`` ->
    ``create-a-ruby-agent``)."""
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    cut = words[:limit].rstrip("-")
    return cut or "case"


def utc_now() -> str:
    """The current time as ISO 8601 UTC with a ``Z`` suffix, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class _Dumper(yaml.SafeDumper):
    """Block style, multi-line strings as ``|`` blocks: suites stay readable in review."""

    def ignore_aliases(self, data: Any) -> bool:
        """Never write ``&id001`` anchors: every case spells out its own tags."""
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None  # the emitter falls back to quotes when it must
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def stage_suite(
    staged: StagedFiles,
    name: str,
    doc: dict[str, Any],
    cases: Iterable[dict[str, Any]],
    header: str,
) -> None:
    """Stage ``evals/<name>.yaml`` naming ``evals/<name>.cases.jsonl`` (``cases_file``), and
    that cases file beside it: one case a line, written a case at a time as ``cases`` makes
    them.

    Imported suites always keep their cases in a JSON Lines file, whatever their size: it has
    no size limit as a whole (5,000 WorfBench items would be a 23.5 MiB YAML suite, over the
    8 MiB limit), and reading it is ``json.loads`` a line, where YAML's constructor is Python
    (about 0.40 s against 0.03 s of CPU for the 1,192 WorfBench cases).
    """
    encode = json.JSONEncoder(ensure_ascii=False).encode
    with staged.open(f"evals/{name}.cases.jsonl") as fh:
        for case in cases:
            fh.write(encode(case) + "\n")
    staged.add(
        f"evals/{name}.yaml", header + dump_yaml({**doc, "cases_file": f"{name}.cases.jsonl"})
    )


def dump_yaml(data: Any) -> str:
    """YAML text for a suite or registry: keys in the given order, Unicode kept, no wrapping."""
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=100_000,
        indent=2,
        default_flow_style=None,
    )


class GoldAnswers:
    """Stages one response file per ``(case id, answer)`` of an imported gold model, as the
    import makes them (``add``), under ``plan_fixtures/<suite>/<model>/``, replaced as a whole.

    An answer imported before under the same prompt keeps its import time, so re-importing
    unchanged data changes no file.
    """

    def __init__(
        self,
        staged: StagedFiles,
        root: Path,
        *,
        suite: str,
        model: str,
        source: Source,
        origin: str,
        digest: str,
    ) -> None:
        self._staged, self._root = staged, root
        self._model, self._source, self._origin, self._digest = model, source, origin, digest
        self._now = utc_now()
        self._fixtures = f"plan_fixtures/{suite}/{model}"
        self.count = 0
        """How many response files were staged."""
        staged.replace_tree(self._fixtures)

    def add(self, case_id: str, answer: str) -> None:
        """Stage the response file of ``case_id``."""
        from harness import __version__
        from harness.recording import Provenance, ResponseFile

        relpath = f"{self._fixtures}/{case_id}/sample-0.json"
        earlier = _earlier_import(self._root / relpath, answer, self._digest)
        response = ResponseFile(
            provenance=Provenance(
                source=self._source,
                model=self._model,
                prompt_hash=self._digest,
                recorded_at=earlier or self._now,
                harness_version=__version__,
                origin=f"{self._origin}#{case_id}",
            ),
            response=answer,
        )
        text = json.dumps(response.to_dict(), indent=2, ensure_ascii=False) + "\n"
        self._staged.add(relpath, text)
        self.count += 1


def _earlier_import(path: Path, answer: str, digest: str) -> str | None:
    """The import time of the same answer under the same prompt, if it was imported before."""
    from harness.recording import ResponseFile

    try:
        earlier = ResponseFile.read(path)
    except (InputError, OSError):
        return None
    same = earlier.response == answer and earlier.provenance.prompt_hash == digest
    return earlier.provenance.recorded_at if same else None
