"""Recognise a pasted provider error and find the messages it names (the core of ``suture explain``).

``recognise(text)`` matches the text against every rule's patterns (providers reword their
errors, so patterns match the stable words and pull out the ids and indices);
``locate(messages, recognition)`` finds the messages: first among the violations the provider's
check reports for that rule (narrowed to the ids and indices the text names), then, for a rule no
check can see from the history alone (an edited thinking block), by the ids and indices
themselves. ``elsewhere(text)`` tells an error that is not about the history's shape (the
provider overloaded or failing, a stream cut, a timeout, a rate limit, a history longer than the
model's context window: against a file, :func:`most_tokens` bounds what is sent from it, to tell a
count it cannot come to); ``closest(text)`` ranks rules for a text nothing else recognises;
``rejected_history(transcript)`` is the verdict beside an error not about the history.

``explain(messages, text)`` puts it together (an :class:`Explanation`: the rule, the messages,
what the error names that the history does not hold, whether the repair fixes it, and one
sentence that says so), for the command line and the app alike. ``resolve(messages, typed)``
reads a pointer a person types (``messages.3``, ``input[5]``, ``line 760``, ``#12``).

``explain_transcript(transcript, text, repaired, requests=...)`` is the same for any file. For a
session log (Claude Code, Codex, pi) the error's indices count what the agent *sends*, not the
file: they are placed in the request the session recorded behind that error where it has one
(``requests``, from ``suture.sent.recorded``: exact), else in what the agent sends on resume
(``suture.sent.numbered.modelled``), and traced back to the as-written messages, which
``Explanation.indices`` then names. Whether the problem is there is decided by the provider's
check of that request, for every rule the text may come from (a rule's ``family``: Anthropic
reports A1a with A1's text); and the verdict says whether the agent sends it again on resume or
repairs it itself, and what ``suture repair`` does about it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import orjson

from suture import show
from suture.checks import Verdict, Violation, verdict
from suture.checks._base import LIST
from suture.checks._wire import contents, items, turns
from suture.checks.rules import RULES, Rule, normalise
from suture.model import ImagePart, Message, OtherPart, Skipped, TextPart, Transcript, text_of
from suture.repair import Change, Repair, repair
from suture.words import count, with_article
from suture.written import lines_of

if TYPE_CHECKING:
    from suture.sent import Fix, Sent, SentVerdict
    from suture.sent.numbered import SentRequest
    from suture.sent.recorded import RecordedRequest

__all__ = [
    "REJECTED_TOO",
    "SHAPE_NOT_LENGTH",
    "Elsewhere",
    "Explanation",
    "Finding",
    "Location",
    "Pointer",
    "Recognition",
    "absent",
    "closest",
    "counted",
    "elsewhere",
    "explain",
    "explain_transcript",
    "locate",
    "most_tokens",
    "recognise",
    "rejected_history",
    "related_changes",
    "repair_writes",
    "resolve",
    "summary",
]

# Indices some providers give outside the sentence (OpenAI's "param": "messages.[57].role").
_PARAM_INDEX = re.compile(r"messages\.?\[(\d+)\]\.role", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Recognition:
    """A rule whose text the error matches, and what the error names."""

    rule: Rule
    ids: tuple[str, ...] = ()
    index: int | None = None
    block: int | None = None
    other_index: int | None = None
    matched: str = ""
    pattern: int = -1
    """Which of the rule's ``patterns`` matched."""

    @property
    def providers(self) -> tuple[str, ...]:
        return self.rule.providers

    @property
    def unseen(self) -> bool:
        """Whether the text is about what suture's checks cannot see in a history (an invalid
        thinking signature: :meth:`Rule.unseen_pattern`): no problem they find of the rule is it."""
        return self.rule.unseen_pattern(self.pattern)

    def of_rule(self, found: Iterable[Violation]) -> list[Violation]:
        """The problems of ``found`` this text may be about: of its rule's family, unless it is
        about what the checks cannot see (:attr:`unseen`), which none of them is."""
        return [] if self.unseen else [v for v in found if v.rule in self.rule.members]

    def named(self) -> str:
        """What the error names, in words: ``index 3, block 0; ids a, b`` (empty where it names
        no index and no id)."""
        said = []
        if self.index is not None:
            said.append(f"index {self.index}" + (f", block {self.block}" if self.block is not None else ""))
        if self.ids:
            said.append("ids " + ", ".join(self.ids))
        return "; ".join(said)


def _ids(groups: dict[str, str | None]) -> tuple[str, ...]:
    found: list[str] = []
    for key in ("ids", "id", "id2"):
        value = groups.get(key)
        if not value:
            continue
        for part in value.split(","):
            if part.strip().endswith(":"):
                break  # the next key of an error pasted as JSON ("type": ...), not an id
            part = part.strip().rstrip(".:;)")
            if part and part not in found:
                found.append(part)
    return tuple(found)


def _int(groups: dict[str, str | None], key: str) -> int | None:
    value = groups.get(key)
    return int(value) if value is not None and value.isdigit() else None


def recognise(text: str) -> list[Recognition]:
    """Every rule the text matches, best (longest match) first."""
    flat = normalise(text)
    found: list[tuple[int, int, Recognition]] = []
    for order, r in enumerate(RULES.values()):
        best: re.Match[str] | None = None
        which = -1
        for k, pattern in enumerate(r.compiled()):
            m = pattern.search(flat)
            if m and (best is None or len(m.group()) > len(best.group())):
                best, which = m, k
        if best is None:
            continue
        groups = best.groupdict()
        index = _int(groups, "n")
        if index is None:
            param = _PARAM_INDEX.search(flat)
            index = int(param.group(1)) if param else None
        block = _int(groups, "m")
        if block is None:
            block = _int(groups, "c")
        rec = Recognition(r, _ids(groups), index, block, _int(groups, "n2"), best.group(), which)
        found.append((-len(best.group()), order, rec))
    found.sort(key=lambda t: (t[0], t[1]))
    return [rec for _, _, rec in found]


_WORD = re.compile(r"[a-z_]{3,}")
_COMMON = frozenset({"the", "and", "for", "with", "must", "messages", "message", "that", "this", "each", "are"})


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(normalise(text).lower()) if w not in _COMMON}


def closest(text: str, limit: int = 3) -> list[Rule]:
    """The rules whose texts share the most words with ``text``."""
    words = _words(text)
    scored = []
    for order, r in enumerate(RULES.values()):
        theirs = _words(" ".join((r.title, *r.errors)))
        common = len(words & theirs)
        if common:
            scored.append((-common / (len(theirs) ** 0.5 or 1), order, r))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [r for _, _, r in scored[:limit]]


SHAPE_NOT_LENGTH = "suture checks a request's shape, not its length in tokens"
"""Said beside an error that the history was longer than the model's context window, by
``suture explain`` and ``suture check`` alike: why suture's check does not see it."""

