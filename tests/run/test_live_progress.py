"""Live progress: the bar's figures, and one line every N seconds in non-interactive logs."""

from __future__ import annotations

import io
import time

from rich.console import Console

from harness._cli._live_progress import live_progress, progress_line
from harness.run import LiveStats, ResultRow


def _row() -> ResultRow:
    return ResultRow(suite="s", case="c", model="m", sample=0, status="pass")


def test_line_shows_calls_tokens_cost_and_eta() -> None:
    """Rows done, in flight, failed, tokens, cost and an ETA from the pace so far."""
    stats = LiveStats(in_flight=3, done=10, failed=1, tokens_in=1500, tokens_out=500, cost=0.25)
    line = progress_line(10, 40, stats, elapsed=20.0)
    assert line == ("10/40 rows · 3 in flight · 1 failed · 2,000 tokens · $0.2500 · ETA 1m00s")


def test_non_interactive_prints_a_line_every_interval() -> None:
    """Off a terminal: nothing per row, one `progress:` line per interval."""
    lines: list[str] = []
    console = Console(file=io.StringIO(), force_terminal=False)
    stats = LiveStats()
    with live_progress(
        console, total=5, stats=stats, enabled=True, interval=0.2, write=lines.append
    ) as advance:
        assert advance is not None
        advance(_row())
        time.sleep(0.5)
    assert 1 <= len(lines) <= 3
    assert all(line.startswith("progress: 1/5 rows") for line in lines)
    assert console.file.getvalue() == ""  # type: ignore[attr-defined]


def test_terminal_bar_reads_live_stats() -> None:
    """On a terminal the bar shows the running totals."""
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=150)
    stats = LiveStats(in_flight=2, tokens_in=7, tokens_out=5)
    with live_progress(console, total=2, stats=stats, enabled=True) as advance:
        assert advance is not None
        advance(_row())
        time.sleep(0.2)
    assert "2 in flight" in buffer.getvalue() and "12 tokens" in buffer.getvalue()
