"""Claude Code session logs: ``~/.claude/projects/<cwd>/<sessionId>.jsonl``, one record a line.

The history (the *as-written* view) is the chain Claude Code itself follows when it resumes the
session, with every record as it is written:

- **Which records.** Records form a tree through ``parentUuid``. Claude Code resumes the branch
  that ends at a leaf: the newest record of the conversation, unless it does not descend from the
  ``leafUuid`` of the last ``last-prompt`` line (it is a root, or forks off earlier), in which case
  that ``leafUuid`` is the leaf. The branch is walked back from the leaf to its root. Parallel
  calls branch the chain in every real file (each ``tool_use`` line of one response hangs off the
  previous one, each result line off its own ``tool_use`` line), and Claude Code still sends them
  all: so the lines of a response on the branch (they share ``message.id``) and the result lines
  that answer its calls (hanging off one of them, or off nothing) are taken too. The records are
  then read in file order, which is the order of events.
- **Compaction** needs nothing more: a ``compact_boundary`` record has no parent, so the branch
  starts there, and the summary after it comes first. ``meta["compacted"]`` says where the
  boundary is, how many records it left out and which lines (``before``: each with its record's
  type), and the lines before it the branch still takes (``kept``: a response it kept).
- ``user`` and ``assistant`` records hold an Anthropic Messages message in ``message``. The lines
  of one API response (one block a line, each repeating ``message.id``) are one assistant
  message, placed at its first line: the file says they are one message. A user record keeps its
  written order (see ``suture.formats.messages``): ``[text, tool_result]`` is a user message and
  then the result, exactly the shape Anthropic rejects.
- Every message knows where it was written: ``Source.pieces`` lists the ``(line, block)`` of each
  of its blocks.
- **What Claude Code leaves out** is kept aside in ``Transcript.skipped``, not in the history: API
  error records (``isApiErrorMessage``, a ``system`` record of level ``error``: they also go to
  ``Transcript.evidence``, why the session stopped) and virtual records. Lines that are not JSON
  stay in ``Transcript.problems``; Claude Code skips those too.
- ``attachment`` lines are context Claude Code renders at send time (``<system-reminder>`` text,
  the environment): they are on the chain but are not history. ``progress``,
  ``file-history-snapshot``, ``queue-operation``, ``api-request*``, ``last-prompt`` and other
  bookkeeping records are not messages.
- Subagent files (``<sessionId>/subagents/agent-<id>.jsonl``, every record ``isSidechain``) load
  the same way; in a main file that also holds sidechain records (older versions), those are
  left out.

What Claude Code then changes on the way to the provider (the interrupted results it inserts,
what it drops and merges) is ``suture.sent``'s job, not the loader's. Exported as an Anthropic
Messages request (``export_format = "messages"``): each neutral message's ``raw`` is a Messages
record or block, so the messages adapter writes them back. Records are shaped from real 2.1.x
files and from the sessions the real Claude Code wrote in ``sample_sessions/recorded``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, cast

import orjson
from msgspec import Struct, field

from suture import show
from suture.formats import CERTAIN, LIKELY, About, FormatError, first_text
from suture.formats.messages import parse_blocks, type_name, written_order
from suture.io import Document, InputError, gc_paused
from suture.model import LoadProblem, Message, Part, Skipped, Source, ToolCall, Transcript
from suture.words import with_article

__all__ = ["ADAPTER", "ClaudeCodeAdapter", "chain", "error_text", "is_api_error"]

_OWN_TYPES = frozenset({"file-history-snapshot", "queue-operation", "last-prompt", "api-request"})
_EVENT_TYPES = frozenset({"user", "assistant", "system", "progress", "attachment"})
# Records that take part in the parentUuid tree of the conversation.
_CHAIN_TYPES = _EVENT_TYPES


class _Turn(Struct):
    """An assistant message being merged from the lines that share its ``message.id``."""

    id: str | None
    line: int
    blocks: list[Any] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    pieces: list[tuple[int, int | None]] = field(default_factory=list)
    text: str | None = None

    def message(self) -> Message:
        more = sorted(set(self.lines[1:]) - {self.line})
        if not more:
            pointer = None
        elif len(more) <= 3:
            pointer = f"merged with {'line' if len(more) == 1 else 'lines'} {', '.join(map(str, more))}"
        else:
            pointer = f"merged with {len(more)} more lines through line {more[-1]}"
        pieces = tuple(self.pieces) if len(self.lines) > 1 else ()
        source = Source(line=self.line, pointer=pointer, pieces=pieces)
        if self.text is not None:
            return Message("assistant", self.text, raw={"role": "assistant", "content": self.text}, source=source)
        raw = {"role": "assistant", "content": self.blocks}
        return Message("assistant", self.parts, tuple(self.calls), raw=raw, source=source)


def _records(doc: Document) -> list[tuple[int, Any]]:
    if doc.kind == "jsonl":
        return doc.records
    return [(1, doc.value)]


def _type(record: dict[str, Any]) -> str | None:
    kind = record.get("type")
    return kind if isinstance(kind, str) else None


def _record_words(kind: str | None) -> str:
    """What a line holds, by its record's type: ``user record``, ``queue-operation record``."""
    if kind is None:
        return "record with no type"
    if not kind:
        return "line that is not an object"
    return f"{kind if len(kind) <= 40 else kind[:39] + '…'} record"


