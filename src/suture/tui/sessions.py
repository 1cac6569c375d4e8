"""The sessions browser: every session the agents keep (and any folders given), newest first, with
the verdict on what each would send on resume; Enter opens one side by side, Esc comes back.

:class:`SessionsScreen` shows each file as soon as it is listed (agent, when, size: what the
folder says), then fills in each verdict as a background worker scans (``suture.scan_pool.scan_all``:
cached rows at once, the rest on every core, newest files first), keeps up as sessions appear,
grow or go (watchfiles on the folders; an agent's folder that is not there yet is looked for
every second, as the agent makes it on its first run), and filters by text and by verdict.
:class:`SessionList` draws only the rows on screen (``render_line``), so thousands of rows
filter, sort and update without rebuilding widgets. :class:`SessionsApp` is the app with the
browser in front of the side-by-side view.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from suture import show
from suture.scan import LISTED, OK, OTHER, REJECTED, UNREADABLE, Row, listed, self_repairs, stricter_said
from suture.scan_pool import Progress
from suture.sessions import Found, Listing, Place, is_url
from suture.tui.app import SutureApp, hide_toasts
from suture.tui.bars import _wrapped
from suture.tui.judged import SHARED
from suture.tui.keys import KeyBar, rebound
from suture.words import count

__all__ = ["SessionList", "SessionsApp", "SessionsScreen", "matches"]

VERDICT_FILTERS: tuple[str, ...] = ("", REJECTED, UNREADABLE, OK, OTHER)
"""What ``v`` cycles through: every row, then each verdict alone."""


# -- what a row shows -----------------------------------------------------------------------------


def _local_time(iso: str) -> str:
    """``2026-02-10 22:16`` in this machine's time zone, from the row's ISO 8601 UTC."""
    if not iso:
        return ""
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return ""


def _home_short(path: str) -> str:
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


def _note(row: Row) -> str:
    """What to know about the row beyond its columns: why it is unreadable or rejected, what the
    agent repairs itself, the last API error it recorded."""
    if row.verdict in (UNREADABLE, OTHER):
        return row.error
    if row.verdict == LISTED:
        return "scanning…"
    bits = []
    if row.verdict == REJECTED:
        who = row.provider or SHARED
        left = "repair fixes it" if not row.after_repair else f"{row.after_repair} left after repair"
        bits.append(f"{who} {row.problem}; {left}")
    if row.stricter and row.verdict == OK:
        bits.append(stricter_said(row))
    if row.fixes and row.verdict == OK:
        bits.append(self_repairs(row))
    if row.last_error:
        bits.append(f"last API error: {row.last_error}")
    return "; ".join(bits)


def matches(row: Row, words: Sequence[str], verdict: str = "") -> bool:
    """Whether a row passes the filter: its verdict (when one is asked for), and each word (case
    ignored) somewhere in what its row shows (its verdict, agent, project, file, and what the
    last column says of it) or in its format, session id, problem or errors."""
    if verdict and row.verdict != verdict:
        return False
    if not words:
        return True
    shown = row.verdict if row.verdict != LISTED else ""
    fields = (shown, row.agent, row.format, row.project, row.path, row.session, row.problem, row.error)
    hay = "\n".join((*fields, row.last_error)).lower()
    missing = [w for w in words if w not in hay]
    if not missing:
        return True
    note = _note(row).lower()  # (made only for a row the other fields do not pass)
    return all(w in note for w in missing)


def _order(row: Row) -> tuple[bool, str, str]:
    """Newest first (the list is sorted in reverse), files that are no transcript after every
    session."""
    return row.verdict != OTHER, row.when, row.path


# -- the list -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Columns:
    """Column widths for a list ``width`` cells wide. The fixed columns first; of what is left,
    the project takes a quarter (up to a limit, and only where that is enough to read), the file
    name half of the rest (up to a limit), and why what remains; below :attr:`NARROW` the file
    name takes what it can (up to its limit) and why only what is left after it."""

    width: int
    paths: bool = False
    """Whether the file column shows paths (rows sharing a file name): it takes up to its limit
    then, and why what is left (at least :attr:`WHY_LEAST`), as what tells the files apart."""
    VERDICT: ClassVar[int] = 10
    AGENT: ClassVar[int] = 11
    WHEN: ClassVar[int] = 16
    MSGS: ClassVar[int] = 6
    CHANGES: ClassVar[int] = 7

    WIDE: ClassVar[int] = 116
    """From this many columns the time of day shows beside the date (in a 120-column terminal a
    row of the list has 117: its scrollbar takes the rest)."""

    @property
    def when(self) -> int:
        """``2026-02-10 22:16``, or the day alone (``2026-02-10``) when narrow: sessions of
        several years stay in an order a person can read."""
        return self.WHEN if self.width >= self.WIDE else self.WHEN - 5

    def when_shown(self, iso: str) -> str:
        shown = _local_time(iso)
        return shown if self.width >= self.WIDE else shown[:10]

    @property
    def fixed(self) -> list[int]:
        return [self.VERDICT, self.AGENT, self.when, self.MSGS, self.CHANGES]

    def _room(self, shown: int) -> int:
        """What the fixed columns leave with ``shown`` columns in all, two spaces apart."""
        return max(0, self.width - 1 - sum(self.fixed) - len(self.GAP) * (shown - 1))

    NARROW: ClassVar[int] = 94
    """Below this many columns (a row has 97 in a 100-column terminal) the project is left to the
    line under the list; the file name keeps its column (cut in the middle), as what tells one
    session from another, and why a session would be rejected has what room is left, if enough
    (else it too is left to the lines under the list)."""
    PROJECT_LEAST: ClassVar[int] = 12
    """Below this many columns for it, the project is left to the line under the list and its
    room goes to the file name and why."""
    PROJECT_MOST: ClassVar[int] = 36
    FILE_MOST: ClassVar[int] = 28

    @property
    def project(self) -> int:
        if self.width < self.NARROW:
            return 0
        share = min(self.PROJECT_MOST, self._room(8) // 4)
        return share if share >= self.PROJECT_LEAST else 0

    FILE_LEAST: ClassVar[int] = 12
    """Below this many columns for it, the file name too is left to the line under the list."""

    @property
    def file(self) -> int:
        if self.width < self.NARROW:
            room = min(self.FILE_MOST, self._room(6))
            return room if room >= self.FILE_LEAST else 0
        rest = self._rest
        return min(self.FILE_MOST, max(rest // 2, rest - self.WHY_LEAST) if self.paths else rest // 2)

    @property
    def _rest(self) -> int:
        """The room for the project, the file name and why, and for the latter two where the
        project is left out."""
        if self.width < self.NARROW:
            return self._room(7)
        project = self.project
        return self._room(8) - project if project else self._room(7)

    WHY_LEAST: ClassVar[int] = 12
    """Below this many columns, why is left to the lines under the list (a few letters of it
    would say nothing)."""

    @property
    def why(self) -> int:
        rest = max(0, self._rest - self.file)
        return rest if rest >= self.WHY_LEAST else 0

    @property
    def widths(self) -> list[int]:
        return [*self.fixed, self.project, self.file, self.why]

    GAP: ClassVar[str] = "  "

    def fit(self, values: Sequence[tuple[str, bool]]) -> list[str]:
        """Each value cut (with an ellipsis) or padded to its column, right-aligned where asked;
        columns of no width are left out."""
        out = []
        for (text, right), w in zip(values, self.widths, strict=True):
            if w <= 0:
                continue
            if cell_len(text) > w:
                text = set_cell_size(text, w - 1) + "…"
            out.append(text.rjust(w) if right else set_cell_size(text, w))
        return out

    def line(self, values: Sequence[tuple[str, bool]]) -> str:
        """The columns as one line: a space, then the columns two spaces apart."""
        return " " + self.GAP.join(self.fit(values))


def _as_listed(folders: list[str], given: list[str]) -> Callable[[str], str]:
    """How a path the folder watcher reports is spelled as the scan listed it, so that its row
    is the same row: watchfiles gives a path under a folder made absolute (``/home/me/ss/a.jsonl``
    for the folder given as ``ss``), the scan the path under the folder as given (``ss/a.jsonl``),
    and a file given by itself as it was given. ``folders`` are the folders watched, as given, in
    the order the scan walked them (the first to reach a file names it, as in ``find``)."""
    files = {os.path.realpath(p): p for p in given if os.path.isfile(p)}
    under = [(os.path.join(os.path.abspath(folder), ""), folder) for folder in folders]

    def listed_as(path: str) -> str:
        spelled = files.get(os.path.realpath(path))
        if spelled is not None:
            return spelled
        for absolute, folder in under:
            if path.startswith(absolute):
                return os.path.join(folder, path[len(absolute) :])
        return path

    return listed_as


def _base(path: str) -> str:
    """A file's name (the end of a URL)."""
    return os.path.basename(path.rstrip("/")) or path


