"""pi's resume step, as pi 0.73.1 does it.

Measured on the sessions the real pi 0.73.1 wrote and the requests it sent on resume, talking to
each of four providers (``sample_sessions/recorded/pi-0.73.1``: OpenAI Chat, ``api:
"openai-completions"``; ``pi-0.73.1-anthropic``: Anthropic Messages, ``"anthropic-messages"``;
``pi-0.73.1-responses``: OpenAI Responses, ``"openai-responses"``; ``pi-0.73.1-gemini``: Google
Gemini, ``"google-generative-ai"``; every crash shape of the corpus with each), and read in pi's
own code (pi-ai ``transformMessages`` and each provider's
``convertMessages``). From the history as written (``suture.formats.pi``: the ``parentId``
branch from the last entry, turns that ended in error or aborted already left out):

- a call with no result before the next assistant or user message (or the end) gets a ``tool``
  result "No result provided" (``isError``) there, in the request only; a turn pi left out
  because it failed still ends the calls before it;
- results are sent as written: one for a call of a failed turn answers nothing pi sends (the
  provider rejects it), two for one call are both sent;
- a ``!`` command, a custom message and a branch or compaction summary reach the model as user
  text;
- another model's turn: its reasoning becomes text, or is left out when empty; its text loses its
  signature; its call ids are normalised for the request's format (each provider's
  ``normalizeToolCallId``, read in pi's code, not recorded), and its results follow them;
- the request is in the format of the provider the session talks to: OpenAI Chat
  (``openai-completions``: text joined into a string, ``tool_calls`` with JSON arguments, one
  ``tool`` message per result), Anthropic Messages (whitespace-only text and empty thinking left
  out, consecutive results in one user message), OpenAI Responses (user messages as items with
  no ``type``, ``input_text`` parts; a call's stored id ``{call_id}|{item id}`` split into
  ``call_id`` and ``id``, its output for the ``call_id`` alone; assistant text as a completed
  ``message`` item whose id is its signature's or ``msg_{n}``, ``n`` the number of messages
  written before it), or Gemini (``google-generative-ai``: a ``model`` content of the assistant's
  parts; each result a ``functionResponse`` with ``output``, or ``error`` where it failed, joined
  to a user content of results just before it; no call ids, but to a ``claude-`` or ``gpt-oss-``
  model; a ``thoughtSignature`` only back to the provider and model that made it, valid base64).

When it sends OpenAI Chat or OpenAI Responses, pi puts its system prompt first, as a ``system``
message the session does not hold (:data:`ADDED`), so ``messages[N]`` / ``input[N]`` is one more
than the place in ``wire``; for Anthropic Messages (``system``) and Gemini
(``systemInstruction``) the system prompt is not a message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from suture.model import Message, Transcript
from suture.sent import Added, Built, Fix, Pieces
from suture.sent.kept import Resumed, Whole

__all__ = ["ADDED", "GROWING", "MEASURED", "MODEL", "NO_RESULT", "SPLIT_IDS", "Grown", "build", "short_hash"]

MEASURED = ("0.73.1",)
"""The pi versions recorded resuming every crash shape of the corpus (``sample_sessions/recorded``),
each sending what this module says: a file one of them wrote is modelled as its own version."""
MODEL = MEASURED[-1]
"""The pi version whose resume is assumed for a file another version wrote."""
ADDED = {
    "chat": (Added(0, "system", "pi's system prompt"),),
    "responses": (Added(0, "system", "pi's system prompt"),),
}
"""What pi 0.73.1 puts into the request that the session does not hold, by wire format (seen in
every OpenAI Chat and OpenAI Responses request of the recorded corpus: a ``system`` message first,
in ``messages`` and in ``input``; to Anthropic the system prompt is ``system``, not a message)."""
NO_RESULT = "No result provided"
_COMPACTION = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n",
    "\n</summary>",
)
_BRANCH = ("The following is a summary of a branch that this conversation came back from:\n\n<summary>\n", "</summary>")
_PROVIDERS = {"messages": "anthropic", "chat": "openai-chat", "responses": "openai-responses", "gemini": "gemini"}
_OPENAI_TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
"""The providers whose Responses tool call ids pi-ai keeps as ``{call_id}|{item id}`` when it
normalises another model's calls (``OPENAI_TOOL_CALL_PROVIDERS``, pi-ai openai-responses)."""
_NOT_ID = re.compile(r"[^a-zA-Z0-9_-]")
GROWING = frozenset({"chat", "messages"})
"""The request formats in which what pi writes of the messages before a cut does not depend on
what follows or where the build starts (:attr:`_Builder.grows`)."""
SPLIT_IDS = frozenset({"responses"})
"""The request formats pi sends a call's stored id ``{call_id}|{item id}`` to in two parts, the
``call_id`` alone pairing a call with its output (the write-back keeps those apart,
``suture.writeback.pi.written_ids``)."""


