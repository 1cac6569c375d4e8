"""Provider checks of a history that grows: a check after an append costs what was appended.

A file that is being written (a live agent session) is checked again after every append. A full
check reads the whole history; :class:`Checks` keeps, for each provider, what the checks of the
last state found and what they knew, and checks only what follows a *cut*::

    from suture.checks.resume import Checks

    checks = Checks()                                       # every provider; or Checks(["anthropic"])
    found = checks.verdicts(messages, repair(messages))     # {provider: Verdict}, as verdicts() gives
    messages += appended
    found = checks.verdicts(messages, repair_from(result, messages, n), same=n)  # the first n unchanged

``same`` says how many messages at the start are those of the last call (0: none, a check from
scratch). The verdicts equal, violation for violation, what :func:`suture.checks.verdicts` gives for
the same messages and repair; ``tests/test_checks_resume.py`` proves it over generated histories cut
at random points and over the sample sessions.

How a provider's check resumes. Every checker reads the history left to right, so each can start at
a message where what it carries across is small: a message that is not a tool result (the
chat-style providers and Responses: no run of results is open there), an assistant message
(Mistral, Gemini), an assistant message that follows no assistant message (Anthropic, Bedrock: no
run of user messages and no call's answer crosses it). The *cut* is the last such message before
the part that may still change: the end of the file before repair, the start of the last span after
it (``docs/contract.md``, *Prefix-stable*: nothing before it changes). The problems of the messages
before the cut are kept; those from the cut on (the *window*: what was appended, and the last few
messages, whose problems an append may change, such as a call that had no result) are found again,
with what the checker carries across the cut: wire-message numbering, the wire message before the
cut, the first use of each id (duplicates), the rules of the end of the request.

Some rules read the whole history, so a message appended can change a verdict about one far before
the cut. Each of these is resumed by recording what the kept problems assumed and checking the
assumption after every append; where it no longer holds the provider is checked from scratch (one
full check; the next appends resume again):

- ids looked up in the whole history: Anthropic A5 and Bedrock B6 (whether a result's id is some
  call's), Responses R1 and R2 (a call with no output anywhere, an output with no call) and R7 (a
  call whose output comes later). A kept verdict that depended on an id not (or not yet) present
  before the cut is recorded, and an appended call or output with that id makes a full check.
  This happens when a result, an output or a call arrives after a later user message than its
  partner: in damaged histories, not in the usual order of an agent's turns.
- switches of the whole history: DeepSeek's thinking mode (D1), Responses' reasoning item ids
  (R6). A kept verdict records the switch it used; an append that turns it on makes a full check,
  once (the switch stays on).
- rules that depend only on the end (Anthropic A8, A9, A12 at the end; Mistral M4; Gemini G4,
  the current turn's calls; Bedrock's first message) are worked out at every check from what is
  carried: they never need a full check. Where the user's next message follows the history
  (``prompt_follows``), that message ends the request: of these rules only A8 (which then holds
  for an empty last assistant message too) and Bedrock's first message apply.

What is done per check is the window plus a few list operations over the problems found (joining
the kept problems to the window's, sorting them for the providers whose order is by message): work
proportional to the problems reported, which every consumer of them does anyway.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, TypeVar

from suture.checks import (
    PROVIDERS,
    Verdict,
    _about,
    _collector_paused,
    _fix_remedies,
    _Key,
    _key,
    _reconciled,
    anthropic,
    bedrock,
    deepseek,
    empty,
    gemini,
    kimi,
    mistral,
    openai_chat,
    openai_responses,
    openai_responses_strict,
)
from suture.checks._base import Violation
from suture.checks._wire import LIFTED_ROLES, Item, Turn, contents, items, turns
from suture.io import InputError
from suture.model import Message
from suture.repair import Repair, reused

if TYPE_CHECKING:
    from suture.validity import Breach

__all__ = ["Checks", "LayerSet", "Resumable", "Valid", "resumable"]

K = TypeVar("K")
V = TypeVar("V")

_by_index = attrgetter("index")


class _Layer(dict[K, V]):
    """A dict over ``base``: reads see both, writes stay in the layer (a window's ids, which the
    next check finds again, never reach what is kept)."""

    def __init__(self, base: dict[K, V]) -> None:
        super().__init__()
        self.base = base

    def __missing__(self, key: K) -> V:
        return self.base[key]

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self.base

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        return self.base.get(key, default)


class LayerSet(set[K]):
    """A set over ``base``: membership sees both, additions stay here."""

    def __init__(self, base: set[K]) -> None:
        super().__init__()
        self.base = base

    def __contains__(self, key: object) -> bool:
        return set.__contains__(self, key) or key in self.base


class _Redo(Exception):
    """A kept verdict no longer holds: check the provider from scratch."""


class _Ids:
    """The ids of one kind (call ids, output ids) in a history: those before the cut (kept) and
    those in the window (found again at every check); and the ids a kept verdict looked up and
    found only in the window (``via_window``: gone from it, the verdict changes) or nowhere
    (``unsettled``: one appearing later changes that verdict)."""

    def __init__(self) -> None:
        self.kept: set[str] = set()
        self.window: set[str] = set()
        self.unsettled: set[str] = set()
        self.via_window: set[str] = set()

    def settle(self, piece: Iterable[str], window: Iterable[str]) -> None:
        """Add the ids of the messages that join the kept part, and take the window's; raise
        :class:`_Redo` where a kept verdict's lookup would now answer otherwise."""
        before, self.window = self.window, set(window)
        joining = set(piece)
        # An id a kept verdict waits for, now come (or come again); or one it found in the last
        # window (R7: the output after a kept call), which may have gone from it since.
        if self.unsettled and not (
            self.unsettled.isdisjoint(joining)
            and self.unsettled.isdisjoint(self.window)
            and self.unsettled.isdisjoint(before)
        ):
            raise _Redo
        self.kept |= joining
        if self.via_window:
            if any(key not in self.kept and key not in self.window for key in self.via_window):
                raise _Redo
            self.via_window = {key for key in self.via_window if key not in self.kept}

    def has_settled(self, key: str) -> bool:
        """For a verdict that is kept: whether the history has ``key``, recorded unless the
        messages before the cut have it."""
        if key in self.kept:
            return True
        if key in self.window:
            self.via_window.add(key)
            return True
        self.unsettled.add(key)
        return False

    def has(self, key: str) -> bool:
        """For a verdict of the window (found again at every check)."""
        return key in self.kept or key in self.window


