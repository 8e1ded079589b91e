"""Journal lines as written: the JSON, the ``at`` time, the CRC-32, and outputs that are not
JSON (what a user reads when an agent returns a set or NaN). Hand-written payloads."""

from __future__ import annotations

import enum
import json
import math
import time
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.journal import EventNotSerializableError, JournalWriter, encode_event, replay
from harness.journal._events import checksum_state, now_iso


class TestLine:
    def test_a_line_is_compact_json_with_the_crc_last(self) -> None:
        raw = encode_event("task_succeeded", {"task_id": "a", "output": {"k": [1, "é"]}})
        assert raw.endswith(b"\n") and raw.count(b"\n") == 1
        text = raw.decode()
        assert ", " not in text and '": ' not in text  # compact separators
        assert "é" in text  # UTF-8, not \\u escapes
        entry = json.loads(text)
        assert list(entry) == ["event", "at", "task_id", "output", "crc32"]
        assert entry["event"] == "task_succeeded" and entry["output"] == {"k": [1, "é"]}
        body = raw[: raw.rindex(b',"crc32":"')]
        assert entry["crc32"] == f"{zlib.crc32(body):08x}"
        assert checksum_state(text[:-1]) == "ok"

    def test_a_crc_with_leading_zeros_keeps_eight_digits(self) -> None:
        found = None
        for n in range(5000):
            raw = encode_event("plan_started", {"n": n})
            body = raw[: raw.rindex(b',"crc32":"')]
            if zlib.crc32(body) < 0x10000000:
                found = raw
                break
        assert found is not None
        crc = json.loads(found)["crc32"]
        assert len(crc) == 8 and crc.startswith("0")
        assert checksum_state(found.decode()[:-1]) == "ok"

    def test_numbers_are_spelled_by_the_fast_writer_unless_a_value_needs_the_json_module(
        self,
    ) -> None:
        """A line of plain JSON values is written by msgspec (several times faster), which
        spells 1e-05 as 0.00001 and 1e16 as 1e16; a line holding a value only the json module
        writes (here a tuple) is written whole by it, with its spelling. Both read back equal."""
        fast = encode_event("task_succeeded", {"duration": 1e-05, "output": [1e16]})
        assert fast.startswith(b'{"event":"task_succeeded","at":"')
        assert b',"duration":0.00001,"output":[1e16],"crc32":"' in fast
        strict = encode_event("task_succeeded", {"duration": 1e-05, "output": (1e16,)})
        assert b',"duration":1e-05,"output":[1e+16],"crc32":"' in strict
        for raw in (fast, strict):
            entry = json.loads(raw)
            assert (entry["duration"], entry["output"]) == (1e-05, [1e16])
            assert checksum_state(raw.decode()[:-1]) == "ok"

    def test_a_lone_surrogate_is_escaped_and_the_line_stays_valid(self) -> None:
        raw = encode_event("task_succeeded", {"task_id": "a", "output": "x\ud800é"})
        raw.decode("utf-8")  # valid UTF-8
        assert b"\\ud800" in raw and b"\\u00e9" in raw
        assert json.loads(raw)["output"] == "x\ud800é"
        assert checksum_state(raw.decode()[:-1]) == "ok"

    def test_the_time_is_iso_utc_with_milliseconds(self, monkeypatch: pytest.MonkeyPatch) -> None:
        clock = iter(
            [1_700_000_000.5, 1_700_000_000.999, 1_700_000_001.0, 1_700_000_061.25, 9.9995]
        )
        monkeypatch.setattr(time, "time", lambda: next(clock))
        assert [now_iso() for _ in range(5)] == [
            "2023-11-14T22:13:20.500Z",
            "2023-11-14T22:13:20.999Z",
            "2023-11-14T22:13:21.000Z",
            "2023-11-14T22:14:21.250Z",
            "1970-01-01T00:00:09.999Z",  # milliseconds are cut, never rounded up to 1000
        ]

    def test_every_event_carries_its_time(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(time, "time", lambda: 86_400.042)
        assert json.loads(encode_event("plan_started", {}))["at"] == "1970-01-02T00:00:00.042Z"


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)  # both sides of 64 bits
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()  # any code point, control characters and lone surrogates included
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


