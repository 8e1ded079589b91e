"""Synthetic run folders for these tests (see tests/report/_synthetic.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))