def _call_ids(messages: Sequence[Message], start: int, stop: int) -> list[str]:
    return [c.id for i in range(start, stop) for c in messages[i].tool_calls]


_Segments = list[tuple[list[Violation], int]]
"""What a check found, in order: parts that are lists kept across checks (with how many of their
first items are there), and parts found anew (``-1``)."""


class Resumable(ABC):
    """One provider's check of one history, resumed from its last cut at every :meth:`check`."""

    provider: str
    prompt_follows = False
    """The history is a session log's, sent with the user's next message after it: no problem of
    an empty list (:func:`suture.checks.empty`), and none of the message that ends a request
    (:func:`suture.checks.check`)."""

    def __init__(self) -> None:
        self.cut = 0
        self.generation = 0
        """How many times the check started from scratch (what was kept is then new)."""
        self.segments: _Segments = []
        """The last check's problems, in parts (see :meth:`check`)."""
        self._fresh()

    @abstractmethod
    def _fresh(self) -> None:
        """Forget what was kept: the next check starts from the first message."""

    @abstractmethod
    def _resets(self, messages: Sequence[Message], k: int) -> bool:
        """Whether the check can start again at ``messages[k]`` (``k > 0``) from what it carries."""

    @abstractmethod
    def _step(self, messages: Sequence[Message], cut: int) -> _Segments:
        """Keep the problems of ``messages[self.cut:cut]`` (and what the check carries past them),
        then give every problem of ``messages``: lists of kept problems (growing at their ends
        from one check to the next) with how many of their first items come here, and lists
        found anew (``-1``)."""

    def _restart(self) -> None:
        self.cut = 0
        self.generation += 1
        self._fresh()

    def check(self, messages: Sequence[Message], same: int = 0, final: int | None = None) -> list[Violation]:
        """Every problem of ``messages``, as :func:`suture.checks.check` gives them.

        ``same``: how many messages at the start are those of the last call's (from scratch when
        they do not reach past the cut). ``final``: how many at the start the next call's will keep (its
        ``same``; by default all of them: the next call appends). Messages after ``final`` are
        checked again at every call, never kept."""
        n = len(messages)
        if self.cut and (same <= self.cut or self.cut >= n):  # the message at the cut is another
            self._restart()
        bound = n if final is None else min(final, n)
        with _collector_paused():
            try:
                self.segments = self._step(messages, self._cut_before(messages, bound))
            except _Redo:
                self._restart()
                self.segments = self._step(messages, self._cut_before(messages, bound))
            unsent = _fix_remedies(empty(messages, self.provider, prompt_follows=self.prompt_follows))
            if unsent:  # a problem of the list itself: before every other, found anew every time
                self.segments = [(unsent, -1), *self.segments]
        found: list[Violation] = []
        for part, stop in self.segments:
            found += part if stop < 0 or stop == len(part) else part[:stop]
        return found

    def _cut_before(self, messages: Sequence[Message], bound: int) -> int:
        """The last message before ``bound`` (and after the cut) where the check can start again;
        the cut itself where there is none."""
        for k in range(bound - 1, self.cut, -1):
            if self._resets(messages, k):
                return k
        return self.cut


