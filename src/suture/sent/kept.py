"""What an agent sends on resume, for a session log that grows: after an append, the records from
a *cut* near the end are built again and what was built of those before it is kept.

:class:`Resumed` is the part every agent's resumed build shares (:class:`suture.sent.claude_code.Grown`,
:class:`suture.sent.codex.Grown`, :class:`suture.sent.pi.Grown`): it keeps the wire values, the
neutral messages read from them, their provenance and the fixes of the records before the cut,
and joins them to what is built from the cut on, sharing what it keeps (:func:`suture.grown.grown_by`:
an append costs what it adds, never a copy of the history). Each agent says how to build from a
cut with what it carries of the records before it (:meth:`Resumed._build`; :class:`Whole` where the
records after the cut cannot be built apart), and where the next cut is (:meth:`Resumed._move`).
``tests/test_sent_resume.py`` proves what is sent equals :func:`suture.sent.as_sent`'s.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from suture.grown import grown_by
from suture.model import Transcript
from suture.sent import Built, Fix, Pieces, Sent, _sent, pieces

__all__ = ["Resumed", "Whole"]


class Whole(Exception):
    """The records after a cut cannot be built apart from those before it: build them all."""


class Resumed(ABC):
    """What an agent sends on resume of a session log that grows (see the module docstring).

    :attr:`steps`: how many lists of fixes a build gives in turn (its steps; ``passes``, where
    each ends), each in the order of the records."""

    steps = 1

    def __init__(self) -> None:
        self._fresh()

    def _fresh(self) -> None:
        """Keep nothing: the next build starts from the first record."""
        self.cut = 0
        self.wire: Sequence[Any] = []
        self.found = Pieces([], [], [], [])
        self.fixes: list[list[Fix]] = [[] for _ in range(self.steps)]
        """The fixes of the records before the cut, by step."""
        self._flat: Sequence[Fix] = []  # the same, one step after the other

    @abstractmethod
    def _build(self, transcript: Transcript) -> tuple[Built, list[int]]:
        """What the agent builds of the records from :attr:`cut` on (all of them at a cut of 0),
        with what is carried of those before it; and where each step's fixes end in
        ``built.fixes``. Raises :class:`Whole` where the records after the cut cannot be built
        apart."""

    @abstractmethod
    def _move(self, transcript: Transcript, built: Built, passes: list[int], found: Pieces, first: int) -> None:
        """After a build: move the cut nearer the end (:meth:`_keep`), carrying over it what the
        next build needs of the records before it."""

    def sent(self, transcript: Transcript, same: int) -> tuple[Sent, int]:
        """What the agent sends on resume of ``transcript``, whose first ``same`` messages are
        those of the last call's; and how many messages at the start of it are the last call's."""
        built: tuple[Built, list[int]] | None = None
        if self.cut and same > self.cut:
            try:
                built = self._build(transcript)
            except Whole:
                built = None
        if built is None:
            self._fresh()
            built = self._build(transcript)
        made, passes = built
        kept = len(self.found.messages)
        first = len(self.wire)
        found = pieces(made, first)
        whole = Pieces(
            grown_by(self.found.messages, found.messages),  # type: ignore[arg-type]
            grown_by(self.found.origin, found.origin),  # type: ignore[arg-type]
            grown_by(self.found.places, found.places),  # type: ignore[arg-type]
            grown_by(self.found.written, found.written),  # type: ignore[arg-type]
        )
        fixes = self._joined_fixes(made, passes)
        sent = _sent(
            transcript,
            Built([], made.wire_format, made.provider, made.model, fixes, {}, added=made.added),  # type: ignore[arg-type]
            whole,
            grown_by(self.wire, made.wire),  # type: ignore[arg-type]
        )
        self._move(transcript, made, passes, found, first)
        return sent, kept

    def _joined_fixes(self, built: Built, passes: list[int]) -> Sequence[Fix]:
        """The fixes kept and those of ``built``, step after step (shared with those kept where
        every new one comes in the last step that has any, or later)."""
        steps = [0, *passes]
        new = [built.fixes[steps[s] : steps[s + 1]] for s in range(self.steps)]
        last = max((s for s in range(self.steps) if self.fixes[s]), default=0)
        if not any(new[s] for s in range(last)):
            return grown_by(self._flat, [f for s in range(last, self.steps) for f in new[s]])
        return [fix for s in range(self.steps) for fix in (*self.fixes[s], *new[s])]

    def _keep(self, built: Built, passes: list[int], found: Pieces, first: int, at: int, cut: int) -> bool:
        """Keep what ``built`` (which sits at place ``first`` of the request) made of the records
        before record ``cut``: its wire values before ``at``, the messages read from them and
        their fixes; the cut moves there. ``False`` (nothing moves) where a step's fixes of the
        records before the cut do not all come before the others."""
        steps = [0, *passes]
        moved: list[list[Fix]] = []
        for step in range(self.steps):
            mine = built.fixes[steps[step] : steps[step + 1]]
            n = sum(1 for f in mine if f.index is not None and f.index < cut)
            if any(f.index is None or f.index >= cut for f in mine[:n]):
                return False  # (each step's fixes come in the order of the records)
            moved.append(mine[:n])
        place = first + at
        m = next((j for j, ks in enumerate(found.places) if ks and ks[0] >= place), len(found.messages))
        self.wire = grown_by(self.wire, built.wire[:at])
        self.found = Pieces(
            grown_by(self.found.messages, found.messages[:m]),  # type: ignore[arg-type]
            grown_by(self.found.origin, found.origin[:m]),  # type: ignore[arg-type]
            grown_by(self.found.places, found.places[:m]),  # type: ignore[arg-type]
            grown_by(self.found.written, found.written[:at]),  # type: ignore[arg-type]
        )
        last = max((s for s in range(self.steps) if self.fixes[s]), default=0)
        for step in range(self.steps):
            self.fixes[step] += moved[step]
        if any(moved[s] for s in range(last)):
            self._flat = [f for s in range(self.steps) for f in self.fixes[s]]
        else:
            self._flat = grown_by(self._flat, [f for s in range(last, self.steps) for f in moved[s]])
        self.cut = cut
        return True
