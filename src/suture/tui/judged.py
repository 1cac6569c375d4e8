"""What the app says a provider makes of the file shown, row by row (no Textual here).

The verdicts themselves come from the library, as ``suture check`` prints them: for a session log
(Claude Code, Codex, pi) :func:`suture.sent.verdict` judges what the agent sends when it resumes
the session, lists what the agent repairs itself as notes (never problems), and keeps the
contract view (suture's repair of the file as written) labelled as such; for any other file
:func:`suture.checks.verdict` judges the history before and after suture's repair. This module
only places each of them on the rows the panes draw (:class:`~suture.tui.rows.RowModel`) and says
them in the app's words.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

from suture import show
from suture.validity import NAME as VALID
from suture.validity import Breach
from suture.words import AS_WRITTEN, CONTRACT, after_repair

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from suture.checks import Verdict, Violation
    from suture.checks.apart import Apart
    from suture.checks.resume import Checks
    from suture.model import Transcript
    from suture.repair import Repair
    from suture.sent import Fix, Sent, SentVerdict
    from suture.sent.resume import SentChecks
    from suture.tui.rows import RowModel

__all__ = [
    "CONTRACT",
    "NEVER",
    "SHARED",
    "Figures",
    "Finding",
    "Judged",
    "Part",
    "Section",
    "Shared",
    "cut",
    "figure_clauses",
    "judge_all",
    "said_of",
    "verdict_parts",
    "without_agent",
]

T = TypeVar("T")

SENT = "sent"
"""A problem in what the agent sends on resume: the provider would reject it."""
AGENT = "agent"
"""Something the agent repairs itself when it resumes: not a problem."""
BEFORE = "before"
"""A problem of the file as written (for a session log: the contract view)."""
AFTER = "after"
"""A problem left in suture's repair of it."""

SHARED = VALID
"""What the headline of a file written for no single provider (the AI SDK's) names: the Valid
property every provider's rules share, as ``suture scan`` and the sessions browser say it."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a provider's verdict says about a row.

    ``kind`` is :data:`SENT`, :data:`AGENT`, :data:`BEFORE` or :data:`AFTER`; ``index`` the
    Original's message number for it, what ``:#N`` goes to, for every kind (for :data:`AFTER`, the
    message its repaired message came from); ``None`` for a message the agent makes up on resume
    or the repair makes; ``violation`` the provider's rule (``None`` for an agent's fix) and
    ``fix`` the agent's fix."""

    kind: str
    row: int
    index: int | None
    provider: str
    violation: Violation | None = None
    fix: Fix | None = None
    contract: bool = False
    """A problem of the contract view of a session log (not what the agent sends)."""

    @property
    def is_problem(self) -> bool:
        """Whether the provider would answer 400 for it: what ``x`` and the problem filter visit."""
        if self.kind == SENT:
            return True
        return self.kind in (BEFORE, AFTER) and not self.contract

    @property
    def rule(self) -> str:
        return self.violation.rule if self.violation is not None else ""

    def said(self, agent: str) -> tuple[str, str]:
        """The finding in two parts, a label and its text: ``("anthropic A1a in what Claude Code
        sends", "messages.2: ...")``. The label takes a colour of its own."""
        v = self.violation
        if self.kind == AGENT:
            assert self.fix is not None
            return (f"{agent} repairs this itself", show.line(without_agent(self.fix.summary, agent)))
        assert v is not None
        where = f"{show.line(v.provider)} {show.line(v.rule)}"
        if self.kind == SENT:
            return (f"{where} in what {agent} sends", show.line(v.error))
        state = "after repair" if self.kind == AFTER else ("fixed by repair" if v.fixed else "not fixed by repair")
        label = f"{where} ({state})"
        if self.contract:
            # The error's index counts the file sent as written, not what the agent sends (what
            # ``:messages.N`` and the agent's findings count): said first in suture's words.
            said = f"{v.problem} (the error {AS_WRITTEN}: {v.error})"
            return (f"{CONTRACT}: {label}", show.line(said))
        return (label, show.line(v.error))