def _not_tool(messages: Sequence[Message], k: int) -> bool:
    return messages[k].role != "tool"


def _after_no_assistant(messages: Sequence[Message], k: int) -> bool:
    """An assistant message whose previous message (system prompts aside) is not one."""
    if messages[k].role != "assistant":
        return False
    for j in range(k - 1, -1, -1):
        role = messages[j].role
        if role not in LIFTED_ROLES:
            return role != "assistant"
    return True


class _Chat(Resumable):
    """OpenAI Chat and Kimi: pairing within runs of tool messages, and the first use of each id."""

    def __init__(self, module: object) -> None:
        self.scan: Callable[[Sequence[Message], int, int, dict[str, int]], list[Violation]]
        self.scan = module.scan  # type: ignore[attr-defined]
        self.provider = str(module.NAME)  # type: ignore[attr-defined]
        super().__init__()

    def _fresh(self) -> None:
        self.kept: list[Violation] = []
        self.first: dict[str, int] = {}

    _resets = staticmethod(_not_tool)

    def _step(self, messages: Sequence[Message], cut: int) -> _Segments:
        if cut > self.cut:
            self.kept += _fix_remedies(self.scan(messages, self.cut, cut, self.first))
            self.cut = cut
        window = _fix_remedies(self.scan(messages, cut, len(messages), _Layer(self.first)))
        return [(self.kept, len(self.kept)), (window, -1)]


class _DeepSeek(Resumable):
    """DeepSeek: pairing as OpenAI Chat, and D1 where thinking mode shows anywhere (a switch)."""

    provider = deepseek.NAME

    def _fresh(self) -> None:
        self.kept: list[Violation] = []
        self.thinking = False  # thinking mode shows before the cut
        self.unreasoned = False  # a message before the cut D1 would name
        self.assumed = False  # the switch the kept problems were found with

    _resets = staticmethod(_not_tool)

    def _step(self, messages: Sequence[Message], cut: int) -> _Segments:
        n = len(messages)
        piece = deepseek.thinking(messages, self.cut, cut)
        on = self.thinking or piece or deepseek.thinking(messages, cut, n)
        if self.unreasoned and on != self.assumed:
            raise _Redo
        if cut > self.cut:
            self.kept += _fix_remedies(deepseek.scan(messages, self.cut, cut, on))
            self.unreasoned = self.unreasoned or deepseek.unreasoned(messages, self.cut, cut)
            self.thinking = self.thinking or piece
            self.assumed = on
            self.cut = cut
        return [(self.kept, len(self.kept)), (_fix_remedies(deepseek.scan(messages, cut, n, on)), -1)]


