"""Provider checks: which message would make which provider answer 400, and with what text.

Pure: no Textual, no I/O, no format module. Checks read neutral messages (``suture.model``), so
they apply to a transcript in any format; each models how its provider's request groups those
messages (see ``suture.checks._wire``) and reports indices in the provider's own numbering.

Providers (``PROVIDERS``, in display order)::

    anthropic  openai-chat  openai-responses  openai-responses-strict  gemini  bedrock  mistral
    kimi  deepseek

``openai-responses-strict`` is a profile rather than a company: a Responses server (DeepSeek's
endpoint, strict gateways) that also wants a turn's outputs right after its calls and one output
per call.

The API the app and the command line use::

    from suture.checks import PROVIDERS, TITLES, check, verdict, verdicts

    problems = check(transcript.messages, "anthropic")        # list[Violation]
    check(repair_result.messages, "anthropic", repaired=True)  # as suture writes a repaired history
    v = verdict(transcript.messages, "anthropic")             # Verdict
    v.counts                                                  # (3, 0): before, after repair
    v.summary()                                               # "anthropic: 3 problems → 0 after repair"
    v.before, v.after                                         # list[Violation] each
    v.repair                                                  # the suture.repair.Repair it used
    all_of_them = verdicts(transcript.messages)               # {provider: Verdict}, one repair shared
    verdicts(messages, ["anthropic", "kimi"], repaired=result)  # reuse a Repair you already have

A :class:`Violation` (``suture.checks._base``) carries: ``provider``; ``rule`` (an id of the rule
table, e.g. ``A1``, ``O4``; ``RULES[rule]`` has its title, source and remedy); ``index``, the
neutral message it is about (in ``before`` an index into the input messages, in ``after`` into
``Repair.messages``: jump to it with that); ``related`` (other neutral messages the text names);
``where`` (the provider's own pointer, e.g. ``messages.3.content.1``) with ``wire_index`` and
``block``; ``call_id``; ``error`` (the text the provider would send, ids and indices filled in);
``problem`` (a plain sentence); ``fixed`` (whether suture's repair is meant to remove it) and
``remedy`` (what the repair does, or what a person must do where it does not). In ``check`` the
flag is the rule's intent; in a :class:`Verdict` it is what the repair did: ``before`` problems
are marked fixed exactly when the repaired history has no problem of that rule at that message.
``Violation.to_json()`` gives all of it as a dict.

``resolve(["anthropic,kimi", "all"])`` turns command-line names into provider names (``all`` is
every provider) and raises :class:`suture.io.InputError` for an unknown one.

For a provider picker in the app: cycle through ``PROVIDERS``, label with ``TITLES[p]``, show
``verdicts[p].summary()`` in the header and list ``verdicts[p].before`` (``[v.index] v.rule
v.problem``, then ``v.error`` and ``v.remedy``), jumping to ``v.index`` in the original pane (or
``v.index`` of ``after`` problems in the repaired pane). Checking is linear in the history:
all nine providers, before and after repair, take about a third of a second on a 7,000-message
session and a few seconds on 100,000 messages, so a worker thread can redo it on every reload.
The cyclic garbage collector is paused while a check runs (see ``_collector_paused``). After an
append, ``suture.checks.resume.Checks`` gives the same verdicts checking only what was appended
and the last few messages.

``suture.checks.explain`` has the pure part of ``suture explain``: ``recognise(text)`` (the rules
a pasted error matches, with the ids and indices it names), ``locate(messages, recognition)``
and ``closest(text)``.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from types import ModuleType

from suture.checks import (
    anthropic,
    bedrock,
    deepseek,
    gemini,
    kimi,
    mistral,
    openai_chat,
    openai_responses,
    openai_responses_strict,
)
from suture.checks._base import LIST, Violation
from suture.checks._wire import Shapes
from suture.checks.rules import RULES, Rule
from suture.io import InputError
from suture.model import Message
from suture.repair import Repair, repair
from suture.words import count

__all__ = [
    "PROVIDERS",
    "RULES",
    "STRICTER",
    "TITLES",
    "Rule",
    "Verdict",
    "Violation",
    "check",
    "empty",
    "rejected_words",
    "resolve",
    "served_by",
    "verdict",
    "verdicts",
]

_MODULES: tuple[ModuleType, ...] = (
    anthropic,
    openai_chat,
    openai_responses,
    openai_responses_strict,
    gemini,
    bedrock,
    mistral,
    kimi,
    deepseek,
)
_Checker = Callable[[Sequence[Message], Shapes], list[Violation]]
_CHECKERS: dict[str, _Checker] = {m.NAME: m.check for m in _MODULES}
# The rule of a request with no message, for the providers that have one (a problem of the list
# itself, before every other: ``suture.checks._base.unsent``).
_EMPTY: dict[str, Callable[[Sequence[Message]], list[Violation]]] = {
    m.NAME: m.empty for m in _MODULES if hasattr(m, "empty")
}
# A repaired history as suture writes it. Only Responses lays a repaired turn out otherwise than
# the file did (a turn's outputs right after its last call), so only its checkers tell them apart.
_REPAIRED_CHECKERS: dict[str, _Checker] = {
    m.NAME: partial(m.check, repaired=True) for m in (openai_responses, openai_responses_strict)
}
# A session log's history, which its agent sends with the user's next message after it: only the
# providers with rules of the message that ends the request (Anthropic A8, A9 and A12 at the end,
# Gemini G4 of the current turn, Mistral M4) find otherwise than for the history sent alone.
_FOLLOWED_CHECKERS: dict[str, _Checker] = {
    m.NAME: partial(m.check, prompt_follows=True) for m in (anthropic, gemini, mistral)
}

PROVIDERS: tuple[str, ...] = tuple(m.NAME for m in _MODULES)
"""Every provider suture checks, in display order."""

TITLES: dict[str, str] = {m.NAME: m.TITLE for m in _MODULES}
"""What a person calls each provider."""
STRICTER: dict[str, str] = {m.STRICTER_THAN: m.NAME for m in _MODULES if hasattr(m, "STRICTER_THAN")}
"""A provider and the profile of servers that speak its API more strictly (OpenAI Responses and
strict Responses servers), which ``suture check`` names where it alone would reject."""


def served_by(provider: str, recorded: Sequence[str]) -> str:
    """``provider``, or the profile of servers that speak its API more strictly (:data:`STRICTER`)
    where the last API error the file recorded (``recorded``: the errors' texts, oldest first) is
    one only they give: the server the agent talks to is one of them (a Codex session against a
    strict Responses server records its "Duplicate function_call_output for call_id", which
    OpenAI's does not send), so its verdict is theirs."""
    return _served_by(provider, recorded[-1]) if recorded and provider in STRICTER else provider


@lru_cache(maxsize=64)
def _served_by(provider: str, error: str) -> str:
    """(:func:`served_by` of the last error: the file's own provider and what it sends ask it of
    the same error, and the app asks again at each check.)"""
    from suture.checks.explain import recognise

    strict = STRICTER[provider]
    for found in recognise(error):
        if strict in found.rule.providers and provider not in found.rule.providers:
            return strict
    return provider


_pause_lock = threading.Lock()
_pause_depth = 0
_pause_resumes = False


def _pause_anew() -> None:
    """In a forked child: no check of the parent's threads runs there, and the lock may have
    been held by one of them when it forked (:mod:`suture.checks.apart` forks to check)."""
    global _pause_lock, _pause_depth, _pause_resumes
    _pause_lock = threading.Lock()
    _pause_depth = 0
    _pause_resumes = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pause_anew)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a check runs.

    A check builds a few objects per message (wire blocks, turns) that live until it returns.
    With a large transcript loaded, those survivors set off full collections, each of which walks
    every object the process holds (the transcript's records included): on a 100,000-message
    history that was most of a check's time. A check makes no reference cycles, so nothing is
    lost by pausing; reference counting still frees everything. Nested and concurrent checks share
    one pause, and the collector is switched back on only if it was on when the first began.
    """
    global _pause_depth, _pause_resumes
    with _pause_lock:
        if _pause_depth == 0:
            _pause_resumes = gc.isenabled()
            gc.disable()
        _pause_depth += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pause_depth -= 1
            if _pause_depth == 0 and _pause_resumes:
                gc.enable()


def check(
    messages: Sequence[Message], provider: str, *, repaired: bool = False, prompt_follows: bool = False
) -> list[Violation]:
    """Every reason ``provider`` would reject ``messages``, in message order. ``repaired``: the
    messages are a repair's output, checked as suture writes them rather than as a file holds them.
    ``prompt_follows``: they are a session log's history, which is never sent alone (see
    :func:`empty`): the user's next message comes after them, so a list with no message is no
    problem, and the rules of the message that ends a request are about that one, not about
    the history's last (Mistral's M4, Anthropic's A9, A12 at the end and A8's leave for the
    final assistant message, Gemini's G4 of the current turn)."""
    return _check(messages, provider, repaired, prompt_follows, Shapes(messages))


def _check(
    messages: Sequence[Message], provider: str, repaired: bool, prompt_follows: bool, shapes: Shapes
) -> list[Violation]:
    """:func:`check`, reading the wire shapes of ``messages`` from ``shapes`` (shared with the
    checks of other providers)."""
    try:
        checker = _CHECKERS[provider]
    except KeyError:
        raise InputError(f"unknown provider {provider!r}; known providers: {', '.join(PROVIDERS)}") from None
    if repaired:
        checker = _REPAIRED_CHECKERS.get(provider, checker)
    if prompt_follows:
        checker = _FOLLOWED_CHECKERS.get(provider, checker)
    with _collector_paused():
        found = checker(messages, shapes)
    return _fix_remedies(empty(messages, provider, prompt_follows=prompt_follows) + found)


def empty(messages: Sequence[Message], provider: str, *, prompt_follows: bool = False) -> list[Violation]:
    """``provider``'s problem with a request that has no message to send (none where it has one,
    or the provider has no such rule): about the list itself, index ``LIST``.

    None where ``prompt_follows``: ``messages`` are the history of an agent's session log, and the
    agent sends the user's next message after it on resume (agents-resume.md: ``claude -p --resume
    ID "continue"``, ``codex exec resume ID "continue"``, pi's print mode "always adds a user
    message"), so its request always has a message, even where the session has none yet."""
    rule = None if prompt_follows else _EMPTY.get(provider)
    return rule(messages) if rule is not None else []


def rejected_words(found: Sequence[Violation], agent: str = "", session: bool = False) -> str:
    """What a request body suture wrote would meet, said in one sentence (``found``: the problems
    :func:`check` finds in it, at least one): ``Anthropic Messages would reject it: 2 problems the
    repair does not fix (A7, A12); the first, ...; suture check --provider anthropic on the
    written file lists them``. What ``suture repair`` warns, and the app's export. ``agent``: the
    agent whose session log the body was written from (``Claude Code``), whose own request on
    resume is another one (it repairs some things itself): the sentence says where to see it.
    ``session``: ``found`` are the problems in what ``agent`` sends on resume from a session log
    suture wrote back (:func:`suture.sent.verdict`), which the sentence says instead."""
    first = found[0]
    rules = ", ".join(dict.fromkeys(v.rule for v in found))
    if session:
        subject, listed, sent = f"what {agent} sends on resume from it", "suture check", ""
    else:
        subject, listed = "it", f"suture check --provider {first.provider}"
        sent = f" (the request {agent} itself sends on resume is another: suture sent --body shows it)" if agent else ""
    return (
        f"{TITLES[first.provider]} would reject {subject}: {count(len(found), 'problem')} the repair does not fix "
        f"({rules}); the first, {first.where} {first.rule}: {first.problem}; "
        f"{listed} on the written file lists them{sent}"
    )


def _fix_remedies(found: list[Violation]) -> list[Violation]:
    """``found`` with the remedy of each problem the repair is meant to remove saying what it
    does (where the rule has such a sentence)."""
    for k, v in enumerate(found):
        rule = RULES[v.rule]
        if v.fixed and rule.fix and v.remedy == rule.remedy:
            found[k] = replace(v, remedy=rule.fix)
    return found


@dataclass(frozen=True, slots=True)
class Verdict:
    """One provider's problems with a history before and after suture's repair."""

    provider: str
    before: list[Violation]
    after: list[Violation]
    repair: Repair

    @property
    def counts(self) -> tuple[int, int]:
        return len(self.before), len(self.after)

    @property
    def clean(self) -> bool:
        return not self.before

    def summary(self) -> str:
        """``anthropic: 3 problems → 0 after repair``, or ``anthropic: no problems``."""
        before, after = self.counts
        if not before and not after:
            return f"{self.provider}: no problems"
        return f"{self.provider}: {count(before, 'problem')} → {after} after repair"


def verdict(
    messages: Sequence[Message],
    provider: str,
    repaired: Repair | None = None,
    is_read_only: Callable[[str], bool] | None = None,
    *,
    prompt_follows: bool = False,
) -> Verdict:
    """Check ``messages`` and their repair for ``provider``. Pass ``repaired`` to reuse a repair.
    ``prompt_follows``: ``messages`` are a session log's history, which its agent sends with the
    user's next message after it (the contract view of a session log; see :func:`empty`)."""
    result = repaired if repaired is not None else repair(messages, is_read_only)
    return _verdict(messages, provider, result, prompt_follows, _shapes(messages, result))


def _shapes(messages: Sequence[Message], result: Repair) -> tuple[Shapes, Shapes]:
    """The wire shapes of ``messages`` and of their repair, for every check of one verdict or
    of :func:`verdicts`: one for both where the repair holds the same messages."""
    before = Shapes(messages)
    return before, before if before.holds(result.messages) else Shapes(result.messages)


def _verdict(
    messages: Sequence[Message], provider: str, result: Repair, prompt_follows: bool, shapes: tuple[Shapes, Shapes]
) -> Verdict:
    """:func:`verdict`, with the wire shapes of ``messages`` and of their repair. Where the repair
    holds the same messages and the check reads them alike as suture writes them, the check of
    the repair is that of the messages: it is not done twice."""
    before_shapes, after_shapes = shapes
    with _collector_paused():
        after = _check(result.messages, provider, True, prompt_follows, after_shapes)
        if after_shapes is before_shapes and (provider not in _REPAIRED_CHECKERS or after_shapes.repaired_alike()):
            before = list(after)
        else:
            before = _check(messages, provider, False, prompt_follows, before_shapes)
        return Verdict(provider, _reconcile(before, after, result), after, result)


def _reconcile(before: list[Violation], after: list[Violation], result: Repair) -> list[Violation]:
    """Make each ``fixed`` in ``before`` say what the repair actually did: a problem is fixed when
    the repaired history has no problem of the same rule (and kind: :func:`_key`) at the messages
    it is about (``index`` and ``related``) as they are after repair."""
    remaining = {_key(v, v.index) for v in after}
    return [_reconciled(v, remaining.__contains__, result.output_of, result.input_count) for v in before]


_Key = tuple[str, int, str]
"""What a problem after repair is, for the problems before it that it may be (:func:`_key`)."""


def _key(v: Violation, index: int) -> _Key:
    """``v``'s rule, the message ``index`` and, for a rule whose texts are problems of their own
    kinds (``Rule.kinds_by_text``), ``v``'s text: a problem before repair stays where the repaired
    history has a problem of the same key at a message it is about."""
    return (v.rule, index, v.error if RULES[v.rule].kinds_by_text else "")


def _targets(v: Violation, output_of: Callable[[int], int | None], input_count: int) -> list[int | None]:
    """The repaired messages a problem is about: those of its ``index`` and ``related`` (the
    repaired list itself for a problem of the list, ``LIST``). For a problem of the message that
    starts or ends the request (``Rule.place``) that the repair dropped, the message that then
    starts or ends it: the problem is not gone because its first message went (Mistral's M4 at a
    dropped final placeholder stays at the assistant message before it)."""
    if v.index == LIST:
        return [LIST]
    return [output_of(i) for i in _about(v, output_of, input_count)]


def _about(v: Violation, output_of: Callable[[int], int | None], input_count: int) -> list[int]:
    """The input messages :func:`_targets` maps: ``index`` (or, see there, the nearest kept
    message in the direction of the rule's place) and ``related``."""
    index = v.index
    place = RULES[v.rule].place
    if 0 <= index < input_count and output_of(index) is None and (place == "last" or v.wire_index == 0):
        step = -1 if place == "last" else 1 if place == "first" else 0
        if step:
            index += step
            while 0 <= index < input_count and output_of(index) is None:
                index += step
    return [i for i in (index, *v.related) if 0 <= i < input_count]


def _reconciled(
    v: Violation,
    remains: Callable[[_Key], bool],
    output_of: Callable[[int], int | None],
    input_count: int,
) -> Violation:
    """``v`` (a problem before repair) with ``fixed`` saying what the repair did: whether
    ``remains(_key(v, output index))`` holds at none of the messages it is about."""
    stays = any(t is not None and remains(_key(v, t)) for t in _targets(v, output_of, input_count))
    if stays == v.fixed:
        rule = RULES[v.rule]
        if not stays:
            remedy = rule.repair_does or _REMOVED
        elif rule.fixed != "yes":
            remedy = rule.remedy
        else:
            remedy = _STAYS
        v = replace(v, fixed=not stays, remedy=remedy)
    return v


_STAYS = "the repaired history still has this problem here: edit the message by hand"
_REMOVED = "the repaired history no longer has this problem (see the repair's changes to this message)"


def verdicts(
    messages: Sequence[Message],
    providers: Iterable[str] | None = None,
    repaired: Repair | None = None,
    is_read_only: Callable[[str], bool] | None = None,
    *,
    prompt_follows: bool = False,
) -> dict[str, Verdict]:
    """A :class:`Verdict` per provider (every provider by default), sharing one repair
    (``prompt_follows``: see :func:`verdict`)."""
    result = repaired if repaired is not None else repair(messages, is_read_only)
    with _collector_paused():
        shapes = _shapes(messages, result)  # built once, read by every provider's check
        found = {
            p: _verdict(messages, p, result, prompt_follows, shapes)
            for p in (PROVIDERS if providers is None else providers)
        }
        del shapes  # (gone before the collector is back on, which then has fewer objects to walk)
    return found


def resolve(names: Iterable[str]) -> tuple[str, ...]:
    """Provider names from command-line values: repeatable, comma-separated, ``all`` for every one."""
    chosen: list[str] = []
    for value in names:
        for name in value.split(","):
            name = name.strip().lower()
            if not name:
                continue
            picked = PROVIDERS if name == "all" else (name,)
            for p in picked:
                if p not in _CHECKERS:
                    raise InputError(f"unknown provider {p!r}; known providers: {', '.join(PROVIDERS)}, all")
                if p not in chosen:
                    chosen.append(p)
    return tuple(p for p in PROVIDERS if p in chosen)
