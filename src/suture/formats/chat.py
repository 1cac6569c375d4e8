"""OpenAI Chat Completions messages.

Three shapes, all written back in the shape they came in: a JSON array of messages, a request
body (an object with ``messages``; ``model``, ``tools`` and every other key pass through), or JSONL
with one message a line (written over the file's own bytes, :meth:`ChatAdapter.edit`: a line the
repair left alone is written byte for byte as it was). Calls are ``tool_calls[].function.{name, arguments}`` with ``arguments``
kept exactly as given (a JSON string that may not even parse); results are ``role: tool`` with
``tool_call_id``. Shapes from openai/openai-python ``src/openai/types/chat/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from suture import codec
from suture.formats import CERTAIN, LIKELY, PLAUSIBLE, FormatError
from suture.formats._shared import body_api, data_url_base64, edit_lines, image_size, message_records, written_over
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
    ToolCall,
    Transcript,
    is_blank,
)

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
# Keys and part types that only other formats write: seeing one means this is not chat.
_FOREIGN_KEYS = frozenset({"parts", "type", "toolCallId", "stopReason"})
_FOREIGN_PARTS = frozenset(
    {"tool_use", "tool_result", "tool-call", "tool-result", "input_text", "output_text", "toolCall", "thinking"}
)


# Detection looks at this many records at most (so it costs the same for any size of file).
_SNIFFED = 200


class ChatAdapter:
    name = "chat"
    title = "OpenAI Chat Completions messages (JSON array, request body, or JSONL)"
    order = 10
    export_format = "chat"
    provider = "openai-chat"
    """The provider (a ``suture.checks`` name) whose API these records are written for."""

    # -- detection ---------------------------------------------------------------------------

    def sniff(self, doc: Document) -> int:
        found = message_records(doc, _SNIFFED)
        if found is None:
            return 0
        messages, shape = found
        api = body_api(doc.value) if shape == "body" else None
        if api == "messages" and "system" in doc.value:
            return 0  # a top-level system prompt is Anthropic's shape
        score = 0 if messages else PLAUSIBLE  # an empty history is a (trivially valid) chat history
        for record in messages[:_SNIFFED]:
            # A record with a bad role is still chat-shaped: load names it precisely.
            if not isinstance(record, dict):
                continue
            role = record.get("role")
            if _FOREIGN_KEYS & record.keys() or (isinstance(role, str) and role not in _ROLES):
                return 0
            if not isinstance(role, str):
                if "content" in record or "tool_calls" in record or "tool_call_id" in record:
                    score = max(score, PLAUSIBLE)  # a message without a role: load says which
                continue
            score = max(score, PLAUSIBLE)
            content = record.get("content")
            if isinstance(content, list):
                for part in content:
                    kind = part.get("type") if isinstance(part, dict) else None
                    if not isinstance(kind, str):
                        continue
                    if kind in _FOREIGN_PARTS:
                        return 0
                    if kind == "image_url":
                        score = max(score, LIKELY)
            if "tool_calls" in record or "tool_call_id" in record:
                score = CERTAIN
        if api == "chat" and score:
            score = max(score, LIKELY)  # a key only OpenAI Chat takes: no other format's body
        elif api == "messages" and score < CERTAIN:
            # Another key only Anthropic takes (OpenAI refuses it) makes it Anthropic's body; records
            # only chat writes (tool_calls, tool_call_id) are chat's whatever the body says.
            return 0
        return score

    # -- loading -----------------------------------------------------------------------------

    def load(self, doc: Document) -> Transcript:
        found = message_records(doc)
        if found is None:
            raise FormatError("", "not OpenAI chat messages: expected a list of messages or an object with messages")
        records, shape = found
        messages: list[Message] = []
        with gc_paused():
            if doc.kind == "jsonl":
                for line, record in doc.records:
                    messages.append(self._message(record, Source(line=line), f"line {line}"))
            else:
                prefix = "messages" if shape == "body" else "$"
                for i, record in enumerate(records):
                    where = f"{prefix}[{i}]"
                    messages.append(self._message(record, Source(pointer=where), where))
        meta: dict[str, Any] = {"shape": shape, "pretty": doc.pretty}
        if doc.kind != "jsonl" and shape == "jsonl":
            meta["lone"] = True  # one message as one JSON document: no lines to write over
        if shape == "body":
            meta["body"] = doc.value
        return Transcript(messages, self.name, meta=meta, problems=list(doc.problems))

    def history(self, records: Sequence[Any], first: int = 0) -> list[Message]:
        """The messages of the records that sit from place ``first`` on in a list, as :meth:`load`
        reads them from that list (each named ``$[n]`` by its place in it)."""
        with gc_paused():
            return [
                self._message(r, Source(pointer=f"$[{first + k}]"), f"$[{first + k}]") for k, r in enumerate(records)
            ]

    def extend(self, transcript: Transcript, doc: Document, start: int) -> tuple[Transcript, int] | None:
        """The transcript with appended JSONL records (``suture.tail.Extends``): one message a
        line, so the new messages follow the old ones unchanged."""
        if doc.kind != "jsonl" or transcript.format != self.name or transcript.meta.get("shape") != "jsonl":
            return None
        with gc_paused():
            new = [self._message(record, Source(line=line), f"line {line}") for line, record in doc.records[start:]]
        meta: dict[str, Any] = {"shape": "jsonl", "pretty": doc.pretty}
        messages = grown_by(transcript.messages, new)  # the messages kept are not copied
        return Transcript(messages, self.name, meta=meta, problems=list(doc.problems)), len(transcript.messages)

    def _message(self, record: Any, source: Source, where: str) -> Message:
        if not isinstance(record, dict):
            raise FormatError(where, f"a message must be an object, got {_type_name(record)}")
        role = record.get("role")
        if not isinstance(role, str):
            raise FormatError(
                where, "message has no role" if role is None else f"role must be a string, got {_type_name(role)}"
            )
        content = self._content(record.get("content"), where)
        calls: tuple[ToolCall, ...] = ()
        tool_call_id = ""
        name = None
        if role == "assistant" and "tool_calls" in record:
            calls = self._calls(record["tool_calls"], where)
        elif role == "tool":
            raw_id = record.get("tool_call_id")
            if raw_id is not None and not isinstance(raw_id, str):
                raise FormatError(f"{where}.tool_call_id", f"must be a string, got {_type_name(raw_id)}")
            tool_call_id = raw_id or ""
            raw_name = record.get("name")
            name = raw_name if isinstance(raw_name, str) else None
        if role == "assistant" and not calls and is_blank(content):
            content = _with_other_content(content, record)
        return Message(role, content, calls, tool_call_id, name, None, record, source)

    def _content(self, content: Any, where: str) -> Content:
        if content is None or isinstance(content, str):
            return content
        if not isinstance(content, list):
            raise FormatError(
                f"{where}.content", f"must be a string, a list of parts or null, got {_type_name(content)}"
            )
        parts: list[Part] = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and isinstance(part.get("text"), str):
                parts.append(TextPart(part["text"], part))
            elif kind == "image_url":
                image = part.get("image_url")
                url = image.get("url") if isinstance(image, dict) else image
                url = url if isinstance(url, str) else ""
                media = url[5 : url.index(";")] if url.startswith("data:") and ";" in url[:64] else None
                parts.append(ImagePart(part, media, image_size(data_url_base64(url))))
            else:
                parts.append(OtherPart(part, str(kind) if kind is not None else _type_name(part)))
        return parts

    def _calls(self, tool_calls: Any, where: str) -> tuple[ToolCall, ...]:
        if tool_calls is None:
            return ()
        if not isinstance(tool_calls, list):
            raise FormatError(f"{where}.tool_calls", f"must be a list, got {_type_name(tool_calls)}")
        calls = []
        for c, call in enumerate(tool_calls):
            here = f"{where}.tool_calls[{c}]"
            if not isinstance(call, dict):
                raise FormatError(here, f"a call must be an object, got {_type_name(call)}")
            call_id = call.get("id")
            if call_id is not None and not isinstance(call_id, str):
                raise FormatError(f"{here}.id", f"must be a string, got {_type_name(call_id)}")
            function = call.get("function")
            if function is None:
                function = {}
            if not isinstance(function, dict):
                raise FormatError(f"{here}.function", f"must be an object, got {_type_name(function)}")
            name = function.get("name")
            if name is not None and not isinstance(name, str):
                raise FormatError(f"{here}.function.name", f"must be a string, got {_type_name(name)}")
            calls.append(ToolCall(call_id or "", name, function.get("arguments"), call))
        return tuple(calls)

    # -- dumping -----------------------------------------------------------------------------

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        own = transcript.raw_is(self.name)
        records = [self._record(m, own) for m in messages]
        shape = transcript.meta.get("shape", "array") if own else "array"
        if shape == "jsonl":
            dumps = codec.dumps
            return b"".join(dumps(r) + b"\n" for r in records)
        value: Any = records
        if shape == "body":
            body = transcript.meta["body"]
            value = {**body, "messages": records}
        pretty = transcript.meta.get("pretty", True) if own else True
        option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if pretty else 0)
        return codec.dumps(value, option=option)

    def edit(self, data: bytes, messages: Sequence[Message], transcript: Transcript) -> bytes:
        """Bytes of ``messages`` written over ``data``, the bytes ``transcript`` was read from. In
        JSONL, the line of a record the repair left alone is written as it was, byte for byte, and
        a record the repair changed keeps every byte outside the values it changed; blank lines
        stay (:func:`~suture.formats._shared.edit_lines`): a diff of the two files shows the lines
        the repair changed, moved or added, and no other. Other shapes are written as :meth:`dump`
        writes them."""
        if not written_over(transcript, self.name):
            return self.dump(messages, transcript)
        return edit_lines(data, ((_line(m), m.raw, self._record(m, True)) for m in messages))

    def _record(self, m: Message, own: bool) -> dict[str, Any]:
        raw = m.raw
        if own and isinstance(raw, dict):
            # Repair changes only ids on a message it keeps: patch those, keep the rest as read.
            if m.role == "tool":
                if (raw.get("tool_call_id") or "") != m.tool_call_id:
                    return {**raw, "tool_call_id": m.tool_call_id}
                return raw
            if m.tool_calls and any(_raw_id(c.raw) != c.id for c in m.tool_calls):
                new_calls = [c.raw if _raw_id(c.raw) == c.id else {**(c.raw or {}), "id": c.id} for c in m.tool_calls]
                return {**raw, "tool_calls": new_calls}
            return raw
        return self._fresh(m, own)

    def _fresh(self, m: Message, own: bool) -> dict[str, Any]:
        """A record for a message repair made (a note, a synthetic result) or another format loaded."""
        role = m.role if m.role in _ROLES else "user"
        if m.role == "tool":
            return {"role": "tool", "tool_call_id": m.tool_call_id, "content": self._content_out(m.content, own)}
        content = self._content_out(m.content, own)
        if m.tool_calls and content == []:
            # Calls and nothing said: null, as the API writes it. An empty list is answered 400
            # "Invalid 'messages[1].content': empty array. Expected an array with minimum length
            # 1" (langchain-ai/langchainjs#11416).
            content = None
        record: dict[str, Any] = {"role": role, "content": content}
        if m.tool_calls:
            record["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name or "",
                        "arguments": c.arguments if isinstance(c.arguments, str) else codec.dumps(c.arguments).decode(),
                    },
                }
                for c in m.tool_calls
            ]
        return record

    def _content_out(self, content: Content, own: bool) -> Any:
        if content is None or isinstance(content, str):
            return content
        out = []
        for part in content:
            if own and part.raw is not None:
                out.append(part.raw)
            elif isinstance(part, TextPart):
                out.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                out.append(self._image_out(part))
            elif isinstance(part, OtherPart) and isinstance(part.raw, dict) and part.raw.get("type") == "text":
                out.append(part.raw)
            else:
                text = getattr(part, "text", None)
                if isinstance(text, str) and text:
                    out.append({"type": "text", "text": text})
        return out

    def _image_out(self, part: ImagePart) -> dict[str, Any]:
        raw = part.raw
        if isinstance(raw, dict) and raw.get("type") == "image_url":
            return raw
        url = _data_url(raw, part.media_type)
        return {"type": "image_url", "image_url": {"url": url}}


# Assistant fields that carry what the model said when ``content`` is empty: a refusal, a legacy
# ``function_call``, an audio reply, reasoning (DeepSeek's ``reasoning_content``). Shapes from
# openai/openai-python src/openai/types/chat/chat_completion_assistant_message_param.py.
_OTHER_CONTENT = ("refusal", "function_call", "audio", "reasoning_content")


def _with_other_content(content: Content, record: dict[str, Any]) -> Content:
    """An assistant message with empty ``content`` that still said something (a refusal, a legacy
    function call, audio, reasoning) gets that as a part, so repair does not take it for an empty
    placeholder and drop it. The record itself is written back unchanged."""
    extra: list[Part] = [OtherPart({"type": key, key: record[key]}, key) for key in _OTHER_CONTENT if record.get(key)]
    if not extra:
        return content
    if content is None or isinstance(content, str):
        return [*([TextPart(content)] if content else []), *extra]
    return [*content, *extra]


def _line(m: Message) -> int | None:
    """The input line a message's record was read from, ``None`` for one repair made."""
    return m.source.line if m.source is not None and isinstance(m.raw, dict) else None


def _raw_id(raw: Any) -> str:
    """A call record's id as the neutral model has it: ``""`` where missing or null."""
    value = raw.get("id") if isinstance(raw, dict) else None
    return value if isinstance(value, str) else ""


def _data_url(raw: Any, media_type: str | None) -> str:
    """A data URL for an image part that another format loaded, where its payload is inline."""
    if isinstance(raw, dict):
        source = raw.get("source") or raw.get("inlineData") or raw
        if isinstance(source, dict):
            data = source.get("data")
            url = source.get("url")
            media = source.get("media_type") or source.get("mimeType") or media_type or "image/png"
            if isinstance(data, str):
                return f"data:{media};base64,{data}"
            if isinstance(url, str):
                return url
        image = raw.get("image")
        if isinstance(image, str):
            return image if ":" in image[:10] else f"data:{media_type or 'image/png'};base64,{image}"
    return ""


ADAPTER = ChatAdapter()