def _is_error_record(record: dict[str, Any]) -> bool:
    """An API error Claude Code wrote in the model's place (never sent back)."""
    return record.get("isApiErrorMessage") is True


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
    error = record.get("error")
    status = record.get("apiErrorStatus")
    if not text and isinstance(error, dict):
        # A system api_error line: {"message": "529 {json body}", "status": 529, "formatted": ...}
        status = error.get("status", status)
        text = _provider_message(error.get("message")) or str(error.get("formatted") or error.get("message") or "")
    if not text and error is not None:
        text = str(error)
    text = " ".join(text.split())
    return f"API error {status}: {text}" if status is not None and str(status) not in text else text or "API error"


def _provider_message(value: Any) -> str:
    """The provider's own error text in ``"<status> <JSON body>"``, as Claude Code records it."""
    if not isinstance(value, str):
        return ""
    _, _, rest = value.partition(" ")
    try:
        body = orjson.loads(rest)
    except orjson.JSONDecodeError:
        return value
    inner = body.get("error") if isinstance(body, dict) else None
    message = inner.get("message") if isinstance(inner, dict) else None
    return message if isinstance(message, str) else value


def _untyped_words(record: dict[str, Any]) -> str:
    """Why a line with no record type is left out of what Claude Code sends."""
    role = record.get("role")
    what = f"{with_article(show.line(role)[:20])} message of a request format" if isinstance(role, str) else "an object"
    return f"{what}, with no record type: no Claude Code record, left out of what Claude Code sends"


def _is_api_error_line(record: dict[str, Any]) -> bool:
    return record.get("type") == "system" and (record.get("level") == "error" or record.get("subtype") == "api_error")


def is_api_error(record: dict[str, Any]) -> bool:
    """Whether a record is an API error Claude Code wrote (a ``system`` error line, or the
    ``isApiErrorMessage`` record it writes in the model's place): evidence, never sent."""
    return _is_api_error_line(record) or (record.get("type") == "assistant" and _is_error_record(record))


def error_text(record: dict[str, Any]) -> str:
    """The one-line text of an API error record (see :func:`is_api_error`)."""
    return _error_text(record, record.get("message") if record.get("type") == "assistant" else None)


def _message_id(record: dict[str, Any]) -> str | None:
    message = record.get("message")
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str) else None


def _blocks_of(record: dict[str, Any]) -> list[Any]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


