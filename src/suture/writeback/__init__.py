"""Session logs written back in their own format: a repaired session the agent resumes.

``suture repair`` of a Claude Code, Codex or pi session writes a session log of the same agent,
as a *minimal edit* of the file: every line the repair does not need to change stays
byte-identical and in place; a line it changes keeps every byte outside the values it changes;
what it adds are lines shaped as the agent writes them. The agent then resumes the file as it
resumes any of its sessions, and sends the repaired history. Pure: no I/O, no clock, no
randomness (the ids and timestamps of added lines come from the session and their neighbours,
so the same file always gives the same bytes).

The API::

    from suture.writeback import write_back, export_choices

    written = write_back(data, transcript, repaired)   # data: the bytes ``transcript`` was read from
    written.data                 # the session log, repaired
    written.edits                # list[Edit]: every line changed, added, moved or renumbered
    written.left                 # what the repair changes that the file leaves as written, and why
    written.ids                  # final id -> the id the file gives that call, where they differ
    written.notes                # why the file says something otherwise than the repair
    written_ids(transcript, repaired)   # written.ids, known without writing (what the app shows)
    as_written(change, transcript, ids) # a change record as the session written back has it
    written.resume               # the command that resumes it ("claude --resume ID", ...)
    written.summary()            # "Claude Code session: 1 line changed, 1 line added"
    written.report(said, changed)   # what suture repair prints of it, after the repair's own line

    for choice in export_choices(transcript, repaired, data):
        choice.label             # "Claude Code session, resumable with `claude --resume ID`"
        choice.suffix            # ".jsonl"
        choice.bytes()           # what it writes

What each agent's file gets (``suture.writeback.claude_code``, ``.codex``, ``.pi`` say it in
full): a result the repair makes up for a call is added right after the call (Claude Code: a user
line with a ``tool_result`` block, ``is_error: true``, hanging off the call's line; Codex: a
``response_item`` line with the call's output type; pi: a ``toolResult`` entry on the branch);
a renamed call changes its id where it is written, and its result's; a result that answers no
call of its turn becomes a note where it is; results that follow something else of their turn
are put first (Claude Code: in the one record where text comes before them; Codex and pi: the
lines moved up to follow the call). Links (``parentUuid``, ``parentId``), the leaf an agent
resumes (Claude Code's ``last-prompt``) and Codex's ``ordinal`` are kept valid.

What the agent sends in a way providers accept needs no edit and gets none (it is listed in
``Written.left``): results of one turn in another order than its calls (the agent sends them
together, and every provider these agents talk to accepts any order), and whitespace-only
assistant messages (each agent leaves them out, or sends them harmlessly). Writing never makes
resuming worse.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import uuid as _uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from msgspec.structs import replace

from suture import codec, show
from suture.io import InputError
from suture.model import Message, Transcript
from suture.repair import Change, ChangeKind, Repair
from suture.words import count

__all__ = [
    "AGENTS",
    "Edit",
    "ExportChoice",
    "Written",
    "as_written",
    "export_choices",
    "layout",
    "resume_command",
    "whole_lines",
    "write_back",
    "writers",
    "writes_back",
    "written_as",
    "written_id",
    "written_ids",
]

AGENTS = {"claude-code": "Claude Code", "codex": "Codex", "pi": "pi"}
"""The session formats suture writes back, and what a person calls their agent."""


class Writer(Protocol):
    """What each agent's module gives: ``write`` and ``resume``."""

    def write(self, data: bytes, transcript: Transcript, repaired: Repair) -> Written: ...

    def resume(self, transcript: Transcript, data: bytes | None, path: str | None) -> str: ...


def writers() -> dict[str, Writer]:
    """The writer of each session format, by format name."""
    from suture.writeback import claude_code, codex, pi

    return {"claude-code": claude_code, "codex": codex, "pi": pi}


def writes_back(format: str) -> bool:
    """Whether suture writes a transcript of this format back as a session log of its own."""
    return format in AGENTS


@dataclass(frozen=True, slots=True)
class Edit:
    """One line of the written file that is not the input's line, byte for byte, in place.

    ``kind``: ``changed`` (values in the line changed), ``added`` (a new line), ``moved`` (the
    line, perhaps changed, now further up or down), ``renumbered`` (only Codex's ``ordinal``
    changed, after an added or moved line). ``line`` is the input's line (``None`` for an added
    one), ``at`` the line in the written file; ``summary`` says what and why in a sentence."""

    kind: str
    line: int | None
    at: int
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "line": self.line, "at": self.at, "summary": self.summary}