def said_of(item: Finding | Breach, agent: str) -> tuple[str, str]:
    """What the line under the panes and the details say of a row's finding, or of its breach
    of the Valid property every provider shares (a file written for no single provider): a
    label, which takes a colour of its own, and its text."""
    if isinstance(item, Breach):
        return (SHARED, show.line(item.problem))
    return item.said(agent)


NEVER = 0
"""A headline's clause never left out (:func:`cut`): where even the shortest form is too wide,
the window cuts it, marked ``…``."""
AFTER_WORDS = 1
"""The words `` after repair`` after a verdict's figure (``→ 0 after repair``): left out last."""
SEE = 2
"""The key that shows a verdict said beside the headline (``; p shows it``)."""
WHAT = 3
"""What a session log's verdict is on (`` in what Claude Code sends``)."""
NOTE = 4
"""What the agent repairs itself (`` (Claude Code repairs 2 things itself)``)."""
COMING = 5
"""How many verdicts are still to come (``: 3 more verdicts to come``): left out first."""


def cut(clauses: Sequence[tuple[T, int]]) -> list[list[T]]:
    """A headline's forms, longest first: its clauses in their order, each given with the rank at
    which it is left out (the highest first; :data:`NEVER`, never); then without those of the
    highest rank, and so on. Each form is the same sentence with clauses left out, never other
    words: a person who makes the window narrower sees the sentence cut, not another one.

    >>> cut([("a", NEVER), (" b", 2), (" c", 1)])
    [['a', ' b', ' c'], ['a', ' c'], ['a']]
    """
    ranks = sorted({rank for _, rank in clauses if rank != NEVER}, reverse=True)
    return [[part for part, _ in clauses]] + [[part for part, rank in clauses if rank < top] for top in ranks]


def figure_clauses(said: str) -> list[tuple[str, int]]:
    """A verdict's sentence that ends in what is left after repair (``anthropic: 3 problems → 0
    after repair``) in clauses: the words `` after repair`` (:data:`AFTER_WORDS`) apart."""
    words = " " + after_repair(0).split(" ", 2)[-1]  # " after repair"
    if said.endswith(words):
        return [(said[: -len(words)], NEVER), (words, AFTER_WORDS)]
    return [(said, NEVER)] if said else []


@dataclass(frozen=True, slots=True)
class Section:
    """A heading in the problems list (a session log's list has three parts)."""

    title: str


