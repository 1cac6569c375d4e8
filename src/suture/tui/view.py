"""The two panes, Original and Repaired, drawn as one scrolling view so their rows stay aligned.

Only the rows on screen are drawn (``render_line``); a row is a few Rich ``Text`` pieces built
from data with ``Text.append``, never from markup, so transcript content shows literally.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from suture.repair import ChangeKind
from suture.tui.rows import KIND_BADGES, RowModel

__all__ = ["Layout", "PaneHeader", "TranscriptView"]

BADGE_WIDTH = 13
ROLE_WIDTH = 9
SPAN_STYLES = 4
_KIND_CLASS = {
    ChangeKind.MOVED_RESULT: "moved",
    ChangeKind.SYNTHETIC_INTERRUPT: "interrupt",
    ChangeKind.ORPHAN_NOTE: "note",
    ChangeKind.RENAMED_ID: "renamed",
    ChangeKind.DROPPED_PLACEHOLDER: "dropped",
}
SIDES = ("Original", "Repaired")


def kind_class(kind: ChangeKind) -> str:
    return _KIND_CLASS[kind]


@dataclass(frozen=True, slots=True)
class Layout:
    """Column widths for a view ``width`` cells wide: left pane, badge column, right pane."""

    width: int
    digits: int

    @property
    def left(self) -> int:
        return max(0, (self.width - BADGE_WIDTH) // 2)

    @property
    def badge(self) -> int:
        return min(BADGE_WIDTH, self.width)

    @property
    def right(self) -> int:
        return max(0, self.width - self.badge - self.left)

    def side_at(self, x: int) -> int | None:
        if x < self.left:
            return 0
        if x >= self.left + self.badge:
            return 1
        return None


class TranscriptView(ScrollView, can_focus=True):
    """Rows of aligned messages. Keys move the cursor; the app listens for :class:`Moved`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="view.up", tooltip="Select the row above"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="view.down", tooltip="Select the row below"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="view.page_up"),
        Binding("pagedown,ctrl+f,space", "page(1)", "Page down", show=False, id="view.page_down"),
        Binding("home,g", "first", "First row", show=False, id="view.first"),
        Binding("end,G", "last", "Last row", show=False, id="view.last"),
        Binding("left,h", "side(0)", "Original side", show=False, id="view.original"),
        Binding("right,l", "side(1)", "Repaired side", show=False, id="view.repaired"),
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
        *(f"transcript--badge-{name}" for name in _KIND_CLASS.values()),
    }

    DEFAULT_CSS = """
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
        & > .transcript--badge-moved { background: $primary-muted; color: $foreground; text-style: bold; }
        & > .transcript--badge-interrupt { background: $warning-muted; color: $foreground; text-style: bold; }
        & > .transcript--badge-note { background: $secondary-muted; color: $foreground; text-style: bold; }
        & > .transcript--badge-renamed { background: $accent-muted; color: $foreground; text-style: bold; }
        & > .transcript--badge-dropped { background: $error-muted; color: $foreground; text-style: bold; }
    }
    """

    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)
    side: reactive[int] = reactive(1, repaint=False)

    class Moved(Message):
        """The cursor moved to a row (or the model changed under it)."""

        def __init__(self, row: int) -> None:
            self.row = row
            super().__init__()

    class Opened(Message):
        """The person asked to see the selected row whole."""

        def __init__(self, row: int, side: int) -> None:
            self.row = row
            self.side = side
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: RowModel | None = None
        self.matches: set[int] = set()
        self.query_text = ""
        self._cache: LRUCache[tuple[int, int, bool, int, bool], Strip] = LRUCache(1024)

    # -- data --------------------------------------------------------------------------------

    def set_model(self, model: RowModel, cursor: int = 0, scroll_y: float | None = None) -> None:
        self.model = model
        self._cache.clear()
        self.virtual_size = Size(0, len(model))
        self.set_reactive(TranscriptView.cursor, self._clamp(cursor))
        if scroll_y is not None:
            self.scroll_to(y=scroll_y, animate=False, immediate=True)
        self.show_cursor(center=scroll_y is None and cursor > 0)
        self.refresh()
        self.post_message(self.Moved(self.cursor))

    def set_matches(self, query: str, rows: list[int]) -> None:
        self.query_text = query
        self.matches = set(rows)
        self._cache.clear()
        self.refresh()

    @property
    def layout_now(self) -> Layout:
        n = len(self.model) if self.model else 0
        return Layout(self.size.width, max(3, len(str(max(n - 1, 0)))))

    # -- cursor ------------------------------------------------------------------------------

    def _clamp(self, row: int) -> int:
        n = len(self.model) if self.model else 0
        return max(0, min(row, n - 1)) if n else 0

    def validate_cursor(self, row: int) -> int:
        return self._clamp(row)

    def watch_cursor(self, old: int, new: int) -> None:
        # The cache key holds whether a row is the cursor's, so only the two rows that changed
        # are drawn again.
        self.refresh()
        self.show_cursor()
        self.post_message(self.Moved(new))

    def watch_side(self) -> None:
        self._cache.clear()
        self.refresh()
        self.post_message(self.Moved(self.cursor))

    def select(self, row: int, center: bool = False) -> None:
        self.set_reactive(TranscriptView.cursor, self._clamp(row))
        self.refresh()
        self.show_cursor(center=center)
        self.post_message(self.Moved(self.cursor))

    def show_cursor(self, center: bool = False) -> None:
        height = self.scrollable_content_region.height or self.size.height
        if not height:
            return
        row = self.cursor
        top = int(self.scroll_y)
        if center:
            if row < top or row >= top + height:
                self.scroll_to(y=max(0, row - height // 2), animate=False, immediate=True)
        elif row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)

    def action_cursor(self, step: int) -> None:
        self.cursor += step

    def action_page(self, step: int) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        self.cursor += step * height

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self.model) - 1 if self.model else 0

    def action_side(self, side: int) -> None:
        self.side = side

    def action_open(self) -> None:
        if self.model and len(self.model):
            self.post_message(self.Opened(self.cursor, self.side))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.model is None:
            return
        row = offset.y + int(self.scroll_y)
        if row >= len(self.model):
            return
        side = self.layout_now.side_at(offset.x)
        if side is not None:
            self.side = side
        if event.chain >= 2 and row == self.cursor:
            self.action_open()
        else:
            self.cursor = row

    def on_resize(self) -> None:
        self._cache.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    # -- drawing -----------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        row = int(self.scroll_y) + y
        width = self.size.width
        base = self.rich_style
        if self.model is None or row >= len(self.model):
            return Strip.blank(width, base)
        key = (row, width, row == self.cursor, self.side, self.has_focus)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._draw(row, width, base)
            self._cache[key] = strip
        return strip.apply_offsets(0, row)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"transcript--{name}", partial=True)

    def _draw(self, row: int, width: int, base: Style) -> Strip:
        model = self.model
        assert model is not None
        layout = self.layout_now
        selected = row == self.cursor
        cursor = self._style("cursor")
        other = self._style("cursor-other")
        # The widget's own style under everything: since Textual 6 segments without a background
        # do not take the widget's.
        line = Text(no_wrap=True, overflow="ellipsis", end="", style=base)
        for side in (0, 1):
            back = (cursor if side == self.side else other) if selected else Style()
            here = selected and side == self.side
            cell = self._pane(model, side, row, layout.left if side == 0 else layout.right, layout.digits, back, here)
            if side == 0:
                line.append_text(cell)
                line.append_text(self._badge(model, row, layout.badge, back))
            else:
                line.append_text(cell)
        segments = list(line.render(self.app.console))
        strip = Strip(segments, line.cell_len)
        return strip.crop_extend(0, width, base)

    def _badge(self, model: RowModel, row: int, width: int, back: Style) -> Text:
        changes = model.row_changes.get(row)
        if not changes:
            return Text(" " * width, style=back, end="")
        first = changes[0]
        label = KIND_BADGES[first.kind]
        if len(changes) > 1:
            label += f" +{len(changes) - 1}"
        label = f" {label}".ljust(width - 1)[: width - 1] + " "
        text = Text(end="")
        text.append(label[:-1], self._style(f"badge-{kind_class(first.kind)}"))
        text.append(" ", back)
        return text

    def _pane(
        self, model: RowModel, side: int, row: int, width: int, digits: int, back: Style, selected_here: bool
    ) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis", end="", style=back)
        if width <= 0:
            return text
        index = model.left[row] if side == 0 else model.right[row]
        span = model.span_of(side, row)
        if span is not None:
            text.append("▌", self._style(f"span-{span % SPAN_STYLES}"))
        else:
            text.append(" ")
        if index is None:
            label = "— dropped, not sent —" if side == 1 else "— added by repair —"
            text.append(" " * (digits + 1 + ROLE_WIDTH + 1))
            text.append(label, self._style("slot"))
        else:
            message = model.original(row) if side == 0 else model.repaired(row)
            assert message is not None
            number_style = self._style("match") if row in self.matches else self._style("index")
            if selected_here and row not in self.matches:
                number_style = Style()
            text.append(str(index).rjust(digits), number_style)
            text.append(" ")
            role = message.role
            role_class = role if role in ("user", "assistant", "tool", "system") else "user"
            shown = role if len(role) <= ROLE_WIDTH else role[: ROLE_WIDTH - 1] + "…"
            text.append(shown.ljust(ROLE_WIDTH), Style() if selected_here else self._style(f"role-{role_class}"))
            text.append(" ")
            start = len(text)
            plain = selected_here
            for piece in model.summary(side, row):
                room = width + 8 - len(text)
                if room <= 0:
                    break
                style = self._style(piece.kind) if piece.kind != "text" and not plain else Style()
                # Cut a long piece (a whole message's text) to what can show before styling it.
                text.append(piece.text[:room], style)
            if self.query_text and row in self.matches:
                self._highlight(text, start)
        text.truncate(width, overflow="ellipsis", pad=True)
        return text

    def _highlight(self, text: Text, start: int) -> None:
        needle = self.query_text.casefold()
        hay = text.plain.casefold()
        style = self._style("match")
        at = hay.find(needle, start)
        while at >= 0 and needle:
            text.stylize(style, at, at + len(needle))
            at = hay.find(needle, at + len(needle))

    def region_of(self, row: int) -> Region:
        return Region(0, row, self.size.width, 1)


class PaneHeader(Widget):
    """The titles above the two panes, lined up with the view's columns."""

    DEFAULT_CSS = """
    PaneHeader {
        height: 1;
        background: $panel;
        color: $foreground-muted;
        text-style: bold;
        & > .paneheader--active { color: $text-accent; text-style: bold; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"paneheader--active"}

    def __init__(self, view: TranscriptView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.counts = ("", "")

    def render(self) -> Text:
        layout = self.view.layout_now
        active = self.get_component_rich_style("paneheader--active", partial=True)
        text = Text(no_wrap=True, end="")
        for side, width in ((0, layout.left), (1, layout.right)):
            title = f" {SIDES[side]} {self.counts[side]}"
            cell = Text(title, style=active if side == self.view.side else "", end="")
            cell.truncate(width, pad=True)
            text.append_text(cell)
            if side == 0:
                text.append(" change ".center(layout.badge))
        return text
