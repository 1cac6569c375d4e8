"""pi sessions written back (see ``suture.writeback``).

pi resumes the branch that ends at the last entry of the file, through ``parentId``, and sends
its messages in that order. What the repair changes becomes, in the session file:

- **A made-up result** (a call the session ended before answering): a ``message`` entry holding a
  ``toolResult`` (``content`` a list with the repair's text, ``isError: true``), added right
  after the call's entry (after the results that already follow it), with a new unique ``id``
  (8 hex digits, derived from the session and the call: the same file gives the same id), the
  timestamp of the entry it follows, and the branch re-pointed: the entry that followed now has
  it as its ``parentId``. A call of a turn pi never sends (``stopReason`` ``error`` or
  ``aborted``) is not in the history, so it gets no result.
- **A result that follows something else of its turn** (a message typed while the tools ran):
  the entry moved up to right after the call, and the branch re-pointed to its new order.
- **A renamed call**: the ``id`` of its ``toolCall`` block, and its result's ``toolCallId``. In a
  session that talks to OpenAI Responses, pi keeps a call's id as ``{call_id}|{item id}`` and
  sends the part before ``|`` as the call's ``call_id``: a renamed id whose ``call_id`` another call
  still has is written with that part renamed too (:func:`written_ids`).
- **A result that answers no call** (one for a call of a failed turn, or of no call at all): its
  entry becomes a ``user`` message holding the note, with its own id and place.

Left to pi: results in another order than their calls, and whitespace-only assistant turns
(pi sends neither anything a provider rejects).
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
from dataclasses import replace
from typing import Any

from suture.formats import pi as reader
from suture.io import parse_document
from suture.model import Message, Part, TextPart, Transcript
from suture.repair import Repair
from suture.sent.pi import SPLIT_IDS
from suture.writeback import LogWriter, Written, changed_file, new_id, span_work

__all__ = ["resume", "why_written", "write", "written_ids"]


def written_ids(transcript: Transcript, repaired: Repair) -> dict[str, str]:
    """For a session that talks to OpenAI Responses: the final ids (``{call_id}|{item id}``, made
    unique by the repair) whose ``call_id`` another call of the file or the repair has, which pi
    would send as a repeated ``call_id`` (the strict mock's R9, recorded:
    ``pi-0.73.1-responses/repeated-id``), each with the id written in their place:
    ``{call_id}_{k}|{item id}``, the first such ``k`` from 1 that no call's ``call_id`` is. Empty
    for a session that talks to another provider (pi sends the whole id there)."""
    if transcript.export_format not in SPLIT_IDS:
        return {}
    finals = [c.id for m in repaired.messages for c in m.tool_calls]
    written = {c.id for m in transcript.messages for c in m.tool_calls}
    written |= {m.tool_call_id for m in transcript.messages if m.role == "tool" and m.tool_call_id}
    heads = [i.split("|")[0] for i in written | set(finals) if i]
    taken = set(heads)
    out: dict[str, str] = {}
    for final in finals:
        head, split, item = final.partition("|")
        if not split or final in written or heads.count(head) < 2:
            continue
        k = 1
        while f"{head}_{k}" in taken:
            k += 1
        taken.add(f"{head}_{k}")
        out[final] = f"{head}_{k}|{item}"
    return out


def why_written(final: str, to: str) -> str:
    """Why the call whose final id is ``final`` is written ``to`` (:func:`written_ids`)."""
    head = final.split("|")[0]
    return f"pi would send {final} to OpenAI Responses as call_id {head}, another call's"


def _blocks(content: Any) -> list[Any]:
    """Neutral content as pi content blocks: each part as the block it was read from."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    out: list[Any] = []
    for part in content:
        if isinstance(part.raw, dict):
            out.append(part.raw)
        elif isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
        else:
            out.append(_text_of(part))
    return out


def _text_of(part: Part) -> dict[str, Any]:
    return {"type": "text", "text": getattr(part, "text", "")}


def _millis(stamp: Any) -> int:
    """An ISO timestamp as milliseconds since the epoch (0 where it is none)."""
    if not isinstance(stamp, str):
        return 0
    try:
        when = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return 0
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return int(when.timestamp() * 1000)


