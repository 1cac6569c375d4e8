"""Neutral messages: the one shape every format adapter loads into and dumps from.

The repair engine (``suture.repair``) works only on these types. A format adapter turns each
record of its file into a :class:`Message` and keeps the record itself in ``raw``, so a message
that repair does not touch is written back exactly as it was read. Repair never edits ``raw``:
a message it changes is a new object (``msgspec.structs.replace``) whose neutral fields differ from
the record only in call ids and ``tool_call_id``; synthetic messages carry no ``raw`` at all.

Messages, calls and parts are treated as immutable values; they are not ``frozen``, as loaders
build one per record. They are ``msgspec.Struct`` records, as
is every record type the app makes before its first screen: a Struct class costs about a
twenty-fifth of a dataclass to define (no source is generated and compiled at import) and its
instances are smaller and quicker to build (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

from msgspec import Struct, field

Role: TypeAlias = str
"""``system``, ``user``, ``assistant`` or ``tool``; any other role is kept and treated like ``user``."""


class Source(Struct, frozen=True):
    """Where a neutral message came from in its file, so a person can find the record.

    ``line`` is the 1-based line number for JSONL files; ``pointer`` is an index path such as
    ``messages[3]`` or ``$[12].content[0]`` (``None`` where the line alone says it).
    """

    line: int | None = None
    pointer: str | None = None
    pieces: tuple[tuple[int, int | None], ...] = ()
    """Session logs: every written piece the message is made of, in the message's order, as
    ``(line, block)``: the 1-based line and the index of the block in that record's content
    (``None`` where the piece is the whole record). A message read from one record whole has
    none (``line`` says it all); one response written one block a line, or one block of a user
    record, lists its pieces, so a writer that edits the file can find each one."""

    @property
    def lines(self) -> tuple[int, ...]:
        """Every line the message was read from, in file order."""
        if not self.pieces:
            return (self.line,) if self.line is not None else ()
        return tuple(sorted({line for line, _ in self.pieces}))

    def __str__(self) -> str:
        if self.line is not None and self.pointer:
            return f"line {self.line}, {self.pointer}"
        if self.line is not None:
            return f"line {self.line}"
        return self.pointer or "?"


class TextPart(Struct):
    """A text part of a message's content."""

    text: str
    raw: Any = None
    type: Literal["text"] = "text"


class ImagePart(Struct):
    """An image part. ``media_type`` and ``size`` (bytes of payload, base64 or URL) are for display.

    ``data`` (the base64 payload) or ``url``, where the loader set them, let another format write
    the image without knowing this format's record shape.
    """

    raw: Any
    media_type: str | None = None
    size: int = 0
    type: Literal["image"] = "image"
    data: str | None = None
    url: str | None = None


class ThinkingPart(Struct):
    """Model reasoning. Kept byte-exact: providers verify its signature."""

    text: str
    raw: Any = None
    type: Literal["thinking"] = "thinking"
    signature: str | None = None
    """Anthropic's signature over the reasoning, where the record carries one that Anthropic
    would verify (``signature`` of a thinking block, pi's ``thinkingSignature`` in an Anthropic
    turn, the AI SDK's ``providerOptions.anthropic.signature``). Another format needs it to write
    the part as an Anthropic thinking block; other providers' reasoning state stays in ``raw``."""


class OtherPart(Struct):
    """Any part the neutral model has no type for; kept as it is."""

    raw: Any
    kind: str = "other"
    type: Literal["other"] = "other"


Part: TypeAlias = TextPart | ImagePart | ThinkingPart | OtherPart
Content: TypeAlias = str | list[Part] | None


class ToolCall(Struct):
    """One entry of an assistant message's ``tool_calls``.

    ``id`` is ``""`` where the record has none. ``arguments`` is kept as the format gives it
    (a JSON string for OpenAI chat, an object elsewhere).
    """

    id: str
    name: str | None
    arguments: Any = None
    raw: Any = None


class Message(Struct):
    """A neutral message.

    ``tool_calls`` only on assistant messages; ``tool_call_id`` (``""`` where missing), ``name``
    and ``is_error`` only on tool results. ``raw`` is the record the adapter read, ``source``
    where it read it.
    """

    role: Role
    content: Content = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    name: str | None = None
    is_error: bool | None = None
    raw: Any = None
    source: Source | None = None

    @property
    def is_result(self) -> bool:
        return self.role == "tool"

    @property
    def has_calls(self) -> bool:
        return self.role == "assistant" and bool(self.tool_calls)


