"""Claude Code session logs: ``~/.claude/projects/<cwd>/<sessionId>.jsonl``, one record a line.

The history is what Claude Code sends when it resumes the session, read in file order:

- ``user`` and ``assistant`` records hold an Anthropic Messages message in ``message``. Claude
  Code writes one API response one content block a line, each line repeating ``message.id``:
  lines that share it are one assistant message, placed where its first line is, even when
  tool-result lines sit between them (they do: a parallel call's result is written as soon as it
  returns). Every result then follows the message that holds its call, so the loader itself never
  makes a call look unanswered or a result look orphaned.
- ``tool_result`` blocks of a user record become neutral tool messages (see ``messages``); the
  rest of that record, if any, a user message after them.
- API error records (``isApiErrorMessage``, ``model: "<synthetic>"``, a ``system`` record of
  level ``error``) are written by Claude Code, not the model, and never sent back: they go to
  ``Transcript.evidence`` (why the session stopped), not into the history.
- Compaction: a ``system`` record of subtype ``compact_boundary`` starts a new context (its
  ``parentUuid`` is null; the next record, ``isCompactSummary``, summarises what came before).
  The history is what follows the last boundary, the summary first: that is what Claude Code
  sends after it. ``meta["compacted"]`` says where the boundary is and how many earlier messages
  it left out.
- Subagent files (``<sessionId>/subagents/agent-<id>.jsonl``, every record ``isSidechain``) load
  the same way; in a main file that also holds sidechain records (older versions), those are
  skipped.
- ``progress``, ``file-history-snapshot``, ``queue-operation``, ``summary`` and other records
  are not messages and are skipped. The ``parentUuid`` chain is not followed: parallel calls
  and progress records branch it in every real file, while file order is the order of events.

Exported as an Anthropic Messages request (``export_format = "messages"``): each neutral
message's ``raw`` is a Messages record or block, so the messages adapter writes them back.
Records are shaped from real 2.1.x files (shared samples) and Claude Code's public issue threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from suture.formats import CERTAIN, LIKELY, About, FormatError, first_text
from suture.formats.messages import parse_blocks, type_name
from suture.io import Document, InputError, gc_paused
from suture.model import LoadProblem, Message, Part, Source, ToolCall, Transcript

_OWN_TYPES = frozenset({"file-history-snapshot", "queue-operation"})
_EVENT_TYPES = frozenset({"user", "assistant", "system", "progress", "attachment"})


@dataclass(slots=True)
class _Turn:
    """An assistant message being merged from the lines that share its ``message.id``."""

    id: str | None
    line: int
    blocks: list[Any] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    text: str | None = None

    def message(self) -> Message:
        more = self.lines[1:]
        if not more:
            pointer = None
        elif len(more) <= 3:
            pointer = f"merged with line{'s' if len(more) > 1 else ''} {', '.join(map(str, more))}"
        else:
            pointer = f"merged with {len(more)} more lines through line {more[-1]}"
        source = Source(line=self.line, pointer=pointer)
        if self.text is not None:
            return Message("assistant", self.text, raw={"role": "assistant", "content": self.text}, source=source)
        raw = {"role": "assistant", "content": self.blocks}
        return Message("assistant", self.parts, tuple(self.calls), raw=raw, source=source)


def _records(doc: Document) -> list[tuple[int, Any]]:
    if doc.kind == "jsonl":
        return doc.records
    return [(1, doc.value)]


def _is_error_record(record: dict[str, Any], message: Any) -> bool:
    if record.get("isApiErrorMessage"):
        return True
    return isinstance(message, dict) and message.get("model") == "<synthetic>"


def _error_text(record: dict[str, Any], message: Any) -> str:
    text = ""
    if isinstance(message, dict):
        content = message.get("content")
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            text = " ".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    if not text and isinstance(record.get("content"), str):
        text = record["content"]
    if not text and record.get("error") is not None:
        text = str(record["error"])
    status = record.get("apiErrorStatus")
    text = " ".join(text.split())
    return f"API error {status}: {text}" if status is not None and str(status) not in text else text or "API error"


class ClaudeCodeAdapter:
    name = "claude-code"
    title = "Claude Code session JSONL (~/.claude/projects/…/<session>.jsonl, subagents too)"
    order = 60
    export_format = "messages"

    def sniff(self, doc: Document) -> int:
        if doc.kind == "json" and not isinstance(doc.value, dict):
            return 0
        score = 0
        for _, record in _records(doc)[:100]:
            if not isinstance(record, dict):
                continue
            kind = record.get("type")
            if not isinstance(kind, str):
                continue
            if kind in _OWN_TYPES or (kind == "summary" and "leafUuid" in record):
                score = max(score, LIKELY)
            elif kind in _EVENT_TYPES and "uuid" in record and "sessionId" in record:
                return CERTAIN
        return score

    def skipped(self, transcript: Transcript) -> list[str]:
        """What the file holds that Claude Code does not send: the lines before its last compaction."""
        compacted = transcript.meta.get("compacted")
        if not compacted:
            return []
        line, before = compacted["line"], compacted["records_before"]
        said = f"lines 1–{line - 1} are before a compaction (line {line}) and are not sent"
        if before:
            said += f" ({before:,} user and assistant records; the summary after it stands for them)"
        return [said]

    def load(self, doc: Document) -> Transcript:
        records = _records(doc)
        if not any(isinstance(r, dict) for _, r in records):
            raise FormatError("", "not a Claude Code session: no record is an object")
        has_main = any(
            isinstance(r, dict) and r.get("type") in ("user", "assistant") and not r.get("isSidechain")
            for _, r in records
        )
        start = 0
        for i, (_, record) in enumerate(records):
            if (
                isinstance(record, dict)
                and record.get("type") == "system"
                and record.get("subtype") == "compact_boundary"
            ):
                start = i + 1
        meta: dict[str, Any] = {"sidechain": not has_main}
        if start:
            left_out = sum(
                1 for _, r in records[: start - 1] if isinstance(r, dict) and r.get("type") in ("user", "assistant")
            )
            meta["compacted"] = {"line": records[start - 1][0], "records_before": left_out}

        items: list[Message | _Turn] = []
        problems = list(doc.problems)
        evidence: list[tuple[Source, str]] = []
        with gc_paused():
            last_turn = self._read(records, start, has_main, items, None, problems, evidence)
        return self._transcript(items, last_turn, meta, problems, evidence)

    def _transcript(
        self,
        items: list[Message | _Turn],
        last_turn: _Turn | None,
        meta: dict[str, Any],
        problems: list[LoadProblem],
        evidence: list[tuple[Source, str]],
        settled: int = 0,
    ) -> Transcript:
        """``settled``: how many leading items are messages already (``extend`` keeps the old
        ones as they are: going over them all again would make an append cost the file)."""
        messages = cast("list[Message]", items[:settled])  # messages, as said
        messages.extend(item.message() if isinstance(item, _Turn) else item for item in items[settled:])
        if last_turn is not None and last_turn.text is None:
            # Where the latest response is, so appended lines of it can join it (``extend``).
            index = next(i for i in range(len(items) - 1, -1, -1) if items[i] is last_turn)
            meta = {**meta, "turn": {"index": index, "id": last_turn.id, "lines": last_turn.lines}}
        return Transcript(
            messages,
            self.name,
            raw_format="messages",
            meta=meta,
            problems=problems,
            evidence=evidence,
        )

    def _read(
        self,
        records: Sequence[tuple[int, Any]],
        start: int,
        has_main: bool,
        items: list[Message | _Turn],
        last_turn: _Turn | None,
        problems: list[LoadProblem],
        evidence: list[tuple[Source, str]],
    ) -> _Turn | None:
        """Read ``records`` (those before index ``start`` precede the last compaction) into
        ``items``, continuing the response ``last_turn``; returns the latest response."""
        for i, (line, record) in enumerate(records):
            if not isinstance(record, dict):
                problems.append(LoadProblem(line, f"a record must be an object, got {type_name(record)}"))
                continue
            kind = record.get("type")
            if has_main and record.get("isSidechain") and kind in ("user", "assistant"):
                continue
            message = record.get("message")
            if kind == "system" and record.get("level") == "error":
                evidence.append((Source(line=line), _error_text(record, None)))
                continue
            if kind not in ("user", "assistant"):
                continue
            if kind == "assistant" and _is_error_record(record, message):
                evidence.append((Source(line=line), _error_text(record, message)))
                continue
            if i < start:
                continue
            if not isinstance(message, dict):
                problems.append(
                    LoadProblem(line, f"the {kind} record needs a message object, got {type_name(message)}")
                )
                continue
            try:
                if kind == "assistant":
                    last_turn = self._assistant(message, line, items, last_turn)
                else:
                    items.extend(self._user(message, line))
            except FormatError as e:
                problems.append(LoadProblem(line, e.problem if not e.where else f"{e.where}: {e.problem}"))

        return last_turn

    def extend(self, transcript: Transcript, doc: Document, start: int) -> tuple[Transcript, int] | None:
        """The transcript with appended lines (``suture.tail.Extends``). A line of the latest
        response joins it, so that message and what follows it may change; a compaction, a bad
        line, or the first main-thread line of a subagent file needs a full read (``None``)."""
        if doc.kind != "jsonl" or transcript.format != self.name or transcript.problems or doc.problems:
            return None
        new = doc.records[start:]
        for _, record in new:
            if not isinstance(record, dict):
                return None
            if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
                return None
            if (
                transcript.meta.get("sidechain")
                and record.get("type") in ("user", "assistant")
                and not record.get("isSidechain")
            ):
                return None
        items: list[Message | _Turn] = list(transcript.messages)
        last_turn: _Turn | None = None
        turn = transcript.meta.get("turn")
        if turn is not None:
            index = turn["index"]
            old = transcript.messages[index]
            raw = old.raw if isinstance(old.raw, dict) else {}
            last_turn = _Turn(
                turn["id"],
                turn["lines"][0],
                blocks=list(raw.get("content") or []),
                parts=list(old.content) if isinstance(old.content, list) else [],
                calls=list(old.tool_calls),
                lines=list(turn["lines"]),
            )
            items[index] = last_turn
        problems: list[LoadProblem] = []
        evidence = list(transcript.evidence)
        with gc_paused():
            latest = self._read(new, 0, not transcript.meta.get("sidechain"), items, last_turn, problems, evidence)
        if problems:
            return None
        meta = {k: v for k, v in transcript.meta.items() if k != "turn"}
        settled = turn["index"] if turn is not None else len(transcript.messages)
        out = self._transcript(items, latest, meta, [], evidence, settled)
        first = len(transcript.messages)
        if turn is not None and last_turn is not None and len(last_turn.lines) > len(turn["lines"]):
            first = turn["index"]  # the latest response took in new lines
        return out, first

    def _assistant(
        self,
        message: dict[str, Any],
        line: int,
        items: list[Message | _Turn],
        last: _Turn | None,
    ) -> _Turn:
        message_id = message.get("id") if isinstance(message.get("id"), str) else None
        content = message.get("content")
        where = "message"
        parts, calls, _ = parse_blocks("assistant", content, where, lambda k: None)
        # Lines of one response share message.id; a new id starts a new message. ``last`` is
        # always the latest assistant message, so a line never merges across another response.
        if (
            last is not None
            and message_id is not None
            and last.id == message_id
            and last.text is None
            and isinstance(content, list)
        ):
            turn = last
        else:
            turn = _Turn(message_id, line)
            items.append(turn)
            if not isinstance(content, list):
                turn.text = content if isinstance(content, str) else None
                if content is None:
                    turn.blocks = []
                turn.lines.append(line)
                return turn
        turn.blocks.extend(content)
        assert isinstance(parts, list)
        turn.parts.extend(parts)
        turn.calls.extend(calls)
        turn.lines.append(line)
        return turn

    def _user(self, message: dict[str, Any], line: int) -> list[Message]:
        found = message.get("role")
        role = found if isinstance(found, str) else "user"
        content = message.get("content")
        parts, _, results = parse_blocks(
            role, content, "message", lambda k: Source(line=line, pointer=f"message.content[{k}]")
        )
        if not results:
            return [Message(role, parts, raw={"role": role, "content": content}, source=Source(line=line))]
        out = list(results)
        if parts:
            assert isinstance(content, list)
            rest = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")]
            out.append(Message(role, parts, raw={"role": role, "content": rest}, source=Source(line=line)))
        return out

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        raise InputError(
            "suture does not write Claude Code session logs; export the history as Anthropic messages (--to messages)"
        )

    def about(self, doc: Document) -> About:
        """The working folder and session id Claude Code puts on its event lines."""
        cwd, session = first_text(_records(doc), "cwd", "sessionId")
        return About(cwd, session)


__all__ = ["ADAPTER"]

ADAPTER = ClaudeCodeAdapter()
