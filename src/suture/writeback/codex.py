"""Codex rollouts written back (see ``suture.writeback``).

Codex sends a rollout's response items in file order, so what the repair changes becomes, in
the rollout:

- **A made-up output** (a call the session ended before answering): a ``response_item`` line
  right after the call (after the outputs that already follow it), of the call's output type
  (``function_call_output``, ``custom_tool_call_output``), with the timestamp of the line it
  follows; inside a ``compacted`` line's ``replacement_history``, an item of that list.
- **An output that follows something else of its turn** (a message, reasoning, text the model
  wrote after its calls): the line moved up to right after the call, so nothing stands between
  a turn's calls and their outputs, as strict Responses servers require.
- **A renamed call**: its ``call_id``, and its output's. **An output that answers no call**: the
  item becomes a user message holding the note, where it is.

Every other line (``event_msg``, ``turn_context``, ``world_state``, ...) is kept as it is.
After the first added or moved line, ``ordinal`` goes on from the line before it, one a line, so
the ordinals stay contiguous (each such line is an edit of its own, ``renumbered``).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from suture.formats.responses import item_kind, items_of
from suture.io import InputError
from suture.model import Message, Source, Transcript
from suture.repair import Repair
from suture.writeback import LogWriter, Row, Written, changed_file, span_work

__all__ = ["resume", "write"]

_IN_LIST = re.compile(r"replacement_history\[(\d+)\]")

Unit = tuple[int, int | None]
"""Where an item is: its line, and its index in that line's ``replacement_history`` (``None``:
the line's own item)."""