def text_of(content: Content) -> str:
    """The plain text of a content value: a string as is, the text parts of a list joined by newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(p.text for p in content if isinstance(p, TextPart | ThinkingPart))


def is_blank(content: Content) -> bool:
    """True for content that says nothing: none, or text that is only whitespace (an image, a
    thinking or any other part says something)."""
    if content is None:
        return True
    if isinstance(content, str):
        return not content.strip()
    return all(type(part) is TextPart and not part.text.strip() for part in content)


def is_placeholder(message: Message) -> bool:
    """Contract rule 1 (docs/contract.md): an assistant message with no calls whose content is only
    whitespace. The repair drops these; a checker uses it to say whether the repair removes a
    problem; a loader, to keep an empty reply that said something in another field."""
    return message.role == "assistant" and not message.tool_calls and is_blank(message.content)


class LoadProblem(Struct):
    """Something in the file that could not become history: a broken line, a bad record."""

    line: int | None
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line is not None else self.message


def problems_said(problems: Sequence[LoadProblem]) -> str:
    """The lines that could not be read, the first three of them named (``line 2: not valid JSON
    ...; line 9: ... (and 4 more)``): what a refusal to read a file names."""
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    return "; ".join(str(p) for p in problems[:3]) + more


class Skipped(Struct, frozen=True):
    """A record the agent that wrote a session log leaves out of what it sends on resume.

    Evidence, not history: an API error record, a turn the provider failed, a line the agent
    does not take as history. ``kind`` says which (``api_error``, ``errored_turn``,
    ``no_timestamp``, ``virtual``, ...); ``reason`` says it in a sentence. Lines that are not
    JSON at all stay in ``Transcript.problems`` (every session agent skips those too).
    """

    source: Source
    kind: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: {self.reason}"


class Transcript(Struct):
    """A loaded file: its neutral messages and what its adapter needs to write it back.

    ``format`` names the adapter that loaded it. ``meta`` belongs to that adapter alone (the
    request body around the messages, the JSON shape, indentation, ...). ``problems`` lists records
    that could not be read; ``evidence`` holds records that explain a failure (an API error line)
    but are not part of the history sent to a provider. ``raw_format`` names the format whose
    record shapes the messages' ``raw`` hold, where it is not ``format`` itself (a Claude Code
    session keeps Anthropic Messages records).
    """

    messages: Sequence[Message]
    format: str
    raw_format: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    problems: list[LoadProblem] = field(default_factory=list)
    evidence: list[tuple[Source, str]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    """Session logs: records on the history's chain that the agent itself does not send (see
    :class:`Skipped`), in file order. Lines no format could read stay in ``problems``."""
    export_format: str = ""
    """Where set, the format this transcript exports as, instead of its adapter's
    ``export_format`` (a pi session exports as the request format of the provider it talked to)."""

    def raw_is(self, name: str) -> bool:
        """True when the messages' ``raw`` records are in the format called ``name``."""
        return (self.raw_format or self.format) == name


def messages_of(messages: object, call: str, transcript: bool = True) -> Sequence[Message]:
    """The history a library function is given as ``messages`` (``call`` names it, as
    ``suture.repair(messages)``): a list of messages, or (``transcript``: where the function
    takes one) a Transcript, whose messages it is; else a TypeError that says what to pass (not
    a file's parsed JSON, a path, or a Repair)."""
    if transcript and isinstance(messages, Transcript):
        return messages.messages
    if isinstance(messages, Sequence) and not isinstance(messages, str | bytes):
        if not messages or isinstance(messages[0], Message):
            return messages
        what = f"a {type(messages).__name__} of {type(messages[0]).__name__}"
    elif hasattr(messages, "messages"):
        what = f"a {type(messages).__name__} (pass its .messages)"
    else:
        what = f"a {type(messages).__name__}"
    taken = (
        "a list of suture.Message, or the Transcript that suture.load_file or suture.load_bytes returns"
        if transcript
        else "a list of suture.Message (a Repair's or a Transcript's .messages)"
    )
    raise TypeError(f"{call}: messages is {taken}, not {what}")
