"""The banner under the status line: the API error the session recorded (what the provider said,
when, and where it points), and the history the file holds that the agent does not send (the
lines before a compaction, other branches). Hidden when there is nothing to say."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct
from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message as TextualMessage

from suture import show
from suture.model import Source
from suture.tui.bars import _BAR_CSS, _Bar, _wrapped
from suture.words import count

if TYPE_CHECKING:
    from suture.checks.explain import Explanation
    from suture.sent.recorded import RecordedRequest

__all__ = ["TO_PROBLEMS", "Banner", "Recorded", "request_words"]

TO_PROBLEMS = "x goes to its problems"
"""The key that goes to the problems of a history rejected too (:data:`suture.checks.explain.REJECTED_TOO`),
said after it by the banner and E."""

# A line's closing key hint, "(s shows it)": kept whole when the line is cut to fit.
_HINT = re.compile(r" \([a-zA-Z] [^()]*\)$")


class Recorded(Struct, frozen=True):
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


def _unfolded(recorded: Recorded, room: int) -> list[str]:
    """The recorded error's words, unfolded, wrapped to ``room`` columns."""
    return _wrapped(show.prose(recorded.text), room) if room > 0 else [show.prose(recorded.text)]


_MOST_VH = 60
"""The most of the window's height the banner takes, in hundredths (its ``max-height``): what it
says is fitted to it, never cut off below it."""


