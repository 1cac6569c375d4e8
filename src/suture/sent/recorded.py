"""The requests Claude Code recorded in its own session file, rebuilt exactly.

Claude Code (2.1.328 and 2.1.332 recorded) writes every request it sends into the session file:

- an ``api-request`` line per request: ``id``, ``timestamp``, ``version``, ``params`` (model,
  betas, max_tokens, thinking, ...), ``shapeHash``, ``base`` (the request it continues) and
  ``keep`` (how many of that request's messages it keeps), ``tail`` (the hashes of the messages
  that follow them) and ``cacheControl`` (where ``cache_control`` markers go);
- ``api-request-shape`` lines hold ``system`` and ``tools`` under their ``shapeHash``;
- ``api-request-blob`` lines hold a message under its ``hash``.

A message's hash is the SHA-256 of the message as sent (without ``cache_control``, and a lone
text block as a list) written as compact JSON with sorted keys. A message that is also a line of the file (a user or assistant
record) has no blob: it is found by hashing that record. What is left are messages Claude Code
made from several records (the lines of one response, consecutive user records, the results
it inserts on resume): those are found by hashing what suture's model of Claude Code
(``suture.sent.claude_code``) says it sends. So every hash that resolves confirms the model, and
one that resolves to nothing is named (:attr:`RecordedRequest.unresolved`), never passed over.

The system prompt is rebuilt as the shape line records it: Claude Code also puts its
attribution header (``x-anthropic-billing-header: cc_version=…``, made per request) in front of
it when it sends, which the file does not record.

The request behind an API error the file records (a ``system`` ``api_error`` line, or the
``isApiErrorMessage`` record Claude Code writes when it gives up) is the last request before it.

The API (pure apart from :func:`read`, which reads a file)::

    from suture.sent.recorded import read, recorded_requests, request_behind

    requests = recorded_requests(doc.records)       # or read(path)
    r = requests[-1]
    r.body()                                        # the request as sent: params, system, tools, messages
    r.messages, r.found                             # each message and how it was found ("blob", "record", "sent")
    r.lines                                         # the line of each message found as a record
    r.unresolved                                    # [Unresolved(position, hash)]: named, not passed over
    r.error                                         # (Source, text) of the API error that followed it
    r.described(), r.named(error_text)              # in words; the message an error names by index
    r.problems()                                    # suture's Anthropic check of the request
    request_behind(requests, line)                  # the request behind the error recorded at ``line``
    behind_in(path, line)                           # the same, read from a file
    recorded_in(path, transcript)                   # every request a session file records ([] where none)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from suture.model import Message, Source, Transcript
from suture.words import count

__all__ = [
    "RecordedRequest",
    "Unresolved",
    "behind_in",
    "message_hash",
    "message_words",
    "read",
    "recorded_in",
    "recorded_requests",
    "request_behind",
]


def message_hash(message: Any) -> str:
    """The hash Claude Code records for a message: SHA-256 of its compact, key-sorted JSON."""
    return hashlib.sha256(orjson.dumps(message, option=orjson.OPT_SORT_KEYS)).hexdigest()


@dataclass(frozen=True, slots=True)
class Unresolved:
    """A message of a recorded request that suture could not rebuild: its place and hash."""

    position: int
    hash: str

    def __str__(self) -> str:
        return f"messages.{self.position} (hash {self.hash[:12]}…)"


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request Claude Code recorded (see the module docstring)."""

    id: str
    line: int
    timestamp: str | None
    version: str | None
    params: dict[str, Any]
    system: Any
    tools: Any
    messages: list[Any]
    """The request's messages; ``None`` where a hash could not be resolved."""
    found: list[str]
    """How each message was found: ``blob``, ``record`` (a line of the file), ``sent`` (suture's
    model of what Claude Code sends) or ``unresolved``."""
    unresolved: list[Unresolved] = field(default_factory=list)
    cache_control: list[Any] = field(default_factory=list)
    shape: bool = True
    """Whether the ``api-request-shape`` line with its system and tools was found."""
    error: tuple[Source, str] | None = None
    """The API error recorded right after this request, where there is one."""
    lines: list[int | None] = field(default_factory=list)
    """For each message found as a record (``record``), the line of the file it is; else ``None``."""

    @property
    def complete(self) -> bool:
        return not self.unresolved and self.shape

    def body(self) -> dict[str, Any]:
        """The request as Claude Code sent it: its parameters, system prompt, tools and messages
        with their ``cache_control`` markers (an unresolved message is ``null``)."""
        body: dict[str, Any] = dict(self.params)
        if self.system is not None:
            body["system"] = _copy(self.system)
        if self.tools is not None:
            body["tools"] = _copy(self.tools)
        body["messages"] = [_copy(m) for m in self.messages]
        for mark in self.cache_control:
            if isinstance(mark, dict):
                _put(body, mark.get("path"), mark.get("value"))
        for message in body["messages"]:
            _collapse(message)
        return body

    @property
    def rebuilt(self) -> str:
        """Whether every message was rebuilt from the file, in words."""
        if not self.unresolved:
            return "every message rebuilt from the file"
        return "not rebuilt: " + ", ".join(str(u) for u in self.unresolved[:3])

    def described(self) -> str:
        """``recorded at line 39, sent 2026-12-03T00:54:59.158Z: 7 messages, 21 tools; every
        message rebuilt from the file``: what ``suture explain`` and the app say of it."""
        tools = len(self.tools) if isinstance(self.tools, list) else 0
        when = f", sent {self.timestamp}" if self.timestamp else ""
        n = len(self.messages)
        return f"recorded at line {self.line}{when}: {count(n, 'message')}, {count(tools, 'tool')}; {self.rebuilt}"

    def named(self, error: str) -> tuple[int, Any] | None:
        """The message of this request that ``error`` (a provider's error text) names by its
        index (``messages.3``), and that index; ``None`` where it names none of them."""
        from suture.checks.explain import recognise

        found = recognise(error)
        index = found[0].index if found else None
        if index is None or not 0 <= index < len(self.messages):
            return None
        return index, self.messages[index]

    def problems(self) -> list[Any]:
        """What suture's Anthropic check finds in this request (``suture.checks`` violations)."""
        from suture.checks import check

        return check(self.neutral(), "anthropic")

    def neutral(self) -> list[Message]:
        """The request's messages as neutral messages (what ``suture.checks`` reads); its system
        prompt first. An unresolved message is left out."""
        from suture.formats import get
        from suture.io import Document

        body = self.body()
        value: dict[str, Any] = {"messages": [m for m in body["messages"] if isinstance(m, dict)]}
        if self.system is not None:
            value["system"] = body["system"]
        return list(get("messages").load(Document("json", value=value)).messages)