@dataclass(slots=True)
class Judged:
    """One provider's verdict on the file shown, placed on the rows.

    ``sent`` is the library's :class:`~suture.sent.SentVerdict` for a session log (``None`` for
    any other file), ``contract`` the :class:`~suture.checks.Verdict` of the file as written and
    its repair (for a session log, its contract view)."""

    provider: str
    contract: Verdict
    sent: SentVerdict | None = None
    findings: list[Finding] = field(default_factory=list)
    by_row: dict[int, list[Finding]] = field(default_factory=dict)
    after_sent: int | None = None
    """(A session log the provider rejects.) How many problems it finds in what the agent sends
    from the session ``suture repair`` writes, as ``after_repair`` in ``suture scan`` and ``suture
    check --json`` counts them; ``None`` where that was not worked out (:func:`verdict_parts`)."""
    figure_coming: bool = False
    """Whether :attr:`after_sent` is being worked out, and this verdict will be told again with it
    (the checks are not over until it is)."""

    @property
    def session(self) -> bool:
        return self.sent is not None

    @property
    def agent(self) -> str:
        """What a person calls the agent that wrote the session (``""`` for a request file)."""
        from suture.sent import agent_name

        if self.sent is None or self.sent.sent.agent is None:
            return ""
        return agent_name(self.sent.sent.agent)

    @property
    def problems(self) -> list[Finding]:
        """The findings ``x`` and the problem filter visit: what the provider would reject."""
        return [f for f in self.findings if f.is_problem]

    @property
    def others(self) -> list[Finding]:
        """The findings the list shows besides the problems: for a session log, what the agent
        repairs itself and the contract view (what ``x`` visits where there is no problem)."""
        return [f for f in self.findings if not f.is_problem]

    def none_said(self) -> str:
        """That the provider finds no problem, in the words the list's heading uses: ``no
        problems in what Claude Code sends`` for a session log."""
        if self.sent is not None:
            return f"no problems in what {self.agent or 'the agent'} sends"
        return f"{self.provider}: no problems"

    @property
    def rejected(self) -> bool:
        """Whether the provider would answer 400: to what the agent sends on resume (a session
        log), or to the file as it is (any other)."""
        return self.sent.rejected if self.sent is not None else bool(self.contract.before)

    @property
    def broken_after(self) -> bool:
        """Whether a problem is left for a person to fix (a request file's repair leaves one)."""
        return bool(self.sent.problems) if self.sent is not None else bool(self.contract.after)

    def summary(self) -> str:
        """The library's own sentence: ``anthropic: rejected, 1 problem in what Claude Code sends
        (...)`` for a session log, with what is left after suture's repair as a request file's
        says it (``→ 0 after repair``, :meth:`left`); ``anthropic: 3 problems → 0 after repair``
        otherwise."""
        if self.sent is None:
            return self.contract.summary()
        return f"{self.sent.summary()}{self.left()}"

    @property
    def after_figure(self) -> int | None:
        """(A session log the provider rejects.) How many problems it finds in what the agent
        sends from the session ``suture repair`` writes: :attr:`after_sent` (as ``suture scan``
        counts them), else, until that comes or where it is not worked out (a session over
        :data:`suture.tui.checking.WRITTEN_AT_LOAD`), 0 where the contract view's repair leaves
        no problem, and ``None`` where it leaves some (some the agent repairs itself, some not:
        their count is no count of what is sent)."""
        if self.after_sent is not None:
            return self.after_sent
        return None if self.contract.after else 0

    def left(self) -> str:
        """(A session log.) What suture's repair leaves, said after what the agent sends where the
        provider rejects that (``" → 0 after repair"``), as a request file's header says it
        (:attr:`after_figure`); ``""`` where it is not known, or where the provider accepts what
        is sent."""
        n = len(self.sent.problems) if self.sent is not None else 0
        after = self.after_figure
        if not n or after is None:
            return ""
        return f" {after_repair(after)}"

    def headline(self) -> list[tuple[str, int]]:
        """The verdict as the header says it, in clauses, each with the rank at which a narrow
        window leaves it out (:func:`cut`): the library's sentence (:meth:`summary`), cut where
        its clauses start. A session log's: ``anthropic: rejected, 1 problem``, `` in what Claude
        Code sends`` (:data:`WHAT`), `` (Claude Code repairs 2 things itself)`` (:data:`NOTE`),
        then what is left after repair (:func:`figure_clauses`)."""
        if self.sent is None:
            return figure_clauses(self.contract.summary())
        said, note = self.sent.summary(), ""
        if self.sent.notes:  # (the sentence's last clause, in brackets)
            at = said.rindex(" (")
            said, note = said[:at], said[at:]
        at = said.find(" in ", len(self.provider) + 1)  # " in what Claude Code sends", " in the history"
        head, what = (said[:at], said[at:]) if at >= 0 else (said, "")
        clauses = [(head, NEVER), (what, WHAT), (note, NOTE), *figure_clauses(self.left())]
        return [clause for clause in clauses if clause[0]]

    def headed(self) -> tuple[str, ...]:
        """The verdict as the header says it, longest first (it says the longest that fits): the
        library's sentence, then the same sentence with clauses left out, in a fixed order
        (:meth:`headline`, :func:`cut`), so a window made narrower cuts the sentence, never says
        another: ``anthropic: rejected, 1 problem → 0`` at the least."""
        return tuple("".join(form) for form in cut(self.headline()))

    def forms(self) -> tuple[str, ...]:
        """The verdict in words, longest first, where the whole sentence does not fit (the
        provider picker): :meth:`headed`."""
        return self.headed()

    def title(self) -> str:
        """The problems list's heading."""
        if self.sent is not None:
            n = len(self.sent.problems)
            return f"Sent to {self.provider}: " + (f"rejected ({n})" if n else "accepted")
        before, after = self.contract.counts
        return f"Problems: {self.provider} {before} → {after}"

    def listed(self) -> list[Finding | Section]:
        """The problems list: for a session log, what is sent, what the agent repairs itself and
        the contract view, each under its heading; for any other file, the problems before repair
        and those left after it."""
        if self.sent is None:
            return list(self.findings)
        agent = self.agent or "the agent"
        items: list[Finding | Section] = []
        assumed = self.sent.sent.assumed
        if assumed:
            items.append(Section(f"({assumed})"))
        sent = [f for f in self.findings if f.kind == SENT]
        items.append(Section(f"In what {agent} sends" + ("" if sent else f": nothing {self.provider} rejects")))
        items.extend(sent)
        notes = [f for f in self.findings if f.kind == AGENT]
        if notes:
            items.append(Section(f"{agent} repairs this itself (not a problem)"))
            items.extend(notes)
        contract = [f for f in self.findings if f.contract]
        before, after = self.contract.counts
        counts = f"{before} → {after}" if before or after else "no problems"
        items.append(Section(f"{CONTRACT.capitalize()} ({counts}): suture's repair of the file as written"))
        items.extend(contract)
        return items


