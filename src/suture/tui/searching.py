"""The search flow of :class:`~suture.tui.app.SutureApp`: ``/`` searches message text and ids
(in a worker), ``]`` and ``[`` step through the matches, ``esc`` clears the search and the row
filter.

While a large file is still loading, a search looks through the messages shown so far and says
so. One that finds nothing there is not a "no match": it is searched again as each further piece
is shown (one search at a time), and goes to the first match as soon as it is read.

:class:`SearchFlow` is a part of the app (the app inherits it) and keeps the search's state.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App
from textual.widgets import Input

from suture import show
from suture.tui.bars import InfoBar, panes_gone
from suture.tui.rows import next_round
from suture.words import count

if TYPE_CHECKING:
    from textual.worker import Worker

    from suture.tui.rows import RowModel
    from suture.tui.view import TranscriptView

__all__ = ["SearchFlow"]

_RUNNING = threading.Lock()
"""Held to count the searches running (:attr:`SearchFlow.searches_running`)."""


class SearchFlow(App[None]):
    """Search the rows (``/``), step through the matches (``]``, ``[``), clear (``esc``)."""

    matches: list[int]
    """The rows that match the search, in order."""
    match_query: str
    """The text searched for ("" for no search)."""
    search_state: str
    """What the info bar says of the search (its position among the matches)."""
    search_waiting: str = ""
    """A search that found nothing in what was read of a file still loading: searched again as
    more is shown, and gone to once found ("" for none)."""
    searches_running: int = 0
    """Searches under way in their threads (one cancelled still runs to its end)."""
    _search_worker: Worker[None] | None = None
    """The search asked for last (by :meth:`search`)."""

    if TYPE_CHECKING:  # what the search uses of the app
        model: RowModel | None
        row_filter: str

        @property
        def view(self) -> TranscriptView: ...

        def _apply_filter(self) -> None: ...

        def _go_round(self, rows: list[int], step: int, what: str, plural: str) -> int | None: ...

        def refuse(self, action: str) -> bool: ...

        def text_box(self, name: str) -> Input: ...

    def action_search(self) -> None:
        if self.refuse("search"):
            return
        box = self.text_box("search")
        box.display = True
        box.value = self.match_query
        # At once, not after this message (``focus()``): the keys after the slash are sent on to
        # whatever has focus as soon as this binding returns.
        self.screen.set_focus(box)

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        box = self.text_box("search")
        box.display = False
        self.view.focus()
        query = event.value.strip()
        self.search_waiting = ""
        if not query:
            self.action_clear_search()
            return
        self._set_search(f"searching for “{show.line(query)}”…")  # (a million rows take seconds)
        self.search(query, jump=True)

    def search(self, query: str, jump: bool = True) -> None:
        """Search the rows shown for ``query`` in a worker (in place of a search under way), and
        go to the first match at or after the cursor (``jump``)."""
        self._search_worker = self.run_search(query, jump)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, query: str, jump: bool = True) -> None:
        model = self.model
        if model is None:
            return
        with _RUNNING:
            self.searches_running += 1
        try:
            rows = model.search(query)
            self.call_from_thread(self._searched, query, rows, jump, model)
        finally:
            with _RUNNING:
                self.searches_running -= 1

    def search_more_shown(self) -> None:
        """More of a loading file is shown: search it too, unless a search is under way (it
        searches again what is shown when it ends), so searches never pile up while a large file
        loads (one cancelled still runs to its end in its thread)."""
        asked = self._search_worker
        if self.searches_running or (asked is not None and not asked.is_finished):
            return
        if self.search_waiting:  # one that found nothing yet: gone to as soon as it is found
            self.search(self.search_waiting, jump=True)
        elif self.match_query:  # the rows read since hold more matches
            self.search(self.match_query, jump=False)

    def _searched(self, query: str, rows: list[int], jump: bool, model: RowModel) -> None:
        if panes_gone(self):
            return  # (the app is closing)
        if model is not self.model:
            # More of a loading file was read meanwhile: search what is shown now.
            if self.model is not None and model.partial and query in (self.match_query, self.search_waiting):
                self.search(query, jump)
            return
        was_waiting = self.search_waiting == query
        # A search that found nothing in what was read, found now (in more of the file or all of it).
        waited = was_waiting and (bool(rows) or not model.partial)
        if waited or self.search_waiting != query:
            self.search_waiting = ""
        jump = jump or waited
        self.match_query = query
        self.matches = rows
        self.view.set_matches(query, rows)
        self.refresh_bindings()
        if self.row_filter == "matches":
            self._apply_filter()
        if not rows and model.partial:
            self.search_waiting = query
            said = f"“{show.line(query)}” not found in the {model.inputs:,} messages shown so far; still loading"
            self._set_search(f"{said}: searched again as more is read")
            if jump and not was_waiting:  # said once, not again at each piece read
                self.notify(f"{said}: searched again as more of the file is read", markup=False)
            return
        if not rows:
            self._set_search(f"no match for “{query}”")
            if jump:
                whole = " in the whole file" if waited else ""
                self.notify(f"no match for “{show.line(query)}”{whole}", severity="warning", markup=False)
            return
        if jump:
            # From the cursor on; past the last match it goes round, and says so as ] does.
            row, went_round = next_round(rows, self.view.cursor - 1, 1, "match")
            self.view.select(rows[0] if row is None else row, center=True)
            if went_round and not waited:
                self.notify(went_round, timeout=3, markup=False)
            if waited:
                n = len(rows)
                where = f"in the first {model.inputs:,} messages read" if model.partial else "once the file was read"
                self.notify(f"“{show.line(query)}” found {where}: {count(n, 'match', 'matches')}", markup=False)
        self._say_match()

    def _say_match(self) -> None:
        rows = self.matches  # (in row order: found by halving, at every move of the cursor)
        cursor = self.view.cursor
        k = bisect_left(rows, cursor)
        at = k + 1 if k < len(rows) and rows[k] == cursor else 0
        where = f"{at}/{len(rows):,}" if at else f"{len(rows):,} matches"
        model = self.model
        if model is not None and model.partial:
            where += f" in the {model.inputs:,} messages shown so far"
        self._set_search(f"/{self.match_query}: {where}  ] next  [ prev")

    def _set_search(self, text: str) -> None:
        if text == self.search_state:
            return  # (said already: the cursor moved among rows that change nothing of it)
        self.search_state = text
        info = self.query_one("#info", InfoBar)
        info.search = text
        info.refresh()

    def action_search_step(self, step: int) -> None:
        if self.refuse("search_step"):
            return
        if self._go_round(self.matches, step, "match", "matches") is not None:
            self._say_match()

    def action_clear_search(self) -> None:
        """Turn the row filter and the search off (``esc``)."""
        if self.row_filter != "all":
            self.row_filter = "all"
            self._apply_filter()
        self.search_waiting = ""
        if self.match_query:
            self.match_query = ""
            self.matches = []
            self.view.set_matches("", [])
            self.refresh_bindings()
            self._set_search("")
