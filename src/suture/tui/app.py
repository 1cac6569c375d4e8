"""The suture app: a transcript and its repair side by side, live, exportable.

Reading, parsing, repairing and building rows happen in thread workers (``suture.live`` does the
reading); the app only renders :class:`~suture.model.Transcript` and
:class:`~suture.repair.Repair` through :class:`~suture.tui.rows.RowModel`. The file's folder is
watched (editors save by rename) and each change reloads the view in place.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import re
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import orjson
from rich.style import Style
from textual import events, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingsMap, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.keys import format_key
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from suture import show
from suture._deferred import deferred
from suture.formats import compaction_line, skipped
from suture.io import keeping_built
from suture.kinds import KINDS
from suture.live import LiveFile, Update
from suture.model import Source, Transcript
from suture.tail import Partial
from suture.tui.banner import Banner, Recorded, request_words
from suture.tui.bars import InfoBar, ListHeading, StatusBar, export_reordered, panes_gone
from suture.tui.changes import ChangeList, ItemList, ProblemList
from suture.tui.checking import WRITTEN_AT_LOAD, CheckFlow
from suture.tui.contrast import ContrastFilter
from suture.tui.exporting import ExportFlow, default_export_path
from suture.tui.keys import LIST_KEYS, KeyBar, every_binding, keys_now, rebound, shadowed
from suture.tui.palette import BadgePalette
from suture.tui.quiet import Quiet
from suture.tui.rows import RowBuilder, RowModel, human_size, next_round
from suture.tui.searching import SearchFlow
from suture.tui.view import SIDES, PaneHeader, TranscriptView
from suture.validity import Breach
from suture.words import count

if TYPE_CHECKING:
    from textual.notifications import Notification

    from suture.checks.explain import Pointer
    from suture.sent.numbered import SentRequest
    from suture.tui.details import DetailScreen
    from suture.tui.screens import HelpScreen, record_json
    from suture.written import document_lines, lines_of, written
else:  # What a key opens, imported when first used: the first screen does not wait for it.
    DetailScreen = deferred("suture.tui.details", "DetailScreen")
    HelpScreen = deferred("suture.tui.screens", "HelpScreen")
    record_json = deferred("suture.tui.screens", "record_json")
    lines_of = deferred("suture.written", "lines_of")
    document_lines = deferred("suture.written", "document_lines")
    written = deferred("suture.written", "written")

__all__ = ["SutureApp", "default_export_path"]


def _takes_text(widget: object) -> bool:
    """Whether ``widget`` is a box that takes typed text: an input, or a text area (only a screen a
    key opens has one, so Textual's text area is looked for only once something imported it)."""
    if isinstance(widget, Input):
        return True
    area = sys.modules.get("textual.widgets._text_area")
    return area is not None and isinstance(widget, area.TextArea)


class Loaded(Message):
    """A worker read the file: what it found, and rows built for it when it changed."""

    def __init__(self, update: Update, model: RowModel | None, initial: bool) -> None:
        super().__init__()
        self.update = update
        self.model = model
        self.initial = initial


class Loading(Message):
    """A large file's first read is under way: how far (``model`` None), or a state of what is
    read so far, with its rows. ``drawn``, where given, is set once the state is on screen (the
    reader waits for the first one)."""

    def __init__(self, partial: Partial, model: RowModel | None, drawn: threading.Event | None = None) -> None:
        super().__init__()
        self.partial = partial
        self.model = model
        self.drawn = drawn


FIRST_SCREEN_WAIT = 2.0
"""Seconds the first read of a large file waits, its first screen read, for the app to draw it."""

FIRST_STATE_WAIT = 0.2
"""Seconds the app waits, before it draws anything, for the first state of the file it opens
(the first screenful of a large file, the whole of a small one), so that its first frame shows
the transcript rather than a "reading…" line followed by a second full redraw. A file slower than
this shows "reading…" first, as before."""

DOCUMENT_LINES_AT_LOAD = 16 * 1024 * 1024
"""Bytes of a JSON document up to which the line of each record is found as soon as it is read
(for the info line); a larger one's are found when the go-to box opens."""
WRITTEN_SETTLE = 1.0
"""Seconds with no reload before a session log's export is worked out again (a followed session
is appended to every few seconds: its export is not written again at each append), at most
:data:`suture.tui.quiet.MOST_WAIT` after the first reload not worked out."""

VERIFY_SETTLE = 1.0
"""Seconds with no reload before a file whose appends were taken unchecked (a large one: see
:mod:`suture.tail`) is checked whole against what was read."""

CHECKS_NOT_READY = "provider checks are not ready"
"""What a key that needs the provider checks says while they are still to come."""


_NOTHING_HERE = "the repair changes nothing here"
_NO_MESSAGE = "the repair changes no message here"


def _nothing_changed(model: RowModel) -> str:
    """What the Changes list says where the repair changes no message: that, and where the
    session written still has a turn in another order (its outputs right after its calls, as a
    strict server needs), that too, as ``suture repair`` says it."""
    turns = model.reordered()
    return f"{_NO_MESSAGE}; {export_reordered(turns)}" if turns else _NOTHING_HERE


def _counted_as(
    transcript: Transcript, typed: str, provider: str | None, request: SentRequest | None, found: Pointer
) -> str:
    """For a session log, which request a provider's pointer typed in go-to (``messages.9``)
    counts: what the agent sends on resume, as the provider's errors do (where what ``found``
    says does not say already); and where the file sent as written (the count of the problems
    list's contract view) has another message there, which. ``""`` for a line, suture's own
    ``#n``, or a file that is no session log."""
    wire = re.match(r"(messages|input|contents|items)\b", typed, re.IGNORECASE)
    if request is None or request.agent is None or wire is None:
        return ""
    from suture.checks.explain import resolve

    said = f" of {request.label}" if found.said.casefold() == typed.casefold() else ""
    written = resolve(transcript.messages, typed, provider or request.provider, None).indices
    if written and written[:1] != found.indices[:1]:
        said += f"; in the file sent as written (the contract view's count) it is #{written[0]}"
    return said


def freeze_heap() -> None:
    """Take every object alive now out of the cycle collector's sight (``gc.freeze``).

    A loaded 100,000-message transcript is millions of objects, and a full collection over them
    takes about 300 ms: it would land on some key press. They live as long as the model does, and
    when a reload replaces the model they are still freed, by reference counting: the model holds
    no reference cycles (``tests/test_tui.py`` checks that an old model is freed)."""
    gc.freeze()


def _reload_said(
    old: Transcript,
    transcript: Transcript,
    added: int,
    changed: tuple[int, int, int],
    compacted: int | None,
    unseen: int = 0,
) -> str:
    """What the reload note says a full read or an append brought (``changed`` as in
    :meth:`SutureApp._show`; ``compacted``: the line of a compaction written meanwhile).
    ``unseen``: the messages earlier appends brought since the person last pressed a key or
    clicked, where this read only appends too (:func:`_appended_only`): counted in, so that the
    note says all an agent wrote while it was watched, not its last line."""
    messages = count(len(transcript.messages), "message")
    if old.format != transcript.format:  # another file now: not so many more messages
        return f"now {transcript.format}, {messages}"
    if compacted is not None:  # the history starts again from the compaction's summary
        return f"compacted at line {compacted}, {messages}"
    different, kept, shared_end = changed
    if different and different == kept:  # no message where it was: another file now
        return f"rewritten, {messages}"
    # What changed at the places shown before, then what was put in or cut.
    parts = [f"{count(different, 'message')} changed"] if different else []
    if added:
        # Put in or cut before the messages both reads end with: where, by its index.
        at = f" at #{kept - different - shared_end}" if shared_end else ""
        added += unseen
        parts.append(("+" if added > 0 else "−") + count(abs(added), "message") + at)
    return ", ".join(parts) or "reloaded"


def _appended_only(old: Transcript, transcript: Transcript, added: int, changed: tuple[int, int, int]) -> bool:
    """Whether a reload only put messages at the end of the same file's history."""
    return added > 0 and not changed[0] and not changed[2] and old.format == transcript.format


class _Row(Horizontal):
    """A row of the panes' screen that its children cover whole and that has no border (Textual's
    ``BLANK``: its lines are drawn as blank strips of its background, not styled one by one)."""

    BLANK = True


class _Column(Vertical):
    """A column of the panes' screen that its children cover whole and that has no border in any
    layout (see :class:`_Row`)."""

    BLANK = True


class PanesScreen(Screen[None]):
    """The app's main screen (the panes, the lists and the bars).

    Its widgets are styled as they mount. When a screen is first shown, Textual styles every
    widget on it again (``ScreenResume.refresh_styles``), which changes nothing there and took
    some 50 M machine instructions of the first screen (``bench/run.py --only firstwork``: each
    of the panes' 80 component classes is a node styled apart). This screen's handler runs
    before Textual's own (Textual calls a subclass's first) and skips that one restyle; every
    later resume, back from a dialog, restyles as Textual does."""

    BLANK = True  # (its widgets cover it whole: see _Row)
    _shown = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._shown:
            self._shown = True
            event.refresh_styles = False

    def on_screen_suspend(self) -> None:
        hide_toasts(self)


def hide_toasts(screen: Screen[Any]) -> None:
    """Hide the notifications drawn on ``screen`` as another screen comes over it: Textual shows
    them on the screen on top, and a dialog that leaves this one in sight showed each twice (the
    one here stayed drawn under it). Textual shows them here again when this screen comes back."""
    for rack in screen.query_children("ToastRack"):
        rack.display = False


class SutureApp(CheckFlow, ExportFlow, SearchFlow, BadgePalette):
    """``SutureApp(path)`` shows ``path``; ``watch=False`` reads it once (tests, the demo)."""

    TITLE = "suture"
    AUTO_FOCUS = "#view"
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute, so subclasses elsewhere find it
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_change", "Next change", id="app.next_change", tooltip="Jump to the next change"),
        Binding("N", "previous_change", "Prev change", id="app.previous_change", tooltip="Jump to the previous change"),
        # A priority binding runs as the key arrives, before the keys after it are sent to the
        # focused widget: "/lint" typed fast (or pasted) goes into the search box, not to the view.
        Binding(
            "slash", "search", "Search", key_display="/", id="app.search", tooltip="Search text and ids", priority=True
        ),
        Binding(
            "right_square_bracket",
            "search_step(1)",
            "Next match",
            key_display="]",
            show=False,
            id="app.next_match",
        ),
        Binding(
            "left_square_bracket",
            "search_step(-1)",
            "Prev match",
            key_display="[",
            show=False,
            id="app.previous_match",
        ),
        Binding(
            "x",
            "problem(1)",
            "Next problem",
            id="app.next_problem",
            tooltip="Jump to the next provider problem (where there is none, the next item listed)",
        ),
        Binding("X", "problem(-1)", "Prev problem", show=False, id="app.previous_problem"),
        Binding(
            "exclamation_mark",
            "go_error",
            "Go to error",
            key_display="!",
            id="app.go_error",
            tooltip="Go to the message the session's recorded API error names",
        ),
        Binding("E", "explain", "Explain", id="app.explain", tooltip="Explain an error: paste a provider's error text"),
        Binding(
            "b",
            "fold_banner",
            "Fold the error",
            show=False,
            id="app.fold_banner",
            tooltip="Fold the recorded API error above the panes to one line, or unfold it",
        ),
        Binding(
            "s",
            "not_sent",
            "Not sent",
            id="app.not_sent",
            tooltip="What the file holds that the agent does not send (API errors, failed turns, history before "
            "a compaction), each record as written",
        ),
        Binding(
            "colon",
            "goto",
            "Go to",
            key_display=":",
            id="app.goto",
            tooltip="Go to messages.N, input[N], contents[N], a line of the file, or #N",
            priority=True,
        ),
        Binding("p", "pick_provider", "Provider", id="app.provider", tooltip="Choose the provider to check against"),
        Binding("y", "copy", "Copy", id="app.copy", tooltip="Copy the selected message's JSON (focused side)"),
        Binding("e", "export", "Export", id="app.export", tooltip="Write the repaired transcript"),
        Binding("f", "follow", "Follow", id="app.follow", tooltip="Follow the end of the file, like tail -f"),
        Binding("r", "reload", "Reload", show=False, id="app.reload", tooltip="Read the file again now"),
        Binding(
            "c",
            "toggle_changes",
            "Lists",
            id="app.toggle_changes",
            tooltip="Show or hide the lists of changes and problems (beside the panes, or below them when narrow)",
        ),
        Binding(
            "v",
            "filter('next')",
            "Filter",
            id="app.filter",
            tooltip="Show only changed rows, then only rows with provider problems (where there is none, the rows "
            "listed), then only search matches, then all",
        ),
        Binding(
            "escape", "clear_search", "Clear", show=False, id="app.clear_search", tooltip="Clear the search and filter"
        ),
        Binding("question_mark,f1", "help", "Help", key_display="?", id="app.help", tooltip="Every key"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        *,
        format: str | None = None,
        read_only: frozenset[str] = frozenset(),
        watch: bool = True,
        export_dir: Path | None = None,
        title: str | None = None,
        debounce_ms: int = 200,
        collector_paused: bool = False,
        hint: str = "",
        keymap: Mapping[str, str] | None = None,
    ) -> None:
        """``path`` None starts with no file: a subclass shows something else first and calls
        :meth:`open_file` (the sessions browser does). ``collector_paused``: the caller paused
        the cycle collector for the app's start (``suture FILE`` does, before it imports the
        app); once the first screen is drawn, the app takes everything made so far out of the
        collector's sight and resumes it. ``hint``: what to try, said once the first screen is
        out (``suture demo`` says it). ``keymap``: the keys the person binds otherwise, by
        binding id (:mod:`suture.settings`)."""
        super().__init__()
        self.keymap: Mapping[str, str] = dict(keymap or {})
        if self.keymap:
            self.set_keymap(dict(self.keymap))
        self._hint = hint
        self._collector_paused = collector_paused
        # Every text at 4.5:1 contrast or more, in every theme (after ANSI colours are resolved).
        self._filters.append(ContrastFilter())
        self.read_only = read_only
        self.watching = watch
        self.export_dir = export_dir
        self.lists_wanted: bool | None = None  # None: shown when the window is wide enough
        self.debounce_ms = debounce_ms
        # One reader at a time, whatever the file; what is asked for while it reads, it reads
        # next (merged).
        self._read_lock = threading.Lock()
        self._read_wanted: tuple[bool, bool] | None = None  # (whole, verify)
        self._reading = False
        # While the app waits to draw its first frame: the reader's first state is handed here
        # instead of being posted (see :meth:`_first_read`).
        self._first_state: list[Loaded | Loading] | None = None
        self._first_came: Callable[[], object] = lambda: None
        self._first_wait = asyncio.Event()
        self._loaded_first: Loaded | Loading | None = None  # what :meth:`on_load` waited for
        self._keeping = contextlib.ExitStack()
        self._new_file(Path(path) if path is not None else None, format, title)

    def _new_file(self, path: Path | None, format: str | None, title: str | None = None) -> None:
        """The state of the file shown, as it is before the file is first read."""
        self._file = (
            (path, LiveFile(path, format, self.read_only.__contains__ if self.read_only else None)) if path else None
        )
        shown = show.path(path) if path is not None else ""
        if len(shown) > 48 and path is not None:
            shown = f"…/{show.path(path.name)}"
        self.shown_name = title or shown
        self.model: RowModel | None = None
        self.following = False
        self.matches = []
        self.match_query = ""
        self.error: str | None = None
        self._moving = False
        self.new_checks()
        self.search_state = ""
        self.row_filter = "all"
        self.recorded: Recorded | None = None
        self.reloaded: tuple[str, float] | None = None
        self._appended_unseen = 0
        """Messages appends brought since the person last pressed a key or clicked (the reload
        note counts them all: :func:`_reload_said`)."""
        self._reload_ticker: Timer | None = None
        self._reload_asked = False
        self._export_choice = ""
        self.history_not_sent: list[str] = []
        """What the shown file holds before a compaction, in sentences (:func:`suture.formats.skipped`)."""
        """Whether ``r`` asked for the read under way (it says when the file is as shown)."""
        self._verify_timer: Timer | None = None
        self._export_timer: Timer | None = None
        self._export_quiet = Quiet()
        self._not_ready_toasts: list[Notification] = []
        """The toasts that said the provider checks were not ready (:meth:`refuse`)."""
        self.shown_version = 0
        """The :attr:`LiveFile.version` of what the view shows."""
        self._rows = RowBuilder()
        self._lines_kept: tuple[weakref.ref[RowModel], list[tuple[int, int] | None]] | None = None
        """The lines of the messages of a JSON document, for the model they were found for."""
        self._shown_notes: list[str] = []
        """The status line's notes about the version shown (lines skipped, an export over it)."""
        self._lines_lock = threading.Lock()
        """Held while the lines of a JSON document's records are found (:meth:`_document_lines`:
        in a worker when the go-to box opens, or by the box itself): found once, not twice."""

    # Actions that act on the main screen's panes; elsewhere (details, help) they are off, and the
    # footer leaves them out.
    MAIN_ONLY: ClassVar[frozenset[str]] = frozenset(
        {
            "next_change",
            "previous_change",
            "search",
            "search_step",
            "copy",
            "export",
            "follow",
            "toggle_changes",
            "clear_search",
            "problem",
            "pick_provider",
            "filter",
            "go_error",
            "explain",
            "goto",
            "not_sent",
            "details",
            "fold_banner",
        }
    )

    # Actions that need rows to act on: with no transcript shown (loading, unreadable, empty)
    # they are off and the footer leaves them out.
    NEEDS_ROWS: ClassVar[frozenset[str]] = frozenset(
        {
            "next_change",
            "previous_change",
            "search",
            "search_step",
            "copy",
            "export",
            "follow",
            "toggle_changes",
            "problem",
            "pick_provider",
            "filter",
            "goto",
            "details",
        }
    )

    # The keys the footer keeps longest when the window is narrow, most important first.
    FOOTER_KEEP: ClassVar[tuple[str, ...]] = (
        "app.help",
        "app.quit",
        "app.go_error",
        "view.open",
        "changes.choose",
        "app.next_change",
        "app.search",
        "app.toggle_changes",
        "app.export",
        "app.next_problem",
        "app.not_sent",
        "app.explain",
        "app.goto",
        "app.provider",
        "app.reload",
    )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("search", "goto", "help", "quit") and _takes_text(self.focused):
            return False  # a "/", ":", "?" or "q" typed into a box (the search, an export path) is text
        if action in self.MAIN_ONLY and self.screen is not self.screen_stack[0]:
            return False
        return self.why_not(action) is None

    def why_not(self, action: str) -> str | None:
        """Why ``action`` of the main screen cannot act now, in a few words (``None`` where it
        can). Its key is left out of the footer meanwhile, and pressed, says this (:meth:`refuse`)."""
        model = self.model
        if action in self.NEEDS_ROWS and (model is None or not len(model)):
            if model is not None:
                return "the file holds no messages"
            if self.error is not None:
                return "the file cannot be read"
            return "the file is still being read" if self.has_file else "no file is open"
        if action in ("next_change", "previous_change") and not (model and model.changed_rows):
            return _NOTHING_HERE
        if action == "problem" and not (self.problem_rows or self.other_rows):
            # (x visits what the problems list shows besides problems where there is none)
            return self.none_said if self.verdicts is not None else CHECKS_NOT_READY
        if action == "pick_provider" and self.verdicts is None:
            return self.checks_error or CHECKS_NOT_READY
        if action == "search_step" and not self.matches:
            return "no search: press / to search"
        if action == "not_sent" and not (model is not None and (model.transcript.skipped or self.history_not_sent)):
            return "the file holds nothing that is left out of what is sent"
        if action == "fold_banner" and self.recorded is None:
            return "the file records no API error to fold"
        if action == "go_error":  # only where the error points at a message of this file
            recorded = self.recorded
            if recorded is None:
                return "the file records no API error (E explains one you paste)"
            if recorded.explanation is None:
                return "the recorded error is still being read"
            if not recorded.explanation.found:
                return "the recorded error names no message of this file (E explains it)"
        return None

    def _key_now(self, action: str) -> str | None:
        """What a key of the key bar does now where that is less than its binding says: ``x``
        where no row is a provider problem goes to what the problems list shows besides."""
        if action.startswith("problem(") and not self.problem_rows:
            return "Next listed"
        if action == "follow" and self.following:
            return "Stop following"
        return None

    def _keys_first(self) -> tuple[str, ...]:
        """The keys the key bar keeps before every other now: ``f`` while following, to stop."""
        return ("app.follow",) if self.following else ()

    def refuse(self, action: str) -> bool:
        """Say why ``action`` cannot act now, if it cannot (:meth:`why_not`)."""
        why = self.why_not(action)
        if why == CHECKS_NOT_READY:
            # Taken down once the checks are in (:meth:`take_down_not_ready`), not left saying
            # so beside a verdict: Textual's notify gives back no handle, so the toast is made here.
            from textual.notifications import Notification, Notify

            toast = Notification(why, timeout=3, markup=False)
            self._not_ready_toasts.append(toast)
            self.post_message(Notify(toast))
        elif why is not None:
            self.notify(why, timeout=3, markup=False)
        return why is not None

    def take_down_not_ready(self) -> None:
        """Take down the toasts that said the provider checks were not ready, now they are in
        (or have failed, which the status line says)."""
        toasts, self._not_ready_toasts = self._not_ready_toasts, []
        for toast in toasts:
            self._unnotify(toast)  # (one already gone is no matter)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self._appended_unseen = 0  # the person is here: the next append's note counts afresh
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            for box in self.screen_stack[0].query("#search, #goto").results(Input):
                if box.display and box.has_focus:
                    box.display = False
                    self.view.focus()
                    event.stop()
            return
        # A key of the main screen that cannot act now (left out of the footer, so no binding
        # took it) says why rather than doing nothing.
        if self.screen is not self.screen_stack[0] or event.key in self.screen.active_bindings:
            return
        for binding in self._main_keys.get(event.key, ()):
            action = binding.action.split("(")[0]
            if action in self.MAIN_ONLY and self.refuse(action):
                event.stop()
                return

    @property
    def _main_keys(self) -> dict[str, list[Binding]]:
        """The app's own bindings by key (those of every class it is made from, as Textual binds
        them: a subclass's ``BINDINGS`` add to these), and the panes' key that shows a message whole."""
        own = [b for bound in self._bindings.key_to_bindings.values() for b in bound]
        opens = [
            Binding(b.key, "details", id=b.id)
            for b in TranscriptView.BINDINGS
            if isinstance(b, Binding) and b.action == "open"
        ]
        keyed = BindingsMap([*own, *opens])
        if self.keymap:
            keyed.apply_keymap(self._keymap)
        return keyed.key_to_bindings

    # -- layout ------------------------------------------------------------------------------

    NARROW_BELOW = 120
    """Below this many columns the lists go below the panes, hidden until ``c`` shows them."""
    WIDE_FROM = 180
    """From this many columns the lists beside the panes are wider."""

    def get_default_screen(self) -> Screen[None]:
        return PanesScreen(id="_default")

    def compose(self) -> ComposeResult:
        # The banner and the search and go-to boxes are made when first wanted (banner(),
        # text_box()): the first screen is drawn without them, as most files need none.
        yield StatusBar(id="status")
        view = TranscriptView(on_moved=self._moved_to, id="view")
        with _Row(id="main"):
            with _Column(id="panes"):
                yield PaneHeader(view, id="pane-header")
                yield view
                yield Static("", id="state", markup=False)
            with Vertical(id="sidebar"):
                with _Column(id="changes-box"):
                    yield Static("Changes", id="changes-title", markup=False)
                    yield ChangeList(id="changes", empty="")
                with Vertical(id="problems-box"):
                    yield ListHeading("Provider problems", id="problems-title")
                    yield ProblemList(id="problems", empty="")
        yield InfoBar(id="info")
        yield KeyBar(self.FOOTER_KEEP, relabel=self._key_now, first=self._keys_first, id="keys")

    BOXES: ClassVar[dict[str, tuple[str, str]]] = {
        "search": ("Search", "search text and ids (enter: find, esc: cancel)"),
        "goto": ("Go to", "go to: messages.3, input[5], contents[2], line 760, #12 (enter: go, esc: cancel)"),
    }
    """The text boxes of the panes' screen (``/`` and ``:``), by id: the title on each one's
    border (what is typed in it hides what it shows empty) and what it shows empty."""

    def text_box(self, name: str) -> Input:
        """The box of :attr:`BOXES` called ``name``, made (hidden, above the key bar) the first
        time it is asked for. Made at once, it takes the keys typed straight after ``/``."""
        main = self.screen_stack[0]
        try:
            return main.query_one(f"#{name}", Input)
        except NoMatches:
            title, placeholder = self.BOXES[name]
            box = Input(placeholder=placeholder, id=name)
            box.border_title = title
            box.display = False
            main.mount(box, before=main.query_one("#keys"))
            return box

    def banner(self) -> Banner:
        """The banner under the status line (the recorded error, the history not sent), made the
        first time it is asked for (when it has something to show)."""
        main = self.screen_stack[0]
        try:
            return main.query_one("#banner", Banner)
        except NoMatches:
            made = Banner(history_rejected=self.history_rejected, id="banner")
            main.mount(made, after=main.query_one("#status"))
            return made

    def on_resize(self, event: events.Resize) -> None:
        self._fit_width(event.size.width)

    def _fit_width(self, width: int) -> None:
        """Lay the main screen out for ``width`` columns: lists beside the panes, or below them."""
        main = self.screen_stack[0].query_one("#main")
        narrow = width < self.NARROW_BELOW
        main.set_class(narrow, "-narrow")
        main.set_class(width >= self.WIDE_FROM, "-wide")
        shown = self.lists_wanted if self.lists_wanted is not None else not narrow
        main.query_one("#sidebar").display = shown and self.model is not None

    def _show_state(self, message: str | None) -> None:
        """A message centred where the panes are (loading, unreadable, empty), or the panes."""
        main = self.screen_stack[0]
        state = main.query_one("#state", Static)
        if message is None:
            if state.display:
                state.display = False
                main.query_one("#pane-header").display = True
                self.view.display = True
                self._fit_width(self.size.width)
                if self.focused is None:
                    self.view.focus()
            return
        state.update(message)
        state.display = True
        main.query_one("#pane-header").display = False
        if self.view.has_focus:
            main.set_focus(None)
        self.view.display = False
        main.query_one("#sidebar").display = False

    @property
    def view(self) -> TranscriptView:
        return self.query_one("#view", TranscriptView)

    @property
    def status(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    @property
    def has_file(self) -> bool:
        """Whether a file is open (an app made with no path has none until :meth:`open_file`)."""
        return self._file is not None

    @property
    def path(self) -> Path:
        """The file shown."""
        if self._file is None:
            raise RuntimeError("no file is open")
        return self._file[0]

    @property
    def live(self) -> LiveFile:
        """The reader of the file shown."""
        if self._file is None:
            raise RuntimeError("no file is open")
        return self._file[1]

    async def on_load(self) -> None:
        # What a read builds lives until a reload replaces it: out of the collector's sight before
        # the collector resumes after each read (a first collection over a million messages read
        # would stop every key for seconds).
        self._keeping.enter_context(keeping_built())
        if self.has_file:
            # The first state is waited for before the widgets are made: the reader has the
            # interpreter to itself meanwhile, and the screen is laid out, styled and drawn once,
            # with the rows, instead of once empty and again when they come.
            self._begin_first_read()
            self._loaded_first = await self._first_read()

    def on_unmount(self) -> None:
        self._keeping.close()

    def _resume_collector(self) -> None:
        """The first screen is drawn: what the start made (modules, widgets, the first state read)
        lives as long as the app, so it is frozen out of the collector's sight, which resumes."""
        if self._collector_paused:
            self._collector_paused = False
            freeze_heap()
            gc.enable()

    async def on_mount(self) -> None:
        if self._collector_paused:
            self.call_after_refresh(self._resume_collector)
        if self._hint:
            self.call_after_refresh(self.notify, self.keyed(self._hint), title="what to try", timeout=12, markup=False)
        if self.keymap:
            self.call_after_refresh(self._keymap_checked)
        if self.has_file:
            first, self._loaded_first = self._loaded_first, None
            await self._start_file(first)

    async def _start_file(self, first: Loaded | Loading | None) -> None:
        """Show the file's first state (None: it has not come yet; it is posted when it does)."""
        self.status.update_state(name_shown=self.shown_name)
        self._fit_width(self.size.width)
        if first is None:
            self._show_state(f"reading {self.shown_name}{_size_of(self.path)}…")
        else:
            if isinstance(first, Loading):
                self.on_loading(first)
            else:
                self.on_loaded(first)
            self._fit_width(self.size.width)  # (the lists wait for a model)
            if self.focused is None and self.view.display:
                self.view.focus()
        if self.watching:
            # Once the first frame is drawn: setting up the watcher takes part of a first screen.
            self.call_after_refresh(self._watch_if_open, self.live)

    def _watch_if_open(self, live: LiveFile) -> None:
        if self._file is not None and self.live is live:  # (not closed or another opened meanwhile)
            self.watch_file()

    # The reader is not among them: it reads one request after another for whichever file is
    # open, and drops a read of a file no longer shown.
    _FILE_WORKERS = ("watch", "search", "export", "goto-lines")

    async def open_file(self, path: str | os.PathLike[str], format: str | None = None) -> None:
        """Show ``path`` in place of the file shown now (call it with the panes' screen showing):
        the old file's workers stop, the panes are built anew, the new file is read and watched."""
        self.close_file()
        self._new_file(Path(path), format)
        self._begin_first_read()
        await self.recompose()
        await self._start_file(await self._first_read())

    def _begin_first_read(self) -> None:
        """Start the first read of the file, its first state to be handed to :meth:`_first_read`
        (started as early as the app can, before it makes its widgets)."""
        came = asyncio.Event()
        loop = asyncio.get_running_loop()
        with self._read_lock:
            self._first_state = []
        self._first_came = lambda: loop.call_soon_threadsafe(came.set)
        self._first_wait = came
        self.read_file(initial=True)

    async def _first_read(self) -> Loaded | Loading | None:
        """The first state of the read :meth:`_begin_first_read` started, once it is there (at
        most :data:`FIRST_STATE_WAIT` later), handed here instead of posted; None when it did
        not come in time (it is posted then, as every later state is)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._first_wait.wait(), FIRST_STATE_WAIT)
        with self._read_lock:
            handed, self._first_state = self._first_state, None
        return handed[0] if handed else None

    def _tell(self, message: Loaded | Loading) -> None:
        """(In a worker.) Hand ``message`` to the app: to :meth:`_first_read` while it waits for
        the first state, else posted."""
        with self._read_lock:
            if self._first_state is not None and not self._first_state:
                self._first_state.append(message)
                self._first_came()
                return
        self.post_message(message)

    def close_file(self) -> None:
        """Stop reading, watching and checking the file shown (it stays on screen as it is)."""
        for group in self._FILE_WORKERS:
            self.workers.cancel_group(self, group)
        self.stop_checks()
        for timer in (self._reload_ticker, self._verify_timer, self._export_timer):
            if timer is not None:
                timer.stop()
        self._reload_ticker = self._verify_timer = self._export_timer = None

    # -- reading -----------------------------------------------------------------------------

    def read_file(self, initial: bool = False, *, whole: bool = False, verify: bool = False) -> None:
        """Read the file again in the background: what changed (``whole``: all of it, ``verify``:
        checking the bytes before unchecked appends too). Asked while a read runs, it runs next,
        once however often it was asked."""
        with self._read_lock:
            was = self._read_wanted or (False, False)
            self._read_wanted = (was[0] or whole, was[1] or verify)
            if self._reading:
                return
            self._reading = True
        self._reader(initial)

    @work(thread=True, group="read", name="read_file", exit_on_error=False)
    def _reader(self, initial: bool) -> None:
        try:
            while True:
                with self._read_lock:
                    wanted, self._read_wanted = self._read_wanted, None
                    if wanted is None:
                        self._reading = False
                        return
                whole, verify = wanted
                live = self.live
                progress = self._loading_progress(live) if initial else None
                # A check of the whole file (verify) gives way to a read asked for meanwhile: an
                # append does not wait for it; it is asked again once the file is quiet.
                update = live.poll(whole=whole, verify=verify, progress=progress, wanted=self._read_asked)
                if live is self.live:  # (another file opened meanwhile: this read is not shown)
                    self._post_loaded(update, initial)
                initial = False
        except BaseException:
            with self._read_lock:
                self._reading = False
                self._read_wanted = None
            raise

    def _read_asked(self) -> bool:
        """(In a worker.) Whether another read is asked for, waiting for the one under way."""
        return self._read_wanted is not None

    def _post_loaded(self, update: Update, initial: bool = False) -> None:
        """(In a worker.) Build the rows for a changed state and hand it to the app."""
        model = None
        if update.kind in ("full", "append") and update.transcript is not None and update.repair is not None:
            stable = (update.stable_input, update.stable_output)
            appended = update.kind == "append"
            model = self._rows.state(
                update.transcript, update.repair, version=update.version, appended=appended, stable=stable
            )
        self._tell(Loaded(update, model, initial))

    # -- a large file's first read, shown as it goes -----------------------------------------

    def _loading_progress(self, live: LiveFile) -> Callable[[Partial], None]:
        """(In a worker.) What the first read of ``live`` tells of its progress: rows for each
        state of what is read so far, handed to the app, which shows them while the rest is read."""
        rows = self._rows
        first = True

        def told(partial: Partial) -> None:
            nonlocal first
            if live is not self.live:
                return  # another file opened meanwhile
            if partial.done:
                rows.finished(partial.stable)
                return
            model = None
            if partial.transcript is not None and partial.repair is not None and partial.upto is not None:
                model = rows.partial(partial.transcript, partial.repair, partial.stable, partial.upto)
            if model is None or not first:
                self.post_message(Loading(partial, model))
                return
            # The first screen is drawn before the rest is read: reading on would share the
            # interpreter with the app's start and draw it later.
            first = False
            drawn = threading.Event()
            self._tell(Loading(partial, model, drawn))
            drawn.wait(FIRST_SCREEN_WAIT)

        return told

    def on_loading(self, message: Loading) -> None:
        if panes_gone(self):
            return
        if self.shown_version:
            if message.drawn is not None:
                message.drawn.set()
            return  # the file is read whole already
        partial = message.partial
        done = partial.read / partial.size if partial.size else 1.0
        cells = 24
        bar = "━" * round(done * cells) + "─" * (cells - round(done * cells))
        self.status.update_state(
            notes=[
                f"loading {bar} {done:.0%} · {human_size(partial.read)} of {human_size(partial.size)}"
                f" · {partial.messages:,} messages read"
            ]
        )
        model = message.model
        if model is None:
            return
        old = self.model
        self.model = model
        view = self.view
        self.status.update_state(model=model, format_name=model.transcript.format)
        changes = self.query_one("#changes", ChangeList)
        changes.said_of = model.said_of
        changes.set_items(model.listed)
        n = len(model.listed)
        self.query_one("#changes-title", Static).update(f"Changes ({n:,}…)" if n else "Changes")
        header = self.query_one("#pane-header", PaneHeader)
        header.counts = (f"({model.inputs:,}…)", f"({model.outputs:,}…)")
        header.refresh()
        if old is None:
            first = model.changed_rows[0] if model.changed_rows else 0
            view.set_model(model, cursor=first, shown=self._filter_rows(self.row_filter, model))
        else:
            view.set_model(
                model, cursor=view.cursor, scroll_y=view.scroll_y, shown=self._filter_rows(self.row_filter, model)
            )
        if len(model):
            self._show_state(None)
        self.search_more_shown()
        self.refresh_bindings()
        if message.drawn is not None:
            self.call_after_refresh(message.drawn.set)

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_file(self) -> None:
        """Read the file again whenever it changes. A symbolic link is followed: the folders of
        the link and of what it points to are watched, and a link pointed elsewhere is read
        anew and its new target watched."""
        from watchfiles import awatch

        while True:
            target = os.path.realpath(self.path)
            links = _links_to(self.path)
            folders = sorted({os.path.dirname(p) for p in [*links, target] if os.path.isdir(os.path.dirname(p))})

            def only_ours(
                _change: object, path: str, names: frozenset[str] = frozenset([*links, target]), target: str = target
            ) -> bool:
                return os.path.abspath(path) in names or os.path.realpath(path) == target

            async for _changes in awatch(
                *folders,
                watch_filter=only_ours,
                recursive=False,
                debounce=self.debounce_ms,
                step=20,
                ignore_permission_denied=True,
            ):
                self.read_file()
                if os.path.realpath(self.path) != target or _links_to(self.path) != links:
                    break  # pointed elsewhere: watch where it points now
            else:
                return

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A background task that broke says so (it would otherwise fail silently: the workers
        do not end the app on an error)."""
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            self.notify(
                show.line(f"{event.worker.name} failed: {type(error).__name__}: {error}"),
                title="internal error",
                severity="error",
                markup=False,
            )

    def on_loaded(self, message: Loaded) -> None:
        if panes_gone(self):
            return  # a read that lands while the app is closing
        update = message.update
        asked, self._reload_asked = self._reload_asked, False
        if message.model is not None:
            if update.version < self.shown_version:
                return  # a newer state is shown already (read by another worker)
            self.shown_version = update.version
            self._verify_later()
        if update.kind == "error":
            self.error = update.error
            shown = "cannot read the file now"
            if update.transcript is not None:
                shown += "; showing the last good version"
            # Said once, in the status line, for as long as it lasts (no notification). A first
            # read that broke partway is over: its progress line goes.
            # What the notes say of the version still shown stays; that its last line was still
            # being written was said of the file, which now reads otherwise.
            kept = [] if message.initial else self._shown_notes
            self.status.update_state(error=f"{update.error} ({shown})", notes=kept)
            if self.model is None:
                again = "It is watched: the next good save is read." if self.watching else ""
                self._show_state(
                    f"cannot read {self.shown_name}\n\n{show.line(update.error or '')}\n\n{again} r reads it again, q quits."
                )
                info = self.query_one("#info", InfoBar)
                info.waiting = ""
                info.show(None, 0)
            self.refresh_bindings()
            return
        recovered = self.error is not None
        self.error = None
        skipped = [f"skipped {p}" for p in update.problems[:2]]
        if len(update.problems) > 2:
            skipped[-1] += f" (and {len(update.problems) - 2} more unreadable lines)"
        pending = (
            []
            if update.pending_line is None
            else [f"line {update.pending_line} is still being written; shown when complete"]
        )
        self._shown_notes = skipped
        self.status.update_state(error="", notes=[*skipped, *pending])
        if message.model is None:
            self._verify_later()  # (a check of the whole file given up for this read: asked again)
            if recovered:
                self._note_reload("reads again")
            elif asked and update.kind == "unchanged":
                # r on a file that holds what is shown: the view, the checks and the reload
                # indicator stay as they are; only the person who asked is told.
                self.notify("the file holds what is shown: nothing to reload", timeout=3, markup=False)
            return
        loaded = self.model is not None and self.model.partial  # the last of a read in pieces
        self._show(
            message.model,
            message.initial and not loaded,
            update.added,
            quiet=(update.kind == "append" and not update.added) or loaded,
            recovered=recovered,
            changed=(update.changed, update.kept, update.shared_end),
        )
        if not len(message.model):
            again = " It is watched: what is written to it shows here." if self.watching else ""
            self._show_state(f"{self.shown_name} holds no messages.\n\n{again}")
        else:
            self._show_state(None)
        self.refresh_bindings()

    def _show(
        self,
        model: RowModel,
        initial: bool,
        added: int,
        quiet: bool = False,
        recovered: bool = False,
        changed: tuple[int, int, int] = (0, 0, 0),
    ) -> None:
        """Show ``model``; ``changed``: a full read's ``(changed, kept, shared_end)`` (see
        :class:`suture.live.Update`), for the place kept and the reload note."""
        view = self.view
        old = self.model
        self.model = model
        transcript = model.transcript
        self.status.update_state(model=model, format_name=transcript.format)
        self._show_export(old, model)
        changes = self.query_one("#changes", ChangeList)
        if model.listed or not changes.empty.startswith(_NO_MESSAGE):
            # (What the export reorders is worked out with it, after the frame: _export_worked_out.)
            changes.empty = _NOTHING_HERE
        changes.said_of = model.said_of
        changes.set_items(model.listed)
        problems = self.query_one("#problems", ProblemList)
        if not problems.items and self.verdicts is None:
            problems.empty = "checking the providers…"
            problems.refresh()
        n = len(model.listed)
        self.query_one("#changes-title", Static).update(f"Changes ({n:,})" if n else "Changes")
        header = self.query_one("#pane-header", PaneHeader)
        header.counts = (f"({model.repair.input_count:,})", f"({len(model.repair.messages):,})")
        header.refresh()
        self._show_banner(model)
        self._lines_for_info(model)
        # The provider checks, and the recorded error's explanation with them; a new error, at once
        # (the banner says the error the file recorded last, as the lines under the panes count it).
        at_once = initial or old is None or old.partial
        evidence = len(model.transcript.evidence)
        if not at_once and evidence and (self.recorded is None or self.recorded.count != evidence):
            self.explain_recorded(weakref.ref(model))
        self.check_model(model, at_once, self.explain_recorded)
        if initial or old is None:
            first = model.changed_rows[0] if model.changed_rows else 0
            view.set_model(model, cursor=first, shown=self._filter_rows(self.row_filter, model))
            freeze_heap()
            if recovered:
                self._note_reload("reads again")
            return
        # Keep the place. After a compaction the messages before it are not shown: the place is
        # the end, where it is. (Not the last of a read in pieces: a piece read before the
        # compaction knows none.)
        compacted = compaction_line(transcript)
        compacted_now = not old.partial and compacted is not None and compacted != compaction_line(old.transcript)
        written_over, self._written_over = self._written_over, False
        cursor = len(model) - 1 if compacted_now else self._kept_place(old, model, changed[2], written_over)
        if self.following:
            self._moving = True
            view.set_model(model, cursor=len(model) - 1, shown=self._filter_rows(self.row_filter, model))
            self._moving = False
        else:
            view.set_model(
                model, cursor=cursor, scroll_y=view.scroll_y, shown=self._filter_rows(self.row_filter, model)
            )
        if self.match_query:
            self.search(self.match_query, jump=False)
        freeze_heap()
        if quiet:  # only a line still being written grew: nothing new to show
            return
        if written_over:  # (the export says it wrote it: this is that file, read)
            self._appended_unseen = 0
            self._note_reload(f"the export written over it here, {count(len(transcript.messages), 'message')}")
            return
        self._say_reload(old.transcript, transcript, added, changed, compacted if compacted_now else None, recovered)

    def _kept_place(self, old: RowModel, model: RowModel, shared_end: int, written_over: bool) -> int:
        """The row the cursor stays on once ``model`` replaces ``old``: the same message (``shared_end``
        as in :meth:`_show`). After an export over the input (``written_over``), the file holds
        the repaired history: the message the cursor was on in the Repaired pane, now the
        Original's."""
        row = self.view.cursor
        left = old.left[row] if row < len(old) else None
        right = old.right[row] if row < len(old) else None
        if written_over:
            left, right = right, None
        elif left is not None and left >= len(old.row_of_input) - shared_end:
            # A message of the run both reads end with: the same message, moved by those put in
            # or cut before it.
            left += len(model.row_of_input) - len(old.row_of_input)
            right = None
        if left is not None and left < len(model.row_of_input):
            return model.row_of_input[left]
        if right is not None and right < len(model.row_of_output):
            return model.row_of_output[right]
        return min(row, len(model) - 1)

    def _say_reload(
        self,
        old: Transcript,
        transcript: Transcript,
        added: int,
        changed: tuple[int, int, int],
        compacted: int | None,
        recovered: bool,
    ) -> None:
        """The reload note for what a read brought (:func:`_reload_said`), with the appends the
        person has not acted on since counted in where this read only appends too."""
        appended = compacted is None and _appended_only(old, transcript, added, changed)
        said = _reload_said(old, transcript, added, changed, compacted, self._appended_unseen if appended else 0)
        self._appended_unseen = self._appended_unseen + added if appended else 0
        self._note_reload(f"reads again, {said}" if recovered else said)

    def _note_reload(self, said: str) -> None:
        """Say in the status line what the last reload brought and how long ago (one indicator,
        kept up to date, instead of a notification per reload)."""
        self.reloaded = (said, time.monotonic())
        self.status.update_state(reloaded=self.reloaded)
        if self._reload_ticker is None:
            self._reload_ticker = self.set_interval(1.0, self._tick_reload)

    def _tick_reload(self) -> None:
        if self.reloaded is not None and self.is_running:  # (not while the app closes)
            self.status.refresh()

    @on(ProblemList.Chosen, "#problems")
    def _problem_chosen(self, message: ChangeList.Chosen) -> None:
        message.stop()
        problems = self.query_one("#problems", ProblemList)
        if self.model is None or not problems.items:
            return
        item = problems.items[message.index]
        if isinstance(item, Breach):  # the Valid property's (a file written for no single provider)
            row = self.model.row_of_input[item.index] if item.index < self.model.inputs else None
        else:
            from suture.tui.judged import Finding

            row = item.row if isinstance(item, Finding) else None
        if row is None:
            return  # a heading
        self.view.select(row, center=True)
        if message.picked:
            self.view.focus()

    @on(ItemList.Said)
    def _say_listed(self, message: ItemList.Said | None = None) -> None:
        """The line under the panes says the selected line of the list looked at whole (the list
        cuts it to its width: a heading carries the verdict), or, back in the panes, the row."""
        main = self.screen_stack[0]
        focused = main.focused
        said = focused.line(focused.cursor, Style()) if isinstance(focused, ItemList) and focused.items else None
        main.query_one("#info", InfoBar).show_listed(said)

    @on(TranscriptView.PastRight)
    def _past_right(self) -> None:
        """Right on the Repaired side (the rightmost): on to the lists, where they are beside the
        panes, the first with something to choose."""
        main = self.screen_stack[0]
        if main.query_one("#main").has_class("-narrow") or not main.query_one("#sidebar").display:
            return
        for name in ("#changes", "#problems"):
            listed = main.query_one(name, ItemList)
            if listed.focusable:
                listed.focus()
                return

    # -- moving ------------------------------------------------------------------------------

    def _moved_to(self, row: int) -> None:
        """The view's cursor moved (called by the view itself, so the info bar is drawn in the
        same frame as the rows)."""
        model = self.model
        self.query_one("#info", InfoBar).show(model, row)
        self.query_one("#pane-header", PaneHeader).refresh_if_stale()
        if model is None:
            return
        index = model.first_change.get(row)
        if index is not None:
            self.query_one("#changes", ChangeList).sync_to(index)
        if self.matches:  # the search's count follows the cursor, whichever key moved it (n, G, a click)
            self._say_match()
        if self.following and not self._moving and row != len(model) - 1:
            self.following = False
            self.status.update_state(live="")
            self.query_one("#keys", KeyBar).refresh()

    @on(TranscriptView.Opened)
    def _opened(self, message: TranscriptView.Opened) -> None:
        self.action_details(message.row, message.side)

    @on(ChangeList.Chosen, "#changes")
    def _chosen(self, message: ChangeList.Chosen) -> None:
        if self.model is None or not self.model.change_rows:
            return
        row = self.model.change_rows[message.index]
        self.view.select(row, center=True)
        if message.picked:
            self.view.focus()

    def action_next_change(self) -> None:
        if not self.refuse("next_change") and self.model is not None:
            self._go_round(self.model.changed_rows, 1, "change", "changes")

    def action_previous_change(self) -> None:
        if not self.refuse("previous_change") and self.model is not None:
            self._go_round(self.model.changed_rows, -1, "change", "changes")

    def _next_round(self, rows: list[int], step: int, what: str) -> tuple[int | None, str]:
        """The first of ``rows`` (ascending) among the rows shown after the cursor (``step`` 1)
        or before it (-1), round to the first past the last (the last before the first), and
        what to say of it (:func:`~suture.tui.rows.next_round`); ``None`` where none is shown."""
        view = self.view
        if view.shown is not None:
            rows = [r for r in rows if view.is_shown(r)]
        return next_round(rows, view.cursor, step, what)

    def _go_round(self, rows: list[int], step: int, what: str, plural: str) -> int | None:
        """Go to the next of ``rows`` (:meth:`_next_round`), saying where it went round, as vim's
        search says it hit the bottom and goes on at the top. The row gone to (``None``: no row
        of them is shown)."""
        row, note = self._next_round(rows, step, what)
        if row is None:
            self.notify(f"no {plural} among the rows shown (esc shows every row)", timeout=3, markup=False)
            return None
        if note:
            self.notify(note, timeout=3, markup=False)
        self.view.select(row, center=True)
        return row

    def action_details(self, row: int | None = None, side: int | None = None) -> None:
        if self.refuse("details") or self.model is None:
            return
        view = self.view
        screen = DetailScreen(
            self.model,
            view.cursor if row is None else row,
            view.side if side is None else side,
            on_move=lambda r: view.select(r, center=True),
            copy=self._copy,
            findings=self._findings_at,
            path=self.path,
        )
        self.push_screen(screen)

    def action_toggle_changes(self) -> None:
        if self.refuse("toggle_changes"):
            return
        self.lists_wanted = not self.query_one("#sidebar").display
        self._fit_width(self.size.width)
        self.view.refresh()

    # -- the recorded error, explain, go to --------------------------------------------------

    def _show_banner(self, model: RowModel) -> None:
        """The banner for a newly shown model: the history it skips at once; the recorded error
        as it was (its explanation is worked out again in a worker)."""
        recorded = self.recorded
        evidence = model.transcript.evidence
        if recorded is not None and not any(s == recorded.source and t == recorded.text for s, t in evidence):
            recorded = None
        if recorded is None and evidence:
            source, text = _pick_evidence(evidence)
            recorded = Recorded(source, text, count=len(evidence))
        self.recorded = recorded
        lines = self._not_sent(model)
        if recorded is not None or lines or self.screen_stack[0].query("#banner"):
            self.banner().show_state(recorded, lines)

    @work(thread=True, exclusive=True, group="evidence", exit_on_error=False)
    def explain_recorded(self, ref: weakref.ref[RowModel]) -> None:
        """What the session's recorded API error says about it: the rule, where it points, and
        when it was recorded (the record's own timestamp). The model by weak reference, as for
        the checks."""
        from suture.checks.explain import explain_transcript
        from suture.sent.recorded import recorded_in, request_behind

        model = ref()
        if model is None or not model.transcript.evidence:
            return
        evidence = model.transcript.evidence
        source, text = _pick_evidence(evidence)
        # As suture explain reads it: for a session log, the error's indices count the request
        # the session recorded behind it, else what the agent sends on resume.
        requests = recorded_in(self.path, model.transcript)
        found = explain_transcript(model.transcript, text, model.repair, requests=requests)
        target = ""
        if found.found and found.first is not None:
            i = found.first
            at = lines_of(model.transcript.messages[i].source)
            target = f"Original #{i}" + (f" (line {at[0]})" if at else "")
        behind = request_behind(requests, source.line) if source.line is not None else None
        said = request_words(behind, text) if behind is not None else ""
        recorded = Recorded(source, text, _recorded_when(self.path, source), len(evidence), found, target, behind, said)
        self.call_from_thread(self._explained, model, recorded)

    def _explained(self, model: RowModel, recorded: Recorded) -> None:
        if model is not self.model or panes_gone(self):
            return
        self.recorded = recorded
        self.banner().show_state(recorded, self._not_sent(model))
        self.refresh_bindings()

    def _not_sent(self, model: RowModel) -> list[str]:
        """The banner's lines about what the file holds that the agent does not send (kept for
        ``s``: the history before a compaction, then the records left out)."""
        from suture.tui.evidence import not_sent_line

        self.history_not_sent = skipped(model.transcript)
        lines = list(self.history_not_sent)
        records = not_sent_line(model.transcript, self._agent_name(model))
        if records:
            lines.append(records)
        elif lines:
            lines[-1] += " (s shows it)"
        return lines

    @staticmethod
    def _agent_name(model: RowModel) -> str:
        from suture.sent import agent_name, models

        fmt = model.transcript.format
        return agent_name(fmt) if fmt in models() else "the provider"

    def action_not_sent(self) -> None:
        from suture.formats import before_compaction
        from suture.tui.evidence import NotSentScreen

        model = self.model
        if self.refuse("not_sent") or model is None:
            return
        before = before_compaction(model.transcript) if self.history_not_sent else []
        self.push_screen(
            NotSentScreen(self.path, model.transcript, self._agent_name(model), self.history_not_sent, before)
        )

    def action_fold_banner(self) -> None:
        if not self.refuse("fold_banner"):
            self.banner().fold()

    @on(Banner.Clicked)
    def _banner_clicked(self) -> None:
        self.action_go_error()

    def _go_to_input(self, index: int) -> None:
        model = self.model
        if model is None or not 0 <= index < len(model.row_of_input):
            return
        row = model.row_of_input[index]
        if not self.view.is_shown(row):
            self.action_filter("all")
        self.view.select(row, center=True)
        self.view.focus()

    def action_go_error(self) -> None:
        recorded = self.recorded
        found = recorded.explanation if recorded is not None else None
        if found is None:
            self.refuse("go_error")
        elif found.found and found.first is not None:
            self._go_to_input(found.first)
        else:
            self.action_explain()

    def action_explain(self) -> None:
        from suture.tui.explain import ExplainScreen

        text = self.recorded.text if self.recorded is not None else ""
        self.push_screen(
            ExplainScreen(self.model, text, self.provider, self.path, self.history_rejected), self._explain_done
        )

    def _explain_done(self, index: int | None) -> None:
        if index is not None:
            self._go_to_input(index)

    def action_goto(self) -> None:
        if self.refuse("goto"):
            return
        box = self.text_box("goto")
        box.display = True
        box.value = ""
        self.screen.set_focus(box)
        model = self.model
        if model is not None and self._lines_kept_for(model) is None and _in_document(model):
            # ``line N`` in a JSON document needs the line of every record: found while the
            # place is typed (about a second for 100,000 messages), not once it is asked for.
            self._find_document_lines(weakref.ref(model))

    @work(thread=True, exclusive=True, group="goto-lines", exit_on_error=False)
    def _find_document_lines(self, shown: weakref.ref[RowModel]) -> None:
        # (The model is held weakly: a finished worker is kept a while, and a reload frees the
        # model it replaces.)
        model = shown()
        found = self._document_lines(model) if model is not None else []
        del model
        if found:
            self.call_from_thread(self._document_lines_found, shown, found)

    def _lines_for_info(self, model: RowModel) -> None:
        """A JSON document up to :data:`DOCUMENT_LINES_AT_LOAD` bytes: the line of each record,
        found in a worker once it is read, for the info line (``$[5], line 42``)."""
        if not _in_document(model):
            return
        try:
            small = self.path.stat().st_size <= DOCUMENT_LINES_AT_LOAD
        except OSError:
            return
        if small:  # (once the frame is drawn: the first screen does not wait for it)
            self.call_after_refresh(self._find_document_lines, weakref.ref(model))

    def _show_export(self, old: RowModel | None, model: RowModel) -> None:
        """What the export writes otherwise, for ``model`` newly shown (``old`` shown before):
        worked out again for each version; the last one's words stay meanwhile where the changes
        counted are the same (no flicker on appends)."""
        said = self.status.state.export[0]
        if said and not (old is not None and not model.partial and old.counts() == model.counts()):
            self.status.update_state(export=("", ""))
        self._plan_export(model, at_once=old is None or old.partial)

    def _plan_export(self, model: RowModel, at_once: bool) -> None:
        """A session log read whole, up to :data:`WRITTEN_AT_LOAD` bytes: its export worked out
        in a worker for what the header says of it, once the frame is drawn (``at_once``: a
        first read) or once the file has been quiet for :data:`WRITTEN_SETTLE` (a reload), at
        most :data:`suture.tui.quiet.MOST_WAIT` after the first reload not worked out."""
        if self._export_timer is not None:
            self._export_timer.stop()
            self._export_timer = None
        small = False
        if not model.partial and self.has_file:
            with contextlib.suppress(OSError):
                small = self.path.stat().st_size <= WRITTEN_AT_LOAD
        if not small:
            self._export_quiet.done()
            self.status.update_state(export=("", ""))
            return
        shown = weakref.ref(model)
        if at_once:
            self._export_quiet.done()
            self.call_after_refresh(self._export_planned, shown)
        else:

            def plan() -> None:
                self._export_timer = None
                self._export_quiet.done()
                self._export_planned(shown)

            self._export_timer = self.set_timer(self._export_quiet.wait(WRITTEN_SETTLE), plan)

    @work(thread=True, exclusive=True, group="export-plan", exit_on_error=False)
    def _export_planned(self, shown: weakref.ref[RowModel]) -> None:
        # (The model is held weakly, as for the document's lines.)
        from suture.io import InputError, read_input
        from suture.writeback import written_if_other

        model = shown()
        if model is None:
            return
        try:  # (written only where it may say otherwise)
            written = written_if_other(model.transcript, model.repair, lambda: read_input(self.path, streams=False))
        except (InputError, OSError):  # the file changed since it was read (its next read is shown), or is gone
            written = None
        aside = (written.aside(len(model.repair.changes)) if written is not None else None) or ("", "")
        ids = written.ids if written is not None else {}
        del model
        self.call_from_thread(self._export_worked_out, shown, aside, ids)

    def _export_worked_out(self, shown: weakref.ref[RowModel], aside: tuple[str, str], ids: dict[str, str]) -> None:
        if self.model is None or self.model is not shown() or panes_gone(self):
            return
        if aside != self.status.state.export:
            self.status.update_state(export=aside)
        model = shown()
        if model is not None and not model.listed:
            changes = self.query_one("#changes", ChangeList)
            said = _nothing_changed(model)
            if said != changes.empty:
                changes.empty = said
                changes.refresh()
        info = self.screen_stack[0].query_one("#info", InfoBar)
        if ids or info.written_ids is not None:
            info.written_ids = (shown, ids) if ids else None
            info.refresh()

    def _document_lines_found(self, shown: weakref.ref[RowModel], found: list[tuple[int, int] | None]) -> None:
        if self.model is not None and self.model is shown() and not panes_gone(self):
            info = self.screen_stack[0].query_one("#info", InfoBar)
            info.document_lines = (shown, found)
            info.refresh()

    @on(Input.Submitted, "#goto")
    def _goto_submitted(self, event: Input.Submitted) -> None:
        from suture.checks.explain import resolve
        from suture.sent.numbered import sent_request

        box = self.text_box("goto")
        box.display = False
        self.view.focus()
        model = self.model
        typed = event.value.strip().lstrip(":").strip()  # (":" typed again, as vim's ":" asks)
        if model is None or not typed:
            return
        request = sent_request(model.transcript)
        found = resolve(
            model.transcript.messages,
            typed,
            self.provider,
            request,
            document=lambda: self._document_lines(model),
            where_listed="s lists it",
        )
        said = found.said
        said += self._before_compaction(model.transcript, typed, found.nearest and found.record is None)
        recorded = self._as_recorded(typed, found.indices[0] if found.indices else None)
        counted = _counted_as(model.transcript, typed, self.provider, request, found)
        if not found.indices:
            said = f"nothing at {said}" if found.understood else said
            self.notify(show.line(said + recorded), severity="warning", markup=False)
            return
        self._go_to_input(found.indices[0])
        if found.nearest or found.elsewhere or recorded or counted:
            self.notify(show.line(said + counted + recorded), markup=False)

    @staticmethod
    def _before_compaction(transcript: Transcript, typed: str, nearest: bool) -> str:
        """What a line typed in go-to that holds no message (``nearest``: the nearest message
        is gone to) is, where it lies before the compaction the history starts from: in the
        history the agent does not send. ``""`` for any other place."""
        line = re.match(r"line\s+(\d+)\b", typed) if nearest else None
        compacted = compaction_line(transcript) if line is not None else None
        if line is None or compacted is None or int(line.group(1)) >= compacted:
            return ""
        notes = skipped(transcript)
        return f" ({notes[0]})" if notes else ""

    def _as_recorded(self, typed: str, found: int | None) -> str:
        """Where a pointer the recorded API error names (``messages.1``) leads elsewhere than
        ``found`` (the input message it is in the request sent on resume, ``None``: none): that
        error counts the request sent when it was recorded, which ``!`` follows. ``""`` else."""
        recorded = self.recorded
        explained = recorded.explanation if recorded is not None else None
        if recorded is None or explained is None or not explained.found or not recorded.target:
            return ""
        if not re.match(r"(messages|input|contents|items)\b", typed):
            return ""  # (a line, or suture's own #n, counts no request)
        if not re.search(rf"(?<![\w.\[]){re.escape(typed)}(?![\w\]])", recorded.text):
            return ""
        if explained.first == found:  # where ! goes (action_go_error)
            return ""
        return (
            f"; the recorded error's {typed} counts the request sent when it was recorded: ! goes to {recorded.target}"
        )

    def _document_lines(self, model: RowModel) -> list[tuple[int, int] | None]:
        """The first and last line of each message's record, where ``model``'s file is one JSON
        document (:func:`suture.written.document_lines`; what the record as written says, ``w`` in
        the details), read from the file once per model; none where it cannot be read."""
        with self._lines_lock:
            found = self._lines_kept_for(model)
            if found is None:
                try:
                    data = self.path.read_bytes()
                except OSError:
                    return []
                found = document_lines(data, [m.source for m in model.transcript.messages])
                self._lines_kept = (weakref.ref(model), found)
            return found

    def _lines_kept_for(self, model: RowModel) -> list[tuple[int, int] | None] | None:
        kept = self._lines_kept
        return kept[1] if kept is not None and kept[0]() is model else None

    # -- filter ------------------------------------------------------------------------------

    FILTERS: ClassVar[tuple[str, ...]] = ("all", "changed", "problems", "matches")
    FILTER_WORDS: ClassVar[dict[str, str]] = {
        "changed": "changed rows",
        "problems": "rows with provider problems",
        "matches": "rows matching the search",
    }

    FILTER_SHORT: ClassVar[dict[str, str]] = {"changed": "changed", "problems": "problems", "matches": "matches"}

    def _filter_rows(self, kind: str, model: RowModel | None = None) -> list[int] | None:
        """The rows a filter shows (``None`` for every row). For a new model whose checks or
        search have not run yet, every row until they have."""
        model = model or self.model
        if model is None or kind == "all":
            return None
        if kind == "changed":
            return model.changed_rows
        if model is not self.model:
            return None
        if kind == "problems":  # as x goes: where no row is a problem, the rows the list shows besides
            return sorted(self.problem_rows or self.other_rows)
        return self.matches

    def action_filter(self, kind: str = "next") -> None:
        """Show only some rows: ``changed``, ``problems``, ``matches``; ``all``; ``next`` goes on
        to the next filter with rows to show."""
        if kind == "next":
            at = self.FILTERS.index(self.row_filter)
            for step in range(1, len(self.FILTERS) + 1):
                kind = self.FILTERS[(at + step) % len(self.FILTERS)]
                if kind == "all" or self._filter_rows(kind):
                    break
            if kind == self.row_filter == "all":  # no filter has a row to show: said, as n and x say it
                problems = "none with provider problems or listed" if self.verdicts is not None else "checks not ready"
                search = "no search matches" if self.match_query else "no search"
                self.notify(f"nothing to filter: no changed rows, {problems}, {search}", markup=False)
                return
        rows = self._filter_rows(kind)
        if kind != "all" and not rows:
            words = "rows with provider problems or listed items" if kind == "problems" else self.FILTER_WORDS[kind]
            self.notify(f"no {words}: every row stays shown", markup=False)
            return
        self.row_filter = kind
        self._apply_filter()

    def _apply_filter(self) -> None:
        rows = self._filter_rows(self.row_filter)
        if self.row_filter != "all" and rows == []:
            self.row_filter = "all"  # nothing left to show (a reload took it away)
            rows = None
        self.view.set_filter(rows)
        header = self.query_one("#pane-header", PaneHeader)
        if rows is None or self.model is None:
            header.note = ""
        else:
            short = self.FILTER_SHORT[self.row_filter]
            if self.row_filter == "problems" and not self.problem_rows:
                short = "listed"  # no provider problem: the rows of the notes and the contract view
            header.note = f"only {short}: {len(rows):,} of {len(self.model):,} (v, esc)"
        header.refresh()

    # -- copy --------------------------------------------------------------------------------

    def action_copy(self) -> None:
        model = self.model
        if self.refuse("copy") or model is None:
            return
        view = self.view
        side = view.side
        message = model.original(view.cursor) if side == 0 else model.repaired(view.cursor)
        if message is None:
            side = 1 - side
            message = model.original(view.cursor) if side == 0 else model.repaired(view.cursor)
        if message is None:
            return
        ids = None
        if side == 1:  # the record as the export writes it, with the ids it writes
            from suture.writeback import written_ids

            ids = written_ids(model.transcript, model.repair)
        self._copy(
            record_json(message, side, model.transcript, shorten=False, ids=ids), f"the {SIDES[side]} record as JSON"
        )

    def _copy(self, text: str, said: str) -> None:
        """Put ``text`` on the clipboard and say so: ``said`` names what it is (``the Repaired
        record as JSON``). (The details copy through this too.)"""
        self.copy_to_clipboard(text)
        where = (
            " to the browser's clipboard (where the page may write it: https or this machine)" if self.is_web else ""
        )
        self.notify(f"copied {said}{where} ({len(text):,} characters)", markup=False)

    # -- follow and reload -------------------------------------------------------------------

    def action_follow(self) -> None:
        if self.refuse("follow"):
            return
        self.following = not self.following
        if self.following and self.model is not None and len(self.model):
            self._moving = True
            self.view.select(len(self.model) - 1)
            self._moving = False
        # Not watched (--no-watch, the demo), the end moves only when r reads the file again.
        said = "● following the end" if self.watching else "● following the end as r reads the file again (not watched)"
        self.status.update_state(live=said if self.following else "")
        self.query_one("#keys", KeyBar).refresh()  # (f says it stops following, or follows)

    def action_help_quit(self) -> None:
        """Ctrl+C (with no text selected to copy) quits, as in any command line program."""
        self.exit()

    def action_reload(self) -> None:
        self._reload_asked = True
        self.read_file(whole=True)

    def _verify_later(self) -> None:
        """Once the file is quiet, check it whole if an append was taken unchecked."""
        if self._verify_timer is not None:
            self._verify_timer.stop()
            self._verify_timer = None
        if self.live.unchecked:
            self._verify_timer = self.set_timer(VERIFY_SETTLE, lambda: self.read_file(verify=True))

    # -- keys the person binds otherwise (suture.settings) -------------------------------------

    def _keymap_checked(self) -> None:
        """Say which ids of the keymap no binding has (a typo binds nothing), and which keys it
        gives one binding that another of the same place had (that one loses them)."""
        bindings = every_binding()
        unknown = sorted(set(self.keymap) - set(bindings))
        said = []
        if unknown:
            names = ", ".join(show.line(name) for name in unknown)
            said.append(f"the keymap names {names}, which no key binding is called (suture keys lists them)")
        now = keys_now(self.keymap)
        taken = []
        for name, binding in bindings.items():
            lost = [k for k in binding.key.split(",") if k not in now[name]]
            if name not in self.keymap and lost:
                gone = "" if now[name] else ", which has no key left"
                taken.append(f"{', '.join(format_key(k) for k in lost)} from {name}{gone}")
        if taken:
            said.append(f"the keymap takes keys from other bindings: {'; '.join(taken)}")
        over = []
        for name, pairs in shadowed(self.keymap).items():
            for key in dict.fromkeys(key for key, _ in pairs):
                where = ", ".join(other for k, other in pairs if k == key)
                over.append(f"{format_key(key)} does {where} there, not {name}")
        if over:
            said.append(f"where a widget or dialog has focus, its keys go before the app's: {'; '.join(over)}")
        for text in said:
            self.notify(text, title="settings", severity="warning", timeout=12, markup=False)

    def keyed(self, text: str) -> str:
        """``text`` with each ``{id}`` in it (``{app.next_change}``) the key that does that binding
        now (:meth:`key_of`)."""
        return re.sub(r"\{([a-z_]+\.[a-z_]+)\}", lambda m: self.key_of(m.group(1)), text)

    def key_of(self, binding_id: str) -> str:
        """The first key that does binding ``binding_id`` now (the keymap's, else its own), as the
        help writes it; ``no key`` where the keymap took them all."""
        if self.keymap:
            keys = keys_now(self.keymap).get(binding_id, [])
        else:
            bound = [b for keyed in self._bindings.key_to_bindings.values() for b in keyed]
            own = [b for b in [*bound, *TranscriptView.BINDINGS] if isinstance(b, Binding) and b.id == binding_id]
            keys = own[0].key.split(",") if own else []
        return format_key(keys[0]) if keys else "no key"

    # -- help and palette --------------------------------------------------------------------

    def help_groups(self) -> list[tuple[str, Iterable[BindingType]]]:
        from suture.tui.evidence import NotSentScreen
        from suture.tui.explain import ExplainScreen

        def keyed(bindings: Iterable[BindingType]) -> list[BindingType]:
            return rebound(bindings, self.keymap)

        return [
            ("Anywhere", keyed(self.BINDINGS)),
            ("Panes", keyed(TranscriptView.BINDINGS)),
            ("Changes and problems lists", keyed(ChangeList.BINDINGS)),
            (f"Message details ({self.key_of('view.open')})", keyed(DetailScreen.BINDINGS)),
            (f"Explain an error ({self.key_of('app.explain')})", keyed(ExplainScreen.BINDINGS)),
            (f"What is not sent ({self.key_of('app.not_sent')})", keyed(NotSentScreen.BINDINGS)),
            ("Lists and dialogs", keyed(LIST_KEYS)),
            (
                "Other",
                [
                    Binding(
                        "tab,shift+tab",
                        "focus_next",
                        "Next pane, list",
                        tooltip="Move between the panes and the lists (a list with nothing to choose is passed by)",
                    ),
                    Binding("ctrl+p", "command_palette", "Command palette", tooltip="Every action by name"),
                ],
            ),
        ]

    def help_mouse(self) -> list[tuple[str, str]]:
        """What the mouse does where the help is asked for, after :meth:`help_groups`' keys."""
        return [
            ("click a row", "select it (its side becomes the focused side)"),
            ("double-click a row", "show the message whole"),
            ("click a change", "jump to it"),
            ("wheel", "scroll"),
        ]

    def help_signs(self) -> list[tuple[str, str]]:
        """What the marks the panes draw mean, after :meth:`help_mouse`."""
        return [
            ("▌", "rows of one turn: an assistant message with calls, and what follows it"),
            *((shown.badge, f"a change: {shown.word}") for shown in KINDS.values()),
            ("✓", "(problems list) a problem suture's repair fixes"),
            ("✗", "(problems list) a problem suture's repair does not fix: left for you to fix"),
            ("⟲", "(problems list) what the agent repairs itself on resume: no problem"),
        ]

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.help_groups(), self.help_mouse(), self.help_signs()))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        commands: list[tuple[str, str, str, Callable[[], object]]] = [
            ("Next change", "Jump to the next change", "app.next_change", self.action_next_change),
            ("Previous change", "Jump to the previous change", "app.previous_change", self.action_previous_change),
            ("Message details", "Show the selected message whole", "view.open", self.action_details),
            ("Search", "Search message text and ids", "app.search", self.action_search),
            ("Next match", "Go to the next search match", "app.next_match", lambda: self.action_search_step(1)),
            (
                "Previous match",
                "Go to the previous search match",
                "app.previous_match",
                lambda: self.action_search_step(-1),
            ),
            ("Choose provider", "Check against another provider", "app.provider", self.action_pick_provider),
            ("Next problem", "Jump to the next provider problem", "app.next_problem", lambda: self.action_problem(1)),
            (
                "Previous problem",
                "Jump to the previous provider problem",
                "app.previous_problem",
                lambda: self.action_problem(-1),
            ),
            ("Copy message JSON", "Copy the selected message's record", "app.copy", self.action_copy),
            ("Export repaired transcript", "Write the repaired transcript", "app.export", self.action_export),
            ("Follow the end", "Follow the file's end like tail -f", "app.follow", self.action_follow),
            ("Reload", "Read the file again now", "app.reload", self.action_reload),
            (
                "Toggle the lists",
                "Show or hide the lists of changes and problems",
                "app.toggle_changes",
                self.action_toggle_changes,
            ),
            (
                "Show only changed rows",
                "Filter the panes to the rows repair changed",
                "app.filter",
                lambda: self.action_filter("changed"),
            ),
            (
                "Show only problem rows",
                "Filter the panes to the rows the provider would reject",
                "app.filter",
                lambda: self.action_filter("problems"),
            ),
            (
                "Show only search matches",
                "Filter the panes to the rows matching the search",
                "app.filter",
                lambda: self.action_filter("matches"),
            ),
            ("Show every row", "Turn the filter off", "app.clear_search", lambda: self.action_filter("all")),
            (
                "Explain an error",
                "Paste a provider's error: the rule, its messages, the fix",
                "app.explain",
                self.action_explain,
            ),
            (
                "Go to the recorded error",
                "The message the session's API error names",
                "app.go_error",
                self.action_go_error,
            ),
            ("Go to…", "messages.N, input[N], contents[N], a line of the file, #N", "app.goto", self.action_goto),
            (
                "What is not sent",
                "Records the agent leaves out (API errors, failed turns), each as written",
                "app.not_sent",
                self.action_not_sent,
            ),
            ("Help", "Every key", "app.help", self.action_help),
        ]
        for title, helptext, binding_id, callback in commands:
            yield SystemCommand(title, f"{helptext} ({self.key_of(binding_id)})", callback)