class _Mistral(Resumable):
    """Mistral: pairing from one assistant message to the next; M4 at the end."""

    provider = mistral.NAME

    def _fresh(self) -> None:
        self.kept: list[Violation] = []

    def _resets(self, messages: Sequence[Message], k: int) -> bool:
        return messages[k].role == "assistant"

    def _step(self, messages: Sequence[Message], cut: int) -> _Segments:
        if cut > self.cut:
            self.kept += _fix_remedies(mistral.scan(messages, self.cut, cut))
            self.cut = cut
        window = mistral.scan(messages, cut, len(messages), self.prompt_follows)
        return [(self.kept, len(self.kept)), (_fix_remedies(window), -1)]


class _Gemini(Resumable):
    """Gemini: contents numbered on from the cut; G4 over the current turn, which may begin
    before the cut (its calls kept apart), where the history's calls show signatures matter."""

    provider = gemini.NAME

    def _fresh(self) -> None:
        self.kept: list[Violation] = []
        self.base = 0
        self.prev: Turn | None = None
        self.last_kept: Turn | None = None
        self.unsigned: list[Violation] = []  # G4 of the current turn's calls before the cut
        self.signed = self.foreign = False

    def _resets(self, messages: Sequence[Message], k: int) -> bool:
        return messages[k].role == "assistant"

    def _contents(self, messages: Sequence[Message], start: int, stop: int) -> tuple[list[Turn], list[Violation]]:
        wire = contents(messages, start, stop)
        return wire, _fix_remedies(gemini.scan(messages, wire, self.base, self.prev, self.last_kept))

    def _step(self, messages: Sequence[Message], cut: int) -> _Segments:
        n = len(messages)
        if cut > self.cut:
            wire, found = self._contents(messages, self.cut, cut)
            self.kept += found
            reset, unsigned = gemini.unsigned(wire, self.base)
            if reset:
                self.unsigned = unsigned
            else:
                self.unsigned += unsigned
            signed, foreign = gemini.signing(messages, self.cut, cut)
            self.signed, self.foreign = self.signed or signed, self.foreign or foreign
            if wire:
                self.prev = wire[-1]
                self.last_kept = next(
                    (t for t in reversed(wire) if not gemini.placeholder(messages, t)), self.last_kept
                )
                self.base += len(wire)
            self.cut = cut
        wire, found = self._contents(messages, cut, n)
        reset, unsigned = gemini.unsigned(wire, self.base)
        signed, foreign = gemini.signing(messages, cut, n)
        kept = len(self.kept)
        if (self.signed or self.foreign or signed or foreign) and not self.prompt_follows:
            if not reset and self.unsigned:
                # The current turn began before the cut: its G4 problems go among the kept ones.
                kept = bisect_left(self.kept, self.unsigned[0].index, key=_by_index)
                unsigned = self.unsigned + unsigned
            found = sorted(self.kept[kept:] + found + unsigned, key=_by_index)
        return [(self.kept, kept), (found, -1)]


class _Turns(Resumable):
    """What Anthropic and Bedrock share: wire messages numbered on from the cut, the wire message
    before it, and the call ids of the history (is a result's id some call's)."""

    merge = False

    def _fresh(self) -> None:
        self.base = 0
        self.prev: Turn | None = None
        self.calls = _Ids()

    _resets = staticmethod(_after_no_assistant)

    def _wire(self, messages: Sequence[Message], start: int, stop: int) -> list[Turn]:
        return turns(messages, self.merge, start, stop, self.prev)

    def _moved(self, wire: list[Turn], cut: int) -> None:
        if wire:
            self.prev = wire[-1]
            self.base += len(wire)
        self.cut = cut