REJECTED_TOO = "the history is rejected too"
"""Said beside an error that is not about the history (the provider's side, a limit) where the
file's provider rejects the history itself (what the agent sends on resume, for a session log):
by ``suture explain`` and, in the app, by the banner and E alike (:meth:`Elsewhere.rejected_too`
decides when)."""


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """An error that no rule of the history's shape explains: ``kind`` is ``server`` (the
    provider's side, or the connection to it: overloaded, a 5xx, a stream cut, a timeout),
    ``limit`` (a rate limit or a quota) or ``length`` (the history is longer than the model's
    context window: its size, which no repair changes); ``what`` says which, in a few words;
    ``matched`` is the text that says so.

    For ``length`` against a file (:func:`explain_transcript`): ``tokens``, the tokens the error
    says its request held, where it names them; ``most``, the most tokens what the agent sends
    from the file now can hold (:func:`most_tokens`); ``compacted``, the line of a compaction
    that makes what is sent now shorter than that request (recorded after the error, or the
    file's compaction where the error counts more than what is sent now can hold); ``who``, the
    agent's name (``""`` for a request file)."""

    kind: str
    what: str
    matched: str
    tokens: int | None = None
    most: int | None = None
    compacted: int | None = None
    earlier: int | None = None
    """For ``length``: the line of the last compaction, where the session recorded the error after
    it (what is sent now holds all that request held, and more)."""
    who: str = ""

    @property
    def about_history(self) -> bool:
        """Whether the history itself is what the error is about (its length)."""
        return self.kind == "length"

    @property
    def resumes(self) -> bool:
        """Whether what to do about the error itself is to resume (after a wait, once a limit
        allows, or a length error from before a compaction): then whether the provider accepts
        the history sent now is a question of its own."""
        return not self.about_history or (self.fits and self.compacted is not None)

    def rejected_too(self, history_rejected: bool) -> bool:
        """Whether to say :data:`REJECTED_TOO` instead of advising to resume as it is: the error
        itself :attr:`resumes`, and the provider rejects the history itself (``history_rejected``)."""
        return history_rejected and self.resumes

    @property
    def too_many(self) -> bool:
        """Whether the error counts more tokens than what is sent from the file now can hold."""
        return self.tokens is not None and self.most is not None and self.tokens > self.most

    @property
    def fits(self) -> bool:
        """Whether the error can be this file's: not a length error that counts more tokens than
        what is sent from it can hold, where no compaction made what is sent shorter."""
        return not self.too_many or self.compacted is not None

    def absent(self) -> list[str]:
        """What the error names that the file does not hold (its token count, where it does not fit)."""
        if self.fits or self.tokens is None or self.most is None:
            return []
        sent = f"what {self.who} sends from this file" if self.who else "this file's history"
        return [
            f"{self.tokens:,} tokens ({sent}, with room for a system prompt and tools, comes to at most {self.most:,})"
        ]

    def verdict(self, history_rejected: bool = False, went_on: int = 0) -> str:
        """What to do, in a sentence or two. ``history_rejected``: whether the file's provider
        rejects the history itself (then resuming as it is is never advised); ``went_on``: the
        messages the session wrote after it (:attr:`Explanation.went_on`: a wait is over)."""
        if self.kind == "length":
            return self._length_verdict(self.rejected_too(history_rejected))
        if self.kind == "limit":
            said = f"Not a problem with the history: {self.what}, a limit on the account or the model"
            resume = (
                "Resume once the limit allows it (wait for a rate limit to reset; a quota or spend "
                "limit must be raised first); suture's repair has nothing to do with this error."
            )
        else:
            said = f"Not a problem with the history: {self.what}. It is the provider's side (or the connection to it)"
            resume = "resume after a wait; suture's repair has nothing to do with this error."
        if went_on and not self.rejected_too(history_rejected):
            from suture.written import went_on_said

            return (
                f"{said}: {went_on_said(went_on)}, so there is nothing to wait for; suture's repair has "
                "nothing to do with this error."
            )
        if self.rejected_too(history_rejected):
            return (
                f"{said}; suture's repair has nothing to do with this error. But {REJECTED_TOO}: resumed as it "
                "is, what is sent gets a 400 for a problem of its own, wait or not: fix that first."
            )
        return f"{said}. {resume}" if self.kind == "limit" else f"{said}: {resume}"

    def _length_verdict(self, rejected: bool) -> str:
        compact = "compact it in the agent, or start a new session from a summary of it"
        if not self.fits:
            return (
                f"not in this file: wrong file, or a different request? The error names {', '.join(self.absent())}. "
                f"Where it is the right file, the history is longer than the model's context window: {compact}."
            )
        if self.compacted is not None:
            who = self.who or "the agent"
            said = (
                f"Not a problem suture's repair fixes: the history was longer than the model's context window when "
                f"this error came, but the session was compacted after it (line {self.compacted}): what {who} sends "
                "now is what the compaction kept and what came after it, shorter than the request that got this error."
            )
            if rejected:
                return f"{said} But {REJECTED_TOO}: resumed as it is, it gets a 400 for a problem of its own: fix that first."
            return f"{said} Resume it; should it get this error again, {compact}."
        # What suture knows is the error's own word and the file's compactions: it checks a
        # request's shape, not its length in tokens, so what resuming does is said on a condition.
        earlier = (
            f" The session recorded it after its compaction (line {self.earlier}): no compaction has shortened "
            f"what {self.who or 'the agent'} sends since."
            if self.earlier is not None
            else ""
        )
        again = "resuming it" if self.who else "sending it again"
        return (
            "Not a problem suture's repair fixes: the history was longer than the model's context window (with the "
            f"room it asks for its answer) when this error came; {SHAPE_NOT_LENGTH}.{earlier} If nothing was removed "
            f"from it since, {again} sends at least as much and fails the same way: {compact} (or ask for a shorter "
            "answer)."
        )

    def said(self, history_rejected: bool = False, went_on: int = 0) -> str:
        """What it comes to, in a few words (the app's banner; ``went_on`` as for :meth:`verdict`)."""
        if self.kind == "length":
            if not self.fits:
                return "it names more tokens than this file holds"
            if self.compacted is not None:
                was = f"the history was too long for the model; compacted since (line {self.compacted})"
                return f"{was}, but {REJECTED_TOO}" if self.rejected_too(history_rejected) else f"{was}: resume"
            return "the history was too long for the model: compact it"
        if self.rejected_too(history_rejected):
            return f"not about the history, but {REJECTED_TOO}"
        if went_on:  # (a wait it asks for is over)
            return "not about the history"
        if self.kind == "limit":
            return "not about the history: a limit; resume once it allows"
        return "not about the history: resume after a wait"


# Errors that say nothing of the history's shape, as providers and agents word them (matched against the
# normalised text, case ignored, only where no rule's text matches). Sources: Anthropic's errors
# page (docs.anthropic.com/en/api/errors: 529 overloaded_error "Overloaded", 500 api_error, 429
# rate_limit_error) and Claude Code's "API Error: Repeated 529 Overloaded errors" / "Connection
# dropped (ECONNRESET)" (sample_sessions/recorded/claude-code-*/overloaded-5xx, stream-cut-after-call);
# OpenAI's error codes guide (429 "Rate limit reached", "You exceeded your current quota", 500
# "The server had an error while processing your request", 503 "The engine is currently
# overloaded") and Codex's "unexpected status 529 ...: The server is overloaded" and "stream
# disconnected before completion" (sample_sessions/recorded/codex-*/; openai/codex issues 6397,
# 22472); pi's "error: terminated" for a cut stream (sample_sessions/recorded/pi-*/stream-cut-after-call);
# Gemini's RESOURCE_EXHAUSTED, UNAVAILABLE ("The model is overloaded") and DEADLINE_EXCEEDED;
# Bedrock's ThrottlingException, ServiceUnavailableException, InternalServerException and
# ModelNotReadyException. The first that matches names it: a history longer than the model's
# context window first (about the history's size, not its shape: no repair changes it), as agents
# report it inside other words (Codex: "stream disconnected before completion: Your input exceeds
# the context window of this model", sample_sessions/codex/broken-resumed.jsonl line 19). Its
# texts: Anthropic's 400 invalid_request_error "prompt is too long: 215000 tokens > 200000
# maximum" and "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000";
# OpenAI's "This model's maximum context length is 128000 tokens" (code context_length_exceeded);
# Gemini's "The input token count (1234567) exceeds the maximum number of tokens allowed
# (1048576)"; Bedrock's "Input is too long for requested model".
_ELSEWHERE: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (kind, what, re.compile(pattern, re.IGNORECASE))
    for kind, what, pattern in (
        (
            "length",
            "the history is longer than the model's context window",
            # (Matched after normalise(), which takes out quotes and apostrophes: "models".)
            r"\b(?:prompt is too long|maximum context length|context_length_exceeded|exceeds? context limit"
            r"|input is too long for (?:the )?requested model|exceeds? the (?:models? )?context window"
            r"|input token count\b.{0,40}\bexceeds the maximum)",
        ),
        (
            "limit",
            "a quota or spend limit",
            r"\b(?:insufficient_quota|exceeded your current quota|spend(?:ing)? limit)",
        ),
        (
            "limit",
            "a rate limit (429)",
            r"\b(?:rate[ _-]?limit(?:ed|_error|_exceeded)?|too many requests|resource_exhausted|throttling(?:exception)?"
            r"|(?:status|http|error|code)[\s:=]*429)\b",
        ),
        (
            "server",
            "the provider is overloaded (529)",
            r"\b(?:overloaded(?:_error)?|(?:status|http|error|code)[\s:=]*529)\b",
        ),
        (
            "server",
            "the response stream was cut before it completed",
            r"\b(?:stream disconnected|stream closed before|connection (?:dropped|reset|closed)|econnreset|"
            r"socket hang up|premature close|terminated)\b",
        ),
        ("server", "the request timed out", r"\b(?:timed out|timeout|etimedout|deadline_exceeded|gateway time-?out)\b"),
        (
            "server",
            "a server error (5xx)",
            r"\b(?:internal server error|server had an error|an error occurred while processing your request|"
            r"server_error|api_error|internalserverexception|service ?unavailable(?:exception)?|"
            r"modelnotreadyexception|bad gateway|(?:status|http|error|code)[\s:=]*5\d\d)\b",
        ),
    )
)


def elsewhere(text: str) -> Elsewhere | None:
    """What an error that is not about the request's history's shape says (the provider
    overloaded or failing, a stream cut, a timeout, a rate limit or quota, a history longer than
    the model's context window), or ``None``. Ask it only of a text
    no rule recognises: a 400 about the history may name a status too."""
    flat = normalise(text)
    for kind, what, pattern in _ELSEWHERE:
        m = pattern.search(flat)
        if m:
            return Elsewhere(kind, what, m.group(), tokens=_tokens(flat) if kind == "length" else None)
    return None


# The tokens a context-window error says its request held, as each provider words it (the texts
# beside ``_ELSEWHERE``): Anthropic's "prompt is too long: 215000 tokens > 200000 maximum" and
# "exceed context limit: 190000 + 20000 > 200000" (the input, then max_tokens); OpenAI's
# "However, you requested 130000 tokens (120000 in the messages, ...)" and "your messages
# resulted in 130512 tokens"; Gemini's "The input token count (1234567) exceeds ...".
_TOKENS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"prompt is too long:?\s*(\d[\d,]*)\s*tokens",
        r"exceeds? context limit:?\s*(\d[\d,]*)\s*\+",
        r"\((\d[\d,]*) in the messages",
        r"messages resulted in (\d[\d,]*) tokens",
        r"input token count\s*\(?(\d[\d,]*)",
    )
)