class Chain(Struct, frozen=True):
    """Which records of the file make the history, as positions in the document's records, and
    what a later append needs to extend it without working it out again."""

    positions: list[int]
    leaf: int | None
    by: str
    """How the leaf was chosen: ``newest`` (the newest record of the conversation), ``last-prompt``
    (the ``leafUuid`` of the last ``last-prompt`` line), ``file`` (no record has a ``parentUuid``:
    every record, in file order) or ``none`` (no conversation records)."""
    newest: str | None = None
    """The uuid of the newest conversation record."""
    marked: str | None = None
    """The ``leafUuid`` of the last ``last-prompt`` line."""
    responses: frozenset[str] = frozenset()
    """The ``message.id`` of every response in the history."""
    seen: frozenset[str] = frozenset()
    """The ``message.id`` of every response in the file."""
    loose: frozenset[str] = frozenset()
    """The call ids answered by result lines that are not in the history."""
    awaited: frozenset[str] = frozenset()
    """The uuids the compaction the branch runs through lists as preserved that no line has yet:
    a line of one, appended, goes before the branch's lines, not after them."""


def chain(records: Sequence[tuple[int, Any]], main: bool = True) -> Chain:
    """The records Claude Code resumes (see the module docstring), in file order.

    ``main``: the file holds main-thread records, so sidechain ones are left out."""
    by_uuid, newest, leaf_uuid, linked = _index(records, main)
    if newest is None:
        return Chain([], None, "none", marked=leaf_uuid)
    newest_uuid = records[newest][1]["uuid"]
    if not linked:
        # Records with no links at all (written by hand or by another tool): the file is the list.
        return Chain(_unlinked(records, main), newest, "file", newest_uuid, leaf_uuid)
    leaf, by = newest, "newest"
    path = _ancestors(records, by_uuid, newest)
    marked = by_uuid.get(leaf_uuid) if leaf_uuid is not None else None
    if marked is not None and marked not in path:
        leaf, by = marked, "last-prompt"
        path = _ancestors(records, by_uuid, marked)
    head, awaited = _compacted_head(records, by_uuid, path)
    if head is not None:
        path, front = head
    else:
        front = []
    chosen = set(path) | set(front)
    responses, seen_ids, loose = _add_siblings(records, by_uuid, chosen)
    rest = sorted(chosen - set(front))
    return Chain(
        [*front, *rest],
        leaf,
        by,
        newest_uuid,
        leaf_uuid,
        frozenset(r for r in responses if r is not None),
        frozenset(r for r in seen_ids if r is not None),
        frozenset(loose),
        awaited,
    )


def _index(records: Sequence[tuple[int, Any]], main: bool) -> tuple[dict[str, int], int | None, str | None, bool]:
    """The chain records by uuid (their positions), the newest one, the ``last-prompt`` leaf, and
    whether any record links to a parent."""
    by_uuid: dict[str, int] = {}
    newest: int | None = None
    leaf_uuid: str | None = None
    linked = False
    for pos, (_, record) in enumerate(records):
        part = _part_of_chain(record, main) if isinstance(record, dict) else None
        if part is None:
            continue
        role, uuid = part
        if role == "leaf":
            leaf_uuid = uuid
            continue
        linked = linked or "parentUuid" in record
        by_uuid[uuid] = pos
        newest = pos
    return by_uuid, newest, leaf_uuid, linked


