"""Format adapters: the only code that knows a file format.

Each module in this package that defines ``ADAPTER`` (a :class:`Adapter`) is a format. An adapter
scores how sure it is that a parsed document is its format (``sniff``), turns the document into a
neutral :class:`~suture.model.Transcript` (``load``) and writes neutral messages back in its
format (``dump``). Detection is by content, never by file name:

- every adapter scores the parsed document; the highest score wins. A format that sees a record
  or block only it writes says CERTAIN, and one that sees a record only another format writes
  says 0, so the first message that tells formats apart decides;
- a history that many formats share (``[{"role": "user", "content": "hi"}]``) is no error: the
  formats that fit equally are taken in ``order`` (``Detection.others`` names the rest);
- two formats that each recognise the document for certain make it undecidable: the InputError
  names them and asks for ``--format NAME``.

A session log's adapter also says what the file records about its session (``about(doc)``: the
agent's working folder and the session id; see :func:`about`).

Writing, ``dump(..., to=NAME)`` converts; the result is read back with the target's own loader,
and a history the target cannot express is an InputError that says what it would lose. Session
logs (Claude Code, pi, Codex) export as their provider's request format; ``suture.writeback``
writes one back over the file it was read from, and ``dump`` writes none.

Reading, :func:`load_file` and :func:`load_bytes` refuse a JSONL file with lines that cannot be
read (InputError naming them) unless ``skip_bad_lines=True``, as ``suture repair`` does unless
``--skip-bad-lines``; the command line loads with it and refuses in its own words.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any, Protocol

import orjson
from msgspec import Struct

from suture import codec, show
from suture.io import Document, InputError, first_line_is_a_value, json_layout, parse_document, read_input
from suture.model import LoadProblem, Message, Skipped, TextPart, Transcript, messages_of, problems_said

__all__ = [
    "CERTAIN",
    "LIKELY",
    "PLAUSIBLE",
    "About",
    "Adapter",
    "FormatError",
    "NotTranscript",
    "about",
    "adapters",
    "bad_lines_said",
    "before_compaction",
    "closest",
    "compaction_line",
    "detect",
    "dump",
    "essences",
    "export_name",
    "get",
    "load_bytes",
    "load_file",
    "own_provider",
    "provider_of",
    "read_file",
    "reordered_turns",
    "request_bodies",
    "skipped",
    "written_back_said",
    "written_formats",
]

# Sniff scores. A format that recognises a record only it writes says CERTAIN; one whose shape
# fits but which other formats share says PLAUSIBLE (a plain {"role": "user", "content": "hi"}).
PLAUSIBLE = 1
LIKELY = 5
CERTAIN = 10


class FormatError(InputError):
    """A document that is not a valid transcript of the format that reads it."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}" if where else problem)
        self.where = where
        self.problem = problem


class NotTranscript(InputError):
    """A document no format recognises: valid JSON or JSONL, but not a transcript suture knows
    (a package manifest, a settings file, a request log). Other errors say a file is broken."""


class Adapter(Protocol):
    name: str
    """The short name used by ``--format`` and ``--to``."""
    title: str
    """What a person calls it, for ``suture formats``."""
    order: int
    """Tie-break among formats that fit equally well (lower first), and listing order."""
    export_format: str
    """The format the repaired history is written in: its own name, or for a session log the
    request format of its provider."""

    def sniff(self, doc: Document) -> int:
        """0 when the document is not this format, else a score (PLAUSIBLE, LIKELY, CERTAIN)."""
        ...

    def load(self, doc: Document) -> Transcript:
        """Neutral messages of the document. Raises FormatError for a malformed record."""
        ...

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        """Bytes of ``messages`` in this format. ``transcript`` is what they were loaded as; where
        its ``raw_format`` is this format, untouched records are written back unchanged."""
        ...


class About(Struct, frozen=True):
    """What an agent's session log records about its session: the working folder the agent ran
    in and the session's id (``""`` where the file records none)."""

    cwd: str = ""
    session: str = ""


