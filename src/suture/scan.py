"""One session file in, one row out: what ``suture scan``, the sessions browser and a Dask
cluster say about each file.

:func:`scan_bytes` is the pure part: a file's bytes (and what ``stat`` said) become a
:class:`Row`: the agent or format, the working folder, when it was last written to, how many
messages, the verdict (would the provider reject what is sent on resume), how many changes the
repair would make, the last API error the file records, or why the file cannot be read.
:func:`scan_file` reads a found file (a :class:`~suture.sessions.Found`: a local path or an
fsspec URL) and calls it; it never raises for a file, so a pool of workers (``suture.scan_pool``)
can run it on millions of files and every file gets its row. :func:`scan_path` is it for a path.

No Textual, no clock, nothing written: a row is a function of the bytes and the stat.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from suture.formats import NotTranscript, about, detect, own_provider
from suture.io import InputError, parse_document
from suture.model import Transcript, problems_said
from suture.repair import Repair, repair
from suture.sessions import Found, is_url
from suture.words import count

if TYPE_CHECKING:
    from suture.checks import Violation

__all__ = [
    "LISTED",
    "OK",
    "OTHER",
    "REJECTED",
    "UNREADABLE",
    "VERDICTS",
    "Judgement",
    "Row",
    "judge",
    "listed",
    "scan_bytes",
    "scan_file",
    "scan_found",
    "scan_path",
    "self_repairs",
    "stricter_said",
    "warm",
]

OK = "ok"
REJECTED = "rejected"
UNREADABLE = "unreadable"
OTHER = "other"
VERDICTS = (REJECTED, OK, UNREADABLE, OTHER)
"""Every verdict a scan gives, the most urgent first."""
LISTED = ""
"""The verdict of a row made from a file's listing alone (:func:`listed`): not scanned yet."""

_ERROR_CHARS = 300
"""An API error or a read error is kept to this many characters (the rest is in the file)."""


@dataclass(frozen=True, slots=True)
class Row:
    """What a scan says about one file. Every field is plain data (JSON, CSV and Parquet hold it
    as is); text fields are untrusted (they come from the file or its name): show them through
    ``suture.show``.

    ``verdict`` is ``ok``, ``rejected`` (the provider named in ``provider`` would answer 400 to
    what is sent, for a session log what the agent sends when it resumes it: ``problems``
    reasons, the first in ``problem``; ``after_repair`` counts the same after ``suture repair``:
    for a session log, in what the agent sends from the session it writes), ``unreadable`` (``error`` says why) or ``other`` (readable JSON or JSONL that is
    not a transcript suture knows, such as a settings file or a request log beside the sessions;
    ``error`` says what it is closest to). ``fixes`` counts what the agent repairs
    itself on resume: never problems. ``when`` is the last time the session
    recorded (its last timestamp, else the file's modification time), ISO 8601 in UTC.
    ``skipped`` counts lines that could not be read and were left out, as the agents do.
    ``stricter`` names the stricter servers of the provider's API where the provider accepts what
    is sent and they would not (a Codex session against DeepSeek's Responses endpoint), with
    their first problem in ``stricter_problem``: the verdict stays ``ok``.
    """

    path: str
    verdict: str
    agent: str = ""
    format: str = ""
    project: str = ""
    session: str = ""
    subagent: bool = False
    when: str = ""
    messages: int = 0
    changes: int = 0
    provider: str = ""
    problems: int = 0
    after_repair: int = 0
    fixes: int = 0
    problem: str = ""
    last_error: str = ""
    error: str = ""
    skipped: int = 0
    size: int = -1
    mtime: float = -1.0
    stricter: str = ""
    stricter_problem: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Row:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in value.items() if k in names})


COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Row))
"""The row's fields in order: the CSV header, the Parquet schema's columns."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """A verdict on what is sent from a history: the provider it was judged for, how many
    problems it would report (the first as one line), how many it would report after suture's
    repair (:func:`judge` says of what), and how many things the agent repairs itself on resume (never problems)."""

    provider: str
    problems: int
    after_repair: int
    first: str
    fixes: int = 0
    stricter: str = ""
    """The stricter servers of the same API that would reject what the provider accepts."""
    stricter_first: str = ""

    @property
    def verdict(self) -> str:
        return REJECTED if self.problems else OK


def judge(transcript: Transcript, repaired: Repair, data: bytes | None = None) -> Judgement:
    """Whether the provider would reject what is sent from ``transcript``: the verdict
    ``suture check`` gives (``suture.sent.verdict``). For a session log (Claude Code, Codex, pi)
    that is what the agent sends when it resumes it, its own fixes counted apart; for a request
    file, the file's history, by its provider's checks. A format whose provider is not known (the
    AI SDK speaks to many) is judged by the Valid property every provider shares, as ``suture
    check`` judges it without ``--provider``. ``repaired`` is suture's repair of the file as
    written. ``after_repair`` counts what the verdict counts, after that repair: for a request
    file, the repaired history's problems; for a session log, the problems in what the agent
    sends from the session ``suture repair`` writes into ``data`` (the bytes ``transcript`` was
    read from; :func:`sent_after_repair`)."""
    from suture.sent import models, stricter, verdict

    if transcript.format in models():
        v = verdict(transcript, None, repaired)
        strict = stricter(transcript, v)
        said = v.problems or (strict.problems if strict is not None else [])
        first = ""
        if said:
            x = said[0]
            first = f"{x.rule} {v.where(x, transcript.messages)}: {x.problem}"
        left = sent_after_repair(transcript, repaired, data, v.provider, len(v.problems))
        if strict is not None:
            return Judgement(v.provider, 0, left, "", len(v.notes), strict.provider, first)
        return Judgement(v.provider, len(v.problems), left, first, len(v.notes))
    # A request file's history is what is sent: ``suture.sent.verdict`` is its provider's checks
    # on it, called here without building the wire copy it does not need.
    provider = own_provider(transcript)
    messages = transcript.messages
    if not provider:
        from suture.validity import violations

        found = violations(messages)
        first = f"message {found[0].index}: {found[0].problem}" if found else ""
        return Judgement("", len(found), len(violations(repaired.messages)), first)
    from suture.checks import verdict as contract_verdict
    from suture.checks._base import LIST

    c = contract_verdict(messages, provider, repaired=repaired)
    first = ""
    if c.before:
        x = c.before[0]
        # (a problem of the request's list itself, no message to send, is said at the list)
        first = f"{x.rule} {x.where if x.index == LIST else f'message {x.index}'}: {x.problem}"
    return Judgement(provider, len(c.before), len(c.after), first)


def sent_after_repair(
    transcript: Transcript, repaired: Repair, data: bytes | None, provider: str, problems: int
) -> int:
    """How many problems ``provider`` finds in what the agent sends on resume from the session
    log ``suture repair`` writes (:class:`AfterRepair`). ``problems`` (what is sent now) where
    it writes the file unchanged, or cannot write it, or ``data`` is not given."""
    return AfterRepair(transcript, repaired, data).problems(provider, problems)


class AfterRepair:
    """What each provider finds in what the agent sends on resume from the session log ``suture
    repair`` writes (``repaired`` written into ``data``, the bytes ``transcript`` was read from):
    the session written back and read once, when first asked, and what its agent sends built
    once, for every provider asked (:attr:`suture.sent.SentVerdict.problems`, without the
    contract view the verdict works out beside them)."""

    def __init__(self, transcript: Transcript, repaired: Repair, data: bytes | None) -> None:
        self.transcript, self.repaired, self.data = transcript, repaired, data
        self._request: tuple[Any] | None = None

    def problems(self, provider: str, now: int) -> int:
        """How many problems ``provider`` finds there (``now``, those in what is sent from the file
        as it is, where the repair writes the file unchanged, or cannot write it, or no bytes
        were given)."""
        if self._request is None:
            from suture.sent.numbered import modelled

            session = repaired_session(self.transcript, self.repaired, self.data)
            self._request = (modelled(session) if session is not None else None,)
        request = self._request[0]
        return now if request is None else len(request.sent_problems(provider))


def sent_problems(session: Transcript, provider: str) -> list[Violation]:
    """The problems ``provider`` finds in what the agent sends on resume from ``session``
    (:attr:`suture.sent.SentVerdict.problems`, without the contract view)."""
    from suture.sent.numbered import modelled

    return modelled(session).sent_problems(provider)


def read_back(format: str, data: bytes) -> Transcript:
    """``data``, a session log suture wrote in ``format``, read as its agent's format reads it."""
    from suture.formats import get

    return get(format).load(parse_document(data))


def repaired_session(transcript: Transcript, repaired: Repair, data: bytes | None) -> Transcript | None:
    """The session log ``suture repair`` writes (``suture.writeback``: ``repaired`` written into
    ``data``, the bytes ``transcript`` was read from), read back; ``None`` where it writes the
    file unchanged, or cannot write it, or ``data`` is not given."""
    from suture.writeback import may_differ, write_back

    if data is None or not (repaired.changes or may_differ(transcript, repaired)):
        return None
    try:
        written = write_back(data, transcript, repaired)
    except InputError:
        return None
    if not written.changed:
        return None
    return read_back(transcript.format, written.data)


