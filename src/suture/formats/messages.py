"""Anthropic Messages: a JSON array of messages, a request body, or JSONL (one message a line,
written over the file's own bytes, :meth:`MessagesAdapter.edit`: a line the repair left alone
stays as it was).

A request body keeps every key (``model``, ``tools``, ``max_tokens``, ...) and writes them back;
its top-level ``system`` becomes a neutral ``system`` message at the front, written back as the
top-level ``system``. Roles are ``user`` and ``assistant`` only, content is a string or a list of
blocks (shapes from anthropics/anthropic-sdk-python ``src/anthropic/types/``):

- ``tool_use`` blocks of an assistant message are its calls (``arguments`` = ``input``);
- a user message's blocks keep their written order: each ``tool_result`` block becomes a neutral
  ``tool`` message, and each run of other blocks (text, images) between them a user message, so
  ``[text, tool_result]`` reads as a user message and then the result (which Anthropic rejects:
  rule A1a), never silently as the valid ``[tool_result, text]``;
- ``thinking`` and ``redacted_thinking`` blocks are kept byte-exact (the provider verifies their
  signature), as :class:`ThinkingPart` and :class:`OtherPart` with the block as ``raw``.

Writing back, the pieces of one record that still follow each other are that record again, in
their order; and results lead the user message that follows the assistant: consecutive tool
messages, and a user message right after them that came from the same record (or that repair
made, a note), are one user message whose ``tool_result`` blocks come first. Anthropic requires it: "Each
`tool_use` block must have a corresponding `tool_result` block in the next message", and results
must be the leading blocks of that message (rules A1 and A1a of ``suture.checks.rules``; probed in
V1ki/dsh-plugin-subscriptions#22). A record nothing changed is written back as it was read, so a
history that needs no repair dumps to the same JSON value.
"""

from __future__ import annotations

import binascii
from collections.abc import Sequence
from typing import Any

import orjson

from suture import codec
from suture.formats import CERTAIN, LIKELY, PLAUSIBLE, FormatError
from suture.formats._shared import Row, body_api, edit_lines, image_size, message_records, type_name, written_over
from suture.io import Document, InputError
from suture.model import (
    Content,
    ImagePart,
    Message,
    OtherPart,
    Part,
    Source,
    TextPart,
    ThinkingPart,
    ToolCall,
    Transcript,
)

__all__ = ["ADAPTER", "blocks_of", "parse_blocks", "type_name", "written_order"]

_ROLES = frozenset({"user", "assistant"})
# Record keys and block types that only other formats write: seeing one means this is not Anthropic.
# (`name`: OpenAI Chat's author name; an Anthropic message holds only its role and content.)
_FOREIGN_KEYS = frozenset(
    {"tool_calls", "tool_call_id", "function_call", "name", "parts", "toolCallId", "toolName", "stopReason", "call_id"}
)
_FOREIGN_BLOCKS = frozenset(
    {
        "image_url",
        "input_text",
        "output_text",
        "input_image",
        "input_file",
        "refusal",
        "tool-call",
        "tool-result",
        "toolCall",
        "reasoning",
        "file",
        "function_call",
        "function_call_output",
    }
)
# Block types only Anthropic writes.
_DECISIVE_BLOCKS = frozenset(
    {
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "document",
        "search_result",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
    }
)
# Blocks a user or assistant message may hold as they are, whoever loaded them.
_ANTHROPIC_BLOCKS = _DECISIVE_BLOCKS | {"text", "image"}


def _kind(block: dict[str, Any]) -> str | None:
    """A block's ``type`` where it is a string (anything else is no type at all)."""
    kind = block.get("type")
    return kind if isinstance(kind, str) else None


# -- blocks -> neutral ------------------------------------------------------------------------


def _part(block: dict[str, Any]) -> Part:
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return TextPart(block["text"], block)
    if kind == "image":
        source = block.get("source")
        media = data = url = None
        if isinstance(source, dict):
            media = source.get("media_type") if isinstance(source.get("media_type"), str) else None
            data = source.get("data") if isinstance(source.get("data"), str) else None
            url = source.get("url") if isinstance(source.get("url"), str) else None
        return ImagePart(block, media, image_size(data), data=data, url=url)
    if kind == "thinking":
        text = block.get("thinking")
        signature = block.get("signature")
        return ThinkingPart(
            text if isinstance(text, str) else "", block, signature=signature if isinstance(signature, str) else None
        )
    return OtherPart(block, str(kind) if kind is not None else "block")


