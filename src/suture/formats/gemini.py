"""Google Gemini ``contents``.

Two shapes, written back in the shape they came in: a JSON array of contents, or a request body
(an object with ``contents``; ``systemInstruction``, ``tools``, ``generationConfig`` and every other
key pass through). Shapes from the Gemini API reference (``Content``, ``Part``, ``FunctionCall``,
``FunctionResponse``).

How contents become neutral messages:

- a ``model`` content is one assistant message: ``functionCall`` parts are its calls, in order;
  ``text`` parts are text (``thought: true`` ones are thinking), ``inlineData`` images are images,
  anything else is kept as an other part. Every part keeps its record, ``thoughtSignature``
  included, byte for byte: Gemini checks the signatures it handed out.
- a request body's ``systemInstruction`` is a first ``system`` message (written back where it
  was); system messages another format loaded go there too, so converting needs no system role.
- any other content (``user``, the older ``function`` role, no role) is split at its
  ``functionResponse`` parts: each one is a result, the parts between them one user message.
  All of them keep the content as ``raw`` and are written back into one content again.

Ids: a ``functionCall`` / ``functionResponse`` ``id`` is used where present. Where a call has none,
its neutral id is made from its place, ``call_c{content}_p{part}`` (the content's index in
``contents`` and the part's index in its ``parts``), so the same file always gives the same ids.
A response with no id answers the first unanswered call of the last ``model`` content with calls
that has the same name (Gemini pairs by order and name). On the way back such a made-up id is
written nowhere: the call and its response stay as they were. Only when repair renames a call is
the new id written into the call and its response, so they still pair.

A call another format read is written as a fresh ``functionCall`` part; the first of each model
content carries :data:`SKIP_SIGNATURE` as its ``thoughtSignature`` (it never had a real one).

A result repair makes up is a ``functionResponse`` part with the call's name (and id, if the call
has one) and ``response: {"output": TEXT}``, added to the user content that answers the call, or
a new one right after the model content; a note is a user content with text parts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson
from msgspec import Struct, field

from suture import codec
from suture.formats import CERTAIN, PLAUSIBLE, FormatError
from suture.formats._shared import image_size
from suture.formats._shared import type_name as _type_name
from suture.io import Document, gc_paused
from suture.model import (
    ImagePart,
    Message,
    OtherPart,
    Part,
    Source,
    TextPart,
    ThinkingPart,
    ToolCall,
    Transcript,
    text_of,
)

__all__ = ["ADAPTER", "GeminiAdapter", "derived_id", "made_up_calls"]

SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The ``thoughtSignature`` written on the first ``functionCall`` of a model content whose calls
were not read from Gemini: Gemini 3 rejects a current turn's step whose first call has no
signature (csells/dartantic#86), and documents this value for calls it did not generate
(https://ai.google.dev/gemini-api/docs/thought-signatures#faqs); gemini-cli and other clients
write the same (jeremychone/rust-genai#115, trpc-group/trpc-agent-go#1894).
``suture.checks.gemini`` takes a call not read from Gemini as sent with it (its G4 never fires
there), so a check of what this writes agrees with the warning of what it writes."""

# Keys only other formats put on a content: seeing one means this is not Gemini.
_FOREIGN_KEYS = frozenset({"content", "tool_calls", "tool_call_id", "type", "toolCallId"})


def derived_id(content_index: int, part_index: int) -> str:
    """The neutral id of a ``functionCall`` that has none: where it is in ``contents``."""
    return f"call_c{content_index}_p{part_index}"


_DERIVED = re.compile(r"call_c(\d+)_p(\d+)")


def made_up_calls(messages: Sequence[Message]) -> dict[str, str]:
    """The calls of ``messages`` (read from Gemini contents) whose ids suture made from their
    place (:func:`derived_id`: the file names them nowhere), each with that place as the file
    writes it, ``contents[1].parts[0]``, for what is shown to a person. A call whose id repair
    changed, or that has its own, is not among them."""
    made: dict[str, str] = {}
    for m in messages:
        for c in m.tool_calls:
            call = c.raw.get("functionCall") if isinstance(c.raw, dict) else None
            found = _DERIVED.fullmatch(c.id) if isinstance(call, dict) and not call.get("id") else None
            if found is not None:
                made[c.id] = f"contents[{found[1]}].parts[{found[2]}]"
    return made