def _carried_on(old: list[int], new: list[int], records: Sequence[tuple[int, Any]], start: int) -> list[int] | None:
    """The positions the branch ``new`` (in ``records``) adds to the branch ``old`` where it
    carries it on with lines from ``start`` on: the lines of ``old`` and of ``new`` before
    ``start`` are the same but for progress lines; ``None`` where they are not. While a tool runs,
    Claude Code writes progress lines one off the other, and its next line (the result, the next
    response) hangs off the line before them, so progress lines leave the newest record's branch,
    and others join it (measured on real 2.1.x sessions). A progress line holds no message: the
    history read from ``old`` stays that of ``new`` up to ``start``."""
    n = len(old)
    if not n:
        return None
    if new[:n] == old:
        added = new[n:]
        return added if all(p >= start for p in added) else None
    shared = min(n, len(new))
    differ = next((i for i in range(shared) if old[i] != new[i]), shared)
    if differ == 0:
        return None
    tail = new[differ:]
    first_new = next((i for i, p in enumerate(tail) if p >= start), len(tail))
    if any(p < start for p in tail[first_new:]):
        return None  # an earlier line after an appended one (a compaction's front)
    history = [p for p in old[differ:] if not _progress(records[p][1])]
    if [p for p in tail[:first_new] if not _progress(records[p][1])] != history:
        return None  # a line of the history left the branch, joined it or moved: a fork
    return tail[first_new:]


def _progress(record: Any) -> bool:
    return isinstance(record, dict) and _type(record) == "progress"


def _part_of_chain(record: dict[str, Any], main: bool) -> tuple[Literal["leaf", "record"], str] | None:
    """What a line is to the chain: ``("leaf", uuid)`` for a ``last-prompt`` line naming the leaf,
    ``("record", uuid)`` for a record of the conversation (sidechain records left out when
    ``main``), ``None`` for anything else. The whole read and the read of appended lines both
    classify lines by it."""
    kind = _type(record)
    if kind == "last-prompt":
        found = record.get("leafUuid")
        return ("leaf", found) if isinstance(found, str) else None
    uuid = record.get("uuid")
    if not isinstance(uuid, str) or kind not in _CHAIN_TYPES or (main and record.get("isSidechain") is True):
        return None
    return "record", uuid


def _ancestors(records: Sequence[tuple[int, Any]], by_uuid: dict[str, int], pos: int) -> list[int]:
    """``pos`` and its parents, up to the root (or a loop)."""
    path: list[int] = []
    seen: set[int] = set()
    current: int | None = pos
    while current is not None and current not in seen:
        seen.add(current)
        path.append(current)
        found = records[current][1].get("parentUuid")
        current = by_uuid.get(found) if isinstance(found, str) else None
    return path


def _add_siblings(
    records: Sequence[tuple[int, Any]], by_uuid: dict[str, int], chosen: set[int]
) -> tuple[set[str | None], set[str | None], set[str]]:
    """Add to ``chosen`` every line of a response on the branch and the result lines of its calls.
    Returns the branch's response ids, every response id seen, and the ids of results left loose."""
    responses = {_message_id(records[p][1]) for p in chosen if records[p][1].get("type") == "assistant"} - {None}
    seen_ids: set[str | None] = set()
    for pos in by_uuid.values():
        record = records[pos][1]
        if record.get("type") == "assistant":
            mid = _message_id(record)
            seen_ids.add(mid)
            if mid in responses:
                chosen.add(pos)
    calls: set[str] = set()
    for pos in chosen:
        record = records[pos][1]
        if record.get("type") == "assistant":
            calls.update(_call_ids(record))
    uuids = {records[p][1]["uuid"] for p in chosen}
    loose: set[str] = set()
    for pos in by_uuid.values():
        if pos in chosen:
            continue
        record = records[pos][1]
        if record.get("type") != "user":
            continue
        answered = _result_ids(record)
        if not answered:
            continue
        hangs = record.get("parentUuid")
        attached = not isinstance(hangs, str) or hangs in uuids or hangs not in by_uuid
        if attached and all(isinstance(i, str) and i in calls for i in answered):
            chosen.add(pos)
        else:
            loose.update(i for i in answered if isinstance(i, str))
    return responses, seen_ids, loose


