"""Messages as the JSON records a person reads in the detail view and copies with ``y``.

No Textual here. The Original record is what the file held (the adapter keeps it in ``raw``); the
Repaired record is what an export writes for that message, found by dumping it alone through its
format's adapter, so the app never needs to know a format. Big payloads (base64 images, huge
strings) are shown as a short placeholder with their size; copying keeps them whole.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from suture import codec, formats
from suture.model import ImagePart, Message, OtherPart, TextPart, ThinkingPart, Transcript
from suture.tui.rows import human_size

__all__ = ["neutral_record", "pretty", "repaired_record", "shorten_payloads"]

_BASE64 = re.compile(r"^(data:[\w/+.-]+;base64,)?[A-Za-z0-9+/=\s_-]+$")
BIG = 1024
HUGE = 20_000


def shorten_payloads(value: Any) -> Any:
    """A copy of a JSON value with base64 strings longer than 1 KB replaced by a placeholder naming
    their size, and other strings longer than 20,000 characters cut with a note."""
    if isinstance(value, str):
        n = len(value)
        if n > BIG and _BASE64.match(value[:4096]) and " " not in value[:4096]:
            head = value[5 : value.index(";")] if value.startswith("data:") and ";" in value[:64] else "base64"
            return f"<{head} payload, {human_size(n)}>"
        if n > HUGE:
            return value[:HUGE] + f"… <{n - HUGE:,} more characters>"
        return value
    if isinstance(value, dict):
        return {k: shorten_payloads(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shorten_payloads(v) for v in value]
    return value


def pretty(value: Any) -> str:
    """Indented JSON text. Control characters in strings are escaped by the encoder."""
    try:
        return codec.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return repr(value)


def neutral_record(message: Message) -> dict[str, Any]:
    """The neutral fields of a message as JSON, for a message with no record of its own."""
    record: dict[str, Any] = {"role": message.role}
    content = message.content
    if content is None or isinstance(content, str):
        record["content"] = content
    else:
        parts: list[Any] = []
        for part in content:
            if isinstance(part, TextPart):
                parts.append({"type": "text", "text": part.text})
            elif isinstance(part, ThinkingPart):
                parts.append({"type": "thinking", "text": part.text})
            elif isinstance(part, ImagePart):
                parts.append({"type": "image", "media_type": part.media_type, "size": part.size})
            elif isinstance(part, OtherPart):
                parts.append(part.raw)
        record["content"] = parts
    if message.tool_calls:
        record["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls]
    if message.role == "tool":
        record["tool_call_id"] = message.tool_call_id
        if message.name:
            record["name"] = message.name
        if message.is_error is not None:
            record["is_error"] = message.is_error
    return record


def repaired_record(message: Message, transcript: Transcript) -> Any:
    """The record an export writes for ``message``: the adapter's dump of it alone, unwrapped
    from the document around it where that is one list of records (a JSON array, an object with
    one list of records, or one JSONL line). The neutral fields where the dump says nothing."""
    try:
        data = formats.dump([message], transcript)
    except Exception:
        return neutral_record(message)
    return _single_record(data) or neutral_record(message)


def _single_record(data: bytes) -> Any:
    try:
        value = codec.loads(data)
    except orjson.JSONDecodeError:
        lines = [line for line in data.splitlines() if line.strip()]
        if not lines:
            return None
        try:
            values = [codec.loads(line) for line in lines]
        except orjson.JSONDecodeError:
            return None
        return values[0] if len(values) == 1 else values
    if isinstance(value, list):
        return value[0] if len(value) == 1 else value
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(lists) == 1 and len(lists[0]) == 1:
            return lists[0][0]
    return value