# What the agent sends beyond the history the file holds, which no file holds: its system prompt
# and tool definitions (Claude Code's are some 20,000 tokens, and MCP servers' tools add tens of
# thousands more), and the room a model counts for an image (Anthropic: about width x height /
# 750 tokens, at most about 1,600, docs.anthropic.com/en/docs/build-with-claude/vision; OpenAI's
# high detail at most some 1,100-1,500; an image the request only points at holds no bytes here).
# Both are generous on purpose: :func:`most_tokens` must never fall short of a real request.
_ADDED_TOKENS = 100_000
_IMAGE_TOKENS = 5_000


def _tokens(flat: str) -> int | None:
    """The tokens a context-window error counts for its request's input, where it names them."""
    for pattern in _TOKENS:
        m = pattern.search(flat)
        if m:
            return int(m.group(1).replace(",", ""))
    return None


def most_tokens(sent: Sent) -> int | None:
    """The most tokens what is sent (``sent``: what the agent sends on resume, or a request
    file's history) can come to with what the agent adds to it: one token per byte of its wire
    list as JSON (a token of a byte-level tokenizer is at least one byte, and the JSON holds more
    bytes than the text), and room for a system prompt, tools and images (``_ADDED_TOKENS``,
    ``_IMAGE_TOKENS``). ``None`` where the wire list is not JSON, or where a part of a kind suture
    does not read (a document or file, which a request may name by URL or id) could hold any
    number of tokens the file does not: no bound, so no error is said not to be the file's."""
    try:
        size = len(orjson.dumps(sent.wire, option=orjson.OPT_NON_STR_KEYS))
    except TypeError:
        return None
    parts = [p for m in sent.messages if isinstance(m.content, list) for p in m.content]
    if any(isinstance(p, OtherPart) for p in parts):
        return None
    images = sum(isinstance(p, ImagePart) for p in parts)
    return size + images * _IMAGE_TOKENS + _ADDED_TOKENS


def _unrecognised(text: str) -> Explanation:
    """The explanation of a text no rule recognises: not about the history's shape
    (:func:`elsewhere`), or the closest rules."""
    cause = elsewhere(text)
    return Explanation(text, elsewhere=cause, closest=[] if cause is not None else closest(text))


def _length_in(transcript: Transcript, sent: Sent, found: Explanation) -> Explanation:
    """``found``, an error that the history is longer than the model's context window, against
    this file: whether what is sent from it now can hold the tokens the error counts, and whether
    a compaction came after the error (the one the session recorded with the same words, where it
    did) or, where what is sent now cannot hold that many, after all but what it kept: then what
    is sent now is shorter than the request that got it. Where the file cannot hold that many and
    no compaction explains it, the error is not this file's (:attr:`Explanation.absent`)."""
    from suture.formats import compaction_line
    from suture.sent import agent_name

    cause = found.elsewhere
    assert cause is not None
    compacted = compaction_line(transcript)
    said = " ".join(found.text.split())
    at = next((s.line for s, t in reversed(transcript.evidence) if " ".join(t.split()) == said), None)
    most = most_tokens(sent)
    cause = replace(cause, most=most, who=agent_name(sent.agent) if sent.agent else "")
    if compacted is not None and ((at is not None and at < compacted) or (at is None and cause.too_many)):
        cause = replace(cause, compacted=compacted)
    elif compacted is not None and at is not None:
        cause = replace(cause, earlier=compacted)
    found.elsewhere = cause
    found.absent = cause.absent()
    return found


@dataclass(slots=True)
class Location:
    """Where the error's messages are: the provider's violations, or just the messages named."""

    provider: str | None
    violations: list[Violation] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)
    verdict: Verdict | None = None
    by: str = ""
    """``check`` (found by the provider's check), ``ids`` or ``index`` (found by what the text names)."""

    @property
    def found(self) -> bool:
        """Whether it names messages, or the check found it at the request's list itself (no
        message to send, which no index names)."""
        return bool(self.indices) or any(v.index == LIST for v in self.violations)


def _wire_index(rec: Recognition) -> tuple[int | None, int | None]:
    if rec.rule.index == "turns1":
        return (rec.index - 1 if rec.index else None), (rec.block - 1 if rec.block else None)
    return rec.index, rec.block


def _says_id(text: str, call_id: str) -> bool:
    """Whether ``text`` names ``call_id`` as a whole (``y`` is not named by "by" or "any")."""
    return re.search(rf"(?<![\w-]){re.escape(call_id)}(?![\w-])", text) is not None


def _holds_one_of(m: Message, ids: Sequence[str]) -> bool:
    """Whether ``m`` holds a call or a result with one of ``ids``."""
    return m.tool_call_id in ids or any(c.id in ids for c in m.tool_calls)


def _narrow(found: list[Violation], rec: Recognition, messages: Sequence[Message]) -> list[Violation]:
    n, m = _wire_index(rec)
    if rec.ids:
        # A problem about an id the error names, or on a message that holds one (the calls'
        # message, where suture's own words name another of its calls).
        by_id = [
            v
            for v in found
            if v.call_id in rec.ids
            or any(_says_id(v.error, i) for i in rec.ids)
            or (0 <= v.index < len(messages) and _holds_one_of(messages[v.index], rec.ids))
        ]
        if by_id:
            found = by_id
        elif n is None:
            return []
    if n is not None:
        by_index = [v for v in found if v.wire_index == n]
        if not by_index and not rec.ids:
            return []
        found = by_index or found
        if m is not None:
            found = [v for v in found if v.block == m] or found
    return found


def _named(messages: Sequence[Message], rec: Recognition) -> tuple[list[int], str]:
    """The neutral messages the error's ids, or else its index, point at."""
    if rec.ids:
        wanted = set(rec.ids)
        hits = [
            i
            for i, m in enumerate(messages)
            if (m.role == "tool" and m.tool_call_id in wanted) or any(c.id in wanted for c in m.tool_calls)
        ]
        if hits:
            return hits, "ids"
    n, m = _wire_index(rec)
    if n is None:
        return [], ""
    kind = rec.rule.index
    if kind in ("turns", "turns1", "contents"):
        wire = contents(messages) if kind == "contents" else turns(messages)
        if not 0 <= n < len(wire):
            return [], ""
        turn = wire[n]
        if m is not None and 0 <= m < len(turn.blocks):
            return [turn.blocks[m].source], "index"
        return list(turn.members), "index"
    if kind == "items":
        listed = items(messages)
        return ([listed[n].source], "index") if 0 <= n < len(listed) else ([], "")
    return ([n], "index") if 0 <= n < len(messages) else ([], "")


def locate(messages: Sequence[Message], rec: Recognition, repaired: Repair | None = None) -> Location:
    """Find the messages ``rec`` is about, checking each of its providers in turn."""
    first: Location | None = None
    for provider in rec.providers:
        v = verdict(messages, provider, repaired)
        repaired = v.repair
        found = _narrow(rec.of_rule(v.before), rec, messages)
        if found:
            indices = sorted({x.index for x in found if x.index != LIST})
            return Location(provider, found, indices, v, "check")
        if first is None:
            first = Location(provider, [], [], v)
    assert first is not None
    indices, by = _named(messages, rec)
    first.indices = _unseen_at(messages, rec, indices)
    first.by = by
    return first


def _unseen_at(messages: Sequence[Message], rec: Recognition, indices: list[int]) -> list[int]:
    """The messages of ``indices`` the error may be about: all of them, but for an error about
    what no check sees (:attr:`Recognition.unseen`: a thinking block's signature), those that
    hold a thinking block."""
    if not rec.unseen:
        return indices
    from suture.checks.anthropic import holds_thinking

    return [i for i in indices if 0 <= i < len(messages) and holds_thinking(messages[i])]


def _wire_length(messages: Sequence[Message], kind: str | None) -> tuple[int, str]:
    """How many wire messages (or items, or contents) the history makes, and what they are called."""
    if kind in ("turns", "turns1"):
        return len(turns(messages)), "messages"
    if kind == "contents":
        return len(contents(messages)), "contents"
    if kind == "items":
        return len(items(messages)), "input items"
    return len(messages), "messages"


def _holds_id(messages: Sequence[Message], wanted: str) -> bool:
    for m in messages:
        if m.tool_call_id == wanted or any(c.id == wanted for c in m.tool_calls):
            return True
    # Item ids (a Responses reasoning item's ``rs_…``) and others live only in the records.
    quoted = orjson.dumps(wanted)
    for m in messages:
        if m.raw is not None:
            try:
                if quoted in orjson.dumps(m.raw, option=orjson.OPT_NON_STR_KEYS):
                    return True
            except TypeError:
                continue
    return False


