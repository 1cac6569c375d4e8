"""When to follow a file's writes with work that need not follow each one (its provider checks,
what its export writes): once the file has been quiet for a moment, and at most a few seconds
after the first write not followed, so a file written to without a pause (an agent at work on its
session) still gets it while it is written."""

from __future__ import annotations

import time

__all__ = ["MOST_WAIT", "Quiet"]

MOST_WAIT = 3.0
"""Seconds at most that writes put the work off (work still running on an earlier state, which
the new one waits for, comes on top)."""


class Quiet:
    """The writes not yet followed by the work: :meth:`wait` for each, :meth:`done` as it starts."""

    def __init__(self) -> None:
        self.since: float | None = None
        """When the first write not followed came (``None``: every write is followed)."""

    def wait(self, settle: float, most: float | None = None) -> float:
        """Seconds from now to start the work, for a write just read: ``settle`` of quiet, but no
        later than ``most`` (:data:`MOST_WAIT`) after the first write not followed (or at once)."""
        most = MOST_WAIT if most is None else most
        now = time.monotonic()
        if self.since is None:
            self.since = now
        # (Never 0: a Textual timer of no interval that fires late divides by it.)
        return max(0.01, min(settle, self.since + most - now))

    def done(self) -> None:
        """The work starts: it follows every write read so far."""
        self.since = None
