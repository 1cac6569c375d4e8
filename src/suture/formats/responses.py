"""OpenAI Responses input items.

Two shapes, written back in the shape they came in: a JSON array of input items, or a request body
(an object with ``input``; ``model``, ``tools``, ``previous_response_id`` and every other key pass
through). Item shapes from openai/openai-python ``src/openai/types/responses/
response_input_item_param.py`` and ``response_input_param.py``.

How items become neutral messages:

- ``message`` items (and the type-less ``{"role", "content"}`` form) of role user, system or
  developer are one message each; their ``input_text`` / ``input_image`` parts become text and
  image parts.
- The model's side of a turn is a *run*: consecutive ``reasoning`` items, assistant ``message``
  items, calls (``function_call``, ``custom_tool_call``, ``local_shell_call``, ``shell_call``,
  ``apply_patch_call``, ``computer_call``, any ``*_call`` with a ``call_id``) and items the server
  ran itself (``web_search_call``, ``mcp_call``, ...). A run is one neutral assistant message: its
  calls are the run's calls, in order, and its content holds everything else in order (reasoning
  as a thinking part, the text parts of its messages, server-side items as other parts). The run
  keeps its items as ``raw`` (a list), so writing it back puts every reasoning item exactly where
  it was, directly before the item that follows it, which the API requires
  ("Item 'rs_…' of type 'reasoning' was provided without its required following item"). Grouping
  the run is also what lets parallel calls and their outputs form one span.
- Outputs (``function_call_output``, ``custom_tool_call_output``, any ``*_call_output``) are
  results; they pair with calls by ``call_id``. A ``local_shell_call_output`` that carries only
  ``id`` pairs by that. An output with no ``call_id`` is a result with an empty id: the repair
  pairs it with a call that has none, or keeps it as a ``(no id)`` note.
- ``item_reference``, ``mcp_approval_response`` and item types this module does not know are kept
  as they are, each as a message whose role is the item's type (the engine treats it like a user
  message).

Writing lays a turn out as every Responses server accepts it: the run's items up to and
including its last call, then the outputs that follow it, then the rest of the run (text or
reasoning the model wrote after its calls). OpenAI pairs an output with its call anywhere later in
the input, but stricter servers (DeepSeek's Responses endpoint) answer "No tool output found for
tool call …" when any item stands between a turn's calls and their outputs. The neutral history is
the same either way; ``suture.checks._wire.items(..., repaired=True)`` models this layout.

A result repair makes up for a call is written as the output type of the call's kind
(``function_call_output`` for a function call, ``custom_tool_call_output`` for a custom tool call,
and ``function_call_output`` for a local shell call, as Codex sends it); a note is a user
``message`` item with ``input_text`` parts. A renamed call changes only its ``call_id``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Any

import orjson

from suture import codec
from suture.formats import CERTAIN, LIKELY, PLAUSIBLE, FormatError
from suture.formats._shared import data_url_base64, image_size
from suture.formats._shared import type_name as _type_name
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

__all__ = [
    "ADAPTER",
    "ResponsesAdapter",
    "item_kind",
    "item_problem",
    "items_of",
    "messages_from_items",
    "reordered_turns",
]

# Calls that need an output from the client, and the argument key each one carries.
_CALL_ARGUMENTS = {
    "function_call": "arguments",
    "custom_tool_call": "input",
    "local_shell_call": "action",
    "shell_call": "action",
    "apply_patch_call": "operation",
    "computer_call": "action",
}
# The output type of each call kind where it is not "<kind>_output". Codex answers a local shell
# call with a function_call_output (codex-rs protocol models.rs), which the API accepts.
_OUTPUT_OF = {"local_shell_call": "function_call_output"}
# Items the server runs and answers itself: part of the model's turn, never waiting for a result.
_SERVER_ITEMS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "image_generation_call",
        "code_interpreter_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "tool_search_call",
    }
)
_KNOWN_OTHER = frozenset({"item_reference", "mcp_approval_response", "compaction", "tool_search_output"})
_PART_TYPES = frozenset(
    {
        "input_text",
        "output_text",
        "input_image",
        "input_file",
        "input_audio",
        "refusal",
        "summary_text",
        "reasoning_text",
    }
)
# Keys or part types only other formats write: seeing one means this is not a Responses item.
_FOREIGN_KEYS = frozenset({"tool_calls", "tool_call_id", "parts", "toolCallId"})
_FOREIGN_PARTS = frozenset(
    {"text", "image_url", "tool_use", "tool_result", "tool-call", "tool-result", "toolCall", "thinking", "image"}
)
_MESSAGE_ROLES = frozenset({"user", "assistant", "system", "developer"})


def _named(value: Any, names: frozenset[str]) -> bool:
    """``value`` is a string in ``names`` (file content may put a list or an object anywhere)."""
    return isinstance(value, str) and value in names


def item_kind(item: Any) -> str:
    """``message`` (user side), ``assistant`` (part of the model's run), ``call``, ``result`` or
    ``other`` (kept as its own message). ``""`` for a value that is not an item at all."""
    if not isinstance(item, dict):
        return ""
    kind = item.get("type")
    if kind is None:
        if "role" not in item:
            return ""
        kind = "message"
    if not isinstance(kind, str):
        return ""
    if kind == "message":
        return "assistant" if item.get("role") == "assistant" else "message"
    if kind == "reasoning" or kind in _SERVER_ITEMS:
        return "assistant"
    if kind in _CALL_ARGUMENTS or (kind.endswith("_call") and "call_id" in item):
        return "call"
    if kind.endswith("_call_output"):
        return "result"  # one with no call_id is still an output: repair pairs it or keeps it as a note
    if kind.endswith("_call"):
        return "assistant"
    return "other"


def item_problem(item: Any) -> str | None:
    """Why ``item`` cannot be a Responses input item (a key or part only another format writes,
    a role only another format uses), or None. An item of the right shape with a bad field is no
    problem here: loading it names the field."""
    kind = item_kind(item)
    if not kind:
        return "not a Responses input item"
    if _FOREIGN_KEYS & item.keys():
        return "has keys of another format (" + ", ".join(sorted(_FOREIGN_KEYS & item.keys())) + ")"
    if kind in ("message", "assistant") and item.get("type", "message") == "message":
        role = item.get("role")
        if "type" not in item and isinstance(role, str) and role not in _MESSAGE_ROLES:
            return f"message role must be one of {', '.join(sorted(_MESSAGE_ROLES))}"
        content = item.get("content")
        if "type" not in item and isinstance(content, list):
            # A typed message item is Responses whatever its parts; an untyped one with parts of
            # another format is that format's message.
            for part in content:
                if isinstance(part, dict) and _named(part.get("type"), _FOREIGN_PARTS):
                    return "message content holds a part of another format"
    return None


def _known_type(item: dict[str, Any]) -> bool:
    kind = item.get("type")
    return (
        kind == "message"
        or item_kind(item) in ("call", "result")
        or kind in _SERVER_ITEMS
        or kind in _KNOWN_OTHER
        or kind == "reasoning"
    )


def _has_typed_parts(item: dict[str, Any]) -> bool:
    content = item.get("content")
    return isinstance(content, list) and any(
        isinstance(p, dict) and _named(p.get("type"), _PART_TYPES) for p in content
    )


def _call_key(item: dict[str, Any]) -> str:
    """The key a call or output pairs by: ``call_id``, or ``id`` for a local shell output without one."""
    if "call_id" in item or item.get("type") != "local_shell_call_output":
        return "call_id"
    return "id"


def _text_of_reasoning(item: dict[str, Any]) -> str:
    texts = []
    for key in ("summary", "content"):
        value = item.get(key)
        if isinstance(value, list):
            texts += [p["text"] for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "\n".join(texts)


def _image(part: dict[str, Any]) -> ImagePart:
    url = part.get("image_url")
    url = url if isinstance(url, str) else part.get("file_id")
    url = url if isinstance(url, str) else ""
    media = url[5 : url.index(";")] if url.startswith("data:") and ";" in url[:64] else None
    base64 = data_url_base64(url)
    if base64 is not None:
        return ImagePart(part, media, image_size(base64), data=base64)
    return ImagePart(part, media, 0, url=url if isinstance(part.get("image_url"), str) else None)


def _parts(content: Any, where: str) -> Content:
    """Neutral content of a message's ``content`` or an output's ``output``."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]  # a computer call's screenshot output is one object
    if not isinstance(content, list):
        raise FormatError(where, f"must be a string or a list of parts, got {_type_name(content)}")
    parts: list[Part] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
            parts.append(TextPart(part["text"], part))
        elif kind in ("input_image", "computer_screenshot"):
            parts.append(_image(part))
        else:
            parts.append(OtherPart(part, str(kind) if kind is not None else _type_name(part)))
    return parts


def _at(where: str, key: str) -> str:
    """A key of the item at ``where``: ``input[3].call_id``, or ``line 3, call_id`` where the item
    is a whole line of the file (``line 3.call_id`` would read as a number)."""
    return f"{where}, {key}" if where.startswith("line ") and ", " not in where else f"{where}.{key}"


def _string_field(item: dict[str, Any], key: str, where: str) -> str | None:
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        raise FormatError(_at(where, key), f"must be a string, got {_type_name(value)}")
    return value


def _call(item: dict[str, Any], where: str) -> ToolCall:
    kind = item["type"]
    call_id = _string_field(item, "call_id", where) or ""
    name = _string_field(item, "name", where)
    if name is None and kind != "function_call" and kind != "custom_tool_call":
        name = kind.removesuffix("_call")
    return ToolCall(call_id, name, item.get(_CALL_ARGUMENTS.get(kind, "arguments")), item)


def _span_source(first: Source, last: Source) -> Source:
    """``input[3..5]`` for a run of items read from ``input[3]`` to ``input[5]``; the first line
    for items read from lines of a file."""
    a, b = first.pointer, last.pointer
    if a and b and a.endswith("]") and b.endswith("]") and a[: a.rindex("[")] == b[: b.rindex("[")]:
        return Source(first.line, f"{a[:-1]}..{b[b.rindex('[') + 1 :]}")
    return first


def _run_message(run: list[tuple[dict[str, Any], Source, str]]) -> Message:
    content: list[Part] = []
    calls: list[ToolCall] = []
    for item, _, where in run:
        kind = item.get("type", "message")
        if kind == "message":
            parts = _parts(item.get("content"), _at(where, "content"))
            if isinstance(parts, str):
                content.append(TextPart(parts))
            elif parts:
                content += parts
        elif kind == "reasoning":
            content.append(ThinkingPart(_text_of_reasoning(item), item))
        elif item_kind(item) == "call":
            calls.append(_call(item, where))
        else:
            content.append(OtherPart(item, kind))
    first, source, _ = run[0]
    items = [item for item, _, _ in run]
    if len(run) > 1:
        source = _span_source(source, run[-1][1])
    value: Content
    if len(run) == 1 and first.get("type", "message") == "message" and isinstance(first.get("content"), str):
        value = first["content"]
    else:
        value = content or None
    return Message("assistant", value, tuple(calls), raw=items, source=source)


def messages_from_items(entries: Iterable[tuple[Any, Source]]) -> list[Message]:
    """Neutral messages of Responses items, each given with where it was read. Raises FormatError
    (naming the item) for an item that is not one."""
    with gc_paused():
        return _messages_from_items(entries)


def _messages_from_items(entries: Iterable[tuple[Any, Source]]) -> list[Message]:
    messages: list[Message] = []
    run: list[tuple[dict[str, Any], Source, str]] = []
    for item, source in entries:
        where = str(source)
        kind = item_kind(item)
        if kind in ("assistant", "call"):
            if item.get("type") == "message" and not isinstance(item.get("role"), str):
                raise FormatError(where, "message item has no role")
            run.append((item, source, where))
            continue
        if run:
            messages.append(_run_message(run))
            run = []
        if kind == "":
            if not isinstance(item, dict):
                raise FormatError(where, f"an input item must be an object, got {_type_name(item)}")
            kind_value = item.get("type")
            raise FormatError(
                where,
                "item has no type" if kind_value is None else f"type must be a string, got {_type_name(kind_value)}",
            )
        if kind == "message":
            role = item.get("role")
            if not isinstance(role, str):
                raise FormatError(
                    where, "message has no role" if role is None else f"role must be a string, got {_type_name(role)}"
                )
            messages.append(Message(role, _parts(item.get("content"), _at(where, "content")), raw=item, source=source))
        elif kind == "result":
            key = _call_key(item)
            call_id = _string_field(item, key, where) or ""
            messages.append(
                Message("tool", _parts(item.get("output"), _at(where, "output")), (), call_id, raw=item, source=source)
            )
        else:
            messages.append(Message(item["type"], [OtherPart(item, item["type"])], raw=item, source=source))
    if run:
        messages.append(_run_message(run))
    return messages


# -- writing ----------------------------------------------------------------------------------


def _patched_call(item: dict[str, Any], call: ToolCall) -> dict[str, Any]:
    return item if item.get("call_id") == call.id else {**item, "call_id": call.id}


def _own_run(m: Message) -> tuple[list[Any], list[Any]]:
    """The items of a run read from this format, calls under their neutral ids, split after the
    last call: the turn up to its calls, and what the model wrote after them."""
    calls = {id(c.raw): c for c in m.tool_calls}
    out = []
    cut = 0
    for item in m.raw:
        call = calls.get(id(item))
        out.append(_patched_call(item, call) if call is not None else item)
        if call is not None:
            cut = len(out)
    if not calls:
        return out, []
    return out[:cut], out[cut:]


def _fresh_text_parts(content: Content, text_type: str) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": text_type, "text": content}]
    out: list[dict[str, Any]] = []
    for part in content:
        raw = part.raw
        if isinstance(raw, dict) and _named(raw.get("type"), _PART_TYPES) and not isinstance(part, ThinkingPart):
            out.append(raw)
        elif isinstance(part, TextPart):
            out.append({"type": text_type, "text": part.text})
        elif isinstance(part, ImagePart):
            url = _data_url(part)
            if url:
                out.append({"type": "input_image", "image_url": url})
        elif isinstance(part, OtherPart) and isinstance(raw, dict) and isinstance(raw.get("text"), str):
            out.append({"type": text_type, "text": raw["text"]})
    return out


def _data_url(part: ImagePart) -> str:
    """A data URL (or URL) for an image another format loaded."""
    if part.data:
        return f"data:{part.media_type or 'image/png'};base64,{part.data}"
    if part.url:
        return part.url
    return _raw_data_url(part.raw, part.media_type)


def _raw_data_url(raw: Any, media_type: str | None) -> str:
    if not isinstance(raw, dict):
        return ""
    for holder in (raw.get("source"), raw.get("inlineData"), raw.get("image_url"), raw):
        if isinstance(holder, dict):
            media = holder.get("media_type") or holder.get("mimeType") or holder.get("mediaType") or media_type
            data = holder.get("data")
            if isinstance(data, str):
                return data if data.startswith("data:") else f"data:{media or 'image/png'};base64,{data}"
            url = holder.get("url")
            if isinstance(url, str):
                return url
    image = raw.get("image")
    if isinstance(image, str):
        return image if ":" in image[:10] else f"data:{media_type or 'image/png'};base64,{image}"
    return ""


def _arguments_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    return codec.dumps(arguments if arguments is not None else {}).decode()


def _fresh(m: Message, kinds: dict[str, str], own: bool) -> list[dict[str, Any]]:
    """Items for a message repair made (a note, a synthetic result) or another format loaded."""
    if m.role == "tool":
        kind = kinds.get(m.tool_call_id, "function_call")
        output: Any
        if m.content is None or isinstance(m.content, str):
            output = m.content or ""
        else:
            output = _fresh_text_parts(m.content, "input_text")
        return [{"type": _OUTPUT_OF.get(kind, f"{kind}_output"), "call_id": m.tool_call_id, "output": output}]
    if m.role == "assistant":
        items: list[dict[str, Any]] = []
        if isinstance(m.content, list):
            for part in m.content:
                if isinstance(part, ThinkingPart) and own and isinstance(part.raw, dict):
                    items.append(part.raw)  # a reasoning item of this format, exactly as read
        parts = _fresh_text_parts(m.content, "output_text")
        parts = [p for p in parts if p.get("type") in ("output_text", "refusal")]
        if parts:
            items.append({"type": "message", "role": "assistant", "content": parts})
        for call in m.tool_calls:
            raw = call.raw
            if own and isinstance(raw, dict) and item_kind(raw) == "call":
                items.append(_patched_call(raw, call))
            else:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name or "",
                        "arguments": _arguments_text(call.arguments),
                    }
                )
        return items
    role = m.role if m.role in _MESSAGE_ROLES else "user"
    return [{"type": "message", "role": role, "content": _fresh_text_parts(m.content, "input_text")}]