# The role of the message an error's index names, where its text says it (a message of another
# role there is not the one it is about), in the wire's own words: Anthropic's "messages.N.content.0:
# If an assistant message contains any thinking blocks, ..." (A12) and "messages.N.content.M:
# unexpected `tool_use_id` found in `tool_result` blocks" (A2, a user message's tool_result); the
# texts of each rule are in suture.checks.rules, with their sources.
_ROLE_AT: dict[str, tuple[str, str]] = {
    "A2": ("user", "a user message (its tool_result blocks)"),
    "A3": ("assistant", "an assistant message (its tool_use blocks)"),
    "A4": ("user", "a user message (its tool_result blocks)"),
    "A12": ("assistant", "an assistant message (its thinking blocks)"),
    "A13": ("user", "a user message (its tool_result block)"),
    "B1": ("user", "a user message (its toolResult blocks)"),
    "B2": ("user", "a user message (its toolResult blocks)"),
    "D1": ("assistant", "an assistant message"),
    "K2": ("assistant", "an assistant message"),
    "O2": ("tool", "a tool message"),
    "O3": ("assistant", "an assistant message (its tool_calls)"),
    "O5": ("assistant", "an assistant message (its tool_calls)"),
    "O8": ("assistant", "an assistant message"),
}


def _other_role(roles: Sequence[str | None], n: int, rec: Recognition, place: Callable[[int], str]) -> str:
    """Where the error is about a message of one role (:data:`_ROLE_AT`) and place ``n`` of a
    request whose wire roles are ``roles`` holds one of another: that, in a clause, with the
    places nearest it that hold one of that role (``place`` names them); ``""`` where it fits, or
    the text says no role."""
    wanted = _ROLE_AT.get(rec.rule.id)
    if wanted is None or not 0 <= n < len(roles) or roles[n] is None or roles[n] == wanted[0]:
        return ""
    role, words = wanted
    said = f"{place(n)} is {with_article(str(roles[n]))} message, not {words}"
    before = next((k for k in range(n - 1, -1, -1) if roles[k] == role), None)
    after = next((k for k in range(n + 1, len(roles)) if roles[k] == role), None)
    near = [place(k) for k in (before, after) if k is not None]
    if near:
        which = f"{role} messages are" if len(near) > 1 else f"{role} message is"
        said += f"; the nearest {which} {' and '.join(near)}, where another numbering may put it"
    return said


_EACH_MESSAGE = "messages"
"""A rule's index kind, and a request's list, that counts one place a message (not turns, items
or contents): the one whose places have a role to compare."""


def _wire_roles(messages: Sequence[Message], kind: str | None) -> list[str | None]:
    """The role of each wire message the history makes, as the provider's index counts them
    (``None`` for a list of items or contents, which :data:`_ROLE_AT` does not name)."""
    if kind in ("turns", "turns1"):
        return [t.role for t in turns(messages)]
    if kind == _EACH_MESSAGE:
        return [m.role for m in messages]
    return []


