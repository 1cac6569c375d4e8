"""The lists beside the panes: the repair's changes (kind, index, one-line summary) and a
provider's verdict, item by item; choosing an item jumps to its row.

Each is a ``ScrollView`` that draws only visible rows, so a repair with tens of thousands of
changes costs no more than one with five.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from suture import show
from suture.kinds import KINDS, badge_classes, badge_rules
from suture.repair import Change
from suture.validity import Breach

if TYPE_CHECKING:
    # A provider's verdict comes once the first frame is drawn: its module is imported then.
    from suture.tui.judged import Finding, Judged, Section

__all__ = ["ChangeList", "ItemList", "ProblemList"]

T = TypeVar("T")


class ItemList(ScrollView, Generic[T], can_focus=True):
    """A list of ``items``, one a line, with a cursor. Moving the cursor posts :class:`Chosen`
    so the panes follow. A list says how to write an item (:meth:`line`, cut to the list's width
    where it is drawn) and the message index it is at (:meth:`index_of`, for the width of the
    index column). A list with no items takes no focus (Tab passes it by): it has nothing to
    choose; what it says instead is wrapped over its lines."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="changes.up"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="changes.down"),
        Binding("pageup", "cursor(-10)", "Page up", show=False, id="changes.page_up"),
        Binding("pagedown", "cursor(10)", "Page down", show=False, id="changes.page_down"),
        Binding("home,g", "first", "First", show=False, id="changes.first"),
        Binding("end,G", "last", "Last", show=False, id="changes.last"),
        Binding("enter", "choose", "Jump to row", id="changes.choose", tooltip="Select this item's row, in the panes"),
        Binding(
            "escape,left,h",
            "back",
            "Back to panes",
            show=False,
            id="changes.back",
            tooltip="The panes again (on the side they were on)",
        ),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"changes--cursor", "changes--index", "changes--empty"}
    DEFAULT_CSS = """
    ItemList {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        & > .changes--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
        &:blur > .changes--cursor { background: $primary-muted; color: $foreground; }
        & > .changes--index { color: $foreground-muted; }
        & > .changes--empty { color: $foreground-muted; text-style: italic; }
    }
    """

    cursor: reactive[int] = reactive(0, repaint=False)

    class Chosen(Message):
        """The person moved to or picked an item (``index`` into the list's items)."""

        def __init__(self, owner: ItemList[Any], index: int, picked: bool) -> None:
            self.owner = owner
            self.index = index
            self.picked = picked
            super().__init__()

        @property
        def control(self) -> ItemList[Any]:
            return self.owner

    class Said(Message):
        """What the list's selected line says may have changed, or whether it is the line the
        person looks at (the list took or lost focus): the line under the panes says it whole."""

        def __init__(self, owner: ItemList[Any]) -> None:
            self.owner = owner
            super().__init__()

        @property
        def control(self) -> ItemList[Any]:
            return self.owner

    def __init__(self, *, id: str | None = None, empty: str = "no changes: the transcript is valid as it is") -> None:
        super().__init__(id=id)
        self.items: Sequence[T] = []
        self.empty = empty
        self.digits = 1
        self._cache: LRUCache[tuple[int, int, bool, bool], Strip] = LRUCache(512)
        self._said_lines: tuple[tuple[str, int, Style] | None, tuple[Strip, ...]] = (None, ())

    def set_items(self, items: Sequence[T]) -> None:
        self.items = items
        self.digits = len(str(max((self.index_of(item) for item in items), default=0)))
        self._cache.clear()
        self.virtual_size = Size(0, max(1, len(items)))
        self.set_reactive(ItemList.cursor, min(self.cursor, max(0, len(items) - 1)))
        if self.has_focus and not items:  # nothing left to choose here
            self.action_back()
        elif self.has_focus:
            self.post_message(self.Said(self))
        self.refresh()

    def sync_to(self, index: int) -> None:
        """Put the cursor on a change without posting :class:`Chosen` (the panes moved first)."""
        if 0 <= index < len(self.items) and index != self.cursor:
            self.set_reactive(ItemList.cursor, index)
            self._scroll_to_cursor()
            self._cache.clear()
            self.refresh()

    def allow_focus(self) -> bool:
        return bool(self.items)  # (Tab passes a list with nothing to choose by)

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.items) - 1)) if self.items else 0

    def watch_cursor(self, old: int, new: int) -> None:
        self._cache.clear()
        self.refresh()
        self._scroll_to_cursor()
        if self.items:
            self.post_message(self.Chosen(self, new, picked=False))
            self.post_message(self.Said(self))

    def on_focus(self) -> None:
        self.post_message(self.Said(self))

    def on_blur(self) -> None:
        self.post_message(self.Said(self))

    def _scroll_to_cursor(self) -> None:
        height = self.scrollable_content_region.height
        top = int(self.scroll_y)
        if not height:
            return
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor(self, step: int) -> None:
        self.cursor += step

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self.items) - 1

    def action_back(self) -> None:
        view = self.screen.query_one("#view")
        if view.display:
            view.focus()
        else:
            self.screen.set_focus(None)

    def action_choose(self) -> None:
        if self.items:
            self.post_message(self.Chosen(self, self.cursor, picked=True))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = offset.y + int(self.scroll_y)
        if index < len(self.items):
            self.cursor = index
            self.post_message(self.Chosen(self, index, picked=True))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_y) + y
        width = self.scrollable_content_region.width  # (not under the scrollbar: its ellipsis shows)
        base = self.rich_style
        if not self.items:
            said = self._said(width, base) if self.empty else ()
            return said[index] if index < len(said) else Strip.blank(width, base)
        if index >= len(self.items):
            return Strip.blank(width, base)
        key = (index, width, index == self.cursor, self.has_focus)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._draw(index, width, base)
            self._cache[key] = strip
        return strip.apply_offsets(0, index)

    def _said(self, width: int, base: Style) -> tuple[Strip, ...]:
        """What the list says where it has nothing (it takes no focus then), wrapped whole to
        ``width``: one strip a line, made once for each text, width and style."""
        style = base + self.get_component_rich_style("changes--empty", partial=True)
        key = (self.empty, width, style)
        if self._said_lines[0] != key:
            lines = Text(self.empty, style=style).wrap(self.app.console, max(1, width - 2), overflow="fold")
            self._said_lines = (key, tuple(self._strip(Text(" ", style=style) + line, width, base) for line in lines))
        return self._said_lines[1]

    def index_of(self, item: T) -> int:
        """The index of the message ``item`` is about."""
        raise NotImplementedError

    def line(self, index: int, style: Style) -> Text:
        """The line of item ``index`` whole, in ``style`` (the list cuts it to its width)."""
        raise NotImplementedError

    def _draw(self, index: int, width: int, base: Style) -> Strip:
        return self._strip(self.line(index, base + self._cursor_style(index)), width, base)

    def _cursor_style(self, index: int) -> Style:
        return self.get_component_rich_style("changes--cursor", partial=True) if index == self.cursor else Style()

    def _strip(self, text: Text, width: int, base: Style) -> Strip:
        """``text`` as one line of ``width`` cells, every segment styled. Rich renders a text
        with no spans as one segment with no style, leaving the text's own style to its caller:
        it is applied here, or the line would lose it, and Textual's filters for NO_COLOR take
        only styled segments (the first frame ended in a traceback)."""
        text.truncate(width, overflow="ellipsis", pad=True)
        segments = list(text.render(self.app.console))
        if not text.spans:
            style = self.app.console.get_style(text.style) if text.style else base
            segments = [Segment(segment.text, style) for segment in segments]
        return Strip(segments, text.cell_len).crop_extend(0, width, base)