@dataclass(frozen=True, slots=True)
class Written:
    """A session log written back (see the module docstring)."""

    data: bytes
    edits: list[Edit]
    agent: str
    left: list[str] = field(default_factory=list)
    resume: str | None = None
    ids: dict[str, str] = field(default_factory=dict)
    """The calls the file names otherwise than the repair: its final id -> the id written (an
    agent that reads a meaning into the repair's ``{id}_{k}``: ``suture.writeback.claude_code``)."""
    notes: list[str] = field(default_factory=list)
    """What the file says otherwise than the repair, and why: a sentence each."""
    left_changes: int = 0
    """How many of the repair's changes the file leaves as written (what ``left`` says)."""
    cut_line: int | None = None
    """The line the file read ended inside (an agent stopped mid-write, read with
    ``--skip-bad-lines``), left out of what is written (:func:`whole_lines`)."""

    @property
    def changed(self) -> bool:
        return bool(self.edits)

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(("changed", "added", "moved", "renumbered"), 0)
        for edit in self.edits:
            counts[edit.kind] += 1
        return counts

    def summary(self) -> str:
        """``Claude Code session: 1 line changed, 1 line added`` (or ``... written unchanged``)."""
        who = AGENTS.get(self.agent, self.agent)
        if not self.edits:
            # (Not "unchanged" where a line cut off is left out: "its whole lines" says which.)
            return (
                f"{who} session written unchanged"
                if self.cut_line is None
                else f"{who} session: its whole lines written unchanged"
            )
        return f"{who} session: {self.lines_said()}"

    def lines_said(self) -> str:
        """``1 line changed, 1 line added``: the edits, counted by kind (empty where none)."""
        return ", ".join(f"{count(n, 'line')} {kind}" for kind, n in self.counts().items() if n)

    def said(self) -> list[str]:
        """What the session written is, for a person who exports it: its summary, what it leaves
        to its agent and what it says otherwise than the repair, a sentence each."""
        return [self.summary(), *self.left, *self.notes]

    def report(self, repair_summary: str, repaired: bool) -> tuple[str, list[str]]:
        """What ``suture repair`` says of the session written: its summary line (after
        ``repair_summary``, the repair's own; ``repaired``: whether the repair changed any
        message) and a note a line. Where the repair changes nothing but the file is still edited
        for the agent (a call renamed so the agent sends its result), the line says so, with why,
        once."""
        who = AGENTS.get(self.agent, self.agent)
        left = list(self.left)
        if repaired or not self.edits:
            return f"{repair_summary}; {self.summary()}", [*left, *self.notes]
        why = f" for how {who} reads it: {'; '.join(self.notes)}" if self.notes else ""
        return f"{repair_summary}, but the {who} session is written with {self.lines_said()}{why}", left

    def aside(self, changes: int, writer: str = "the export") -> tuple[str, str] | None:
        """What the session written does otherwise than the repair's ``changes`` (how many the
        repair makes), whole and short, for a line that counts them (the app's header); ``None``
        where it writes what they say. Some changes the file may leave as written, since its
        agent sends them in a way providers accept (``left``); a call's id it may write otherwise,
        for how its agent reads ids (``ids``), even where the repair changes nothing. ``writer``
        names what writes the session (``suture repair``, where the command line says it)."""
        who = AGENTS.get(self.agent, self.agent)
        whole: list[str] = []
        short: list[str] = []
        left = self.left_changes
        if left:
            them = "it" if left == 1 else "them"
            if left >= changes and not self.edits:
                what = "the file" if self.cut_line is None else f"its whole lines (not line {self.cut_line}, cut off)"
                whole.append(f"writes {what} unchanged: {who} sends {them} as written, which providers accept")
                short.append("unchanged")
            else:
                whole.append(f"leaves {left:,} as written: {who} sends {them} so, which providers accept")
                short.append(f"leaves {left:,}")
        if self.ids:
            n = len(self.ids)
            ids = "call id" if n == 1 else "call ids"
            lines = "" if changes else f", {self.lines_said()}"  # (else the lines are the changes' too)
            whole.append(f"writes {n:,} {ids} otherwise, for how {who} reads ids{lines}")
            short.append(f"{n:,} {'id' if n == 1 else 'ids'} renamed")
        if not whole and not changes and self.edits:
            whole.append(f"writes {self.lines_said()}")
            short.append(self.lines_said())
        if not whole:
            return None
        return f"{writer} {'; '.join(whole)}", f"export: {', '.join(short)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "edits": [e.to_json() for e in self.edits],
            "left": list(self.left),
            "resume": self.resume,
            "ids": dict(self.ids),
            "notes": list(self.notes),
        }