def absent(messages: Sequence[Message], rec: Recognition) -> list[str]:
    """What the error names that this history does not hold: ids no message has, an index past
    the end of the request the history makes, or at which the message is not of the role the
    error is about (an assistant message's thinking blocks at a user message). Empty when
    everything it names is here."""
    missing = [f"id {i}" for i in rec.ids if not _holds_id(messages, i)]
    n, _ = _wire_index(rec)
    if n is not None:
        length, what = _wire_length(messages, rec.rule.index)
        shown = rec.index if rec.index is not None else n
        if n >= length:
            missing.append(f"index {shown} (this history makes {length} {what})")
        elif other := _other_role(_wire_roles(messages, rec.rule.index), n, rec, lambda k: f"message {k}"):
            missing.append(f"index {shown} ({other})")
    return missing


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem the provider's check finds in what is sent, placed in that request's numbering
    (``where``: ``messages.3``; ``places``: every place it is about) and in the file (``written``:
    the as-written messages it is about; ``message``: the one the problem itself is about, the
    ``[n]`` ``suture check`` prints in front of it, ``None`` for one the agent makes up)."""

    violation: Violation
    where: str
    places: frozenset[int]
    written: tuple[int, ...]
    message: int | None = None

    @property
    def rule(self) -> Rule:
        return RULES[self.violation.rule]


@dataclass(slots=True)
class Explanation:
    """What a provider's error says about a history: the rule it breaks, the messages it is
    about, whether suture's repair fixes it, or why it does not fit this history at all.

    For a session log (:func:`explain_transcript`) ``request`` is the request the error's indices
    count (the one the session recorded, or what the agent sends on resume), ``named`` the place
    its index names there, ``findings`` what the provider's check finds at that place, ``now``
    (for a recorded request) what the agent would send again on resume, ``fixes`` what the agent
    repairs itself there, and ``location.violations`` the contract view (the file as written and
    suture's repair of it). ``indices`` are always as-written messages."""

    text: str
    recognition: Recognition | None = None
    others: list[Recognition] = field(default_factory=list)
    location: Location | None = None
    absent: list[str] = field(default_factory=list)
    """What the error names that the history does not hold (then it is about another request)."""
    changes: list[Change] = field(default_factory=list)
    closest: list[Rule] = field(default_factory=list)
    elsewhere: Elsewhere | None = None
    """For a text no rule recognises: what it says where it is not about the history at all."""
    request: SentRequest | None = None
    named: int | None = None
    findings: list[Finding] = field(default_factory=list)
    now: list[Finding] | None = None
    fixes: list[Fix] = field(default_factory=list)
    writes: str = ""
    """What ``suture repair`` writes for this file, in a few words (a session log only)."""
    lines: list[int] = field(default_factory=list)
    """The lines of the file the messages are written on (a session log only)."""
    went_on: int = 0
    """For the error a session recorded last with this text: the messages it wrote after it (it
    went on, so that error is not what stopped it; :func:`suture.written.went_on`)."""
    numbering: str = ""
    """For a session log whose error's index reads otherwise in another numbering (what the agent
    sends, the file sent as written), which was taken and why, in a clause: "it does not fit what
    Claude Code sends …: messages.9 there is [14] tool (line 36), where …"."""

    @property
    def beside_history(self) -> bool:
        """Whether the error is about something else than the history sent now (the provider's
        side, a limit, a length before a compaction: :attr:`Elsewhere.resumes`), so that whether
        the history itself is accepted is a question of its own."""
        return self.elsewhere is not None and self.elsewhere.resumes

    @property
    def recognised(self) -> bool:
        """Whether a rule's text is recognised."""
        return self.recognition is not None

    @property
    def kind(self) -> str:
        """``rule`` (a rule's text), ``server``, ``limit`` or ``length`` (the provider's side, a
        limit, or a history longer than the model's context window; :class:`Elsewhere`), or
        ``unrecognised``."""
        if self.recognition is not None:
            return "rule"
        return self.elsewhere.kind if self.elsewhere is not None else "unrecognised"

    def left_out(self, i: int) -> bool:
        """Whether the agent leaves as-written message ``i`` out of what it sends (a session log:
        an orphan result joined to the records around it, then left out)."""
        return self.request is not None and i in _left_out(self.request)

    @property
    def session(self) -> bool:
        """Whether the file is a session log (its indices count what the agent sends)."""
        return self.request is not None and self.request.agent is not None

    @property
    def found(self) -> bool:
        """Recognised, everything it names is in this history, and its messages were found."""
        return self.location is not None and self.location.found and not self.absent

    @property
    def indices(self) -> list[int]:
        """The messages the error is about (none where it is not about this history)."""
        return list(self.location.indices) if self.location is not None and not self.absent else []

    @property
    def first(self) -> int | None:
        """The message to go to: the one the provider's check finds the problem at, where it
        finds it among those the error names (the ``[n]`` ``suture check`` prints: the second
        output of a call, not the call), else the first the error names."""
        indices = self.indices
        found = next((f.message for f in self.findings if f.message is not None and f.message in indices), None)
        return found if found is not None else (indices[0] if indices else None)

    @property
    def flagged(self) -> bool:
        """Whether suture's own check sees the problem: in this history, or for a session log in
        what the agent sends."""
        if self.session:
            return self.found and bool(self.findings)
        return self.found and self.location is not None and self.location.by == "check"

    @property
    def fixed(self) -> bool:
        """Whether the repaired history is free of it: a problem suture's check sees, gone after
        repair."""
        if self.session:
            violations = self.location.violations if self.location is not None else []
            return self.flagged and bool(violations) and all(v.fixed for v in violations)
        if not self.flagged or self.location is None:
            return False
        return all(v.fixed for v in self.location.violations)

    @property
    def agent_repairs(self) -> bool:
        """(A session log.) Whether the agent repairs what the error is about itself when it
        resumes the file (:attr:`fixes`), so that it would not get the error now: the error came
        from the file sent as written, an older state of it, or another version of the agent."""
        rec, request = self.recognition, self.request
        if not (self.session and self.found and self.fixes and rec is not None and request is not None):
            return False
        if self.flagged:
            return request.exact and self.now is not None and not self.now
        return not rec.unseen

    @property
    def agent(self) -> str:
        """(A session log.) The agent whose resume is modelled, with its version: ``Claude Code 2.1.332``."""
        from suture.sent import agent_name

        assert self.request is not None
        sent = self.request.sent
        return f"{agent_name(sent.agent or '')} {sent.model}"

    def came_from(self) -> str:
        """(A session log.) Where an error the agent would not get now came from, in a clause:
        the file sent as written (as ``suture check``'s contract view counts it), or the recorded
        request, from an older state of the file or another version of the agent."""
        request = self.request
        assert request is not None
        sent = request.sent
        if not self.flagged:  # (what the agent sends has no such problem: the version differs)
            return f"this error came from {_older(sent, request)}"
        if request.written_view:
            return f"this error came from the file sent as written, not from what {self.agent} sends"
        return f"the recorded request came from {_older(sent, request)}"

    @property
    def rule(self) -> Rule | None:
        """The rule the problem breaks: the one the check found where it did (A1a for A1's
        text), else the one the text names."""
        if self.findings:
            return self.findings[0].rule
        return self.recognition.rule if self.recognition is not None else None

    def verdict(self, history_rejected: bool = False) -> str:
        """What to do, in a sentence or two, that never contradict each other. ``history_rejected``:
        whether the file's provider rejects the history itself (said beside an error that is not
        about it: :meth:`Elsewhere.rejected_too`)."""
        rec = self.recognition
        if rec is None:
            if self.elsewhere is not None:
                return self.elsewhere.verdict(history_rejected, self.went_on)
            return "suture does not recognise this error text."
        rule = rec.rule
        if self.absent:
            return (
                f"not in this file: wrong file, or a different request? The error names {', '.join(self.absent)}. "
                f"Where it is the right file, what fixes this kind of error: {_sentence(rule.repair_does or rule.remedy)}"
            )
        if self.session:
            return self._session_verdict()
        location = self.location
        assert location is not None
        if self.flagged:
            if self.fixed:
                return f"Repair: fixes it: {_sentence(location.violations[0].remedy)}"
            stays = next(v for v in location.violations if not v.fixed)
            return f"Repair: does not fix this. What to do: {_sentence(stays.remedy)}"
        if not self.found:
            return (
                f"not found: suture's {', '.join(rule.providers)} check finds no {rule.id} problem here, "
                "and the error names no message of it. Is this the history that was sent? "
                f"What fixes this kind of error: {_sentence(rule.repair_does or rule.remedy)}"
            )
        if rule.fixed == "no":
            return f"Repair: does not fix this kind of problem. What to do: {_sentence(rule.remedy)}"
        return (
            f"Repair: nothing to repair here: suture's {location.provider} check finds no {rule.id} problem in "
            "these messages as this file holds them. If the agent still gets this error, what it sends differs "
            "from this file (a state before the last write, or what the agent adds when it sends)."
        )

    def _session_verdict(self) -> str:
        from suture.sent import agent_name

        rec, request, location = self.recognition, self.request, self.location
        assert rec is not None and request is not None and location is not None
        sent = request.sent
        who = f"{agent_name(sent.agent or '')} {sent.model}"
        rule = self.rule or rec.rule
        family = "/".join(rec.rule.members) if len(rec.rule.members) > 1 else rec.rule.id
        if not self.found:
            # An error about what no check sees (an invalid signature) is about a thinking block.
            none = (
                f"{request.label} holds no thinking block where the error points"
                if rec.unseen
                else f"suture's check of {request.label} finds no {family} problem, and the error names no message of it"
            )
            return (
                f"not found: {none}. Is this the session that got it? What fixes this kind of error: "
                f"{_sentence(rule.repair_does or rule.remedy)}"
            )
        if self.flagged and request.exact and self.now is not None and not self.now:
            # The recorded request (or the file sent as written) had it; what the agent sends now does not.
            if self.agent_repairs:
                return (
                    f"{who} repairs this itself when it resumes this file: {_sentence(self.fixes[0].summary)} "
                    f"So {self.came_from()}. {self._nothing_to_repair(who)}"
                )
            since = self.came_from() if request.written_view else f"the file has changed since {request.label}"
            return (
                f"{who} would not send this now: what it sends when it resumes this file no longer has it "
                f"({since}). {self._nothing_to_repair(who)}"
            )
        if not self.flagged and not rec.unseen:
            if self.agent_repairs:
                return (
                    f"{who} repairs this itself when it resumes this file: {_sentence(self.fixes[0].summary)} "
                    f"So {self.came_from()}. {self._nothing_to_repair(who)}"
                )
            assumed = f" ({sent.assumed})" if sent.assumed else ""
            return (
                f"Repair: nothing to repair here: suture's check of {request.label} finds no {family} problem "
                f"at the messages the error names{assumed}. If the agent still gets this error, what it sends "
                "differs from what suture predicts, or the error came from an older state of this file."
            )
        return f"{self._again(who)} {self._repair_clause(rule)}"

    def _again(self, who: str) -> str:
        """That the agent sends the problem again when it resumes the file (it is there, or it is
        one no check sees, in a message the agent sends as written)."""
        request, rec = self.request, self.recognition
        assert request is not None and rec is not None
        unseen = (
            " (suture's check cannot see it: a file does not show whether a thinking block's signature is valid, "
            "or whether thinking is on)"
            if rec.unseen
            else ""
        )
        if request.layout is not None and request.layout != request.provider:
            return (
                f"{who} sends this as written when it resumes this file (it does not repair it itself), so "
                f"resuming it against {request.layout} gives this error again."
            )
        if request.exact and not request.written_view:
            return f"{who} sends this again every time it resumes this file: it does not repair it itself{unseen}."
        return (
            f"{who} sends this as written when it resumes this file (it does not repair it itself), "
            f"so resuming gives this error again{unseen}."
        )

    def _nothing_to_repair(self, who: str) -> str:
        """For a problem the agent no longer sends: nothing to do with it; with an older agent,
        what ``suture repair`` does."""
        violations = self.location.violations if self.location is not None else []
        older = ""
        if violations and all(v.fixed for v in violations):
            older = (
                f" With an older version, which sends it as written, `suture repair` fixes it: "
                f"{_sentence(violations[0].remedy)}{self._writes()}"
            )
        elif violations:
            stays = next(v for v in violations if not v.fixed)
            older = f" Sent as written, it is rejected, and `suture repair` does not fix it: {_sentence(stays.remedy)}"
        return f"Nothing to repair with {who}: resume it as it is.{older}"

    def _repair_clause(self, rule: Rule) -> str:
        """What ``suture repair`` does about a problem the agent sends again."""
        location = self.location
        violations = location.violations if location is not None else []
        if violations and all(v.fixed for v in violations):
            return f"Repair: fixes it: {_sentence(violations[0].remedy)}{self._writes()}"
        if violations:
            stays = next(v for v in violations if not v.fixed)
            return f"Repair: does not fix this. What to do: {_sentence(stays.remedy)}"
        if rule.fixed == "no":
            return f"Repair: does not fix this kind of problem. What to do: {_sentence(rule.remedy)}"
        return (
            "Repair: does not fix this: suture's check of the file as written does not see it (it comes from "
            f"what the agent does when it sends). What to do: {_sentence(rule.remedy)}"
        )

    def _writes(self) -> str:
        """What ``suture repair`` writes, and where it is not a session the agent resumes, what a
        person does to go on in the agent."""
        if not self.writes:
            return ""
        out = f" `suture repair` writes {self.writes}"
        if "not a session" in self.writes:
            where = f" (line {', '.join(str(n) for n in self.lines)})" if self.lines else ""
            who = self.request.sent.agent if self.request is not None else None
            from suture.sent import agent_name

            agent = agent_name(who) if who else "the agent"
            return f"{out}: to go on in {agent}, make the same change in this file{where}."
        return f"{out}."


def _older(sent: object, request: SentRequest) -> str:
    """Where an error the agent would not get now came from: another version, or an older state."""
    from suture.sent import Sent, agent_name

    assert isinstance(sent, Sent)
    who = agent_name(sent.agent or "")
    recorded = request.recorded
    if recorded is not None and recorded.version and recorded.version != sent.model:
        return f"{who} {recorded.version}, which sent it (suture models {who} {sent.model})"
    if sent.version and sent.model and sent.version != sent.model:
        return (
            f"another {who} version: {who} {sent.version} wrote this file, and suture models {who} "
            f"{sent.model}'s resume"
        )
    if recorded is not None:
        return "an older state of this file"
    return f"an older state of this file, or a {who} version other than {sent.model}"


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "?", "!")) else text + "."


def related_changes(result: Repair, where: Location, ids: Sequence[str]) -> list[Change]:
    """The repair's changes to the messages an error is about (by index, or by the ids it names)."""
    wanted = set(ids) | {v.call_id for v in where.violations if v.call_id}
    indices = set(where.indices) | {i for v in where.violations for i in v.related}
    return [
        c
        for c in result.changes
        if c.input_index in indices or (c.call_id is not None and c.call_id in wanted) or (c.new_id in wanted)
    ]


def explain(messages: Sequence[Message], text: str, repaired: Repair | None = None) -> Explanation:
    """Everything ``suture explain`` and the app say about ``text`` (a provider's error) and
    ``messages``. ``repaired`` reuses a repair of ``messages``."""
    recognised = recognise(text)
    if not recognised:
        return _unrecognised(text)
    rec = recognised[0]
    result = repaired if repaired is not None else repair(messages)
    missing = absent(messages, rec)
    where = locate(messages, rec, result)
    changes = [] if missing else related_changes(result, where, rec.ids)
    return Explanation(text, rec, recognised[1:], where, missing, changes)


