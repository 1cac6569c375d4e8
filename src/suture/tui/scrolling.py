"""The scrolling panes and pick lists of the screens a key opens (details, help, the records not
sent, explain, the provider picker), moved with j/k and g/G as every list is
(:data:`suture.tui.keys.SCROLL_KEYS`, :data:`~suture.tui.keys.LIST_KEYS`). A module of their own:
the main screen has neither, and the first screen does not make their classes."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.widgets import OptionList

from suture.tui.keys import LIST_KEYS, SCROLL_KEYS

__all__ = ["PickList", "Scroll"]


class Scroll(VerticalScroll):
    """A scrolling pane that also moves with j/k and g/G."""

    BINDINGS: ClassVar[list[BindingType]] = SCROLL_KEYS


class PickList(OptionList):
    """An option list that also moves with j/k and g/G."""

    BINDINGS: ClassVar[list[BindingType]] = LIST_KEYS