def write_back(
    data: bytes,
    transcript: Transcript,
    repaired: Repair | None = None,
    is_read_only: Callable[[str], bool] | None = None,
) -> Written:
    """The session log ``data`` with ``repaired`` (the contract's repair of ``transcript``, made
    here when not given) written into it as a minimal edit. ``transcript`` must be what ``data``
    was read as: a line that is not the record the transcript says is an InputError (the file
    changed since it was read). InputError for a format suture does not write back."""
    if not writes_back(transcript.format):
        raise InputError(f"suture writes back Claude Code, Codex and pi sessions, not {transcript.format}")
    if repaired is None:
        from suture.repair import repair

        repaired = repair(transcript.messages, is_read_only)
    whole, cut = whole_lines(data, transcript)
    written = writers()[transcript.format].write(whole, transcript, repaired)
    return dataclasses.replace(written, cut_line=cut) if cut is not None else written


def whole_lines(data: bytes, transcript: Transcript) -> tuple[bytes, int | None]:
    """``data`` without its last line where the file ends inside it (no newline after it: an
    agent still writing it, or stopped mid-write) and it could not be read (``--skip-bad-lines``),
    and that line's number (``None``: it has none). A session is written back over the whole
    lines, so that the line its agent appends next does not run into the fragment, as the app's
    export writes it (``Tail.shown_end``)."""
    end = data.rfind(b"\n") + 1
    line = data.count(b"\n") + 1
    if not data[end:].strip() or all(p.line != line for p in transcript.problems):
        return data, None
    return data[:end], line


def written_ids(transcript: Transcript, repaired: Repair) -> dict[str, str]:
    """The calls a session written back names otherwise than the repair, final id -> the id
    written (what :attr:`Written.ids` will hold), known without writing the file: what the app
    and ``suture repair --report`` show of such a call. Empty for a format suture does not write
    back, and for an agent whose sessions take every final id as it is."""
    if not writes_back(transcript.format):
        return {}
    found = getattr(writers()[transcript.format], "written_ids", None)
    return found(transcript, repaired) if found is not None else {}


def as_written(change: Change, transcript: Transcript, ids: Mapping[str, str]) -> Change:
    """``change`` as the session written back has it: where the final id of its call is written
    otherwise (``ids``: :func:`written_ids`), its summary names the id written, and why."""
    final = _final_id(change)
    to = ids.get(final) if final else None
    if final is None or to is None:
        return change
    shown, written = show.line(final), show.line(to)
    summary = re.sub(rf"(?<![\w-]){re.escape(shown)}(?![\w-])", lambda _: written, change.summary)
    why = writers()[transcript.format].why_written(final, to)  # type: ignore[attr-defined]
    return replace(change, summary=f"{summary} (not {shown}: {show.line(why)})")


def _final_id(change: Change) -> str | None:
    """The final id of the call a change is about: a renamed call's new id, the call a made-up
    or moved result answers (``None`` for a dropped placeholder, and for a note, whose id is the
    stray result's own)."""
    if change.kind is ChangeKind.RENAMED_ID:
        return change.new_id
    if change.kind in (ChangeKind.SYNTHETIC_INTERRUPT, ChangeKind.MOVED_RESULT):
        return change.call_id
    return None


def written_id(change: Change, ids: Mapping[str, str]) -> str | None:
    """The id the session written back gives the call ``change`` is about, where it is not its
    final id (``ids``: :func:`written_ids`); else ``None``."""
    final = _final_id(change)
    return ids.get(final) if final else None