class ChangeList(ItemList[Change]):
    """The repair's changes in the order of their rows (:attr:`suture.tui.rows.RowModel.listed`):
    as the panes read and ``n`` visits them."""

    COMPONENT_CLASSES: ClassVar[set[str]] = badge_classes("changes--badge")
    DEFAULT_CSS = (
        """
    ChangeList {
"""
        + badge_rules("changes--badge", "color: $text-{colour}; text-style: bold;")
        + """    }
    """
    )

    said_of: Callable[[Change], str] = staticmethod(attrgetter("summary"))
    """What the list says of a change (the model's :meth:`~suture.tui.rows.RowModel.said_of`,
    given with the items)."""

    def index_of(self, item: Change) -> int:
        return item.input_index

    def line(self, index: int, style: Style) -> Text:
        change = self.items[index]
        text = Text(no_wrap=True, overflow="ellipsis", end="", style=style)
        shown = KINDS[change.kind]
        text.append(
            " " + shown.badge.ljust(12),
            self.get_component_rich_style(f"changes--badge-{shown.name}", partial=True),
        )
        text.append(
            f"#{change.input_index}".rjust(self.digits + 1) + "  ",
            self.get_component_rich_style("changes--index", partial=True),
        )
        text.append(show.line(self.said_of(change)))
        return text