def message_words(message: Any) -> str:
    """A request message in one line: ``user: text 'Note added by hand.', tool_result toolu_…``
    (text quoted through :func:`suture.show.prose`, ids through :func:`suture.show.line`)."""
    from suture import show

    if not isinstance(message, dict):
        return "(not rebuilt)"
    content = message.get("content")
    role = show.line(str(message.get("role")))
    if isinstance(content, str):
        return f"{role}: {show.prose(content)[:60]!r}"
    return f"{role}: " + ", ".join(_block_words(b) for b in content or [])


def _block_words(block: Any) -> str:
    from suture import show

    if not isinstance(block, dict):
        return "?"
    kind = show.line(str(block.get("type")))
    if kind in ("tool_use", "tool_result"):
        return f"{kind} {show.line(str(block.get('id') or block.get('tool_use_id') or '(no id)'))}"
    if kind == "text":
        return f"text {show.prose(str(block.get('text') or ''))[:40]!r}"
    return kind


def _collapse(message: Any) -> None:
    """A user or system message of one plain text block (no ``cache_control`` on it) goes out
    as a string: what the recorded requests show Claude Code sending for such a message."""
    if not isinstance(message, dict) or message.get("role") not in ("user", "system"):
        return
    content = message.get("content")
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        block = content[0]
        if set(block) == {"type", "text"} and block["type"] == "text" and isinstance(block["text"], str):
            message["content"] = block["text"]