def _response_text(response: Any) -> tuple[str, bool | None]:
    """Text to show for a ``functionResponse.response``, and whether it reports an error."""
    if isinstance(response, dict):
        output, error = response.get("output"), response.get("error")
        if "output" not in response and error is not None:
            return (error if isinstance(error, str) else codec.dumps(error).decode()), True
        if isinstance(output, str) and len(response) == 1:
            return output, None
    return codec.dumps(response).decode() if response is not None else "", None


def _part(part: Any) -> Part:
    if not isinstance(part, dict):
        return OtherPart(part, _type_name(part))
    text = part.get("text")
    if isinstance(text, str):
        if part.get("thought") is True or (not text and "thoughtSignature" in part):
            return ThinkingPart(text, part)
        return TextPart(text, part)
    inline = part.get("inlineData") or part.get("inline_data")
    if isinstance(inline, dict):
        media = inline.get("mimeType") or inline.get("mime_type")
        data = inline.get("data")
        if isinstance(media, str) and media.startswith("image/"):
            payload = data if isinstance(data, str) else None
            return ImagePart(part, media, image_size(payload), data=payload)
    file = part.get("fileData")
    if isinstance(file, dict) and isinstance(file.get("mimeType"), str) and file["mimeType"].startswith("image/"):
        uri = file.get("fileUri")
        uri = uri if isinstance(uri, str) else None
        return ImagePart(part, file["mimeType"], 0, url=uri)
    kind = next((k for k in part if k not in ("thoughtSignature", "thought")), "part")
    return OtherPart(part, kind)