def _compacted_head(
    records: Sequence[tuple[int, Any]], by_uuid: dict[str, int], path: list[int]
) -> tuple[tuple[list[int], list[int]] | None, frozenset[str]]:
    """Where the branch runs through a compaction that kept some messages (2.1.x writes a
    ``compact_boundary`` whose ``compactMetadata`` names the preserved segment, and the records
    after it hang off the last preserved one): the branch after the preserved segment, and what
    goes before it (the boundary, the summary, the preserved messages); ``None`` otherwise. And
    the uuids a compaction names (its segment's ends, the messages it kept) that no line has: a
    line of one, appended, changes what goes before the branch."""
    on_path = {records[p][1].get("uuid"): p for p in path}
    found: tuple[int, dict[str, Any]] | None = None
    awaited: set[str] = set()
    for pos, (_, record) in enumerate(records):
        if not (
            isinstance(record, dict) and record.get("type") == "system" and record.get("subtype") == "compact_boundary"
        ):
            continue
        meta = record.get("compactMetadata")
        segment = meta.get("preservedSegment") if isinstance(meta, dict) else None
        tail = segment.get("tailUuid") if isinstance(segment, dict) else record.get("logicalParentUuid")
        if isinstance(segment, dict):
            kept = meta.get("preservedMessages") if isinstance(meta, dict) else None
            listed = kept.get("uuids") if isinstance(kept, dict) else None
            named = [segment.get(k) for k in ("headUuid", "anchorUuid", "tailUuid")]
            named += listed if isinstance(listed, list) else []
            awaited.update(u for u in named if isinstance(u, str) and u not in by_uuid)
        if isinstance(segment, dict) and tail in on_path and pos in by_uuid.values():
            found = (pos, record)
    if found is None:
        return None, frozenset(awaited)
    pos, boundary = found
    meta = boundary["compactMetadata"]
    segment = meta["preservedSegment"]
    tail = on_path[segment["tailUuid"]]
    after = path[: path.index(tail)]  # ``path`` runs from the leaf back: what follows the tail
    anchor = by_uuid.get(segment.get("anchorUuid")) if isinstance(segment.get("anchorUuid"), str) else None
    kept = meta.get("preservedMessages")
    listed = kept.get("uuids") if isinstance(kept, dict) else None
    uuids: list[Any] = listed if isinstance(listed, list) else []
    preserved = sorted(by_uuid[u] for u in uuids if isinstance(u, str) and u in by_uuid)
    front = [pos, *([anchor] if anchor is not None else []), *(p for p in preserved if p != anchor)]
    return (after, front), frozenset(awaited)


def _call_ids(record: dict[str, Any]) -> list[str]:
    return [
        b["id"]
        for b in _blocks_of(record)
        if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)
    ]


def _result_ids(record: dict[str, Any]) -> list[Any]:
    return [b.get("tool_use_id") for b in _blocks_of(record) if isinstance(b, dict) and b.get("type") == "tool_result"]


def _appended(old: Chain, records: Sequence[tuple[int, Any]], start: int, main: bool) -> Chain | None:
    """The chain after ``records[start:]`` were appended, worked out from the new records alone,
    where they only continue the conversation from its newest record (each new record's parent is
    the record before it): what a running session writes. ``None`` for anything else (a fork,
    a result line hanging off an earlier call, a ``last-prompt`` naming an older leaf): then the
    whole chain is worked out again."""
    if old.by != "newest" or old.newest is None:
        return None
    newest = old.newest
    marked = old.marked
    added: list[int] = []
    added_uuids: set[str] = set()
    responses = set(old.responses)
    seen = set(old.seen)
    for pos in range(start, len(records)):
        record = records[pos][1]
        if not isinstance(record, dict):
            return None
        part = _part_of_chain(record, main)
        if part is None:
            continue
        role, uuid = part
        if role == "leaf":
            marked = uuid
            continue
        if record.get("parentUuid") != newest or uuid in added_uuids or uuid in old.awaited:
            return None
        if _type(record) == "system" and record.get("subtype") == "compact_boundary":
            return None  # (the messages it kept go before the branch: worked out whole)
        if _type(record) == "assistant":
            mid = _message_id(record)
            if mid is not None and mid in seen and mid not in responses:
                return None  # a line of a response that is not in the history
            if old.loose.intersection(_call_ids(record)):
                return None  # a result line written before it answers it
            if mid is not None:
                responses.add(mid)
                seen.add(mid)
        newest = uuid
        added.append(pos)
        added_uuids.add(uuid)
    if marked != old.marked and marked not in added_uuids and marked != old.newest:
        return None
    leaf = added[-1] if added else old.leaf
    return Chain(
        [*old.positions, *added],
        leaf,
        "newest",
        newest,
        marked,
        frozenset(responses),
        frozenset(seen),
        old.loose,
        old.awaited,
    )


