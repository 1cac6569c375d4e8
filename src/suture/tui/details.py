"""A message whole, for a person reviewing a repair: Original and Repaired side by side.

Each side shows the message's content block by block, each under its kind (text, thinking,
image, redacted_thinking...) in the message's order, its calls with their arguments (indented
JSON, coloured), the call a result answers (a synthetic result too: its Original side shows the call it answers),
and its JSON (as read from the file; the record an export writes, or for a session log, whose
write-back writes records of its own kind, the record of its request body). Ids that
differ between the two sides are marked. ``w`` shows the record exactly as written in the file (its line or span,
byte for byte) beside suture's normalised view of it; ``m`` shows long strings whole; ``o``
opens the focused side in ``$PAGER``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import orjson
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll

from suture import show
from suture.kinds import KINDS
from suture.model import ImagePart, Message, Part, TextPart, ThinkingPart, ToolCall
from suture.repair import Change
from suture.tui.judged import Finding, said_of
from suture.tui.records import HUGE, neutral_record, pretty, shorten_payloads
from suture.tui.rows import RowModel, human_size, next_round
from suture.tui.screens import Overlay, Styled, record_json
from suture.tui.scrolling import Scroll
from suture.tui.view import SIDES
from suture.validity import Breach
from suture.written import Written, written

__all__ = ["DetailScreen", "json_text", "paired_call"]

_TOKEN = re.compile(
    r'(?P<key>"(?:[^"\\\n]|\\.)*")(?=\s*:)|(?P<string>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<literal>\btrue\b|\bfalse\b|\bnull\b)"
)


def json_text(source: str, styles: dict[str, Style]) -> Text:
    """Indented JSON as text with its keys, strings, numbers and literals coloured."""
    text = Text(source, end="")
    for match in _TOKEN.finditer(source):
        kind = match.lastgroup
        if kind is not None and kind in styles:
            text.stylize(styles[kind], match.start(), match.end())
    return text


def paired_call(messages: Sequence[Message], index: int) -> tuple[int, int] | None:
    """Where the call a result answers is: (message index, call index), the nearest before the
    result that has its id."""
    wanted = messages[index].tool_call_id
    if not wanted:
        return None
    for i in range(index - 1, -1, -1):
        for k, call in enumerate(messages[i].tool_calls):
            if call.id == wanted:
                return i, k
    return None


def blank_said(value: str, limit: int = 200) -> str:
    """What a text holding only whitespace is shown as: the whitespace written as a string
    literal (``"\\n\\n"``), so a block that shows nothing can still be seen."""
    if not value:
        return "empty"
    shown = show.line(orjson.dumps(value[:limit]).decode())
    more = f"… {len(value) - limit:,} more characters" if len(value) > limit else ""
    return f"whitespace only: {shown}{more}"


def arguments_json(call: ToolCall) -> str:
    """A call's arguments as indented JSON (a JSON string, as OpenAI sends them, parsed first)."""
    value = call.arguments
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return str(call.arguments)
    return pretty(value)


@dataclass(frozen=True, slots=True)
class _FileText:
    """What the file holds for the row's Original message (read in a worker)."""

    row: int
    records: list[Written]
    error: str = ""