class _Anthropic(_Turns):
    provider = anthropic.NAME

    def _fresh(self) -> None:
        super()._fresh()
        self.kept: list[Violation] = []
        self.kept_late: list[Violation] = []  # A12 of each assistant message, listed after the rest
        self.first_use: dict[str, tuple[int, int, int]] = {}
        self.thinking = False  # an assistant message before the cut has thinking
        self.loop = False  # the tool loop open at the cut has thinking before it

    def _step(self, messages: Sequence[Message], cut: int) -> _Segments:
        n = len(messages)
        self.calls.settle(_call_ids(messages, self.cut, cut), _call_ids(messages, cut, n))
        if cut > self.cut:
            wire = self._wire(messages, self.cut, cut)
            found, late = anthropic.scan(messages, wire, self.base, self.first_use, self.calls.has_settled, False)
            self.kept += _fix_remedies(found)
            self.kept_late += _fix_remedies(late)
            self.thinking = self.thinking or anthropic.thinking(messages, self.cut, cut)
            self.loop = anthropic.loop_thinks(wire, self.loop)
            self._moved(wire, cut)
        wire = self._wire(messages, cut, n)
        final = not self.prompt_follows  # (the user's next message ends the request)
        found, late = anthropic.scan(messages, wire, self.base, _Layer(self.first_use), self.calls.has, final)
        end: list[Violation] = []
        if wire and final:
            thinking_on = self.thinking or anthropic.thinking(messages, cut, n)
            end = anthropic.at_the_end(messages, wire, self.base, thinking_on, self.loop)
        return [
            (self.kept, len(self.kept)),
            (_fix_remedies(found), -1),
            (self.kept_late, len(self.kept_late)),
            (_fix_remedies(late + end), -1),
        ]


class _Bedrock(_Turns):
    provider = bedrock.NAME
    merge = True

    def _fresh(self) -> None:
        super()._fresh()
        self.kept: list[Violation] = []
        self.first: Turn | None = None  # the first wire message
        self.first_kept: Turn | None = None  # the first that is not an empty assistant message

    def _step(self, messages: Sequence[Message], cut: int) -> _Segments:
        n = len(messages)
        self.calls.settle(_call_ids(messages, self.cut, cut), _call_ids(messages, cut, n))
        if cut > self.cut:
            wire = self._wire(messages, self.cut, cut)
            self.kept += _fix_remedies(bedrock.scan(messages, wire, self.base, self.prev, self.calls.has_settled))
            if self.first is None and wire:
                self.first = wire[0]
            if self.first_kept is None:
                self.first_kept = bedrock.first_kept(messages, wire)
            self._moved(wire, cut)
        wire = self._wire(messages, cut, n)
        found = _fix_remedies(bedrock.scan(messages, wire, self.base, self.prev, self.calls.has))
        first = self.first if self.first is not None else (wire[0] if wire else None)
        opening: list[Violation] = []
        if first is not None and first.role == "assistant":
            kept = self.first_kept if self.first_kept is not None else bedrock.first_kept(messages, wire)
            opening = _fix_remedies([bedrock.opening(first, kept)])
        return [(opening, -1), (self.kept, len(self.kept)), (found, -1)]