@dataclass(frozen=True, slots=True)
class Part:
    """What the checks find for one provider, before it is placed on rows: the problems of the
    file as written and of its repair (the contract view), and for a session log those of what
    its agent sends. Small to pickle: the child that checks sends it back (:func:`judge_all`)."""

    provider: str
    before: list[Violation]
    after: list[Violation]
    sent: list[Violation] | None = None
    kept: object = None
    """(A file that is not a session log.) What the provider's checks keep, to check the file
    again after an append from where they stopped (:meth:`suture.checks.resume.Checks.state`);
    sent with the verdict, whose problems it shares."""


@dataclass(frozen=True, slots=True)
class Figure:
    """(A session log whose sent history ``provider`` rejects.) :attr:`Judged.after_sent`, sent
    after every :class:`Part` (it takes the session written back and read again)."""

    provider: str
    after: int


@dataclass(frozen=True, slots=True)
class Shared:
    """What the checks of every provider share (:meth:`suture.checks.resume.Checks.common`),
    sent after the last :class:`Part`."""

    common: object


def verdict_parts(
    transcript: Transcript, repaired: Repair, providers: Sequence[str], data: Callable[[], bytes | None] | None = None
) -> Iterator[Sent | Part | Figure | Shared]:
    """(Pure: the checks' child runs it.) For a session log, first what its agent sends on resume
    without the messages and their wire form (the app has the file's; the provider's problems
    with them come in each :class:`Part`); then each provider's :class:`Part` in turn. The
    library's verdicts, as ``suture check`` gets them: the sent view is built once for all. Then,
    where ``data`` is given and a provider rejects what is sent, the bytes the session was read
    from are read (``data()``: only then, and here, in the child) and a :class:`Figure` comes
    for each such provider: the problems in what the agent sends from the session ``suture
    repair`` writes, as ``suture scan`` counts them (written back and read once); none where
    the file no longer holds those bytes. For
    any other file the checks are those of :class:`suture.checks.resume.Checks`, whose state comes
    with each part (and, last, :class:`Shared`), so that the next check after an append resumes."""
    from suture.checks.resume import Checks
    from suture.sent import as_sent, models
    from suture.sent import verdict as sent_verdict

    sent: Sent | None = as_sent(transcript) if transcript.format in models() else None
    if sent is not None:
        yield replace(sent, messages=[], wire=[])
        rejected: dict[str, int] = {}
        for name in providers:
            found = sent_verdict(transcript, name, repaired, sent)
            if found.problems:
                rejected[name] = len(found.problems)
            yield Part(name, found.contract.before, found.contract.after, found.problems)
        if data is not None and rejected:
            yield from _after_counts(transcript, repaired, rejected, data)
        return
    checks = Checks(providers)
    for name, contract in checks.each(transcript.messages, repaired):
        yield Part(name, contract.before, contract.after, kept=checks.state(name))
    yield Shared(checks.common())


