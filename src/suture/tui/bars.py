"""The status line at the top (file, format, changes by kind, live state) and the line under the
panes that says what the selected row is and why it changed."""

from __future__ import annotations

import time
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from msgspec import Struct
from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from suture import show
from suture._deferred import deferred
from suture.kinds import KINDS, badge_classes, badge_rules
from suture.tui.rows import RowModel
from suture.validity import Breach

if TYPE_CHECKING:
    from suture.tui.judged import Finding, said_of
else:  # A provider's findings come once the first frame is drawn: so does what says them.
    said_of = deferred("suture.tui.judged", "said_of")

__all__ = ["InfoBar", "ListHeading", "StatusBar", "StatusState", "panes_gone"]

_BAR_CLASSES = {
    "bar--title",
    "bar--muted",
    "bar--error",
    "bar--ok",
    "bar--live",
    *badge_classes("bar--badge"),
}
_BAR_CSS = """
    & > .bar--title { color: $text-accent; text-style: bold; }
    & > .bar--muted { color: $foreground-muted; }
    & > .bar--error { color: $text-error; text-style: bold; }
    & > .bar--ok { color: $text-success; }
    & > .bar--live { color: $text-warning; text-style: bold; }
""" + badge_rules("bar--badge", "color: $text-{colour}; text-style: bold;")


def export_reordered(turns: int) -> str:
    """That the export writes ``turns`` turns in another order where the repair changes no
    message (:meth:`suture.tui.rows.RowModel.reordered`), as the header and the Changes list say it."""
    from suture.formats import reordered_said

    return f"the export: {reordered_said(turns)}"


def cut_middle(line: Text, width: int) -> Text:
    """``line`` in ``width`` cells: as it is where it fits, else its start and its end with "…"
    between (cut at a space where one is near). A provider's error ends with what it points at
    (``(param: messages.4.role)``, the ids left without a result), which a cut at the end loses."""
    if line.cell_len <= width or width < 24:
        return line
    line = line.copy()
    line.rstrip()
    if line.cell_len <= width:
        return line
    plain = line.plain
    keep_end = width // 3
    group = plain.rfind(" (") if plain.endswith(")") else -1
    if group > 0 and cell_len(plain[group:]) <= width // 2:  # (what it points at, whole)
        keep_end = max(keep_end, cell_len(plain[group:]))
    start = len(plain)
    taken = 0
    while start > 0 and taken + cell_len(plain[start - 1]) <= keep_end:
        start -= 1
        taken += cell_len(plain[start])
    space = plain.find(" ", start, start + 12)
    end = line[space if space >= 0 else start :]
    head = line.copy()
    head.truncate(width - end.cell_len - 1)
    kept = head.plain
    space = kept.rfind(" ", max(0, len(kept) - 12))
    if 0 < space < len(kept) - 1:
        head.right_crop(len(kept) - space - 1)
    return Text.assemble(head, "…", end, no_wrap=True, end="")


