"""Every ``--format json`` goes through ``print_json``: its output is always strict JSON."""

from __future__ import annotations

import json
import math

import pytest

from harness._cli._output import print_json


def _strict(name: str) -> None:
    raise AssertionError(f"{name} in the output")


def test_nan_and_infinities_print_as_null(capsys: pytest.CaptureFixture[str]) -> None:
    print_json({"p": math.nan, "interval": [-math.inf, 0.5], "nested": {"x": (math.inf, 1)}})
    out = json.loads(capsys.readouterr().out, parse_constant=_strict)
    assert out == {"p": None, "interval": [None, 0.5], "nested": {"x": [None, 1]}}


def test_finite_values_print_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    data = {"rate": 0.125, "n": 3, "name": "café", "ok": True, "none": None}
    print_json(data)
    text = capsys.readouterr().out
    assert json.loads(text) == data and "café" in text and text.endswith("}\n")