def _copy(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value)) if value is not None else None


def _put(body: dict[str, Any], path: Any, value: Any) -> None:
    """Set ``cache_control`` on the block at ``path`` (a list of keys), where there is one."""
    if not isinstance(path, list) or not path:
        return
    holder: Any = body
    for key in path:
        in_dict = isinstance(holder, dict) and isinstance(key, str) and key in holder
        in_list = isinstance(holder, list) and isinstance(key, int) and 0 <= key < len(holder)
        if in_dict or in_list:
            holder = holder[key]
        elif isinstance(holder, dict) and key == "content" and isinstance(holder.get("content"), str):
            holder["content"] = [{"type": "text", "text": holder["content"]}]
            holder = holder["content"]
        else:
            return
    if isinstance(holder, dict):
        holder["cache_control"] = value


def _kind(record: Any) -> str | None:
    kind = record.get("type") if isinstance(record, dict) else None
    return kind if isinstance(kind, str) else None


def _candidates(
    records: Sequence[tuple[int, Any]],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, int]]:
    """Hash -> message, from the blobs, the file's records, and suture's model of what Claude
    Code sends (every message it makes from several records, and the history it sends now); and
    hash -> the line of each record."""
    blobs: dict[str, Any] = {}
    lines: dict[str, Any] = {}
    line_of: dict[str, int] = {}
    for line, record in records:
        kind = _kind(record)
        if kind == "api-request-blob" and isinstance(record.get("hash"), str):
            blobs[record["hash"]] = record.get("message")
        elif kind in ("user", "assistant") and isinstance(record.get("message"), dict):
            message = record["message"]
            role, content = message.get("role"), message.get("content")
            digest = message_hash({"role": role, "content": content})
            lines[digest] = {"role": role, "content": content}
            line_of[digest] = line
            if isinstance(content, str):
                # Sent as one text block when a cache_control marker goes on it.
                listed = {"role": role, "content": [{"type": "text", "text": content}]}
                digest = message_hash(listed)
                if digest not in lines:
                    lines[digest] = listed
                    line_of[digest] = line
    return blobs, lines, _modelled(records), line_of


def _modelled(records: Sequence[tuple[int, Any]]) -> dict[str, Any]:
    from suture.formats import get
    from suture.io import Document, InputError
    from suture.sent.claude_code import merges

    try:
        transcript = get("claude-code").load(Document("jsonl", records=list(records)))
    except InputError:
        return {}  # a file the loader rejects: nothing is modelled, every merged hash stays unresolved
    found: dict[str, Any] = {}
    for message in merges(transcript):
        found.setdefault(message_hash(message), message)
    return found