def _result_content(value: Any, where: str) -> Content:
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise FormatError(f"{where}.content", f"must be a string or a list of blocks, got {type_name(value)}")
    parts: list[Part] = []
    for k, block in enumerate(value):
        if not isinstance(block, dict):
            raise FormatError(f"{where}.content[{k}]", f"a content block must be an object, got {type_name(block)}")
        parts.append(_part(block))
    return parts


def parse_blocks(
    role: str, content: Any, where: str, block_source: Any
) -> tuple[Content, tuple[ToolCall, ...], list[Message]]:
    """The neutral content, calls and results of one message's ``content``.

    ``block_source(k)`` gives the :class:`Source` of block ``k`` (a result message's). Results
    come back as tool messages in block order; the caller places them before the rest.
    """
    if content is None or isinstance(content, str):
        return content, (), []
    if not isinstance(content, list):
        raise FormatError(f"{where}.content", f"must be a string or a list of blocks, got {type_name(content)}")
    parts: list[Part] = []
    calls: list[ToolCall] = []
    results: list[Message] = []
    for k, block in enumerate(content):
        here = f"{where}.content[{k}]"
        if not isinstance(block, dict):
            raise FormatError(here, f"a content block must be an object, got {type_name(block)}")
        kind = block.get("type")
        if kind == "tool_use" and role == "assistant":
            call_id = block.get("id")
            if call_id is not None and not isinstance(call_id, str):
                raise FormatError(f"{here}.id", f"must be a string, got {type_name(call_id)}")
            name = block.get("name")
            if name is not None and not isinstance(name, str):
                raise FormatError(f"{here}.name", f"must be a string, got {type_name(name)}")
            calls.append(ToolCall(call_id or "", name, block.get("input"), block))
        elif kind == "tool_result" and role != "assistant":
            use_id = block.get("tool_use_id")
            if use_id is not None and not isinstance(use_id, str):
                raise FormatError(f"{here}.tool_use_id", f"must be a string, got {type_name(use_id)}")
            is_error = block.get("is_error")
            if is_error is not None and not isinstance(is_error, bool):
                raise FormatError(f"{here}.is_error", f"must be true or false, got {type_name(is_error)}")
            results.append(
                Message(
                    role="tool",
                    content=_result_content(block.get("content"), here),
                    tool_call_id=use_id or "",
                    is_error=is_error,
                    raw=block,
                    source=block_source(k),
                )
            )
        else:
            parts.append(_part(block))
    return parts, tuple(calls), results


def written_order(content: Any, parts: Content, results: list[Message]) -> list[Message | tuple[list[Part], list[int]]]:
    """The pieces of a user-side message in the order they are written: each result (a tool
    message from :func:`parse_blocks`), and each run of other blocks between results as its
    parts and their block indices. ``parts`` and ``results`` are what :func:`parse_blocks` gave
    for that ``content``."""
    if not results or not isinstance(content, list) or not isinstance(parts, list):
        return [(parts if isinstance(parts, list) else [], list(range(len(parts) if isinstance(parts, list) else 0)))]
    out: list[Message | tuple[list[Part], list[int]]] = []
    run: list[Part] = []
    where: list[int] = []
    taken_parts = taken_results = 0
    for k, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            if run:
                out.append((run, where))
                run, where = [], []
            out.append(results[taken_results])
            taken_results += 1
        else:
            run.append(parts[taken_parts])
            where.append(k)
            taken_parts += 1
    if run:
        out.append((run, where))
    return out


# -- neutral -> blocks ------------------------------------------------------------------------


def _cannot(what: str, index: int) -> InputError:
    return InputError(f"Anthropic Messages cannot express {what} (message {index})")