def about(doc: Document, transcript: Transcript) -> About | None:
    """What the file says about its session when it is an agent's session log (its adapter has
    an ``about(doc)`` method); None for a request format, which records no session."""
    reader = getattr(get(transcript.format), "about", None)
    result: About | None = reader(doc) if reader is not None else None
    return result


def session_log(format: str) -> bool:
    """Whether ``format`` is an agent's session log, written as the agent works (its adapter
    says what the file records about its session: ``about``), not a request to a provider."""
    return hasattr(get(format), "about")


def first_text(records: Sequence[tuple[int, Any]], *keys: str, within: int = 50) -> tuple[str, ...]:
    """For each key, the first string value it has at the top of one of the first ``within``
    records (``""`` where none has one): for an adapter's ``about``."""
    found = dict.fromkeys(keys, "")
    for _, record in records[:within]:
        if isinstance(record, dict):
            for key in keys:
                value = record.get(key)
                if not found[key] and isinstance(value, str):
                    found[key] = value
        if all(found.values()):
            break
    return tuple(found.values())


class Detection(Struct, frozen=True):
    adapter: Adapter
    score: int
    others: tuple[str, ...]


@cache
def adapters() -> tuple[Adapter, ...]:
    """Every format adapter in this package, in listing order."""
    found: list[Adapter] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        adapter = getattr(module, "ADAPTER", None)
        if adapter is not None:
            found.append(adapter)
    return tuple(sorted(found, key=lambda a: (a.order, a.name)))


def get(name: str) -> Adapter:
    """The adapter called ``name``; InputError listing the known ones when there is none."""
    for adapter in adapters():
        if adapter.name == name:
            return adapter
    known = ", ".join(a.name for a in adapters())
    raise InputError(f"unknown format {name!r}; known formats: {known}")


def detect(doc: Document) -> Detection:
    """The format that fits the document best. InputError when none does, or when formats that
    each recognise the document for certain disagree."""
    scored = [(a.sniff(doc), a) for a in adapters()]
    scored = [(s, a) for s, a in scored if s > 0]
    if not scored:
        near = closest(doc)
        why = f"; closest: {near[0].name} ({near[1]})" if near else ""
        raise NotTranscript(
            f"not a transcript suture knows: no format fits{why} (known formats: {', '.join(a.name for a in adapters())})"
        )
    best = max(s for s, _ in scored)
    top = sorted((a for s, a in scored if s == best), key=lambda a: a.order)
    if best >= CERTAIN and len(top) > 1:
        names = ", ".join(a.name for a in top)
        raise InputError(f"this file could be any of {names}; pass --format NAME to choose")
    others = tuple(a.name for s, a in scored if a is not top[0])
    return Detection(top[0], best, others)


_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


def closest(doc: Document) -> tuple[Adapter, str] | None:
    """For a document no format recognises: the format it comes closest to, and why it does not
    fit. Closest is a format that reads messages from it (its records are that format's shape,
    with something no such file holds), else the one whose reading got furthest into it before
    it stopped, else the first that says what it expected."""
    read: list[tuple[int, Adapter, str]] = []
    stopped: list[tuple[int, int, Adapter, str]] = []
    for order, adapter in enumerate(adapters()):
        try:
            transcript = adapter.load(doc)
        except FormatError as e:
            where = e.where
            depth = where.count(".") + where.count("[") + (1 if where else 0)
            stopped.append((-depth, order, adapter, f"{where}: {e.problem}" if where else e.problem))
            continue
        except (InputError, RecursionError, ValueError, TypeError, KeyError, AttributeError):
            continue
        if transcript.messages:
            odd = next(
                ((i, m.role) for i, m in enumerate(transcript.messages) if m.role not in _ROLES),
                None,
            )
            if odd is not None:
                why = f"message {odd[0]} has the role {show.line(repr(odd[1]))}, which {adapter.name} never writes"
            else:
                why = f"its records hold fields {adapter.name} never writes"
            read.append((order, adapter, why))
    if read:
        _, adapter, why = min(read, key=lambda t: t[0])
        return adapter, why
    if stopped:
        _, _, adapter, why = min(stopped, key=lambda t: (t[0], t[1]))
        return adapter, why
    return None


