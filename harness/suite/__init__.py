"""Eval suites: goals with expectations, a prompt template, a registry and models to compare."""

from harness.suite._cases_file import StreamedCases
from harness.suite._load import find_root, load_suite, suite_schema
from harness.suite._model import PROVIDERS, Case, ModelSpec, ProviderName, Suite

__all__ = [
    "PROVIDERS",
    "Case",
    "ModelSpec",
    "ProviderName",
    "StreamedCases",
    "Suite",
    "find_root",
    "load_suite",
    "suite_schema",
]
