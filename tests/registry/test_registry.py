"""The capability registry: formats, semver references and malformed files."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._errors import RegistryError
from harness.registry import Registry, load_registry, parse_reference


class TestFormats:
    def test_capabilities_key_yaml(self, tmp_path: Path) -> None:
        """YAML {capabilities: [...]} with versions and descriptions."""
        path = tmp_path / "r.yaml"
        path.write_text("capabilities:\n  - {name: pay, version: '1.4', description: Pay}\n")
        registry = load_registry(path)
        assert registry.names == ("pay",)
        assert registry.capabilities[0].version == "1.4"

    def test_bare_list_json(self, tmp_path: Path) -> None:
        """A bare JSON list of names or objects."""
        path = tmp_path / "r.json"
        path.write_text('["search", {"name": "pay"}]')
        assert load_registry(path).names == ("search", "pay")

    @pytest.mark.parametrize("domain", ["dailylifeapis", "huggingface", "multimedia"])
    def test_taskbench_tool_desc_as_is(self, shared_data: Path, domain: str) -> None:
        """TaskBench's tool_desc.json is a registry as it is (nodes with id, desc, parameters)."""
        registry = load_registry(shared_data / "taskbench" / f"{domain}_tool_desc.json")
        assert len(registry.names) > 10
        assert all(c.description for c in registry.capabilities)

    def test_catalogue_for_prompts(self) -> None:
        """The catalogue lists each capability with its version and description."""
        registry = Registry.from_data([{"name": "pay", "version": "1.4", "description": "Pay"}])
        assert registry.catalogue() == "- pay@1.4: Pay"


class TestReferences:
    @pytest.mark.parametrize(
        ("ref", "known"),
        [
            ("pay", True),  # bare name: any version
            ("pay@1.2", True),  # same major, lower minor
            ("pay@1.4", True),  # exact
            ("pay@1.5", False),  # minor too high
            ("pay@2.0", False),  # other major
            ("pay@x", False),  # not a version
            ("payy", False),  # unknown name
        ],
    )
    def test_semver(self, ref: str, known: bool) -> None:
        registry = Registry.from_data([{"name": "pay", "version": "1.4.2"}])
        assert (registry.resolve(ref) is not None) is known

    def test_several_versions_of_one_name(self) -> None:
        """A reference is served by any registered version that satisfies it."""
        registry = Registry.from_data(
            [{"name": "pay", "version": "1.1"}, {"name": "pay", "version": "2.3"}]
        )
        assert registry.resolve("pay@2.1") is not None
        assert registry.resolve("pay@1.2") is None

    def test_parse_reference(self) -> None:
        assert parse_reference("pay@1.2") == ("pay", (1, 2))
        assert parse_reference("pay") == ("pay", None)


class TestMalformed:
    @pytest.mark.parametrize(
        ("content", "suffix", "message"),
        [
            ("capabilities: [name: x", ".yaml", "not valid YAML"),  # YAML syntax
            ("{", ".json", "not valid JSON"),  # JSON syntax
            ("capabilities: 3", ".yaml", "must be a list"),  # not a list
            ("just text", ".yaml", "a registry must be"),  # a scalar document
            ("- {description: nameless}", ".yaml", "non-empty string 'name'"),  # no name
            ("- {name: x, version: banana}", ".yaml", "not semver"),  # bad version
        ],
    )
    def test_one_clear_error(self, tmp_path: Path, content: str, suffix: str, message: str) -> None:
        path = tmp_path / f"r{suffix}"
        path.write_text(content)
        with pytest.raises(RegistryError, match=message) as info:
            load_registry(path)
        assert info.value.source == str(path)
        assert "\n" not in info.value.one_line()

    def test_missing(self, tmp_path: Path) -> None:
        with pytest.raises(RegistryError, match="no such registry file"):
            load_registry(tmp_path / "none.yaml")
