"""harness._yaml: the one YAML reader (LibYAML, size, nesting and alias limits, one error)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from harness import _yaml
from harness._errors import InputError, SuiteError
from harness._yaml import MAX_YAML_DEPTH, load_yaml, load_yaml_file

ROOT = Path(__file__).resolve().parents[1]


class TestLoader:
    def test_libyaml_is_used_when_present(self) -> None:
        """With LibYAML (the wheels ship it), every read goes through the C loader."""
        if not yaml.__with_libyaml__:
            pytest.skip("PyYAML was built without LibYAML here")
        assert _yaml.SafeLoader is yaml.CSafeLoader

    def test_pure_python_fallback_gives_the_same_data_and_errors(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without LibYAML the pure-Python loader reads the same and refuses the same."""
        text = "a: [1, {b: c}]\nd: &x {e: 1}\nf: *x\n"
        fast = load_yaml(text)
        monkeypatch.setattr(_yaml, "SafeLoader", yaml.SafeLoader)
        assert load_yaml(text) == fast
        with pytest.raises(InputError, match=f"nested more than {MAX_YAML_DEPTH} levels"):
            load_yaml("[" * 100_000 + "]" * 100_000, source="deep.yaml")

    @pytest.mark.parametrize(
        "text",
        [
            "a: " + "[" * 100_000 + "]" * 100_000,
            "x:\n" + "".join(f"{' ' * i}- \n" for i in range(0, 400, 2)),
        ],
    )
    def test_a_libyaml_without_its_own_nesting_limit_is_guarded(
        self, monkeypatch: pytest.MonkeyPatch, text: str
    ) -> None:
        """LibYAML before 0.2.6 composes a deep document by C recursion and the process dies
        (a segmentation fault with PyYAML 6.0.3 on LibYAML 0.2.5): there planeval scans the
        event stream first and refuses the depth with the place, before anything is composed.
        Forced here, so the scan is tested whatever LibYAML this machine has."""
        if not yaml.__with_libyaml__:
            pytest.skip("PyYAML was built without LibYAML here")
        monkeypatch.setattr(_yaml, "LIBYAML_LIMITS_NESTING", False)
        composed: list[str] = []
        monkeypatch.setattr(yaml, "load", lambda *a, **k: composed.append("load"))
        with pytest.raises(InputError, match=r"deep\.yaml: line \d+ column \d+: nested more than"):
            load_yaml(text, source="deep.yaml")
        assert composed == []  # refused before the composer ran
        monkeypatch.undo()
        monkeypatch.setattr(_yaml, "LIBYAML_LIMITS_NESTING", False)
        assert load_yaml("a: [1, {b: [c]}]\n") == {"a": [1, {"b": ["c"]}]}

    def test_no_python_objects(self) -> None:
        """Python tags are refused, never constructed."""
        with pytest.raises(InputError, match=r"the tag .*python/object.* is not allowed"):
            load_yaml("!!python/object/apply:os.system ['true']", source="x.yaml")

    def test_every_yaml_reader_uses_the_helper(self) -> None:
        """No module of the package parses YAML itself (one helper, one set of limits)."""
        offenders = [
            str(path.relative_to(ROOT))
            for path in (ROOT / "harness").rglob("*.py")
            if path.name != "_yaml.py"
            and any(
                call in path.read_text(encoding="utf-8")
                for call in ("yaml.safe_load", "yaml.load(", "yaml.full_load", "yaml.unsafe_load")
            )
        ]
        assert offenders == []