class _Responses(Resumable):
    """OpenAI Responses (and strict servers): items numbered on from the cut; ids looked up in the
    whole input (R1, R2, R7) and the reasoning switch (R6) recorded for the kept problems."""

    def __init__(self, provider: str, strict: bool, repaired: bool) -> None:
        self.provider = provider
        self.strict = strict
        self.repaired = repaired
        super().__init__()

    def _fresh(self) -> None:
        self.kept: list[Violation] = []
        self.base = 0
        self.calls = _Ids()
        self.outputs = _Ids()
        self.seen_ids: set[str] = set()
        self.first_output: dict[str, tuple[int, int]] = {}
        self.earlier_outputs: dict[str, list[tuple[int, int]]] = {}
        self.reasoning = False  # a reasoning item with an id before the cut
        self.candidate = False  # a call before the cut R6 would name, were there one
        self.assumed = False  # the switch the kept problems were found with

    _resets = staticmethod(_not_tool)

    def _scan(self, messages: Sequence[Message], wire: list[Item], facts: openai_responses.Facts) -> list[Violation]:
        found, candidate = openai_responses.scan(self.provider, messages, wire, facts, self.strict)
        self.candidate = self.candidate or (candidate and facts.unsettled is not None)
        return _fix_remedies(found)

    def _step(self, messages: Sequence[Message], cut: int) -> _Segments:
        n = len(messages)
        piece = items(messages, self.repaired, self.cut, cut)
        window = items(messages, self.repaired, cut, n)
        kinds = ("function_call", "function_call_output")
        self.calls.settle(
            (it.call_id for it in piece if it.type == kinds[0]), (it.call_id for it in window if it.type == kinds[0])
        )
        self.outputs.settle(
            (it.call_id for it in piece if it.type == kinds[1]), (it.call_id for it in window if it.type == kinds[1])
        )
        reasoning = openai_responses.reasoning_ids(piece)
        on = self.reasoning or reasoning or openai_responses.reasoning_ids(window)
        if self.candidate and on != self.assumed:
            raise _Redo
        if piece:
            facts = openai_responses.Facts(
                self.base,
                len(piece),
                self.calls.has_settled,
                self.outputs.has_settled,
                on,
                self.seen_ids,
                self.first_output,
                self.earlier_outputs,
                self.outputs.unsettled,
            )
            # Every problem of these messages comes after the kept ones in the order.
            self.kept += sorted(self._scan(messages, piece + window, facts), key=openai_responses.order)
            for k, it in enumerate(piece):
                if it.type == "function_call_output" and it.call_id:
                    self.earlier_outputs.setdefault(it.call_id, []).append((self.base + k, it.source))
            self.base += len(piece)
        self.reasoning = self.reasoning or reasoning
        self.assumed = on
        self.cut = cut
        facts = openai_responses.Facts(
            self.base,
            len(window),
            self.calls.has,
            self.outputs.has,
            on,
            LayerSet(self.seen_ids),
            _Layer(self.first_output),
            self.earlier_outputs,
        )
        found = sorted(self._scan(messages, window, facts), key=openai_responses.order)
        return [(self.kept, len(self.kept)), (found, -1)]


class _Valid(Resumable):
    """The Valid property every provider shares (:func:`suture.validity.violations`): spans from
    one assistant message to the next, and the first use of each id."""

    provider = ""

    def _fresh(self) -> None:
        self.kept: list[Violation] = []
        self.first: dict[str, int] = {}

    def _resets(self, messages: Sequence[Message], k: int) -> bool:
        return messages[k].role == "assistant"

    def _step(self, messages: Sequence[Message], cut: int) -> _Segments:
        from suture.validity import scan

        if cut > self.cut:
            self.kept += scan(messages, self.cut, cut, self.first)  # type: ignore[arg-type]
            self.cut = cut
        window = scan(messages, cut, len(messages), _Layer(self.first))
        return [(self.kept, len(self.kept)), (window, -1)]  # type: ignore[list-item]


class Valid:
    """The Valid property every provider shares (:func:`suture.validity.violations`) of a
    history that grows and of its repair, each check resumed from the last, as :class:`Checks`
    resumes a provider's: the breaches before the cut are kept (an AI SDK file is headed by
    these, at every append)."""

    def __init__(self) -> None:
        self._before = _Valid()
        self._after = _Valid()
        self._repair: Repair | None = None

    def check(self, messages: Sequence[Message], result: Repair, same: int = 0) -> tuple[list[Breach], list[Breach]]:
        """The breaches of ``messages`` and of ``result``, their repair, as
        :func:`~suture.validity.violations` gives them. ``same``: as :meth:`Checks.verdicts`'s."""
        point = reused(self._repair, messages, same) if self._repair is not None and same > 0 else None
        if point is None:
            same = 0
        final = reused(result, messages, len(messages))
        self._repair = result
        before = self._before.check(messages, same)
        after = self._after.check(result.messages, point[1] if point is not None else 0, final[1] if final else 0)
        return before, after  # type: ignore[return-value]


