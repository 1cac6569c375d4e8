"""Explain an error in the app: paste a provider's error (or take the one the session recorded),
see the rule it breaks, the messages it is about, and whether the repair fixes it; go to them.

The same :func:`suture.checks.explain.explain_transcript` as ``suture explain``, run in a worker a moment
after the text stops changing, so a long paste does not redo it per character.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from suture import show
from suture.checks import TITLES
from suture.checks.explain import Explanation, explain, explain_transcript, summary
from suture.sent.recorded import RecordedRequest, recorded_in
from suture.tui.banner import TO_PROBLEMS
from suture.tui.rows import RowModel
from suture.tui.screens import Overlay, Styled
from suture.tui.scrolling import PickList, Scroll
from suture.words import count

__all__ = ["ExplainScreen"]

SETTLE = 0.3
"""Seconds the text must stay the same before it is explained."""


class ExplainScreen(Overlay[int | None]):
    """Dismissed with the input index of a message to go to, or ``None``."""

    AUTO_FOCUS = "#error-text"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="explain.close"),
        Binding("q", "close", "Close", show=False, id="explain.close_q"),
        Binding("ctrl+l", "clear", "Clear the text", id="explain.clear"),
        Binding("tab", "app.focus_next", "Next box", show=False, id="explain.next"),
    ]
    KEY_BAR = ("explain.close", "explain.clear")
    WHERE = "the messages it names (enter goes to one)"
    """The title of the frame of the messages the error names."""
    NONE = "the messages it names: none in this file"
    """Its title where the explanation names none of this file's messages."""
    DEFAULT_CSS = """
    ExplainScreen {
        #error-text { height: 7; }
        #explained-box { height: auto; max-height: 40%; }
        #explained { height: auto; padding: 0 1; }
        #where { height: 1fr; min-height: 5; }
        #where-list { height: 1fr; border: none; }
    }
    """

    def __init__(
        self,
        model: RowModel | None,
        text: str = "",
        provider: str | None = None,
        path: Path | None = None,
        history_rejected: Callable[[], bool] = lambda: False,
    ) -> None:
        """``path``: the file shown, whose recorded requests (a Claude Code session's) number
        the error's indices as the provider counted them; ``history_rejected``: whether the
        provider shown rejects the history itself, asked at each explanation (said beside an
        error that is not about it)."""
        super().__init__()
        self.path = path
        self.history_rejected = history_rejected
        self.requests: list[RecordedRequest] | None = None
        self.model_ref = weakref.ref(model) if model is not None else None
        self.initial = text
        self.provider = provider
        self.explanation: Explanation | None = None
        self._timer: Timer | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(
            "Explain an error: paste the provider's error text below (your terminal's paste). "
            "Tab goes to the messages it names, enter goes to one, esc closes.",
            id="explain-intro",
            classes="intro",
            markup=False,
        )
        area = TextArea(self.initial, id="error-text", classes="pane", soft_wrap=True, show_line_numbers=False)
        area.border_title = "the error text"
        yield area
        said = Scroll(Styled(id="explained"), id="explained-box")
        said.can_focus = False  # the wheel scrolls it; tab goes from the text to the messages
        yield said
        with Vertical(id="where", classes="pane") as where:
            where.border_title = self.WHERE
            yield PickList(id="where-list")

    def on_mount(self) -> None:
        if self.initial.strip():
            # The recorded error, all of it selected: a paste or typing puts the new error in its place.
            self.query_one(TextArea).select_all()
            self.run_explain(self.initial)
        else:
            self._say(Text("Paste an error to explain it.", style=self.query_one(Styled).part("muted")))

    @on(TextArea.Changed, "#error-text")
    def _changed(self, event: TextArea.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        text = event.text_area.text
        self._timer = self.set_timer(SETTLE, lambda: self.run_explain(text))

    @work(thread=True, exclusive=True, group="explain", exit_on_error=False)
    def run_explain(self, text: str) -> None:
        model = self.model_ref() if self.model_ref is not None else None
        if not text.strip():
            self.app.call_from_thread(self._show, None, text)
            return
        if model is None:
            found = explain([], text)
        else:
            # As suture explain reads it: a session log's indices count what its agent sends.
            if self.requests is None:
                self.requests = recorded_in(self.path, model.transcript) if self.path is not None else []
            found = explain_transcript(model.transcript, text, model.repair, requests=self.requests)
        self.app.call_from_thread(self._show, found, text)

    def _say(self, text: Text) -> None:
        self.query_one("#explained", Styled).update(text)

    def _show(self, found: Explanation | None, text: str) -> None:
        if not self.is_attached or text != self.query_one(TextArea).text:
            return
        self.explanation = found
        listed = self.query_one("#where-list", OptionList)
        listed.clear_options()
        # An explanation that names no message of this file says so on the list's frame.
        self.query_one("#where").border_title = self.WHERE if found is None else self.NONE
        styled = self.query_one("#explained", Styled)
        if found is None:
            self._say(Text("Paste an error to explain it.", style=styled.part("muted")))
            return
        out = Text(end="")
        model = self.model_ref() if self.model_ref is not None else None
        rec = found.recognition
        if rec is None:
            # Not about the history, too long for the model, or not known.
            rejected = found.elsewhere is not None and found.elsewhere.rejected_too(self.history_rejected())
            out.append(show.line(found.verdict(rejected)), styled.part("heading"))
            if rejected:
                out.append(f"\n{TO_PROBLEMS} in the panes.", styled.part("key"))
            if found.closest:
                out.append("\nclosest rules: ", styled.part("muted"))
                out.append(", ".join(f"{r.id} ({', '.join(r.providers)}): {r.title}" for r in found.closest[:3]))
            self._say(out)
            return
        rule = rec.rule
        out.append(f"{rule.id} ", styled.part("key"))
        out.append(f"({', '.join(TITLES.get(p, p) for p in rule.providers)}): ", styled.part("muted"))
        out.append(show.line(rule.title), styled.part("heading"))
        if named := rec.named():
            out.append("\nthe error names: ", styled.part("muted"))
            out.append(show.line(named))
        if found.request is not None and found.request.layout is not None:
            # An error from a provider the agent does not send to counts suture's layout of its request.
            out.append("\nit counts: ", styled.part("muted"))
            out.append(show.line(found.request.label))
        if found.numbering:
            # Which numbering the error's index was read in, where another reads it otherwise.
            out.append(f"\n({show.line(found.numbering)})", styled.part("muted"))
        out.append("\n")
        out.append(show.line(found.verdict()), styled.part("key" if found.found else "empty"))
        if found.changes:
            out.append(
                f"\nthe repair makes {count(len(found.changes), 'change')} to these messages", styled.part("muted")
            )
        self._say(out)
        if model is None:
            return
        messages = model.transcript.messages
        for i in found.indices:
            m = messages[i]
            where = f" ({m.source})" if m.source else ""
            left = "  (left out when sent)" if found.left_out(i) else ""
            label = f"#{i} {m.role}{where}  {summary(m)}{left}"
            listed.add_option(Option(Text(show.line(label)), id=str(i)))
        if found.indices:
            listed.highlighted = 0
            self.query_one("#where").border_title = self.WHERE

    @on(OptionList.OptionSelected, "#where-list")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(int(event.option.id))

    def action_clear(self) -> None:
        area = self.query_one(TextArea)
        area.clear()
        area.focus()
