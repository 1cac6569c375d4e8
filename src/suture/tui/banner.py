"""The banner under the status line: the API error the session recorded (what the provider said,
when, and where it points), and the history the file holds that the agent does not send (the
lines before a compaction, other branches). Hidden when there is nothing to say."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events
from textual.message import Message as TextualMessage

from suture import show
from suture.model import Source
from suture.tui.bars import _BAR_CSS, _Bar
from suture.words import count

if TYPE_CHECKING:
    from suture.checks.explain import Explanation
    from suture.sent.recorded import RecordedRequest

__all__ = ["Banner", "Recorded", "request_words"]

# A line's closing key hint, "(s shows it)": kept whole when the line is cut to fit.
_HINT = re.compile(r" \([a-zA-Z] [^()]*\)$")


@dataclass(frozen=True, slots=True)
class Recorded:
    """An API error a session recorded: where, its text, when (``""`` where the record has no
    time), how many the session recorded in all, and what suture makes of it."""

    source: Source
    text: str
    when: str = ""
    count: int = 1
    explanation: Explanation | None = None
    target: str = ""
    """Where the error points in this file, as a person reads it (``Original #3``)."""
    behind: RecordedRequest | None = None
    """The request the session recorded right before the error, rebuilt from the file
    (:func:`suture.sent.recorded.request_behind`), where the file records its requests."""
    behind_said: str = ""
    """That request in a line (:func:`request_words`)."""


def request_words(request: RecordedRequest, error: str) -> str:
    """The request behind an error in a line, from what ``suture explain`` says of it: where it
    was recorded, its size, the message the error names, what suture's check of it finds. (It
    runs the check: call it in a worker.)"""
    from suture.sent.recorded import message_words

    n = len(request.messages)
    rebuilt = "all rebuilt from the file" if not request.unresolved else f"{len(request.unresolved)} not rebuilt"
    said = f"the request behind it (line {request.line}, {count(n, 'message')}, {rebuilt})"
    named = request.named(error)
    if named is not None:
        said += f": messages.{named[0]} is {message_words(named[1])}"
    found = request.problems()
    said += " · suture's check of it: " + (", ".join(sorted({v.rule for v in found})) if found else "no problem")
    return said


class Banner(_Bar):
    """``recorded`` and ``skipped`` lines; a click on the error line asks the app to go to it."""

    DEFAULT_CSS = (
        """
    Banner {
        height: auto; max-height: 5; background: $panel; padding: 0 1; display: none;
        text-wrap: nowrap; text-overflow: ellipsis;
    """
        + _BAR_CSS
        + "}"
    )

    class Clicked(TextualMessage):
        """The person clicked the recorded error."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.recorded: Recorded | None = None
        self.skipped: list[str] = []

    def show_state(self, recorded: Recorded | None, skipped: list[str]) -> None:
        self.recorded, self.skipped = recorded, skipped
        self.display = recorded is not None or bool(skipped)
        self.refresh(layout=True)

    def render(self) -> Text:
        """The error's own words first (what the provider said), then when and where it was
        recorded and where it points; then the history the agent does not send."""
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        recorded = self.recorded
        if recorded is not None:
            text.append("⚠ ", self.part("error"))
            text.append(show.prose(recorded.text), self.part("error"))
            text.append("\n")
            where = f"  recorded at {recorded.source}"
            if recorded.when:
                where += f", {recorded.when}"
            if recorded.count > 1:
                where += f" (the last of {recorded.count} errors)"
            text.append(show.line(where), self.part("muted"))
            explanation = recorded.explanation
            text.append(" · ", self.part("muted"))
            if explanation is None:
                text.append("reading it…", self.part("muted"))
            elif explanation.found:
                text.append(f"! goes to {show.line(recorded.target)}", self.part("live"))
                text.append(" · E explains", self.part("muted"))
            elif explanation.recognised:
                text.append("it names what this file does not hold" if explanation.absent else "not found here")
                text.append(" · E explains", self.part("muted"))
            else:
                text.append("not a rule suture knows · E explains", self.part("muted"))
            if recorded.behind_said:
                text.append("\n  ")
                text.append(show.line(recorded.behind_said), self.part("muted"))
        for line in self.skipped:
            if text.plain:
                text.append("\n")
            text.append("⋯ ", self.part("live"))
            text.append(_fit(show.line(line), self.size.width - 2), self.part("muted"))
        return text

    def on_click(self, event: events.Click) -> None:
        if self.recorded is not None and event.y in (0, 1):
            self.post_message(self.Clicked())


def _fit(line: str, room: int) -> str:
    """``line`` cut to ``room`` cells where it is wider, the key hint it ends with kept (the cut
    falls in the sentence before it, marked ``…``). Unchanged before the banner has a size."""
    if room <= 0 or cell_len(line) <= room:
        return line
    hint = _HINT.search(line)
    tail = hint.group(0) if hint is not None and cell_len(hint.group(0)) + 8 <= room else ""
    body = line[: len(line) - len(tail)]
    return set_cell_size(body, room - cell_len(tail) - 1).rstrip() + "…" + tail