class DetailScreen(Overlay[None]):
    """The selected message whole, Original and Repaired side by side."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "Back", id="detail.back"),
        Binding("y", "copy", "Copy JSON", id="detail.copy", tooltip="Copy the focused side's record as JSON"),
        Binding("n", "change(1)", "Next change", id="detail.next_change"),
        Binding("N", "change(-1)", "Prev change", id="detail.previous_change"),
        Binding("J,ctrl+down", "row(1)", "Next message", id="detail.next_row"),
        Binding("K,ctrl+up", "row(-1)", "Prev message", id="detail.previous_row"),
        Binding(
            "w",
            "written",
            "As written",
            id="detail.written",
            tooltip="The record exactly as the file holds it (line and bytes), beside suture's normalised view",
        ),
        Binding("m", "whole", "Whole strings", id="detail.whole", tooltip="Show long strings and payloads whole"),
        Binding("o", "pager", "Open in $PAGER", id="detail.pager", tooltip="Open the focused side in $PAGER"),
        Binding("left,h", "focus_side(0)", "Original", show=False, id="detail.original"),
        Binding("right,l", "focus_side(1)", "Repaired", show=False, id="detail.repaired"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "detail--changed",
        "detail--json-key",
        "detail--json-string",
        "detail--json-number",
        "detail--json-literal",
    }
    KEY_BAR = ("detail.back", "detail.written", "detail.pager", "detail.copy", "detail.whole")
    DEFAULT_CSS = """
    DetailScreen {
        #detail-why-box { height: auto; max-height: 7; scrollbar-size-vertical: 1; }
        #detail-columns { height: 1fr; }
        .detail-side {
            width: 1fr; height: 1fr; padding: 0 1; border-title-color: $foreground-muted;
            &:focus { border-title-color: $text-accent; }
        }
        & > .detail--changed { background: $warning-muted; color: $foreground; text-style: bold underline; }
        & > .detail--json-key { color: $text-accent; }
        & > .detail--json-string { color: $text-success; }
        & > .detail--json-number { color: $text-warning; }
        & > .detail--json-literal { color: $text-secondary; }
    }
    """

    def __init__(
        self,
        model: RowModel,
        row: int,
        side: int,
        on_move: Callable[[int], None],
        copy: Callable[[str, str], None],
        findings: Callable[[int], tuple[list[Finding | Breach], str]] | None = None,
        path: Path | None = None,
    ) -> None:
        super().__init__()
        self.findings = findings
        self.model = model
        self.row = row
        self.side = side
        self.on_move = on_move
        self.copy = copy
        self.path = path
        self.as_written = False
        self.whole = False
        self.file_text: _FileText | None = None
        self._ids: dict[str, str] | None = None
        self._titles: list[tuple[str, ...]] = [(), ()]
        """Each side's titles, longest first: :meth:`_fit_titles` shows the first that fits."""

    def compose_body(self) -> ComposeResult:
        # The why in a box of its own: in a short window, what does not fit scrolls.
        with VerticalScroll(id="detail-why-box", classes="intro"):
            yield Styled(id="detail-why")
        with Horizontal(id="detail-columns"):
            for side in (0, 1):
                scroll = Scroll(Styled(id=f"detail-body-{side}"), id=f"detail-side-{side}", classes="pane detail-side")
                scroll.can_focus = True
                yield scroll

    def on_resize(self) -> None:
        # A short window keeps most of its lines for the message itself.
        self.query_one("#detail-why-box").styles.max_height = 3 if self.size.height < 30 else 7
        self._fit_titles()

    def _title(self, side: int, *titles: str) -> None:
        """Frame a side with the first of ``titles`` (longest first) that fits its width, so a
        narrow window shortens the title rather than cutting it; the last stands for any width."""
        self._titles[side] = titles
        self._fit_titles()

    def _fit_titles(self) -> None:
        width = self.size.width or self.app.size.width
        for side, titles in enumerate(self._titles):
            # The two sides share the width; a frame's corners and the spaces around its title
            # take six columns of its own.
            room = (width // 2 if side == 0 else width - width // 2) - 6
            fitting = next((t for t in titles if cell_len(t) <= room), titles[-1] if titles else "")
            self.query_one(f"#detail-side-{side}", VerticalScroll).border_title = fitting

    def on_mount(self) -> None:
        self.show_row(self.row)
        self.query_one(f"#detail-side-{self.side}").focus()

    # -- styles ------------------------------------------------------------------------------

    def _class_style(self, css_class: str) -> Style:
        return self.query_one("#detail-why", Styled).part(css_class.removeprefix("detail-"))

    def _own(self, name: str) -> Style:
        return self.get_component_rich_style(f"detail--{name}", partial=True)

    def _json(self, source: str, changed: set[str] | None = None) -> Text:
        styles = {k: self._own(f"json-{k}") for k in ("key", "string", "number", "literal")}
        text = json_text(show.block(source), styles)
        self._mark(text, changed)
        return text

    def _mark(self, text: Text, changed: set[str] | None) -> None:
        """Mark every whole occurrence of an id that differs between the two sides."""
        if not changed:
            return
        style = self._own("changed")
        plain = text.plain
        for value in changed:
            for match in re.finditer(rf"(?<![\w-]){re.escape(show.line(value))}(?![\w-])", plain):
                text.stylize(style, match.start(), match.end())

    # -- the row -----------------------------------------------------------------------------

    def written_ids(self) -> dict[str, str]:
        """The calls the session written back (the default export) names otherwise than the
        repair: final id -> the id written (``suture.writeback.written_ids``)."""
        if self._ids is None:
            from suture.writeback import written_ids

            self._ids = written_ids(self.model.transcript, self.model.repair)
        return self._ids

    def change_said(self, change: Change) -> str:
        """A change's summary as the session written back has it (``suture.writeback.as_written``),
        as the lists say it (:meth:`suture.tui.rows.RowModel.said_of`)."""
        from suture.writeback import as_written

        return self.model.said_of(as_written(change, self.model.transcript, self.written_ids()))

    def _shown_id(self, call_id: str, side: int) -> str:
        """A call id as a side shows it: on the Repaired side, the id the session written back gives it."""
        return show.line(self.written_ids().get(call_id, call_id) if side == 1 else call_id) or "(no id)"

    def changed_ids(self, row: int) -> tuple[set[str], set[str]]:
        """The ids the repair changed on a row: as the Original has them, and as the Repaired
        (each with the id the session written back gives it, where that differs)."""
        before, after = self.model.original(row), self.model.repaired(row)
        old: set[str] = set()
        new: set[str] = set()
        if before is not None and after is not None:
            for a, b in zip(before.tool_calls, after.tool_calls, strict=False):
                if a.id != b.id:
                    old.add(a.id)
                    new.add(b.id)
            if before.tool_call_id != after.tool_call_id:
                old.add(before.tool_call_id)
                new.add(after.tool_call_id)
        elif after is not None and after.role == "tool":  # made by repair: its id is new here
            new.add(after.tool_call_id)
        ids = self.written_ids()
        new |= {ids[i] for i in new if i in ids}
        return {i for i in old if i}, {i for i in new if i}

    def show_row(self, row: int) -> None:
        self.row = row
        model = self.model
        why = Text(end="")
        left, right = model.left[row], model.right[row]
        why.append(f"row {row + 1} of {len(model)}", self._class_style("detail-heading"))
        why.append("   Original ")
        why.append(f"#{left}" if left is not None else "—")
        why.append("  →  Repaired ")
        why.append(f"#{right}" if right is not None else "—")
        if self.as_written:
            why.append(
                "   showing the file's bytes beside suture's reading (w: back)", self._class_style("detail-muted")
            )
        for change in model.row_changes.get(row, []):
            why.append("\n")
            shown = KINDS[change.kind]
            why.append(f"{shown.badge[0]} {shown.word}: ", self._class_style("detail-key"))
            why.append(show.line(self.change_said(change)))
        if row not in model.row_changes:
            why.append("\nunchanged: the same record is sent as it was read", self._class_style("detail-empty"))
        findings, agent = self.findings(row) if self.findings else ([], "")
        # A problem the repair leaves is said once ("not fixed by repair"), not again "after repair".
        stays = {
            (f.provider, f.rule)
            for f in findings
            if isinstance(f, Finding) and f.kind == "before" and f.violation and not f.violation.fixed
        }
        for finding in findings:
            if isinstance(finding, Finding) and finding.kind == "after" and (finding.provider, finding.rule) in stays:
                continue
            label, said = said_of(finding, agent)
            why.append("\n")
            if not isinstance(finding, Finding) or finding.is_problem:  # a breach of the Valid property
                style = "detail-key"
            else:
                style = "detail-ok" if finding.kind == "agent" else "detail-muted"
            why.append(f"{label}: ", self._class_style(style))
            why.append(said)
        self.query_one("#detail-why", Styled).update(why)
        if self.as_written:
            self._show_written()
        else:
            for side in (0, 1):
                self._show_side(side)
        for side in (0, 1):
            self.query_one(f"#detail-side-{side}", VerticalScroll).scroll_home(animate=False)

    def _show_side(self, side: int) -> None:
        model, row = self.model, self.row
        message = model.original(row) if side == 0 else model.repaired(row)
        body = self.query_one(f"#detail-body-{side}", Styled)
        index = model.left[row] if side == 0 else model.right[row]
        if message is None:
            empty = self._class_style("detail-empty")
            if side == 1:
                self._title(1, "Repaired: dropped, not sent", "Repaired: dropped", "dropped")
                body.update(Text("dropped by repair: this message is not sent", style=empty))
                return
            self._title(0, "Original: added by repair, not in the file", "Original: added by repair", "added")
            text = Text(end="")
            text.append("added by repair: not in the file.", empty)
            answers = self._answers(1)
            if answers.plain:
                text.append("\n\n")
                text.append_text(answers)
            body.update(text)
            return
        # Shortened where narrow: the record's heading in the body says where it was read whole.
        where = str(message.source) if message.source is not None else "made by repair"
        line = f"line {message.source.line}" if message.source is not None and message.source.line else where
        if side == 1 and message.source is not None:  # where the file held it, not where the repair puts it
            where, line = f"from {where}", f"from {line}"
        named = f"{SIDES[side]} #{index} {show.line(message.role)}"
        self._title(
            side,
            f"{named} · {show.line(where)}",
            f"{named} · {show.line(line)}",
            named,
            f"#{index} {show.line(message.role)}",
        )
        body.update(self._body(message, side))

    def _answers(self, side: int) -> Text:
        """What a result answers: the call, with its arguments, and where it is. ``side`` 1 (a
        Repaired result) is also what a synthetic result's empty Original side shows."""
        model, row = self.model, self.row
        text = Text(end="")
        if side == 1:
            message, index, messages = model.repaired(row), model.right[row], model.repair.messages
        else:
            message, index, messages = model.original(row), model.left[row], model.transcript.messages
        if message is None or index is None or message.role != "tool":
            return text
        found = paired_call(messages, index)
        if found is None:
            return text
        i, k = found
        call = messages[i].tool_calls[k]
        where = f"{SIDES[side]} #{i}"
        if side == 1 and model.repair.origin[i] is not None:
            where += f" (Original #{model.repair.origin[i]})"
        text.append("answers the call\n", self._class_style("detail-heading"))
        line = Text(end="")
        line.append(f"{show.line(call.name or '?')} ", self._class_style("detail-key"))
        line.append(self._shown_id(call.id, side))
        old, new = self.changed_ids(row)
        self._mark(line, old if side == 0 else new)
        text.append_text(line)
        text.append(f"  in {where}\n", self._class_style("detail-muted"))
        if call.arguments not in (None, "", {}):
            text.append_text(self._json(arguments_json(call)))
        return text

    def _body(self, message: Message, side: int) -> Text:
        text = Text(end="")
        heading = self._class_style("detail-heading")
        old, new = self.changed_ids(self.row)
        changed = old if side == 0 else new
        content = message.content
        parts = [TextPart(content)] if isinstance(content, str) and content else content
        for part in parts if isinstance(parts, list) else ():
            text.append_text(self._part(part))
            text.append("\n\n")
        if message.tool_calls:
            text.append("calls\n", heading)
            for call in message.tool_calls:
                line = Text(end="")
                line.append(f"{show.line(call.name or '?')} ", self._class_style("detail-key"))
                line.append(self._shown_id(call.id, side))
                self._mark(line, changed)
                text.append_text(line)
                text.append("\n")
                if call.arguments not in (None, "", {}):
                    text.append_text(self._json(arguments_json(call)))
                    text.append("\n")
            text.append("\n")
        if message.role == "tool":
            answers = self._answers(side)
            if answers.plain:
                text.append_text(answers)
                text.append("\n\n")
            else:
                text.append("answers no call before it\n\n", self._class_style("detail-empty"))
        text.append(f"{self.record_heading(message, side)}\n", heading)
        ids = self.written_ids() if side == 1 else None
        source = record_json(message, side, self.model.transcript, shorten=not self.whole, ids=ids)
        text.append_text(self._json(source, changed))
        return text

    def record_heading(self, message: Message, side: int) -> str:
        """What the JSON under a side's heading is. The Original side shows the message's JSON as
        read, the file's record whole or the part of it that is the message (a session log's line
        has more around it); the Repaired side shows the record an export writes, except for a
        session log, whose write-back writes records of the file's own kind: there it is the
        record of its request body (``suture repair --to messages`` for Claude Code and pi,
        ``responses`` for Codex: :func:`suture.formats.export_name`)."""
        if side == 0:
            where = f" ({show.line(str(message.source))})" if message.source is not None else ""
            return f"the message's JSON as read from the file{where}; w shows its record as written"
        from suture.formats import export_name
        from suture.writeback import writes_back

        transcript = self.model.transcript
        if writes_back(transcript.format):
            body = export_name(transcript)
            return f"the record --to {body} writes for it (a request body), not the session line the write-back writes"
        return "record as an export writes it"

    def _part(self, part: Part) -> Text:
        """One part of a message's content under a heading naming its kind (``text``,
        ``thinking``, ``image``, or the record's own type for any other: ``redacted_thinking``),
        so the order of a message's blocks can be read; a text that is only whitespace says so."""
        muted = self._class_style("detail-muted")
        text = Text(end="")
        if isinstance(part, TextPart | ThinkingPart):
            text.append(part.type, self._class_style("detail-heading"))
            if isinstance(part, ThinkingPart) and part.signature:
                text.append(" · signed", muted)
            text.append("\n")
            said = part.text
            if not said.strip():
                text.append(blank_said(said), muted)
            elif len(said) > HUGE and not self.whole:
                text.append(show.block(said[:HUGE]))
                text.append(f"… {len(said) - HUGE:,} more characters (m shows them, o opens them in $PAGER)", muted)
            else:
                text.append(show.block(said))
        elif isinstance(part, ImagePart):
            text.append("image", self._class_style("detail-heading"))
            text.append("\n")
            what = [show.line(part.media_type or "no media type")]
            if part.data is not None:
                what.append(f"{human_size(part.size)} of base64")
            elif part.url is not None:
                what.append(f"at {show.line(part.url[:200])}" + ("…" if len(part.url) > 200 else ""))
            elif part.size:
                what.append(human_size(part.size))
            text.append(", ".join(what), muted)
        else:
            text.append(show.line(part.kind), self._class_style("detail-heading"))
            text.append("\n")
            raw = part.raw if self.whole else shorten_payloads(part.raw)
            text.append_text(self._json(pretty(raw)))
        return text

    # -- as written --------------------------------------------------------------------------

    def _show_written(self) -> None:
        model, row = self.model, self.row
        message = model.original(row)
        left_body = self.query_one("#detail-body-0", Styled)
        right_body = self.query_one("#detail-body-1", Styled)
        empty = self._class_style("detail-empty")
        if message is None:
            self._title(0, "As written: nothing (added by repair)", "As written: nothing", "nothing")
            left_body.update(Text("added by repair: the file holds nothing for this row", style=empty))
            self._title(1, "As suture reads it")
            right_body.update(Text("", end=""))
            return
        role = show.line(message.role)
        self._title(1, f"As suture reads it: Original #{model.left[row]} {role}", f"Read: #{model.left[row]} {role}")
        old, _ = self.changed_ids(row)
        right_body.update(self._json(pretty(shorten_payloads(neutral_record(message))), old))
        found = self.file_text
        if found is None or found.row != row:
            place = show.line(str(message.source or "?"))
            self._title(0, f"As written: {place}", place)
            left_body.update(Text("reading the file…", style=empty))
            self.read_written(row, message)
            return
        if found.error or not found.records:
            self._title(0, "As written")
            said = found.error or "the file no longer holds this record where it was read (it changed since)"
            left_body.update(Text(show.line(said), style=empty))
            return
        size = sum(len(w.data) for w in found.records)
        lines = ", ".join(w.what for w in found.records)
        lines, size_shown = show.line(lines), human_size(size)
        self._title(0, f"As written: {lines} ({size_shown})", f"{lines} ({size_shown})", lines)
        text = Text(end="")
        for k, record in enumerate(found.records):
            if k:
                text.append("\n\n")
            if len(found.records) > 1 or not record.what.startswith("line"):
                text.append(f"{show.line(record.what)} (line {record.line})\n", self._class_style("detail-heading"))
            raw = record.data.decode("utf-8", "backslashreplace")
            if len(raw) > HUGE and not self.whole:
                raw = raw[:HUGE]
                more = f"… {len(record.data) - len(raw.encode()):,} more bytes (m shows them)"
            else:
                more = ""
            body = Text(show.block(raw), end="")
            self._mark(body, old)
            text.append_text(body)
            if more:
                text.append(more, self._class_style("detail-muted"))
        left_body.update(text)

    @work(thread=True, exclusive=True, group="written", exit_on_error=False)
    def read_written(self, row: int, message: Message) -> None:
        """Read the file and find the row's record in it (off the UI thread: a file can be
        hundreds of megabytes)."""
        if self.path is None:
            found = _FileText(row, [], "no file to read")
        else:
            try:
                data = self.path.read_bytes()
            except OSError as e:
                found = _FileText(row, [], f"cannot read the file: {e.strerror or e}")
            else:
                found = _FileText(row, written(data, message.source))
        self.app.call_from_thread(self._written_read, found)

    def _written_read(self, found: _FileText) -> None:
        if not self.is_attached or found.row != self.row:
            return
        self.file_text = found
        if self.as_written:
            self._show_written()

    def action_written(self) -> None:
        self.as_written = not self.as_written
        self.show_row(self.row)

    def action_whole(self) -> None:
        self.whole = not self.whole
        self.show_row(self.row)
        self.notify("long strings shown whole" if self.whole else "long strings shortened", markup=False)

    # -- copy, pager, moving -----------------------------------------------------------------

    def _focused_side(self) -> int:
        focused = self.focused
        return 0 if focused is not None and focused.id == "detail-side-0" else 1

    def action_copy(self) -> None:
        """Copy what the focused side shows, whole: a record as JSON, or (``w``) the bytes the
        file holds or suture's reading of them."""
        side = self._focused_side()
        if self.as_written:
            self._copy_written(side)
            return
        message = self.model.original(self.row) if side == 0 else self.model.repaired(self.row)
        if message is None:
            self.notify(f"nothing on the {SIDES[side]} side to copy", severity="warning", markup=False)
            return
        ids = self.written_ids() if side == 1 else None
        self.copy(
            record_json(message, side, self.model.transcript, shorten=False, ids=ids),
            f"the {SIDES[side]} record as JSON",
        )

    def _copy_written(self, side: int) -> None:
        """``y`` beside the record as written: that record's bytes (side 0), or the Original
        message as suture reads it (side 1), each said by the name its side's title gives it."""
        message = self.model.original(self.row)
        found = self.file_text
        if message is None:
            said, text = "nothing to copy: the file holds nothing for this row (added by repair)", ""
        elif side == 1:
            said = f"Original #{self.model.left[self.row]} as suture reads it, as JSON"
            text = pretty(neutral_record(message))
        elif found is None or found.row != self.row:
            said, text = "nothing to copy yet: the file is still being read", ""
        elif found.error or not found.records:
            said, text = "nothing to copy: the file no longer holds this record where it was read", ""
        else:
            said = show.line(", ".join(w.what for w in found.records)) + " as written"
            text = "\n".join(w.data.decode("utf-8", "backslashreplace") for w in found.records)
        if not text:
            self.notify(said, severity="warning", markup=False)
            return
        self.copy(text, said)

    def pager_text(self, side: int) -> str:
        """The focused side whole, as plain text: what ``o`` hands to the pager."""
        was = self.whole
        self.whole = True
        try:
            if self.as_written:
                self._show_written()
            else:
                self._show_side(side)
            shown = self.query_one(f"#detail-body-{side}", Styled).content
            return shown.plain if isinstance(shown, Text) else str(shown)
        finally:
            self.whole = was
            self.show_row(self.row)

    def action_pager(self) -> None:
        side = self._focused_side()
        text = self.pager_text(side)
        pager = os.environ.get("PAGER") or "less"
        with tempfile.NamedTemporaryFile("w", suffix=".txt", prefix="suture-", delete=False, encoding="utf-8") as f:
            f.write(text)
            name = f.name
        try:
            try:
                with self.app.suspend():
                    subprocess.run([*shlex.split(pager), name], check=False)
            except Exception as e:  # no terminal to hand over (a browser, a test), no such pager
                self.notify(f"cannot open {show.line(pager)}: {show.line(str(e) or type(e).__name__)}", markup=False)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(name)

    def _move(self, row: int) -> None:
        self.file_text = None if self.file_text is not None and self.file_text.row != row else self.file_text
        self.show_row(row)
        self.on_move(row)

    def action_change(self, step: int) -> None:
        row, note = next_round(self.model.changed_rows, self.row, step, "change")
        if row is None:
            self.notify("the repair changes nothing here", markup=False)
            return
        if note:
            self.notify(note, timeout=3, markup=False)
        if row != self.row:
            self._move(row)

    def action_row(self, step: int) -> None:
        row = self.row + step
        if not 0 <= row < len(self.model):
            self.notify("this is the " + ("last message" if step > 0 else "first message"), markup=False)
            return
        self._move(row)

    def action_focus_side(self, side: int) -> None:
        self.query_one(f"#detail-side-{side}").focus()
