"""Claude Code session logs written back (see ``suture.writeback``).

What the repair changes becomes, in the file Claude Code resumes:

- **A made-up result** (a call the session ended before answering): a ``user`` line holding one
  ``tool_result`` block with the repair's text and ``is_error: true``, added right after the
  response's last line, shaped as the lines Claude Code itself adds for an interrupted call:
  ``parentUuid`` and ``sourceToolAssistantUUID`` the line that holds the call, ``timestamp`` the
  line it follows, ``sessionId``, ``cwd``, ``version`` and the rest of the context as that call's
  line has them, and a ``uuid`` derived from the session, the call and its line (uuid5: the same
  file gives the same uuid). The record the conversation went on from the call's line is
  re-pointed to the new line, so the branch Claude Code follows runs through it; where the
  branch ended there, the last ``last-prompt`` line names the new line as its leaf.
- **A renamed call**: the ``id`` of its ``tool_use`` block, and the ``tool_use_id`` of its result.
- **A call Claude Code would take for a batch entry**: the contract's new id ``{id}_{k}``, or an
  id of the file that is another call's id and ``_{k}``, is written ``{id}-{k}`` in the call and
  its result (``Written.ids``, ``Written.notes``): Claude Code takes a result whose id is another
  call's id and ``_{k}`` for entry ``k`` of a batch call of that id (``suture.sent.claude_code``,
  step 3), so it would send "[Tool result missing due to internal error]" in place of the call's
  own result. (Claude Code's own batch entries, ``{id}_{k}`` calls whose ``{id}`` is no call of
  the file, are left as they are.)
- **A result that answers no call of its turn** (a note): its ``tool_result`` block becomes the
  note's text block (the result's own blocks after it), in its record.
- **A record with something before its results** (``[text, tool_result]``, which Claude Code
  sends as written and Anthropic rejects): the same record with its ``tool_result`` blocks first.

Left to Claude Code, which does them itself on resume: results that are in other records of the
turn than right after the call (it joins consecutive user records, results first), results in
another order than their calls, whitespace-only assistant text.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import Any

from suture.formats import claude_code as reader
from suture.formats.messages import blocks_of
from suture.io import parse_document
from suture.model import Message, Transcript
from suture.repair import ChangeKind, Repair, Span
from suture.sent.claude_code import ENTRY, batch_stem
from suture.writeback import LogWriter, Written, changed_file, first_values, new_id

__all__ = ["resume", "why_written", "write", "written_ids"]

_CONTEXT = ("userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "agentId", "slug")
"""Keys a Claude Code line carries about where and by what it was written: an added line has
them as the line of its call has them."""


def _kind(block: Any) -> str | None:
    return block.get("type") if isinstance(block, dict) and isinstance(block.get("type"), str) else None


def written_ids(transcript: Transcript, repaired: Repair) -> dict[str, str]:
    """The final ids Claude Code would read as a batch entry of another call (``{id}_{k}``,
    ``{id}`` a call of the history: the contract's rename of a repeated id, or an id the file
    already had), each with the id the session written back gives it in their place:
    ``{id}-{k}``, the first such ``k`` on that no call or result of the file has. Pure: what the
    app and ``suture repair --report`` show of a call is this, without writing the file."""
    messages = transcript.messages
    finals = [c.id for m in repaired.messages for c in m.tool_calls]
    written = {c.id for m in messages for c in m.tool_calls}
    written |= {m.tool_call_id for m in messages if m.role == "tool"}
    calls = frozenset(finals) | {c.id for m in messages for c in m.tool_calls}
    taken = set(finals) | written
    out: dict[str, str] = {}
    for final in finals:
        stem = batch_stem(final, calls)
        found = ENTRY.search(final) if stem is not None else None
        if stem is None or found is None:
            continue
        k = int(found.group(1))
        while f"{stem}-{k}" in taken:
            k += 1
        out[final] = f"{stem}-{k}"
        taken.add(out[final])
    return out


class _Writer(LogWriter):
    def __init__(self, data: bytes, transcript: Transcript, repaired: Repair) -> None:
        super().__init__(data, transcript, repaired)
        # Block replacements per line: block index -> the blocks written in its place.
        self.replaced: dict[int, dict[int, list[Any]]] = {}
        self.reordered: set[int] = set()
        self.ids = written_ids(transcript, repaired)

    def file_id(self, final: str) -> str:
        """The id the file gives the call whose final id is ``final``."""
        return self.ids.get(final, final)

    # -- where things are ------------------------------------------------------------------------

    def content(self, line: int) -> list[Any]:
        record = self.lines.record(line)
        message = record.get("message") if isinstance(record, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            raise changed_file(f"line {line}")
        return content

    def pieces(self, i: int) -> list[tuple[int, int | None]]:
        """Every ``(line, block)`` message ``i`` was read from, in its order."""
        source = self.messages[i].source
        if source is None:
            return []
        if source.pieces:
            return list(source.pieces)
        if source.line is None:
            return []
        record = self.lines.record(source.line)
        message = record.get("message") if isinstance(record, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            return [(source.line, k) for k in range(len(content))]
        return [(source.line, None)]

    def call_at(self, i: int, c: int) -> tuple[int, int]:
        """The ``(line, block)`` of call ``c`` of assistant message ``i``."""
        m = self.messages[i]
        seen = 0
        for line, k in self.pieces(i):
            if k is None:
                continue
            block = self.content(line)[k]
            if _kind(block) == "tool_use":
                if seen == c:
                    if block != m.tool_calls[c].raw:
                        raise changed_file(f"line {line}")
                    return line, k
                seen += 1
        raise changed_file(f"line {m.source.line if m.source else '?'}")

    def result_at(self, i: int) -> tuple[int, int]:
        m = self.messages[i]
        found = self.pieces(i)
        if len(found) != 1 or found[0][1] is None:
            raise changed_file(str(m.source))
        line, k = found[0]
        assert k is not None
        if self.content(line)[k] != m.raw:
            raise changed_file(f"line {line}")
        return line, k

    def block(self, line: int, k: int, why: str) -> dict[str, Any]:
        content = self.plan.change(line, why)["message"]["content"]
        block: dict[str, Any] = content[k]
        return block

    # -- the edits -------------------------------------------------------------------------------

    def in_place(self) -> None:
        """Renamed calls and results, and notes, where they are written."""
        for j, i, before, out in self.kept():
            if before.has_calls:
                for c, (was, now) in enumerate(zip(before.tool_calls, out.tool_calls, strict=True)):
                    to = self.file_id(now.id)
                    if was.id != to:
                        line, k = self.call_at(i, c)
                        self.block(line, k, f"call {was.id or '(no id)'} renamed {to}")["id"] = to
            if before.role != "tool":
                continue
            if out.role != "tool":
                line, k = self.result_at(i)
                self.plan.change(line, f"the result for {before.tool_call_id or '(no id)'} turned into a note")
                self.replaced.setdefault(line, {})[k] = blocks_of(out.content, j)
            elif (to := self.file_id(out.tool_call_id)) != before.tool_call_id:
                line, k = self.result_at(i)
                why = f"result for {before.tool_call_id or '(no id)'} renamed {to}"
                self.block(line, k, why)["tool_use_id"] = to

    def notes_and_order(self) -> None:
        """Notes put in, then every record of the history with something before a result
        written with its results first."""
        for line, blocks in self.replaced.items():
            content = self.plan.change(line)["message"]["content"]
            for k in sorted(blocks, reverse=True):
                content[k : k + 1] = blocks[k]
        lines = {line for i, m in enumerate(self.messages) if m.role == "tool" for line, _ in self.pieces(i)}
        for line in sorted(lines):
            content = self.plan.current(line)["message"]["content"]
            first = [b for b in content if _kind(b) == "tool_result"]
            ordered = first + [b for b in content if _kind(b) != "tool_result"]
            if [id(b) for b in ordered] != [id(b) for b in content]:
                self.plan.change(line, "its tool_result blocks put first, before what came before them")
                self.plan.change(line)["message"]["content"] = ordered
                self.reordered.add(line)

    def made(self) -> None:
        """Results the repair made up: a line each, after the response, on the branch."""
        records = parse_document(self.lines.data).records if self.repaired.interrupted else []
        if not records:
            return
        branch = reader.chain(records, not self.transcript.meta.get("sidechain"))
        linked = branch.by != "file"
        on_branch = [records[p][0] for p in branch.positions]
        taken = {r["uuid"] for _, r in records if isinstance(r, dict) and isinstance(r.get("uuid"), str)}
        session = next(
            (r["sessionId"] for _, r in records if isinstance(r, dict) and isinstance(r.get("sessionId"), str)), ""
        )
        last_prompt = max(
            (n for n, r in records if isinstance(r, dict) and r.get("type") == "last-prompt" and "leafUuid" in r),
            default=None,
        )
        for span in self.repaired.spans:
            made = [
                self.repaired.messages[k]
                for k in range(span.output_start, span.output_stop)
                if self.repaired.origin[k] is None
            ]
            if not made:
                continue
            a = span.input_start
            calls = self.repaired.messages[span.output_start].tool_calls
            response = sorted({line for line, _ in self.pieces(a)})
            stamp = self.lines.stamp(response[-1])
            answered = self._answered_lines(span)
            ended: dict[int, str] = {}
            for m in made:
                c = next(c for c, call in enumerate(calls) if call.id == m.tool_call_id)
                # After the results of the calls before it (Claude Code joins a turn's results in
                # the file's order), else right after the response: the results stay in call order.
                anchor = max([response[-1], *(line for j, line in answered.items() if j < c)])
                line, _ = self.call_at(a, c)
                call_record = self.lines.record(line)
                uuid = new_id("claude-code", session, m.tool_call_id, str(call_record.get("uuid")), taken=taken)
                self.plan.add_after(
                    anchor,
                    self.result_line(m, call_record, uuid, stamp, linked),
                    f"an interrupted result for call {self.file_id(m.tool_call_id)}, after its call (line {line})",
                )
                ended[line] = uuid
            if linked:
                self.repoint(a, ended, on_branch, last_prompt)

    def _answered_lines(self, span: Span) -> dict[int, int]:
        """The last line holding the result of each call of ``span``'s response that has one in
        the span, by the call's index."""
        order = {call.id: c for c, call in enumerate(self.messages[span.input_start].tool_calls)}
        found: dict[int, int] = {}
        for i in range(span.input_start + 1, span.input_stop):
            m = self.messages[i]
            c = order.get(m.tool_call_id) if m.role == "tool" and m.tool_call_id is not None else None
            if c is not None:
                found[c] = max([found.get(c, 0), *(line for line, _ in self.pieces(i))])
        return found

    def result_line(self, m: Message, call: dict[str, Any], uuid: str, stamp: Any, linked: bool) -> dict[str, Any]:
        text = m.content if isinstance(m.content, str) else ""
        call_id = self.file_id(m.tool_call_id)
        record: dict[str, Any] = {}
        if linked:
            record["parentUuid"] = call.get("uuid")
        if "isSidechain" in call:
            record["isSidechain"] = call["isSidechain"]
        record["type"] = "user"
        record["message"] = {
            "role": "user",
            "content": [{"type": "tool_result", "content": text, "is_error": True, "tool_use_id": call_id}],
        }
        record["uuid"] = uuid
        record["timestamp"] = stamp
        record["toolUseResult"] = text
        if linked:
            record["sourceToolAssistantUUID"] = call.get("uuid")
        for key in _CONTEXT:
            if key in call:
                record[key] = call[key]
        return record

    def repoint(self, a: int, ended: dict[int, str], on_branch: list[int], last_prompt: int | None) -> None:
        """The branch goes on from each added result instead of its call's line: the record that
        hung off the call's line (not another line or result of the same response) hangs off
        the result; where none did, the leaf ``last-prompt`` names moves to the result."""
        response_lines = {line for line, _ in self.pieces(a)}
        out_a = self.repaired.messages[self.repaired.origin.index(a)]
        answers = {c.id for c in self.messages[a].tool_calls} | {c.id for c in out_a.tool_calls}
        by_uuid = {self.lines.record(line).get("uuid"): line for line in ended}
        continued: set[int] = set()
        for n in on_branch:
            if n in response_lines:
                continue
            record = self.lines.record(n)
            parent = record.get("parentUuid")
            call_line = by_uuid.get(parent)
            if call_line is None:
                continue
            message = record.get("message")
            blocks = message.get("content") if isinstance(message, dict) else None
            blocks = blocks if isinstance(blocks, list) else []
            results = [b for b in blocks if _kind(b) == "tool_result"]
            if results and len(results) == len(blocks) and all(b.get("tool_use_id") in answers for b in results):
                continue  # a result of the same response: it hangs off its call, as Claude Code writes it
            why = f"parentUuid re-pointed to the result added for the call on line {call_line}"
            self.plan.change(n, why)["parentUuid"] = ended[call_line]
            continued.add(call_line)
        if last_prompt is None:
            return
        leaf = self.lines.record(last_prompt).get("leafUuid")
        call_line = by_uuid.get(leaf)
        if call_line is not None and call_line not in continued:
            why = f"leafUuid now names the result added for the call on line {call_line}, where the branch ends"
            self.plan.change(last_prompt, why)["leafUuid"] = ended[call_line]

    # -- all of it -------------------------------------------------------------------------------

    def write(self) -> Written:
        self.in_place()
        self.notes_and_order()
        self.made()
        data, edits = self.plan.render()
        moved_written = {
            i
            for i, m in enumerate(self.messages)
            if m.role == "tool" and any(line in self.reordered for line, _ in self.pieces(i))
        }
        moved = {c.input_index for c in self.repaired.changes if c.kind == ChangeKind.MOVED_RESULT}
        written = self.written(data, edits, "claude-code", moved_written & moved, resume)
        if not self.ids:
            return written
        notes = [
            f"call {final} is written {to} in the call and its result, since {why_written(final, to)} and send "
            "'[Tool result missing due to internal error]' in place of its result"
            for final, to in self.ids.items()
        ]
        return replace(written, ids=dict(self.ids), notes=notes)


def why_written(final: str, to: str) -> str:
    """Why the call whose final id is ``final`` is written ``to`` (:func:`written_ids`)."""
    stem = to.rsplit("-", 1)[0]
    return (
        f"Claude Code would read {final} (call {stem}'s id and {final[len(stem) :]}) as an entry of a batch call {stem}"
    )


def write(data: bytes, transcript: Transcript, repaired: Repair) -> Written:
    """The Claude Code session ``data`` with ``repaired`` written into it (``suture.writeback``)."""
    return _Writer(data, transcript, repaired).write()


def resume(transcript: Transcript, data: bytes | None, path: str | None) -> str:
    """``claude --resume ID``, from the session's working folder (Claude Code finds a session
    by its id among the sessions of the folder it runs in)."""
    session, cwd = first_values(data, ("sessionId", "cwd"))
    command = f"claude --resume {shlex.quote(session)}" if session else "claude --resume"
    return f"cd {shlex.quote(cwd)} && {command}" if cwd else command