def resumable(provider: str, repaired: bool = False) -> Resumable:
    """A resumable check for ``provider`` (``repaired``: of a repair's output, as
    ``check(..., repaired=True)``)."""
    if provider in (openai_chat.NAME, kimi.NAME):
        return _Chat(openai_chat if provider == openai_chat.NAME else kimi)
    simple: dict[str, Callable[[], Resumable]] = {
        deepseek.NAME: _DeepSeek,
        mistral.NAME: _Mistral,
        gemini.NAME: _Gemini,
        anthropic.NAME: _Anthropic,
        bedrock.NAME: _Bedrock,
    }
    if provider in simple:
        return simple[provider]()
    if provider in (openai_responses.NAME, openai_responses_strict.NAME):
        return _Responses(provider, provider == openai_responses_strict.NAME, repaired)
    raise InputError(f"unknown provider {provider!r}; known providers: {', '.join(PROVIDERS)}")


class _Slot:
    """A list of kept problems before repair, and each as :func:`_reconciled` makes it."""

    __slots__ = ("out", "source")

    def __init__(self, source: list[Violation]) -> None:
        self.source = source
        self.out: list[Violation] = []


class _Fixed:
    """One provider's problems before repair with ``fixed`` saying what the repair did, kept
    across checks: a kept problem is worked out again only where what it depends on changed (a
    problem after repair at one of its messages, found or gone; the repair of its messages, while
    that may still change)."""

    def __init__(self) -> None:
        self.generations: tuple[int, int] = (-1, -1)
        self.slots: dict[int, _Slot] = {}
        self.counted: dict[int, tuple[list[Violation], int]] = {}  # kept lists after repair: how many counted
        self.kept_keys: dict[_Key, int] = {}  # the keys of the kept problems after repair, counted
        self.fresh_keys: set[_Key] = set()  # and of those found anew
        self.dependents: dict[_Key, set[tuple[_Slot, int]]] = {}
        self.unsettled: set[tuple[_Slot, int]] = set()  # about messages whose repair may change

    def remains(self, found: _Key) -> bool:
        return found in self.kept_keys or found in self.fresh_keys

    def verdict(
        self,
        before: Resumable,
        after: Resumable,
        output_of: Callable[[int], int | None],
        input_count: int,
        settled: int,
    ) -> list[Violation]:
        """The problems of ``before``'s last check, reconciled with ``after``'s. ``settled``: the
        input messages before it keep their repair in every later check."""
        generations = (before.generation, after.generation)
        if generations != self.generations:
            self.__init__()  # type: ignore[misc]
            self.generations = generations
        fresh: set[_Key] = set()
        for part, stop in after.segments:
            if stop < 0:
                fresh.update(_key(v, v.index) for v in part)
                continue
            done = self.counted.get(id(part))
            start = done[1] if done is not None and done[0] is part else 0
            for v in part[start:]:
                found_at = _key(v, v.index)
                self.kept_keys[found_at] = self.kept_keys.get(found_at, 0) + 1
            self.counted[id(part)] = (part, len(part))
        changed = fresh ^ self.fresh_keys
        self.fresh_keys = fresh

        def one(v: Violation) -> Violation:
            return _reconciled(v, self.remains, output_of, input_count)

        def keep(slot: _Slot, pos: int) -> Violation:
            v = slot.source[pos]
            for i in {*_about(v, output_of, input_count), *(j for j in (v.index, *v.related) if 0 <= j < input_count)}:
                t = output_of(i)
                if t is not None:
                    self.dependents.setdefault(_key(v, t), set()).add((slot, pos))
                if i >= settled:
                    self.unsettled.add((slot, pos))
            return one(v)

        again = set(self.unsettled)
        self.unsettled = set()
        for gone_or_come in changed:
            again |= self.dependents.get(gone_or_come, set())
        for slot, pos in again:
            slot.out[pos] = keep(slot, pos)
        found: list[Violation] = []
        for part, stop in before.segments:
            if stop < 0:
                found += [one(v) for v in part]
                continue
            known = self.slots.get(id(part))
            slot = known if known is not None and known.source is part else _Slot(part)
            self.slots[id(part)] = slot
            for pos in range(len(slot.out), len(part)):
                slot.out.append(keep(slot, pos))
            found += slot.out if stop == len(slot.out) else slot.out[:stop]
        return found


