"""Vercel AI SDK ``ModelMessage`` lists (v5 and later; v4 ``CoreMessage`` too).

Three shapes, written back in the shape they came in: a JSON array of messages, an object with
``messages`` (every other key passes through), or JSONL with one message a line (written over
the file's own bytes, :meth:`VercelAdapter.edit`: a line the repair left alone stays as it was). Shapes from
vercel/ai ``packages/provider-utils/src/types/`` (``model-message.ts``, ``content-part.ts``).

- Assistant ``tool-call`` parts (``toolCallId``, ``toolName``, ``input``; v4 ``args``) are calls.
  A call the provider ran itself (``providerExecuted: true``) carries its own result in the same
  message and is kept as an other part.
- A ``tool`` message holds ``tool-result`` parts (``output`` as ``{type: "text" | "json" |
  "error-text" | "error-json" | "content", value}``; v4 ``result`` and ``isError``): each part is one
  neutral result, and all of them keep the message as ``raw`` so they are written back as one.
- ``reasoning`` parts are thinking; ``image`` and image ``file`` parts are images; any other part
  (``tool-approval-request``, ``file``, provider options, ...) is kept as it is.

A result repair makes up is a ``tool-result`` part (``output: {type: "text", value}``, or ``result``
in a v4 file) added to the tool message that answers the call, or a new one; a note is a user
message with string content.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import orjson
from msgspec import Struct, field

from suture import codec
from suture.formats import CERTAIN, LIKELY, PLAUSIBLE, FormatError
from suture.formats._shared import Row, data_url_base64, edit_lines, image_size, written_over
from suture.formats._shared import type_name as _type_name
from suture.grown import grown_by
from suture.io import Document, gc_paused
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

__all__ = ["ADAPTER", "VercelAdapter"]

_ROLES = frozenset({"system", "user", "assistant", "tool"})
# Keys only other formats put on a message, or part types only they use.
_FOREIGN_KEYS = frozenset({"tool_calls", "tool_call_id", "parts", "type", "toolCallId", "stopReason"})
_FOREIGN_PARTS = frozenset(
    {"tool_use", "tool_result", "image_url", "input_text", "output_text", "toolCall", "thinking", "input_image"}
)
_OWN_PARTS = frozenset({"tool-call", "tool-result", "reasoning", "tool-approval-request", "tool-approval-response"})


def _string(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise FormatError(where, f"must be a string, got {_type_name(value)}")
    return value


def _output_text(part: dict[str, Any]) -> tuple[str, bool | None]:
    """Text to show for a ``tool-result`` part, and whether it reports an error."""
    if "output" in part:
        output = part["output"]
        if isinstance(output, dict) and "type" in output:
            kind, value = output.get("type"), output.get("value")
            error = kind in ("error-text", "error-json") or None
            if isinstance(value, str):
                return value, error
            if kind == "content" and isinstance(value, list):
                texts = [v["text"] for v in value if isinstance(v, dict) and isinstance(v.get("text"), str)]
                return "\n".join(texts), error
            return codec.dumps(value).decode(), error
        value = output
    else:
        value = part.get("result")
    error = True if part.get("isError") is True else None
    if isinstance(value, str):
        return value, error
    return codec.dumps(value).decode() if value is not None else "", error


def _media(part: dict[str, Any]) -> str | None:
    media = part.get("mediaType") or part.get("mimeType")
    return media if isinstance(media, str) else None


def _part(part: Any) -> Part:
    if not isinstance(part, dict):
        return OtherPart(part, _type_name(part))
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        return TextPart(part["text"], part)
    if kind == "reasoning" and isinstance(part.get("text"), str):
        return ThinkingPart(part["text"], part)
    media = _media(part)
    if kind == "image" or (kind == "file" and media is not None and media.startswith("image/")):
        data = part.get("image", part.get("data"))
        if not isinstance(data, str):
            return ImagePart(part, media, 0)
        base64 = data_url_base64(data)
        if base64 is not None:
            return ImagePart(part, media or data[5 : data.index(";")], image_size(base64), data=base64)
        if ":" in data[:10]:
            return ImagePart(part, media, 0, url=data)
        return ImagePart(part, media, image_size(data), data=data)
    return OtherPart(part, str(kind) if kind is not None else "part")


class _ToolMessage(Struct):
    base: dict[str, Any] | None
    parts: list[Any] = field(default_factory=list)
    changed: bool = False
    line: int | None = None
    """The input line ``base`` was read from."""


class VercelAdapter:
    name = "vercel"
    title = "Vercel AI SDK ModelMessage list (JSON array, object with messages, or JSONL)"
    order = 50
    export_format = "vercel"
    provider = ""
    """The AI SDK speaks to many providers: the records do not say which one (a checks name otherwise)."""

    # -- detection ---------------------------------------------------------------------------

    def _messages_of(self, doc: Document, limit: int | None = None) -> tuple[list[Any], str] | None:
        """The message records and the document's shape; with ``limit``, at most that many JSONL
        records (the sniffer reads 200: a live reload sniffs the whole file on every append)."""
        if doc.kind == "jsonl":
            return [v for _, v in doc.records[:limit]], "jsonl"
        value = doc.value
        if isinstance(value, list):
            return value, "array"
        if isinstance(value, dict):
            if isinstance(value.get("messages"), list) and "system" not in value:
                return value["messages"], "body"
            if "role" in value:
                return [value], "jsonl"
        return None

    def sniff(self, doc: Document) -> int:
        found = self._messages_of(doc, limit=200)
        if found is None:
            return 0
        score = PLAUSIBLE
        for record in found[0][:200]:
            role = record.get("role") if isinstance(record, dict) else None
            if not isinstance(record, dict) or not isinstance(role, str) or role not in _ROLES:
                return 0
            if _FOREIGN_KEYS & record.keys():
                return 0
            content = record.get("content")
            if isinstance(content, list):
                for part in content:
                    kind = part.get("type") if isinstance(part, dict) else None
                    if not isinstance(kind, str) or kind in _FOREIGN_PARTS:
                        return 0
                    if kind in _OWN_PARTS:
                        score = CERTAIN
                    elif "mediaType" in part or "providerOptions" in part or (kind == "image" and "image" in part):
                        score = max(score, LIKELY)  # keys only the AI SDK writes on a part
            elif not isinstance(content, str):
                return 0
        return score

    # -- loading -----------------------------------------------------------------------------

    def load(self, doc: Document) -> Transcript:
        found = self._messages_of(doc)
        if found is None:
            raise FormatError("", "not AI SDK messages: expected a list of messages or an object with messages")
        records, shape = found
        if doc.kind == "jsonl":
            located = [(r, Source(line=line), f"line {line}") for line, r in doc.records]
        elif shape == "jsonl":  # one message on one line parses as one JSON value
            located = [(records[0], Source(line=1), "line 1")]
        else:
            prefix = "messages" if shape == "body" else "$"
            located = [(r, Source(pointer=f"{prefix}[{i}]"), f"{prefix}[{i}]") for i, r in enumerate(records)]
        with gc_paused():
            messages, v4 = self._read(located)
        meta: dict[str, Any] = {"shape": shape, "pretty": doc.pretty, "v4": v4}
        if doc.kind != "jsonl" and shape == "jsonl":
            meta["lone"] = True  # one message as one JSON document: no lines to write over
        if shape == "body":
            meta["body"] = doc.value
        return Transcript(messages, self.name, meta=meta, problems=list(doc.problems))

    def _read(self, located: list[tuple[Any, Source, str]]) -> tuple[list[Message], bool]:
        """Neutral messages of records given with where they were read; also whether any call
        is in the v4 shape (``args``)."""
        messages: list[Message] = []
        v4 = False
        for record, source, where in located:
            if not isinstance(record, dict):
                raise FormatError(where, f"a message must be an object, got {_type_name(record)}")
            role = record.get("role")
            if not isinstance(role, str):
                raise FormatError(
                    where, "message has no role" if role is None else f"role must be a string, got {_type_name(role)}"
                )
            content = record.get("content")
            if content is not None and not isinstance(content, str | list):
                raise FormatError(f"{where}.content", f"must be a string or a list of parts, got {_type_name(content)}")
            if role == "tool":
                messages += self._results(record, content, source, where)
            elif role == "assistant":
                message, old = self._assistant(record, content, source, where)
                v4 = v4 or old
                messages.append(message)
            else:
                parts: Content = content if not isinstance(content, list) else [_part(p) for p in content]
                messages.append(Message(role, parts, raw=record, source=source))
        return messages, v4

    def extend(self, transcript: Transcript, doc: Document, start: int) -> tuple[Transcript, int] | None:
        """The transcript with appended JSONL lines (``suture.tail.Extends``): each line is read
        on its own, so the new messages follow the old ones unchanged."""
        if doc.kind != "jsonl" or transcript.format != self.name or transcript.meta.get("shape") != "jsonl":
            return None
        with gc_paused():
            new, v4 = self._read([(r, Source(line=line), f"line {line}") for line, r in doc.records[start:]])
        meta: dict[str, Any] = {"shape": "jsonl", "pretty": doc.pretty, "v4": v4 or transcript.meta.get("v4", False)}
        messages = grown_by(transcript.messages, new)  # the messages kept are not copied
        return Transcript(messages, self.name, meta=meta, problems=list(doc.problems)), len(transcript.messages)

    def _assistant(self, record: dict[str, Any], content: Any, source: Source, where: str) -> tuple[Message, bool]:
        if not isinstance(content, list):
            return Message("assistant", content, raw=record, source=source), False
        parts: list[Part] = []
        calls: list[ToolCall] = []
        v4 = False
        for p, part in enumerate(content):
            if isinstance(part, dict) and part.get("type") == "tool-call" and part.get("providerExecuted") is not True:
                here = f"{where}.content[{p}]"
                call_id = _string(part.get("toolCallId"), f"{here}.toolCallId") or ""
                name = _string(part.get("toolName"), f"{here}.toolName")
                if "input" not in part and "args" in part:
                    v4 = True
                calls.append(ToolCall(call_id, name, part.get("input", part.get("args")), part))
            else:
                parts.append(_part(part))
        return Message("assistant", parts or None, tuple(calls), raw=record, source=source), v4

    def _results(self, record: dict[str, Any], content: Any, source: Source, where: str) -> list[Message]:
        if not isinstance(content, list) or not content:
            return [Message("tool", content, raw=record, source=source)]
        out = []
        for p, part in enumerate(content):
            here = f"{where}.content[{p}]"
            located = Source(source.line, here if source.line is None else f"content[{p}]")
            if not isinstance(part, dict) or part.get("type") != "tool-result":
                kind = part.get("type") if isinstance(part, dict) else None
                role = kind if isinstance(kind, str) and kind != "tool" else "tool-part"
                out.append(Message(role, [_part(part)], raw=record, source=located))
                continue
            call_id = _string(part.get("toolCallId"), f"{here}.toolCallId") or ""
            name = _string(part.get("toolName"), f"{here}.toolName")
            text, error = _output_text(part)
            out.append(
                Message(
                    "tool",
                    [TextPart(text, part)],
                    tool_call_id=call_id,
                    name=name,
                    is_error=error,
                    raw=record,
                    source=located,
                )
            )
        return out

    # -- dumping -----------------------------------------------------------------------------

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        own = transcript.raw_is(self.name)
        records = [record for _, _, record in self._rows(messages, transcript, own)]
        shape = transcript.meta.get("shape", "array") if own else "array"
        if shape == "jsonl":
            return b"".join(codec.dumps(r) + b"\n" for r in records)
        value: Any = records
        if shape == "body":
            value = {**transcript.meta["body"], "messages": records}
        pretty = transcript.meta.get("pretty", True) if own else True
        option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if pretty else 0)
        return codec.dumps(value, option=option)

    def edit(self, data: bytes, messages: Sequence[Message], transcript: Transcript) -> bytes:
        """Bytes of ``messages`` written over ``data``, the bytes ``transcript`` was read from. In
        JSONL, a record the repair left alone is its line as it was, byte for byte, a record it
        changed keeps every byte outside the values it changed, and blank lines stay
        (:func:`~suture.formats._shared.edit_lines`), as in chat JSONL. Other shapes are written
        as :meth:`dump` writes them."""
        if not written_over(transcript, self.name):
            return self.dump(messages, transcript)
        return edit_lines(data, self._rows(messages, transcript, True))

    def _rows(self, messages: Sequence[Message], transcript: Transcript, own: bool) -> list[Row]:
        """The records ``messages`` are written as, each with the input line and record it was
        read from (:data:`~suture.formats._shared.Row`)."""
        v4 = bool(transcript.meta.get("v4")) if own else False
        names: dict[str, str | None] = {}
        out: list[Row | _ToolMessage] = []
        for m in messages:
            raw = m.raw if own and isinstance(m.raw, dict) else None
            line = m.source.line if raw is not None and m.source is not None else None
            last = out[-1] if out else None
            if m.role == "assistant":
                for call in m.tool_calls:
                    names[call.id] = call.name
                out.append((line, raw, self._assistant_out(m, raw, own)))
            elif raw is not None and raw.get("role") == "tool" and not m.tool_call_id and not _has_parts(m):
                out.append((line, raw, raw))  # a tool message with no parts: nothing to pair, kept as read
            elif raw is not None and raw.get("role") == "tool":
                part = self._own_part(m)
                if not isinstance(last, _ToolMessage) or (last.base is not raw and last.base is not None):
                    last = _ToolMessage(raw)
                    out.append(last)
                last.base, last.line = raw, line
                if part is None:
                    last.changed = True
                    last.parts.append(self._fresh_result(m, names, v4))
                else:
                    last.parts.append(part)
            elif raw is not None:
                out.append((line, raw, raw))
            elif m.role == "tool":
                if not isinstance(last, _ToolMessage):
                    last = _ToolMessage(None)
                    out.append(last)
                last.changed = True
                last.parts.append(self._fresh_result(m, names, v4))
            else:
                out.append((None, None, self._fresh(m, own)))
        return [(r.line, r.base, self._tool_record(r)) if isinstance(r, _ToolMessage) else r for r in out]

    def _tool_record(self, message: _ToolMessage) -> dict[str, Any]:
        base = message.base
        if base is None:
            return {"role": "tool", "content": message.parts}
        original = base.get("content")
        if (
            not message.changed
            and isinstance(original, list)
            and len(original) == len(message.parts)
            and all(a is b for a, b in zip(original, message.parts, strict=True))
        ):
            return base
        return {**base, "content": message.parts}

    def _own_part(self, m: Message) -> Any:
        """The part this result was read from, its ``toolCallId`` patched if repair renamed it."""
        content = m.content
        if not isinstance(content, list) or not content:
            return None
        part = content[0].raw
        if m.role != "tool":
            return part
        if not isinstance(part, dict) or part.get("type") != "tool-result":
            return None
        if (part.get("toolCallId") or "") == m.tool_call_id:
            return part
        return {**part, "toolCallId": m.tool_call_id}

    def _assistant_out(self, m: Message, raw: dict[str, Any] | None, own: bool) -> dict[str, Any]:
        if raw is not None:
            content = raw.get("content")
            if not m.tool_calls or not isinstance(content, list):
                return raw
            by_part = {id(c.raw): c for c in m.tool_calls}
            new = []
            for part in content:
                call = by_part.get(id(part))
                if call is not None and (part.get("toolCallId") or "") != call.id:
                    part = {**part, "toolCallId": call.id}
                new.append(part)
            if all(a is b for a, b in zip(content, new, strict=True)):
                return raw
            return {**raw, "content": new}
        parts = self._fresh_parts(m.content, own)
        for call in m.tool_calls:
            args = call.arguments
            if isinstance(args, str):
                with contextlib.suppress(orjson.JSONDecodeError):
                    args = codec.loads(args)
            parts.append({"type": "tool-call", "toolCallId": call.id, "toolName": call.name or "", "input": args})
        if isinstance(m.content, str) and not m.tool_calls:
            return {"role": "assistant", "content": m.content}
        return {"role": "assistant", "content": parts}

    def _fresh_result(self, m: Message, names: dict[str, str | None], v4: bool) -> dict[str, Any]:
        if isinstance(m.content, str) or m.content is None:
            text = m.content or ""
        else:
            text = "\n".join(p.text for p in m.content if isinstance(p, TextPart))
        part: dict[str, Any] = {
            "type": "tool-result",
            "toolCallId": m.tool_call_id,
            "toolName": m.name or names.get(m.tool_call_id) or "",
        }
        if v4:
            part["result"] = text
            if m.is_error:
                part["isError"] = True
        else:
            part["output"] = {"type": "error-text" if m.is_error else "text", "value": text}
        return part

    def _fresh(self, m: Message, own: bool) -> dict[str, Any]:
        role = m.role if m.role in ("system", "user") else "user"
        if isinstance(m.content, str) or m.content is None:
            return {"role": role, "content": m.content or ""}
        parts = self._fresh_parts(m.content, own)
        if len(parts) == 1 and parts[0].get("type") == "text" and len(parts[0]) == 2:
            return {"role": role, "content": parts[0]["text"]}
        return {"role": role, "content": parts}

    def _fresh_parts(self, content: Content, own: bool) -> list[dict[str, Any]]:
        """Parts for content repair made or another format loaded; ``own`` when its parts' records
        are this format's (a note keeps the parts of the result it replaces)."""
        if content is None:
            return []
        if isinstance(content, str):
            return [{"type": "text", "text": content}] if content else []
        out: list[dict[str, Any]] = []
        for part in content:
            raw = part.raw
            mine = own and isinstance(raw, dict) and isinstance(raw.get("type"), str)
            if isinstance(part, TextPart):
                plain = mine and raw.get("type") == "text" and raw.get("text") == part.text
                out.append(raw if plain else {"type": "text", "text": part.text})
            elif isinstance(part, ThinkingPart):
                if mine and raw.get("type") == "reasoning":
                    out.append(raw)
                    continue
                reasoning: dict[str, Any] = {"type": "reasoning", "text": part.text}
                if part.signature:
                    # The AI SDK's Anthropic provider sends a reasoning part's signature from here.
                    reasoning["providerOptions"] = {"anthropic": {"signature": part.signature}}
                out.append(reasoning)
            elif isinstance(part, ImagePart):
                if mine and raw.get("type") in ("image", "file"):
                    out.append(raw)
                    continue
                url = part.data or part.url or _image_data(raw)
                if url:
                    image: dict[str, Any] = {"type": "image", "image": url}
                    if part.media_type:
                        image["mediaType"] = part.media_type
                    out.append(image)
            elif mine:
                out.append(raw)
        return out


def _has_parts(m: Message) -> bool:
    return isinstance(m.content, list) and bool(m.content)


def _image_data(raw: Any) -> str:
    """Base64 data or a URL for an image another format loaded."""
    if not isinstance(raw, dict):
        return ""
    for holder in (raw.get("source"), raw.get("inlineData"), raw.get("image_url"), raw):
        if isinstance(holder, dict):
            for key in ("data", "url"):
                value = holder.get(key)
                if isinstance(value, str):
                    return value
    for key in ("image_url", "image"):
        value = raw.get(key)
        if isinstance(value, str):
            return value
    return ""


ADAPTER = VercelAdapter()