def _after_apart(
    model: RowModel,
    placed: dict[str, Judged],
    on_each: Callable[[str, Judged], None],
    cancelled: Callable[[], bool],
    started: Callable[[Apart[Any]], None],
    data: Callable[[], bytes | None],
) -> None:
    """(Resumed checks of a session log, each verdict told already, those that reject what is
    sent told as waiting for it.) The figure after repair (:attr:`Judged.after_sent`) of each
    provider that rejects what is sent, worked out in a child as a whole check works it out, from
    the file's bytes (``data()``, read in the child); each such verdict is told again with it (or
    without it, where the child fails or the file no longer holds those bytes)."""
    from functools import partial

    from suture.checks.apart import Apart, ChecksFailed

    rejected = {n: len(j.sent.problems) for n, j in placed.items() if j.figure_coming and j.sent is not None}
    try:
        with Apart(partial(_after_counts, model.transcript, model.repair, rejected, data)) as apart:
            started(apart)
            for figure in apart.results(cancelled):
                placed[figure.provider] = replace(placed[figure.provider], after_sent=figure.after, figure_coming=False)
                on_each(figure.provider, placed[figure.provider])
    except ChecksFailed:  # the verdicts stand without the figure
        pass
    _without_figures(placed, on_each)


class Figures:
    """(No Textual.) The figures after repair of a session log's resumed checks (:attr:`Judged.
    after_sent`), each worked out in a child (:func:`_after_counts`), one child at a time, on a
    thread of its own. Asked again while a child works, the ask waits; when the child ends, only
    the latest ask that waits is worked out (for the latest bytes): a session that grows while
    its figure is worked out has it worked out once more, not once for each append, and never
    more often than it is checked. ``current(model)`` says whether ``model``'s verdicts are still
    those shown: an ask whose model is not is dropped, and a child's figures for it too."""

    def __init__(self, current: Callable[[RowModel], bool]) -> None:
        import threading

        self._current = current
        self._lock = threading.Lock()
        self._waiting: (
            tuple[RowModel, dict[str, Judged], Callable[[str, Judged], None], Callable[[], bytes | None]] | None
        )
        self._waiting = None
        self._busy = False
        self._child: Apart[Any] | None = None
        self._drops = 0  # (a child started after a drop it did not see is ended as it starts)
        self.forks = 0
        """How many children have worked out a figure."""

    def ask(
        self,
        model: RowModel,
        placed: dict[str, Judged],
        on_each: Callable[[str, Judged], None],
        data: Callable[[], bytes | None],
    ) -> None:
        """Work out the figure of each verdict of ``placed`` told as waiting for it
        (``figure_coming``) from the session's bytes (``data()``, read in the child) and tell each
        such verdict again with it (``on_each``); now where no child works, else once it ends (in
        place of any ask that waits)."""
        import threading

        with self._lock:
            self._waiting = (model, placed, on_each, data)
            if self._busy:
                return
            self._busy = True
        threading.Thread(target=self._run, name="suture-figures", daemon=True).start()

    def drop(self) -> None:
        """Drop the ask that waits and end the child at work (the file is checked whole, or no
        longer shown)."""
        with self._lock:
            self._waiting = None
            self._drops += 1
            child = self._child
        if child is not None:
            child.end(wait=False)  # (its thread reaps it)

    def _run(self) -> None:
        """Work out each ask in turn, the latest that waits, until none does."""
        try:
            while True:
                with self._lock:
                    asked, self._waiting = self._waiting, None
                    if asked is None:
                        self._busy = False
                        return
                    drops = self._drops
                if self._current(asked[0]):
                    self._work(*asked, drops=drops)
        except BaseException:  # (the next ask starts a thread again)
            with self._lock:
                self._busy = False
            raise

    def _work(
        self,
        model: RowModel,
        placed: dict[str, Judged],
        on_each: Callable[[str, Judged], None],
        data: Callable[[], bytes | None],
        drops: int = 0,
    ) -> None:
        from functools import partial

        from suture.checks.apart import Apart, ChecksFailed

        _warm_for(data)
        told = dict(placed)
        rejected = {n: len(j.sent.problems) for n, j in told.items() if j.figure_coming and j.sent is not None}
        found: list[Figure] = []
        try:
            with Apart(partial(_after_counts, model.transcript, model.repair, rejected, data)) as apart:
                with self._lock:
                    self._child = apart
                    self.forks += 1
                    dropped = self._drops != drops
                if dropped:  # (dropped between the ask taken and the child made)
                    apart.end(wait=False)
                found = list(apart.results())
        except (ChecksFailed, OSError):  # (ended, failed, or not forked: the verdicts stand without it)
            pass
        finally:
            with self._lock:
                self._child = None
        if not self._current(model):
            return  # (its verdicts are no longer shown: an ask that waits is for those that are)
        for figure in found:
            told[figure.provider] = replace(told[figure.provider], after_sent=figure.after, figure_coming=False)
            on_each(figure.provider, told[figure.provider])
        _without_figures(told, on_each)