def recorded_requests(records: Sequence[tuple[int, Any]]) -> list[RecordedRequest]:
    """Every request a Claude Code session file records, in order, rebuilt (``records`` are a
    JSONL document's ``(line, value)`` pairs). An empty list for a file with none."""
    if not any(_kind(r) == "api-request" for _, r in records):
        return []
    shapes = {
        r["shapeHash"]: r.get("shape")
        for _, r in records
        if _kind(r) == "api-request-shape" and isinstance(r.get("shapeHash"), str)
    }
    blobs, lines, modelled, line_of = _candidates(records)
    by_id: dict[str, RecordedRequest] = {}
    out: list[RecordedRequest] = []
    errors = _errors(records)
    for n, (line, record) in enumerate(records):
        if _kind(record) != "api-request":
            continue
        base = by_id.get(record.get("base")) if isinstance(record.get("base"), str) else None
        keep = record.get("keep") if isinstance(record.get("keep"), int) else 0
        messages: list[Any] = list(base.messages[:keep]) if base is not None else []
        found: list[str] = list(base.found[:keep]) if base is not None else []
        at: list[int | None] = list(base.lines[:keep]) if base is not None else []
        unresolved = [u for u in base.unresolved if u.position < keep] if base is not None else []
        if base is None and keep:
            for position in range(keep):
                messages.append(None)
                found.append("unresolved")
                at.append(None)
                unresolved.append(Unresolved(position, "(the request it continues is not in the file)"))
        for digest in record.get("tail") if isinstance(record.get("tail"), list) else []:
            position = len(messages)
            for how, table in (("blob", blobs), ("record", lines), ("sent", modelled)):
                if digest in table:
                    messages.append(table[digest])
                    found.append(how)
                    at.append(line_of.get(digest) if how == "record" else None)
                    break
            else:
                messages.append(None)
                found.append("unresolved")
                at.append(None)
                unresolved.append(Unresolved(position, str(digest)))
        shape_hash = record.get("shapeHash")
        shape = shapes.get(shape_hash) if isinstance(shape_hash, str) else None
        params = record.get("params") if isinstance(record.get("params"), dict) else {}
        request = RecordedRequest(
            id=str(record.get("id")),
            line=line,
            timestamp=record.get("timestamp") if isinstance(record.get("timestamp"), str) else None,
            version=record.get("version") if isinstance(record.get("version"), str) else None,
            params=dict(params),
            system=shape.get("system") if isinstance(shape, dict) else None,
            tools=shape.get("tools") if isinstance(shape, dict) else None,
            messages=messages,
            found=found,
            unresolved=unresolved,
            cache_control=list(record.get("cacheControl") or []),
            shape=isinstance(shape, dict),
            error=_first_after(errors, n, records),
            lines=at,
        )
        by_id[request.id] = request
        out.append(request)
    return out


def _errors(records: Sequence[tuple[int, Any]]) -> list[tuple[int, tuple[Source, str]]]:
    """(position, (where, text)) of every API error the file records."""
    from suture.formats.claude_code import error_text, is_api_error

    return [
        (n, (Source(line=line), error_text(record)))
        for n, (line, record) in enumerate(records)
        if isinstance(record, dict) and is_api_error(record)
    ]


def _first_after(
    errors: list[tuple[int, tuple[Source, str]]], n: int, records: Sequence[tuple[int, Any]]
) -> tuple[Source, str] | None:
    """The first API error after record ``n`` and before the next request, if any."""
    for position, error in errors:
        if position <= n:
            continue
        if any(_kind(r) == "api-request" for _, r in records[n + 1 : position]):
            return None
        return error
    return None


def request_behind(requests: Iterable[RecordedRequest], line: int) -> RecordedRequest | None:
    """The request behind the API error recorded at ``line``: the last request before it."""
    behind = None
    for request in requests:
        if request.line < line:
            behind = request
    return behind


def recorded_in(path: str | os.PathLike[str], transcript: Transcript | None = None) -> list[RecordedRequest]:
    """The requests the session file at ``path`` records, rebuilt (:func:`read`); none where it
    records none, is not a regular file (a pipe cannot be read a second time), cannot be read
    now, or (``transcript``, what was read from it) is not an agent's session log."""
    from suture.io import InputError
    from suture.sent import models

    if transcript is not None and transcript.format not in models():
        return []
    if not os.path.isfile(path):
        return []
    try:
        return read(path)
    except InputError:
        return []


def behind_in(path: str | os.PathLike[str], line: int | None) -> RecordedRequest | None:
    """The request behind the API error recorded at ``line`` of the file at ``path``, rebuilt;
    ``None`` where the file records no request before it (:func:`recorded_in`)."""
    if line is None:
        return None
    return request_behind(recorded_in(path), line)


def read(path: str | os.PathLike[str]) -> list[RecordedRequest]:
    """The requests a Claude Code session file records (an InputError when it cannot be read)."""
    from suture.io import parse_document, read_input

    doc = parse_document(read_input(path))
    return recorded_requests(doc.records if doc.kind == "jsonl" else [(1, doc.value)])