def _json(value: Any) -> str:
    """``JSON.stringify`` of a JSON value."""
    return orjson.dumps(value).decode()


def _utf16(text: str) -> list[int]:
    """The UTF-16 code units of ``text`` (what JavaScript's string functions count)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[k] | data[k + 1] << 8 for k in range(0, len(data), 2)]


def _sanitized(text: str) -> str:
    """``text.replace(/[^a-zA-Z0-9_-]/g, "_")``: one ``_`` a UTF-16 code unit."""
    return _NOT_ID.sub(lambda m: "_" * len(_utf16(m[0])), text)


def short_hash(text: str) -> str:
    """pi-ai's ``shortHash``: two 32-bit multiplicative hashes of the UTF-16 code units, in base 36."""

    def imul(a: int, b: int) -> int:
        return (a * b) & 0xFFFFFFFF

    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    for unit in _utf16(text):
        h1 = imul(h1 ^ unit, 2654435761)
        h2 = imul(h2 ^ unit, 1597334677)
    h1 = imul(h1 ^ (h1 >> 16), 2246822507) ^ imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = imul(h2 ^ (h2 >> 16), 2246822507) ^ imul(h1 ^ (h1 >> 13), 3266489909)
    return _base36(h2) + _base36(h1)


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def _text_id(signature: Any) -> tuple[str | None, str | None]:
    """pi-ai's ``parseTextSignature``: the Responses message id (and phase) a text block's
    ``textSignature`` holds, a JSON ``{"v": 1, "id", "phase"}`` or the id itself."""
    if not isinstance(signature, str) or not signature:
        return None, None
    if signature.startswith("{"):
        try:
            parsed = orjson.loads(signature)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


@dataclass(slots=True)
class Before:
    """What a build of the messages from a cut (a message that is not a result: pi ends the calls
    before it there) needs of those before it."""

    previous: int
    """The greatest line of the messages before the cut."""
    failed: list[int]
    """The lines of the failed turns pi left out that come among them, in order."""
    target: tuple[Any, Any, Any]
    """The provider, API and model the session talks to (those of its last assistant message)."""
    wire_format: str