class _Writer(LogWriter):
    def __init__(self, data: bytes, transcript: Transcript, repaired: Repair) -> None:
        super().__init__(data, transcript, repaired)
        history = transcript.meta.get("history")
        if history is None or transcript.meta.get("session") is not None:
            raise InputError(
                "this Codex session is in an old layout Codex no longer resumes; write its request body instead "
                "(--to responses)"
            )
        self.where: dict[int, Source] = {id(item): source for item, source in history}
        self.lists: dict[int, list[tuple[int | None, Any]]] = {}
        self.moved: set[int] = set()
        self.ordinals = False

    # -- where items are -------------------------------------------------------------------------

    def unit(self, item: Any) -> Unit:
        source = self.where.get(id(item))
        if source is None or source.line is None:
            raise changed_file("an item")
        if source.pointer is None:
            return source.line, None
        found = _IN_LIST.fullmatch(source.pointer)
        if found is None:
            raise InputError(
                f"line {source.line}: the summary of an old compaction holds this item; suture cannot write it back"
            )
        return source.line, int(found.group(1))

    def items(self, i: int) -> list[Any]:
        raw = self.messages[i].raw
        return list(raw) if isinstance(raw, list) else [raw]

    def payload(self, line: int) -> Any:
        record = self.lines.record(line)
        if isinstance(record, dict) and "payload" in record and isinstance(record.get("type"), str):
            return record["payload"]
        return record  # a legacy line: the item itself

    def stored(self, unit: Unit) -> Any:
        line, index = unit
        payload = self.payload(line)
        if index is None:
            return payload
        history = payload.get("replacement_history") if isinstance(payload, dict) else None
        if not isinstance(history, list) or index >= len(history):
            raise changed_file(f"line {line}")
        return history[index]

    def check(self, item: Any) -> Unit:
        unit = self.unit(item)
        if self.stored(unit) != item:
            raise changed_file(f"line {unit[0]}")
        return unit

    def list_of(self, line: int) -> list[tuple[int | None, Any]]:
        """The ``replacement_history`` of ``line`` as it will be written, as (index it had, item)."""
        if line not in self.lists:
            payload = self.payload(line)
            self.lists[line] = list(enumerate(payload["replacement_history"]))
        return self.lists[line]

    # -- edits -----------------------------------------------------------------------------------

    def put(self, unit: Unit, item: Any, why: str) -> None:
        """``item`` in place of the one at ``unit``."""
        line, index = unit
        if index is None:
            record = self.plan.change(line, why)
            if isinstance(record, dict) and "payload" in record:
                record["payload"] = item
            else:
                self.plan.values[line] = item
            return
        self.plan.change(line, why)
        entries = self.list_of(line)
        k = next(k for k, (was, _) in enumerate(entries) if was == index)
        entries[k] = (index, item)

    def in_place(self) -> None:
        """Renamed calls and outputs, and notes, where they are written."""
        for _, i, before, out in self.kept():
            renamed = [(a.id, b.id) for a, b in zip(before.tool_calls, out.tool_calls, strict=True) if a.id != b.id]
            note = before.role == "tool" and out.role != "tool"
            renamed_result = before.role == "tool" and out.role == "tool" and before.tool_call_id != out.tool_call_id
            if not (renamed or note or renamed_result):
                continue
            old = self.items(i)
            new = items_of([out], self.transcript)
            if len(new) != len(old):
                raise InputError(f"{before.source}: suture cannot write this change back into the rollout")
            if note:
                why = f"the output for {before.tool_call_id or '(no id)'} turned into a note"
            elif renamed_result:
                why = f"output for {before.tool_call_id or '(no id)'} renamed {out.tool_call_id}"
            else:
                why = "; ".join(f"call {a or '(no id)'} renamed {b}" for a, b in renamed)
            for was, now in zip(old, new, strict=True):
                if was != now:
                    self.put(self.check(was), now, why)

    def after_calls(self, a: int) -> bool:
        """Whether assistant message ``a`` holds items after its last call."""
        items = self.items(a)
        last = max((k for k, item in enumerate(items) if item_kind(item) == "call"), default=len(items) - 1)
        return last < len(items) - 1

    def last_call(self, a: int) -> Any:
        items = self.items(a)
        return next(item for item in reversed(items) if item_kind(item) == "call")

    def placed(self) -> None:
        """Outputs moved up to their calls, made-up outputs added there."""
        for work in span_work(self.transcript, self.repaired, self.after_calls):
            a = work.assistant
            anchor_item = self.messages[work.leading].raw if work.leading is not None else self.last_call(a)
            anchor = self.check(anchor_item)
            stamp = self.lines.stamp(anchor[0])
            out_a = next(m for k, m in enumerate(self.repaired.messages) if self.repaired.origin[k] == a)
            for i, m in work.placed:
                if i is None:
                    item = self.output_item(out_a, m)
                    summary = f"an interrupted output for call {m.tool_call_id}, right after the call"
                    anchor = self.add(anchor, item, stamp, summary)
                else:
                    self.moved.add(i)
                    anchor = self.move(self.check(self.messages[i].raw), anchor, m)

    def output_item(self, call_message: Message, made: Message) -> Any:
        """The output item the Responses writer makes for ``made`` (the call's output type)."""
        return next(item for item in items_of([call_message, made], self.transcript) if item_kind(item) == "result")

    def add(self, anchor: Unit, item: Any, stamp: Any, summary: str) -> Unit:
        """``item`` added right after ``anchor`` (and what was placed there before); where it is."""
        line, index = anchor
        if index is None:
            record: dict[str, Any] = {"timestamp": stamp}
            if self.ordinals:
                record["ordinal"] = 0  # set when written, after the line it follows
            record["type"] = "response_item"
            record["payload"] = item
            self.plan.add_after(line, record, summary)
            return anchor
        self.plan.change(line, summary)
        entries = self.list_of(line)
        k = self.position(entries, index)
        entries.insert(k + 1, (None, item))
        return line, self.tag(entries, k + 1)

    def move(self, unit: Unit, anchor: Unit, result: Message) -> Unit:
        """The output at ``unit`` moved to right after ``anchor``; where it is now."""
        line, index = unit
        item = items_of([result], self.transcript)[0]
        summary = f"the output for {result.tool_call_id or '(no id)'} moved up to follow its call"
        anchor_line, anchor_index = anchor
        if index is None and anchor_index is None:
            if item != self.stored(unit):
                self.put(unit, item, summary)
            self.plan.move_after(line, anchor_line, summary)
            return anchor
        if index is not None and anchor_index is not None and line == anchor_line:
            entries = self.list_of(line)
            self.plan.change(line, summary)
            entry = entries.pop(self.position(entries, index))
            at = self.position(entries, anchor_index)
            entries.insert(at + 1, (entry[0], item))
            return anchor_line, self.tag(entries, at + 1)
        raise InputError(f"line {line}: suture cannot move this output next to its call in a compacted rollout")

    def position(self, entries: list[tuple[int | None, Any]], index: int) -> int:
        """Where the entry with tag ``index`` is in ``entries``."""
        for k, (tag, _) in enumerate(entries):
            if tag == index:
                return k
        raise changed_file("a compacted line")

    def tag(self, entries: list[tuple[int | None, Any]], k: int) -> int:
        """A tag for the entry at ``k`` that later placements can find it by."""
        tag, item = entries[k]
        if tag is None:
            tag = -1 - sum(1 for t, _ in entries if t is not None and t < 0)
            entries[k] = (tag, item)
        return tag

    def numbered(self, rows: list[Row]) -> list[int | None]:
        """Ordinals one a line from the first added or moved line on."""
        out: list[int | None] = [None] * len(rows)
        if not self.ordinals:
            return out
        start = next((k for k, (_, new, _) in enumerate(rows) if new is not None), None)
        if start is None:
            return out
        last = next(
            (v["ordinal"] for _, _, v in reversed(rows[:start]) if _ordinal(v) is not None),
            -1,
        )
        for k in range(start, len(rows)):
            if _ordinal(rows[k][2]) is None:
                continue
            last += 1
            out[k] = last
        return out

    # -- all of it -------------------------------------------------------------------------------

    def write(self) -> Written:
        self.ordinals = any(_ordinal(self.lines.record(n)) is not None for n in range(1, min(len(self.lines), 5) + 1))
        self.in_place()
        self.placed()
        for line, entries in self.lists.items():
            record = self.plan.change(line)
            record["payload"]["replacement_history"] = [item for _, item in entries]
        data, edits = self.plan.render(self.numbered)
        return self.written(data, edits, "codex", self.moved, resume)


def _ordinal(value: Any) -> int | None:
    found = value.get("ordinal") if isinstance(value, dict) else None
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def write(data: bytes, transcript: Transcript, repaired: Repair) -> Written:
    """The Codex rollout ``data`` with ``repaired`` written into it (``suture.writeback``)."""
    return _Writer(data, transcript, repaired).write()


def resume(transcript: Transcript, data: bytes | None, path: str | None) -> str:
    """``codex resume ID`` (Codex finds a rollout by its session id)."""
    record = transcript.meta.get("session_record")
    payload = record.get("payload") if isinstance(record, dict) else None
    session = payload.get("id") if isinstance(payload, dict) else None
    return f"codex resume {shlex.quote(session)}" if isinstance(session, str) and session else "codex resume"