class Checks:
    """Every provider's verdict on a history that grows, each check resumed from the last.

    :meth:`verdicts` gives what :func:`suture.checks.verdicts` gives (with the same
    ``prompt_follows``, for a session log's history); called again after an append, it checks
    what was appended and the last few messages (see the module docstring)."""

    def __init__(self, providers: Iterable[str] | None = None, *, prompt_follows: bool = False) -> None:
        self.providers = tuple(PROVIDERS if providers is None else providers)
        self._before = {p: resumable(p) for p in self.providers}
        self._after = {p: resumable(p, repaired=True) for p in self.providers}
        for check in (*self._before.values(), *self._after.values()):
            check.prompt_follows = prompt_follows  # as suture.checks.verdicts(..., prompt_follows=)
        self._fixed = {p: _Fixed() for p in self.providers}
        self._repair: Repair | None = None
        self._by_input: list[int | None] = []  # the output index of each input message (None: dropped)
        self.valid: Valid | None = None
        """The Valid property's checks of the same history, where its reader keeps them here (the
        app, for a file written for no single provider: :class:`Valid`)."""

    def verdicts(self, messages: Sequence[Message], result: Repair, same: int = 0) -> dict[str, Verdict]:
        """Each provider's :class:`~suture.checks.Verdict` on ``messages`` and ``result``, their
        repair. ``same``: how many messages at the start are those of the last call's (0: check
        from scratch); ``result`` must then be the repair of ``messages`` as
        :func:`suture.repair.repair` gives it (:func:`suture.repair.repair_from` gives the same)."""
        return dict(self.each(messages, result, same))

    def each(self, messages: Sequence[Message], result: Repair, same: int = 0) -> Iterator[tuple[str, Verdict]]:
        """:meth:`verdicts` one provider at a time, each as soon as it is worked out. Every
        provider must be taken before the next call."""
        point = reused(self._repair, messages, same) if self._repair is not None and same > 0 else None
        if point is None:
            same = 0
            self._fixed = {p: _Fixed() for p in self.providers}
        same_in, same_out = point if point is not None else (0, 0)  # the repairs agree before these
        final = reused(result, messages, len(messages))
        settled, final_out = final if final is not None else (0, 0)
        by_input = self._by_input
        del by_input[same_in:]
        by_input.extend([None] * (result.input_count - len(by_input)))
        origin = result.origin
        for j in range(same_out, len(origin)):
            i = origin[j]
            if i is not None:
                by_input[i] = j
        output_of = by_input.__getitem__
        self._repair = result
        for p in self.providers:
            with _collector_paused():
                before, after = self._before[p], self._after[p]
                before.check(messages, same)
                found = after.check(result.messages, same_out, final_out)
                fixed = self._fixed[p].verdict(before, after, output_of, result.input_count, settled)
            yield p, Verdict(p, fixed, found, result)

    def state(self, provider: str) -> object:
        """What the checks of ``provider`` keep, to hand to another process (pickled, with the
        provider's last verdict: they share its problems), which :meth:`joined` puts together
        again. Which problems before repair the repair fixes is worked out again there, at the
        next check (a pass over the problems found: quicker than handing it over)."""
        return (self._before[provider], self._after[provider])

    def common(self) -> object:
        """What the checks of every provider share, to hand over with each :meth:`state`."""
        return (self.providers, self._by_input)

    @classmethod
    def joined(cls, common: object, states: dict[str, object], result: Repair) -> Checks:
        """The checks whose :meth:`common` and :meth:`state` of each provider were handed over,
        ``result`` the repair they last checked."""
        providers: tuple[str, ...]
        by_input: list[int | None]
        providers, by_input = common  # type: ignore[misc]
        checks = cls(())
        checks.providers = tuple(providers)
        checks._by_input = by_input
        checks._repair = result
        for p in checks.providers:
            checks._before[p], checks._after[p] = states[p]  # type: ignore[misc]
            checks._fixed[p] = _Fixed()
        return checks