def _without_figures(told: dict[str, Judged], on_each: Callable[[str, Judged], None]) -> None:
    """Each verdict of ``told`` still told as waiting for its figure after repair told again
    without it: the figure will not come (its child failed, or the file no longer holds the bytes
    the session was read from)."""
    for name, judged in told.items():
        if judged.figure_coming:
            told[name] = replace(judged, figure_coming=False)
            on_each(name, told[name])


def _warm_for(data: Callable[[], bytes | None] | None) -> Callable[[], bytes | None] | None:
    """``data``, the reader of a session's bytes for a child that writes it back and reads it;
    where there is one, what that imports is imported here first (:func:`suture.scan.warm`): a
    module some other thread is importing when the child is forked would stay locked in the child
    for ever."""
    if data is not None:
        from suture.scan import warm

        warm()
    return data


def _after_counts(
    transcript: Transcript, repaired: Repair, now: dict[str, int], data: Callable[[], bytes | None]
) -> Iterator[Figure]:
    """(Pure: a child runs it.) For each provider of ``now`` (the problems it finds in what is sent
    now), those in what is sent from the session ``suture repair`` writes
    (:class:`suture.scan.AfterRepair`: written back and read once for all), from the session's
    bytes ``data()`` reads (none where it reads none)."""
    from suture.scan import AfterRepair

    read = data()
    if read is None:
        return
    after = AfterRepair(transcript, repaired, read)
    for name, n in now.items():
        yield Figure(name, after.problems(name, n))


