"""``python -m harness.testing [--latency S]``: run the fake planner server in the foreground.

``--rate R`` makes it answer 429 beyond R requests per second; ``GET /_stats`` reports
``{served, rejected}``. Prints ``http://127.0.0.1:<port>`` on the first line of stdout, then
serves until stopped (Ctrl+C or SIGTERM). Benchmarks run it in its own process, as a real API
would be.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading

from harness.testing._server import FakePlannerServer


def main(argv: list[str] | None = None) -> None:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m harness.testing", description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    parser.add_argument(
        "--rate", type=float, default=None, help="requests per second allowed (429 beyond)"
    )
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with FakePlannerServer(latency=args.latency) as server:
        server.limit_rate(args.rate)
        sys.stdout.write(server.url + "\n")
        sys.stdout.flush()
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()


if __name__ == "__main__":
    main()