def may_differ(transcript: Transcript, repaired: Repair) -> bool:
    """Whether the session written back may do otherwise than ``repaired``'s changes (what
    :meth:`Written.aside` says), known without writing it: a change it may leave as written (a
    moved result, a dropped placeholder), a call it names otherwise (:func:`written_ids`), or a
    turn written in another order though nothing changes. False: the file says what the changes
    say, and writing it to find that out can be skipped."""
    from suture.formats import reordered_turns

    leavable = (ChangeKind.MOVED_RESULT, ChangeKind.DROPPED_PLACEHOLDER)
    if any(change.kind in leavable for change in repaired.changes):
        return True
    if written_ids(transcript, repaired):
        return True
    return not repaired.changes and bool(reordered_turns(repaired.messages, transcript))


def written_if_other(transcript: Transcript, repaired: Repair, data: Callable[[], bytes]) -> Written | None:
    """The session log written back, where it may do otherwise than ``repaired``'s changes
    (:func:`may_differ`; what :meth:`Written.aside` then says); ``None`` for a format suture does
    not write back, or where it writes just what they say: then it is not written, and
    ``data()`` (the bytes ``transcript`` was read from) is not asked for."""
    if not writes_back(transcript.format) or not may_differ(transcript, repaired):
        return None
    return write_back(data(), transcript, repaired)


def ids_written_in(message: Message, transcript: Transcript, ids: Mapping[str, str]) -> list[str]:
    """Sentences for the calls and the result of ``message`` (a repaired message) whose ids the
    session written back names otherwise (``ids``: :func:`written_ids`): ``the export writes
    X_1 as X-1: Claude Code would read X_1 ... as an entry of a batch call X``."""
    if not ids:
        return []
    named = [c.id for c in message.tool_calls]
    if message.role == "tool" and message.tool_call_id:
        named.append(message.tool_call_id)
    why = writers()[transcript.format].why_written  # type: ignore[attr-defined]
    return [
        f"the export writes {show.line(final)} as {show.line(ids[final])}: {show.line(why(final, ids[final]))}"
        for final in dict.fromkeys(named)
        if final in ids
    ]


def left_notes(transcript: Transcript, repaired: Repair, agent: str, written: set[int]) -> tuple[list[str], int]:
    """Sentences for the repair's changes that the written file leaves as written (its agent
    sends them in a way providers accept), and how many changes they are: moved results not written as moved (``written``: the input indices of
    results that were), dropped placeholders."""
    who = AGENTS[agent]
    notes: list[str] = []
    order = 0
    left = 0
    for change in repaired.changes:
        if change.kind == ChangeKind.MOVED_RESULT and change.input_index not in written:
            order += 1
            left += 1
        elif change.kind == ChangeKind.DROPPED_PLACEHOLDER:
            left += 1
            m = transcript.messages[change.input_index]
            where = f" ({m.source})" if m.source is not None else ""
            notes.append(
                f"the whitespace-only assistant message{where} is left in the file: {who} sends nothing a "
                "provider rejects for it"
            )
    if order:
        notes.insert(
            0,
            f"{count(order, 'result')} left where written among the results of "
            f"{'their turns' if order != 1 else 'its turn'}: {who} sends them together, and providers accept "
            "results in any order",
        )
    return notes, left


# -- the file's lines ---------------------------------------------------------------------------


