"""The two panes, Original and Repaired, drawn as one scrolling view so their rows stay aligned.

Only the rows on screen are drawn (``render_line``); a row is a list of segments built from
terminal-safe data, never from markup, so transcript content shows literally.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import ClassVar

from msgspec import Struct
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.filter import ANSIToTruecolor, LineFilter
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from suture import show
from suture.kinds import KINDS, badge_classes, badge_rules
from suture.tui.contrast import ContrastFilter, readable_style
from suture.tui.rows import Piece, RowModel, id_head

__all__ = ["Layout", "PaneHeader", "TranscriptView"]

BADGE_WIDTH = 13
ROLE_WIDTH = 9
COMPACT_BELOW = 110
"""A view narrower than this draws compact rows: a one-symbol badge and four-letter roles."""
COMPACT_BADGE_WIDTH = 3
COMPACT_ROLE_WIDTH = 4
_SHORT_ROLES = {"assistant": "asst", "system": "sys", "branch": "brch", "compacted": "cmpt"}
_ROLE_LABELS = {
    "bashExecution": "bash",
    "branchSummary": "branch",
    "compactionSummary": "compacted",
    "hookMessage": "hook",
}
"""pi's own roles, longer than the role column, as the panes label them (the details give the
role as written): a ``!`` command the person ran, the summary of an abandoned branch, the
summary that stands for a compacted history, a hook's message."""
SPAN_STYLES = 4
SIDES = ("Original", "Repaired")