class TestLimits:
    @pytest.mark.parametrize(
        "text",
        [
            "[" * 100_000 + "]" * 100_000,  # flow sequences
            "{a: " * 100_000 + "1" + "}" * 100_000,  # flow mappings
            "- " * 100_000 + "x\n",  # block sequences on one line
            "".join(" " * i + "a:\n" for i in range(150)),  # block mappings, 150 deep
            "&a [*a]",  # an alias that contains itself: infinitely deep data
        ],
    )
    def test_deep_nesting_is_one_error(self, text: str) -> None:
        """Nesting past the limit is refused quickly with the limit named, never a crash."""
        started = time.perf_counter()
        with pytest.raises(SuiteError, match=f"nested more than {MAX_YAML_DEPTH} levels deep"):
            load_yaml(text, source="deep.yaml", error=SuiteError)
        assert time.perf_counter() - started < 10

    def test_nesting_within_the_limit_reads(self) -> None:
        """A document exactly at the limit is fine."""
        depth = MAX_YAML_DEPTH
        data = load_yaml("[" * depth + "]" * depth)
        for _ in range(depth - 1):
            data = data[0]
        assert data == []

    def test_billion_laughs_is_refused(self) -> None:
        """Anchors inside anchors that expand to a billion values are refused at once."""
        lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
        with pytest.raises(InputError, match="aliases expand to more than"):
            load_yaml("\n".join(lines), source="laughs.yaml")

    def test_a_20_mb_file_is_refused_at_once(self, tmp_path: Path) -> None:
        """Over the size limit: refused before parsing, naming the size, the limit, the flag."""
        path = tmp_path / "big.yaml"
        path.write_text("cases:\n" + "- {id: c, goal: do the thing}\n" * 700_000)
        assert path.stat().st_size > 20_000_000
        started = time.perf_counter()
        with pytest.raises(InputError) as info:
            load_yaml_file(path)
        assert time.perf_counter() - started < 2
        assert "the file is 20 MiB, over the 8 MiB limit" in info.value.one_line()
        assert "--max-bytes" in info.value.one_line()

    def test_the_limit_can_be_raised(self, tmp_path: Path) -> None:
        """``max_bytes`` (the commands' --max-bytes) lets a larger file through."""
        path = tmp_path / "s.yaml"
        path.write_text("a: " + "x" * 2000 + "\n")
        with pytest.raises(InputError, match="over the"):
            load_yaml_file(path, max_bytes=1000)
        assert load_yaml_file(path, max_bytes=4000) == {"a": "x" * 2000}

    def test_an_endless_device_is_refused(self) -> None:
        """/dev/zero is read only up to the limit, then refused."""
        with pytest.raises(InputError, match="over the 1 MiB limit"):
            load_yaml_file(Path("/dev/zero"), max_bytes=2**20)


class TestErrors:
    @pytest.mark.parametrize(
        ("text", "message", "location"),
        [
            ("a: [1, 2\n", "not valid YAML", "line 2 column 1"),  # unclosed flow sequence
            ("n: " + "9" * 5000 + "\n", "an integer has more than 4300 digits", None),
            ("when: 2024-13-45\n", "a value cannot be read", None),  # no 13th month
            ("a: !!binary abc\n", "not valid YAML", "line 1 column 4"),  # not base64
            ("? [1, 2]\n: x\n", "not valid YAML", "line 1 column 3"),  # unhashable key
        ],
    )
    def test_one_error_with_its_place(self, text: str, message: str, location: str | None) -> None:
        """Every failure of the parser or a constructor is one InputError, never a traceback."""
        with pytest.raises(InputError) as info:
            load_yaml(text, source="f.yaml")
        assert message in info.value.what
        assert info.value.location == location
        assert info.value.source == "f.yaml"

    @pytest.mark.parametrize(
        ("content", "message"),
        [
            (None, "no such suite file"),
            (b"a: \xff\n", "not UTF-8 at byte 3"),
        ],
    )
    def test_file_errors(self, tmp_path: Path, content: bytes | None, message: str) -> None:
        """Missing and undecodable files are named with what the caller calls them."""
        path = tmp_path / "s.yaml"
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(SuiteError, match=message):
            load_yaml_file(path, error=SuiteError, what="suite file")

    def test_a_folder_is_named(self, tmp_path: Path) -> None:
        """A folder given as a file says so."""
        with pytest.raises(InputError, match="is a folder, not a file"):
            load_yaml_file(tmp_path)


class TestLimitInForce:
    def test_a_command_limit_applies_within_its_block_only(self, tmp_path: Path) -> None:
        """``max_bytes_in_force`` (run --max-bytes) reaches every read, then is undone."""
        path = tmp_path / "s.yaml"
        path.write_text("a: " + "x" * 2000 + "\n")
        with _yaml.max_bytes_in_force(1000), pytest.raises(InputError, match="over the"):
            load_yaml_file(path)
        assert load_yaml_file(path) == {"a": "x" * 2000}