def load_bytes(
    data: bytes, format: str | None = None, *, skip_bad_lines: bool = False, live: bool = False
) -> Transcript:
    """Parse and load a file's bytes, detecting the format unless one is named. InputError (one
    line) for anything wrong with them, JSONL lines that cannot be read included (the first
    three named, as ``suture repair`` names them), unless ``skip_bad_lines``: then the transcript
    is of the lines that could be read, and ``Transcript.problems`` names the others. ``live``:
    as the live reader does (a cut-off last JSONL line is pending, not a problem)."""
    _check_load_argument("load_bytes(data)", data, (bytes, bytearray, memoryview), _BYTES)
    transcript = _load(bytes(data), format, live)
    if transcript.problems and not skip_bad_lines:
        raise InputError(bad_lines_said(transcript.problems, "skip_bad_lines=True"))
    return transcript


def _load(data: bytes, format: str | None, live: bool) -> Transcript:
    """The transcript of a file's bytes, its unreadable JSONL lines named in ``problems``."""
    doc = parse_document(data, live=live)
    adapter = get(format) if format else detect(doc).adapter
    if format and adapter.sniff(doc) == 0:
        raise InputError(f"this file is not in the {format} format")
    return adapter.load(doc)


def bad_lines_said(problems: Sequence[LoadProblem], remedy: str) -> str:
    """Why a file with JSONL lines that cannot be read is refused, and ``remedy``, how to have
    the rest read (``skip_bad_lines=True`` in the library, ``--skip-bad-lines`` on the command
    line): ``line 2: not valid JSON ...; pass --skip-bad-lines to leave them out``."""
    return f"{problems_said(problems)}; pass {remedy} to leave them out"


_BYTES = ("data is the file's bytes (e.g. Path(p).read_bytes())", "for a path, call suture.load_file(path)")
_PATH = ("path is the file's path, a str or a pathlib.Path", "for its bytes, call suture.load_bytes(data)")


def _check_load_argument(call: str, value: object, types: tuple[type, ...], said: tuple[str, str]) -> None:
    """A TypeError that says what to pass (``said``: what the argument is, and where the other
    kind goes), where a loader is given something else."""
    if not isinstance(value, types):
        raise TypeError(f"suture.{call}: {said[0]}, not a {type(value).__name__}; {said[1]}")


def load_file(
    path: str | os.PathLike[str], format: str | None = None, *, skip_bad_lines: bool = False, live: bool = False
) -> Transcript:
    """Read, parse and load a transcript file. InputError (one line) for anything wrong with it,
    JSONL lines that cannot be read included, unless ``skip_bad_lines`` (see :func:`load_bytes`)."""
    return read_file(path, format, skip_bad_lines=skip_bad_lines, live=live)[1]


def read_file(
    path: str | os.PathLike[str], format: str | None = None, *, skip_bad_lines: bool = False, live: bool = False
) -> tuple[bytes, Transcript]:
    """:func:`load_file`, and the bytes the transcript was read from (a session log is written
    back into them: ``suture.writeback``)."""
    _check_load_argument("load_file(path)", path, (str, os.PathLike), _PATH)
    data = read_input(path)
    with errors_named(path):
        return data, load_bytes(data, format, skip_bad_lines=skip_bad_lines, live=live)


@contextlib.contextmanager
def errors_named(path: str | os.PathLike[str]) -> Iterator[None]:
    """What goes wrong reading the file at ``path`` inside, said with its name in front: an
    InputError (a NotTranscript stays one), and a document nested too deeply to read as one."""
    try:
        yield
    except NotTranscript as e:
        raise NotTranscript(f"{show.path(os.fspath(path))}: {e}") from None
    except InputError as e:
        raise InputError(f"{show.path(os.fspath(path))}: {e}") from None
    except RecursionError:
        raise InputError(f"{show.path(os.fspath(path))}: nested too deeply to be a transcript") from None