class _Builder:
    def __init__(self, transcript: Transcript, start: int = 0, before: Before | None = None) -> None:
        self.transcript = transcript
        self.messages = transcript.messages
        self.start = start
        self.before = before
        # (The reader gives a pi session one of the four formats pi's code writes; Anthropic is
        # its default.)
        fmt = transcript.export_format if transcript.export_format in _PROVIDERS else "messages"
        self.built = Built([], fmt, _PROVIDERS.get(fmt, ""), MODEL, [], {}, added=ADDED.get(fmt, ()))
        last = next((m.raw for m in reversed(self.messages) if m.role == "assistant" and isinstance(m.raw, dict)), {})
        self.target = (last.get("provider"), last.get("api"), last.get("model"))
        self.failed: list[int] = []
        """The lines of the failed turns among the messages before the cut, then those after."""
        self.ids: dict[Any, Any] = {}
        """Another model's call ids pi normalises for the request's format, to what it sends."""
        self.ends: list[tuple[int, int]] = []
        """For each message from the cut on: its greatest line so far, and how many failed
        turns come before it."""

    @property
    def grows(self) -> bool:
        """Whether what pi writes of the messages before a cut is the same whatever follows and
        wherever the build starts: not for Responses, whose text ids count every message before
        (``msg_{n}``), nor for Gemini, which joins a result to the content before it wherever that
        holds results."""
        return self.built.wire_format in GROWING

    def where(self, i: int) -> str:
        source = self.messages[i].source
        return f" ({source})" if source is not None else ""

    # -- pi's own messages, as the model gets them (convertToLlm + transformMessages) -------------

    def llm(self) -> list[tuple[str, dict[str, Any], int]]:
        """(role, pi message, as-written index) in order, with "No result provided" results made
        up where pi makes them."""
        # The messages in their order (a compaction summary comes first though written last),
        # with each failed turn pi left out at its place among them, by line.
        failed = sorted(s.source.line or 0 for s in self.transcript.skipped if s.kind == "errored_turn")
        self.failed = list(failed)
        events: list[tuple[int, int, Message | None]] = []
        previous = 0
        popped = 0
        before = self.before
        if before is not None:
            if failed[: len(before.failed)] != before.failed or self.target != before.target:
                raise Whole  # what pi reads of the whole session is not what the kept part read
            if self.built.wire_format != before.wire_format:
                raise Whole
            previous, popped = before.previous, len(before.failed)
        for i in range(self.start, len(self.messages)):
            written = self.messages[i]
            line = written.source.line if written.source is not None and written.source.line is not None else 0
            while popped < len(failed) and previous < failed[popped] < line:
                events.append((failed[popped], -1, None))
                popped += 1
            self.ends.append((previous, popped))
            events.append((line, i, written))
            previous = max(previous, line)
        events.extend((line, -1, None) for line in failed[popped:] if line > previous)
        out: list[tuple[str, dict[str, Any], int]] = []
        pending: list[tuple[dict[str, Any], int]] = []
        answered: set[Any] = set()

        def flush() -> None:
            for call, owner in pending:
                if call.get("id") in answered:
                    continue
                result = {
                    "role": "toolResult",
                    "toolCallId": call.get("id"),
                    "toolName": call.get("name"),
                    "content": [{"type": "text", "text": NO_RESULT}],
                    "isError": True,
                }
                out.append(("toolResult", result, owner))
                self.built.fixes.append(
                    Fix(
                        "inserted_result",
                        f'pi answers call {call.get("id") or "(no id)"}{self.where(owner)} with "{NO_RESULT}"',
                        owner,
                        self.messages[owner].source,
                        str(call.get("id")) if call.get("id") is not None else None,
                    )
                )
            pending.clear()
            answered.clear()

        for _, i, m in events:
            if m is None:
                flush()  # a failed turn pi leaves out still ends the calls before it
                continue
            raw = m.raw if isinstance(m.raw, dict) else {}
            if m.role == "assistant":
                flush()
                message = self.assistant(raw)
                calls = [b for b in message.get("content") or [] if isinstance(b, dict) and b.get("type") == "toolCall"]
                if calls:
                    pending[:] = [(c, i) for c in calls]
                    answered.clear()
                out.append(("assistant", message, i))
            elif m.role == "tool":
                if self.ids.get(raw.get("toolCallId"), raw.get("toolCallId")) != raw.get("toolCallId"):
                    raw = {**raw, "toolCallId": self.ids[raw.get("toolCallId")]}
                answered.add(raw.get("toolCallId"))
                out.append(("toolResult", raw, i))
            else:
                flush()
                out.append(("user", self.user(m, raw), i))
        flush()
        return out

    def user(self, m: Message, raw: dict[str, Any]) -> dict[str, Any]:
        text = m.content if isinstance(m.content, str) else None
        if m.role == "compactionSummary":
            return {
                "role": "user",
                "content": [{"type": "text", "text": _COMPACTION[0] + (text or "") + _COMPACTION[1]}],
            }
        if m.role == "branchSummary":
            return {"role": "user", "content": [{"type": "text", "text": _BRANCH[0] + (text or "") + _BRANCH[1]}]}
        if m.role == "bashExecution":
            return {"role": "user", "content": [{"type": "text", "text": text or ""}]}
        content = raw.get("content")
        if m.role == "custom" and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        return {"role": "user", "content": content}

    def assistant(self, raw: dict[str, Any]) -> dict[str, Any]:
        same = (raw.get("provider"), raw.get("api"), raw.get("model")) == self.target
        content = raw.get("content")
        if same or not isinstance(content, list):
            return raw
        blocks: list[Any] = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "thinking":
                if block.get("redacted"):
                    continue
                text = block.get("thinking")
                if isinstance(text, str) and text.strip():
                    blocks.append({"type": "text", "text": text})
                continue
            if isinstance(block, dict) and block.get("type") == "text":
                block = {"type": "text", "text": block.get("text")}  # (its signature is the other model's)
            if isinstance(block, dict) and block.get("type") == "toolCall":
                block = {k: v for k, v in block.items() if k != "thoughtSignature"}
                normalised = self.normalised(block.get("id"), raw)
                if normalised != block.get("id"):
                    self.ids[block.get("id")] = normalised
                    block["id"] = normalised
            blocks.append(block)
        return {**raw, "content": blocks}

    def normalised(self, call_id: Any, source: dict[str, Any]) -> Any:
        """The id pi sends for another model's call ``call_id`` (``source`` its message), in the
        request's format: each provider's ``normalizeToolCallId`` in pi-ai."""
        if not isinstance(call_id, str):
            return call_id
        return _NORMALISERS[self.built.wire_format](call_id, source, self.target)

    # -- the provider's request -----------------------------------------------------------------

    def chat(self, llm: list[tuple[str, dict[str, Any], int]]) -> None:
        mark = self.built.mark
        for role, message, i in llm:
            content = message.get("content")
            if role == "user":
                if isinstance(content, str):
                    self.built.wire.append(mark({"role": "user", "content": content}, i))
                    continue
                parts = []
                for block in content if isinstance(content, list) else []:
                    if not isinstance(block, dict):
                        continue
                    if block.get("type") == "text":
                        parts.append({"type": "text", "text": block.get("text")})
                    else:
                        url = f"data:{block.get('mimeType')};base64,{block.get('data')}"
                        parts.append({"type": "image_url", "image_url": {"url": url}})
                if parts:
                    self.built.wire.append(mark({"role": "user", "content": parts}, i))
            elif role == "assistant":
                blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
                text = "".join(
                    str(b.get("text"))
                    for b in blocks
                    if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip()
                )
                record: dict[str, Any] = {"role": "assistant", "content": text or None}
                thinking = [b for b in blocks if b.get("type") == "thinking" and str(b.get("thinking") or "").strip()]
                signature = thinking[0].get("thinkingSignature") if thinking else None
                if isinstance(signature, str) and signature:
                    record[signature] = "\n".join(str(b.get("thinking")) for b in thinking)
                calls = [b for b in blocks if b.get("type") == "toolCall"]
                if calls:
                    record["tool_calls"] = [
                        {
                            "id": c.get("id"),
                            "type": "function",
                            "function": {"name": c.get("name"), "arguments": _json(c.get("arguments"))},
                        }
                        for c in calls
                    ]
                if record["content"] is None and not calls:
                    continue
                self.built.wire.append(mark(record, i))
            else:
                blocks = content if isinstance(content, list) else []
                text = "\n".join(str(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text")
                self.built.wire.append(
                    mark(
                        {
                            "role": "tool",
                            "content": text or "(see attached image)",
                            "tool_call_id": message.get("toolCallId"),
                        },
                        i,
                    )
                )

    def anthropic(self, llm: list[tuple[str, dict[str, Any], int]]) -> None:
        mark = self.built.mark
        results: list[dict[str, Any]] = []
        first: int | None = None
        for role, message, i in [*llm, ("end", {}, -1)]:
            if role != "toolResult" and results:
                self.built.wire.append(mark({"role": "user", "content": results}, first))
                results, first = [], None
            content = message.get("content")
            if role == "user":
                if isinstance(content, str):
                    if content.strip():
                        self.built.wire.append(mark({"role": "user", "content": content}, i))
                    continue
                blocks = []
                for block in content if isinstance(content, list) else []:
                    if not isinstance(block, dict):
                        continue
                    if block.get("type") == "text":
                        if str(block.get("text") or "").strip():
                            blocks.append({"type": "text", "text": block.get("text")})
                    else:
                        source = {"type": "base64", "media_type": block.get("mimeType"), "data": block.get("data")}
                        blocks.append({"type": "image", "source": source})
                if blocks:
                    self.built.wire.append(mark({"role": "user", "content": blocks}, i))
            elif role == "assistant":
                blocks = _anthropic_assistant_blocks(content)
                if blocks:
                    self.built.wire.append(mark({"role": "assistant", "content": blocks}, i))
            elif role == "toolResult":
                parts = content if isinstance(content, list) else []
                if any(isinstance(p, dict) and p.get("type") == "image" for p in parts):
                    value: Any = [
                        {"type": "text", "text": p.get("text")}
                        if p.get("type") == "text"
                        else {
                            "type": "image",
                            "source": {"type": "base64", "media_type": p.get("mimeType"), "data": p.get("data")},
                        }
                        for p in parts
                        if isinstance(p, dict)
                    ]
                else:
                    value = "\n".join(str(p.get("text")) for p in parts if isinstance(p, dict))
                block = {
                    "type": "tool_result",
                    "tool_use_id": message.get("toolCallId"),
                    "content": value,
                    "is_error": message.get("isError"),
                }
                results.append(mark(block, i))
                first = i if first is None else first

    def responses(self, llm: list[tuple[str, dict[str, Any], int]]) -> None:
        """pi-ai's ``convertResponsesMessages``: user messages as ``input_text``/``input_image``
        (no ``type`` key), an assistant message as its items (reasoning from its signature, text as
        a completed ``message`` whose id is the text's signature or ``msg_{n}``, ``n`` counting the
        messages written before it, calls with ``call_id`` and ``id`` split from ``{call_id}|{id}``),
        a result as ``function_call_output`` for the ``call_id`` before ``|``."""
        mark = self.built.mark
        index = 0
        for role, message, i in llm:
            content = message.get("content")
            if role == "user":
                if isinstance(content, str):
                    parts: list[Any] = [{"type": "input_text", "text": content}]
                else:
                    parts = [_responses_part(b, "input_text") for b in content or [] if isinstance(b, dict)]
                    if not parts:
                        continue
                self.built.wire.append(mark({"role": "user", "content": parts}, i))
            elif role == "assistant":
                items = self.responses_items(message, index)
                if not items:
                    continue
                self.built.wire.extend(mark(item, i) for item in items)
            else:
                blocks = [b for b in content or [] if isinstance(b, dict)] if isinstance(content, list) else []
                text = "\n".join(str(b.get("text")) for b in blocks if b.get("type") == "text")
                output: Any = text or "(see attached image)"
                if any(b.get("type") == "image" for b in blocks):
                    output = [{"type": "input_text", "text": text}] if text else []
                    output += [_responses_part(b, "input_text") for b in blocks if b.get("type") == "image"]
                call_id = message.get("toolCallId")
                call_id = call_id.split("|")[0] if isinstance(call_id, str) else call_id
                self.built.wire.append(mark({"type": "function_call_output", "call_id": call_id, "output": output}, i))
            index += 1

    def responses_items(self, message: dict[str, Any], index: int) -> list[dict[str, Any]]:
        """The Responses items pi writes for an assistant message, the ``index``-th it writes."""
        other_model = message.get("model") != self.target[2] and (
            message.get("provider"),
            message.get("api"),
        ) == (self.target[0], self.target[1])
        items: list[dict[str, Any]] = []
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "thinking" and block.get("thinkingSignature"):
                try:
                    items.append(orjson.loads(block["thinkingSignature"]))  # the reasoning item pi kept
                except (orjson.JSONDecodeError, TypeError):
                    continue
            elif kind == "text":
                found, phase = _text_id(block.get("textSignature"))
                msg_id = f"msg_{index}" if not found else f"msg_{short_hash(found)}" if len(found) > 64 else found
                said: dict[str, Any] = {"type": "output_text", "text": block.get("text"), "annotations": []}
                item = {"type": "message", "role": "assistant", "content": [said], "status": "completed", "id": msg_id}
                items.append({**item, "phase": phase} if phase else item)
            elif kind == "toolCall":
                call_id, split, item_id = str(block.get("id")).partition("|")
                call: dict[str, Any] = {"type": "function_call"}
                if split and not (other_model and item_id.startswith("fc_")):
                    call["id"] = item_id.split("|")[0]
                call.update(call_id=call_id, name=block.get("name"))
                if "arguments" in block:
                    call["arguments"] = _json(block.get("arguments"))
                items.append(call)
        return items

    def gemini(self, llm: list[tuple[str, dict[str, Any], int]]) -> None:
        """pi-ai's Gemini ``convertMessages`` (google-shared): user parts, a ``model`` content of
        the assistant's parts, each result a ``functionResponse`` (``output``, or ``error`` for a
        failed one) joined to the user content of results before it. Call ids are sent only to a
        model that needs them (``claude-``, ``gpt-oss-``), signatures only to the model that made
        them."""
        mark, contents = self.built.mark, self.built.wire
        model_id = str(self.target[2] or "")
        with_id = model_id.startswith(("claude-", "gpt-oss-"))
        version = re.match(r"gemini(?:-live)?-(\d+)", model_id.lower())
        nested_images = version is None or int(version[1]) >= 3
        for role, message, i in llm:
            content = message.get("content")
            if role == "user":
                if isinstance(content, str):
                    parts: list[Any] = [{"text": content}]
                else:
                    parts = [_gemini_part(b) for b in content or [] if isinstance(b, dict)]
                    if not parts:
                        continue
                contents.append(mark({"role": "user", "parts": parts}, i))
            elif role == "assistant":
                same = (message.get("provider"), message.get("model")) == (self.target[0], self.target[2])
                parts = _gemini_model_parts(message.get("content"), same, with_id)
                if parts:
                    contents.append(mark({"role": "model", "parts": parts}, i))
            else:
                blocks = [b for b in content or [] if isinstance(b, dict)] if isinstance(content, list) else []
                text = "\n".join(str(b.get("text")) for b in blocks if b.get("type") == "text")
                images = [_gemini_part(b) for b in blocks if b.get("type") == "image"]
                value = text or ("(see attached image)" if images else "")
                response: dict[str, Any] = {
                    "name": message.get("toolName"),
                    "response": {"error": value} if message.get("isError") else {"output": value},
                }
                if images and nested_images:
                    response["parts"] = images
                if with_id:
                    response["id"] = message.get("toolCallId")
                part = mark({"functionResponse": response}, i)
                last = contents[-1] if contents else None
                if (
                    last is not None
                    and last.get("role") == "user"
                    and any("functionResponse" in p for p in last["parts"])
                ):
                    last["parts"].append(part)
                else:
                    contents.append(mark({"role": "user", "parts": [part]}, i))
                if images and not nested_images:
                    contents.append(mark({"role": "user", "parts": [{"text": "Tool result image:"}, *images]}, i))

    def build(self) -> Built:
        llm = self.llm()
        writers = {"chat": self.chat, "messages": self.anthropic, "responses": self.responses, "gemini": self.gemini}
        if self.before is not None and not self.grows:
            raise Whole  # (Responses and Gemini: read whole)
        writers[self.built.wire_format](llm)
        return self.built


def build(transcript: Transcript) -> Built:
    """The request history pi builds from this as-written session on resume."""
    return _Builder(transcript).build()


class Grown(Resumed):
    """What pi sends on resume, for a session that grows (:class:`suture.sent.kept.Resumed`).

    The cut is a message that is not a result: pi ends the calls before it there (their missing
    results are made before it), so what it sends of the messages before the cut is built apart
    from the rest, given the failed turns it left out among them and the provider, API and
    model the session talks to, which are carried over the cut and checked: where the session
    now talks to another model, or its failed turns before the cut are others, the build
    starts again from the first message. A request whose writing is not the same whatever follows
    (:attr:`_Builder.grows`: Responses, Gemini) is built whole every time."""

    def _fresh(self) -> None:
        super()._fresh()
        self.before: Before | None = None
        self.builder: _Builder | None = None

    def _build(self, transcript: Transcript) -> tuple[Built, list[int]]:
        builder = _Builder(transcript, self.cut, self.before if self.cut else None)
        builder.build()
        self.builder = builder
        return builder.built, [len(builder.built.fixes)]

    def _move(self, transcript: Transcript, built: Built, passes: list[int], found: Pieces, first: int) -> None:
        """Move the cut to the last message but one that is not a result, keeping what the build
        made of the messages before it."""
        builder, self.builder = self.builder, None
        assert builder is not None
        if not builder.grows:
            return  # read whole (see _Builder.grows)
        messages = transcript.messages
        cuts = [i for i in range(self.cut + 1, len(messages)) if messages[i].role != "tool"]
        if len(cuts) < 2:
            return
        cut = cuts[-2]
        origin = built.origin_of
        at = next((k for k, value in enumerate(built.wire) if (origin.get(id(value)) or 0) >= cut), len(built.wire))
        if not self._keep(built, passes, found, first, at, cut):
            return
        previous, popped = builder.ends[cut - builder.start]
        self.before = Before(previous, builder.failed[:popped], builder.target, built.wire_format)


_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def _signature(same: bool, signature: Any) -> dict[str, Any]:
    """A ``thoughtSignature`` pi sends back: the same provider's and model's, valid base64."""
    valid = isinstance(signature, str) and len(signature) % 4 == 0 and _BASE64.fullmatch(signature) is not None
    return {"thoughtSignature": signature} if same and valid else {}


def _gemini_part(block: dict[str, Any]) -> dict[str, Any]:
    """A pi text or image block as a Gemini part."""
    if block.get("type") == "text":
        return {"text": block.get("text")}
    return {"inlineData": {"mimeType": block.get("mimeType"), "data": block.get("data")}}


def _gemini_model_parts(content: Any, same: bool, with_id: bool) -> list[dict[str, Any]]:
    """The Gemini parts pi writes for an assistant message's content: text and thinking that say
    something (thinking as a thought only for the same provider and model), and calls."""
    parts: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and str(block.get("text") or "").strip():
            parts.append({"text": block.get("text"), **_signature(same, block.get("textSignature"))})
        elif kind == "thinking" and str(block.get("thinking") or "").strip():
            if same:
                signature = _signature(same, block.get("thinkingSignature"))
                parts.append({"thought": True, "text": block.get("thinking"), **signature})
            else:
                parts.append({"text": block.get("thinking")})
        elif kind == "toolCall":
            arguments = block.get("arguments")
            call = {"name": block.get("name"), "args": arguments if arguments is not None else {}}
            if with_id:
                call["id"] = block.get("id")
            parts.append({"functionCall": call, **_signature(same, block.get("thoughtSignature"))})
    return parts


def _responses_part(block: dict[str, Any], text_type: str) -> dict[str, Any]:
    """A pi text or image block as a Responses input part."""
    if block.get("type") == "text":
        return {"type": text_type, "text": block.get("text")}
    return {
        "type": "input_image",
        "detail": "auto",
        "image_url": f"data:{block.get('mimeType')};base64,{block.get('data')}",
    }


# -- another model's call ids, as each of pi-ai's providers normalises them -----------------------

Target = tuple[Any, Any, Any]


def _anthropic_id(call_id: str, source: dict[str, Any], target: Target) -> str:
    """anthropic.ts: the id pattern and length Anthropic takes."""
    return _sanitized(call_id)[:64]


def _chat_id(call_id: str, source: dict[str, Any], target: Target) -> str:
    """openai-completions.ts: a Responses id's ``call_id``, 40 characters at most."""
    if "|" in call_id:
        return _sanitized(call_id.split("|")[0])[:40]
    return call_id[:40] if target[0] == "openai" else call_id


def _gemini_id(call_id: str, source: dict[str, Any], target: Target) -> str:
    """google-shared.ts: only for a model that takes call ids."""
    return _sanitized(call_id)[:64] if str(target[2] or "").startswith(("claude-", "gpt-oss-")) else call_id


def _responses_id(call_id: str, source: dict[str, Any], target: Target) -> str:
    """openai-responses-shared.ts: ``{call_id}|{item id}`` for OpenAI's own providers (another
    provider's item id hashed, ``fc_`` first), else the whole id made one Responses takes."""

    def part(text: str) -> str:
        return _sanitized(text)[:64].rstrip("_")

    if target[0] not in _OPENAI_TOOL_CALL_PROVIDERS or "|" not in call_id:
        return part(call_id)
    call, item = call_id.split("|")[:2]
    foreign = (source.get("provider"), source.get("api")) != target[:2]
    item_id = f"fc_{short_hash(item)}"[:64] if foreign else part(item)
    if not item_id.startswith("fc_"):
        item_id = part(f"fc_{item_id}")
    return f"{part(call)}|{item_id}"


_NORMALISERS = {"messages": _anthropic_id, "chat": _chat_id, "gemini": _gemini_id, "responses": _responses_id}


def _anthropic_assistant_blocks(content: Any) -> list[dict[str, Any]]:
    """The Anthropic blocks pi writes for an assistant message's content: text that says something,
    thinking (signed; unsigned as text; redacted as ``redacted_thinking``), and tool calls."""
    blocks: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and str(block.get("text") or "").strip():
            blocks.append({"type": "text", "text": block.get("text")})
        elif kind == "thinking":
            if block.get("redacted"):
                blocks.append({"type": "redacted_thinking", "data": block.get("thinkingSignature")})
                continue
            text = str(block.get("thinking") or "")
            signature = block.get("thinkingSignature")
            if not text.strip():
                continue
            if not isinstance(signature, str) or not signature.strip():
                blocks.append({"type": "text", "text": text})
            else:
                blocks.append({"type": "thinking", "thinking": text, "signature": signature})
        elif kind == "toolCall":
            arguments = block.get("arguments")
            blocks.append(
                {
                    "type": "tool_use",
                    "id": block.get("id"),
                    "name": block.get("name"),
                    "input": arguments if arguments is not None else {},
                }
            )
    return blocks
