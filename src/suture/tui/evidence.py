"""What a session file holds that its agent does not send: evidence, not history.

The loaders keep the records an agent leaves out when it resumes (``Transcript.skipped``: API
error records, pi's failed and aborted turns, Codex lines with no timestamp) and say what history
the file holds before a compaction (``suture.formats.skipped``, and its records one each:
``suture.formats.before_compaction``). The panes show the history; this screen (``s``) lists the
rest, in file order, and shows each record as the file holds it, with, for an API error Claude
Code recorded, the request it sent just before (rebuilt from the file).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import orjson
from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from suture import codec, show
from suture.model import Skipped, Transcript
from suture.tui.records import pretty, shorten_payloads
from suture.tui.rows import human_size
from suture.tui.screens import Overlay, Styled
from suture.tui.scrolling import PickList, Scroll
from suture.words import count

__all__ = ["KIND_WORDS", "NotSentScreen", "not_sent_line"]

KIND_WORDS: dict[str, tuple[str, str]] = {
    "api_error": ("API error record", "API error records"),
    "errored_turn": ("failed or aborted turn", "failed or aborted turns"),
    "no_timestamp": ("line with no timestamp", "lines with no timestamp"),
    "virtual": ("virtual record", "virtual records"),
}
"""What each kind of skipped record is called, one and many (``suture.model.Skipped.kind``)."""


def _kind_words(kind: str, n: int) -> str:
    one, many = KIND_WORDS.get(kind, (kind.replace("_", " "), kind.replace("_", " ")))
    return count(n, one, many)


def not_sent_line(transcript: Transcript, agent: str) -> str:
    """The banner's line about the records the agent leaves out (``""`` when there are none):
    ``not sent by pi, kept as evidence: 22 failed or aborted turns (s lists them)``."""
    found = transcript.skipped
    if not found:
        return ""
    kinds = Counter(s.kind for s in found)
    what = ", ".join(_kind_words(kind, n) for kind, n in kinds.most_common())
    return f"not sent by {agent}, kept as evidence: {what} (s lists {'it' if len(found) == 1 else 'them'})"


@dataclass(frozen=True, slots=True)
class _Shown:
    """A record as the file holds it, read in a worker: the text to show, or why there is none."""

    index: int
    text: Text


class NotSentScreen(Overlay[None]):
    """``NotSentScreen(path, transcript, agent, history)``: ``history`` the sentences naming the
    history the agent does not send (before a compaction)."""

    AUTO_FOCUS = "#not-sent-list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,s", "close", "Close", id="not_sent.close"),
        Binding("tab", "app.focus_next", "Next box", show=False, id="not_sent.next"),
    ]
    KEY_BAR = ("not_sent.close",)
    DEFAULT_CSS = """
    NotSentScreen {
        #not-sent-intro { max-height: 6; }
        #not-sent-intro.alone { height: 1fr; max-height: 100%; }
        #not-sent-box { height: 2fr; }
        #not-sent-list { height: 1fr; border: none; }
        #not-sent-record { height: 3fr; padding: 0 1; }
    }
    """

    def __init__(
        self, path: Path, transcript: Transcript, agent: str, history: list[str], before: Sequence[Skipped] = ()
    ) -> None:
        """``before``: the records of that history, one each (:func:`suture.formats.before_compaction`),
        listed with the others in file order."""
        super().__init__()
        self.path = path
        self.records: list[Skipped] = _in_file_order(transcript.skipped, before)
        self.agent = agent
        self.history = history
        self.shown: _Shown | None = None

    def compose_body(self) -> ComposeResult:
        intro = Text(end="")
        intro.append(f"What {show.path(self.path.name)} holds that {self.agent} does not send when it resumes. ")
        compacted = any(s.kind in ("compacted", "compaction") for s in self.records)
        if compacted:
            intro.append("The panes leave it out: evidence, and the history before a compaction.")
        else:
            intro.append("Evidence, not history: the panes leave it out.")
        # (Progress events, file snapshots and the like: no agent sends them, none is a message.)
        intro.append(
            f" Not listed{' after the compaction' if compacted else ''}: records of the agent's own"
            " bookkeeping, which hold no message."
        )
        for sentence in self.history:
            intro.append(f"\n⋯ {show.line(sentence)}")
        if not self.records:
            intro.append("\nNo record of the file is left out beyond that.")
            yield Static(intro, id="not-sent-intro", classes="intro alone", markup=False)
            return
        yield Static(intro, id="not-sent-intro", classes="intro", markup=False)
        with Vertical(id="not-sent-box", classes="pane") as box:
            box.border_title = f"records {self.agent} does not send ({len(self.records):,}; enter shows one)"
            yield PickList(
                *(Option(Text(self._label(s)), id=str(k)) for k, s in enumerate(self.records)), id="not-sent-list"
            )
        record = Scroll(Styled(id="not-sent-body"), id="not-sent-record", classes="pane")
        record.can_focus = True
        record.border_title = "as written"
        yield record

    @staticmethod
    def _label(record: Skipped) -> str:
        return show.line(f"{record.source}  {record.reason}")

    def on_mount(self) -> None:
        if self.records:
            self.query_one("#not-sent-list", OptionList).highlighted = 0

    @on(OptionList.OptionHighlighted, "#not-sent-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            body = self.query_one("#not-sent-body", Styled)
            body.update(Text("reading the file…", style=body.part("muted")))
            self.read_record(int(event.option.id), body.part("heading"), body.part("muted"))

    @on(OptionList.OptionSelected, "#not-sent-list")
    def _selected(self) -> None:
        self.query_one("#not-sent-record").focus()

    @work(thread=True, exclusive=True, group="not-sent", exit_on_error=False)
    def read_record(self, index: int, heading: Style, muted: Style) -> None:
        """The record as the file holds it, and for an API error Claude Code recorded, the
        request behind it (off the UI thread: the file is read again)."""
        from suture.sent.recorded import behind_in
        from suture.written import written

        record = self.records[index]
        text = Text(end="")
        try:
            data = self.path.read_bytes()
        except OSError as e:
            text.append(f"cannot read the file: {show.line(e.strerror or str(e))}", muted)
            self.app.call_from_thread(self._show, _Shown(index, text))
            return
        found = written(data, record.source)
        if not found:
            text.append("the file no longer holds this record where it was read (it changed since)", muted)
        for piece in found:
            text.append(f"{show.line(piece.what)} as written ({human_size(len(piece.data))})\n", heading)
            text.append(show.block(_readable(piece.data)))
            text.append("\n")
        if record.kind == "api_error":
            request = behind_in(self.path, record.source.line)
            if request is not None:
                text.append(f"\nThe request behind it ({show.line(request.described())})\n", heading)
                text.append(show.block(pretty(shorten_payloads(request.body()))))
        self.app.call_from_thread(self._show, _Shown(index, text))

    def _show(self, shown: _Shown) -> None:
        listed = self.query_one("#not-sent-list", OptionList)
        if not self.is_attached or listed.highlighted != shown.index:
            return
        self.shown = shown
        self.query_one("#not-sent-body", Styled).update(shown.text)
        self.query_one("#not-sent-record", Scroll).scroll_home(animate=False)


def _in_file_order(skipped: Sequence[Skipped], before: Sequence[Skipped]) -> list[Skipped]:
    """The records left out, those before a compaction among them by line; a line the loader
    left out for a reason of its own (an API error) is listed once, for that reason."""
    if not before:
        return list(skipped)
    named = {s.source.line for s in skipped if s.source.line is not None}
    found = [*skipped, *(s for s in before if s.source.line not in named)]
    return sorted(found, key=lambda s: (s.source.line is None, s.source.line or 0))


def _readable(data: bytes) -> str:
    """A record's bytes as indented JSON (long strings and payloads shortened), or as they are
    where they are not JSON."""
    try:
        return pretty(shorten_payloads(codec.loads(data)))
    except orjson.JSONDecodeError:
        return data.decode("utf-8", "backslashreplace")