class ProblemList(ItemList["Finding | Section | Breach"]):
    """A provider's verdict, item by item (:meth:`suture.tui.judged.Judged.listed`): for a
    session log, the problems in what the agent sends, what it repairs itself and the contract
    view under their headings; for any other file, the problems before repair (what the provider
    would reject now), then any that remain after it; for a file written for no single provider,
    headed by the Valid property every provider shares, its breaches of it. Items are
    ``Finding``, ``Section`` or ``Breach``. Every item's number is the Original's (what ``:#N``
    goes to), a problem left after repair's too: the message its repaired message came from."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "problems--rule",
        "problems--fixed",
        "problems--stays",
        "problems--section",
        "problems--agent",
    }
    DEFAULT_CSS = """
    ProblemList {
        & > .problems--rule { color: $text-error; text-style: bold; }
        & > .problems--fixed { color: $text-success; }
        & > .problems--stays { color: $text-warning; text-style: bold; }
        & > .problems--section { color: $text-primary; text-style: bold; }
        & > .problems--agent { color: $text-success; text-style: bold; }
    }
    """

    agent = ""
    """The agent's name, where the list is about a session log."""

    def index_of(self, item: Finding | Section | Breach) -> int:
        from suture.tui.judged import Finding

        index = item.index if isinstance(item, Finding | Breach) else None
        return index if index is not None and index >= 0 else 0

    def _sent_fixed(self, provider: str) -> bool:
        """Whether suture's repair fixes every problem ``provider`` finds in what the agent sends
        (none is left in what it sends from the session ``suture repair`` writes, as the header's
        "→ 0 after repair" says): each is marked ✓ then. Which of them a repair that leaves some
        fixes is not known, and none is marked."""
        verdicts: dict[str, Judged] | None = getattr(self.app, "verdicts", None)
        judged = verdicts.get(provider) if verdicts is not None else None
        return judged is not None and judged.after_figure == 0  # as the header says it (Judged.left)

    def line(self, index: int, style: Style) -> Text:
        from suture.tui.judged import AFTER, AGENT, SENT, Section, without_agent

        item = self.items[index]
        text = Text(no_wrap=True, overflow="ellipsis", end="", style=style)
        part = self.get_component_rich_style
        if isinstance(item, Section):
            text.append(f" {show.line(item.title)}", part("problems--section", partial=True))
        elif isinstance(item, Breach):
            text.append(f" {'Valid':<6}", part("problems--rule", partial=True))
            text.append(f"#{item.index}".rjust(self.digits + 1) + " ", part("changes--index", partial=True))
            text.append(show.line(item.problem))
        else:
            # No Original's number: a message the agent makes up on resume ("new"), one the
            # repair made (the Original pane's "—" on its row), or a problem of the request's list
            # itself, no message to send ("list").
            if item.index is None:
                number = "—" if item.kind == AFTER else "new"
            else:
                number = f"#{item.index}" if item.index >= 0 else "list"
            if item.kind == AGENT:
                text.append(" ⟲    ", part("problems--agent", partial=True))
                text.append(number.rjust(self.digits + 1) + " ", part("changes--index", partial=True))
                assert item.fix is not None
                text.append(show.line(without_agent(item.fix.summary, self.agent)))
            else:
                violation = item.violation
                assert violation is not None
                rule = part("changes--index" if item.contract else "problems--rule", partial=True)
                text.append(f" {show.line(violation.rule):<4} ", rule)
                text.append(number.rjust(self.digits + 1) + " ", part("changes--index", partial=True))
                if item.kind == AFTER:
                    text.append("after repair ", part("problems--stays", partial=True))
                elif item.kind == SENT:  # fixed by the repair where every one is, else not said
                    fixed = self._sent_fixed(item.provider)
                    text.append("✓ " if fixed else "  ", part("problems--fixed", partial=True))
                elif violation.fixed:
                    text.append("✓ ", part("problems--fixed", partial=True))
                else:
                    text.append("✗ ", part("problems--stays", partial=True))
                text.append(show.line(violation.problem))
        return text