def judge_all(
    model: RowModel,
    providers: tuple[str, ...],
    on_each: Callable[[str, Judged], None],
    cancelled: Callable[[], bool] = lambda: False,
    started: Callable[[Apart[Any]], None] = lambda _: None,
    resume: tuple[Checks | SentChecks, int] | None = None,
    data: Callable[[], bytes | None] | None = None,
    figures: Figures | None = None,
) -> Checks | SentChecks | None:
    """(For a worker.) Judge ``model`` for each provider in turn, calling ``on_each(name,
    judged)`` here as each is done; ``cancelled()`` true stops it. Returns the checks to resume
    from after the next append (``None`` when stopped).

    ``resume``: the checks of a model this one extends, and how many messages at the start of its
    file are those of that one. Then only what follows the checks' cut is checked, here (an
    append costs milliseconds: a process would cost more to start than the work). For a session
    log (:class:`suture.sent.resume.SentChecks`) the first check after the one in the child is
    worked out whole, here, as the child hands back no state of what is sent; the checks after
    it resume (a figure after repair then in a child, below). Otherwise the checks run in a
    child process (:class:`suture.checks.apart.Apart`, handed to ``started`` so another thread
    can end it), which keeps keys responsive during a long check. ``data``: reads the session
    log's bytes as read, for what its agent sends from the session ``suture repair`` writes
    (:attr:`Judged.after_sent`; ``None`` where the file no longer holds them); called in the child
    and only where a provider rejects what is sent (where none does, the file is not read).
    ``figures``: where given, the figure is worked out there, after the verdicts, a whole check's
    too (:class:`Figures`: one child at a time, for the latest check), and this returns without
    waiting for it; else in the checks' child, or a child of its own for a resumed check. Raises
    :class:`~suture.checks.apart.ChecksFailed` where the checks broke or their process died."""
    from functools import partial

    from suture.checks.apart import Apart
    from suture.checks.resume import Checks
    from suture.sent import models
    from suture.sent.resume import SentChecks

    transcript, repaired = model.transcript, model.repair
    session = transcript.format in models()  # imported here, before the child is forked (suture.checks.apart)
    resumes = session and SentChecks.resumes(transcript.format)
    if resume is not None and resume[0].providers == providers:
        kept, same = resume
        if isinstance(kept, SentChecks) and resumes:
            placed: dict[str, Judged] = {}
            for name, contract, judged in kept.each(transcript, repaired, same):
                if cancelled():
                    return None
                placed[name] = place(model, name, contract, judged)
            rejected = [n for n, j in placed.items() if j.sent is not None and j.sent.problems]
            reader = _warm_for(data) if rejected else None
            for name in placed:
                if reader is not None and name in rejected:
                    placed[name] = replace(placed[name], figure_coming=True)
                on_each(name, placed[name])
            if reader is not None and figures is not None:
                figures.ask(model, placed, on_each, reader)
            elif reader is not None:
                _after_apart(model, placed, on_each, cancelled, started, reader)
            return None if cancelled() else kept
        if isinstance(kept, Checks) and not session:
            for name, contract in kept.each(transcript.messages, repaired, same):
                if cancelled():
                    return None
                on_each(name, place(model, name, contract))
            return kept
    reader = _warm_for(data) if session else None
    # (Where ``figures`` is given, the figure is worked out there, after the verdicts: the checks
    # are over, and kept to resume from, without waiting for it.)
    detached = figures is not None and reader is not None
    with Apart(partial(verdict_parts, transcript, repaired, providers, None if detached else reader)) as apart:
        started(apart)
        common, states, told = _told(model, apart.results(cancelled), on_each, figures=reader is not None)
    if figures is not None and reader is not None and not cancelled() and any(j.figure_coming for j in told.values()):
        figures.ask(model, told, on_each, reader)
    else:
        _without_figures(told, on_each)  # (where no figure came: the file no longer held the bytes)
    if resumes and not cancelled():
        return SentChecks(providers)  # (no state: the next check is whole, here, and keeps it)
    if common is None or cancelled() or set(states) != set(providers):
        return None
    return Checks.joined(common, states, repaired)


