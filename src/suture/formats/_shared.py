"""Helpers several format adapters share. Not a format itself (the registry skips ``_`` modules)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from suture import codec
from suture.io import Document, one_line_layout
from suture.model import Transcript

__all__ = ["Row", "body_api", "edit_lines", "image_size", "message_records", "type_name", "written_over"]

_NAMES: dict[type, str] = {
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
}


def type_name(value: Any) -> str:
    """What a person calls a JSON value's type, for a one-line error: "a number", "null", ..."""
    if value is None:
        return "null"
    return _NAMES.get(type(value), type(value).__name__)


def image_size(base64: str | None) -> int:
    """An image's ``size`` (:class:`suture.model.ImagePart`): the length of its base64 string,
    ``None`` for an image the request only points at (a URL, a file id), which holds none of its
    bytes: 0. The base64 string, not the bytes it decodes to, is what Anthropic's 5 MB per-image
    limit counts: "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 6418576
    bytes > 5242880 bytes" for an image file under 5 MB (cg-dot/vertexai-cf-workers#16; also
    earendil-works/pi#424). No provider's limit that counts decoded bytes was collected (OpenAI,
    Gemini: none in the research); no check reads this size, the app shows it."""
    return len(base64) if base64 else 0


def data_url_base64(url: str) -> str | None:
    """The base64 payload of a ``data:`` URL (``data:image/png;base64,...``), ``None`` for any
    other URL."""
    return url.split(";base64,", 1)[1] if url.startswith("data:") and ";base64," in url[:80] else None


def message_records(doc: Document, head: int | None = None) -> tuple[list[Any], str] | None:
    """The records of a document that hold messages, and its shape: ``jsonl`` (one a line, or a
    lone message object), ``array``, or ``body`` (an object with ``messages``). Of JSONL only the
    first ``head`` records where given. None for any other document."""
    if doc.kind == "jsonl":
        return [v for _, v in (doc.records if head is None else doc.records[:head])], "jsonl"
    value = doc.value
    if isinstance(value, list):
        return value, "array"
    if isinstance(value, dict):
        if isinstance(value.get("messages"), list):
            return value["messages"], "body"
        if "role" in value:
            return [value], "jsonl"
    return None


# Top-level keys of a request body that one of the two message APIs takes and the other has not
# (Anthropic Messages API and OpenAI Chat Completions API references): a body with one of them is
# written for that API. `model`, `messages`, `max_tokens` (required by Anthropic, still accepted by
# OpenAI Chat), `temperature`, `top_p`, `stream`, `metadata`, `service_tier`, `tool_choice` and
# `tools` are in both, so they tell nothing (a tool's own shape does: see body_api).
_ANTHROPIC_BODY = frozenset(
    {
        "system",
        "stop_sequences",
        "anthropic_version",
        "anthropic_beta",
        "container",
        "context_management",
        "mcp_servers",
        "output_config",
    }
)
_CHAT_BODY = frozenset(
    {
        "max_completion_tokens",
        "n",
        "frequency_penalty",
        "presence_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "response_format",
        "seed",
        "stop",
        "stream_options",
        "parallel_tool_calls",
        "user",
        "reasoning_effort",
        "modalities",
        "audio",
        "prediction",
        "store",
        "functions",
        "function_call",
        "web_search_options",
        "verbosity",
        "prompt_cache_key",
        "safety_identifier",
    }
)


def body_api(body: dict[str, Any]) -> str | None:
    """Which of the two message formats a request body (an object with ``messages``) is written
    for, by its own keys: ``"messages"`` (Anthropic: a top-level ``system``, ``stop_sequences``,
    ``anthropic_version``, ..., or a tool with an ``input_schema``; not ``top_k`` or ``thinking``,
    which OpenAI-compatible chat servers take too), ``"chat"`` (OpenAI Chat:
    ``max_completion_tokens``, ``n``, ``stop``, ``response_format``, ..., or a tool of type
    ``function``); None where its keys tell nothing, or tell both but for a top-level ``system``
    (which alone decided before the other keys were read: it still does)."""
    keys = body.keys()
    anthropic = not _ANTHROPIC_BODY.isdisjoint(keys)
    chat = not _CHAT_BODY.isdisjoint(keys)
    tools = body.get("tools")
    for tool in tools[:50] if isinstance(tools, list) else ():
        if isinstance(tool, dict):
            anthropic = anthropic or "input_schema" in tool
            chat = chat or (tool.get("type") == "function" and "function" in tool)
    if anthropic and chat:
        return "messages" if "system" in keys else None
    return "messages" if anthropic else "chat" if chat else None


