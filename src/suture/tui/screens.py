"""The screens over the main one: what they share (:class:`Overlay`, and :class:`Dialog` for a box
over the dimmed main screen), and the keys, export and its confirmation, the provider picker.
(A message whole is ``suture.tui.details``; what is not sent, ``suture.tui.evidence``; explain an
error, ``suture.tui.explain``.)"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

from msgspec.structs import replace
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Size
from textual.keys import format_key
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, OptionList, RadioButton, RadioSet, Static
from textual.widgets.option_list import Option

from suture import show
from suture.model import Message, Transcript
from suture.tui.bars import _wrapped
from suture.tui.keys import KeyBar
from suture.tui.records import pretty, repaired_record, shorten_payloads
from suture.tui.scrolling import PickList, Scroll

__all__ = [
    "ConfirmScreen",
    "Dialog",
    "ExportOption",
    "ExportScreen",
    "HelpScreen",
    "Overlay",
    "ProviderScreen",
    "record_json",
]

_KEY_LINE = re.compile(r'^(\s*)("(?:[^"\\]|\\.)*")(:)', re.MULTILINE)


def record_json(
    message: Message, side: int, transcript: Transcript, shorten: bool, ids: Mapping[str, str] | None = None
) -> str:
    """The JSON text of a message's record: what the file held (Original) or what an export
    writes (Repaired). ``ids``: the calls the export names otherwise than the repair, final id ->
    the id written (``suture.writeback.written_ids``; a session written back)."""
    if side == 0 and message.raw is not None:
        value = message.raw
    else:
        value = repaired_record(_written_as(message, ids) if ids else message, transcript)
    return pretty(shorten_payloads(value) if shorten else value)


def _written_as(message: Message, ids: Mapping[str, str]) -> Message:
    """``message`` with each call id an export writes otherwise (``ids``) as it writes it."""
    calls = tuple(replace(c, id=ids.get(c.id, c.id)) for c in message.tool_calls)
    return replace(message, tool_calls=calls, tool_call_id=ids.get(message.tool_call_id, message.tool_call_id))


class Styled(Static, can_focus=False):
    """Static text whose parts take their colours from the theme (component classes)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "styled--key",
        "styled--heading",
        "styled--empty",
        "styled--muted",
        "styled--ok",
    }
    DEFAULT_CSS = """
    Styled {
        & > .styled--key { color: $text-accent; text-style: bold; }
        & > .styled--heading { color: $text-primary; text-style: bold; }
        & > .styled--empty { color: $foreground-muted; text-style: italic; }
        & > .styled--muted { color: $foreground-muted; }
        & > .styled--ok { color: $text-success; text-style: bold; }
    }
    """

    def part(self, name: str) -> Style:
        return self.get_component_rich_style(f"styled--{name}", partial=True)


ResultType = TypeVar("ResultType")


class Overlay(Screen[ResultType]):
    """A screen over the main one: what :meth:`compose_body` yields, above a key bar.

    Its close binding (``esc``, and ``q`` where no box takes text) runs ``close``: the screen goes
    with no answer (``None``). Its parts take the classes ``intro`` (the line that says what the
    screen is) and ``pane`` (a framed box whose frame lights up while it has the focus)."""

    AUTO_FOCUS: ClassVar[str | None] = "*"
    """What takes the focus first (the app's own choice, the panes, is not on this screen)."""
    KEY_BAR: ClassVar[tuple[str, ...]] = ()
    """The binding ids the key bar keeps longest, most important first."""
    KEY_HINTS: ClassVar[tuple[tuple[str, str], ...]] = ()
    """``(key, what it does)`` for keys a widget handles itself (enter in a list), shown first."""
    DEFAULT_CSS = """
    Overlay {
        & .intro { height: auto; padding: 0 1; background: $panel; color: $foreground; }
        & .pane { border: round $panel-lighten-2; &:focus-within { border: round $accent; } }
    }
    """

    def compose(self) -> ComposeResult:
        yield from self.compose_body()
        yield KeyBar(self.KEY_BAR, hints=self.KEY_HINTS)

    def compose_body(self) -> ComposeResult:
        """What the screen shows above its key bar."""
        raise NotImplementedError

    def action_close(self) -> None:
        self.dismiss()


