"""Importers: public datasets and other tools' recordings as planeval suites and recordings."""

from harness.importers._common import ImportResult
from harness.importers._ruby_vcr import import_ruby_vcr
from harness.importers._taskbench import import_taskbench
from harness.importers._worfbench import GOLD_MODEL, import_worfbench

__all__ = [
    "GOLD_MODEL",
    "ImportResult",
    "import_ruby_vcr",
    "import_taskbench",
    "import_worfbench",
]