class Layout(Struct, frozen=True):
    """Column widths for a view ``width`` cells wide: left pane, badge column, right pane."""

    width: int
    digits: int

    @property
    def compact(self) -> bool:
        return self.width < COMPACT_BELOW

    @property
    def badge_width(self) -> int:
        return COMPACT_BADGE_WIDTH if self.compact else BADGE_WIDTH

    @property
    def role(self) -> int:
        return COMPACT_ROLE_WIDTH if self.compact else ROLE_WIDTH

    @property
    def left(self) -> int:
        return max(0, (self.width - self.badge_width) // 2)

    @property
    def badge(self) -> int:
        return min(self.badge_width, self.width)

    @property
    def right(self) -> int:
        return max(0, self.width - self.badge - self.left)

    def side_at(self, x: int) -> int | None:
        if x < self.left:
            return 0
        if x >= self.left + self.badge:
            return 1
        return None


def _emit(out: list[Segment], text: str, style: Style) -> None:
    """Add a segment, joined to the last one when it has the same style (equal styles compare
    by their cached hash). Every later stage (styles, filters, the compositor's cuts) costs per
    segment, and joining halves them."""
    if not text:
        return
    if out and out[-1].style == style:
        out[-1] = Segment(out[-1].text + text, style)
    else:
        out.append(Segment(text, style))


class TranscriptView(ScrollView, can_focus=True):
    """Rows of aligned messages. Keys move the cursor; ``on_moved`` is called with the new row."""

    ALLOW_SELECT = False  # rows are picked, not text: `y` copies the selected message

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="view.up", tooltip="Select the row above"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="view.down", tooltip="Select the row below"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="view.page_up"),
        Binding("pagedown,ctrl+f,space", "page(1)", "Page down", show=False, id="view.page_down"),
        Binding("home,g", "first", "First row", show=False, id="view.first"),
        Binding("end,G", "last", "Last row", show=False, id="view.last"),
        Binding("left,h", "side(0)", "Original side", show=False, id="view.original"),
        Binding(
            "right,l",
            "side(1)",
            "Repaired side",
            show=False,
            id="view.repaired",
            tooltip="On the Repaired side already: on to the lists beside the panes",
        ),
        Binding("enter", "open", "Details", id="view.open", tooltip="Show the selected message whole"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "transcript--cursor",
        "transcript--cursor-other",
        "transcript--index",
        "transcript--role-user",
        "transcript--role-assistant",
        "transcript--role-tool",
        "transcript--role-system",
        "transcript--id",
        "transcript--name",
        "transcript--muted",
        "transcript--slot",
        "transcript--match",
        *(f"transcript--span-{k}" for k in range(SPAN_STYLES)),
        *badge_classes("transcript--badge"),
    }

    DEFAULT_CSS = (
        """
    TranscriptView {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
        & > .transcript--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
        & > .transcript--cursor-other { background: $primary-muted; }
        &:blur > .transcript--cursor { background: $primary-muted; color: $foreground; }
        & > .transcript--index { color: $foreground-muted; }
        & > .transcript--role-user { color: $text-success; }
        & > .transcript--role-assistant { color: $text-primary; }
        & > .transcript--role-tool { color: $text-warning; }
        & > .transcript--role-system { color: $text-secondary; }
        & > .transcript--id { color: $text-accent; }
        & > .transcript--name { color: $text-secondary; text-style: bold; }
        & > .transcript--muted { color: $foreground-muted; }
        & > .transcript--slot { color: $foreground-muted; text-style: italic; }
        & > .transcript--match { background: $warning-muted; color: $foreground; text-style: bold; }
        & > .transcript--span-0 { color: $primary; }
        & > .transcript--span-1 { color: $secondary; }
        & > .transcript--span-2 { color: $success; }
        & > .transcript--span-3 { color: $accent; }
    """
        + badge_rules("transcript--badge", "background: ${colour}-muted; color: $foreground; text-style: bold;")
        + "    }\n"
    )

    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)
    side: reactive[int] = reactive(1, repaint=False)

    class PastRight(Message):
        """Right (``l``) was pressed on the Repaired side, the rightmost: on to what is beside."""

    class Opened(Message):
        """The person asked to see the selected row whole."""

        def __init__(self, row: int, side: int) -> None:
            self.row = row
            self.side = side
            super().__init__()

    def __init__(self, *, on_moved: Callable[[int], None] | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: RowModel | None = None
        self.matches: set[int] = set()
        self.query_text = ""
        self._cache: LRUCache[tuple[int, int, bool, int, bool], Strip] = LRUCache(1024)
        self._base: Style | None = None
        # Called, not messaged, when the cursor moves (or the model changes under it), so what
        # the app shows about the row is drawn in the same frame as the row.
        self.on_moved = on_moved
        self._styles: dict[tuple[Style, str], Style] = {}
        self.shown: list[int] | None = None
        """The rows shown, ascending, where a filter is on (``None``: every row). ``cursor`` is
        always a row of the model; a screen line shows the row at its position in ``shown``."""

    # -- data --------------------------------------------------------------------------------

    def set_model(
        self, model: RowModel, cursor: int = 0, scroll_y: float | None = None, shown: list[int] | None = None
    ) -> None:
        self.model = model
        self.shown = shown
        self._cache.clear()
        self.virtual_size = Size(0, self._count())
        self.set_reactive(TranscriptView.cursor, self._clamp(cursor))
        self._place(scroll_y)
        if (scroll_y is not None and int(self.scroll_y) != int(scroll_y)) or not self._cursor_shown():
            # The new virtual size reaches the scrollbars only at the next layout, and a scroll
            # beyond the old size is cut short: place the view again once it is laid out.
            self.call_after_refresh(self._place, scroll_y)
        self.refresh()
        self._announce(self.cursor)

    def _place(self, scroll_y: float | None) -> None:
        if scroll_y is not None:
            self.scroll_to(y=scroll_y, animate=False, immediate=True)
        self.show_cursor(center=scroll_y is None and self.cursor > 0)

    def _cursor_shown(self) -> bool:
        top, height = int(self.scroll_y), self.scrollable_content_region.height
        return height > 0 and top <= self._pos(self.cursor) < top + height

    def set_filter(self, shown: list[int] | None) -> None:
        """Show only ``shown`` (ascending rows), or every row. The cursor stays on its row, or
        moves to the nearest row shown."""
        self.shown = shown
        self.virtual_size = Size(0, self._count())
        self.set_reactive(TranscriptView.cursor, self._clamp(self.cursor))
        self.scroll_to(y=0, animate=False, immediate=True)
        self.show_cursor(center=True)
        self.call_after_refresh(self.show_cursor, True)
        self.refresh()
        self._announce(self.cursor)

    # Rows and positions: the same number where no filter is on.

    def _count(self) -> int:
        if self.shown is not None:
            return len(self.shown)
        return len(self.model) if self.model else 0

    def _pos(self, row: int) -> int:
        """The position of ``row`` among the rows shown (of the nearest one shown after it)."""
        shown = self.shown
        return row if shown is None else bisect.bisect_left(shown, row)

    def _row_at(self, pos: int) -> int:
        shown = self.shown
        return pos if shown is None else shown[pos]

    def is_shown(self, row: int) -> bool:
        shown = self.shown
        if shown is None:
            return True
        k = bisect.bisect_left(shown, row)
        return k < len(shown) and shown[k] == row

    def set_matches(self, query: str, rows: list[int]) -> None:
        self.query_text = query
        self.matches = set(rows)
        self._cache.clear()
        self.refresh()

    @property
    def layout_now(self) -> Layout:
        n = len(self.model) if self.model else 0
        return Layout(self.width, max(3, len(str(max(n - 1, 0)))))

    @property
    def width(self) -> int:
        """The width rows are drawn at: the view's, less its scrollbar."""
        return self.scrollable_content_region.width

    # -- cursor ------------------------------------------------------------------------------

    def _clamp(self, row: int) -> int:
        """``row`` within the model, and among the rows shown (else the nearest one shown)."""
        n = len(self.model) if self.model else 0
        row = max(0, min(row, n - 1)) if n else 0
        shown = self.shown
        if shown is None or not shown:
            return row
        k = bisect.bisect_left(shown, row)
        if k < len(shown) and shown[k] == row:
            return row
        if k == len(shown):
            return shown[-1]
        if k == 0:
            return shown[0]
        before, after = shown[k - 1], shown[k]
        return before if row - before < after - row else after

    def validate_cursor(self, row: int) -> int:
        return self._clamp(row)

    def watch_cursor(self, old: int, new: int) -> None:
        # The cache key holds whether a row is the cursor's, so only the two rows that changed
        # are drawn again; when the move scrolls, the scroll refreshes the whole view.
        top = int(self.scroll_y)
        self.show_cursor()
        if int(self.scroll_y) == top:
            self._refresh_rows(old, new)
        else:
            self.refresh()
        self._announce(new)

    def _announce(self, row: int) -> None:
        if self.on_moved is not None:
            self.on_moved(row)

    def _refresh_rows(self, *rows: int) -> None:
        top, height = int(self.scroll_y), self.size.height
        lines = [self._pos(row) - top for row in rows]
        regions = [Region(0, y, self.width, 1) for y in lines if 0 <= y < height]
        if regions:
            self.refresh(*regions)

    def watch_side(self) -> None:
        self._cache.clear()
        self.refresh()
        self._announce(self.cursor)

    def select(self, row: int, center: bool = False) -> None:
        self.set_reactive(TranscriptView.cursor, self._clamp(row))
        self.refresh()
        self.show_cursor(center=center)
        self._announce(self.cursor)

    def on_resize(self, event: events.Resize) -> None:
        # A smaller window (or the lists moved below the panes) keeps the selected row in sight.
        self.call_after_refresh(self.show_cursor)

    def show_cursor(self, center: bool = False) -> None:
        height = self.scrollable_content_region.height or self.size.height
        if not height:
            return
        row = self._pos(self.cursor)
        top = int(self.scroll_y)
        if center:
            if row < top or row >= top + height:
                self.scroll_to(y=max(0, row - height // 2), animate=False, immediate=True)
        elif row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)

    def _step(self, step: int) -> None:
        if self.shown is None:
            self.cursor += step
            return
        if not self.shown:
            return
        pos = max(0, min(self._pos(self.cursor) + step, len(self.shown) - 1))
        self.cursor = self.shown[pos]

    def action_cursor(self, step: int) -> None:
        self._step(step)

    def action_page(self, step: int) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        self._step(step * height)

    def action_first(self) -> None:
        self.cursor = self.shown[0] if self.shown else 0

    def action_last(self) -> None:
        if self.shown:
            self.cursor = self.shown[-1]
        else:
            self.cursor = len(self.model) - 1 if self.model else 0

    def action_side(self, side: int) -> None:
        if side == 1 and self.side == 1:
            self.post_message(self.PastRight())
        self.side = side

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":
            return bool(self.model and len(self.model) and self.display)
        return True

    def action_open(self) -> None:
        if self.model and len(self.model):
            self.post_message(self.Opened(self.cursor, self.side))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.model is None:
            return
        pos = offset.y + int(self.scroll_y)
        if pos >= self._count():
            return
        row = self._row_at(pos)
        side = self.layout_now.side_at(offset.x)
        if side is not None:
            self.side = side
        if event.chain >= 2 and row == self.cursor:
            self.action_open()
        else:
            self.cursor = row

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base = None
        self._styles.clear()
        self._cache.clear()

    # -- drawing -----------------------------------------------------------------------------
    #
    # A row is built as segments directly (no Rich ``Text`` and no console render): a page of
    # new rows is drawn on every page key, and building Text then rendering it cost most of
    # the key's time. Every string here comes from ``RowModel`` pieces, which are already
    # terminal-safe (``suture.show``), or from numbers and fixed labels.

    def render_line(self, y: int) -> Strip:
        pos = int(self.scroll_y) + y
        width = self.width
        base = self._base_style()
        if self.model is None or pos >= self._count():
            return Strip.blank(width, base)
        row = pos if self.shown is None else self.shown[pos]
        key = (row, width, row == self.cursor, self.side, self.has_focus)
        strip = self._cache.get(key)
        if strip is None:
            # No ``apply_offsets``: the offsets are for text selection, which this view does not
            # offer (clicks use the event's own offset), and they cost as much as the drawing.
            strip = self._draw(row, width, base)
            self._cache[key] = strip
        return strip

    def _base_style(self) -> Style:
        # ``rich_style`` walks every ancestor; it changes only with the styles, which clear it.
        base = self._base
        if base is None:
            base = self._base = readable_style(self.rich_style)
        return base

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"transcript--{name}", partial=True)

    def _on(self, under: Style, name: str) -> Style:
        """A component style over ``under``, combined once per style update. Readable as made
        (the view skips the app's contrast filter: see get_line_filters), but for the span
        bands, which are shapes, not text."""
        key = (under, name)
        style = self._styles.get(key)
        if style is None:
            style = under + self._style(name)
            if not name.startswith("span-"):
                style = readable_style(style)
            self._styles[key] = style
        return style

    def get_line_filters(self) -> Sequence[LineFilter]:
        """The app's line filters but the contrast one (this view's styles are readable as they
        are made) and, in a theme of true colours, the one that turns ANSI colours into true
        ones (this view draws only its theme's colours): a page key draws a page of new lines,
        and each filter goes over each of them again. NO_COLOR's filters stay."""
        skip: tuple[type[LineFilter], ...] = (ContrastFilter,)
        if not self.app.current_theme.ansi:
            skip += (ANSIToTruecolor,)
        return [f for f in super().get_line_filters() if not isinstance(f, skip)]

    def _draw(self, row: int, width: int, base: Style) -> Strip:
        model = self.model
        assert model is not None
        layout = self.layout_now
        selected = row == self.cursor
        segments: list[Segment] = []
        for side in (0, 1):
            under = self._on(base, "cursor" if side == self.side else "cursor-other") if selected else base
            here = selected and side == self.side
            pane = layout.left if side == 0 else layout.right
            self._pane(segments, model, side, row, pane, layout, under, here)
            if side == 0:
                self._badge(segments, model, row, layout, base, under)
        # The columns add up to the width exactly, each cut or padded to its own.
        return Strip(segments, layout.left + layout.badge + layout.right)

    def _badge(self, out: list[Segment], model: RowModel, row: int, layout: Layout, base: Style, under: Style) -> None:
        width = layout.badge
        if width <= 0:
            return
        changes = model.row_changes.get(row)
        if not changes:
            _emit(out, " " * width, under)
            return
        first = changes[0]
        shown = KINDS[first.kind]
        label = shown.badge
        if layout.compact:  # the symbol alone, and a + where the row has more changes
            label = label[0] + ("+" if len(changes) > 1 else "")
        elif len(changes) > 1:
            label += f" +{len(changes) - 1}"
        _emit(out, set_cell_size(f" {label}", width - 1), self._on(base, f"badge-{shown.name}"))
        _emit(out, " ", under)

    def _pane(
        self,
        out: list[Segment],
        model: RowModel,
        side: int,
        row: int,
        width: int,
        layout: Layout,
        under: Style,
        selected_here: bool,
    ) -> None:
        """One pane of a row onto ``out``, exactly ``width`` cells: cut with an ellipsis or padded."""
        if width <= 0:
            return
        digits, role_width = layout.digits, layout.role
        pieces: list[tuple[str, Style]] = []
        add = pieces.append
        index = model.left[row] if side == 0 else model.right[row]
        span = model.span_of(side, row)
        add(("▌", self._on(under, f"span-{span % SPAN_STYLES}")) if span is not None else (" ", under))
        if index is None:
            label = "— dropped, not sent —" if side == 1 else "— added by repair —"
            add((" " * (digits + 1 + role_width + 1), under))
            add((label, self._on(under, "slot")))
        else:
            message = model.original(row) if side == 0 else model.repaired(row)
            assert message is not None
            matched = row in self.matches
            if matched:
                number_style = self._on(under, "match")
            elif selected_here:
                number_style = under
            else:
                number_style = self._on(under, "index")
            add((str(index).rjust(digits), number_style))
            add((" ", under))
            role = _ROLE_LABELS.get(message.role) or show.line(message.role)
            role_class = role if role in ("user", "assistant", "tool", "system") else "user"
            if layout.compact:
                role = _SHORT_ROLES.get(role, role)
            shown = role if len(role) <= role_width else role[: role_width - 1] + "…"
            add((shown.ljust(role_width), under if selected_here else self._on(under, f"role-{role_class}")))
            add((" ", under))
            start = len(pieces)
            self._summary(pieces, model.summary(side, row), width, under, selected_here)
            if self.query_text and matched:
                pieces[start:] = self._highlight(pieces[start:])
        lengths = [cell_len(text) for text, _ in pieces]
        total = sum(lengths)
        if total <= width:
            for text, style in pieces:
                _emit(out, text, style)
            if total < width:
                _emit(out, " " * (width - total), under)
            return
        # Too long: keep width - 1 cells and end with an ellipsis in the style of the first
        # cell cut off (as Rich's ellipsis overflow does).
        room = width - 1
        for (text, style), length in zip(pieces, lengths, strict=True):
            if length <= room:
                _emit(out, text, style)
                room -= length
                continue
            if room:
                _emit(out, set_cell_size(text, room), style)
            _emit(out, "…", style)
            return

    def _summary(
        self, pieces: list[tuple[str, Style]], summary: list[Piece], width: int, under: Style, selected_here: bool
    ) -> None:
        """The pieces of a message's summary onto ``pieces`` (what the pane shows before it), as
        many as can show in ``width`` cells and a little more (the pane cuts the rest)."""
        used = sum(len(text) for text, _ in pieces)
        for k, piece in enumerate(summary):
            room = width + 8 - used
            if room <= 0:
                break
            style = self._on(under, piece.kind) if piece.kind != "text" and not selected_here else under
            # Cut a long piece (a whole message's text) to what can show before measuring it.
            text = piece.text[:room]
            if piece.kind == "id":
                # An id shortened with an ellipsis that the pane cuts too ends the row at its
                # own ellipsis (``toolu_01U…``), not a second one after it.
                before = sum(cell_len(t) for t, _ in pieces)
                end = before + cell_len(text)
                cut = end > width or (end == width and k < len(summary) - 1)
                head = id_head(text)
                if cut and before + cell_len(head) <= width:
                    pieces.append((head, style))
                    return
            used += len(text)
            pieces.append((text, style))

    def _highlight(self, pieces: list[tuple[str, Style]]) -> list[tuple[str, Style]]:
        """The summary pieces with every match of the search marked (case-insensitive)."""
        needle = self.query_text.casefold()
        plain = "".join(text for text, _ in pieces)
        hay = plain.casefold()
        if not needle:
            return pieces
        # Where casefolding changed lengths (ß is ss), map each folded character to its source.
        origin = None if len(hay) == len(plain) else [i for i, c in enumerate(plain) for _ in c.casefold()]
        marks: list[tuple[int, int]] = []
        at = hay.find(needle)
        while at >= 0:
            end = at + len(needle)
            marks.append((at, end) if origin is None else (origin[at], origin[end - 1] + 1))
            at = hay.find(needle, end)
        if not marks:
            return pieces
        match = self._style("match")
        out: list[tuple[str, Style]] = []
        offset = 0
        for text, style in pieces:
            end = offset + len(text)
            cuts = sorted({offset, end, *(p for m in marks for p in m if offset < p < end)})
            for a, b in pairwise(cuts):
                inside = any(s <= a and b <= e for s, e in marks)
                out.append((plain[a:b], readable_style(style + match) if inside else style))
            offset = end
        return out


class PaneHeader(Widget):
    """The titles above the two panes, lined up with the view's columns."""

    DEFAULT_CSS = """
    PaneHeader {
        height: 1;
        background: $panel;
        color: $foreground-muted;
        text-style: bold;
        & > .paneheader--active { color: $text-accent; text-style: bold; }
        & > .paneheader--note { color: $text-warning; text-style: bold; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"paneheader--active", "paneheader--note"}

    def __init__(self, view: TranscriptView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.counts = ("", "")
        self.note = ""
        """Said at the right end (the filter that is on)."""
        self.drawn: tuple[int, int] | None = None  # (side, width) of the last render

    def refresh_if_stale(self) -> None:
        """Draw again only if the view's side or width moved since the last render."""
        if self.drawn != (self.view.side, self.view.width):
            self.refresh()

    def render(self) -> Text:
        layout = self.view.layout_now
        self.drawn = (self.view.side, self.view.width)
        active = self.get_component_rich_style("paneheader--active", partial=True)
        text = Text(no_wrap=True, end="")
        for side, width in ((0, layout.left), (1, layout.right)):
            title = f" {SIDES[side]} {self.counts[side]}"
            cell = Text(title, style=active if side == self.view.side else "", end="")
            if side == 1 and self.note:
                room = width - cell.cell_len - 2
                if room > 8:
                    note = Text(self.note, style=self.get_component_rich_style("paneheader--note", partial=True))
                    note.truncate(room, overflow="ellipsis")
                    cell.append(" " * (width - cell.cell_len - note.cell_len - 1))
                    cell.append_text(note)
            cell.truncate(width, pad=True)
            text.append_text(cell)
            if side == 0:
                text.append(("" if layout.compact else " change ").center(layout.badge))
        return text