def rejected_history(transcript: Transcript, repaired: Repair | None = None) -> SentVerdict | None:
    """The verdict of the file's own provider (:func:`suture.formats.own_provider`, the one the
    app's headline and ``suture scan`` give) where it rejects the history: what the agent sends on
    resume for a session log, the file as it is for any other; ``None`` where it accepts it, or
    the file is written for no one provider. What ``suture explain`` says beside an error that is
    not about the history (:data:`REJECTED_TOO`); the app asks the provider it shows."""
    from suture.formats import own_provider
    from suture.sent import verdict as sent_verdict

    provider = own_provider(transcript)
    if not provider:
        return None
    judged = sent_verdict(transcript, provider, repaired)
    return judged if judged.rejected else None


def repair_writes(transcript: Transcript, in_place: bool = True) -> str:
    """What ``suture repair`` writes for ``transcript``, in a few words: a session the agent
    resumes (a session log is written back, :mod:`suture.writeback`; ``in_place``: where it can
    be written in its own place, not read from standard input), or the repaired history as a
    request body."""
    from suture.formats import export_name, get
    from suture.sent import agent_name
    from suture.writeback import writes_back

    who = agent_name(transcript.format)
    if writes_back(transcript.format):
        # (Written elsewhere, with -o, it is not the session the agent resumes.)
        if not in_place:
            return f"a {who} session with the fix, which {who} resumes once it is put in place of the session's file"
        return (
            f"a {who} session with the fix, which {who} resumes once it is the session's file "
            "(`--in-place` writes it there and keeps the original as .bak)"
        )
    name = export_name(transcript)
    if name == transcript.format:
        return "the repaired file"
    what = _REQUESTS.get(name) or get(name).title.split(" (")[0]
    return f"the repaired history as {what}, not a session {who} resumes"


_REQUESTS = {
    "messages": "an Anthropic Messages request",
    "chat": "an OpenAI Chat Completions request",
    "responses": "OpenAI Responses input items",
    "gemini": "Gemini contents",
}


def explain_transcript(
    transcript: Transcript,
    text: str,
    repaired: Repair | None = None,
    *,
    requests: Sequence[RecordedRequest] | None = None,
) -> Explanation:
    """:func:`explain` for any file. For a session log the error's indices count what the agent
    sends: the request ``requests`` holds behind the recorded error of the same text (exact;
    ``suture.sent.recorded.read(path)`` gives them), else what the agent sends on resume; the
    messages found are as-written (``Explanation.indices``). Where no recorded request is behind
    it, an index that fits the file sent as written and not what the agent sends (the numbering
    of the errors ``suture check``'s contract view writes) is read as written; where both fit,
    what the agent sends is taken. ``Explanation.numbering`` says which, where the other reads it
    otherwise. For a request file, :func:`explain` of its messages."""
    from suture.sent import as_sent
    from suture.sent.numbered import as_written, modelled

    sent = as_sent(transcript)
    recognised = recognise(text)
    if not recognised:
        found = _unrecognised(text)
        if found.kind == "length":
            return _length_in(transcript, sent, found)
        found.went_on = _went_on(transcript, text)  # (a length error's compaction says what matters)
        return found
    if sent.agent is None:
        return explain(transcript.messages, text, repaired)
    result = repaired if repaired is not None else repair(transcript.messages)
    model = modelled(transcript, sent)
    behind = _behind(transcript, requests or (), recognised[0])
    numberings = _numberings(transcript, sent, model, behind)
    verdicts: dict[str, Verdict] = {}

    def contracts(provider: str) -> Verdict:
        if provider not in verdicts:
            # (a session log's history is sent with the user's next message after it)
            verdicts[provider] = verdict(transcript.messages, provider, result, prompt_follows=True)
        return verdicts[provider]

    tries = [
        (k, _explain_sent(transcript, request, model, rec, result, text, contracts))
        for rec in recognised
        for k, request in enumerate(numberings)
    ]
    written = as_written(transcript, sent) if behind is None else None
    aside = [
        _explain_sent(transcript, written, model, rec, result, text, contracts)
        for rec in recognised
        if written is not None and rec.index is not None
    ]
    best = _chosen(tries, aside, transcript.messages)
    best.others = [r for r in recognised if r is not best.recognition]
    best.writes = repair_writes(transcript)
    best.went_on = _went_on(transcript, text)
    return best


def _went_on(transcript: Transcript, text: str) -> int:
    """:attr:`Explanation.went_on` of ``text`` against ``transcript``'s recorded errors."""
    from suture.written import went_on

    return went_on(transcript.messages, transcript.evidence, text)


def _numberings(
    transcript: Transcript, sent: Sent, model: SentRequest, behind: RecordedRequest | None
) -> list[SentRequest]:
    """The requests an error's index may count, what the agent sends: the recorded request behind
    it, else ``model`` (what it sends on resume) and, for a file another version wrote, the same
    without what the modelled version adds."""
    from suture.sent import agent_name
    from suture.sent.numbered import modelled, recorded

    numberings = [recorded(transcript, behind, sent)] if behind is not None else [model]
    if behind is None and sent.assumed and sent.added:
        # Another version wrote the file: what it adds when it sends is not known, so an index
        # is also read as counting the history alone.
        plain = modelled(transcript, replace(sent, added=()))
        who = agent_name(sent.agent or "")
        writer = f"{who} {sent.version}" if sent.version else "the version that wrote it"
        plain.label = (
            f"what {who} sends when it resumes this file, without what {who} {sent.model} adds "
            f"({', '.join(a.what for a in sent.added)}: {writer} may not add it)"
        )
        numberings.append(plain)
    return numberings


def _fits(e: Explanation) -> bool:
    """Whether the place ``e`` reads the error's index at holds what the error is about: the
    check finds the problem there, or, for a problem no check can see, the message it is about."""
    return e.flagged or (e.recognition is not None and e.recognition.unseen and e.found)


def _chosen(tries: list[tuple[int, Explanation]], aside: list[Explanation], messages: Sequence[Message]) -> Explanation:
    """The numbering that explains the error, of ``tries`` (what the agent sends, ``0`` the
    modelled or recorded request) and ``aside`` (the file sent as written): where the error's
    index names what it is about in what the agent sends, or where the messages it names hold it
    as written (the agent repairing it itself); else where it does so in the file sent as
    written; else what the agent sends. Reading the indices without what the agent adds is a
    guess about another version, taken only where it explains the error."""
    primary = [e for k, e in tries if k == 0]
    tried = [e for _, e in tries]
    agent = next((e for e in tried if _fits(e)), None) or next(
        (e for e in tried if e.found and e.location is not None and e.location.violations), None
    )
    written = next((e for e in aside if _fits(e)), None)
    if agent is not None:
        if written is not None and written.indices != agent.indices:
            agent.numbering = _both_fit(agent, written, messages)
        return agent
    if written is not None:
        written.numbering = _as_written_only(primary[0], messages)
        return written
    return next(
        (e for e in primary if e.found),
        # The calls the error names are in the file, at the place it names only as another
        # version counts it (a file the error was recorded in, then repaired): that, not
        # "wrong file". (An index alone, at what the agent adds, names nothing here.)
        next(
            (e for e in tried if e.found and e.recognition is not None and e.recognition.ids),
            next((e for e in primary if not e.absent), primary[0]),
        ),
    )


def _at(e: Explanation, messages: Sequence[Message]) -> str:
    """Where ``e`` reads the error's index, in words: ``messages.9 is [14] tool (line 36)``;
    ``""`` where it names no message of this file there."""
    request = e.request
    assert request is not None
    at = e.indices or (list(request.written[e.named]) if e.named is not None else [])
    if e.named is None or not at:
        return ""

    def said(found: Sequence[int]) -> str:
        named = [
            f"[{i}] {messages[i].role}" + (f" ({messages[i].source})" if messages[i].source else "") for i in found
        ]
        return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]

    # The messages sent at the place, then those the problem there is about (A1's index names the
    # message after the calls: the call's message is not at it).
    here = [i for i in at if i in request.written[e.named]] if e.named < len(request.written) else []
    about = [i for i in at if i not in here]
    if not here:
        return f"{request.name(e.named)} is about {said(about)}"
    return f"{request.name(e.named)} is {said(here)}" + (f", with the problem at {said(about)}" if about else "")


def _as_written_only(sent: Explanation, messages: Sequence[Message]) -> str:
    """Why an index is read as the file sent as written: what the agent sends has no such
    problem at that place."""
    assert sent.request is not None and sent.recognition is not None
    rec = sent.recognition
    at = _at(sent, messages)
    if not at:
        return f"it does not fit {sent.request.label}: {', '.join(sent.absent) or 'it names no message of this file'}"
    why = "holds no thinking block" if rec.unseen else f"suture's check finds no {rec.rule.id} problem there"
    if sent.named is not None and _other_role(_sent_roles(sent.request), sent.named, rec, sent.request.name):
        why = f"that is not {_ROLE_AT[rec.rule.id][1]}"
    return f"it does not fit {sent.request.label}, where {at}, and {why}"


def _both_fit(agent: Explanation, written: Explanation, messages: Sequence[Message]) -> str:
    """What the error's index names in the file sent as written, where it fits there too."""
    assert agent.request is not None and written.request is not None
    return (
        f"it fits too, counted as {written.request.label}: there {_at(written, messages)}; "
        f"this reads it as {agent.request.label}, the request the agent sends"
    )


def _left_out(request: SentRequest) -> set[int]:
    """The as-written results the agent leaves out of what it sends (orphan results)."""
    return {f.index for f in request.sent.fixes if f.kind == "dropped_result" and f.index is not None}