def _pick_evidence(evidence: list[tuple[Source, str]]) -> tuple[Source, str]:
    """The recorded error to show: the last one suture recognises, else the last one."""
    from suture.checks.explain import recognise

    for source, text in reversed(evidence):
        if recognise(text):
            return source, text
    return evidence[-1]


def _recorded_when(path: Path, source: Source) -> str:
    """When a record was written, where it carries a ``timestamp`` (session logs do)."""
    try:
        records = written(path.read_bytes(), source)
        value = orjson.loads(records[0].data) if records else None
    except (OSError, orjson.JSONDecodeError):
        return ""
    stamp = value.get("timestamp") if isinstance(value, dict) else None
    if not isinstance(stamp, str):
        return ""
    when = stamp.replace("T", " ").split(".")[0].removesuffix("Z")
    return show.line(when + (" UTC" if stamp.endswith("Z") else ""))


def _in_document(model: RowModel) -> bool:
    """Whether ``model``'s messages were read from one JSON document (their records are found
    by pointer, not by a line of their own)."""
    messages = model.transcript.messages
    source = messages[0].source if len(messages) else None
    return source is not None and source.line is None and bool(source.pointer)


def _size_of(path: Path) -> str:
    try:
        return f" ({human_size(path.stat().st_size)})"
    except OSError:
        return ""


def _links_to(path: Path) -> list[str]:
    """The symbolic links followed from ``path`` to the file it names (absolute paths; none for
    a plain file). Bounded as the system bounds a chain of links."""
    links: list[str] = []
    current = os.path.abspath(path)
    for _ in range(40):
        try:
            pointed = os.readlink(current)
        except OSError:
            break
        links.append(current)
        current = os.path.normpath(os.path.join(os.path.dirname(current), pointed))
    return links