def _as_read(value: Any) -> Any:
    """What a JSON reader gives back for a value (tuples come back as lists)."""
    if isinstance(value, dict):
        return {k: _as_read(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_as_read(v) for v in value]
    return value


@settings(max_examples=400, deadline=None)
@given(output=_JSON, description=st.text(max_size=8))
def test_a_written_value_reads_back_equal(output: Any, description: str) -> None:
    """Whatever JSON value an agent returns is read back from the line exactly (a module-level
    function: hypothesis refuses a method called on two instances, as mutmut's two passes do)."""
    raw = encode_event(
        "task_succeeded",
        {"task_id": "a", "description": description, "duration": 1e-05, "output": output},
    )
    raw.decode("utf-8")  # always valid UTF-8
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    entry = json.loads(raw)
    assert entry["output"] == _as_read(output)
    assert entry["description"] == description and entry["duration"] == 1e-05
    assert list(entry) == [
        "event",
        "at",
        "task_id",
        "description",
        "duration",
        "output",
        "crc32",
    ]
    assert checksum_state(raw.decode()[:-1]) == "ok"


class TestEveryValueReadsBack:
    def test_subclasses_of_json_types_are_written_as_their_json_value(self) -> None:
        """An IntEnum, a str enum or a dict subclass is written as the json module writes it."""

        class Level(enum.IntEnum):
            HIGH = 3

        class Colour(enum.StrEnum):
            RED = "red"

        output = {"level": Level.HIGH, "colour": Colour.RED, "map": OrderedDict(b=1, a=2)}
        entry = json.loads(encode_event("task_succeeded", {"output": output}))
        assert entry["output"] == {"level": 3, "colour": "red", "map": {"b": 1, "a": 2}}
        assert list(entry["output"]["map"]) == ["b", "a"]


class TestChecksumState:
    def good(self) -> str:
        return encode_event("task_started", {"task_id": "a"}).decode()[:-1]

    def test_states(self) -> None:
        good = self.good()
        assert checksum_state(good) == "ok"
        assert checksum_state(good.replace('"a"', '"b"')) == "bad"
        crc = good[-10:-2]
        other = f"{(int(crc, 16) ^ 1):08x}"
        assert checksum_state(good[:-10] + other + '"}') == "bad"
        assert checksum_state('{"event":"task_started","task_id":"a"}') == "none"

    def test_a_line_that_does_not_end_like_a_checksum_has_none(self) -> None:
        good = self.good()
        assert checksum_state(good + " ") == "none"
        assert checksum_state(good[:-1] + "]") == "none"
        assert checksum_state(good.replace(',"crc32":"', ',"crc33":"')) == "none"
        assert checksum_state(good.replace(',"crc32":"', ',"crc32": "')) == "none"

    def test_a_string_with_a_lone_surrogate_is_bad(self) -> None:
        line = '{"x":"\ud800","crc32":"00000000"}'
        assert checksum_state(line) == "bad"

    def test_the_writer_keeps_a_torn_tail_only_if_its_checksum_holds(self, tmp_path: Path) -> None:
        """A last line without newline whose CRC fails is cut off as torn, not completed."""
        path = tmp_path / "j"
        good = encode_event("task_succeeded", {"task_id": "a", "output": 1})
        path.write_bytes(good.rstrip(b"\n").replace(b'"output":1', b'"output":2'))
        with JournalWriter(path) as writer:
            writer.append("task_started", task_id="b")
        state = replay(path, "strict")
        assert state.outputs == {} and list(state.tasks) == ["b"]
        assert len(state.repairs) == 1


class TestNotSerializable:
    def fail(self, payload: dict[str, Any]) -> EventNotSerializableError:
        with pytest.raises(EventNotSerializableError) as caught:
            encode_event("task_succeeded", payload, source="j.jsonl")
        return caught.value

    @pytest.mark.parametrize(
        ("output", "pointer", "found"),
        [
            ({"a": [1, {2, 3}]}, "/output/a/1", "a value of type set"),
            ([float("nan")], "/output/0", "the number nan, which JSON cannot hold"),
            ({"x": math.inf}, "/output/x", "the number inf, which JSON cannot hold"),
            ({"a/b": {"c~d": object()}}, "/output/a~1b/c~0d", "a value of type object"),
            ({(1, 2): "v"}, "/output", "a key of type tuple"),
            ((1, b"raw"), "/output/1", "a value of type bytes"),
            ({"ok": [None, True, 1, 2.5, "s"], "bad": {1}}, "/output/bad", "a value of type set"),
        ],
    )
    def test_the_first_bad_value_is_named_with_a_pointer(
        self, output: Any, pointer: str, found: str
    ) -> None:
        error = self.fail({"task_id": "a", "output": output})
        assert error.pointer == pointer and error.location == pointer
        assert error.what.startswith(f"a task_succeeded event cannot be written as JSON: {found} (")
        assert error.source == "j.jsonl"
        assert error.hint == "return JSON values only (dict, list, str, int, float, bool, None)"
        assert isinstance(error, TypeError)

    def test_the_first_of_two_bad_values_in_document_order(self) -> None:
        error = self.fail({"task_id": "a", "output": [{"p": {1}}, {"q": {2}}], "z": {3}})
        assert error.pointer == "/output/0/p"

    def test_a_bad_key_deep_inside_points_at_its_object(self) -> None:
        error = self.fail({"task_id": "a", "output": {"list": [0, {frozenset(): 1}]}})
        assert error.pointer == "/output/list/1"
        assert "a key of type frozenset" in error.what

    def test_json_keys_of_other_scalar_types_are_fine(self) -> None:
        raw = encode_event("task_succeeded", {"output": {1: "a", 2.5: "b", False: "c", None: "d"}})
        assert json.loads(raw)["output"] == {"1": "a", "2.5": "b", "false": "c", "null": "d"}

    def test_an_output_that_contains_itself_is_refused_not_walked_forever(self) -> None:
        loop: dict[str, Any] = {"n": 1}
        loop["again"] = [0, loop]
        error = self.fail({"task_id": "a", "output": loop})
        assert error.pointer == "/output/again/1"
        assert error.what.startswith(
            "a task_succeeded event cannot be written as JSON: "
            "a value that contains itself (a circular reference) ("
        )

    def test_a_value_shared_twice_is_not_a_circle(self) -> None:
        shared = [1, 2]
        raw = encode_event("task_succeeded", {"output": {"x": shared, "y": [shared]}})
        assert json.loads(raw)["output"] == {"x": [1, 2], "y": [[1, 2]]}
        error = self.fail({"output": {"x": shared, "y": [shared, {0}]}})
        assert error.pointer == "/output/y/1" and "a value of type set" in error.what

    def test_a_bad_key_at_the_top_points_at_the_root(self) -> None:
        error = self.fail({("k",): 1})
        assert error.pointer == "/" and "a key of type tuple" in error.what

    def test_integers_too_long_to_write_are_named(self) -> None:
        """Python refuses int -> str past 4300 digits: the event is refused, not crashed."""
        error = self.fail({"output": {"k": [0, 10**5000]}})
        assert error.pointer == "/output/k/1" and "an integer too long to write (" in error.what
        error = self.fail({"output": {"k": {10**5000: 1}}})
        assert error.pointer == "/output/k"
        assert "a key that is an integer too long to write (" in error.what
        assert self.fail({10**5000: 1}).pointer == "/"  # a key of the event itself