class Banner(_Bar):
    """``recorded`` and ``skipped`` lines; a click on the error line asks the app to go to it."""

    DEFAULT_CSS = (
        f"""
    Banner {{
        height: auto; max-height: {_MOST_VH}vh; background: $panel; padding: 0 1; display: none;
        text-wrap: nowrap; text-overflow: ellipsis;
    """
        + _BAR_CSS
        + "}"
    )

    class Clicked(TextualMessage):
        """The person clicked the recorded error."""

    def __init__(self, *, history_rejected: Callable[[], bool] = lambda: False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.history_rejected = history_rejected
        """Whether the provider shown rejects the history itself, asked at each render: an error
        that is not about the history does not make the history right."""
        self.recorded: Recorded | None = None
        self.skipped: list[str] = []
        self.folded = False
        """Whether the recorded error is folded to its first line (``b`` in the app)."""

    def show_state(self, recorded: Recorded | None, skipped: list[str]) -> None:
        self.recorded, self.skipped = recorded, skipped
        self.display = recorded is not None or bool(skipped)
        self.refresh(layout=True)

    def verdict_said(self) -> bool:
        """Whether what the banner says depends on the verdict on the history: it shows an error
        that is not about the history (then it says whether the history is rejected too)."""
        explanation = self.recorded.explanation if self.recorded is not None else None
        return explanation is not None and explanation.beside_history

    def fold(self) -> None:
        """Fold the recorded error to one line (its words, as many as the width holds), or
        unfold it whole again."""
        self.folded = not self.folded
        self.refresh(layout=True)

    ERROR_SHARE = 3
    """The error's words take at most a third of the window's height (at least
    :attr:`ERROR_LINES`); a longer error ends with ``…`` and E shows it whole. Folded, they take
    one line."""
    ERROR_LINES = 3
    SKIPPED_LINES = 3
    """The most lines a sentence about the history the agent does not send takes (a longer one
    ends with ``…`` and the key that shows it whole, s)."""

    def render(self) -> Text:
        """The error's own words first (what the provider said), then when and where it was
        recorded and where it points; then the history the agent does not send. Each is wrapped
        to the width, a word never split between two lines nor a part of a line (and folded by
        ``b``, one line each). Where they would take more lines than the banner has, the error's
        words are said in fewer, then each sentence of history, each ending ``…`` and the key
        that says it whole (E, s): nothing is cut off unsaid."""
        width = self._laid_width or self.size.width
        room = width - 2  # under the "⚠ " and the "⋯ "
        recorded = self.recorded
        said = _unfolded(recorded, room) if recorded is not None and not self.folded else []
        after = self._said_after(recorded, room) if recorded is not None and not self.folded else []
        budget = max(1, self.app.size.height * _MOST_VH // 100)
        hints = [_hint_of(show.line(line)) for line in self.skipped]
        skipped = [_hinted(show.line(line), room, 1 if self.folded else self.SKIPPED_LINES) for line in self.skipped]
        most = max(self.ERROR_LINES, self.app.size.height // self.ERROR_SHARE)
        if said:  # the error's words in the lines the rest leaves, one at least
            taken = len(after) + sum(len(lines) for lines in skipped)
            most = max(1, min(most, budget - taken))
            if len(said) > most:
                said = [*said[: most - 1], _ended(said[most - 1], room, " (E shows it whole)")]
        lines: list[Text] = []
        if recorded is not None and self.folded:
            lines.append(self._folded(recorded, room))
        for k, part in enumerate(said):
            line = Text(end="")
            line.append("⚠ " if not k else "  ", self.part("error"))
            line.append(part, self.part("error"))
            lines.append(line)
        lines.extend(after)
        self._recorded_lines = len(lines)
        over = len(lines) + sum(len(each) for each in skipped) - budget
        for each, hint in zip(skipped, hints, strict=True):
            if over > 0 and len(each) > 1:  # (fewer lines where the banner has too few)
                keep = max(1, len(each) - over)
                over -= len(each) - keep
                each = [*each[: keep - 1], _ended(" ".join(each[keep - 1 :]), room, hint)]
            for k, part in enumerate(each):
                line = Text(end="")
                line.append("⋯ " if not k else "  ", self.part("live"))
                line.append(part, self.part("muted"))
                lines.append(line)
        return Text("\n", end="").join(lines)

    def _said_after(self, recorded: Recorded, room: int) -> list[Text]:
        """What is said of the recorded error, under its words: where and when it was recorded,
        where it points, the request behind it."""
        lines = [Text("  ", end="") + line for line in _parts_in_lines(self._where(recorded), room, self.part("muted"))]
        if recorded.behind_said:
            behind = _wrapped(show.line(recorded.behind_said), room) if room > 0 else [recorded.behind_said]
            lines.extend(Text("  " + part, self.part("muted"), end="") for part in behind)
        return lines

    def _folded(self, recorded: Recorded, room: int) -> Text:
        """One line: the error's lines joined, as much of it as the width holds, and the key
        that unfolds it (where it was recorded and what it points at come back with it)."""
        tail = " (b unfolds)"
        joined = show.line(" ".join(recorded.text.split()))
        if cell_len(joined) + cell_len(tail) > room:
            joined = set_cell_size(joined, max(0, room - cell_len(tail) - 1)).rstrip() + "…"
        line = Text("⚠ ", self.part("error"), end="")
        line.append(joined, self.part("error"))
        line.append(tail, self.part("muted"))
        return line

    def _where(self, recorded: Recorded) -> list[Text]:
        """When and where the error was recorded, where it points (or why it points nowhere),
        that E explains it and that b folds it: each a part kept on one line where the width
        allows."""
        where = f"recorded at {show.line(str(recorded.source))}"
        if recorded.when:
            where += f", {show.line(recorded.when)}"
        if recorded.count > 1:
            where += f" (the last of {recorded.count} errors)"
        parts = [Text(where, self.part("muted"), end="")]
        explanation = recorded.explanation
        if explanation is None:
            parts.append(Text("reading it…", self.part("muted"), end=""))
            return parts
        if explanation.went_on:  # (so it is not what stopped the session)
            from suture.written import went_on_said

            parts.append(Text(went_on_said(explanation.went_on), end=""))
        if explanation.found:
            parts.append(Text(f"! goes to {show.line(recorded.target)}", self.part("live"), end=""))
            if explanation.agent_repairs:  # (beside a verdict of no problems: not what it gets now)
                parts.append(Text(f"{show.line(explanation.agent)} repairs this itself on resume", end=""))
        elif explanation.recognised:
            parts.append(
                Text("it names what this file does not hold" if explanation.absent else "not found here", end="")
            )
        elif explanation.elsewhere is not None:  # overloaded, a 5xx, a limit, the context window
            cause = explanation.elsewhere
            if cause.rejected_too(self.history_rejected()):
                parts.append(Text(f"{cause.said(True)}: {TO_PROBLEMS}", end=""))
            else:
                parts.append(Text(cause.said(went_on=explanation.went_on), self.part("muted"), end=""))
        else:
            parts.append(Text("not a rule suture knows", self.part("muted"), end=""))
        parts.append(Text("E explains", self.part("muted"), end=""))
        parts.append(Text("b folds", self.part("muted"), end=""))
        return parts

    _recorded_lines = 2
    """How many lines the recorded error takes (its words and what is said of it): a click on
    them goes to it."""

    def on_click(self, event: events.Click) -> None:
        if self.recorded is not None and 0 <= event.y < self._recorded_lines:
            self.post_message(self.Clicked())


def _parts_in_lines(parts: list[Text], room: int, between: Style) -> list[Text]:
    """``parts`` on lines of ``room`` cells, `` · `` (in ``between``'s style) between two on a
    line; a part wider than a line is wrapped between its words, on lines of its own."""
    lines: list[Text] = []
    joined = False  # whether the last line may take another part
    for part in parts:
        if joined and lines[-1].cell_len + 3 + part.cell_len <= room:
            lines[-1].append(" · ", between)
            lines[-1].append_text(part)
        elif room <= 0 or part.cell_len <= room:
            line = Text(end="")  # (a part's own style stays its own: not the line's)
            line.append_text(part)
            lines.append(line)
            joined = True
        else:
            style = part.style
            lines.extend(Text(piece, style, end="") for piece in _wrapped(part.plain, room))
            joined = False
    return lines


def _hint_of(line: str) -> str:
    """The key hint ``line`` ends with (`` (s shows it)``), else that s shows it whole."""
    hint = _HINT.search(line)
    return hint.group(0) if hint is not None else " (s shows it)"


def _hinted(line: str, room: int, most: int) -> list[str]:
    """``line`` wrapped to ``room`` columns in at most ``most`` lines, the key hint it ends with
    whole on its last (where it is longer: cut, marked ``…``, before that hint). Unwrapped before
    the banner has a size."""
    if room <= 0:
        return [line]
    hint = _HINT.search(line)
    tail = hint.group(0) if hint is not None else ""
    lines = _wrapped(line[: len(line) - len(tail)], room) or [""]
    if tail and cell_len(lines[-1]) + cell_len(tail) <= room:
        lines[-1] += tail
    elif tail:
        lines.append(tail.strip())
    if len(lines) > most:
        lines = [*lines[: most - 1], _ended(" ".join(lines[most - 1 :]), room, tail or _hint_of(line))]
    return lines


def _ended(line: str, room: int, tail: str) -> str:
    """``line`` cut to end with ``…`` and ``tail`` within ``room`` cells, between words where a
    word ends in the last third of the line (the key hint is kept whole where ``room`` holds it
    with a few words)."""
    if cell_len(tail) + 8 > room:
        tail = ""
    keep = max(0, room - cell_len(tail) - 1)
    cut = set_cell_size(line, keep)
    if len(line) > len(cut) and not line[len(cut)].isspace():  # (mid-word: cut where the word starts)
        space = cut.rfind(" ")
        if space >= keep * 2 // 3:
            cut = cut[:space]
    return cut.rstrip() + "…" + tail
