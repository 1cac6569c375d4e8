"""What an agent sends when it resumes a session: the *as-sent* view of a transcript.

A session log (Claude Code, Codex, pi) is not a request. When the agent resumes it, it builds a
request from the history *as written* (``suture.formats``: the chain the agent follows, records
in the order and shape they have in the file) and on the way repairs some damage itself: it
inserts results for calls that never got one, drops what it cannot send, merges records. Only
what it then sends can be rejected, so the provider verdict judges that. Each agent's step is
modelled per version, as a pure function of the as-written transcript, from what the real agents
were measured to send (``sample_sessions/recorded``: the tests compare every recorded shape).

The API (pure: no Textual, no I/O)::

    from suture.sent import as_sent

    sent = as_sent(transcript)        # a Transcript as any adapter loaded it
    sent.wire                         # the history as the agent sends it, in the provider's wire
                                      # format: Anthropic ``messages``, Responses ``input`` items,
                                      # or Chat ``messages`` (a list of JSON values)
    sent.wire_format                  # the suture format of that list: "messages", "responses", "chat", ...
    sent.messages                     # the same history as neutral messages (what the checks read)
    sent.origin[k]                    # the as-written message sent message k came from (None: inserted)
    sent.written[n]                   # every as-written message wire[n] came from (several where the
                                      # agent joins records into one message; () for what it makes up)
    sent.written_of(k)                # every as-written message the wire values of sent message k came from
    sent.made(k), sent.made_words(k)  # for a message the agent makes up on resume (origin None): the
                                      # Fix that makes it (a result: its call's message), and in words
    sent.provider                     # the suture.checks provider whose rules apply ("" when unknown)
    sent.agent, sent.version          # "claude-code" and the version that wrote the file (None: unknown)
    sent.model                        # the version whose behaviour is modelled
    sent.assumed                      # a sentence when that is not the file's own version, else None
    sent.fixes                        # what the agent repairs itself: list[Fix], each with kind,
                                      # summary, index and source in the as-written view
    sent.skipped                      # records the agent leaves out (API errors, failed turns, ...)
    sent.added                        # what the agent puts into the request that the file does not
                                      # hold (Added: position in the request, role, what), as measured
    sent.position(k)                  # where wire[k] is in the request the provider numbers

The verdict on what is sent (what ``suture check`` prints, the app's header and problems list)::

    from suture.sent import verdict

    v = verdict(transcript)           # or verdict(transcript, "openai-chat")
    v.summary()                       # "anthropic: rejected, 1 problem in what Claude Code sends (...)"
    v.problems                        # list[Violation] in what is sent; v.at(p): the as-written message,
                                      # v.written_of(p): every one the message it is in was joined from
    v.notes                           # the agent's own fixes: "the agent repairs this itself"
    v.contract                        # suture.checks.Verdict on the file as written and its repair
                                      # (the contract view, labelled as such)

For a request-format file (chat, messages, responses, gemini, vercel) the history *is* the
request: ``wire`` is the file's own history, ``agent`` is None and there are no fixes.

The new prompt the agent adds when it resumes, and the context it injects at send time (Claude
Code's ``<system-reminder>`` text, Codex's instructions), are not part of ``wire``: they are not
in the file, and they do not decide whether the history is accepted; but a provider's index
(``messages.3``, ``input[7]``) counts them, so a problem's place is named in the request
(``Sent.added``, ``Sent.position``; :mod:`suture.sent.numbered`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from suture.io import Document, InputError, parse_document
from suture.model import Message, Skipped, Source, Transcript, text_of
from suture.repair import Repair
from suture.words import count

if TYPE_CHECKING:  # (the checks load when a verdict is asked for: naming an agent needs none)
    from suture.checks import Verdict, Violation

__all__ = [
    "FIX_KINDS",
    "RESUME_PROMPT",
    "Added",
    "Fix",
    "Sent",
    "SentVerdict",
    "agent_name",
    "as_sent",
    "models",
    "raw_values",
    "served_words",
    "stricter",
    "stricter_words",
    "verdict",
    "wire_places",
]

FIX_KINDS = {
    "inserted_result": "a result for a call that never got one",
    "inserted_reply": "an assistant reply so the new prompt can follow",
    "dropped_call": "a call that never got a result, with later turns after it",
    "dropped_result": "a result that answers no call it can be sent with",
    "dropped_block": "a block that would be rejected or means nothing",
    "replaced_call": "a call whose id an earlier call already has",
    "moved_result": "results put first in the user message that holds them",
    "joined_results": "results whose ids read as entries of a batch call, sent as one result of that call",
}
"""Every kind of :class:`Fix`, with what it is about."""


@dataclass(frozen=True, slots=True)
class Fix:
    """One thing the agent repairs itself when it resumes: not a problem of the session.

    ``index`` is the as-written message it is about (``None`` where none), ``source`` where that
    is in the file, ``call_id`` the call it concerns, if any. ``summary`` says it in a line."""

    kind: str
    summary: str
    index: int | None = None
    source: Source | None = None
    call_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "summary": self.summary,
            "index": self.index,
            "source": str(self.source) if self.source is not None else None,
            "call_id": self.call_id,
        }


@dataclass(frozen=True, slots=True)
class Added:
    """A message the agent puts into the request when it sends it, which the file does not hold
    (its system prompt, its instructions): ``wire`` leaves it out, but a provider's index counts
    it. ``position`` is its place in the request (earlier additions counted), ``what`` says what
    it is in a few words. ``parts``: the agent sends its content as a list of typed parts, not as
    one string; ``item``: as a Responses item typed ``message`` (what ``suture sent --body``
    shows in its place takes the same shape: :func:`suture.sent.numbered.stand_in`)."""

    position: int
    role: str
    what: str
    parts: bool = False
    item: bool = False


@dataclass(frozen=True, slots=True)
class Sent:
    """The history an agent sends on resume (see the module docstring)."""

    messages: list[Message]
    wire: list[Any]
    wire_format: str
    provider: str
    agent: str | None = None
    version: str | None = None
    model: str | None = None
    fixes: list[Fix] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    origin: list[int | None] = field(default_factory=list)
    added: tuple[Added, ...] = ()
    written: list[tuple[int, ...]] = field(default_factory=list)
    """For each value of ``wire``, every as-written message it came from, in the file's order: several
    where the agent joins records into one message (Claude Code joins consecutive user records,
    and keeps a record's place in the message even where it leaves all of it out); ``()`` for what
    the agent makes up from nothing."""
    places: list[tuple[int, ...]] = field(default_factory=list)
    """For each of ``messages``, the values of ``wire`` it was read from (an assistant message
    read from several Responses items is in several)."""

    def written_of(self, k: int) -> tuple[int, ...]:
        """Every as-written message that what sent message ``k`` is sent in came from, in the
        file's order (the one :attr:`origin` names among them); ``()`` for one the agent makes up."""
        # (Read from ``places``, ``written`` and ``origin`` alone: the app's copy of a Sent comes
        # from its checks process without the messages and the wire.)
        if 0 <= k < len(self.places) and self.places[k]:
            return tuple(sorted({i for n in self.places[k] if n < len(self.written) for i in self.written[n]}))
        found = self.origin[k] if 0 <= k < len(self.origin) else None
        return (found,) if found is not None else ()

    def made(self, k: int) -> Fix | None:
        """Where sent message ``k`` is one the agent makes up on resume (it has no :attr:`origin`),
        the fix that makes it: a result for a call of the file (``inserted_result``, its ``index``
        the call's message), or the reply after the last user message (``inserted_reply``)."""
        if not 0 <= k < len(self.origin) or self.origin[k] is not None or not 0 <= k < len(self.messages):
            return None
        m = self.messages[k]
        if m.role == "tool":
            return next(
                (f for f in self.fixes if f.kind == "inserted_result" and (f.call_id or "") == m.tool_call_id), None
            )
        if m.role == "assistant" and k == len(self.messages) - 1:
            return next((f for f in self.fixes if f.kind == "inserted_reply"), None)
        return None

    def made_words(self, k: int) -> str | None:
        """What sent message ``k`` is, where the agent makes it up on resume (:meth:`made`), in a
        few words: ``Claude Code's result for call toolu_01 of [1]`` (``[1]``: the call's message
        as written, as ``suture check`` numbers it); ``None`` for any other."""
        fix = self.made(k)
        if fix is None:
            return None
        who = agent_name(self.agent) if self.agent else "the agent"
        if fix.kind == "inserted_reply":
            return f'{who}\'s reply "{text_of(self.messages[k].content)}"'
        of = f" of [{fix.index}]" if fix.index is not None else ""
        return f"{who}'s result for call {fix.call_id or '(no id)'}{of}"

    def position(self, k: int) -> int:
        """Where ``wire[k]`` is in the request the agent sends: ``k`` moved past what it adds
        before it (a provider's ``messages.N``, ``input[N]`` count those too)."""
        n = k
        for a in sorted(self.added, key=lambda a: a.position):
            if a.position <= n:
                n += 1
        return n

    @property
    def assumed(self) -> str | None:
        """Where the file's version is unknown or not one recorded resuming the corpus: which
        version's behaviour is assumed, in a sentence. ``None`` for a request file or a measured
        version (:func:`measured`)."""
        if self.agent is None or self.model is None or self.version == self.model:
            return None
        who = agent_name(self.agent)
        if self.version is None:
            return f"the file does not say which {who} version wrote it; {who} {self.model}'s resume is assumed"
        return f"{who} {self.version} wrote this file; {who} {self.model}'s resume is assumed"

    def to_json(self) -> dict[str, Any]:
        """Everything but the neutral messages, as plain JSON values."""
        return {
            "agent": self.agent,
            "version": self.version,
            "model": self.model,
            "assumed": self.assumed,
            "provider": self.provider,
            "wire_format": self.wire_format,
            "fixes": [f.to_json() for f in self.fixes],
            "added": [{"position": a.position, "role": a.role, "what": a.what} for a in self.added],
            "skipped": [{"source": str(s.source), "kind": s.kind, "reason": s.reason} for s in self.skipped],
            "wire": self.wire,
        }


_AGENT_NAMES = {"claude-code": "Claude Code", "codex": "Codex", "pi": "pi"}


def agent_name(agent: str) -> str:
    """What a person calls an agent: ``Claude Code`` for ``claude-code``."""
    return _AGENT_NAMES.get(agent, agent)


@dataclass(slots=True)
class Built:
    """What an agent model returns: the wire list, its format and provider, the fixes, and for
    each wire value (record, block or item, by ``id``) the as-written message it came from."""

    wire: list[Any]
    wire_format: str
    provider: str
    model: str
    fixes: list[Fix]
    origin_of: dict[int, int | None]
    keep: list[Any] = field(default_factory=list)
    """Objects ``origin_of`` and ``joined`` refer to by id, kept alive while they are used."""
    added: tuple[Added, ...] = ()
    """What the agent puts into the request that the file does not hold (see :class:`Added`)."""
    joined: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """For a wire value the agent makes from several as-written messages (by ``id``), all of them."""

    def mark(self, value: Any, index: int | None, joined: Sequence[int] = ()) -> Any:
        """Note that ``value`` came from as-written message ``index`` (and, where the agent joins
        several into it, from every one of ``joined``); returns it."""
        self.origin_of[id(value)] = index
        if joined:
            self.joined[id(value)] = tuple(joined)
        self.keep.append(value)
        return value


Model = Callable[[Transcript], Built]


def models() -> dict[str, Model]:
    """The resume model of each session format, by format name."""
    from suture.sent import claude_code, codex, pi

    return {"claude-code": claude_code.build, "codex": codex.build, "pi": pi.build}


def skips_bad_lines(format: str) -> bool:
    """Whether a file of ``format`` is judged as its agent reads it, the lines it cannot read
    skipped (a session log: the agent skips them too), rather than refused until a person fixes
    those lines or asks to leave them out (any other file: ``--skip-bad-lines``)."""
    return format in models()


def measured(agent: str) -> tuple[str, ...]:
    """The versions of ``agent`` (a session format's name) recorded resuming the corpus and found
    to send what its model says, oldest first; ``()`` for a request file's format."""
    from suture.sent import claude_code, codex, pi

    return {"claude-code": claude_code.MEASURED, "codex": codex.MEASURED, "pi": pi.MEASURED}.get(agent, ())


def as_sent(transcript: Transcript) -> Sent:
    """The history the agent that wrote ``transcript`` sends when it resumes it; for a request
    file, the file's own history."""
    model = models().get(transcript.format)
    if model is None:
        return _request(transcript)
    built = model(transcript)
    return _sent(transcript, built, pieces(built))


@dataclass(slots=True)
class Pieces:
    """What :class:`Sent` says of some consecutive values of a request's ``wire`` (from its
    place ``first`` on): the neutral messages read from them, and their :attr:`Sent.origin`,
    :attr:`Sent.places` and :attr:`Sent.written` (places count the whole ``wire``)."""

    messages: list[Message]
    origin: list[int | None]
    places: list[tuple[int, ...]]
    written: list[tuple[int, ...]]


def pieces(built: Built, first: int = 0) -> Pieces:
    """The :class:`Pieces` of ``built.wire``, which sits at place ``first`` of the request."""
    messages = _neutral(built.wire, built.wire_format, first)
    origin = [_origin(m, built.origin_of) for m in messages]
    # A result the agent makes up for a call (its ``inserted_result`` fix) is traced, while it is
    # built, to the message of the call it answers; the file holds no record of it: it has no origin.
    made = {(f.index, f.call_id or "") for f in built.fixes if f.kind == "inserted_result"}
    if made:
        for j, m in enumerate(messages):
            if m.role == "tool" and (origin[j], m.tool_call_id) in made:
                origin[j] = None
    places = wire_places(built.wire, messages)
    written: list[set[int]] = [set(built.joined.get(id(value), ())) for value in built.wire]
    for j, ks in enumerate(places):
        found = origin[j]
        if found is not None:
            for k in ks:
                written[k].add(found)
    return Pieces(
        messages,
        origin,
        [tuple(first + k for k in ks) for ks in places],
        [tuple(sorted(w)) for w in written],
    )


def _sent(transcript: Transcript, built: Built, found: Pieces, wire: list[Any] | None = None) -> Sent:
    """The :class:`Sent` of an agent's ``built`` history whose pieces are ``found`` (``wire``:
    the whole of it, where ``built`` holds its end)."""
    version = transcript.meta.get("agent_version")
    if not isinstance(version, str):
        version = None
    provider = built.provider
    if transcript.evidence:  # (a server the file's errors show stricter than its API's own)
        from suture.checks import served_by

        provider = served_by(provider, [said for _, said in transcript.evidence])
    return Sent(
        found.messages,
        built.wire if wire is None else wire,
        built.wire_format,
        provider,
        agent=transcript.format,
        version=version,
        # A version recorded sending what the model says is modelled as itself.
        model=version if version is not None and version in measured(transcript.format) else built.model,
        fixes=built.fixes,
        skipped=list(transcript.skipped),
        origin=found.origin,
        added=built.added,
        written=found.written,
        places=found.places,
    )


def _neutral(wire: list[Any], wire_format: str, first: int = 0) -> list[Message]:
    """The neutral messages of a wire list that sits at place ``first`` of a request's (each
    named by its place in the whole list)."""
    from suture.formats import get

    if first:
        history: Callable[[list[Any], int], list[Message]] | None = getattr(get(wire_format), "history", None)
        if history is None:
            raise ValueError(f"a {wire_format} history is read whole")
        return history(wire, first)
    return list(get(wire_format).load(Document("json", value=wire)).messages)


def raw_values(m: Message) -> list[Any]:
    """The wire values a neutral message was read from: its record, its blocks, its calls (the
    identity of each tells which place of a request, or which record, it came from)."""
    candidates: list[Any] = [m.raw]
    if isinstance(m.raw, list):
        candidates.extend(m.raw)
    if isinstance(m.content, list):
        candidates.extend(p.raw for p in m.content)
    candidates.extend(c.raw for c in m.tool_calls)
    return candidates


def wire_places(wire: Sequence[Any], messages: Sequence[Message]) -> list[list[int]]:
    """The places in ``wire`` of each neutral message loaded from it, by the values it holds (an
    assistant message read from several Responses items fills several places)."""
    place: dict[int, int] = {}
    for k, value in enumerate(wire):
        place[id(value)] = k
        if isinstance(value, dict):
            for key in ("content", "tool_calls", "parts"):
                inner = value.get(key)
                if isinstance(inner, list):
                    for block in inner:
                        place.setdefault(id(block), k)
    return [sorted({place[id(c)] for c in raw_values(m) if c is not None and id(c) in place}) for m in messages]


def _origin(m: Message, origin_of: dict[int, int | None]) -> int | None:
    """The as-written message a sent neutral message came from, by the wire values it holds."""
    for value in raw_values(m):
        if value is not None and id(value) in origin_of:
            found = origin_of[id(value)]
            if found is not None:
                return found
    return None


def _request(transcript: Transcript) -> Sent:
    """A request-format file: its history is what is sent."""
    from suture.formats import dump, provider_of

    wire_format = transcript.format
    wire: list[Any] = []
    if transcript.messages:
        # (A JSONL file dumps as JSONL, a record a line: its history is those records.)
        doc = parse_document(dump(transcript.messages, transcript, to=wire_format))
        wire = [value for _, value in doc.records] if doc.kind == "jsonl" else _history_of(doc.value)
    provider = provider_of(wire_format)
    return Sent(
        list(transcript.messages),
        wire,
        wire_format,
        provider,
        skipped=list(transcript.skipped),
        origin=list(range(len(transcript.messages))),
    )


_HISTORY_KEYS = ("messages", "input", "contents")
"""The keys of a request body that hold its history, in the formats that write one."""


def _history_of(value: Any) -> list[Any]:
    """The history list of a request body or a bare list of messages or items."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in _HISTORY_KEYS:
            if isinstance(value.get(key), list):
                history: list[Any] = value[key]
                return history
    return [value]


# -- the verdict on what is sent ---------------------------------------------------------------

RESUME_PROMPT = Message("user", "continue")
"""Stands for the new prompt the agent adds after the history when it resumes: a rule about the
last message (Anthropic's final assistant message, Mistral's last role) judges the history as it
is sent, with a prompt after it."""


@dataclass(frozen=True, slots=True)
class SentVerdict:
    """Whether ``provider`` accepts what is sent from a transcript, and why not.

    ``problems`` are the provider's rules the sent history breaks (``Violation.index`` counts
    ``sent.messages``; :meth:`at` gives the as-written message, where the app's original pane
    can jump; ``Violation.where`` and ``error`` count the request the agent sends, with what it
    adds to the history, as the provider's own error does; :meth:`place` gives the place there of
    a problem's own message). ``notes`` are what the agent repairs itself: never problems.
    ``contract`` is suture's repair contract on the file as written (problems before and after
    suture's repair of it: what ``suture repair`` and the side-by-side view change), labelled as
    such. For a request file what is sent is the file, so ``problems`` are ``contract.before``.
    """

    provider: str
    sent: Sent
    problems: list[Violation]
    contract: Verdict

    @property
    def notes(self) -> list[Fix]:
        return self.sent.fixes

    @property
    def rejected(self) -> bool:
        return bool(self.problems)

    def at(self, v: Violation) -> int | None:
        """The as-written message a problem is about (``None``: one the agent made up)."""
        return self.sent.origin[v.index] if 0 <= v.index < len(self.sent.origin) else None

    def place(self, v: Violation) -> int | None:
        """Where a problem's own message is in the request the agent sends, counted as the
        provider counts it (what it adds to the history before it included: ``Sent.position``);
        ``None`` for the new prompt."""
        ks = self.sent.places[v.index] if 0 <= v.index < len(self.sent.places) else ()
        return self.sent.position(ks[0]) if ks else None

    def written_of(self, v: Violation) -> tuple[int, ...]:
        """Every as-written message a problem's message is sent from, in the file's order: several
        where the agent joins records into the one message it sends (:meth:`at` names the one
        the message itself came from); ``()`` for a message the agent makes up."""
        return self.sent.written_of(v.index)

    def where(self, v: Violation, written: Sequence[Message]) -> str:
        """Where in the file a problem is (``written`` is the transcript's as-written messages):
        its as-written message's source (``line 19``), and the lines of the records the agent
        joins into the message it sends (``line 3; joined on resume with line 22``); or that the
        agent makes it on resume."""
        index = self.at(v)
        if index is None:
            words = self.sent.made_words(v.index)
            return f"{words}, made up on resume" if words else "made by the agent on resume"
        source = written[index].source
        here = str(source or f"message {index} as written")
        own = set(source.lines) if source is not None else set()
        others = [
            line
            for i in self.written_of(v)
            if i != index and 0 <= i < len(written) and (other := written[i].source) is not None
            for line in other.lines
            if line not in own
        ]
        if not others:
            return here
        lines = sorted(set(others))
        return f"{here}; joined on resume with line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"

    def summary(self) -> str:
        """``anthropic: rejected, 1 problem in what Claude Code sends (it repairs 2 things itself)``."""
        n = len(self.problems)
        who = agent_name(self.sent.agent) if self.sent.agent else None
        what = f"in what {who} sends" if who else "in the history"
        head = (
            f"{self.provider}: rejected, {count(n, 'problem')} {what}" if n else f"{self.provider}: no problems {what}"
        )
        if self.notes:
            head += f" ({who or 'the agent'} repairs {count(len(self.notes), 'thing')} itself)"
        return head


def verdict(
    transcript: Transcript,
    provider: str | None = None,
    repaired: Repair | None = None,
    sent: Sent | None = None,
) -> SentVerdict:
    """The verdict of ``provider`` (the one the agent talks to, by default) on what is sent from
    ``transcript``; pass ``repaired`` or ``sent`` to reuse what you already have. A format written
    for no one provider (the AI SDK) needs ``provider``: without it, an InputError says so."""
    from suture.checks import verdict as contract_verdict

    sent = sent if sent is not None else as_sent(transcript)
    name = provider or sent.provider
    if not name:
        from suture.checks import PROVIDERS

        raise InputError(
            f"suture.sent.verdict(transcript, provider=None): a {transcript.format} transcript is written for no "
            f"one provider; name one with provider= ({', '.join(PROVIDERS)})"
        )
    contract = contract_verdict(transcript.messages, name, repaired, prompt_follows=sent.agent is not None)
    if sent.agent is None:
        return SentVerdict(name, sent, list(contract.before), contract)
    # The provider numbers the request the agent sends, which holds what the agent adds besides the
    # history (agents-resume.md, measured: Claude Code 2.1.328 puts a `role: "system"` message
    # inside `messages` right after the first one, so a 400 for its resumed history names
    # `messages.3` where the history alone counts 2; pi sends its system prompt first, Codex its
    # instructions). So the history is checked as numbered in that request (suture.sent.numbered,
    # what `suture explain` reads an error's index in), and each problem then counts
    # ``sent.messages`` again: its ``where`` and ``error`` keep the request's numbering.
    from suture.sent.numbered import modelled

    request = modelled(transcript, sent)
    return SentVerdict(name, sent, request.sent_problems(name), contract)


def stricter(transcript: Transcript, accepted: SentVerdict) -> SentVerdict | None:
    """Where ``accepted`` (a provider's verdict on what is sent) accepts it and the stricter
    servers of the same API would not, their verdict; else ``None``. A Codex session resumed
    against DeepSeek's Responses endpoint is answered "No tool output found for function call"
    where OpenAI's accepts it (``suture.checks.openai_responses_strict``)."""
    from suture.checks import STRICTER

    strict = STRICTER.get(accepted.provider)
    if strict is None or accepted.rejected:
        return None
    found = verdict(transcript, strict, accepted.contract.repair, accepted.sent)
    return found if found.rejected else None


def served_words(transcript: Transcript, sent: Sent) -> str:
    """Why ``sent`` is judged by the stricter servers of its API (:func:`suture.checks.served_by`),
    where it is: the error the file recorded; ``""`` elsewhere."""
    from suture.checks import STRICTER

    if not transcript.evidence or sent.provider not in STRICTER.values():
        return ""
    source, _ = transcript.evidence[-1]
    at = f" at line {source.line}" if source.line else ""
    return f"its server is one of them: the API error the file recorded{at} is one only they send"


def stricter_words(provider: str, what: str) -> str:
    """What every surface says of :func:`stricter`'s verdict: the servers, then ``what`` of their
    problems it says (how many, or the first)."""
    return f"stricter servers of the same API, {provider}, reject it: {what}"