def _told(
    model: RowModel,
    items: Iterable[Sent | Part | Figure | Shared],
    on_each: Callable[[str, Judged], None],
    figures: bool,
) -> tuple[object, dict[str, object], dict[str, Judged]]:
    """Each verdict of :func:`verdict_parts`'s ``items`` placed on ``model``'s rows and told as it
    comes (``figures``: a :class:`Figure` comes after for each that rejects what is sent, told as
    waiting for it); returns what the checks share, each provider's state (:class:`Shared`,
    ``Part.kept``) and each verdict as last told."""
    from suture.checks import Verdict
    from suture.sent import SentVerdict

    sent: Sent | None = None
    states: dict[str, object] = {}
    common: object = None
    done: dict[str, Judged] = {}
    for item in items:
        if isinstance(item, Shared):
            common = item.common
        elif isinstance(item, Figure):
            done[item.provider] = replace(done[item.provider], after_sent=item.after, figure_coming=False)
            on_each(item.provider, done[item.provider])
        elif not isinstance(item, Part):
            sent = item
        else:
            if item.kept is not None:
                states[item.provider] = item.kept
            contract = Verdict(item.provider, item.before, item.after, model.repair)
            found = (
                SentVerdict(item.provider, sent, item.sent, contract)
                if sent is not None and item.sent is not None
                else None
            )
            done[item.provider] = place(model, item.provider, contract, found)
            if figures and item.sent:
                done[item.provider] = replace(done[item.provider], figure_coming=True)
            on_each(item.provider, done[item.provider])
    return common, states, done


def place(model: RowModel, provider: str, contract: Verdict, sent: SentVerdict | None = None) -> Judged:
    """Put each of a verdict's findings on its row. Each kind's findings are in the order of
    their rows, as the panes read and ``x`` visits them (a moved result's problem where the
    result now is), a row's in the verdict's order: the problems list shows them so."""
    findings: list[Finding] = []
    last = max(len(model) - 1, 0)
    if sent is not None:
        findings += _by_row(
            Finding(SENT, _row_of_sent(model, sent, v.index), sent.at(v), provider, v) for v in sent.problems
        )
        findings += _by_row(
            Finding(AGENT, _row(model.row_of_input, fix.index, last), fix.index, provider, fix=fix)
            for fix in sent.notes
        )
    session = sent is not None
    findings += _by_row(
        Finding(BEFORE, _row(model.row_of_input, v.index, 0), v.index, provider, v, contract=session)
        for v in contract.before
    )
    # A problem left after repair is numbered as every other item is, by the Original's message
    # its repaired message came from (what ``:#N`` goes to), or none for one the repair made.
    origin = model.repair.origin
    findings += _by_row(
        Finding(
            AFTER, _row(model.row_of_output, v.index, 0), _origin_of(origin, v.index), provider, v, contract=session
        )
        for v in contract.after
    )
    by_row: dict[int, list[Finding]] = {}
    for f in findings:
        by_row.setdefault(f.row, []).append(f)
    return Judged(provider, contract, sent, findings, by_row)


def _by_row(findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` in the order of their rows (a sort that keeps the order of a row's)."""
    return sorted(findings, key=attrgetter("row"))


def _row(rows: Sequence[int], index: int | None, default: int) -> int:
    return rows[index] if index is not None and 0 <= index < len(rows) else default


def _origin_of(origin: Sequence[int | None], index: int) -> int | None:
    """The Original's message the repaired message ``index`` came from (``None``: one the repair
    made, or no message); a problem of the request's list itself keeps its index
    (:data:`suture.checks._base.LIST`, below 0)."""
    if index < 0:
        return index
    return origin[index] if index < len(origin) else None


def _row_of_sent(model: RowModel, sent: SentVerdict, index: int) -> int:
    """The row of a sent message: its as-written message's, or for one the agent makes up on
    resume, the row of the nearest sent message before it that the file holds."""
    origin = sent.sent.origin
    for k in range(min(index, len(origin) - 1), -1, -1):
        found = origin[k]
        if found is not None:
            return _row(model.row_of_input, found, 0)
    return 0


def without_agent(summary: str, agent: str) -> str:
    """A fix's sentence without the agent's name in front, where a label beside it names it."""
    if agent and summary.startswith(agent + " "):
        return summary[len(agent) + 1 :]
    return summary