Row = tuple[int | None, Any, Any]
"""A record of a JSONL file being written over its input (:func:`edit_lines`): the input line it
was read from (``None``: a record the input does not have), its value as read there, and the
value to write (the very object read where nothing changed it)."""


def edit_lines(data: bytes, rows: Iterable[Row]) -> bytes:
    """The JSONL file ``rows`` make, written over ``data``, the bytes they were read from.

    A record nothing changed is its input line, byte for byte; a changed one keeps every byte
    outside the values that changed (``suture.writeback.rewrite``); a new one is written on one
    line, spaced as the file's first record is (:func:`suture.io.one_line_layout`), ending
    ``\\r\\n`` where the file's lines do. Blank lines stay where they were, among the lines
    around them; a line no row names (a record the repair dropped, one that could not be read:
    a line cut off at the end) is left out. Every line ends with a newline, but for a last line
    that had none and is still last. So a diff of ``data`` and the result shows the records the
    repair changed, moved, added or dropped, and nothing else. InputError where a changed row's
    line is not the record it was read as (the file changed since it was read)."""
    from suture.writeback import changed_file, rewrite

    lines = data.split(b"\n")
    cut = not data.endswith(b"\n")  # the last line has no line end
    if not cut:
        lines.pop()  # the newline ends the last line: nothing follows it
    end = b"\r" if lines and lines[0].endswith(b"\r") else b""
    spaced = one_line_layout(next((text for text in lines if text.strip()), b""))
    out: list[bytes] = []
    tails: list[int] = []  # where the last line, written, is in ``out`` (twice: a record split in two)
    passed = 0  # the input lines up to this one are behind what is written

    def keep_blanks(upto: int) -> None:
        """Write the blank lines after those passed and before line ``upto``."""
        nonlocal passed
        for n in range(passed + 1, upto):
            if not lines[n - 1].strip():
                if n == len(lines):
                    tails.append(len(out))
                out.append(lines[n - 1])
        passed = max(passed, upto)

    for line, before, after in rows:
        if line is None:
            made = codec.dumps(after)
            out.append((made if spaced is None else spaced.write(made)) + end)
            continue
        if not 1 <= line <= len(lines) or not lines[line - 1].strip():
            raise changed_file(f"line {line}")
        keep_blanks(line)
        text = lines[line - 1]
        if after is not before:
            body = text.removesuffix(b"\r")
            try:
                same = codec.loads(body) == before
            except (ValueError, RecursionError):
                same = False
            if not same:
                raise changed_file(f"line {line}")
            text = rewrite(body, before, after) + text[len(body) :]
        if line == len(lines):
            tails.append(len(out))
        out.append(text)
    keep_blanks(len(lines) + 1)
    if cut and tails:
        for at in tails:
            if at < len(out) - 1 and not out[at].endswith(b"\r"):
                out[at] += end  # another line follows it now
        if tails[-1] == len(out) - 1:
            return b"\n".join(out)  # the file ends as it did, without a line end
    return b"\n".join(out) + b"\n" if out else b""


def written_over(transcript: Transcript, name: str) -> bool:
    """Whether an adapter called ``name`` writes ``transcript`` over the bytes it was read from
    (:func:`edit_lines`): JSONL of its own format, one record a line (not one message as one
    JSON document, meta ``lone``, which is written as the adapter's ``dump`` writes it)."""
    meta = transcript.meta
    return (
        transcript.format == name and transcript.raw_is(name) and meta.get("shape") == "jsonl" and not meta.get("lone")
    )
