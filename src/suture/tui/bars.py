"""The status line at the top (file, format, changes by kind, live state) and the line under the
panes that says what the selected row is and why it changed."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from suture import show
from suture.tui.judged import Finding
from suture.tui.rows import KIND_BADGES, KIND_ORDER, KIND_SHORT, RowModel
from suture.tui.view import kind_class

__all__ = ["InfoBar", "StatusBar"]

_BAR_CLASSES = {
    "bar--title",
    "bar--muted",
    "bar--error",
    "bar--ok",
    "bar--live",
    *(f"bar--badge-{k}" for k in ("moved", "interrupt", "note", "renamed", "dropped")),
}
_BAR_CSS = """
    & > .bar--title { color: $text-accent; text-style: bold; }
    & > .bar--muted { color: $foreground-muted; }
    & > .bar--error { color: $text-error; text-style: bold; }
    & > .bar--ok { color: $text-success; }
    & > .bar--live { color: $text-warning; text-style: bold; }
    & > .bar--badge-moved { color: $text-primary; text-style: bold; }
    & > .bar--badge-interrupt { color: $text-warning; text-style: bold; }
    & > .bar--badge-note { color: $text-secondary; text-style: bold; }
    & > .bar--badge-renamed { color: $text-accent; text-style: bold; }
    & > .bar--badge-dropped { color: $text-error; text-style: bold; }