def _alike(paths: list[list[str]]) -> tuple[int, int]:
    """How many folders every one of ``paths`` (each a file's folders, outermost first) begins
    with alike, and how many it ends with alike after those: left out of what the file column
    shows of a file whose name others share, so that what tells them apart shows in a narrow
    column (``codex-0.169.0/…/resumed.jsonl`` for ``recorded/codex-0.169.0/orphan-result/…``)."""
    shortest = min(len(p) for p in paths)
    lead = 0
    while lead < shortest and all(p[lead] == paths[0][lead] for p in paths):
        lead += 1
    end = 0
    while end < shortest - lead and all(p[-1 - end] == paths[0][-1 - end] for p in paths):
        end += 1
    return lead, end


def _cut_middle(text: str, width: int) -> str:
    """A long file name with its middle cut, which keeps what tells files apart, their start
    and their end: ``3f2a9c4e-1b7d…f8a9b0c.jsonl``."""
    if cell_len(text) <= width or width <= 2:
        return text
    head = set_cell_size(text, (width - 1) // 2).rstrip()
    tail = ""
    for char in reversed(text):
        if cell_len(head) + 1 + cell_len(char + tail) > width:
            break
        tail = char + tail
    return head + "…" + tail


def _path_lines(path: str, session: str, width: int) -> list[str]:
    """Where a file is and its session id, on one line where both fit, else on a line each; a
    path longer than the line is cut in its middle (:func:`_cut_middle`), never split."""
    said = f"session {show.line(session)}" if session else ""
    both = f"{path}  ·  {said}" if said else path
    if width <= 0 or cell_len(both) <= width:
        return [both]
    return [_cut_middle(path, width), *([_cut_middle(said, width)] if said else [])]


def _words_cut(line: str, width: int) -> str:
    """``line`` with each word wider than ``width`` cut to end in an ellipsis: what wraps it then
    breaks it between words, never inside one."""
    if width <= 1 or cell_len(line) <= width:
        return line
    return " ".join(w if cell_len(w) <= width else set_cell_size(w, width - 1) + "…" for w in line.split(" "))


def _cut_left(text: str, width: int) -> str:
    """The end of a long path, which says more than its start: ``…/projects/spotter``."""
    if cell_len(text) <= width or width <= 1:
        return text
    return "…" + text[-(width - 1) :]


class SessionList(ScrollView, can_focus=True):
    """The rows that pass the filter, newest first; a cursor; Enter asks to open the row."""

    ALLOW_SELECT = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="sessions.up"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="sessions.down"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="sessions.page_up"),
        Binding("pagedown,ctrl+f,space", "page(1)", "Page down", show=False, id="sessions.page_down"),
        Binding("home,g", "first", "First", show=False, id="sessions.first"),
        Binding("end,G", "last", "Last", show=False, id="sessions.last"),
        Binding("enter", "open", "Open", id="sessions.open", tooltip="Open the session side by side"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "sessions--cursor",
        "sessions--rejected",
        "sessions--ok",
        "sessions--unreadable",
        "sessions--other",
        "sessions--muted",
        "sessions--agent",
    }

    DEFAULT_CSS = """
    SessionList {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
        & > .sessions--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
        &:blur > .sessions--cursor { background: $primary-muted; color: $foreground; }
        & > .sessions--rejected { color: $text-error; text-style: bold; }
        & > .sessions--ok { color: $text-success; }
        & > .sessions--unreadable { color: $text-warning; }
        & > .sessions--other { color: $foreground-muted; }
        & > .sessions--muted { color: $foreground-muted; }
        & > .sessions--agent { color: $text-primary; }
    }
    """

    cursor: reactive[int] = reactive(0, always_update=True, repaint=False, init=False)

    class Chosen(Message):
        """The person asked to open a row's file."""

        def __init__(self, row: Row) -> None:
            self.row = row
            super().__init__()

    def __init__(
        self,
        *,
        on_moved: Callable[[Row | None], None] | None = None,
        folders: Sequence[str] = (),
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.on_moved = on_moved
        self.folders = tuple(os.path.join(os.path.abspath(folder), "") for folder in folders)
        """The folders named to the browser, each ending in a separator: a file found in one
        whose name another row shares is shown by its path in it
        (``claude-code/compaction/session.jsonl``), which tells the files of a tree apart."""
        self._shared: dict[str, tuple[int, int]] = {}
        """The file names more than one row shown has (where :attr:`folders` are named), each with
        how many folders all those rows' paths in the folder named begin and end with alike
        (:func:`_alike`): what tells them apart is between."""
        self._names: dict[str, str] = {}
        """What the file column shows of each path, as worked out for the rows shown."""
        self.rows: list[Row] = []
        self.moved = False
        """Whether the person moved the cursor: until then (or until :attr:`settled`) it stays on
        the newest row."""
        self.settled = False
        """Whether the first full scan is shown: from then on, the cursor stays on its file, as
        files appear above it."""
        self._cache: LRUCache[tuple[str, int, bool, bool], Strip] = LRUCache(512)
        self._styles: dict[tuple[Style, str], Style] = {}
        self._empty_lines: tuple[str, int, list[str]] | None = None
        """What the empty list says, for a width, wrapped to it."""
        self.empty = ""
        """What the list says, in its middle, when no row is shown (it stays on screen, focused,
        so the keys still work)."""

    # -- data ----------------------------------------------------------------------------------

    def set_rows(self, rows: list[Row], empty: str = "") -> None:
        """Show ``rows`` (already filtered and sorted), or ``empty`` when there are none; the
        cursor stays on the same file whatever rows come or go around it (once the person moved
        it or the list is :attr:`settled`), and goes to its neighbour when that file goes."""
        kept = self._kept_index(rows) if self.moved or self.settled else 0
        self.rows = rows
        self.empty = empty
        self._cache.clear()
        self._names.clear()
        if self.folders:
            by_name: dict[str, list[str]] = {}
            for row in rows:
                by_name.setdefault(_base(row.path), []).append(row.path)
            # (Only the rows that share a name are looked at further: most names are a row's own.)
            self._shared = {
                name: _alike([self._in_folder(path).split("/")[:-1] for path in paths])
                for name, paths in by_name.items()
                if len(paths) > 1
            }
        self.virtual_size = Size(0, len(rows))
        self.set_reactive(SessionList.cursor, self._clamp(kept))
        self.refresh()
        self.call_after_refresh(self.show_cursor)
        self._announce()

    def _kept_index(self, rows: list[Row]) -> int:
        """Where the selected file is in ``rows``; where it is gone, where the nearest row after
        it (else before it) that is still there is."""
        if not 0 <= self.cursor < len(self.rows):
            return self.cursor
        where = {row.path: i for i, row in enumerate(rows)}
        old = self.rows
        after = (r.path for r in old[self.cursor :] if r.path in where)
        before = (r.path for r in reversed(old[: self.cursor]) if r.path in where)
        path = next(after, None) or next(before, None)
        return where[path] if path is not None else 0

    @property
    def selected(self) -> Row | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    # -- cursor --------------------------------------------------------------------------------

    def _clamp(self, row: int) -> int:
        return max(0, min(row, len(self.rows) - 1)) if self.rows else 0

    def validate_cursor(self, row: int) -> int:
        return self._clamp(row)

    def watch_cursor(self, old: int, new: int) -> None:
        self.moved = True
        top = int(self.scroll_y)
        self.show_cursor()
        if int(self.scroll_y) == top:
            regions = [Region(0, r - top, self.size.width, 1) for r in (old, new) if 0 <= r - top < self.size.height]
            if regions:
                self.refresh(*regions)
        else:
            self.refresh()
        self._announce()

    def _announce(self) -> None:
        if self.on_moved is not None:
            self.on_moved(self.selected)

    def show_cursor(self) -> None:
        height = self.scrollable_content_region.height or self.size.height
        if not height:
            return
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor(self, step: int) -> None:
        self.cursor += step

    def action_page(self, step: int) -> None:
        self.cursor += step * max(1, self.scrollable_content_region.height - 1)

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self.rows) - 1

    def action_open(self) -> None:
        row = self.selected
        if row is not None:
            self.post_message(self.Chosen(row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = offset.y + int(self.scroll_y)
        if row >= len(self.rows):
            return
        if event.chain >= 2 and row == self.cursor:
            self.action_open()
        else:
            self.cursor = row

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._cache.clear()

    # -- drawing -------------------------------------------------------------------------------

    def _on(self, under: Style, name: str) -> Style:
        key = (under, name)
        style = self._styles.get(key)
        if style is None:
            style = self._styles[key] = under + self.get_component_rich_style(f"sessions--{name}", partial=True)
        return style

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_y) + y
        width = self.row_width
        base = self.rich_style
        if index >= len(self.rows):
            if not self.rows and self.empty:
                return self._empty_line(y, width, base)
            return Strip.blank(width, base)
        row = self.rows[index]
        selected = index == self.cursor
        key = (row.path, width, selected, self.has_focus)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._cache[key] = self._draw(row, width, base, selected)
        return strip

    @property
    def row_width(self) -> int:
        """The cells a row has: the list's width but for its scrollbar."""
        return self.scrollable_content_region.width or self.size.width

    def _empty_line(self, y: int, width: int, base: Style) -> Strip:
        # Each line of what the list says wrapped to the width (a folder's name is kept whole),
        # once for every line drawn of it.
        kept = self._empty_lines
        if kept is None or kept[:2] != (self.empty, width):
            wrapped = [part for line in self.empty.splitlines() for part in _wrapped(line, width - 2) or [""]]
            kept = self._empty_lines = (self.empty, width, wrapped)
        lines = kept[2]
        k = y - max(0, (self.size.height - len(lines)) // 2)
        if not 0 <= k < len(lines):
            return Strip.blank(width, base)
        text = lines[k]
        pad = max(0, (width - cell_len(text)) // 2)
        # (The strip's length is counted, not claimed: padded to the width, it paints the whole
        # line over what was drawn there before.)
        return Strip([Segment(" " * pad, base), Segment(text, self._on(base, "muted"))]).adjust_cell_length(width, base)

    def name_of(self, path: str) -> str:
        """What the file column shows of ``path``: its name, or where another row shown has the
        same name, its path in the folder named that holds it (an agent's own files have names
        of their own, and the project column says where they are)."""
        shown = self._names.get(path)
        if shown is None:
            shown = _base(path)
            alike = self._shared.get(shown)
            if alike is not None:
                folders = self._in_folder(path).split("/")[:-1]
                lead, end = alike
                between = folders[lead : len(folders) - end]
                if between:
                    shown = "/".join([*between, *(["…"] if end else []), shown])
                else:  # the same path in two folders named: the folder named tells them apart
                    shown = "/".join(self._placed(path))
            self._names[path] = shown
        return shown

    @property
    def shows_paths(self) -> bool:
        """Whether the file column shows paths, for rows that share a file name (:class:`Columns`)."""
        return bool(self._shared)

    def _placed(self, path: str) -> tuple[str, str]:
        """The name of the folder named that holds ``path`` and ``path`` in it (``a/b/x.jsonl``);
        ``""`` and its name alone where none does (a URL)."""
        full = "" if is_url(path) else os.path.abspath(path)
        folder = next((f for f in self.folders if full.startswith(f)), None) if full else None
        return ("", _base(path)) if folder is None else (_base(folder), full[len(folder) :])

    def _in_folder(self, path: str) -> str:
        """``path`` in the folder named that holds it, or its name alone (:meth:`_placed`)."""
        return self._placed(path)[1]

    def _draw(self, row: Row, width: int, base: Style, selected: bool) -> Strip:
        under = self._on(base, "cursor") if selected else base
        columns = Columns(width, self.shows_paths)
        unreadable = row.verdict in (UNREADABLE, OTHER)
        pending = row.verdict == LISTED
        name = self.name_of(row.path)
        # A path in the folder named says most at its end; a file's own name, at both ends.
        cut = _cut_left if name != _base(row.path) else _cut_middle
        if row.subagent:
            name = "↳ " + name
        values = [
            ("…" if pending else row.verdict, False),
            (row.agent or row.format, False),
            (columns.when_shown(row.when), False),
            ("" if pending else "-" if unreadable else f"{row.messages:,}", True),
            ("" if pending else "-" if unreadable else f"{row.changes:,}", True),
            (_cut_left(show.path(_home_short(row.project)), columns.project), False),
            (cut(show.path(name), columns.file), False),
            (show.prose(_note(row)), False),
        ]
        styles = ["muted" if pending else row.verdict, "agent", "muted", "", "", "muted", "", "muted"]
        segments = [Segment(" ", under)]
        used = 1
        for k, text in enumerate(columns.fit(values)):
            if k:
                segments.append(Segment(Columns.GAP, under))
            name = styles[k]
            segments.append(Segment(text, under if selected or not name else self._on(under, name)))
            used += cell_len(text) + (len(Columns.GAP) if k else 0)
        if used < width:
            segments.append(Segment(" " * (width - used), under))
        return Strip(segments, width)


class SessionHeader(Widget):
    """The column titles, drawn with the list's widths."""

    DEFAULT_CSS = """
    SessionHeader { height: 1; color: $foreground-muted; text-style: bold; background: $panel; }
    """

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        rows = self.screen.query(SessionList)
        # The list's columns: its rows are narrower than the header by its scrollbar.
        table = rows.first() if rows else None
        columns = Columns(table.row_width if table else max(0, width - 1), table is not None and table.shows_paths)
        titles = [
            ("verdict", False),
            ("agent", False),
            ("last written" if columns.when >= len("last written") else "written", False),
            ("msgs", True),
            ("changes", True),
            ("project", False),
            ("file", False),
            ("why", False),
        ]
        text = columns.line(titles)
        return Strip([Segment(set_cell_size(text, width), self.rich_style)], width)


# -- the screen -----------------------------------------------------------------------------------


@dataclass
class Scanned(Message):
    """Rows a scan made (new or changed files), paths that are gone, and whether the first full
    scan has finished. ``listed`` rows come from a listing alone: they show a file not known yet,
    and never replace a row that was scanned."""

    rows: list[Row]
    gone: list[str] = field(default_factory=list)
    finished: bool = False
    listed: bool = False
    seen: set[str] | None = None
    """Every file a full scan found: a row of any other file that is no longer there goes."""


class SessionsScreen(Screen[None]):
    """Every session in ``places`` (the agents' folders) and ``paths`` (files, folders), live.

    ``cache`` False reads every file;
    ``watch`` False scans once (tests)."""

    AUTO_FOCUS = "#sessions"
    LOOK_EVERY = 1.0
    """Seconds between looks for an agent's folder that is not there yet."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", key_display="/", id="sessions.filter", tooltip="Filter by any text"),
        Binding("v", "verdict", "Verdict", id="sessions.verdict", tooltip="Show only one verdict, in turn"),
        Binding("escape", "clear", "Clear filter", show=False, id="sessions.clear"),
        Binding("r", "rescan", "Rescan", id="sessions.rescan", tooltip="Scan every folder again"),
        Binding("q", "app.quit", "Quit", id="sessions.quit"),
    ]

    DEFAULT_CSS = """
    SessionsScreen {
        layout: vertical;
        #sessions-status { height: auto; max-height: 3; background: $panel; padding: 0 1; }
        #sessions-filter { height: 1; margin: 0 1; }
        #sessions-detail { height: auto; min-height: 3; max-height: 7; background: $panel; padding: 0 1; }
    }
    """

    def __init__(
        self,
        paths: Sequence[str] = (),
        places: Sequence[Place] = (),
        *,
        cache: bool = True,
        watch: bool = True,
        debounce_ms: int = 300,
    ) -> None:
        super().__init__()
        self.paths = list(paths)
        self.places = list(places)
        self.use_cache = cache
        self.watching = watch
        self.debounce_ms = debounce_ms
        self.all: dict[str, Row] = {}
        self.words: list[str] = []
        self.verdict = ""
        self.progress = Progress()
        self.finished = False
        self.listing = False
        self.failed = ""
        """Why the last full scan stopped, when it did not finish."""
        self.started = time.monotonic()
        self.took = 0.0
        self.absent = [p for p in self.places if not p.root.is_dir()]
        """The agents' folders not there (yet): looked for every ``LOOK_EVERY`` seconds."""
        self.listed: Listing | None = None
        """What the last full scan saw of each path given: the files each gave and the hidden
        folders passed over in it."""
        self._status_said = ""
        """What the status line says now (it is said again only when that changes)."""
        self.shown_others = 0
        """How many of the rows shown are files that are no transcript (counted apart)."""

    KEEP: ClassVar[tuple[str, ...]] = (
        "app.help",
        "sessions.quit",
        "sessions.open",
        "sessions.filter",
        "sessions.verdict",
        "sessions.rescan",
    )

    def compose(self) -> ComposeResult:
        yield Static("", id="sessions-status", markup=False)
        yield Input(placeholder="/ filter by any text: agent, project, file, error", id="sessions-filter", compact=True)
        yield SessionHeader(id="sessions-header")
        yield SessionList(
            on_moved=self._show_detail, folders=[p for p in self.paths if os.path.isdir(p)], id="sessions"
        )
        yield Static("", id="sessions-detail", markup=False)
        yield KeyBar(self.KEEP, id="sessions-keys")

    @property
    def table(self) -> SessionList:
        return self.query_one("#sessions", SessionList)

    def on_screen_suspend(self) -> None:
        hide_toasts(self)

    def on_mount(self) -> None:
        self.scan()
        self.set_interval(0.25, self._show_status)
        if self.absent and self.watching:
            self.set_interval(self.LOOK_EVERY, self._look_for_places)
        self._show_status()

    # -- scanning ------------------------------------------------------------------------------

    def folders(self) -> list[str]:
        """The folders looked in, as a person would write them."""
        return [p.origin for p in self.places if p.root.is_dir()] + [show.path(_home_short(p)) for p in self.paths]

    def where(self) -> str:
        """The folders looked in, in a line ("" while there are none)."""
        return ", ".join(self.folders())

    @work(thread=True, exclusive=True, group="sessions-scan", exit_on_error=False)
    def scan(self) -> None:
        from suture.scan_cache import ScanCache
        from suture.scan_pool import scan_all
        from suture.sessions import find

        worker = get_current_worker()
        self.progress = progress = Progress()
        self.listing = True
        # Each file is shown as soon as it is listed (what the folder says: agent, time, size),
        # then its verdict fills in: the first rows do not wait for any file to be read.
        found: list[Found] = []
        batch: list[Row] = []
        last = time.monotonic()
        listing = Listing()
        try:
            for f in find(self.paths, self.places, listing):
                found.append(f)
                batch.append(listed(f))
                now = time.monotonic()
                if now - last >= 0.05:
                    if worker.is_cancelled:
                        return
                    self.post_message(Scanned(batch, listed=True))
                    batch, last = [], now
            self.post_message(Scanned(batch, listed=True))
            self.listed = listing
        finally:
            self.listing = False
        # Newest first: the sessions a person most likely wants are scanned (and shown) first.
        found.sort(key=lambda f: -(f.mtime or 0.0))
        cache = ScanCache() if self.use_cache else None
        batch = []
        try:
            # Every core: the pool's helper processes were started before the app took over the
            # terminal (SessionsApp calls start_pool_server).
            for row in scan_all(found, cache=cache, progress=progress, cancelled=lambda: worker.is_cancelled):
                batch.append(row)
                now = time.monotonic()
                if now - last >= 0.1:
                    self.post_message(Scanned(batch))
                    batch, last = [], now
        finally:
            if cache is not None:
                cache.close()
        if not worker.is_cancelled:
            self.post_message(Scanned(batch, finished=True, seen={f.path for f in found}))
            if self.watching:
                self.app.call_from_thread(self.watch_folders)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A scan that stops on an error says so (the rows it made stay)."""
        if event.worker.group == "sessions-scan" and event.state == WorkerState.ERROR:
            error = event.worker.error
            self.failed = show.line(f"{type(error).__name__}: {error}")
            self.finished = True
            self.listing = False
            self.refilter()
            self._show_status()

    def _look_for_places(self) -> None:
        """An agent's folder that was not there: once it is (the agent's first run made it), its
        sessions are scanned and the folder watched."""
        appeared = [p for p in self.absent if p.root.is_dir()]
        if not appeared:
            return
        self.absent = [p for p in self.absent if p not in appeared]
        if self.finished:
            self.watch_folders()  # again, with the new folder (the first scan's end starts it otherwise)
        self.scan_places(appeared)

    @work(thread=True, group="sessions-update", exit_on_error=False)
    def scan_places(self, places: list[Place]) -> None:
        from suture.sessions import find

        found = list(find((), places))
        self.post_message(Scanned([listed(f) for f in found], listed=True))
        self.post_message(Scanned(self._scan_some(found), finished=self.finished))

    def _scan_some(self, found: list[Found]) -> list[Row]:
        """The rows of a few files (a pool's, where they are many), through the cache."""
        from suture.scan_cache import ScanCache
        from suture.scan_pool import scan_all

        cache = ScanCache() if self.use_cache else None
        try:
            return list(scan_all(found, cache=cache))
        finally:
            if cache is not None:
                cache.close()

    @work(exclusive=True, group="sessions-watch", exit_on_error=False)
    async def watch_folders(self) -> None:
        """New, grown and removed sessions, as they happen, in every folder looked in."""
        from watchfiles import Change, awatch

        roots = [str(p.root) for p in self.places if p.root.is_dir()]
        roots += [p for p in self.paths if os.path.isdir(p)]
        files = {os.path.realpath(p) for p in self.paths if os.path.isfile(p)}
        listed_as = _as_listed(roots, self.paths)
        roots += sorted({os.path.dirname(p) for p in files})
        if not roots:
            return

        def wanted(_change: Change, path: str) -> bool:
            name = os.path.basename(path)
            if name.startswith("."):
                return False
            return name.endswith((".jsonl", ".json")) or os.path.realpath(path) in files

        async for changes in awatch(
            *roots, watch_filter=wanted, debounce=self.debounce_ms, step=50, ignore_permission_denied=True
        ):
            paths = sorted({listed_as(p) for _, p in changes})
            self.rescan_files(paths)

    @work(thread=True, group="sessions-update", exit_on_error=False)
    def rescan_files(self, paths: list[str]) -> None:
        found: list[Found] = []
        gone: list[str] = []
        for path in paths:
            try:
                st = os.stat(path)
            except FileNotFoundError:
                gone.append(path)
                continue
            except OSError as e:
                found.append(Found(path, agent=self._agent_of(path), error=f"cannot read ({e.strerror or e})"))
                continue
            if os.path.isfile(path):
                found.append(Found(path, st.st_size, st.st_mtime, self._agent_of(path)))
        self.post_message(Scanned(self._scan_some(found), gone, finished=self.finished))

    def _agent_of(self, path: str) -> str:
        for place in self.places:
            if path.startswith(str(place.root) + os.sep):
                return place.agent
        return ""

    def on_scanned(self, message: Scanned) -> None:
        changed = False
        for row in message.rows:
            if message.listed:
                if row.path not in self.all:
                    self.all[row.path] = row
                    changed = True
            elif self.all.get(row.path) != row:
                self.all[row.path] = row
                changed = True
        gone = list(message.gone)
        if message.seen is not None:
            gone += [p for p in self.all if p not in message.seen and not os.path.lexists(p)]
        for path in gone:
            changed = self.all.pop(path, None) is not None or changed
        if message.finished and not self.finished:
            self.finished = True
            self.took = time.monotonic() - self.started
            changed = True
            if self.all:
                self._warn_empty_paths()
        if changed:
            self.refilter()
        self.table.settled = self.table.settled or self.finished  # (once the rows it finished with show)
        self._show_status()

    def _warn_empty_paths(self) -> None:
        """Say which folders given gave no session file (as ``suture scan`` warns), with the
        hidden folders passed over in each."""
        listed = self.listed
        if listed is None:
            return
        for path in listed.empty():
            self.notify(listed.nothing_in([path], "sessions"), severity="warning", timeout=10, markup=False)

    def action_rescan(self) -> None:
        self.workers.cancel_group(self, "sessions-watch")
        self.finished = False
        self.failed = ""
        self.started = time.monotonic()
        self.listing = True  # (said at once: the scan's worker says it once it starts)
        self.scan()
        self._show_status()
        where = self.where()
        self.notify(f"rescanning {where}…" if where else "rescanning…", timeout=3, markup=False)

    # -- filtering -----------------------------------------------------------------------------

    def refilter(self) -> None:
        rows = [r for r in self.all.values() if matches(r, self.words, self.verdict)]
        rows.sort(key=_order, reverse=True)
        self.shown_others = sum(r.verdict == OTHER for r in rows)
        self.table.set_rows(rows, "" if rows else self.empty_text())
        self.query_one("#sessions-header").refresh()  # (its widths follow whether paths are shown)

    def empty_text(self) -> str:
        """What the list says when it shows no row: where the scan found none, where it looked;
        under a filter, what it shows and that no session passes (also while the scan goes on)."""
        if self.all or not self.finished:
            filtered = self.words or self.verdict
            return f"showing {self.filter_said()}: no session passes the filter (esc clears it)" if filtered else ""
        where = self.where()
        text = f"no sessions found in {where}" if where else "no sessions found: no agent's folder is on this machine"
        listed = self.listed
        skipped = listed.skipped(listed.empty(), "sessions") if listed is not None else ""
        if skipped:
            text += f"\n{skipped}"
        if self.absent and self.watching:
            text += f"\nthey will show here once the agents make {', '.join(p.origin for p in self.absent)}"
        return text + "\npass folders to look in: suture sessions DIR..."

    @on(Input.Changed, "#sessions-filter")
    def _typed(self, event: Input.Changed) -> None:
        self.words = [w for w in event.value.lower().split() if w]
        self.refilter()
        self._show_status()

    @on(Input.Submitted, "#sessions-filter")
    def _submitted(self) -> None:
        self.table.focus()

    def action_filter(self) -> None:
        self.set_focus(self.query_one("#sessions-filter", Input))

    def action_verdict(self) -> None:
        k = VERDICT_FILTERS.index(self.verdict)
        self.verdict = VERDICT_FILTERS[(k + 1) % len(VERDICT_FILTERS)]
        self.refilter()
        self._show_status()

    def action_clear(self) -> None:
        box = self.query_one("#sessions-filter", Input)
        box.value = ""
        self.words = []
        self.verdict = ""
        self.refilter()
        self._show_status()
        self.table.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Typed into the filter box, "/" and "v" are text.
        return not (action in ("filter", "verdict") and isinstance(self.focused, Input))

    def _show_detail(self, row: Row | None) -> None:
        """All there is to know about the selected row, where its columns cut it short; a word
        longer than the line ends in an ellipsis, and a path is cut in its middle, never split
        across lines."""
        detail = self.query_one("#sessions-detail", Static)
        if row is None:
            detail.update("")
            return
        width = (detail.size.width or self.app.size.width) - 2  # (its padding)
        said = [_words_cut(line, width) for line in self._said_of(row)]
        detail.update("\n".join([*said, *_path_lines(show.path(_home_short(row.path)), row.session, width)]))

    def _said_of(self, row: Row) -> tuple[str, str]:
        """The detail's first two lines: the verdict and why, then the last API error."""
        if row.verdict == LISTED:
            first = "not scanned yet"
        elif row.verdict == UNREADABLE:
            first = f"cannot be read: {show.prose(row.error)}"
        elif row.verdict == OTHER:
            first = show.prose(row.error)
        elif row.verdict == REJECTED:
            more = f" (and {row.problems - 1} more)" if row.problems > 1 else ""
            left = "repair fixes it" if not row.after_repair else f"{row.after_repair} left after repair"
            who = f"{row.provider} would reject it" if row.provider else f"it breaks {SHARED}"
            first = f"{who}: {show.prose(row.problem)}{more}; {left}"
        else:
            first = f"{row.provider or SHARED}: no problems"
            if row.stricter:
                first += f"; {show.prose(stricter_said(row))}"
            if row.fixes:
                first += f" ({self_repairs(row)})"
        second = (
            ""
            if row.verdict == LISTED
            else f"last API error: {show.prose(row.last_error)}"
            if row.last_error
            else "no API error recorded"
        )
        if row.skipped:
            second += f"  ·  {count(row.skipped, 'unreadable line')} skipped"
        return first, second

    # -- status --------------------------------------------------------------------------------

    def _show_status(self) -> None:
        found = self.query("#sessions-status")
        if not found:  # the screen is closing: its widgets go before its timer stops
            return
        status = found.first(Static)
        width = (status.size.width or self.app.size.width) - 2  # (its padding)
        said = self.status_text(width)
        if said != self._status_said:
            self._status_said = said
            status.update(said)
        table = self.table
        if not table.rows and table.empty != self.empty_text():
            self.refilter()

    def status_text(self, width: int) -> str:
        """The status line for ``width`` columns: in whole words where they fit, else in short
        ones (``8 rejected``); where the folders looked in do not fit after the figures, they go
        on the lines under them, whole folders to a line, on two lines at most (a folder longer
        than a line is cut at its end)."""
        where = self.where()
        for short in (False, True):
            parts = self._status_parts(short)
            line = "  ·  ".join(parts)
            if where and cell_len(line) + 5 + cell_len(where) <= width:
                return show.line(f"{line}  ·  in {where}")
            if not where and cell_len(line) <= width:
                return show.line(line)
        lines = [show.line(line)]
        if where:  # the folders, as many to a line as fit, on at most two lines
            folders = [show.line(f) for f in self.folders()]
            rows = ["in"]
            for k, folder in enumerate(folders):
                piece = folder + ("," if k < len(folders) - 1 else "")
                if rows[-1] == "in" or cell_len(rows[-1]) + 1 + cell_len(piece) <= width:
                    rows[-1] += " " + piece
                elif len(rows) < 2:
                    rows.append(piece)
                else:
                    rows[-1] += " …"  # (more folders than two lines hold)
                    break
            lines += [r if cell_len(r) <= width else set_cell_size(r, max(1, width - 1)) + "…" for r in rows]
        return "\n".join(lines)

    def _status_parts(self, short: bool) -> list[str]:
        p = self.progress
        counts = dict.fromkeys((REJECTED, OK, UNREADABLE, OTHER, LISTED), 0)
        for row in self.all.values():
            counts[row.verdict] += 1
        parts = [f"Sessions: {len(self.all) - counts[OTHER]:,}"]
        if self.failed:
            parts.append(f"the scan stopped: {self.failed}")
        elif self.listing:
            parts.append("listing…")
        elif not self.finished:
            of = (f"/{p.total:,}" if short else f" of {p.total:,}") if p.found_all else ""
            parts.append(f"scanning {p.done:,}{of}{'' if short else self._where_scanned()}…")
        parts.append(f"{counts[REJECTED]:,} {'rejected' if short else 'would be rejected'}")
        if counts[UNREADABLE]:
            parts.append(f"{counts[UNREADABLE]:,} unreadable")
        if counts[OTHER]:
            parts.append(f"{counts[OTHER]:,} other" if short else count(counts[OTHER], "other file"))
        if self.words or self.verdict:
            # Counted as the total is: the sessions, and the other files apart.
            shown, others = self.table.rows, self.shown_others
            showing = f"{len(shown) - others:,}"
            if others:
                showing = f"{showing} and {others:,} other" if len(shown) > others else f"{others:,} other"
            parts.append(f"showing {showing} ({self.filter_said()})")
        return parts

    def filter_said(self) -> str:
        """What the filter lets through, in words: ``other only``, ``'dev'``, ``rejected only, 'dev'``."""
        what = " ".join(self.words)
        verdict = f"{self.verdict} only" if self.verdict else ""
        return ", ".join(x for x in (verdict, what and repr(what)) if x)

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_status)
        self.call_after_refresh(lambda: self._show_detail(self.table.selected))

    def _where_scanned(self) -> str:
        """`` on 2 cores`` while a pool scans; why not, when one was wanted and could not start."""
        p = self.progress
        if p.pool_error:
            return f" on one core ({p.pool_error})"
        return f" in {len(p.processes)} processes" if len(p.processes) > 1 else ""


# -- the app --------------------------------------------------------------------------------------


class SessionsApp(SutureApp):
    """The app with the sessions browser first: Enter on a session shows it side by side (the
    usual app, watched live), Esc there comes back to the browser, as it was."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "sessions",
            "Sessions",
            key_display="esc",
            id="app.sessions",
            tooltip="Back to the sessions (clears the search and the row filter first)",
        ),
    ]
    MAIN_ONLY: ClassVar[frozenset[str]] = SutureApp.MAIN_ONLY | {"sessions"}
    # Esc back to the list stays as long as quit does: without it q, which leaves the whole app,
    # would look like the only way out.
    FOOTER_KEEP: ClassVar[tuple[str, ...]] = (*SutureApp.FOOTER_KEEP[:2], "app.sessions", *SutureApp.FOOTER_KEEP[2:])

    def __init__(self, browser: SessionsScreen, **options: object) -> None:
        super().__init__(None, **options)  # type: ignore[arg-type]
        self.browser = browser
        # Now, before the app replaces the standard streams: the scan's process pool needs them.
        from suture.scan_pool import start_pool_server

        with contextlib.suppress(OSError, ValueError):  # (then the scan says why it runs on one core)
            start_pool_server()

    async def on_mount(self) -> None:
        self.install_screen(self.browser, "sessions")
        self.push_screen("sessions")

    async def on_session_list_chosen(self, message: SessionList.Chosen) -> None:
        message.stop()
        if self.screen is self.browser:
            await self.pop_screen()
        await self.open_file(message.row.path)

    def help_groups(self) -> list[tuple[str, Iterable[BindingType]]]:
        """The keys that act where the help is asked for: the list's over the browser; over a
        session opened from it, the app's, with Esc going back to the sessions rather than only
        clearing the search."""
        if self.screen is self.browser:
            help = [b for b in SutureApp.BINDINGS if isinstance(b, Binding) and b.id == "app.help"]
            return [("Sessions", rebound([*SessionsScreen.BINDINGS, *SessionList.BINDINGS, *help], self.keymap))]
        anywhere = rebound([*self.BINDINGS, *(b for b in SutureApp.BINDINGS if not _is_key(b, "escape"))], self.keymap)
        return [(name, anywhere if name == "Anywhere" else keys) for name, keys in super().help_groups()]

    def help_mouse(self) -> list[tuple[str, str]]:
        if self.screen is not self.browser:
            return super().help_mouse()
        return [("click a row", "select it"), ("double-click a row", "open the session side by side")]

    def action_sessions(self) -> None:
        if self.match_query or self.row_filter != "all":
            self.action_clear_search()  # the search and the row filter go first
            return
        self.close_file()
        self.push_screen("sessions")


def _is_key(binding: BindingType, key: str) -> bool:
    return isinstance(binding, Binding) and binding.key == key
