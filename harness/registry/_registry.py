"""The capability registry: what a planner may use, with optional semver versions.

A reference ``name`` is known when the name is registered; ``name@1.2`` is known when the name
is registered with the same major version and a minor version at least as high (``1.4`` serves
``@1.2``; ``2.0`` does not).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness._errors import RegistryError
from harness._json import loads
from harness.registry._fast_schema import Predicate, fast_predicate
from harness.registry._formats import entries, entry_fields

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["Capability", "Registry", "load_registry", "parse_reference"]

_VERSION = re.compile(r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?$")


@dataclass(frozen=True, slots=True)
class Capability:
    """One registered capability."""

    name: str
    """The name plans refer to."""
    version: str | None = None
    """Semver ``major.minor[.patch]``, or None."""
    description: str = ""
    """What it does (shown to the planner in the prompt's catalogue)."""
    inputs: tuple[str, ...] = ()
    """Names (or types) of its inputs."""
    outputs: tuple[str, ...] = ()
    """Names (or types) of its outputs."""
    parameters: Mapping[str, Any] | None = field(default=None, compare=False)
    """JSON Schema of the task's ``arguments`` object (OpenAI ``parameters``, Anthropic
    ``input_schema``, MCP ``inputSchema``, TaskBench's parameter list), or None."""
    output_types: tuple[str, ...] = ()
    """Declared data types of its result (TaskBench ``output-type``: text, image, ...)."""
    output_schema: Mapping[str, Any] | None = field(default=None, compare=False)
    """JSON Schema of its result (MCP ``outputSchema``), or None."""

    @property
    def major_minor(self) -> tuple[int, int] | None:
        """``(major, minor)`` of the version, or None when unversioned."""
        return _major_minor(self.version) if self.version else None


@dataclass(frozen=True, slots=True)
class Registry:
    """A set of capabilities, looked up by name."""

    capabilities: tuple[Capability, ...]
    """Every registered capability, in file order."""
    source: str = "<registry>"
    """Where the registry came from (for messages)."""
    _by_name: dict[str, list[Capability]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    _validators: dict[tuple[int, tuple[type, ...]], tuple[Predicate | None, Validator]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    _outputs: list[str] = field(default_factory=list, init=False, compare=False, repr=False)
    """The names of the capabilities that declare output types or an output schema."""
    _schemas: list[str] = field(default_factory=list, init=False, compare=False, repr=False)
    """The names of the capabilities that declare a parameter schema."""

    def __post_init__(self) -> None:
        for cap in self.capabilities:
            self._by_name.setdefault(cap.name, []).append(cap)
            if cap.output_types or cap.output_schema is not None:
                self._outputs.append(cap.name)
            if cap.parameters is not None:
                self._schemas.append(cap.name)

    @property
    def names(self) -> tuple[str, ...]:
        """The registered names, without repeats, in file order."""
        return tuple(self._by_name)

    def resolve(self, ref: str) -> Capability | None:
        """The capability a reference (``name`` or ``name@1.2``) is served by, or None."""
        name, wanted = parse_reference(ref)
        candidates = self._by_name.get(name)
        if not candidates:
            return None
        if wanted is None:
            return candidates[0]
        for cap in candidates:
            have = cap.major_minor
            if have is not None and have[0] == wanted[0] and have[1] >= wanted[1]:
                return cap
        return None

    @property
    def reads_arguments(self) -> bool:
        """True when some capability declares a parameter schema or output types: the
        argument checks have something to check against."""
        return bool(self._outputs or self._schemas)

    @property
    def declares_outputs(self) -> bool:
        """True when some capability declares its output types or an output schema (what
        ``dataflow_types`` compares)."""
        return bool(self._outputs)

    def validator(self, capability: Capability) -> Validator | None:
        """The compiled validator of a capability's parameter schema (built once per
        registry), or None when it declares none."""
        compiled = self.schema_checks(capability)
        return None if compiled is None else compiled[1]

    def schema_checks(
        self, capability: Capability, opaque: tuple[type, ...] = ()
    ) -> tuple[Predicate | None, Validator] | None:
        """The capability's parameter schema compiled once per registry: a fast "certainly
        valid" predicate (None for schemas outside its subset; values of an ``opaque`` type
        pass it) and the jsonschema validator that gives the exact errors. None when the
        capability declares no schema."""
        if capability.parameters is None:
            return None
        key = (id(capability), opaque)
        compiled = self._validators.get(key)
        if compiled is None:
            from jsonschema import Draft202012Validator
            from jsonschema.validators import validator_for

            cls = validator_for(capability.parameters, default=Draft202012Validator)
            validator = cls(capability.parameters, format_checker=cls.FORMAT_CHECKER)
            fast = fast_predicate(capability.parameters, cls.FORMAT_CHECKER, opaque)
            compiled = self._validators[key] = (fast, validator)
        return compiled

    def explain_unknown(self, ref: str) -> str:
        """Why a reference is not known and what would fix it (one sentence)."""
        name, wanted = parse_reference(ref)
        candidates = self._by_name.get(name)
        if candidates and wanted is not None:
            versions = ", ".join(c.version or "unversioned" for c in candidates)
            return (
                f"capability {ref!r} is not in the registry: {name!r} is registered as "
                f"{versions}, which does not serve {wanted[0]}.{wanted[1]} (same major, minor at "
                f"least as high)"
            )
        near = difflib.get_close_matches(name, self.names, n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]!r}?" if near else f"; {self.source} has no close name"
        return f"capability {ref!r} is not in the registry{hint}"

    def catalogue(self) -> str:
        """The capabilities as a text list for planner prompts: ``- name@version: desc``."""
        lines = []
        for cap in self.capabilities:
            label = f"{cap.name}@{cap.version}" if cap.version else cap.name
            lines.append(f"- {label}: {cap.description}".rstrip(": "))
        return "\n".join(lines)

    @classmethod
    def from_data(cls, data: Any, *, source: str = "<registry>") -> Registry:
        """Build a registry from ``{"capabilities": [...]}``, a bare list, TaskBench's
        ``{"nodes": [...]}``, or a tools list: OpenAI function tools, Anthropic tools, an MCP
        ``tools/list`` result (``harness/registry/_formats.py``).

        Raises:
            RegistryError: naming the entry that is malformed.
        """
        items, base = entries(data, source)
        capabilities = []
        for i, item in enumerate(items):
            capability = _capability(item, f"{base}/{i}", source)
            if capability is not None:
                capabilities.append(capability)
        return cls(capabilities=tuple(capabilities), source=source)


def load_registry(path: Path | str, *, max_bytes: int | None = None) -> Registry:
    """Read a registry file (YAML or JSON).

    Args:
        path: the registry file.
        max_bytes: larger files are refused (default: the limit in force).

    Raises:
        RegistryError: the file is missing, unreadable, too large or malformed.
    """
    from harness._yaml import load_yaml, read_limited  # PyYAML only when a registry is read

    path = Path(path)
    source = str(path)
    raw = read_limited(path, max_bytes=max_bytes, error=RegistryError, what="registry file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RegistryError(f"not UTF-8 at byte {exc.start}", source=source) from None
    if path.suffix == ".json":
        data = loads(text, source=source, error=RegistryError)
    else:
        data = load_yaml(text, source=source, error=RegistryError)
    return Registry.from_data(data, source=source)


def parse_reference(ref: str) -> tuple[str, tuple[int, int] | None]:
    """Split ``name@1.2`` into ``("name", (1, 2))``; a bare name has no version."""
    name, sep, version = ref.partition("@")
    if not sep:
        return ref, None
    return name, _major_minor(version) or (-1, -1)


def _major_minor(version: str) -> tuple[int, int] | None:
    match = _VERSION.match(version.strip().lstrip("v"))
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0)


def _capability(item: Any, where: str, source: str) -> Capability | None:
    if isinstance(item, str) and item:
        return Capability(name=item)
    if not isinstance(item, dict):
        raise RegistryError(
            "a capability must be an object or a name", source=source, location=where
        )
    fields = entry_fields(item, where, source)
    if fields is None:
        return None
    name = fields["name"]
    if not isinstance(name, str) or not name:
        raise RegistryError(
            "a capability needs a non-empty string 'name'", source=source, location=where
        )
    version = item.get("version")
    if version is not None:
        version = str(version)
        if _major_minor(version) is None:
            raise RegistryError(
                f"version {version!r} is not semver (major.minor[.patch])",
                source=source,
                location=f"{where}/version",
            )
    return Capability(
        name=name,
        version=version,
        description=fields["description"],
        inputs=fields.get("inputs", ()),
        outputs=fields.get("outputs", ()),
        parameters=fields.get("parameters"),
        output_types=fields.get("output_types", ()),
        output_schema=fields.get("output_schema"),
    )