class Lines:
    """A JSONL file's lines as written (``\\r`` kept), numbered from 1 as suture's reader numbers
    them, with each line's value read on demand."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.raw = data.split(b"\n")
        self._values: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self.raw)

    def text(self, line: int) -> bytes:
        """Line ``line`` (1-based) without its ``\\r``."""
        return self.raw[line - 1].removesuffix(b"\r")

    def crlf(self, line: int) -> bool:
        return self.raw[line - 1].endswith(b"\r")

    def value(self, line: int) -> Any:
        """A fresh copy of the JSON value of line ``line`` (``None`` for one that is not JSON)."""
        if not 1 <= line <= len(self.raw):
            return None
        text = self.text(line).removeprefix(b"\xef\xbb\xbf")
        try:
            return codec.loads(text)
        except (orjson.JSONDecodeError, RecursionError):
            return None

    def record(self, line: int) -> Any:
        """The value of line ``line``, read once (shared: do not change it)."""
        if line not in self._values:
            self._values[line] = self.value(line)
        return self._values[line]

    def stamp(self, line: int) -> Any:
        """The ``timestamp`` of line ``line``, or of the nearest line before it that has one
        (what a line added after it carries)."""
        for n in range(line, 0, -1):
            record = self.record(n)
            if isinstance(record, dict) and isinstance(record.get("timestamp"), str):
                return record["timestamp"]
        return "1970-01-01T00:00:00.000Z"


def changed_file(where: str) -> InputError:
    return InputError(f"{where} is not the record suture read there: the file changed since it was read; read it again")


def top_span(line: bytes, key: str) -> tuple[int, int] | None:
    """Where the value of ``key`` is in ``line``, a JSON object written on one line: the byte
    range of the value of that key at the top level (``None`` where the object has no such key,
    or the line is not an object suture can scan)."""
    n = len(line)
    i = 3 if line.startswith(b"\xef\xbb\xbf") else 0

    def ws(i: int) -> int:
        while i < n and line[i] in b" \t\r\n":
            i += 1
        return i

    def string_end(i: int) -> int:
        # line[i] is the opening quote; the index after the closing one.
        i += 1
        while i < n:
            c = line[i]
            if c == 0x5C:  # backslash
                i += 2
                continue
            if c == 0x22:
                return i + 1
            i += 1
        raise ValueError

    def value_end(i: int) -> int:
        if line[i] == 0x22:
            return string_end(i)
        if line[i] in b"[{":
            depth = 0
            while i < n:
                c = line[i]
                if c == 0x22:
                    i = string_end(i)
                    continue
                if c in b"[{":
                    depth += 1
                elif c in b"]}":
                    depth -= 1
                    if depth == 0:
                        return i + 1
                i += 1
            raise ValueError
        while i < n and line[i] not in b",}] \t\r\n":
            i += 1
        return i

    try:
        i = ws(i)
        if i >= n or line[i] != 0x7B:
            return None
        i = ws(i + 1)
        while i < n and line[i] != 0x7D:
            if line[i] != 0x22:
                return None
            end = string_end(i)
            name = codec.loads(line[i:end])
            i = ws(end)
            if i >= n or line[i] != 0x3A:
                return None
            start = ws(i + 1)
            stop = value_end(start)
            if name == key:
                return start, stop
            i = ws(stop)
            if i < n and line[i] == 0x2C:
                i = ws(i + 1)
    except (ValueError, IndexError, orjson.JSONDecodeError):
        return None
    return None


def rewrite(line: bytes, before: Any, after: Any) -> bytes:
    """``line`` (the value ``before`` as written) written as ``after``: where both are objects
    with the same keys, only the values of the top-level keys that changed are written again
    (every other byte stays); else the whole value, compact."""
    if isinstance(before, dict) and isinstance(after, dict) and list(before) == list(after):
        out = line
        # From the end, so the spans found earlier in the line stay where they are.
        spans = []
        for key in after:
            if before[key] != after[key] or type(before[key]) is not type(after[key]):
                span = top_span(line, key)
                if span is None:
                    return codec.dumps(after)
                spans.append((span, key))
        for (start, stop), key in sorted(spans, reverse=True):
            out = out[:start] + codec.dumps(after[key]) + out[stop:]
        return out
    return codec.dumps(after)


# -- building the written file ----------------------------------------------------------------


@dataclass(slots=True)
class _New:
    """A line the writer adds (``value``), or an input line it moves (``moved``)."""

    value: Any = None
    moved: int | None = None
    summary: str = ""


Row = tuple[int | None, _New | None, Any]
"""A line of the written file: the input line it is (``None``: an added line), how it was placed
there (``None``: in place), and its value as it will be written."""


class Plan:
    """The edits of one file, made line by line, then written out with :meth:`render`.

    ``change(line, why)`` gives a line's value to change in place (the same object on every call,
    so several changes of one line add up); ``add_after(line, value)`` adds a line after input
    line ``line`` (after what was placed there before); ``move_after(line, anchor)`` moves input
    line ``line`` to follow ``anchor``; ``add_at_end`` and ``move_to_end`` place after everything.
    """

    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self.values: dict[int, Any] = {}
        self.why: dict[int, list[str]] = {}
        self.after: dict[int, list[_New]] = {}
        self.end: list[_New] = []
        self.gone: set[int] = set()

    def change(self, line: int, why: str | None = None) -> Any:
        if line not in self.values:
            value = self.lines.value(line)
            if value is None:
                raise changed_file(f"line {line}")
            self.values[line] = value
            self.why[line] = []
        if why and why not in self.why[line]:
            self.why[line].append(why)
        return self.values[line]

    def current(self, line: int) -> Any:
        """Line ``line``'s value as it will be written (shared: change it through :meth:`change`)."""
        return self.values[line] if line in self.values else self.lines.record(line)

    def add_after(self, line: int, value: Any, summary: str) -> None:
        self.after.setdefault(line, []).append(_New(value=value, summary=summary))

    def move_after(self, line: int, anchor: int, summary: str) -> None:
        self.gone.add(line)
        self.after.setdefault(anchor, []).append(_New(moved=line, summary=summary))

    def add_at_end(self, value: Any, summary: str) -> None:
        self.end.append(_New(value=value, summary=summary))

    def move_to_end(self, line: int, summary: str) -> None:
        self.gone.add(line)
        self.end.append(_New(moved=line, summary=summary))

    def order(self) -> list[tuple[int | None, _New | None]]:
        """The written file's lines as (input line, how placed): ``(n, None)`` input line ``n``
        in place, ``(None, new)`` an added line, ``(n, new)`` input line ``n`` moved."""
        out: list[tuple[int | None, _New | None]] = []
        seen: set[int] = set()

        def place(news: list[_New]) -> None:
            for new in news:
                if new.moved is None:
                    out.append((None, new))
                elif new.moved not in seen:
                    seen.add(new.moved)
                    out.append((new.moved, new))
                    place(self.after.get(new.moved, []))

        for n in range(1, self.count + 1):
            if n not in self.gone:
                out.append((n, None))
                place(self.after.get(n, []))
        place(self.end)
        return out

    @property
    def count(self) -> int:
        """How many lines the input has (a final newline ends the last, it starts none)."""
        raw = self.lines.raw
        return len(raw) - 1 if raw[-1] == b"" else len(raw)

    def rows(self) -> list[Row]:
        return [
            (n, new, new.value if n is None and new is not None else self.current(n or 0)) for n, new in self.order()
        ]

    def render(self, ordinals: Callable[[list[Row]], list[int | None]] | None = None) -> tuple[bytes, list[Edit]]:
        """The written bytes and their edits. ``ordinals(rows)`` gives the ``ordinal`` each
        written line must carry (``None``: as it is)."""
        rows = self.rows()
        wanted: list[int | None] = ordinals(rows) if ordinals is not None else [None] * len(rows)
        out: list[bytes] = []
        edits: list[Edit] = []
        for at, ((n, new, value), ordinal) in enumerate(zip(rows, wanted, strict=True), 1):
            if ordinal is not None and isinstance(value, dict) and value.get("ordinal") != ordinal:
                value = {**value, "ordinal": ordinal}
            if n is None:
                assert new is not None
                crlf = bool(out) and out[-1].endswith(b"\r")
                out.append(codec.dumps(value) + (b"\r" if crlf else b""))
                edits.append(Edit("added", None, at, new.summary))
                continue
            original = self.lines.record(n)
            text = self.lines.text(n)
            changed = value is not original and (value != original or _types_differ(value, original))
            out.append((rewrite(text, original, value) if changed else text) + (b"\r" if self.lines.crlf(n) else b""))
            why = self.why.get(n, [])
            if new is not None:
                edits.append(Edit("moved", n, at, new.summary))
            elif changed and not why and _only_ordinal(original, value):
                edits.append(
                    Edit(
                        "renumbered",
                        n,
                        at,
                        f"ordinal {original.get('ordinal')} → {value['ordinal']}, to follow the lines above",
                    )
                )
            elif changed:
                edits.append(Edit("changed", n, at, "; ".join(why) or "changed"))
        if self.lines.raw[-1] == b"":
            out.append(b"")
        return b"\n".join(out), edits