def _string(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise FormatError(where, f"must be a string, got {_type_name(value)}")
    return value


class _Group(Struct):
    """One content being written: the record it came from (if any) and its parts."""

    base: dict[str, Any] | None
    parts: list[Any] = field(default_factory=list)
    changed: bool = False
    answers: bool = False  # holds a functionResponse part
    adoptable: bool = True  # only made-up results so far: an original content may take it over


def _untouched(group: _Group) -> bool:
    """The group is its original content, every part in place."""
    base = group.base
    if base is None or group.changed:
        return False
    original = base.get("parts")
    return (
        isinstance(original, list)
        and len(original) == len(group.parts)
        and all(a is b for a, b in zip(original, group.parts, strict=True))
    )


def _merge_answers(out: list[dict[str, Any] | _Group], order: dict[int, int]) -> list[dict[str, Any] | _Group]:
    """Put the answers to one model content into one user content where repair touched them.

    Gemini wants every response to a model content's calls in the one content that follows it
    ("the number of function response parts is equal to the number of function call parts").
    Contents that answer calls and follow each other stay apart only when each is exactly as read
    and they are in their original order, so an untouched file is written back as it was.
    """
    merged: list[dict[str, Any] | _Group] = []
    for item in out:
        last = merged[-1] if merged else None
        if isinstance(item, _Group) and isinstance(last, _Group) and item.answers and last.answers:
            in_place = (
                _untouched(item)
                and _untouched(last)
                and item.base is not None
                and last.base is not None
                and order.get(id(last.base), -1) < order.get(id(item.base), -1)
            )
            if not in_place:
                base = last.base if last.base is not None else item.base
                merged[-1] = _Group(base, last.parts + item.parts, changed=True, answers=True, adoptable=False)
                continue
        merged.append(item)
    return merged


class GeminiAdapter:
    name = "gemini"
    title = "Google Gemini contents (JSON array, or request body with contents)"
    order = 40
    export_format = "gemini"
    provider = "gemini"
    """The provider (a ``suture.checks`` name) whose API these records are written for."""

    @staticmethod
    def made_up_calls(messages: Sequence[Message]) -> dict[str, str]:
        """The ids this reader made up for calls with none (:func:`made_up_calls`): a format
        whose reader makes up no id has no such method."""
        return made_up_calls(messages)

    # -- detection ---------------------------------------------------------------------------

    def _contents_of(self, doc: Document) -> tuple[list[Any], str] | None:
        if doc.kind != "json":
            return None
        value = doc.value
        if isinstance(value, list):
            return value, "array"
        if isinstance(value, dict) and isinstance(value.get("contents"), list):
            return value["contents"], "body"
        return None

    def sniff(self, doc: Document) -> int:
        found = self._contents_of(doc)
        if found is None:
            return 0
        contents, shape = found
        # A content with a bad field is still Gemini-shaped: loading it names the field.
        for content in contents[:200]:
            if not isinstance(content, dict) or "parts" not in content or _FOREIGN_KEYS & content.keys():
                return 0
        return CERTAIN if shape == "body" or contents else PLAUSIBLE

    # -- loading -----------------------------------------------------------------------------

    def load(self, doc: Document) -> Transcript:
        found = self._contents_of(doc)
        if found is None:
            raise FormatError("", "not Gemini contents: expected a list of contents or an object with contents")
        contents, shape = found
        messages: list[Message] = []
        system = doc.value.get("systemInstruction") if shape == "body" else None
        if isinstance(system, dict) and isinstance(system.get("parts"), list):
            # The system prompt, shown as the first message; written back where it was.
            prompt = [_part(p) for p in system["parts"]]
            messages.append(Message("system", prompt, raw=system, source=Source(pointer="systemInstruction")))
        derived: set[str] = set()
        with gc_paused():
            self._contents(contents, messages, derived)
        meta: dict[str, Any] = {
            "shape": shape,
            "pretty": doc.pretty,
            "derived_ids": derived,
            # Each content's index, by identity; ``contents`` keeps them alive while meta is.
            "order": {id(c): i for i, c in enumerate(contents)},
            "contents": contents,
        }
        if shape == "body":
            meta["body"] = doc.value
        return Transcript(messages, self.name, meta=meta, problems=list(doc.problems))

    def _contents(self, contents: list[Any], messages: list[Message], derived: set[str]) -> None:
        """Append the neutral messages of ``contents``; made-up call ids go into ``derived``."""
        # Calls of the last model content with calls: [neutral id, name, has its own id, answered].
        open_calls: list[list[Any]] = []
        for ci, content in enumerate(contents):
            where = f"contents[{ci}]"
            if not isinstance(content, dict):
                raise FormatError(where, f"a content must be an object, got {_type_name(content)}")
            role = content.get("role")
            if role is not None and not isinstance(role, str):
                raise FormatError(f"{where}.role", f"must be a string, got {_type_name(role)}")
            parts = content.get("parts")
            if not isinstance(parts, list):
                raise FormatError(f"{where}.parts", f"must be a list, got {_type_name(parts)}")
            if role == "model":
                message = self._model(content, parts, ci, where, derived)
                open_calls = [[c.id, c.name, bool(c.raw["functionCall"].get("id")), False] for c in message.tool_calls]
                messages.append(message)
            else:
                messages += self._user(content, parts, role or "user", ci, where, open_calls)

    def _model(self, content: dict[str, Any], parts: list[Any], ci: int, where: str, derived: set[str]) -> Message:
        body: list[Part] = []
        calls: list[ToolCall] = []
        for pi, part in enumerate(parts):
            call = part.get("functionCall") if isinstance(part, dict) else None
            if call is None:
                body.append(_part(part))
                continue
            here = f"{where}.parts[{pi}].functionCall"
            if not isinstance(call, dict):
                raise FormatError(here, f"must be an object, got {_type_name(call)}")
            call_id = _string(call.get("id"), f"{here}.id")
            name = _string(call.get("name"), f"{here}.name")
            if not call_id:
                call_id = derived_id(ci, pi)
                derived.add(call_id)
            calls.append(ToolCall(call_id, name, call.get("args"), part))
        return Message("assistant", body, tuple(calls), raw=content, source=Source(pointer=where))

    def _user(
        self, content: dict[str, Any], parts: list[Any], role: str, ci: int, where: str, open_calls: list[list[Any]]
    ) -> list[Message]:
        role = "user" if role == "function" else role
        out: list[Message] = []
        pending: list[Part] = []
        start = 0

        def flush(stop: int) -> None:
            if pending or (not out and stop == len(parts)):
                pointer = where if start == 0 and stop == len(parts) else f"{where}.parts[{start}]"
                out.append(Message(role, list(pending), raw=content, source=Source(pointer=pointer)))
                pending.clear()

        for pi, part in enumerate(parts):
            response = part.get("functionResponse") if isinstance(part, dict) else None
            if response is None:
                if not pending:
                    start = pi
                pending.append(_part(part))
                continue
            flush(pi)
            here = f"{where}.parts[{pi}].functionResponse"
            if not isinstance(response, dict):
                raise FormatError(here, f"must be an object, got {_type_name(response)}")
            rid = _string(response.get("id"), f"{here}.id")
            name = _string(response.get("name"), f"{here}.name")
            text, is_error = _response_text(response.get("response"))
            tool_call_id = rid or self._pair(open_calls, name)
            if rid:
                for entry in open_calls:
                    if entry[0] == rid and not entry[3]:
                        entry[3] = True
                        break
            body: list[Part] = [TextPart(text, part)]
            nested = response.get("parts")
            for inner in nested if isinstance(nested, list) else ():
                body.append(_part(inner))
            out.append(
                Message(
                    "tool",
                    body,
                    tool_call_id=tool_call_id,
                    name=name,
                    is_error=is_error,
                    raw=content,
                    source=Source(pointer=f"{where}.parts[{pi}]"),
                )
            )
        flush(len(parts))
        return out

    def _pair(self, open_calls: list[list[Any]], name: str | None) -> str:
        """The first unanswered open call with this name (Gemini pairs id-less responses by order and
        name); a missing name and an empty one are the same."""
        for entry in open_calls:
            if not entry[3] and (entry[1] or "") == (name or ""):
                entry[3] = True
                return str(entry[0])
        return ""

    # -- dumping -----------------------------------------------------------------------------

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        own = transcript.raw_is(self.name)
        derived: set[str] = transcript.meta.get("derived_ids", set()) if own else set()
        order: dict[int, int] = transcript.meta.get("order", {}) if own else {}
        written: set[str] = set()  # ids written onto calls that had none (or another one)
        names: dict[str, str | None] = {}
        out: list[dict[str, Any] | _Group] = []

        def current() -> _Group | None:
            last = out[-1] if out else None
            return last if isinstance(last, _Group) else None

        body: dict[str, Any] = dict(transcript.meta["body"]) if own and transcript.meta.get("shape") == "body" else {}
        system_texts: list[str] = []
        start = 0
        while start < len(messages) and messages[start].role == "system":
            m = messages[start]
            if own and m.raw is not None and m.raw is body.get("systemInstruction"):
                pass  # as read: the body keeps it
            else:
                system_texts.append(text_of(m.content))
            start += 1
        if system_texts:
            body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system_texts)}]}
        for m in messages[start:]:
            raw = m.raw if own and isinstance(m.raw, dict) else None
            group = current()
            if m.role == "assistant":
                out.append(self._model_out(m, raw, derived, written, names))
            elif raw is not None:
                parts = self._own_parts(m, written)
                if group is None or (group.base is not raw and not (group.base is None and group.adoptable)):
                    group = _Group(raw)
                    out.append(group)
                group.base = raw
                group.adoptable = False
                if parts is None:
                    group.changed = True
                    parts = self._fresh_parts(m, derived, names)
                group.parts += parts
                group.answers = group.answers or m.role == "tool"
            elif m.role == "tool":
                if group is None or not group.answers:
                    group = _Group(None, answers=True)
                    out.append(group)
                group.changed = True
                group.parts += self._fresh_parts(m, derived, names)
            else:
                out.append(_Group(None, self._fresh_parts(m, derived, names), changed=True, adoptable=False))
        contents = [self._content_of(g) if isinstance(g, _Group) else g for g in _merge_answers(out, order)]
        value: Any = contents
        if body:
            value = {**body, "contents": contents}
        pretty = transcript.meta.get("pretty", True) if own else True
        option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if pretty else 0)
        return codec.dumps(value, option=option)

    def _content_of(self, group: _Group) -> dict[str, Any]:
        base = group.base
        if base is None:
            return {"role": "user", "parts": group.parts}
        return base if _untouched(group) else {**base, "parts": group.parts}

    def _model_out(
        self,
        m: Message,
        raw: dict[str, Any] | None,
        derived: set[str],
        written: set[str],
        names: dict[str, str | None],
    ) -> dict[str, Any]:
        for c in m.tool_calls:
            names[c.id] = c.name
        if raw is not None:
            by_part = {id(c.raw): c for c in m.tool_calls}
            found = raw.get("parts")
            parts: list[Any] = found if isinstance(found, list) else []
            new_parts: list[Any] = []
            for part in parts:
                call: ToolCall | None = by_part.get(id(part))
                if call is None:
                    new_parts.append(part)
                    continue
                function = part["functionCall"]
                if (function.get("id") or "") == call.id or (not function.get("id") and call.id in derived):
                    new_parts.append(part)
                else:
                    written.add(call.id)
                    new_parts.append({**part, "functionCall": {**function, "id": call.id}})
            if all(a is b for a, b in zip(parts, new_parts, strict=True)):
                return raw
            return {**raw, "parts": new_parts}
        out: list[Any] = []
        for part in m.content if isinstance(m.content, list) else ():
            if isinstance(part, ThinkingPart):
                if isinstance(part.raw, dict) and "thoughtSignature" in part.raw and "text" in part.raw:
                    out.append(part.raw)  # only this format's own thoughts can be sent back
                continue
            out += self._fresh_part(part)
        if isinstance(m.content, str) and m.content:
            out.append({"text": m.content})
        for k, c in enumerate(m.tool_calls):
            args = c.arguments
            if isinstance(args, str):
                try:
                    args = codec.loads(args)
                except orjson.JSONDecodeError:
                    args = {"arguments": args}
            fresh: dict[str, Any] = {"name": c.name or ""}
            if c.id and c.id not in derived:
                fresh["id"] = c.id
            fresh["args"] = args if isinstance(args, dict) else {} if args is None else {"value": args}
            written_part: dict[str, Any] = {"functionCall": fresh}
            if k == 0 and not (isinstance(c.raw, dict) and "functionCall" in c.raw):
                written_part["thoughtSignature"] = SKIP_SIGNATURE  # a call Gemini never signed
            out.append(written_part)
        return {"role": "model", "parts": out}

    def _own_parts(self, m: Message, written: set[str]) -> list[Any] | None:
        """The original parts of a message this format loaded, its response id patched if its call
        was renamed; None when the message is not one this format made."""
        content = m.content if isinstance(m.content, list) else []
        if m.role != "tool":
            return [p.raw for p in content]
        part = content[0].raw if content else None
        if not isinstance(part, dict) or not isinstance(part.get("functionResponse"), dict):
            return None
        response = part["functionResponse"]
        rid = response.get("id") or ""
        if rid == m.tool_call_id or (not rid and m.tool_call_id not in written):
            return [part]
        return [{**part, "functionResponse": {**response, "id": m.tool_call_id}}]

    def _fresh_parts(self, m: Message, derived: set[str], names: dict[str, str | None]) -> list[Any]:
        if m.role == "tool":
            text = (
                m.content
                if isinstance(m.content, str)
                else "\n".join(p.text for p in m.content or () if isinstance(p, TextPart))
            )
            response: dict[str, Any] = {}
            if m.tool_call_id and m.tool_call_id not in derived:
                response["id"] = m.tool_call_id
            response["name"] = m.name or names.get(m.tool_call_id) or ""
            response["response"] = {"error" if m.is_error else "output": text}
            return [{"functionResponse": response}]
        if m.content is None:
            return []
        if isinstance(m.content, str):
            return [{"text": m.content}]
        out: list[Any] = []
        for part in m.content:
            out += self._fresh_part(part)
        return out

    def _fresh_part(self, part: Part) -> list[Any]:
        raw = part.raw
        if isinstance(part, TextPart):
            plain = isinstance(raw, dict) and set(raw) <= {"text", "thoughtSignature"} and raw.get("text") == part.text
            return [raw if plain else {"text": part.text}]
        if isinstance(part, ImagePart):
            if isinstance(raw, dict) and isinstance(raw.get("inlineData") or raw.get("fileData"), dict):
                return [raw]
            if part.data:
                return [{"inlineData": {"mimeType": part.media_type or "image/png", "data": part.data}}]
            if part.url and not part.url.startswith("data:"):
                return [{"fileData": {"mimeType": part.media_type or "image/png", "fileUri": part.url}}]
            data, media = _inline(raw, part.media_type)
            return [{"inlineData": {"mimeType": media, "data": data}}] if data else []
        if isinstance(part, OtherPart) and isinstance(raw, dict) and isinstance(raw.get("text"), str):
            return [{"text": raw["text"]}]
        return []


def _inline(raw: Any, media_type: str | None) -> tuple[str, str]:
    """Base64 data and media type of an image another format loaded, where it is inline."""
    media: str = media_type or "image/png"
    if not isinstance(raw, dict):
        return "", media
    for holder in (raw.get("source"), raw.get("image_url"), raw):
        if isinstance(holder, dict):
            found = holder.get("media_type") or holder.get("mediaType") or holder.get("mimeType")
            media = found if isinstance(found, str) else media
            data, url = holder.get("data"), holder.get("url")
            for value in (data, url):
                if isinstance(value, str) and value.startswith("data:") and ";base64," in value:
                    head, payload = value.split(";base64,", 1)
                    return payload, head[5:] or media
            if isinstance(data, str):
                return data, media
    image = raw.get("image_url") if isinstance(raw.get("image_url"), str) else raw.get("image")
    if isinstance(image, str):
        if image.startswith("data:") and ";base64," in image:
            head, data = image.split(";base64,", 1)
            return data, head[5:] or media
        if ":" not in image[:10]:
            return image, media
    return "", media


ADAPTER = GeminiAdapter()
