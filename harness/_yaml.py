"""The one place planeval reads YAML: LibYAML when present, with size and nesting limits.

Every YAML file planeval reads (suites, registries, cassettes, imported Ruby VCR cassettes)
goes through ``load_yaml`` or ``load_yaml_file``:

* the C loader (``yaml.CSafeLoader``, about 9x faster than the pure-Python one), with the
  pure-Python ``yaml.SafeLoader`` only where PyYAML was built without LibYAML;
* a size limit (``MAX_YAML_BYTES``, the ``--max-bytes`` of the commands that read YAML), checked
  before anything is parsed, so a 20 MB file is refused at once instead of parsed for minutes;
* a nesting limit (``MAX_YAML_DEPTH``) and a limit on how far aliases may expand, so neither a
  document nested 100,000 deep nor a "billion laughs" of aliases crashes or hangs a reader;
* one error per problem: an ``InputError`` (or the subclass a caller asks for) naming the file,
  the line when there is one, and what to do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from harness._errors import InputError
from harness._size import RAISE_HINT, over_limit, read_at_most

__all__ = [
    "HAS_LIBYAML",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "SafeLoader",
    "load_yaml",
    "load_yaml_file",
    "max_bytes_in_force",
    "max_bytes_limit",
    "read_limited",
    "too_large",
]

HAS_LIBYAML: bool = hasattr(yaml, "CSafeLoader")
"""True when PyYAML was built with LibYAML (the fast C loader)."""

SafeLoader: type = yaml.CSafeLoader if HAS_LIBYAML else yaml.SafeLoader
"""The loader every read uses; subclass it to add a tag (``class L(SafeLoader): ...``)."""


def _libyaml_limits_nesting() -> bool:
    """True when LibYAML refuses deep nesting itself ("maximum nesting depth", from 0.2.6).
    An older LibYAML composes a document nested 100,000 deep by C recursion until the
    process dies of a segmentation fault (seen with PyYAML 6.0.3 built on LibYAML 0.2.5)."""
    try:
        from yaml import _yaml

        return bool(_yaml.get_version() >= (0, 2, 6))
    except (ImportError, AttributeError):
        return False


LIBYAML_LIMITS_NESTING: bool = HAS_LIBYAML and _libyaml_limits_nesting()
"""False where the C loader needs planeval's own depth scan before it composes a document."""

MAX_YAML_BYTES = 8 * 1024 * 1024
"""Largest YAML file read by default (8 MiB; suites and cassettes are far smaller)."""

_default_max_bytes = MAX_YAML_BYTES

MAX_YAML_DEPTH = 100
"""Deepest nesting of mappings and sequences accepted (configuration needs a handful)."""

_MIN_NODE_BUDGET = 100_000
"""Values a document may hold after aliases are expanded, at least (else 4 per input byte)."""


@contextmanager
def max_bytes_in_force(max_bytes: int | None) -> Iterator[None]:
    """Within the block, reads that name no limit use ``max_bytes`` (a command's --max-bytes).

    The limit holds process-wide (worker threads included); ``None`` keeps the one in force.
    """
    global _default_max_bytes
    before = _default_max_bytes
    _default_max_bytes = before if max_bytes is None else max_bytes
    try:
        yield
    finally:
        _default_max_bytes = before


def max_bytes_limit(max_bytes: int | None = None) -> int:
    """``max_bytes``, or the limit in force when it is None."""
    return _default_max_bytes if max_bytes is None else max_bytes


def read_limited(
    path: Path,
    *,
    max_bytes: int | None = None,
    error: type[InputError] = InputError,
    what: str = "file",
    missing_hint: str | None = None,
) -> bytes:
    """The bytes of ``path``, refusing more than ``max_bytes`` (pipes and devices included).

    Args:
        path: the file.
        max_bytes: the most bytes read; a longer file is refused (default: the limit in
            force, ``MAX_YAML_BYTES`` unless ``max_bytes_in_force`` says otherwise).
        error: the ``InputError`` subclass to raise.
        what: what the file is, for messages (``no such suite file``).
        missing_hint: what to do when the file does not exist.

    Raises:
        InputError: (or ``error``) the file is missing, a folder, unreadable or too large.
    """
    source = str(path)
    max_bytes = max_bytes_limit(max_bytes)
    try:
        data = read_at_most(path, max_bytes)  # bounded whatever the file: /dev/zero, a pipe
    except FileNotFoundError:
        raise error(f"no such {what}", source=source, hint=missing_hint) from None
    except IsADirectoryError:
        raise error(f"is a folder, not a {what}", source=source) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", source=source) from None
    if len(data) > max_bytes:
        raise error(too_large(path, max_bytes), source=source, hint=RAISE_HINT)
    return data


def too_large(path: Path, max_bytes: int) -> str:
    """``the file is 20.3 MiB, over the 8 MiB limit`` (size from the file system when known)."""
    try:
        size: int | None = path.stat().st_size or None  # 0: a device or a pipe, size unknown
    except OSError:
        size = None
    return over_limit(size, max_bytes)