class _Writer(LogWriter):
    def __init__(self, data: bytes, transcript: Transcript, repaired: Repair) -> None:
        super().__init__(data, transcript, repaired)
        self.moved: set[int] = set()
        self.ids = written_ids(transcript, repaired)

    def line_of(self, i: int) -> int:
        """The line of message ``i``'s entry (checked to be the entry it was read from)."""
        m = self.messages[i]
        line = m.source.line if m.source is not None else None
        record = self.lines.record(line) if line is not None else None
        if not isinstance(record, dict):
            raise changed_file(str(m.source))
        held = record.get("message") if record.get("type") == "message" else record
        if held != m.raw:
            raise changed_file(f"line {line}")
        assert line is not None
        return line

    # -- in place --------------------------------------------------------------------------------

    def in_place(self) -> None:
        for _, i, before, out in self.kept():
            for c, (was, now) in enumerate(zip(before.tool_calls, out.tool_calls, strict=True)):
                if was.id == now.id:
                    continue
                line = self.line_of(i)
                to = self.ids.get(now.id, now.id)
                message = self.plan.change(line, f"call {was.id or '(no id)'} renamed {to}")["message"]
                calls = [b for b in message["content"] if isinstance(b, dict) and b.get("type") == "toolCall"]
                calls[c]["id"] = to
            if before.role != "tool":
                continue
            if out.role != "tool":
                line = self.line_of(i)
                entry = self.plan.change(line, f"the result for {before.tool_call_id or '(no id)'} turned into a note")
                note: dict[str, Any] = {"role": "user", "content": _blocks(out.content)}
                if "timestamp" in entry["message"]:
                    note["timestamp"] = entry["message"]["timestamp"]
                entry["message"] = note
            elif out.tool_call_id != before.tool_call_id:
                line = self.line_of(i)
                to = self.ids.get(out.tool_call_id or "", out.tool_call_id)
                why = f"result for {before.tool_call_id or '(no id)'} renamed {to}"
                self.plan.change(line, why)["message"]["toolCallId"] = to

    # -- placed ----------------------------------------------------------------------------------

    def placed(self) -> None:
        records = parse_document(self.lines.data).records
        entries: list[tuple[int, dict[str, Any]]] = []
        header: dict[str, Any] = {}
        for line, record in records:
            if not isinstance(record, dict):
                continue
            if record.get("type") == "session" and not header and not entries:
                header = record
                continue
            entries.append((line, record))
        path = reader.branch(entries)
        linked = any(isinstance(e.get("id"), str) for _, e in entries)
        taken = {e["id"] for _, e in entries if isinstance(e.get("id"), str)}
        session = str(header.get("id") or "")
        order: list[int | dict[str, Any]] = [line for line, _ in path]
        works = span_work(self.transcript, self.repaired)
        if not works:
            return
        for work in works:
            anchor = self.line_of(work.leading if work.leading is not None else work.assistant)
            calls = self.repaired.messages[self.repaired.origin.index(work.assistant)].tool_calls
            cursor: int | dict[str, Any] = anchor
            for i, m in work.placed:
                if i is None:
                    entry = self.result_entry(m, anchor, calls, session, taken, linked)
                    why = f"a result for call {m.tool_call_id}, right after its call"
                    self.plan.add_after(anchor, entry, why)
                    placed: int | dict[str, Any] = entry
                else:
                    line = self.line_of(i)
                    self.moved.add(i)
                    why = f"the result for {m.tool_call_id or '(no id)'} moved up to follow its call"
                    self.plan.move_after(line, anchor, why)
                    order.remove(line)
                    placed = line
                order.insert(self.index(order, cursor) + 1, placed)
                cursor = placed
        if linked:
            self.link(order)
            self.keep_tip(order)

    def index(self, order: list[int | dict[str, Any]], key: int | dict[str, Any]) -> int:
        return next(k for k, item in enumerate(order) if item is key or (isinstance(key, int) and item == key))

    def result_entry(
        self, m: Message, anchor: int, calls: Any, session: str, taken: set[str], linked: bool
    ) -> dict[str, Any]:
        before = self.lines.record(anchor)
        stamp = before.get("timestamp")
        held = before.get("message")
        millis = held.get("timestamp") if isinstance(held, dict) else None
        if not isinstance(millis, int) or isinstance(millis, bool):
            millis = _millis(stamp)
        name = next((c.name for c in calls if c.id == m.tool_call_id), None)
        entry: dict[str, Any] = {"type": "message"}
        if linked:
            entry["id"] = new_id("pi", session, m.tool_call_id, str(before.get("id")), taken=taken, length=8)
            entry["parentId"] = before.get("id")
        entry["timestamp"] = stamp
        message: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": self.ids.get(m.tool_call_id or "", m.tool_call_id),
        }
        if name is not None:
            message["toolName"] = name
        message["content"] = _blocks(m.content)
        message["isError"] = True
        message["timestamp"] = millis
        entry["message"] = message
        return entry

    def link(self, order: list[int | dict[str, Any]]) -> None:
        """Each entry of the branch as its ``parentId`` names the one before it."""
        previous: Any = None
        for k, item in enumerate(order):
            entry = item if isinstance(item, dict) else self.plan.current(item)
            if k > 0:
                if isinstance(item, dict):
                    item["parentId"] = previous
                elif entry.get("parentId") != previous:
                    self.plan.change(item, "parentId re-pointed to follow the branch as repaired")["parentId"] = (
                        previous
                    )
            previous = entry.get("id")

    def keep_tip(self, order: list[int | dict[str, Any]]) -> None:
        """pi resumes from the last entry of the file: where that is no longer the branch's
        last (its result was moved up), the branch's last entry goes to the end."""
        last = order[-1]
        rows = self.plan.rows()
        written_last = next(
            (n for n, _, v in reversed(rows) if isinstance(v, dict) and isinstance(v.get("id"), str)), None
        )
        if isinstance(last, int) and written_last != last and last not in self.plan.gone:
            self.plan.move_to_end(last, "moved to the end, so pi resumes the branch it ends")

    # -- all of it -------------------------------------------------------------------------------

    def write(self) -> Written:
        self.in_place()
        self.placed()
        data, edits = self.plan.render()
        written = self.written(data, edits, "pi", self.moved, resume)
        if not self.ids:
            return written
        notes = [
            f"call {final} is written {to} in the call and its result, since {why_written(final, to)}"
            for final, to in self.ids.items()
        ]
        return replace(written, ids=dict(self.ids), notes=[*written.notes, *notes])


def write(data: bytes, transcript: Transcript, repaired: Repair) -> Written:
    """The pi session ``data`` with ``repaired`` written into it (``suture.writeback``)."""
    return _Writer(data, transcript, repaired).write()


def resume(transcript: Transcript, data: bytes | None, path: str | None) -> str:
    """``pi --session FILE`` (pi resumes a session file by its absolute path; a relative one it
    silently takes as a new session)."""
    return f"pi --session {shlex.quote(os.path.abspath(path))}" if path else "pi --session FILE"