def skipped(transcript: Transcript) -> list[str]:
    """Sentences naming what the file holds that the agent does not send (the lines before a
    compaction, other branches of a session): where a format has such history, its adapter's
    ``skipped(transcript)`` says so."""
    describe = getattr(get(transcript.format), "skipped", None)
    return list(describe(transcript)) if describe is not None else []


def before_compaction(transcript: Transcript) -> list[Skipped]:
    """The records the file holds before its last compaction, which the agent does not send,
    one each in file order (kind ``compacted``), and the compaction's own record where the agent
    does not send it either (kind ``compaction``): where a format compacts, its adapter's
    ``before_compaction(transcript)`` lists them. The records :func:`skipped` names in a sentence."""
    list_them = getattr(get(transcript.format), "before_compaction", None)
    return list(list_them(transcript)) if list_them is not None else []


def compaction_line(transcript: Transcript) -> int | None:
    """The line of the last compaction a session's history starts from (``None`` where none
    does): where an adapter that compacts says it is (its ``meta["compacted"]``), or for pi, the
    compaction entry its history's summary is read from (``compactionSummary``)."""
    compacted = transcript.meta.get("compacted")
    line = compacted.get("line") if isinstance(compacted, dict) else None
    if line is None:
        line = next(
            (m.source.line for m in transcript.messages if _compaction_entry(m) and m.source is not None),
            None,
        )
    return line if isinstance(line, int) else None


def _compaction_entry(message: Message) -> bool:
    """Whether ``message`` is read from a pi compaction entry (not a message that only has the
    summary's role)."""
    return (
        message.role == "compactionSummary"
        and isinstance(message.raw, dict)
        and message.raw.get("type") == "compaction"
    )


def export_name(transcript: Transcript) -> str:
    """The format a transcript's repaired history is written in when no other is asked for."""
    return transcript.export_format or get(transcript.format).export_format


def request_bodies() -> tuple[str, ...]:
    """The formats any history is written in as a request body (``suture repair --to``,
    ``dump(to=)``), in listing order: every format but the session logs, which suture writes only
    back over the session they were read from (``suture.writeback.AGENTS``)."""
    from suture.writeback import writes_back

    return tuple(a.name for a in adapters() if not writes_back(a.name))


def written_formats(source: str) -> tuple[str, ...]:
    """Every format a transcript read as ``source`` is written in: first what ``suture repair``
    writes without ``--to`` (the format itself; a session log written back for its agent by
    ``suture.writeback``), then every other request body (:func:`request_bodies`). ``suture
    repair --to`` takes these and ``suture formats`` lists them; :func:`dump` writes the request
    bodies among them and refuses any other (a session log's own format: ``write_back``)."""
    return (source, *(name for name in request_bodies() if name != source))


def own_provider(transcript: Transcript) -> str:
    """The provider whose verdict is the file's own (a ``suture.checks`` name): the one its
    history is sent to, as ``suture scan``, the sessions browser and the app's headline judge it
    (a session log: its agent's provider). ``""`` for a format written for many providers (the
    AI SDK), judged by the Valid property every provider shares, as ``suture check`` judges any
    request file without ``--provider``. Where the file's last recorded API error is one only the
    stricter servers of that provider's API give, theirs (:func:`suture.checks.served_by`)."""
    provider = provider_of(export_name(transcript))
    if provider and transcript.evidence:
        from suture.checks import served_by

        return served_by(provider, [said for _, said in transcript.evidence])
    return provider


def provider_of(format: str) -> str:
    """The provider a request body in ``format`` is sent to (a ``suture.checks`` name), ``""``
    for a format written for no one provider."""
    return str(getattr(get(format), "provider", "") or "")