class _Bar(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = _BAR_CLASSES

    def part(self, name: str) -> Style:
        return self.get_component_rich_style(f"bar--{name}", partial=True)

    _laid_width = 0
    """The width the layout last gave the bar's text (its height follows from it)."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Kept for render: asked for its own region before the first frame is drawn, the bar
        # would make Textual lay out the whole screen a second time (a fifth of a first frame).
        self._laid_width = width
        return super().get_content_height(container, viewport, width)


class StatusState(Struct, frozen=True):
    """What the status line shows."""

    name_shown: str = ""
    """The file's name as given."""
    format_name: str = ""
    model: RowModel | None = None
    """The rows shown: their counts of messages and of changes by kind."""
    live: str = ""
    """What following the end says (``● following the end``), or nothing."""
    error: str = ""
    """Why the file cannot be read now, on a line of its own."""
    notes: tuple[str, ...] = ()
    """Lines under the first: lines skipped, a line still being written, loading progress."""
    checks: tuple[Text, ...] | None = None
    """The providers' verdict in words, longest first: whole, then the same sentence with clauses
    left out (``anthropic: rejected, 1 problem → 0 after repair``), for a narrower window."""
    reloaded: tuple[str, float] | None = None
    """What the last reload brought (``+3 messages``) and when (``time.monotonic()``)."""
    export: tuple[str, str] = ("", "")
    """What the export of a session log writes otherwise than the repair's changes, whole and
    short (:meth:`suture.writeback.Written.aside`), once worked out for the model shown; empty
    where it writes what they say, or is not known yet."""


class StatusBar(_Bar):
    DEFAULT_CSS = (
        """
    StatusBar {
        height: auto; max-height: 50vh; background: $panel; padding: 0 1;
        text-wrap: nowrap; text-overflow: ellipsis;
    """
        + _BAR_CSS
        + "}"
    )

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = StatusState()

    def update_state(
        self,
        *,
        name_shown: str | None = None,
        format_name: str | None = None,
        model: RowModel | None = None,
        live: str | None = None,
        error: str | None = None,
        notes: Sequence[str] | None = None,
        checks: tuple[Text, ...] | None = None,
        reloaded: tuple[str, float] | None = None,
        export: tuple[str, str] | None = None,
    ) -> None:
        """Show a new state: each value given replaces the one shown (``None``: as it is);
        ``checks`` is the verdict's forms, longest first (:attr:`StatusState.checks`)."""
        state = self.state
        self.state = StatusState(
            name_shown=state.name_shown if name_shown is None else name_shown,
            format_name=state.format_name if format_name is None else format_name,
            model=state.model if model is None else model,
            live=state.live if live is None else live,
            error=state.error if error is None else error,
            notes=state.notes if notes is None else tuple(notes),
            checks=state.checks if checks is None else checks,
            reloaded=state.reloaded if reloaded is None else reloaded,
            export=state.export if export is None else export,
        )
        self.refresh(layout=True)

    UNIT_LINES = 3
    """The most lines the file, its figures, the verdict, the live state and the last reload take;
    the error and the notes go under them."""

    def render(self) -> Text:
        """The whole first line where it fits the width, else a short one (``13→13``, a badge
        and count per kind), so a narrow window keeps every figure. Where even that does not fit,
        the verdict and the live state go on the next line, each whole: a unit is never split
        between two lines. The last reload is said last, after them where there is room on the
        last line, else on a line of its own, else not at all: it never takes room from the file's
        name or the verdict. The error (the file cannot be read now) is said whole, wrapped."""
        state = self.state
        width = self._laid_width or self.size.width
        lines = _laid_out(self._fitted_units(width), width)[: self.UNIT_LINES]
        if state.reloaded is not None:
            note = self._reload_note(state.reloaded)
            # Placed as if its time took the most room it takes ("59 min ago"), so that it stays
            # where it is as the seconds tick (the bar is not laid out again for them).
            ago = _ago(time.monotonic() - state.reloaded[1])
            room = note.cell_len - len(ago) + max(len(ago), _AGO_ROOM)
            if lines and lines[-1].cell_len + 2 + room <= width:
                lines[-1].append("  ")
                lines[-1].append_text(note)
            elif len(lines) < self.UNIT_LINES and room <= width:
                lines.append(note)
        text = Text("\n", end="").join(lines)
        if state.error:
            for k, part in enumerate(_wrapped(show.line(state.error), width - 2)):
                text.append("\n")
                text.append("⚠ " if not k else "  ", self.part("error"))
                text.append(part, self.part("error"))
        for said in state.notes:
            for k, part in enumerate(_wrapped(show.line(said), width - 2)):
                text.append("\n")
                text.append(part if not k else "  " + part, self.part("muted"))
        return text

    def _fitted_units(self, width: int) -> list[Text]:
        """The first line's units (the last reload aside) in the longest words that fit
        ``width``, else in the fewest lines. What the export writes otherwise than the repair's
        changes is said at every width: the file's name is cut and its format left out first."""
        state = self.state
        units = self._units(short=False, reload=False)
        # Short figures, the verdict in the longest of its forms that fits: the same sentence with
        # clauses left out, never other words (suture.tui.judged.cut).
        for form in range(len(state.checks) if state.checks is not None else 1):
            if _joined_width(units) > width:
                units = self._units(short=True, form=form, reload=False)
        if _joined_width(units) > width and (any(state.export) or self._reordered()):
            # The export's truth before the file's format, and the file's name cut to make room.
            for format_shown in (True, False):
                if _joined_width(units) > width:
                    units = self._name_fitted(width, format_shown)
        if _joined_width(units) > width:
            name = show.line(state.name_shown).rsplit("/", 1)[-1]
            least = self._units(short=True, name_room=9, reload=False)
            # The head's aside on a line of its own where the head is too wide with it.
            apart = least[0].cell_len > width
            if apart:
                least = self._units(short=True, name_room=9, aside_apart=True, reload=False)
            # On one line if the file's name cut to its least fits it; else the head alone on
            # the first line, with what room is left for the name.
            one_line = _joined_width(least) <= width
            over = _joined_width(least if one_line else least[:1]) - min(9, len(name))
            # On a line of its own, the verdict is said in the longest of its forms that fits (the
            # shortest, cut by the window where none does).
            forms = [] if one_line or state.checks is None else list(state.checks)
            form = next((k for k, said in enumerate(forms) if said.cell_len <= width), -1)
            units = self._units(short=True, name_room=max(9, width - over), form=form, aside_apart=apart, reload=False)
        return units

    def _reordered(self) -> int:
        """How many turns the export writes in another order where the repair changes nothing."""
        model = self.state.model
        if model is None or (model.changes if model.partial else model.repair.changes):
            return 0
        return model.reordered()

    def _name_fitted(self, width: int, format_shown: bool) -> list[Text]:
        """The short units (the file's format said or not) with the file's name cut to fit
        ``width`` where that leaves it at least its least (9 cells), else whole."""
        units = self._units(short=True, format_shown=format_shown, reload=False)
        name = show.line(self.state.name_shown).rsplit("/", 1)[-1]
        room = width - (_joined_width(units) - len(name))
        if room < min(9, len(name)):
            return units
        return self._units(short=True, name_room=room, format_shown=format_shown, reload=False)

    def _reload_note(self, reloaded: tuple[str, float]) -> Text:
        """``↻ +3 messages, 6 s ago``: what the last reload brought and when."""
        said, at = reloaded
        return Text(f"↻ {show.line(said)}, {_ago(time.monotonic() - at)}", self.part("muted"), end="")

    def _first_line(self, short: bool, name_room: int | None = None, form: int | None = None) -> Text:
        """The first line whole, as it is where it fits the width."""
        text = Text(no_wrap=False, end="")
        for k, unit in enumerate(self._units(short, name_room, form)):
            if k:
                text.append("  ")
            text.append_text(unit)
        return text

    def _units(
        self,
        short: bool,
        name_room: int | None = None,
        form: int | None = None,
        aside: bool = True,
        reload: bool = True,
        format_shown: bool = True,
        aside_apart: bool = False,
    ) -> list[Text]:
        """The first line's parts, two spaces apart, none of which is split between lines (``aside``:
        with what the export writes otherwise where the repair changes nothing): the
        file and its figures (its format where ``format_shown``; the export's aside a part of its
        own where ``aside_apart``), the verdict (its ``form``: by default its longest, its shortest
        where ``short``), the live state, the last reload (``reload``)."""
        state = self.state
        text = Text(no_wrap=False, end="")
        text.append("suture ", self.part("title"))
        # The file's own name, in every form of the line (a longer verdict does not turn it into
        # another name), cut in the middle where the window is narrow.
        name = show.line(state.name_shown).rsplit("/", 1)[-1]
        if short and name_room is not None and len(name) > name_room:
            name = name[: name_room // 2] + "…" + name[-(name_room - name_room // 2 - 1) :]
        text.append(name)
        if state.format_name and format_shown:
            text.append(f"  {show.line(state.format_name)}", self.part("muted"))
        model = state.model
        said = ""
        if model is not None:
            # While a large file loads: what the panes and lists show so far, marked "…".
            n_in, n_out = (
                (model.inputs, model.outputs)
                if model.partial
                else (model.repair.input_count, len(model.repair.messages))
            )
            more = "…" if model.partial else ""
            text.append(
                f"  {n_in:,}{more}→{n_out:,}{more}  " if short else f"  {n_in:,}{more} in → {n_out:,}{more} out  ",
                self.part("muted"),
            )
            said = self._changes_said(text, model, short, more, aside)
        text.rstrip()
        units = [text]
        if said:
            if aside_apart:
                units.append(Text(f"({said})", self.part("muted"), end=""))
            else:
                text.append(f" ({said})", self.part("muted"))
        if state.checks:
            units.append(state.checks[(-1 if short else 0) if form is None else form])
        if state.live:
            units.append(Text(show.line(state.live), self.part("live"), end=""))
        if reload and state.reloaded is not None:
            units.append(self._reload_note(state.reloaded))
        return units

    def _changes_said(self, text: Text, model: RowModel, short: bool, more: str, aside: bool) -> str:
        """The repair's changes counted by kind onto ``text`` (``more``: ``…`` while the file is
        read); what the export writes otherwise (where ``aside``), or nothing."""
        changes = model.changes if model.partial else model.repair.changes
        # What the export writes otherwise than the repair's changes (a session log's agent
        # reads ids its own way, or sends some of what the repair changes in a way providers
        # accept, so the file leaves it as written).
        export = (self.state.export[1] if short else self.state.export[0]) if aside else ""
        if not changes:
            # (While the file is read, not a verdict yet: "so far".)
            words = "no changes so far" if model.partial and not short else "no changes needed"
            text.append("no changes" + more if short else words, self.part("ok"))
            # The repair changes nothing, but the export still writes a turn in another order.
            reordered = model.reordered() if aside else 0
            if reordered:
                return (
                    f"export: {reordered:,} {'turn' if reordered == 1 else 'turns'} reordered"
                    if short
                    else export_reordered(reordered)
                )
        else:
            counts = model.counts()
            kinds = [kind for kind in KINDS if counts[kind]]
            # Short, each kind is its mark and count (6 changes ↕2 +1 ✎1); where all are of one
            # kind, its count in words (1 interrupted), as "1 change +1" reads as one and one more.
            single = short and len(kinds) == 1
            if not single:
                text.append(
                    f"{len(changes):,}{more} {'change' if len(changes) == 1 else 'changes'}" + (" " if short else ": ")
                )
            for k, kind in enumerate(kinds):
                shown, count = KINDS[kind], counts[kind]
                if k:
                    text.append(" " if short else " · ", self.part("muted"))
                if short and not single:
                    figure = f"{shown.symbol}{count:,}"
                else:
                    figure = f"{count:,}{more if single else ''} {shown.short_words(count)}"
                text.append(figure, self.part(f"badge-{shown.name}"))
        return show.line(export) if export else ""


def _laid_out(units: Sequence[Text], width: int) -> list[Text]:
    """``units`` two spaces apart on lines of ``width`` cells, each unit whole on one line."""
    lines: list[Text] = []
    for unit in units:
        if lines and lines[-1].cell_len + 2 + unit.cell_len <= width:
            lines[-1].append("  ")
            lines[-1].append_text(unit)
        else:
            line = Text(end="")  # (a unit's own style stays its own: not the line's)
            line.append_text(unit)
            lines.append(line)
    return lines


def _wrapped(said: str, width: int) -> list[str]:
    """``said`` in lines of at most ``width`` cells, broken between words (a word wider than a
    line is folded); none for blank text."""
    if not said.strip():
        return []
    if width <= 0:
        return [said]
    return [line.plain.rstrip() for line in Text(said).wrap(_CONSOLE, width, overflow="fold")]


_CONSOLE = Console(width=1000, color_system=None, legacy_windows=False, force_terminal=False)
"""Only for its wrapping of text (which needs a console): nothing is printed on it."""

_AGO_ROOM = len("59 min ago")
"""The most cells :func:`_ago` takes below 100 hours."""


def _joined_width(units: Sequence[Text]) -> int:
    """How many columns ``units`` take on one line, two spaces apart."""
    return sum(unit.cell_len for unit in units) + 2 * max(0, len(units) - 1)


def panes_gone(app: App[Any]) -> bool:
    """Whether ``app`` is closing or its main screen's status bar (with the panes around it) is
    gone: what a worker hands over then (a read, the checks, a search) is dropped. While the app
    closes, its widgets are removed one by one and messages still arrive."""
    return not app.is_running or not app.screen_stack or not app.screen_stack[0].query("#status")


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
    """Where the selected row's messages are in the file and what repair did to them; while a
    list beside the panes is looked at, its selected line whole (:meth:`show_listed`).

    Three lines high, so the panes above do not jump as the cursor moves, and a move never lays
    the screen out again: the row's place, then two lines of changes and problems (the details
    view has them all). A list's line longer than three lines takes more, up to
    :attr:`LISTED_LINES`."""

    DETAIL_LINES = 2
    HEIGHT = 3
    LISTED_LINES = 8
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
        self.findings: Mapping[int, Sequence[Finding | Breach]] = {}
        """What the verdict shown says about each row: the provider's (``suture.tui.judged``), or
        for a file written for no single provider, the Valid property's breaches."""
        self.agent = ""
        self.search = ""
        self.waiting = "loading…"
        self.listed: Text | None = None
        """The selected line of the list looked at, said whole in place of the row."""
        self.written_ids: tuple[weakref.ref[RowModel], Mapping[str, str]] | None = None
        """A session log's model (weakly) and the calls its session written back names otherwise
        than the repair (``suture.writeback.written_ids``), once worked out: a change and a row
        say the id the export writes."""
        self.document_lines: tuple[weakref.ref[RowModel], Sequence[tuple[int, int] | None]] | None = None
        """A JSON document's model (weakly: a reload frees it) and the first and last line of each
        of its messages' records, where they were found: the info line names the line beside the
        pointer."""

    def show(self, model: RowModel | None, row: int) -> None:
        self.model, self.row = model, row
        self.refresh()

    def show_listed(self, line: Text | None) -> None:
        """Say ``line`` (a list's selected line) whole, wrapped, in place of the row; ``None``:
        the row again."""
        if line is None and self.listed is None:
            return
        if line is not None and line.plain.startswith(" "):  # (the list's margin)
            line = line[1:]
        self.listed = line
        self._fit_listed()
        self.refresh()

    def on_resize(self) -> None:
        self._fit_listed()

    def _listed_lines(self, width: int) -> list[Text]:
        assert self.listed is not None
        return list(self.listed.wrap(self.app.console, max(1, width), no_wrap=False, overflow="fold"))

    def _fit_listed(self) -> None:
        """Three lines high, or as many as the list's line takes (up to :attr:`LISTED_LINES`)."""
        width = self.size.width or self._laid_width
        lines = len(self._listed_lines(width)) if self.listed is not None and width else 0
        height = max(self.HEIGHT, min(lines, self.LISTED_LINES))
        if self.styles.height is None or self.styles.height.value != height:
            self.styles.height = height

    def render(self) -> Text:
        if self.listed is not None:
            return self._render_listed()
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
            lines = self.document_lines
            if left is not None and lines is not None and lines[0]() is model and left < len(lines[1]):
                span = lines[1][left]
                if span is not None:
                    where += f", line {span[0]}" if span[0] == span[1] else f", lines {span[0]}–{span[1]}"
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
        written = self.written_ids
        ids = written[1] if written is not None and written[0]() is model else None
        if not changes:
            text.append("   unchanged", self.part("muted"))
            repaired = model.repaired(row)
            if ids and repaired is not None:  # (not by the repair: by the export, for its agent)
                from suture.writeback import ids_written_in

                for said in ids_written_in(repaired, model.transcript, ids):
                    text.append(f"; {said}", self.part("muted"))
        hidden = len(changes) + len(problems) - self.DETAIL_LINES
        if hidden > 0:
            text.append(f"   +{hidden} more: ⏎ details", self.part("muted"))
        if self.search:
            text.append(f"    {show.line(self.search)}", self.part("live"))
        room = self.DETAIL_LINES
        for change in changes[:room]:
            text.append("\n")
            shown = KINDS[change.kind]
            text.append(f"{shown.badge}  ", self.part(f"badge-{shown.name}"))
            if ids:  # the id the session written back gives the call, as the details say it
                from suture.writeback import as_written

                change = as_written(change, model.transcript, ids)
            text.append(show.line(model.said_of(change)))
        for finding in problems[: room - min(room, len(changes))]:
            text.append("\n")
            label, said = said_of(finding, self.agent)
            if isinstance(finding, Breach):
                part = "error"
            else:
                part = FINDING_PARTS[finding.kind] if finding.is_problem or finding.kind == "agent" else "muted"
            said_whole = Text.assemble((label, self.part(part)), ": ", said)
            text.append_text(cut_middle(said_whole, self._laid_width or self.size.width))
        return text

    def _render_listed(self) -> Text:
        """The list's selected line, wrapped over the bar's lines (the last cut with an ellipsis
        where even :attr:`LISTED_LINES` are too few)."""
        width = self._laid_width or self.size.width
        lines = self._listed_lines(width)
        room = max(self.HEIGHT, self.size.height)
        if len(lines) > room:
            lines = lines[:room]
            last = lines[-1]
            last.truncate(max(0, width - 1))
            last.rstrip()
            last.append("…")
        text = Text("\n", no_wrap=True, end="").join(lines)
        return text


class ListHeading(Static):
    """A list's heading, said in the longest words that fit its width on the two lines it has
    (``app.tcss``): as given; its parts (``head · more``) a line each; then in shorter words
    (``Sent to P: accepted · S rejects it`` as ``Sent: P accepts,`` and ``S rejects``), so the
    fact after the ``·`` (a stricter server rejects what is sent) is never the part cut off."""

    LINES: ClassVar[int] = 2

    def __init__(self, content: str = "", **kwargs: Any) -> None:
        super().__init__(content, markup=False, **kwargs)
        self.said = content
        """The heading whole, as last given."""

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        self.said = str(content)
        super().update(self.fitted(self.content_size.width), layout=layout)

    def on_resize(self) -> None:
        super().update(self.fitted(self.content_size.width))

    def fitted(self, width: int) -> str:
        """The first of :func:`heading_forms` that takes no more than :attr:`LINES` at ``width``
        (the last where none does; the heading as given before its width is known)."""
        forms = heading_forms(self.said)
        if width <= 0:
            return forms[0]
        return next((form for form in forms if _lines_at(form, width) <= self.LINES), forms[-1])


def heading_forms(said: str) -> list[str]:
    """A heading in the words :class:`ListHeading` tries, longest first."""
    import re

    forms = [said]
    head, dot, more = said.partition(" · ")
    if dot:
        forms.append(f"{head}\n{more}")
        short = re.sub(r"^Sent to (\S+): accepted$", r"Sent: \1 accepts,", head)
        forms.append(f"{short}\n{more.removesuffix(' it')}")
    return forms


def _lines_at(text: str, width: int) -> int:
    """How many lines ``text`` takes wrapped at ``width`` columns."""
    return sum(len(Text(line).wrap(_MEASURE, width)) or 1 for line in text.split("\n"))


_MEASURE = Console(width=1000, color_system=None, legacy_windows=False)