class LogWriter:
    """What the three session-log writers start from: the file's lines, the plan of their edits,
    the history as read and its repair."""

    def __init__(self, data: bytes, transcript: Transcript, repaired: Repair) -> None:
        self.lines = Lines(data)
        self.plan = Plan(self.lines)
        self.transcript = transcript
        self.messages = transcript.messages
        self.repaired = repaired

    def written(
        self,
        data: bytes,
        edits: list[Edit],
        agent: str,
        moved: set[int],
        resume: Callable[[Transcript, bytes | None, str | None], str],
    ) -> Written:
        """The session log written (``data``, its ``edits``), with the notes on what it cannot
        say of the repair (``moved``: the results it writes in their new place) and the command
        that resumes it (``resume``: the agent's own)."""
        notes, left = left_notes(self.transcript, self.repaired, agent, moved)
        return Written(data, edits, agent, notes, resume(self.transcript, self.lines.data, None), left_changes=left)

    def kept(self) -> Iterator[tuple[int, int, Message, Message]]:
        """Each repaired message that stands for one read from the file: its index in the
        repair, the index of the one read, that one, and the repaired message."""
        for j, out in enumerate(self.repaired.messages):
            i = self.repaired.origin[j]
            if i is not None:
                yield j, i, self.messages[i], out