def dump(
    messages: Sequence[Message], transcript: Transcript, to: str | None = None, data: bytes | None = None
) -> bytes:
    """Bytes of ``messages`` in ``to``, or in the transcript's export format.

    ``data``: the bytes the transcript was read from. Written in its own format, an adapter with
    an ``edit(data, messages, transcript)`` method writes over them (JSONL of chat, Anthropic
    messages and the AI SDK keeps the lines the repair left alone byte for byte, and its blank
    lines: ``suture.formats._shared.edit_lines``), and a JSON document is laid out as ``data``
    is (:func:`suture.io.json_layout`: its indent, the space after a key's colon, its final
    newline), so a diff of the two shows what the repair changed, not every line.

    Converting (``to`` names a format other than the one the records are in), the result is read
    back with ``to``'s own loader and must give the same history; where it does not, the target
    cannot express something in it and an InputError (one line) says what. A target that writes
    the records the transcript holds (``raw_format``: a Codex rollout holds Responses items) loses
    nothing and is not read back.

    A session log (Claude Code, Codex, pi) is no request body: ``to`` naming one is an
    InputError, since suture writes a session only back over the file it was read from, by
    ``suture.writeback.write_back(data, transcript, repaired)`` (what ``suture repair`` writes).
    """
    from suture.writeback import writes_back

    _check_dump_arguments(messages, transcript, data)
    name = to or export_name(transcript)
    target = get(name)
    if to and to not in written_formats(transcript.format):
        raise InputError(not_written(to, transcript.format, "to=NAME", bodies_only=True))
    if writes_back(name):
        raise InputError(written_back_said(name))
    edit = getattr(target, "edit", None) if data is not None and name == transcript.format else None
    out: bytes = edit(data, messages, transcript) if edit is not None else target.dump(messages, transcript)
    if data is not None and name == transcript.format:
        out = _laid_out_as(data, out)
    if to and not transcript.raw_is(name) and not transcript.raw_is(getattr(target, "raw_format", name)):
        _check_expressed(messages, target, out)
    return out


_BACK_OVER = "back over the session it was read from"
"""Where suture writes a session log (:mod:`suture.writeback`): never from another file's history."""


def not_written(to: str, source: str, told: str, *, bodies_only: bool = False) -> str:
    """Why a transcript read as ``source`` is not written in ``to``, a session log's format
    (:func:`written_formats`), and what it is written in: said by :func:`dump` and by ``suture
    repair --to``, each naming how it is told the format (``told``: ``to=NAME``, ``--to NAME``).
    ``bodies_only``: the caller writes request bodies alone (:func:`dump`), so a session's own
    format, which it writes back over the session, is not offered."""
    from suture.words import either
    from suture.writeback import writes_back, written_as

    offered = [f for f in written_formats(source) if not (bodies_only and writes_back(f))]
    return (
        f"suture writes {written_as(to)} only {_BACK_OVER}; "
        f"a {source} transcript is written as {either(offered)} ({told})"
    )


def written_back_said(format: str) -> str:
    """Why :func:`dump` (and a session log's adapter) writes no ``format`` session log, and what
    writes one."""
    from suture.writeback import written_as

    return (
        f"suture.dump writes request bodies, not {written_as(format)}: "
        f"suture.writeback.write_back(data, transcript, repaired) writes one {_BACK_OVER}"
    )


def _laid_out_as(data: bytes, out: bytes) -> bytes:
    """``out`` laid out as ``data``, the file it was read from, where both are one JSON document
    (JSONL, and a layout :func:`~suture.io.json_layout` does not follow, stay as written)."""
    layout = json_layout(data)
    if layout is None or first_line_is_a_value(out):
        return out
    return layout.write(out)


def _check_dump_arguments(messages: object, transcript: object, data: object = None) -> None:
    """A TypeError that says what to pass, for the arguments of :func:`dump` mixed up."""
    usage = "suture.dump(messages, transcript, to=None, data=None)"
    if not isinstance(transcript, Transcript):
        raise TypeError(
            f"{usage}: transcript is the Transcript the messages were loaded from (suture.load_file or "
            f"suture.load_bytes), not a {type(transcript).__name__}; to write another format, "
            "name it with to=, e.g. suture.dump(result.messages, transcript, to='chat')"
        )
    if not isinstance(messages, Sequence) and hasattr(messages, "messages"):
        kind = type(messages).__name__
        raise TypeError(f"{usage}: messages is a list of Message; pass the {kind}'s .messages, not the {kind}")
    messages_of(messages, usage, transcript=False)
    if data is not None and not isinstance(data, bytes):
        raise TypeError(
            f"{usage}: data is the bytes the transcript was read from (e.g. Path(p).read_bytes()), "
            f"not a {type(data).__name__}"
        )


