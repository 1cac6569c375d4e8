"""The verdicts on what an agent sends, for a session log that grows: a check after an append
costs what was appended.

:class:`SentChecks` gives, for each provider, what :func:`suture.sent.verdict` gives for a session
log (the problems of what the agent sends on resume, and the contract view of the file as
written), and after an append checks again only from a cut near the end::

    from suture.sent.resume import SentChecks

    checks = SentChecks()                                   # every provider
    for name, contract, found in checks.each(transcript, repair(transcript.messages)):
        ...                                                 # found: a SentVerdict, contract: its Verdict
    # the file grew: its first n messages are those checked
    for name, contract, found in checks.each(grown, repair_from(result, grown.messages, n), same=n):
        ...

Three things are resumed, each from its own cut: what the agent sends (its request history,
built again from a message near the end: :class:`suture.sent.kept.Resumed`, for Claude Code,
Codex and pi), the provider's checks of that request (:mod:`suture.checks.resume`, over the
request as :func:`suture.sent.numbered.modelled` numbers it), and the contract view
(:class:`suture.checks.resume.Checks`). Where a kept result no longer holds, that part is worked
out whole again. What is kept is shared with what is made from it (:func:`suture.grown.grown_by`),
never copied: a check after an append costs what was appended. :meth:`SentChecks.resumes` says
which formats resume. ``tests/test_sent_resume.py`` proves the verdicts equal
:func:`suture.sent.verdict`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from suture.checks import PROVIDERS, Verdict
from suture.checks.resume import Checks, Resumable, resumable
from suture.grown import grown_by
from suture.model import Message, Transcript
from suture.repair import Repair
from suture.sent import RESUME_PROMPT, Sent, SentVerdict, as_sent
from suture.sent.numbered import SentRequest, modelled

if TYPE_CHECKING:
    from suture.checks import Violation
    from suture.sent.kept import Resumed

__all__ = ["SentChecks"]


def _resumed() -> dict[str, Callable[[], Resumed]]:
    """The resumed build of what is sent, by session format."""
    from suture.sent import claude_code, codex, pi

    return {"claude-code": claude_code.Grown, "codex": codex.Grown, "pi": pi.Grown}


_RESUMED = ("claude-code", "codex", "pi")
"""The session formats whose sent history is built again from a cut after an append."""


def _from(in_sent: Sequence[int | None], j: int) -> int:
    """Where the messages of a request from ``sent.messages[j]`` on begin (with any stand-in
    right before them), looked for from the end."""
    r = len(in_sent)
    while r > 0 and (in_sent[r - 1] is None or in_sent[r - 1] >= j):  # type: ignore[operator]
        r -= 1
    return r


class _Converted:
    """A provider's problems in the request, counted in ``sent.messages`` (what
    :meth:`SentRequest.to_sent` makes of them), kept for the problems the checks keep."""

    def __init__(self) -> None:
        self.generation = -1
        self.parts: dict[int, tuple[list[Violation], list[Violation], int]] = {}

    def problems(self, check: Resumable, request: SentRequest) -> list[Violation]:
        if check.generation != self.generation:
            self.parts = {}
            self.generation = check.generation
        last = len(request.messages)
        stand_ins = request.stand_ins

        def one(v: Violation) -> Violation | None:
            if v.index >= last or v.index in stand_ins:
                return None
            return request.to_sent(v)

        out: list[Violation] = []
        for part, stop in check.segments:
            if stop < 0 or stop < len(part):
                out += [s for v in (part if stop < 0 else part[:stop]) if (s := one(v)) is not None]
                continue
            known = self.parts.get(id(part))
            done, settled, upto = known if known is not None and known[0] is part else (part, [], 0)
            # A kept problem about messages before the check's cut reads the same there at every
            # check; one that names a later message is worked out again.
            while upto < len(part) and all(i < check.cut for i in (part[upto].index, *part[upto].related)):
                s = one(part[upto])
                if s is not None:
                    settled.append(s)
                upto += 1
            self.parts[id(part)] = (done, settled, upto)
            out += settled
            out += [s for v in part[upto:] if (s := one(v)) is not None]
        return out


class SentChecks:
    """Every provider's verdict on what the agent that wrote a session log sends, resumed after
    each append (see the module docstring)."""

    def __init__(self, providers: Iterable[str] | None = None) -> None:
        self.providers = tuple(PROVIDERS if providers is None else providers)
        self.contract = Checks(self.providers, prompt_follows=True)
        self._checks = {p: resumable(p) for p in self.providers}
        self._converted = {p: _Converted() for p in self.providers}
        self._grown: Resumed | None = None
        self._request: SentRequest | None = None

    @staticmethod
    def resumes(fmt: str) -> bool:
        """Whether what the agent of a session format sends is built again from a cut."""
        return fmt in _RESUMED

    def each(self, transcript: Transcript, result: Repair, same: int = 0) -> Iterator[tuple[str, Verdict, SentVerdict]]:
        """Each provider's contract :class:`~suture.checks.Verdict` and :class:`SentVerdict` on
        ``transcript`` (a session log) and ``result``, the repair of its messages, one at a time.
        ``same``: how many messages at the start are those of the last call's (0: from scratch).
        Every provider must be taken before the next call."""
        sent, same_sent = self._sent(transcript, same)
        request, same_request = self._numbered(transcript, sent, same_sent)
        history = grown_by(request.messages, [RESUME_PROMPT])  # (the request's messages are not copied)
        # The next check keeps the messages of what is sent before the cut of its history.
        final_sent = len(self._grown.found.messages) if self._grown is not None else 0
        final = _from(request.in_sent, final_sent)
        for name, contract in self.contract.each(transcript.messages, result, same):
            check = self._checks[name]
            check.check(history, same_request, final)
            problems = self._converted[name].problems(check, request)
            yield name, contract, SentVerdict(name, sent, problems, contract)

    def _sent(self, transcript: Transcript, same: int) -> tuple[Sent, int]:
        if transcript.format in _RESUMED:
            make = _resumed()[transcript.format]
            if self._grown is None or not same or type(self._grown) is not make:
                self._grown = make()
            return self._grown.sent(transcript, same)
        return as_sent(transcript), 0

    def _numbered(self, transcript: Transcript, sent: Sent, same: int) -> tuple[SentRequest, int]:
        """The request the checks read, and how many messages at its start are the last one's:
        the last request's messages before the first of ``sent`` that is not the last call's,
        then those of ``sent`` from it on, where nothing the agent adds comes among them (else
        :func:`modelled` numbers it whole)."""
        old = self._request
        spliced = self._spliced(old, sent, same) if old is not None and same > 0 else None
        if spliced is not None:
            self._request = spliced
            return spliced, spliced.kept
        request = modelled(transcript, sent)
        self._request = request
        return request, 0

    @staticmethod
    def _spliced(old: SentRequest, sent: Sent, same: int) -> _Spliced | None:
        keep = _from(old.in_sent, same)
        if any(r >= keep for r in old.stand_ins):
            return None
        at: list[int | None] = []
        messages: list[Message] = []
        for j in range(same, len(sent.messages)):
            ks = sent.places[j]
            m = sent.messages[j]
            if not ks or m.role in ("system", "developer"):
                return None  # (numbered apart from the rest: see modelled)
            messages.append(m)
            at.append(sent.position(ks[0]))
        if (
            len(sent.messages) > same
            and sent.added
            and sent.position(sent.places[same][0]) <= max(a.position for a in sent.added)
        ):
            return None
        # The last request's lists up to ``keep`` are shared, not copied.
        return _Spliced(
            old,
            sent,
            grown_by(old.messages, messages, keep),
            grown_by(old.at, at, keep),
            grown_by(old.in_sent, list(range(same, len(sent.messages))), keep),
            keep,
        )


class _Spliced(SentRequest):
    """A request numbered from the last one: what the checks read of it (its messages, their
    places, the stand-ins, ``in_sent``), and how many messages at its start are the last one's."""

    __slots__ = ("kept",)

    def __init__(
        self,
        old: SentRequest,
        sent: Sent,
        messages: Sequence[Message],
        at: Sequence[int | None],
        in_sent: Sequence[int | None],
        kept: int,
    ) -> None:
        super().__init__(
            key=old.key,
            wire_format=old.wire_format,
            provider=old.provider,
            wire=[],
            written=[],
            added={},
            messages=messages,  # type: ignore[arg-type]
            at=at,  # type: ignore[arg-type]
            exact=False,
            label=old.label,
            sent=sent,
            stand_ins=old.stand_ins,
            in_sent=in_sent,  # type: ignore[arg-type]
        )
        self.kept = kept