def stricter_said(row: Row) -> str:
    """What a row says where its provider accepts what is sent and the stricter servers of the
    same API would not (``""`` otherwise)."""
    if not row.stricter:
        return ""
    from suture.sent import stricter_words

    return stricter_words(row.stricter, row.stricter_problem)


def self_repairs(row: Row) -> str:
    """What the agent repairs itself when it resumes the session, in a few words (``Claude Code
    repairs 2 things itself on resume``); ``""`` when nothing."""
    if not row.fixes:
        return ""
    from suture.sent import agent_name

    return f"{agent_name(row.agent or row.format)} repairs {count(row.fixes, 'thing')} itself on resume"


def _one_line(text: str, limit: int = _ERROR_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _last_timestamp(records: list[tuple[int, Any]]) -> str:
    """The last top-level ``timestamp`` among the file's last records (each agent stamps its
    lines), as ISO 8601 UTC; ``""`` when none reads as a time."""
    for _, record in reversed(records[-200:]):
        if not isinstance(record, dict):
            continue
        value = record.get("timestamp")
        try:
            if isinstance(value, str):
                moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
                if moment.tzinfo is None:
                    moment = moment.replace(tzinfo=UTC)
                return _iso(moment.timestamp())
            if isinstance(value, int | float) and not isinstance(value, bool):
                return _iso(value / 1000 if value > 1e11 else value)
        except (ValueError, OverflowError, OSError):
            continue
    return ""


def _is_subagent(path: str) -> bool:
    """A Claude Code subagent's file: ``<session>/subagents/agent-<id>.jsonl``."""
    parts = path.replace("\\", "/").split("/")
    return len(parts) >= 2 and parts[-2] == "subagents"


def scan_bytes(data: bytes, path: str, size: int | None = None, mtime: float | None = None) -> Row:
    """The row of a file with content ``data``. The content alone decides the format and the
    agent: an agent's session log is that agent's, any other transcript is no agent's, wherever
    it was found (a request file kept in an agent's folder is not that agent's session, and is
    judged as the request it is). Raises :class:`InputError` when the bytes
    cannot be read as a transcript (:class:`suture.formats.NotTranscript` when they are no
    transcript at all); :func:`scan_file` turns that into an ``unreadable`` (or ``other``) row."""
    from suture.sent import skips_bad_lines

    doc = parse_document(data)
    transcript = detect(doc).adapter.load(doc)
    fmt = transcript.format
    if transcript.problems and not skips_bad_lines(fmt):
        # As suture check refuses it: only an agent's session log is judged without the lines
        # it cannot read (its agent skips them too).
        raise InputError(
            f"lines that cannot be read (suture check --skip-bad-lines judges the rest): {problems_said(transcript.problems)}"
        )
    records = doc.records if doc.kind == "jsonl" else []
    session = about(doc, transcript)
    result = repair(transcript.messages)
    judgement = judge(transcript, result, data)
    when = _last_timestamp(records) or (_iso(mtime) if mtime is not None and mtime >= 0 else "")
    last_error = _one_line(transcript.evidence[-1][1]) if transcript.evidence else ""
    return Row(
        path=path,
        verdict=judgement.verdict,
        agent=fmt if session is not None else "",
        format=fmt,
        project=session.cwd if session is not None else "",
        session=session.session if session is not None else "",
        subagent=session is not None and _is_subagent(path),
        when=when,
        messages=len(transcript.messages),
        changes=len(result.changes),
        provider=judgement.provider,
        problems=judgement.problems,
        after_repair=judgement.after_repair,
        fixes=judgement.fixes,
        problem=_one_line(judgement.first),
        last_error=last_error,
        skipped=len(transcript.problems),
        stricter=judgement.stricter,
        stricter_problem=_one_line(judgement.stricter_first),
        size=len(data) if size is None else size,
        mtime=-1.0 if mtime is None else mtime,
    )


def _read(path: str) -> bytes:
    """The bytes of a local path or an fsspec URL (read where this runs: on a Dask worker, the
    worker reads). :class:`InputError` with one line when they cannot be read."""
    if not is_url(path):
        from suture.io import read_input

        return read_input(path)
    try:
        import fsspec
    except ImportError:
        raise InputError("reading URLs needs fsspec: pip install 'suture[fleet]'") from None
    try:
        with fsspec.open(path, "rb") as f:
            data: bytes = f.read()
            return data
    except FileNotFoundError:
        raise InputError("no such file") from None
    except Exception as e:  # a store's own error (permissions, network): one line
        raise InputError(f"cannot read ({type(e).__name__}: {e})") from None


def _unreadable(found: Found, error: str, verdict: str = UNREADABLE) -> Row:
    """The row of a file that holds no transcript suture can read: ``unreadable``, with the
    agent whose folder it is in (the folder is all that is known of it), or ``other`` for one
    that is no transcript at all, and so no agent's session wherever it is."""
    return Row(
        path=found.path,
        verdict=verdict,
        agent="" if verdict == OTHER else found.agent,
        error=_one_line(error),
        when=_iso(found.mtime) if found.mtime is not None else "",
        size=-1 if found.size is None else found.size,
        mtime=-1.0 if found.mtime is None else found.mtime,
    )


def listed(found: Found) -> Row:
    """What is known of a file before it is read: its path, size and time, whether it is a
    subagent's, and the agent in whose folder it was found; its verdict is :data:`LISTED`."""
    return Row(
        path=found.path,
        verdict=LISTED,
        agent=found.agent,
        subagent=_is_subagent(found.path),
        when=_iso(found.mtime) if found.mtime is not None and found.mtime >= 0 else "",
        size=-1 if found.size is None else found.size,
        mtime=-1.0 if found.mtime is None else found.mtime,
    )


def scan_file(found: Found) -> Row:
    """The row of one file (a :class:`~suture.sessions.Found`, as ``suture.sessions`` lists
    them; :func:`scan_path` takes a path); never raises for a file. A file that cannot be read,
    parsed or loaded (or that breaks suture itself) is an ``unreadable`` row whose ``error`` says
    why; one that holds JSON but no transcript is an ``other`` row. Anything but a Found is a
    TypeError that says what to pass."""
    if not isinstance(found, Found):
        raise TypeError(
            f"suture.scan.scan_file(found): found is a suture.sessions.Found, not a {type(found).__name__}; "
            "for a path, call suture.scan.scan_path(path)"
        )
    return scan_found(found)[0]


def warm() -> None:
    """Import now what the per-file function imports on first use (every format adapter, the
    agents' resume models, every provider's checks). The scan pool's fork server calls it (by
    importing ``suture._warm``) before it forks any process, so each scans its first file as
    fast as its last."""
    import suture.checks  # (every provider's checks, imported with it)
    import suture.checks.explain  # (a recorded error: the server the agent talks to)
    import suture.sent.numbered  # noqa: F401  (what the agent sends, numbered as its provider numbers it)
    from suture.formats import adapters
    from suture.sent import models
    from suture.writeback import writers

    adapters()
    models()
    writers()  # (the session suture repair writes: what after_repair counts)


def scan_found(found: Found) -> tuple[Row, bool]:
    """:func:`scan_file`, and whether the row is a function of the file's bytes (so it may be
    kept for as long as the file's size and time stay the same): not when the file could not be
    read at all (a permission that may change without touching the file)."""
    if found.error:
        return _unreadable(found, found.error), False
    try:
        data = _read(found.path)
    except InputError as e:
        return _unreadable(found, _without_path(str(e), found.path)), False
    try:
        return scan_bytes(data, found.path, found.size, found.mtime), True
    except NotTranscript as e:
        return _unreadable(found, _without_path(str(e), found.path), OTHER), True
    except InputError as e:
        return _unreadable(found, _without_path(str(e), found.path)), True
    except RecursionError:
        return _unreadable(found, "nested too deeply to be a transcript"), True
    except MemoryError:
        return _unreadable(found, "too large to scan in this much memory"), False
    except Exception as e:  # a bug in suture must cost one row, not the whole scan
        return _unreadable(found, f"suture could not scan this file ({type(e).__name__}: {e})"), False


def _without_path(text: str, path: str) -> str:
    prefix = f"{path}: "
    return text[len(prefix) :] if text.startswith(prefix) else text


def scan_path(path: str | os.PathLike[str]) -> Row:
    """:func:`scan_file` of a path, its size and time taken from ``stat`` (for a URL, from
    nothing: the row's size is the bytes read)."""
    text = os.fspath(path)
    if is_url(text):
        return scan_file(Found(text))
    try:
        st = os.stat(text)
    except OSError:
        return scan_file(Found(text))
    return scan_file(Found(text, st.st_size, st.st_mtime))