def reordered_turns(messages: Sequence[Message], transcript: Transcript, to: str | None = None) -> int:
    """How many turns ``dump`` writes in another order than the file held them: a Responses turn
    whose outputs go up to its last call (see ``suture.formats.responses``). A repair summary says
    so, since the neutral history, and so the repair's changes, are the same either way."""
    name = to or export_name(transcript)
    if getattr(get(name), "raw_format", name) != "responses":
        return 0
    from suture.formats import responses

    return responses.reordered_turns(messages, transcript)


def reordered_said(turns: int) -> str:
    """What :func:`reordered_turns` counted, in words: ``1 turn written with the outputs right
    after the calls``."""
    from suture.words import count

    return f"{count(turns, 'turn')} written with the outputs right after the calls"


def _essence(m: Message) -> dict[str, Any]:
    """What every format must keep of a message for a conversion to be faithful."""
    role = m.role if m.role in ("system", "assistant", "tool") else "user"
    texts: list[str] = []
    counts = {"thinking": 0, "image": 0, "other": 0}
    content = m.content
    if isinstance(content, str):
        texts.append(content)
    elif content:
        for part in content:
            if isinstance(part, TextPart):
                texts.append(part.text)
            else:
                counts[part.type] += 1
    essence: dict[str, Any] = {"role": role, "text": "".join(texts), **counts}
    if role == "assistant":
        essence["calls"] = [(c.id, c.name or "", _arguments(c.arguments)) for c in m.tool_calls]
    if role == "tool":
        essence["tool_call_id"] = m.tool_call_id
    return essence


def _arguments(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return codec.loads(value)
        except orjson.JSONDecodeError:
            return value
    return {} if value is None else value


def essences(messages: Sequence[Message]) -> list[tuple[int, dict[str, Any]]]:
    """Each message's index and essence, consecutive system messages taken as one prompt."""
    out: list[tuple[int, dict[str, Any]]] = []
    for i, m in enumerate(messages):
        e = _essence(m)
        if e["role"] == "system" and out and out[-1][1]["role"] == "system":
            last = out[-1][1]
            last["text"] = "\n\n".join(t for t in (last["text"], e["text"]) if t)
            continue
        out.append((i, e))
    return out


_WORDS = {
    "role": "its role",
    "text": "its text",
    "thinking": "its thinking",
    "image": "its images",
    "other": "parts it has no place for",
    "calls": "its tool calls",
    "tool_call_id": "the call it answers",
}


def _check_expressed(messages: Sequence[Message], target: Adapter, data: bytes) -> None:
    before = essences(messages)
    after = essences(target.load(parse_document(data)).messages) if data.strip() else []
    for (i, a), (_, b) in zip(before, after, strict=False):
        if a != b:
            where = f", {messages[i].source}" if messages[i].source else ""
            lost = [k for k in a if a.get(k) != b.get(k)]
            # Only the text differs, and what was written is there at its start: the next
            # message was read into this one. (A thinking block written as text differs in more.)
            if lost == ["text"] and b["text"].startswith(a["text"]):
                what = "would be joined with the message after it"
            elif sorted(lost) == ["text", "thinking"] and not b.get("thinking") and len(b["text"]) > len(a["text"]):
                what = "would write its thinking as text"
            else:
                what = "would not keep " + " and ".join(_WORDS[k] for k in lost)
            raise InputError(
                f"{target.name} cannot express this history: message {i} ({messages[i].role}{where}) {what}"
            )
    if len(before) != len(after):
        raise InputError(
            f"{target.name} cannot express this history: its {len(before)} messages would come back as {len(after)}"
        )