def items_of(messages: Sequence[Message], transcript: Transcript) -> list[Any]:
    """Responses input items for neutral messages; untouched records of this format as read, each
    turn laid out with its outputs right after its last call (see the module docstring)."""
    own = transcript.raw_is("responses")
    kinds: dict[str, str] = {}
    out: list[Any] = []
    after_outputs: list[Any] = []  # the end of the last run, written once its outputs are
    for m in messages:
        if after_outputs and m.role != "tool":
            out += after_outputs
            after_outputs = []
        for call in m.tool_calls:
            raw = call.raw
            kind = raw.get("type") if own and isinstance(raw, dict) else None
            kinds[call.id] = kind if isinstance(kind, str) and kind in _CALL_ARGUMENTS else "function_call"
        raw = m.raw
        if own and m.role == "assistant" and isinstance(raw, list):
            turn, after_outputs = _own_run(m)
            out += turn
        elif own and m.role == "tool" and isinstance(raw, dict):
            key = _call_key(raw)
            out.append(raw if (raw.get(key) or "") == m.tool_call_id else {**raw, key: m.tool_call_id})
        elif own and isinstance(raw, dict):
            out.append(raw)
        elif own and isinstance(raw, str) and m.role == "user":
            out.append({"role": "user", "content": raw})
        else:
            out += _fresh(m, kinds, own)
    return out + after_outputs