"""


class _Bar(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = _BAR_CLASSES

    def part(self, name: str) -> Style:
        return self.get_component_rich_style(f"bar--{name}", partial=True)


class StatusBar(_Bar):
    DEFAULT_CSS = (
        """
    StatusBar { height: auto; max-height: 3; background: $panel; padding: 0 1; """
        + _BAR_CSS
        + "}"
    )

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.name_shown = ""
        self.format_name = ""
        self.model: RowModel | None = None
        self.live = ""
        self.error = ""
        self.notes: list[str] = []
        self.checks: Text | None = None
        self.checks_short: Text | None = None
        self.reloaded: tuple[str, float] | None = None
        """What the last reload brought (``+3 messages``) and when (``time.monotonic()``)."""

    def update_state(self, **values: object) -> None:
        for key, value in values.items():
            setattr(self, key, value)
        self.refresh(layout=True)

    def render(self) -> Text:
        """The whole first line where it fits the width, else a short one (``13→13``, a badge
        and count per kind), so a narrow window keeps every figure."""
        width = self.content_region.width or self.size.width
        text = self._first_line(short=False)
        if text.cell_len > width:  # short figures, the verdict in a sentence
            text = self._first_line(short=True, short_checks=False)
        if text.cell_len > width:
            text = self._first_line(short=True)
        if text.cell_len > width:
            name = show.line(self.name_shown).rsplit("/", 1)[-1]
            text = self._first_line(short=True, name_room=max(9, len(name) - (text.cell_len - width)))
        if self.error:
            text.append("\n")
            text.append("⚠ ", self.part("error"))
            text.append(show.line(self.error), self.part("error"))
        for note in self.notes:
            text.append("\n")
            text.append(show.line(note), self.part("muted"))
        return text

    def _first_line(self, short: bool, name_room: int | None = None, short_checks: bool | None = None) -> Text:
        text = Text(no_wrap=False, end="")
        text.append("suture ", self.part("title"))
        name = show.line(self.name_shown)
        if short:  # the file's own name, cut in the middle where the window is narrow
            name = name.rsplit("/", 1)[-1]
            if name_room is not None and len(name) > name_room:
                name = name[: name_room // 2] + "…" + name[-(name_room - name_room // 2 - 1) :]
        text.append(name)
        if self.format_name:
            text.append(f"  {show.line(self.format_name)}", self.part("muted"))
        model = self.model
        if model is not None:
            n_in, n_out = model.repair.input_count, len(model.repair.messages)
            text.append(f"  {n_in:,}→{n_out:,}  " if short else f"  {n_in:,} in → {n_out:,} out  ", self.part("muted"))
            changes = model.repair.changes
            if not changes:
                text.append("no changes" if short else "no changes needed", self.part("ok"))
            else:
                text.append(f"{len(changes):,} change{'s' if len(changes) != 1 else ''}" + (" " if short else ": "))
                first = True
                counts = model.counts()
                for kind in KIND_ORDER:
                    count = counts[kind]
                    if not count:
                        continue
                    if not first:
                        text.append(" " if short else " · ", self.part("muted"))
                    first = False
                    if short:
                        shown = f"{KIND_BADGES[kind][0]}{count:,}"
                    else:
                        shown = f"{count:,} {KIND_SHORT[kind][0 if count == 1 else 1]}"
                    text.append(shown, self.part(f"badge-{kind_class(kind)}"))
        short_checks = short if short_checks is None else short_checks
        checks = self.checks_short if short_checks and self.checks_short is not None else self.checks
        if checks is not None:
            text.append("  ")
            text.append_text(checks)
        if self.live:
            text.append(f"  {self.live}", self.part("live"))
        if self.reloaded is not None:
            said, at = self.reloaded
            text.append(f"  ↻ {said}, {_ago(time.monotonic() - at)}", self.part("muted"))
        return text


def _ago(seconds: float) -> str:
    """``2 s ago``, ``4 min ago``, ``2 h ago``."""
    if seconds < 60:
        return f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    return f"{int(seconds // 3600)} h ago"


FINDING_PARTS = {"sent": "error", "agent": "ok", "before": "error", "after": "error"}
"""The colour of each kind of finding's label (a contract-view problem of a session log is muted:
it is not what the agent sends)."""


class InfoBar(_Bar):
    """Where the selected row's messages are in the file and what repair did to them.

    Always three lines high, so the panes above do not jump as the cursor moves, and a move
    never lays the screen out again: the row's place, then two lines of changes and problems
    (the details view has them all)."""

    DETAIL_LINES = 2
    DEFAULT_CSS = (
        """
    InfoBar { height: 3; background: $panel; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; """
        + _BAR_CSS
        + "}"
    )

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: RowModel | None = None
        self.row = 0
        self.findings: dict[int, list[Finding]] = {}
        """What the shown provider's verdict says about each row (``suture.tui.judged``)."""
        self.agent = ""
        self.search = ""
        self.waiting = "loading…"

    def show(self, model: RowModel | None, row: int) -> None:
        self.model, self.row = model, row
        self.refresh()

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        model = self.model
        if model is None or not len(model):
            if model is None:
                text.append(self.waiting, self.part("error" if self.waiting != "loading…" else "muted"))
            else:
                text.append("the file holds no messages", self.part("muted"))
            return text
        row = self.row
        left, right = model.left[row], model.right[row]
        text.append(f"row {row + 1:,}/{len(model):,}  ", self.part("muted"))
        original = model.original(row)
        if original is not None:
            where = str(original.source) if original.source is not None else "?"
            text.append(f"Original #{left} ")
            text.append(f"({show.line(where)})", self.part("muted"))
        else:
            text.append("Original —", self.part("muted"))
        text.append("  →  ")
        text.append(f"Repaired #{right}" if right is not None else "Repaired — (not sent)")
        if original is None and right is not None:
            text.append(" (made by repair)", self.part("muted"))
        changes = model.row_changes.get(row, [])
        problems = self.findings.get(row, [])
        if not changes:
            text.append("   unchanged", self.part("muted"))
        hidden = len(changes) + len(problems) - self.DETAIL_LINES
        if hidden > 0:
            text.append(f"   +{hidden} more: ⏎ details", self.part("muted"))
        if self.search:
            text.append(f"    {show.line(self.search)}", self.part("live"))
        room = self.DETAIL_LINES
        for change in changes[:room]:
            text.append("\n")
            text.append(f"{KIND_BADGES[change.kind]}  ", self.part(f"badge-{kind_class(change.kind)}"))
            text.append(show.line(change.summary))
        for finding in problems[: room - min(room, len(changes))]:
            label, said = finding.said(self.agent)
            text.append("\n")
            text.append(
                label,
                self.part(FINDING_PARTS[finding.kind] if finding.is_problem or finding.kind == "agent" else "muted"),
            )
            text.append(": ")
            text.append(said)
        return text