def _unlinked(records: Sequence[tuple[int, Any]], main: bool) -> list[int]:
    """Positions of every conversation record, for a file whose records have no links."""
    return [
        pos
        for pos, (_, r) in enumerate(records)
        if isinstance(r, dict) and _type(r) in _CHAIN_TYPES and not (main and r.get("isSidechain") is True)
    ]


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
        kept = compacted.get("kept", ())
        if kept:
            which = f"line {kept[0]}" if len(kept) == 1 else f"{len(kept):,} lines"
            said += f", but for {which} the compaction kept"
        if before:
            said += f" ({before:,} user and assistant records; the summary after it stands for them)"
        return [said]

    def before_compaction(self, transcript: Transcript) -> list[Skipped]:
        """The records before the last compaction, and its boundary record: none is sent."""
        compacted = transcript.meta.get("compacted")
        if not compacted:
            return []
        line = compacted["line"]
        found = [
            Skipped(Source(line=n), "compacted", f"{_record_words(kind)} before the compaction (line {line})")
            for n, kind in compacted.get("before", ())
        ]
        found.append(
            Skipped(Source(line=line), "compaction", "the compaction: Claude Code sends the summary after it, not this")
        )
        return found

    def load(self, doc: Document) -> Transcript:
        """The session's messages (the branch of its last entry); a line that is an object with
        no record type (a message of a request format, appended to the session) is none of its
        records: it is told in ``skipped`` (``untyped``), not left out without a word."""
        records = _records(doc)
        if not any(isinstance(r, dict) for _, r in records):
            raise FormatError("", "not a Claude Code session: no record is an object")
        has_main = any(
            isinstance(r, dict) and r.get("type") in ("user", "assistant") and not r.get("isSidechain")
            for _, r in records
        )
        problems = list(doc.problems)
        skipped: list[Skipped] = []
        for line, record in records:
            if not isinstance(record, dict):
                problems.append(LoadProblem(line, f"a record must be an object, got {type_name(record)}"))
            elif "type" not in record:
                skipped.append(Skipped(Source(line=line), "untyped", _untyped_words(record)))
        found = chain(records, has_main)
        meta: dict[str, Any] = {"sidechain": not has_main, "chain": found}
        meta.update(self._about(records, found))
        items: list[Message | _Turn] = []
        evidence: list[tuple[Source, str]] = []
        untyped, skipped = skipped, []
        with gc_paused():
            self._evidence(records, evidence)
            last_turn = self._read([records[p] for p in found.positions], items, None, problems, skipped)
        if untyped:
            skipped = sorted(untyped + skipped, key=lambda s: s.source.line or 0)
        return self._transcript(items, last_turn, meta, problems, evidence, skipped)

    def _about(self, records: Sequence[tuple[int, Any]], found: Chain, start: int = 0) -> dict[str, Any]:
        """What the file says about itself: the Claude Code version that wrote its last
        conversation record (looked for from record ``start`` on), and, read whole (``start``
        0), the compaction the branch starts at."""
        about: dict[str, Any] = {}
        for _, record in reversed(records[start:]):
            if isinstance(record, dict) and isinstance(record.get("version"), str) and _type(record) in _CHAIN_TYPES:
                about["agent_version"] = record["version"]
                break
        if found.positions and start == 0:
            first_line, first = records[found.positions[0]]
            if first.get("type") == "system" and first.get("subtype") == "compact_boundary":
                on_branch = set(found.positions)
                cut = records[: found.positions[0]]
                # What each line before it holds (its record's type), for the records listed; a
                # line the branch still takes (a response the compaction kept) is sent.
                left = [(p, line, r) for p, (line, r) in enumerate(cut) if p not in on_branch]
                about["compacted"] = {
                    "line": first_line,
                    "records_before": sum(
                        1 for _, _, r in left if isinstance(r, dict) and r.get("type") in ("user", "assistant")
                    ),
                    "before": [(line, _type(r) if isinstance(r, dict) else "") for _, line, r in left],
                }
                kept = [line for p, (line, _) in enumerate(cut) if p in on_branch]
                if kept:
                    about["compacted"]["kept"] = kept
        return about

    def _evidence(self, records: Sequence[tuple[int, Any]], evidence: list[tuple[Source, str]]) -> None:
        """Every API error the file records, on the branch or not: why the session stopped."""
        for line, record in records:
            if not isinstance(record, dict):
                continue
            if _is_api_error_line(record):
                evidence.append((Source(line=line), _error_text(record, None)))
            elif record.get("type") == "assistant" and _is_error_record(record):
                evidence.append((Source(line=line), _error_text(record, record.get("message"))))

    def _transcript(
        self,
        items: list[Message | _Turn],
        last_turn: _Turn | None,
        meta: dict[str, Any],
        problems: list[LoadProblem],
        evidence: list[tuple[Source, str]],
        skipped: list[Skipped],
        settled: int = 0,
    ) -> Transcript:
        """``settled``: how many leading items are messages already (``extend`` keeps the old
        ones as they are: going over them all again would make an append cost the file)."""
        messages = cast("list[Message]", items[:settled])  # messages, as said
        messages.extend(item.message() if isinstance(item, _Turn) else item for item in items[settled:])
        if last_turn is not None and last_turn.text is None:
            # Where the latest response is, so appended lines of it can join it (``extend``).
            index = next(i for i in range(len(items) - 1, -1, -1) if items[i] is last_turn)
            meta = {
                **meta,
                "turn": {"index": index, "id": last_turn.id, "lines": last_turn.lines, "pieces": last_turn.pieces},
            }
        return Transcript(
            messages,
            self.name,
            raw_format="messages",
            meta=meta,
            problems=problems,
            evidence=evidence,
            skipped=skipped,
        )

    def _read(
        self,
        records: Sequence[tuple[int, Any]],
        items: list[Message | _Turn],
        last_turn: _Turn | None,
        problems: list[LoadProblem],
        skipped: list[Skipped],
    ) -> _Turn | None:
        """Read the branch's ``records`` (in file order) into ``items``, continuing the response
        ``last_turn``; returns the latest response."""
        for line, record in records:
            kind = record.get("type")
            if _is_api_error_line(record):
                skipped.append(
                    Skipped(Source(line=line), "api_error", "an API error record: Claude Code does not send it")
                )
                continue
            if kind not in ("user", "assistant"):
                continue
            message = record.get("message")
            if kind == "assistant" and _is_error_record(record):
                skipped.append(
                    Skipped(Source(line=line), "api_error", "an API error record: Claude Code does not send it")
                )
                continue
            if record.get("isVirtual") is True:
                skipped.append(Skipped(Source(line=line), "virtual", "a virtual record: Claude Code does not send it"))
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
        """The transcript with appended lines (``suture.tail.Extends``). The branch is worked out
        again (cheap: no message is built); when the old branch is where the new one starts,
        only the new records are read, and a line of the latest response joins it (so that
        message and what follows it may change). Anything else (a fork, a new leaf, a bad line,
        the first main-thread line of a subagent file) needs a full read (``None``)."""
        if doc.kind != "jsonl" or transcript.format != self.name or transcript.problems or doc.problems:
            return None
        new = doc.records[start:]
        for _, record in new:
            if not isinstance(record, dict) or "type" not in record:
                return None  # (a line no Claude Code record: said by a full read)
            if (
                transcript.meta.get("sidechain")
                and record.get("type") in ("user", "assistant")
                and not record.get("isSidechain")
            ):
                return None
        before: Chain | None = transcript.meta.get("chain")
        if before is None:
            return None
        main = not transcript.meta.get("sidechain")
        found = _appended(before, doc.records, start, main) or chain(doc.records, main)
        appended = _carried_on(before.positions, found.positions, doc.records, start)
        if appended is None:
            return None
        items: list[Message | _Turn] = list(transcript.messages)
        last_turn: _Turn | None = None
        turn = transcript.meta.get("turn")
        if turn is not None:
            index = turn["index"]
            previous = transcript.messages[index]
            raw = previous.raw if isinstance(previous.raw, dict) else {}
            last_turn = _Turn(
                turn["id"],
                turn["lines"][0],
                blocks=list(raw.get("content") or []),
                parts=list(previous.content) if isinstance(previous.content, list) else [],
                calls=list(previous.tool_calls),
                lines=list(turn["lines"]),
                pieces=list(turn["pieces"]),
            )
            items[index] = last_turn
        problems: list[LoadProblem] = []
        evidence = list(transcript.evidence)
        skipped = list(transcript.skipped)
        with gc_paused():
            self._evidence(new, evidence)
            latest = self._read([doc.records[p] for p in appended], items, last_turn, problems, skipped)
        if problems:
            return None
        meta = {k: v for k, v in transcript.meta.items() if k != "turn"}
        meta["chain"] = found
        meta.update(self._about(doc.records, found, start))
        settled = turn["index"] if turn is not None else len(transcript.messages)
        out = self._transcript(items, latest, meta, [], evidence, skipped, settled)
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
                turn.pieces.append((line, None))
                return turn
        turn.blocks.extend(content)
        assert isinstance(parts, list)
        turn.parts.extend(parts)
        turn.calls.extend(calls)
        turn.lines.append(line)
        turn.pieces.extend((line, k) for k in range(len(content)))
        return turn

    def _user(self, message: dict[str, Any], line: int) -> list[Message]:
        # Claude Code sends a ``user`` record as a user message whatever its message.role says:
        # the role comes from the record's type.
        role = "user"
        content = message.get("content")
        parts, _, results = parse_blocks(
            role,
            content,
            "message",
            lambda k: Source(line=line, pointer=f"message.content[{k}]", pieces=((line, k),)),
        )
        if not results:
            return [Message(role, parts, raw={"role": role, "content": content}, source=Source(line=line))]
        assert isinstance(content, list)
        out: list[Message] = []
        for piece in written_order(content, parts, results):
            if isinstance(piece, Message):
                out.append(piece)
                continue
            run, where = piece
            source = Source(line=line, pointer=_blocks_pointer(where), pieces=tuple((line, k) for k in where))
            out.append(Message(role, run, raw={"role": role, "content": [content[k] for k in where]}, source=source))
        return out

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        """Never: suture writes a session only back over the one it was read from
        (``suture.writeback``); the history exports as its provider's request body."""
        from suture.formats import written_back_said

        raise InputError(written_back_said(self.name))

    def about(self, doc: Document) -> About:
        """The working folder and session id Claude Code puts on its event lines."""
        cwd, session = first_text(_records(doc), "cwd", "sessionId")
        return About(cwd, session)


def _blocks_pointer(where: list[int]) -> str:
    if len(where) == 1:
        return f"message.content[{where[0]}]"
    return f"message.content[{where[0]}..{where[-1]}]"


ADAPTER = ClaudeCodeAdapter()