def _image_payload(part: ImagePart) -> tuple[str | None, str | None, str | None]:
    """(media type, base64 data, url) of an image part, whichever format loaded it."""
    if part.data or part.url:
        return part.media_type, part.data, part.url
    raw = part.raw
    media = part.media_type
    if isinstance(raw, dict):
        holder = raw.get("image_url") or raw.get("inlineData") or raw.get("source") or raw
        url = holder.get("url") if isinstance(holder, dict) else holder
        data = holder.get("data") if isinstance(holder, dict) else None
        if isinstance(holder, dict):
            found = holder.get("mimeType") or holder.get("media_type") or holder.get("mediaType")
            media = found if isinstance(found, str) else media
        if not isinstance(data, str) and isinstance(raw.get("image"), str):
            data = raw["image"]
            found = raw.get("mediaType") or raw.get("mimeType")
            media = found if isinstance(found, str) else media
            if ":" in data[:10]:
                url, data = data, None
        if isinstance(data, str):
            return media, data, None
        if isinstance(url, str):
            if url.startswith("data:") and ";base64," in url[:100]:
                head, _, payload = url.partition(";base64,")
                return head[5:] or media, payload, None
            return media, None, url
    return media, None, None


def _image_block(part: ImagePart, index: int) -> dict[str, Any]:
    raw = part.raw
    if isinstance(raw, dict) and raw.get("type") == "image" and isinstance(raw.get("source"), dict):
        return raw
    media, data, url = _image_payload(part)
    if data is not None:
        try:
            binascii.a2b_base64(data[:64])
        except binascii.Error:
            raise _cannot("an image whose data is not base64", index) from None
        return {"type": "image", "source": {"type": "base64", "media_type": media or "image/png", "data": data}}
    if url:
        return {"type": "image", "source": {"type": "url", "url": url}}
    raise _cannot("an image with neither data nor a URL", index)


def _block(part: Part, own: bool, index: int) -> dict[str, Any]:
    raw = part.raw
    if own and isinstance(raw, dict):
        return raw
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        return _image_block(part, index)
    if isinstance(part, ThinkingPart):
        if isinstance(raw, dict) and raw.get("type") == "thinking" and isinstance(raw.get("signature"), str):
            return raw
        if part.signature:
            return {"type": "thinking", "thinking": part.text, "signature": part.signature}
        raise _cannot("thinking without a signature", index)
    if isinstance(raw, dict) and _kind(raw) in _ANTHROPIC_BLOCKS:
        return raw
    raise _cannot(f"a {part.kind} part", index)


def _blocks(content: Content, own: bool, index: int) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [_block(p, own, index) for p in content]


def blocks_of(content: Content, index: int) -> list[dict[str, Any]]:
    """Neutral content as Anthropic content blocks, each part read from this format as the block
    it was (``index``: the message's, for an error that names it)."""
    return _blocks(content, True, index)


def _input(call: ToolCall, index: int) -> Any:
    args = call.arguments
    if args is None:
        return {}
    if isinstance(args, str):
        try:
            args = codec.loads(args)
        except orjson.JSONDecodeError:
            raise _cannot(f"the arguments of call {call.id or '(no id)'}: they are not valid JSON", index) from None
    if not isinstance(args, dict):
        raise _cannot(f"the arguments of call {call.id or '(no id)'}: they are not a JSON object", index)
    return args


class _Records:
    """Which original record each block and record object came from (by identity)."""

    __slots__ = ("of", "records")

    def __init__(self, records: Any) -> None:
        self.records: list[Any] = records if isinstance(records, list) else []
        self.of: dict[int, int] = {}
        for i, record in enumerate(self.records):
            self.of[id(record)] = i
            content = record.get("content") if isinstance(record, dict) else None
            if isinstance(content, list):
                for block in content:
                    self.of[id(block)] = i

    def index(self, obj: Any) -> int | None:
        return self.of.get(id(obj)) if obj is not None else None