def _types_differ(a: Any, b: Any) -> bool:
    """``1 == True`` and ``1 == 1.0`` in Python: a change of a value's JSON type is a change."""
    if type(a) is not type(b):
        return True
    if isinstance(a, dict):
        return any(_types_differ(v, b.get(k)) for k, v in a.items())
    if isinstance(a, list):
        return any(_types_differ(x, y) for x, y in zip(a, b, strict=False))
    return False


def _only_ordinal(before: Any, after: Any) -> bool:
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return False
    return {k: v for k, v in before.items() if k != "ordinal"} == {k: v for k, v in after.items() if k != "ordinal"}


def new_id(namespace: str, *parts: str, taken: set[str], length: int | None = None) -> str:
    """A deterministic id from ``parts`` (uuid5 under ``namespace``) that is not in ``taken``
    (which gets it); ``length``: that many hex digits instead of a whole uuid."""
    k = 0
    while True:
        name = "/".join(["suture", namespace, *parts, *([str(k)] if k else [])])
        made = _uuid.uuid5(_uuid.NAMESPACE_URL, name)
        found = made.hex[:length] if length else str(made)
        if found not in taken:
            taken.add(found)
            return found
        k += 1


# -- spans ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpanWork:
    """What one span of the repair asks of the file.

    ``assistant`` is its assistant message (an as-written index); ``leading`` the last of its
    results that already follow the calls with nothing else of the span between (``None``: none
    does); ``placed`` the results to put right after the calls (after ``leading``), in the
    repair's output order (the order of the calls): ``(i, message)`` with ``i`` the as-written
    index of a result that follows something else of the span (a message typed while the tools
    ran, a note, a placeholder) and ``message`` its repaired form, or ``i`` None for a result the
    repair makes up."""

    assistant: int
    leading: int | None
    placed: list[tuple[int | None, Message]]


def span_work(
    transcript: Transcript, repaired: Repair, ends_after_calls: Callable[[int], bool] | None = None
) -> list[SpanWork]:
    """Every span that has results to place (see :class:`SpanWork`). ``ends_after_calls(a)``:
    whether assistant message ``a`` itself holds something after its last call (a Codex turn's
    text or reasoning after its calls), which then stands between the calls and every result."""
    messages = transcript.messages
    out: list[SpanWork] = []
    for span in repaired.spans:
        a = span.input_start
        paired = {
            i
            for k in range(span.output_start, span.output_stop)
            if (i := repaired.origin[k]) is not None
            and repaired.messages[k].role == "tool"
            and messages[i].role == "tool"
        }
        blocked = ends_after_calls(a) if ends_after_calls is not None else False
        leading: int | None = None
        moved: set[int] = set()
        for i in range(a + 1, span.input_stop):
            if i not in paired:
                blocked = True
            elif blocked:
                moved.add(i)
            else:
                leading = i
        placed = [
            (i, repaired.messages[k])
            for k in range(span.output_start, span.output_stop)
            if (i := repaired.origin[k]) is None or i in moved
        ]
        if placed:
            out.append(SpanWork(a, leading, placed))
    return out


# -- what the app offers ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExportChoice:
    """One way to export a transcript: what it writes (``label``, for a person), its ``format``
    (a suture format name), the file name ending it calls for, and the bytes (:meth:`bytes`,
    made when asked)."""

    label: str
    format: str
    suffix: str
    make: Callable[[], bytes]
    resume: str | None = None
    default: bool = False
    says: Callable[[], list[str]] | None = None

    def bytes(self) -> bytes:
        return self.make()

    def said(self) -> list[str]:
        """What a session choice writes, in sentences (:meth:`Written.said`): ``Claude Code
        session written unchanged``, what it leaves to the agent. Empty for a request body."""
        return self.says() if self.says is not None else []