def load_yaml_file(
    path: Path | str,
    *,
    max_bytes: int | None = None,
    max_depth: int = MAX_YAML_DEPTH,
    loader: type | None = None,
    error: type[InputError] = InputError,
    what: str = "file",
    missing_hint: str | None = None,
) -> Any:
    """Read and parse one YAML file (UTF-8, an optional BOM).

    Args:
        path: the file.
        max_bytes: larger files are refused before parsing (default: the limit in force).
        max_depth: deeper nesting of mappings and sequences is refused.
        loader: a subclass of ``SafeLoader`` with extra tags; default ``SafeLoader``.
        error: the ``InputError`` subclass to raise (``SuiteError``, ``RegistryError``...).
        what: what the file is, for messages (``no such suite file``).
        missing_hint: what to do when the file does not exist.

    Raises:
        InputError: (or ``error``) unreadable, too large, not UTF-8, not YAML, too deep.
    """
    path = Path(path)
    data = read_limited(
        path, max_bytes=max_bytes, error=error, what=what, missing_hint=missing_hint
    )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 at byte {exc.start}", source=str(path)) from None
    return load_yaml(text, source=str(path), max_depth=max_depth, loader=loader, error=error)


def load_yaml(
    text: str,
    *,
    source: str = "<text>",
    max_bytes: int | None = None,
    max_depth: int = MAX_YAML_DEPTH,
    loader: type | None = None,
    error: type[InputError] = InputError,
) -> Any:
    """Parse YAML text already in memory (see ``load_yaml_file`` for the arguments).

    ``max_bytes`` (None: no limit) counts the text's UTF-8 bytes.

    Raises:
        InputError: (or ``error``) too large, not YAML, a tag not allowed, too deep.
    """
    if max_bytes is not None and len(text) > max_bytes // 4:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise error(over_limit(size, max_bytes, what="text"), source=source, hint=RAISE_HINT)
    chosen = loader or SafeLoader
    try:
        if HAS_LIBYAML and not LIBYAML_LIMITS_NESTING and issubclass(chosen, yaml.CSafeLoader):
            _scan_depth(text, chosen, source=source, max_depth=max_depth, error=error)
        data = yaml.load(text, Loader=chosen)
    except InputError:  # the depth scan's own refusal (an InputError is a ValueError)
        raise
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, source, max_depth, error) from None
    except yaml.YAMLError as exc:
        raise error(f"not valid YAML: {exc}", source=source) from None
    except RecursionError:  # the pure-Python loader recurses once per level
        raise _depth_error(source, max_depth, None, error) from None
    except ValueError as exc:  # int('9' * 5000) and datetime(2024, 13, 1) raise ValueError
        raise error(f"a value cannot be read: {_value_problem(exc)}", source=source) from None
    _check_shape(data, source=source, max_depth=max_depth, budget=_budget(text), error=error)
    return data


def _scan_depth(
    text: str, loader: type, *, source: str, max_depth: int, error: type[InputError]
) -> None:
    """Refuse nesting past ``max_depth`` from LibYAML's event stream, before anything is
    composed (parsing events does not recurse; composing a deep document does, in C)."""
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > max_depth:
                mark = event.start_mark
                where = f"line {mark.line + 1} column {mark.column + 1}" if mark else None
                raise _depth_error(source, max_depth, where, error)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _budget(text: str) -> int:
    return max(_MIN_NODE_BUDGET, 4 * len(text))


def _syntax_error(
    exc: yaml.MarkedYAMLError, source: str, max_depth: int, error: type[InputError]
) -> InputError:
    mark = exc.problem_mark or exc.context_mark
    where = f"line {mark.line + 1} column {mark.column + 1}" if mark is not None else None
    problem = exc.problem or exc.context or "malformed"
    if "maximum nesting depth" in problem:  # LibYAML's own limit (1000 levels)
        return _depth_error(source, max_depth, where, error)
    if "constructor for the tag" in problem:
        tag = problem.rsplit(" ", 1)[-1]
        return error(
            f"the tag {tag} is not allowed (planeval reads plain YAML only)",
            source=source,
            location=where,
        )
    return error(f"not valid YAML: {problem}", source=source, location=where)


def _depth_error(
    source: str, max_depth: int, where: str | None, error: type[InputError]
) -> InputError:
    return error(
        f"nested more than {max_depth} levels deep",
        source=source,
        location=where,
        hint="flatten the document",
    )


def _value_problem(exc: ValueError) -> str:
    text = str(exc)
    if "digits" in text and "int" in text:
        return "an integer has more than 4300 digits"
    return text.splitlines()[0] if text else exc.__class__.__name__


def _check_shape(
    data: Any, *, source: str, max_depth: int, budget: int, error: type[InputError]
) -> None:
    """Refuse nesting past ``max_depth`` and aliases that expand past ``budget`` values.

    The walk follows aliases as a reader of the data would (so a self-referencing alias is
    infinitely deep), without recursion.
    """
    if not isinstance(data, dict | list):
        return
    stack: list[tuple[Any, int]] = [(data, 1)]
    seen = 0
    while stack:
        value, depth = stack.pop()
        if depth > max_depth:
            raise _depth_error(source, max_depth, None, error)
        children = value.values() if isinstance(value, dict) else value
        seen += len(value)
        if seen > budget:
            raise error(
                f"aliases expand to more than {budget:,} values",
                source=source,
                hint="write the values out instead of repeating anchors inside anchors",
            )
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