class Dialog(ModalScreen[ResultType], Overlay[ResultType]):
    """A box (the widget with the class ``frame``) centred over the main screen, which shows
    dimmed behind it; the main screen's keys do not act while it is up.

    ``ModalScreen`` comes first: Textual takes a screen's default CSS along its first base only,
    and the dimmed background is ``ModalScreen``'s (a dialog has no ``intro`` or ``pane``)."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
        & > .frame {
            max-width: 95%; height: auto; border: round $accent; background: $surface; padding: 0 1;
            border-title-color: $text-accent;
        }
    }
    """


class HelpText(Styled):
    """Text laid out again for its width whenever that changes: ``lay_out(self, width)``."""

    def __init__(self, layout: Callable[[Styled, int], Text], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lay_out = layout
        self.laid = 0
        """The width the text was laid out for."""

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        if width > 0 and width != self.laid:
            self.laid = width
            self.update(self.lay_out(self, width))


class HelpScreen(Dialog[None]):
    """Every key, from the bindings themselves, so the list cannot go stale."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,f1", "close", "Close", id="help.close")]
    KEY_BAR = ("help.close",)
    KEY_HINTS = (("j/k", "Scroll"), ("g/G", "Top/bottom"))
    DEFAULT_CSS = """
    HelpScreen {
        #help-box { width: 124; height: 90%; }
        &.-tiny > #help-box { max-width: 100%; height: 100%; padding: 0; }
    }
    """
    HORIZONTAL_BREAKPOINTS = [(0, "-tiny"), (40, "-roomy")]  # noqa: RUF012 (typed by Screen)
    """Below 40 columns the box takes the whole window, with no padding: every column for words."""
    KEYS_WIDTH: ClassVar[int] = 24
    """Columns for the keys (and indent) of a line, where the box is wide."""
    NAME_WIDTH: ClassVar[int] = 17
    """Columns for what a key is called, where the box is wide; its tooltip follows."""
    TOOLTIP_LEAST: ClassVar[int] = 30
    """Below this many columns left for a tooltip beside its key, it goes on lines of its own."""

    def __init__(
        self,
        groups: Iterable[tuple[str, Iterable[BindingType]]],
        extra: Iterable[tuple[str, str]],
        signs: Iterable[tuple[str, str]] = (),
    ) -> None:
        """``extra``: what the mouse does; ``signs``: what the marks the screen draws mean."""
        super().__init__()
        self.groups = [(title, list(bindings)) for title, bindings in groups]
        self.extra = list(extra)
        self.signs = list(signs)

    def compose_body(self) -> ComposeResult:
        box = Scroll(HelpText(self.text, id="help-text"), id="help-box", classes="frame")
        box.border_title = "suture: keys (esc closes)"
        yield box

    def entries(self) -> list[tuple[str, list[tuple[str, str, str]]]]:
        """Each group's title and its lines: the keys as typed, what they are called, the tooltip."""
        groups: list[tuple[str, list[tuple[str, str, str]]]] = []
        for title, bindings in self.groups:
            lines = []
            for binding in bindings:
                if not isinstance(binding, Binding):
                    continue
                keys = ", ".join(format_key(k.strip()) for k in binding.key.split(","))
                lines.append((keys, binding.description or binding.action, binding.tooltip or ""))
            groups.append((title, lines))
        groups.append(("Mouse", [(what, does, "") for what, does in self.extra]))
        if self.signs:
            groups.append(("What the marks mean", [(sign, means, "") for sign, means in self.signs]))
        return groups

    def text(self, body: Styled, width: int) -> Text:
        """The help laid out for ``width`` columns: keys, name and tooltip on a line, the tooltip
        wrapped under itself; where that leaves the tooltip too little room, the name beside the
        keys and the tooltip on the lines below, indented. Nothing is cut and no line wraps under
        the keys."""
        key_style, head_style, muted = body.part("key"), body.part("heading"), body.part("muted")
        entries = self.entries()
        # The columns as wide as what they hold and two spaces more, up to their limits.
        longest_keys = max((cell_len(keys) for _, lines in entries for keys, _, _ in lines), default=0)
        keys_width = min(self.KEYS_WIDTH, max(12, width // 3), 2 + longest_keys + 2)
        longest_name = max((cell_len(name) for _, lines in entries for _, name, said in lines if said), default=0)
        name_width = min(self.NAME_WIDTH, longest_name + 2)
        if width - keys_width < name_width:  # no room for a name beside its keys
            return self._narrow_text(entries, width, (key_style, head_style, muted))
        beside = width - keys_width - name_width >= self.TOOLTIP_LEAST
        text = Text(end="")
        for title, lines in entries:
            text.append(f"{title}\n", head_style)
            for keys, name, tooltip in lines:
                keyed = f"  {keys}"
                if len(keyed) >= keys_width:  # keys that fill their column get a line of their own
                    text.append(keyed + "\n", key_style)
                    keyed = ""
                text.append(keyed.ljust(keys_width), key_style)
                named = _wrapped(name, max(width - keys_width, 8)) or [""]
                text.append(("\n" + " " * keys_width).join(named))
                indent = keys_width + name_width if beside else 4
                said = _balanced(tooltip, width - indent)
                if said and beside and len(named) == 1 and cell_len(named[0]) < name_width:
                    text.append(" " * (name_width - cell_len(named[0])))
                    text.append(said.pop(0), muted)
                for part in said:
                    text.append("\n" + " " * indent)
                    text.append(part, muted)
                text.append("\n")
            text.append("\n")
        text.rstrip()
        return text

    def _narrow_text(
        self, entries: list[tuple[str, list[tuple[str, str, str]]]], width: int, styles: tuple[Style, Style, Style]
    ) -> Text:
        """The help for a box too narrow for columns: each key on a line of its own, with its
        name after it where that fits, else on the lines under it; its tooltip under both, every
        line broken between words (indented less in the narrowest boxes)."""
        key_style, head_style, muted = styles
        lead = " " * (2 if width >= 24 else 0)
        under = lead + "  "
        text = Text(end="")
        for title, lines in entries:
            text.append("\n".join(_wrapped(title, width)) + "\n", head_style)
            for keys, name, tooltip in lines:
                keyed = _wrapped(keys, width - len(lead)) or [""]
                text.append("\n".join(lead + part for part in keyed), key_style)
                if len(lead) + cell_len(keyed[-1]) + 1 + cell_len(name) <= width:
                    text.append(f" {name}")
                else:
                    for part in _wrapped(name, width - len(under)):
                        text.append(f"\n{under}{part}")
                for part in _balanced(tooltip, width - len(under)):
                    text.append("\n" + under)
                    text.append(part, muted)
                text.append("\n")
            text.append("\n")
        text.rstrip()
        return text


def _balanced(said: str, width: int) -> list[str]:
    """``said`` in as few lines of at most ``width`` columns as :func:`_wrapped` takes, each as
    even as it can be: the narrowest width that needs no more lines, so a wrapped sentence does
    not leave a word or two alone on its last line."""
    lines = _wrapped(said, max(width, 8))
    if len(lines) < 2:
        return lines
    low, high = max(8, max(cell_len(w) for w in said.split()) if said.split() else 8), width
    while low < high:
        middle = (low + high) // 2
        if len(_wrapped(said, middle)) <= len(lines):
            high = middle
        else:
            low = middle + 1
    return _wrapped(said, high)


class WrappedRadio(RadioButton):
    """A radio button whose label, where the box is narrower than it, takes the lines it needs,
    each under the label's first (a label is never cut)."""

    DEFAULT_CSS = """
    WrappedRadio { width: 1fr; height: auto; text-wrap: wrap; }
    """

    def _lines(self, width: int) -> list[str]:
        indent = self._button.cell_length + 1
        return _wrapped(self.label.plain, max(width - indent - 1, 8)) or [""]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render(self) -> Content:
        label_style = self.get_visual_style("toggle--label")
        indent = " " * (self._button.cell_length + 1)
        parts: list[Content | str] = [self._button]
        for k, line in enumerate(self._lines(self.content_region.width or self.size.width)):
            if k:
                parts.append("\n" + indent)
            else:
                parts.append(" ")
            parts.append(Content(line + " ").stylize_before(label_style))
        return Content.assemble(*parts)


@dataclass(frozen=True, slots=True)
class ExportOption:
    """One thing the export can write (:func:`suture.writeback.export_choices`): ``label`` what
    it is, ``what`` a sentence on what the file gets, ``target`` the path offered for it, and
    its bytes, made already, or ``error``, why they cannot be made."""

    label: str
    what: str
    target: Path
    format: str
    """The suture format it writes (``claude-code`` for the session itself)."""
    data: bytes | None = None
    error: str | None = None
    said: tuple[str, ...] = ()
    """What a session written back says of itself (``Claude Code session written unchanged``,
    what it leaves to its agent), a sentence each (:meth:`suture.writeback.ExportChoice.said`)."""
    rejected: str | None = None
    """What the provider of a request body would reject in it (``""``: nothing), as ``suture
    repair`` warns it; ``None`` where it was not worked out with the option (a long history)."""


class ExportScreen(Dialog["tuple[str, int] | None"]):
    """Ask what to write (where there is more than one thing: a session log, or its request
    body) and where. Dismissed with the path and the option's index, or ``None``.

    The box shows the chosen option's path as :func:`suture.show.path` writes it; submitted
    unchanged, it stands for that path itself (whatever characters its name holds). Choosing
    another option puts its path in the box while the box holds the last one offered."""

    AUTO_FOCUS = "#export-path"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Cancel", id="export.cancel"),
        Binding("ctrl+t", "next_option", "Write the other", id="export.other"),
    ]
    KEY_BAR = ("export.cancel", "export.other")
    KEY_HINTS = (("enter", "Write"),)
    DEFAULT_CSS = """
    ExportScreen {
        #export-box { width: 90; max-height: 100%; }
        #export-options { width: 1fr; height: auto; border: none; margin-bottom: 1; }
        #export-what { width: 1fr; margin-bottom: 1; }
        .export-prompt { width: 1fr; }  /* (a narrow window wraps it rather than cutting it) */
        #export-note { color: $foreground-muted; margin-top: 1; width: 1fr; }
        #export-why { color: $text-warning; text-style: bold; width: 1fr; display: none; }
    }
    """

    def __init__(
        self, options: list[ExportOption], note: str, path: str | None = None, chosen: int = 0, why: str = ""
    ) -> None:
        """``path`` and ``chosen``: what the box holds and the option chosen, where the dialog is
        asked again (an answer refused, an overwrite declined); ``why`` says why, under the box."""
        super().__init__()
        self.options = options
        self.note = note
        self.chosen = chosen
        self.path = path
        self.why = why

    @property
    def default(self) -> Path:
        """The path offered for the chosen option."""
        return self.options[self.chosen].target

    def compose_body(self) -> ComposeResult:
        with Vertical(id="export-box", classes="frame") as box:
            box.border_title = "Export the repaired transcript"
            if len(self.options) > 1:
                writable = sum(option.error is None for option in self.options)
                how = "ctrl+t or the mouse picks" if writable > 1 else "one can be written now"
                yield Label(f"What to write ({how}):", classes="export-prompt")
                with RadioSet(id="export-options"):
                    for k, option in enumerate(self.options):
                        said = show.line(option.label) + (
                            f" (cannot: {show.line(option.error)})" if option.error else ""
                        )
                        yield WrappedRadio(Text(said), value=k == self.chosen, disabled=option.error is not None)
            yield Label(self._what(self.chosen), id="export-what", markup=False)
            yield Label("Write to (enter to write, esc to cancel):", classes="export-prompt")
            typed = show.path(self.default) if self.path is None else self.path
            yield Input(typed, id="export-path", select_on_focus=False)
            why = Label(self.why, id="export-why", markup=False)
            why.display = bool(self.why)
            yield why
            note = Label(self.note, id="export-note", markup=False)
            note.display = bool(self.note)  # (no empty lines where there is nothing to note)
            yield note

    def on_mount(self) -> None:
        # The end of the path shows, where the box is narrower than it: the file's name.
        box = self.query_one("#export-path", Input)
        self.call_after_refresh(lambda: box.scroll_to(x=box.max_scroll_x, animate=False, immediate=True))

    def _what(self, k: int) -> str:
        option = self.options[k]
        if option.error:
            return f"{option.label}: cannot be written: {option.error}." + (f" {option.what}" if option.what else "")
        return option.what

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_option":
            return sum(o.error is None for o in self.options) > 1
        return True

    def action_next_option(self) -> None:
        k = self.chosen
        for _ in self.options:
            k = (k + 1) % len(self.options)
            if self.options[k].error is None:
                break
        self._choose(k)
        buttons = list(self.query(RadioButton))
        if k < len(buttons) and not buttons[k].value:
            buttons[k].value = True

    @on(RadioSet.Changed, "#export-options")
    def _picked(self, event: RadioSet.Changed) -> None:
        self._choose(event.index)

    def _choose(self, k: int) -> None:
        if k == self.chosen or not 0 <= k < len(self.options):
            return
        box = self.query_one("#export-path", Input)
        if box.value.strip() == show.path(self.default).strip():
            box.value = show.path(self.options[k].target)
        self.chosen = k
        self.query_one("#export-what", Label).update(self._what(k))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        why = self.query_one("#export-why", Label)
        if not value:
            # Never close without a word: an empty path writes nothing, and says so.
            why.update("Nothing written: the path is empty. Type where to write, or esc to cancel.")
            why.display = True
            return
        option = self.options[self.chosen]
        if option.error:
            why.update(f"Nothing written: {option.error}")
            why.display = True
            return
        if value == show.path(self.default).strip():
            value = str(self.default)
        self.dismiss((value, self.chosen))


class ConfirmScreen(Dialog[bool]):
    """A yes/no question; no is the default (and the answer of ``esc``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape,q", "answer(False)", "No", key_display="n", id="confirm.no"),
    ]
    KEY_BAR = ("confirm.yes", "confirm.no")
    DEFAULT_CSS = """
    ConfirmScreen {
        #confirm-box { width: 80; border: round $warning; padding: 1 2; }
        Label { width: 1fr; }
        #confirm-buttons { height: auto; margin-top: 1; align-horizontal: right; }
        Button { margin-left: 2; }
    }
    """

    def __init__(self, question: str, yes: str = "Overwrite") -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose_body(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="frame"):
            yield Label(self.question, markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button("Cancel (n)", id="confirm-no", variant="primary")
                yield Button(f"{self.yes} (y)", id="confirm-yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#confirm-no").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ProviderScreen(Dialog[str | None]):
    """Pick the provider whose rules the header, the problems list and the details follow.

    Each choice is a provider's name and its verdict in words, longest first: the list says
    every verdict in the longest words in which all fit its width (never a verdict on two
    lines), and says them again when the width changes."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Cancel", id="provider.cancel")]
    KEY_BAR = ("provider.cancel",)
    KEY_HINTS = (("enter", "Check against it"), ("j/k", "Move"))
    DEFAULT_CSS = """
    ProviderScreen {
        #provider-box { width: 110; padding: 0; }
        OptionList { height: auto; max-height: 20; border: none; text-wrap: nowrap; text-overflow: ellipsis; }
    }
    """

    def __init__(self, choices: list[tuple[str, tuple[str, ...]]], current: str | None) -> None:
        super().__init__()
        self.choices = choices
        self.current = current
        self.laid = -1
        """The list width the verdicts were last said for."""

    def compose_body(self) -> ComposeResult:
        with Vertical(id="provider-box", classes="frame") as box:
            box.border_title = "Check against (enter picks, esc cancels)"
            yield PickList(*(Option(Text(forms[0]), id=name) for name, forms in self.choices))

    def on_mount(self) -> None:
        names = [name for name, _ in self.choices]
        if self.current in names:
            self.query_one(OptionList).highlighted = names.index(self.current)

    def said(self, width: int) -> list[str]:
        """Each choice's verdict in the longest words in which every one fits ``width`` columns."""
        depth = max(len(forms) for _, forms in self.choices) if self.choices else 1
        for k in range(depth):
            said = [forms[min(k, len(forms) - 1)] for _, forms in self.choices]
            if all(cell_len(line) <= width for line in said):
                return said
        return [forms[-1] for _, forms in self.choices]

    def on_resize(self) -> None:
        self.call_after_refresh(self._lay_out)

    def _lay_out(self) -> None:
        picks = self.query_one(OptionList)
        # An option's own padding takes a column each side.
        width = picks.scrollable_content_region.width - 2
        if width <= 0 or width == self.laid:
            return
        self.laid = width
        for k, line in enumerate(self.said(width)):
            picks.replace_option_prompt_at_index(k, Text(line))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