def export_choices(
    transcript: Transcript, repaired: Repair, data: bytes | None = None, path: str | None = None
) -> list[ExportChoice]:
    """The ways to write the repaired ``transcript``, the default first: for a session log (with
    ``data``, the bytes it was read from, and ``path``, where, for pi's resume command) the session
    itself, which its agent resumes, then the request body of its provider; for any other format,
    the file's own format. ``ExportChoice.bytes()`` makes what a choice writes (an InputError
    says why it cannot: the file changed since it was read, a history the format cannot hold).

    This is what an export dialog offers: ``label`` says what is written ("Claude Code session,
    resumable with `claude --resume ID`", "Anthropic request body (messages)"), ``suffix`` the
    file name ending that fits it (``suture repair -o`` refuses another). The label quotes the
    session id and folder from the file, escaped for a terminal (:func:`suture.show.line`), not
    for markup."""
    from suture.formats import dump, export_name, reordered_said, reordered_turns

    choices: list[ExportChoice] = []
    fmt = transcript.format
    if writes_back(fmt) and data is not None:
        resume = resume_command(transcript, data, path)
        how = f", resumable with `{show.line(resume)}`" if resume else ""
        written = functools.cache(lambda: write_back(data, transcript, repaired))

        def says() -> list[str]:
            lines = written().said()
            turns = reordered_turns(repaired.messages, transcript)
            if turns and written().edits:  # why lines moved where the repair changes no message
                lines[0] += f" ({reordered_said(turns)})"
            return lines

        choices.append(
            ExportChoice(
                f"{AGENTS[fmt]} session{how}",
                fmt,
                ".jsonl",
                lambda: written().data,
                resume,
                default=True,
                says=says,
            )
        )
    body = export_name(transcript)
    label = written_as(body).removeprefix("an ").removeprefix("a ")
    choices.append(
        ExportChoice(
            label[:1].upper() + label[1:],
            body,
            ".json",
            lambda: dump(repaired.messages, transcript, data=data),
            default=not choices,
        )
    )
    return choices


_WRITTEN_AS = {
    "messages": "an Anthropic request body (messages)",
    "responses": "an OpenAI Responses request input (items)",
    "chat": "OpenAI Chat Completions messages",
    "gemini": "Gemini contents",
    "vercel": "Vercel AI SDK messages",
}


def written_as(format: str) -> str:
    """What a person calls what suture writes in ``format``: ``a Claude Code session log``,
    ``an Anthropic request body (messages)``."""
    if writes_back(format):
        return f"a {AGENTS[format]} session log"
    if format in _WRITTEN_AS:
        return _WRITTEN_AS[format]
    from suture.formats import get

    return get(format).title.split(" (")[0]


def resume_command(transcript: Transcript, data: bytes | None = None, path: str | None = None) -> str | None:
    """The command that resumes a session log (``data``: its bytes, where the session id is
    looked for; ``path``: where the file is), ``None`` for a request file."""
    writer = writers().get(transcript.format)
    return writer.resume(transcript, data, path) if writer is not None else None


def first_values(data: bytes | None, keys: tuple[str, ...], within: int = 50) -> list[str]:
    """The first string value each key has at the top of one of the first lines of ``data``."""
    found = dict.fromkeys(keys, "")
    if data:
        lines = Lines(data[: 1 << 20] if len(data) > 1 << 20 else data)
        for n in range(1, min(len(lines), within) + 1):
            record = lines.record(n)
            if isinstance(record, dict):
                for key in keys:
                    if not found[key] and isinstance(record.get(key), str):
                        found[key] = record[key]
            if all(found.values()):
                break
    return list(found.values())


def layout(data: bytes) -> str:
    """What ``data`` is as a file: ``json`` (one JSON document over several lines), ``jsonl``
    (a value a line) or ``either`` (one value on one line: both). ``data`` is what suture
    wrote: JSON or JSONL, so its first line says which (the rest is not parsed again)."""
    from suture.io import first_line_is_a_value

    body = data.strip()
    if b"\n" not in body:
        return "either"
    return "jsonl" if first_line_is_a_value(body) else "json"
