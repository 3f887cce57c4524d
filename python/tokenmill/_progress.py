"""A small progress bar on stderr for long jobs (training, corpus preparation).

No dependency: one line redrawn at most ten times a second, with a rate and an ETA when the
total is known. It draws only when enabled and stderr is a terminal, unless `force=True`
(tests); `--quiet` and ``progress=False`` turn it off. It does not log or keep history.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "human_bytes", "human_seconds"]


def human_bytes(n: float) -> str:
    """``1536 -> '1.5 KB'`` (powers of 1000, as disk sizes are quoted).

    >>> human_bytes(1536)
    '1.5 KB'
    """
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


def human_seconds(s: float) -> str:
    """``75 -> '1m15s'``.

    >>> human_seconds(75), human_seconds(3.2), human_seconds(7322)
    ('1m15s', '3.2s', '2h02m')
    """
    if s < 60:
        return f"{s:.1f}s"
    if s < 3600:
        return f"{int(s // 60)}m{int(s % 60):02d}s"
    return f"{int(s // 3600)}h{int(s % 3600 // 60):02d}m"


class Progress:
    """One progress line: ``label  done/total  rate  ETA``.

    Args:
        label: What is progressing ("counting", "merging").
        total: The amount at the end, or None when unknown.
        unit: ``"bytes"`` (shown as KB/MB) or a noun such as ``"merges"``.
        enabled: False draws nothing.
        stream: Where to draw (default stderr).
        force: Draw even when `stream` is not a terminal.

    >>> import io
    >>> out = io.StringIO()
    >>> p = Progress("merging", total=10, unit="merges", stream=out, force=True)
    >>> p.update(10); p.close()
    >>> "10/10 merges" in out.getvalue()
    True
    """

    def __init__(self, label: str, total: float | None = None, unit: str = "bytes", enabled: bool = True,
                 stream: TextIO | None = None, force: bool = False):
        self.label = label
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.enabled = bool(enabled) and (force or isatty())
        self.start = time.monotonic()
        self.done = 0.0
        self._last_draw = 0.0
        self._width = 0

    def _fmt(self, n: float) -> str:
        return human_bytes(n) if self.unit == "bytes" else f"{n:,.0f}"

    def update(self, done: float, extra: str = "") -> None:
        """Sets the amount done (absolute, not an increment) and redraws if due."""
        self.done = done
        now = time.monotonic()
        if self.enabled and (now - self._last_draw >= 0.1 or (self.total is not None and done >= self.total)):
            self._last_draw = now
            self._draw(now, extra)

    def _draw(self, now: float, extra: str = "") -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        unit = "" if self.unit == "bytes" else f" {self.unit}"
        if self.total:
            pct = min(100.0, 100.0 * self.done / self.total)
            eta = (self.total - self.done) / rate if rate > 0 else float("inf")
            eta_s = human_seconds(eta) if eta != float("inf") else "?"
            line = f"{self.label}: {pct:5.1f}%  {self._fmt(self.done)}/{self._fmt(self.total)}{unit}  {self._fmt(rate)}{unit}/s  ETA {eta_s}"
        else:
            line = f"{self.label}: {self._fmt(self.done)}{unit}  {self._fmt(rate)}{unit}/s  {human_seconds(elapsed)}"
        if extra:
            line += "  " + extra
        pad = max(0, self._width - len(line))
        self._width = len(line)
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()

    def close(self, extra: str = "") -> None:
        """Draws the final state and ends the line."""
        if self.enabled:
            self._draw(time.monotonic(), extra)
            self.stream.write("\n")
            self.stream.flush()