def _behind(transcript: Transcript, requests: Sequence[RecordedRequest], rec: Recognition) -> RecordedRequest | None:
    """The recorded request behind the last API error the session recorded with the same error
    (the same rule, ids and index as ``rec``)."""
    if not requests:
        return None
    from suture.sent.recorded import request_behind

    same = (rec.rule.id, rec.ids, rec.index, rec.block)
    for source, said in reversed(transcript.evidence):
        theirs = recognise(said)
        if source.line is not None and any((r.rule.id, r.ids, r.index, r.block) == same for r in theirs):
            return request_behind(requests, source.line)
    return None


def _explain_sent(
    transcript: Transcript,
    request: SentRequest,
    model: SentRequest,
    rec: Recognition,
    result: Repair,
    text: str,
    contracts: Callable[[str], Verdict],
) -> Explanation:
    """What ``rec`` says about a session log, its indices read in ``request`` as the provider
    the error comes from counts it (:func:`counted`); ``contracts`` gives a provider's verdict
    on the file as written and its repair.

    In steps: the message the error's index names in what is sent, the findings of a check of
    what is sent, the messages of the file as written they come from, what the agent sends now
    (when ``request`` is a recorded request), and the file's own problems and the agent's own
    fixes there."""
    messages = transcript.messages
    now_in = None if request is model else model
    request = counted(request, rec)
    named, missing = _sent_place(messages, request, rec)
    findings, provider = _sent_findings(request, rec, named)
    written, by, provider = _sent_written(transcript, request, rec, named, missing, findings, contracts, provider)
    written = _unseen_at(messages, rec, written)
    wanted, ids = set(written), set(rec.ids)
    now = None if now_in is None else _still_sent(now_in, rec, wanted, ids)
    contract = contracts(provider)
    touching = [
        v
        for v in rec.of_rule(contract.before)
        if wanted & {v.index, *v.related} or (v.call_id is not None and v.call_id in ids)
    ]
    # What the agent repairs itself at these messages, where the file as written has this problem
    # there (another repair of the same message, such as an orphan result it leaves out, does not
    # explain this error).
    fixes = [
        fix
        for fix in request.sent.fixes
        if touching
        and ((fix.index is not None and fix.index in wanted) or (fix.call_id is not None and fix.call_id in ids))
    ]
    where = Location(provider, touching, written if not missing else [], contract, by)
    changes = [] if missing else related_changes(result, where, rec.ids)
    lines = sorted({line for i in where.indices if 0 <= i < len(messages) for line in lines_of(messages[i].source)})
    return Explanation(
        text,
        rec,
        [],
        where,
        missing,
        changes,
        lines=lines,
        request=request,
        named=named,
        findings=findings,
        now=now,
        fixes=fixes,
    )


def counted(request: SentRequest, rec: Recognition) -> SentRequest:
    """``request`` numbered as the provider the error comes from (``rec.providers``) counts it:
    itself where that provider is sent it, else laid out as that provider's request, as
    ``suture check --provider`` lays it out (an Anthropic 400 against a Codex session counts
    the history as Anthropic's messages, not Codex's input items)."""
    if any(request.own(p) for p in rec.providers):
        return request
    return request.laid_out(rec.providers[0])


def _sent_place(messages: Sequence[Message], request: SentRequest, rec: Recognition) -> tuple[int | None, list[str]]:
    """The place in ``request`` the error's index names, when it holds a message of this file,
    and what the error names that neither the file nor ``request`` holds."""
    n, _ = _wire_index(rec)
    # An id may be the agent's own for what it sends (pi sends a Responses call's stored id
    # ``{call_id}|{item id}`` as two): held where the file or what the agent sends holds it.
    missing = [f"id {i}" for i in rec.ids if not _holds_id(messages, i) and not _holds_id(request.sent.messages, i)]
    named: int | None = None
    if n is not None:
        shown = rec.index if rec.index is not None else n
        if n >= request.length:
            missing.append(f"index {shown} ({request.label} has {request.length} {_places_word(request)})")
        elif not request.written[n] and not request.answers.get(n):
            what = request.added.get(n, "a message suture cannot trace to this file")
            missing.append(
                f"index {shown} ({request.name(n)} of {request.label} is {what}, which this file does not hold)"
            )
        else:
            named = n
            if other := _other_role(_sent_roles(request), n, rec, request.name):
                # The error is about a message of another role: it counts another request (or numbering).
                missing.append(f"index {shown} (in {request.label}, {other})")
    if named is not None and rec.ids and not missing:
        # The index and the ids must name the same message (A1's index may name the call's
        # message or the next one). Where the ids' messages are elsewhere, or left out of what the
        # agent sends, the index counts another request: the ids say which messages it is about.
        by_ids, how = _named(messages, rec)
        if how != "ids":  # (ids only what is sent holds: the index counts the request)
            by_ids = []
        sent = set(by_ids) - _left_out(request)
        places = {p for p, w in enumerate(request.written) if set(w) & sent}
        if by_ids and not places & {named, named - 1}:
            named = None
    return named, missing


def _sent_roles(request: SentRequest) -> list[str | None]:
    """The role of each place of ``request`` (``None`` for an item or a place without one)."""
    if request.key != _EACH_MESSAGE:
        return []
    return [value.get("role") if isinstance(value, dict) else None for value in request.wire]


def _sent_findings(request: SentRequest, rec: Recognition, named: int | None) -> tuple[list[Finding], str]:
    """A check of ``request``'s findings of the recognised rule, narrowed to the error, from the
    first of the error's providers that has any; that provider (else the first)."""
    for p in rec.providers:
        listed = [_finding(request, v) for v in rec.of_rule(request.check(p))]
        narrowed = _narrow_findings(listed, rec, named)
        if narrowed:
            return narrowed, p
    return [], rec.providers[0]


def _sent_written(
    transcript: Transcript,
    request: SentRequest,
    rec: Recognition,
    named: int | None,
    missing: list[str],
    findings: list[Finding],
    contracts: Callable[[str], Verdict],
    provider: str,
) -> tuple[list[int], str, str]:
    """The messages of the file as written the error is about, how they were found (by the
    error's "index", its "ids", the "check" of what is sent, or the "file"'s own problems when the
    error names no message) and the provider whose verdict found them."""
    n, m = _wire_index(rec)
    if named is not None:
        in_block = _block_written(transcript, request, named, m)
        if in_block:
            # With the message each problem found there is about (check's [n]): A1's index names
            # the message after the call.
            about = [f.message for f in findings if f.message is not None and f.message not in in_block]
            return [*in_block, *dict.fromkeys(about)], "index", provider
    elif rec.ids and not missing:
        by_ids, how = _named(transcript.messages, rec)
        if by_ids and how == "ids":
            return by_ids, "ids", provider
    if findings and not missing:
        return list(dict.fromkeys(i for f in findings for i in f.written)), "check", provider
    if not missing and n is None and not rec.ids:
        # A text that names no message, and nothing of it in what is sent: where the file as
        # written has it (the agent may repair it itself).
        for p in rec.providers:
            in_file = rec.of_rule(contracts(p).before)
            if in_file:
                return sorted({v.index for v in in_file}), "file", p
    return [], "index" if named is not None else "", provider


def _still_sent(model: SentRequest, rec: Recognition, wanted: set[int], ids: set[str]) -> list[Finding]:
    """The findings of the same rule in what the agent sends now (``model``) at the same messages
    of the file or the same call ids."""
    return [
        f
        for p in rec.providers
        for v in rec.of_rule(model.check(p))
        for f in [_finding(model, v)]
        if wanted & set(f.written) or (v.call_id is not None and v.call_id in ids)
    ]


def _places_word(request: SentRequest) -> str:
    return {"input": "input items", "contents": "contents"}.get(request.key, "messages")


def _finding(request: SentRequest, v: Violation) -> Finding:
    number = request.number(v.index)
    message = number if isinstance(number, int) else None
    return Finding(v, request.where(v), frozenset(request.places(v)), request.written_of(v), message)


def _narrow_findings(found: list[Finding], rec: Recognition, named: int | None) -> list[Finding]:
    """The findings at what the error names: its ids, else its place (any place a finding is
    about: Anthropic's ``messages.N`` of A1 may name the call's message or the next one)."""
    if rec.ids:
        by_id = [f for f in found if f.violation.call_id in rec.ids or any(i in f.violation.error for i in rec.ids)]
        if by_id:
            found = by_id
        elif named is None:
            return []
    if named is not None:
        at = [f for f in found if named in f.places]
        if not at and not rec.ids:
            return []
        found = at or found
    return found


def _block_written(transcript: Transcript, request: SentRequest, n: int, block: int | None) -> list[int]:
    """The as-written messages place ``n`` came from; with ``block``, the one that block of it
    came from, where it can be told; for a place the agent makes up from no record of the file
    (a result for a call), the messages of the calls it answers."""
    written = list(request.written[n]) or list(request.answers.get(n, ()))
    if block is not None and request.layout is not None:
        return list(request.block_written(n, block)) or written
    value = request.wire[n]
    if block is None or not isinstance(value, dict) or len(written) < 2:
        return written
    content = value.get("content")
    if not isinstance(content, list) or not 0 <= block < len(content):
        return written
    from suture.sent.numbered import block_keys, message_keys

    keys = block_keys(content[block])
    exact = [i for i in written if keys & message_keys(transcript.messages[i])]
    return exact or written