class MessagesAdapter:
    name = "messages"
    title = "Anthropic Messages (JSON array, request body with system, or JSONL)"
    order = 20
    export_format = "messages"
    provider = "anthropic"
    """The provider (a ``suture.checks`` name) whose API these records are written for."""

    # -- detection ---------------------------------------------------------------------------

    def sniff(self, doc: Document) -> int:
        if doc.kind == "jsonl":
            # Not built into a list: a session log's many lines are looked at only until they
            # show they are no messages (a live view re-detects on every append).
            found: tuple[Any, str] | None = ((v for _, v in doc.records), "jsonl") if doc.records else ([], "jsonl")
        else:
            found = message_records(doc)
        if found is None:
            return 0
        records, shape = found
        score = 0
        if shape == "body":
            body = doc.value
            if "contents" in body or "input" in body:
                return 0
            # A top-level system prompt (or another key only Anthropic takes), or none and no
            # messages: Anthropic's request shape; a key only OpenAI Chat takes: not Anthropic's.
            api = body_api(body)
            if api == "chat":
                return 0
            score = LIKELY if api == "messages" else PLAUSIBLE if not records else 0
        elif not records:
            score = PLAUSIBLE
        # The first record that tells formats apart decides, however deep in the file it is;
        # a file whose first records have no role at all is no list of messages.
        roleless = 0
        for record in records:
            if not isinstance(record, dict):
                continue
            role = record.get("role")
            if role is None and score < PLAUSIBLE:
                roleless += 1
                if roleless >= 50:
                    return 0
            if _FOREIGN_KEYS & record.keys() or (isinstance(role, str) and role not in _ROLES):
                return 0
            if not isinstance(role, str):
                continue
            score = max(score, PLAUSIBLE)
            content = record.get("content")
            if not isinstance(content, list):
                continue
            decisive = False
            for block in content:
                if not isinstance(block, dict):
                    continue
                kind = _kind(block)
                if kind in _FOREIGN_BLOCKS or (kind == "image" and "source" not in block):
                    return 0
                decisive = decisive or kind in _DECISIVE_BLOCKS or kind == "image"
            if decisive:
                return CERTAIN
        return score

    # -- loading -----------------------------------------------------------------------------

    def load(self, doc: Document) -> Transcript:
        found = message_records(doc)
        if found is None:
            raise FormatError("", "not Anthropic messages: expected a list of messages or an object with messages")
        records, shape = found
        messages: list[Message] = []
        meta: dict[str, Any] = {"shape": shape, "pretty": doc.pretty, "records": records}
        if doc.kind == "jsonl":
            meta["lines"] = [line for line, _ in doc.records]  # where each record is, for edit
        elif shape == "jsonl":
            meta["lone"] = True  # one message as one JSON document: no lines to write over
        if shape == "body":
            body = doc.value
            meta["body"] = body
            if "system" in body:
                messages.append(self._system(body["system"]))
        if doc.kind == "jsonl":
            for line, record in doc.records:
                messages.extend(self._message(record, line, None, f"line {line}"))
        else:
            prefix = "messages" if shape == "body" else "$"
            for i, record in enumerate(records):
                where = f"{prefix}[{i}]"
                messages.extend(self._message(record, None, where, where))
        return Transcript(messages, self.name, meta=meta, problems=list(doc.problems))

    def history(self, records: Sequence[Any], first: int = 0) -> list[Message]:
        """The messages of the message records that sit from place ``first`` on in a list, as
        :meth:`load` reads them from that list (each named ``$[n]`` by its place in it)."""
        out: list[Message] = []
        for k, record in enumerate(records):
            where = f"$[{first + k}]"
            out.extend(self._message(record, None, where, where))
        return out

    def _system(self, value: Any) -> Message:
        source = Source(pointer="system")
        if isinstance(value, str) or value is None:
            return Message("system", value, raw=value, source=source)
        if not isinstance(value, list):
            raise FormatError("system", f"must be a string or a list of text blocks, got {type_name(value)}")
        parts: list[Part] = []
        for k, block in enumerate(value):
            if not isinstance(block, dict):
                raise FormatError(f"system[{k}]", f"a block must be an object, got {type_name(block)}")
            parts.append(_part(block))
        return Message("system", parts, raw=value, source=source)

    def _message(self, record: Any, line: int | None, pointer: str | None, where: str) -> list[Message]:
        if not isinstance(record, dict):
            raise FormatError(where, f"a message must be an object, got {type_name(record)}")
        role = record.get("role")
        if not isinstance(role, str):
            raise FormatError(
                where, "message has no role" if role is None else f"role must be a string, got {type_name(role)}"
            )
        if line is None:

            def block_source(k: int) -> Source:
                return Source(pointer=f"{pointer}.content[{k}]")
        else:

            def block_source(k: int) -> Source:
                return Source(line=line, pointer=f"content[{k}]")

        content, calls, results = parse_blocks(role, record.get("content"), where, block_source)
        source = Source(line=line, pointer=pointer)
        if not results:
            return [Message(role, content, calls, raw=record, source=source)]
        return [
            piece if isinstance(piece, Message) else Message(role, piece[0], raw=record, source=source)
            for piece in written_order(record.get("content"), content, results)
        ]

    # -- dumping -----------------------------------------------------------------------------

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        own = transcript.raw_is(self.name)
        meta = transcript.meta if own and transcript.format == self.name else {}
        rows, system = self._rows(messages, own, meta)
        return self._document([record for _, _, record in rows], system, meta, own)

    def edit(self, data: bytes, messages: Sequence[Message], transcript: Transcript) -> bytes:
        """Bytes of ``messages`` written over ``data``, the bytes ``transcript`` was read from. In
        JSONL, a record the repair left alone is its line as it was, byte for byte, a record it
        changed keeps every byte outside the values it changed, and blank lines stay
        (:func:`~suture.formats._shared.edit_lines`), as in chat JSONL. Other shapes, and a
        history with a system prompt (which JSONL has no place for), are written as :meth:`dump`
        writes them."""
        if not written_over(transcript, self.name):
            return self.dump(messages, transcript)
        rows, system = self._rows(messages, True, transcript.meta)
        if system:
            return self.dump(messages, transcript)
        return edit_lines(data, rows)

    def _rows(self, messages: Sequence[Message], own: bool, meta: dict[str, Any]) -> tuple[list[Row], list[Message]]:
        """The records ``messages`` are written as, each with the input line and record it was
        read from (:data:`~suture.formats._shared.Row`; that line where the file is JSONL), and
        the system messages that lead the history."""
        known = _Records(meta.get("records"))
        lines: list[int] = meta.get("lines") or []
        start = 0
        system: list[Message] = []
        while start < len(messages) and messages[start].role == "system":
            system.append(messages[start])
            start += 1

        out: list[Row] = []

        def add(origin: Any, record: Any) -> None:
            i = known.index(origin)
            out.append((lines[i] if i is not None and i < len(lines) else None, origin, record))

        # The pieces of the user message being built: (message, its blocks, its index).
        group: list[tuple[Message, list[dict[str, Any]], int]] = []
        for index in range(start, len(messages)):
            m = messages[index]
            if m.role == "system":
                raise _cannot("a system message after the conversation has started", index)
            if m.role == "assistant":
                if group:
                    add(*self._user_record(group, known, own))
                    group = []
                add(*self._assistant(m, own, index))
                continue
            mine = known.index(m.raw)
            if group:
                theirs = {known.index(g.raw) for g, _, _ in group}
                # Pieces of one record that follow each other are that record again.
                joins = own and mine is not None and theirs == {mine}
                if not joins and all(g.role == "tool" for g, _, _ in group):
                    if m.role == "tool":
                        joins = True  # a run of results is one user message
                    else:
                        # The user message right after results joins them, unless it was a
                        # record of its own beside theirs in the file (then it stays one, as
                        # read); one with nothing to add would vanish inside their message.
                        theirs -= {None}
                        joins = (not own or mine is None or not theirs or mine in theirs) and bool(m.content)
                if not joins:
                    add(*self._user_record(group, known, own))
                    group = []
            if m.role == "tool":
                group.append((m, [self._result_block(m, own, index)], index))
            else:
                group.append((m, self._user_blocks(m, own, index), index))
        if group:
            add(*self._user_record(group, known, own))
        return out, system

    def _user_record(
        self, group: list[tuple[Message, list[dict[str, Any]], int]], known: _Records, own: bool
    ) -> tuple[Any, Any]:
        """The user message the pieces of ``group`` make: (message, its blocks, its index); and
        the record it was read from (``None``: a record the file does not have)."""
        if len(group) == 1 and group[0][0].role != "tool":
            m, _, index = group[0]
            return self._user(m, own, index)
        blocks = [b for _, bs, _ in group for b in bs]
        # The record the pieces came from, where they all came from one (a synthetic result
        # joins its turn's record): its other keys are kept, and if nothing changed, all of it.
        found = {known.index(m.raw) for m, _, _ in group} - {None}
        only = next(iter(found)) if len(found) == 1 else None
        record = known.records[only] if only is not None else None
        if not isinstance(record, dict):
            return None, {"role": "user", "content": blocks}
        same = record.get("content")
        # Every block of the record, unchanged and in its order, is the record itself,
        # so a history that needs no repair dumps as read.
        if isinstance(same, list) and [id(b) for b in same] == [id(b) for b in blocks]:
            return record, record
        return record, {**record, "content": blocks}

    def _document(self, out: list[Any], system: list[Message], meta: dict[str, Any], own: bool) -> bytes:
        """The file: the records as JSONL, an array, or a request body with the system prompt."""
        shape = meta.get("shape", "array")
        system_value = self._system_out(system, own) if system else None
        if shape == "jsonl" and system:
            shape = "body"  # JSONL has no place for a system prompt
        if shape == "jsonl":
            return b"".join(codec.dumps(r) + b"\n" for r in out)
        value: Any = out
        if shape == "body" or system:
            body = dict(meta.get("body") or {}) if shape == "body" else {}
            if system:
                body["system"] = system_value
            else:
                body.pop("system", None)
            body["messages"] = out
            value = body
        pretty = meta.get("pretty", True) if meta else True
        option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if pretty else 0)
        return codec.dumps(value, option=option)

    def _system_out(self, system: list[Message], own: bool) -> Any:
        if len(system) == 1 and own and (system[0].raw is not None or system[0].content is None):
            return system[0].raw
        if all(isinstance(m.content, str) or m.content is None for m in system):
            return "\n\n".join(m.content for m in system if isinstance(m.content, str))
        blocks: list[dict[str, Any]] = []
        for index, m in enumerate(system):
            for block in _blocks(m.content, own, index):
                if block.get("type") != "text":
                    raise _cannot(f"a {block.get('type')} block in the system prompt", index)
                blocks.append(block)
        return blocks

    def _result_block(self, m: Message, own: bool, index: int) -> dict[str, Any]:
        raw = m.raw
        if own and isinstance(raw, dict) and raw.get("type") == "tool_result":
            if (raw.get("tool_use_id") or "") != m.tool_call_id:
                return {**raw, "tool_use_id": m.tool_call_id}
            return raw
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.tool_call_id}
        if isinstance(m.content, str):
            block["content"] = m.content
        elif m.content is not None:
            block["content"] = _blocks(m.content, own, index)
        if m.is_error:
            block["is_error"] = True
        return block

    def _user_blocks(self, m: Message, own: bool, index: int) -> list[dict[str, Any]]:
        return _blocks(m.content, own, index)

    def _user(self, m: Message, own: bool, index: int) -> tuple[Any, Any]:
        """A user message's record, and the record it was read from (``None``: none)."""
        raw = m.raw
        if own and isinstance(raw, dict) and "content" in raw:
            content = raw.get("content")
            if m.content is content:
                return raw, raw
            if isinstance(m.content, list) and isinstance(content, list):
                blocks = _blocks(m.content, own, index)
                if len(blocks) == len(content) and all(a is b for a, b in zip(blocks, content, strict=True)):
                    return raw, raw
                return raw, {**raw, "content": blocks}
        if isinstance(m.content, str):
            return None, {"role": "user", "content": m.content}
        return None, {"role": "user", "content": _blocks(m.content, own, index)}

    def _assistant(self, m: Message, own: bool, index: int) -> tuple[Any, Any]:
        """An assistant message's record, and the record it was read from (``None``: none)."""
        raw = m.raw
        if own and isinstance(raw, dict) and raw.get("role") == "assistant":
            content = raw.get("content")
            changed = {id(c.raw): c for c in m.tool_calls if isinstance(c.raw, dict) and c.raw.get("id") != c.id}
            if not changed or not isinstance(content, list):
                return raw, raw
            new = [{**b, "id": changed[id(b)].id} if id(b) in changed else b for b in content]
            return raw, {**raw, "content": new}
        if not m.tool_calls and (isinstance(m.content, str) or m.content is None):
            return None, {"role": "assistant", "content": m.content or ""}
        blocks = _blocks(m.content, own, index)
        for call in m.tool_calls:
            if own and isinstance(call.raw, dict) and call.raw.get("type") == "tool_use":
                blocks.append(call.raw if call.raw.get("id") == call.id else {**call.raw, "id": call.id})
            else:
                blocks.append(
                    {"type": "tool_use", "id": call.id, "name": call.name or "", "input": _input(call, index)}
                )
        return None, {"role": "assistant", "content": blocks}


ADAPTER = MessagesAdapter()