def reordered_turns(messages: Sequence[Message], transcript: Transcript) -> int:
    """How many turns :func:`items_of` writes in another order than their items were read: the
    outputs moved up to the last call, ahead of what the model wrote after its calls."""
    if not transcript.raw_is("responses"):
        return 0
    return sum(
        1
        for m, after in pairwise(messages)
        if after.role == "tool" and m.role == "assistant" and isinstance(m.raw, list) and _own_run(m)[1]
    )


class ResponsesAdapter:
    name = "responses"
    title = "OpenAI Responses input items (JSON array, or request body with input)"
    order = 30
    export_format = "responses"
    provider = "openai-responses"
    """The provider (a ``suture.checks`` name) whose API these records are written for."""

    # -- detection ---------------------------------------------------------------------------

    def _items_of(self, doc: Document) -> tuple[list[Any] | str, str] | None:
        if doc.kind != "json":
            return None
        value = doc.value
        if isinstance(value, list):
            return value, "array"
        if isinstance(value, dict) and isinstance(value.get("input"), list | str):
            return value["input"], "body"
        return None

    def sniff(self, doc: Document) -> int:
        found = self._items_of(doc)
        if found is None:
            return 0
        items, shape = found
        if isinstance(items, str):
            return LIKELY
        score = CERTAIN if shape == "body" else PLAUSIBLE
        for item in items[:200]:
            if item_problem(item):
                return 0
            if _known_type(item) or _has_typed_parts(item):
                score = CERTAIN
        return score

    # -- loading -----------------------------------------------------------------------------

    def load(self, doc: Document) -> Transcript:
        found = self._items_of(doc)
        if found is None:
            raise FormatError("", "not Responses input: expected a list of items or an object with input")
        items, shape = found
        meta: dict[str, Any] = {"shape": shape, "pretty": doc.pretty}
        if shape == "body":
            meta["body"] = doc.value
        if isinstance(items, str):
            # "input" may be one user message as a plain string.
            message = Message("user", items, raw=items, source=Source(pointer="input"))
            return Transcript([message], self.name, meta=meta, problems=list(doc.problems))
        prefix = "input" if shape == "body" else "$"
        messages = messages_from_items((item, Source(pointer=f"{prefix}[{i}]")) for i, item in enumerate(items))
        return Transcript(messages, self.name, meta=meta, problems=list(doc.problems))

    def history(self, items: Sequence[Any], first: int = 0) -> list[Message]:
        """The messages of the items that sit from place ``first`` on in a list, as :meth:`load`
        reads them from that list (each named ``$[n]`` by its place in it). A run of the model's
        items is one message: ``items`` must not begin inside one."""
        return messages_from_items((item, Source(pointer=f"$[{first + k}]")) for k, item in enumerate(items))

    # -- dumping -----------------------------------------------------------------------------

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        own = transcript.raw_is(self.name)
        items = items_of(messages, transcript)
        value: Any = items
        if own and transcript.meta.get("shape") == "body":
            body = transcript.meta["body"]
            original = body.get("input")
            keep_string = isinstance(original, str) and len(messages) == 1 and messages[0].raw is original
            value = {**body, "input": original if keep_string else items}
        pretty = transcript.meta.get("pretty", True) if own else True
        option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if pretty else 0)
        return codec.dumps(value, option=option)


ADAPTER = ResponsesAdapter()