def summary(m: Message, limit: int = 70) -> str:
    """One line about a message: its calls, its result id, its text."""
    bits = []
    if m.tool_calls:
        bits.append("calls " + ", ".join(f"{c.name or '?'} {c.id or '(no id)'}" for c in m.tool_calls))
    if m.role == "tool":
        bits.append(f"result for {m.tool_call_id or '(no id)'}")
    content = m.content
    if isinstance(content, list):
        content = "\n".join(p.text for p in content if isinstance(p, TextPart))
    text = " ".join(text_of(content).split())
    if text:
        bits.append(f"“{show.prose(text if len(text) <= limit else text[: limit - 1] + '…')}”")
    images = [p for p in (m.content if isinstance(m.content, list) else []) if isinstance(p, ImagePart)]
    if images:
        bits.append(count(len(images), "image"))
    return "  ".join(bits) or "(empty)"


# -- pointers a person types: messages.3, input[5], contents[2], line 760, #12 ------------------

_POINTER = re.compile(
    r"^\s*(?:(?P<wire>messages|input|contents|items)\s*(?:\.\s*\[?|\[)\s*(?P<n>\d+)\s*\]?(?P<rest>[\w.\[\]]*)"
    r"|(?:line\s*|l)(?P<line>\d+)|#\s*(?P<message>\d+)|(?P<bare>\d+))\s*$",
    re.IGNORECASE,
)
_WIRE_OF = {
    "anthropic": "turns",
    "bedrock": "merged",
    "gemini": "contents",
    "openai-responses": "items",
}


@dataclass(frozen=True, slots=True)
class Pointer:
    """Where a typed pointer leads: the input messages, and what it was understood as."""

    indices: list[int]
    said: str
    understood: bool = True
    """False where ``typed`` is no pointer at all (``said`` is then the whole answer)."""
    nearest: bool = False
    """The line typed holds no message: ``indices`` is the nearest one read, which ``said`` names
    with what the line is (a thing to say beside going there)."""
    record: Skipped | None = None
    """The record on the line typed that the agent does not send (``Transcript.skipped``: a
    failed turn, an API error record), which ``said`` names."""
    elsewhere: bool = False
    """``said`` says the pointer was counted in another provider's layout than the file's
    (``input[5]`` of a chat file, as OpenAI Responses items): a thing to say beside going there."""


def resolve(
    messages: Sequence[Message],
    typed: str,
    provider: str | None = None,
    request: SentRequest | None = None,
    document: Callable[[], Sequence[tuple[int, int] | None]] | None = None,
    where_listed: str = "",
) -> Pointer:
    """The input messages ``typed`` points at: ``messages.N`` (the Nth message of the request
    ``provider`` is sent, as its errors count them), ``input[N]`` (an OpenAI Responses item),
    ``contents[N]`` (Gemini), ``line N`` or a bare ``N`` (a line of the file), ``#N`` (suture's
    own message index). For a session log, ``request`` is what its agent sends on resume
    (:func:`suture.sent.numbered.modelled`), which a provider's index counts. For a JSON
    document, whose messages carry no line, ``document()`` gives the first and last line of each
    message's record in the file (:func:`suture.written.document_lines`): asked for only when a
    line is typed. A line that holds a record the agent does not send (``request.sent.skipped``)
    is said to hold it, followed by ``where_listed`` in brackets where given (where the caller lists
    those records). No indices where nothing matches; ``said`` says what was looked for."""
    m = _POINTER.match(typed)
    if m is None:
        labelled = _labelled(messages, typed)
        if labelled is not None:
            return labelled
        return Pointer(
            [], f"not a pointer suture reads: {typed.strip()!r} (try messages.3, input[5], line 760, #12)", False
        )
    if m.group("message") is not None:
        n = int(m.group("message"))
        ok = 0 <= n < len(messages)
        return Pointer([n] if ok else [], f"message #{n}" + ("" if ok else f" (the file has {len(messages)})"))
    number = m.group("line") or m.group("bare")
    if number is not None:
        return _line(messages, int(number), document, request.sent.skipped if request is not None else (), where_listed)
    wire, n = m.group("wire").lower(), int(m.group("n"))
    if request is not None:
        key = "input" if wire == "items" else wire
        return Pointer(*request.find(key, n, provider))
    if wire in ("input", "items"):
        listed = items(messages)
        ok = n < len(listed)
        # Counted as OpenAI Responses items, which a file sent to another provider is not in.
        elsewhere = provider is not None and _WIRE_OF.get(provider) != "items"
        label = f"input[{n}]" + (" (counted as OpenAI Responses input items)" if elsewhere else "")
        return Pointer(
            [listed[n].source] if ok else [], label + ("" if ok else f" (of {len(listed)} items)"), elsewhere=elsewhere
        )
    kind = "contents" if wire == "contents" else _WIRE_OF.get(provider or "", "one per message")
    if kind == "items":
        return resolve(messages, f"input[{n}]", provider)
    if kind == "one per message":
        ok = n < len(messages)
        return Pointer([n] if ok else [], f"messages[{n}]" + ("" if ok else f" (of {len(messages)})"))
    wire_list = contents(messages) if kind == "contents" else turns(messages, merge=kind == "merged")
    label = f"contents[{n}]" if kind == "contents" else f"messages.{n} as {provider} counts them"
    elsewhere = kind == "contents" and provider is not None and _WIRE_OF.get(provider) != "contents"
    if elsewhere:
        label += " (counted as Gemini contents)"
    if n >= len(wire_list):
        return Pointer([], f"{label} (the request has {len(wire_list)})")
    return Pointer(list(wire_list[n].members), label, elsewhere=elsewhere)


_PLACE = re.compile(r"\$|line\d|[A-Za-z_]+\[\d+\]")
"""How a place a message is shown at begins: ``$[…]`` (a JSON document), ``line N, …`` (with its
spaces taken out), ``replacement_history[N]``."""


def _labelled(messages: Sequence[Message], typed: str) -> Pointer | None:
    """The messages ``typed`` names by the place the app and the command line show for them
    (:class:`~suture.model.Source`: ``$[7]``, ``$[7].content[1]``, ``line 12, message.content[0]``,
    ``replacement_history[3]``): those whose place is it or within it. ``None`` where ``typed``
    is no such place; no indices for a JSON document's ``$[N]`` that no message is read from."""
    wanted = "".join(typed.split())
    if not _PLACE.match(wanted):  # (a typo is not looked for message by message: a million of them)
        return None
    found = []
    for i, m in enumerate(messages):
        if m.source is None:
            continue
        places = ("".join(str(m.source).split()), "".join((m.source.pointer or "").split()))
        if any(p == wanted or p.startswith((wanted + ".", wanted + "[")) for p in places if p):
            found.append(i)
    if found:
        return Pointer(found, typed.strip())
    if re.fullmatch(r"\$\[\d+\]", wanted):
        return Pointer([], wanted)
    return None


def _line(
    messages: Sequence[Message],
    line: int,
    document: Callable[[], Sequence[tuple[int, int] | None]] | None = None,
    not_sent: Sequence[Skipped] = (),
    where_listed: str = "",
) -> Pointer:
    """The message read from ``line`` (or merged from it; in a JSON document, whose record spans
    it), else the first read after it. A line holding a record the agent does not send
    (``not_sent``: a session's :attr:`~suture.model.Transcript.skipped`) is said to hold it, and
    leads to the first message read after it, or where none is, the last one before it."""
    in_lines = any(m.source is not None and m.source.line is not None for m in messages)
    spans = document() if document is not None and messages and not in_lines else []
    after: tuple[int, int] | None = None
    before: tuple[int, int] | None = None
    for i, m in enumerate(messages):
        span = spans[i] if i < len(spans) else None
        if span is not None:
            first, last = span
            if first <= line <= last:
                return Pointer([i], f"line {line}")
        else:
            lines = lines_of(m.source)
            if line in lines:
                return Pointer([i], f"line {line}")
            first = lines[0] if lines else 0
        if first > line and (after is None or first < after[0]):
            after = (first, i)
        elif 0 < first < line and (before is None or first >= before[0]):
            before = (first, i)
    record = next((s for s in not_sent if line in lines_of(s.source)), None)
    if record is not None:
        said = f"line {line} holds {record.reason}" + (f" ({where_listed})" if where_listed else "")
        if after is not None:
            return Pointer(
                [after[1]], f"{said}; the next message read is on line {after[0]}", nearest=True, record=record
            )
        if before is not None:
            return Pointer(
                [before[1]],
                f"{said}; the last message read before it is on line {before[0]}",
                nearest=True,
                record=record,
            )
        return Pointer([], f"{said}; no message is read from the file", record=record)
    if after is not None:
        return Pointer(
            [after[1]], f"line {line} holds no message; the next one read is on line {after[0]}", nearest=True
        )
    if messages and not in_lines and not any(spans):
        return Pointer(
            [],
            f"line {line}: the file is one JSON document, whose messages are gone to by their place "
            "(#12, messages.3, contents[2], input[5]), not by line",
            False,
        )
    return Pointer([], f"line {line}: no message was read from it or after it")
