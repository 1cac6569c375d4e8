"""The app's provider checks: run apart from drawing, shown as each provider's verdict comes.

:class:`CheckFlow` is the part of :class:`~suture.tui.app.SutureApp` that checks the file shown
against every provider and shows the verdicts: the checks worker (which waits on a child
process that does the checking, :func:`suture.tui.judged.judge_all`), the verdicts as they
come (:class:`Checked`), the provider shown (``p``) and the rows it would reject (``x``, the
problem filter). The rest of the app calls :meth:`CheckFlow.check_model` for each model it
shows and :meth:`CheckFlow.stop_checks` when it stops; the child process never outlives the
model it checks, the file, or the app, but for one that works out a session log's figure after
repair (what its agent sends from the session ``suture repair`` writes), which an append leaves to
end: one such child at a time, the next for the latest bytes once it has
(:class:`suture.tui.judged.Figures`), so a live session's figure is never worked out more often
than it is checked, nor started again at each append.

A model that extends the one checked last (the file grew: each model shown since was grown from
the one before) is checked from where those checks stopped (:mod:`suture.checks.resume`; for a
session log, what its agent sends on resume too: :mod:`suture.sent.resume`; for a file written
for no single provider, the Valid property that heads it: :class:`suture.checks.resume.Valid`):
what was appended and the last few messages, in milliseconds, on the checks' worker thread, with
no child process. A first load and a file changed otherwise are checked whole in the child,
which hands back the state of its checks with the verdicts, so the first check after an append
resumes too; but for a session log the first check after an append is worked out whole on the
worker thread, and the next ones resume: the state of what its agent sends would take longer to
hand back than to build again (pickled, 19-26 MB at 10,000 messages, 1.8-2.3 s to read back,
with the interpreter held throughout, against about 1 s to build).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import App
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import get_current_worker

from suture._deferred import deferred
from suture.tui.banner import Banner
from suture.tui.bars import InfoBar, StatusBar, panes_gone
from suture.tui.changes import ProblemList
from suture.tui.quiet import Quiet
from suture.validity import NAME as SHARED  # (what suture.tui.judged.SHARED names)
from suture.validity import Breach
from suture.words import CONTRACT, after_repair, count

if TYPE_CHECKING:
    from suture.checks.apart import Apart
    from suture.checks.resume import Checks, Valid
    from suture.live import LiveFile
    from suture.sent import SentVerdict
    from suture.sent.resume import SentChecks
    from suture.tui.judged import Figures, Finding, Judged, judge_all
    from suture.tui.rows import RowModel
    from suture.tui.screens import ProviderScreen
    from suture.tui.view import TranscriptView
else:
    # Opened by a key: the first screen does not wait for it.
    ProviderScreen = deferred("suture.tui.screens", "ProviderScreen")
    # The verdicts, which come once the first frame is drawn.
    judge_all = deferred("suture.tui.judged", "judge_all")

__all__ = ["CHECKS_SETTLE", "SHARED", "WRITTEN_AT_LOAD", "CheckFlow", "Checked", "ChecksKept"]

CHECKS_SETTLE = 1.0
"""Seconds with no reload before the provider checks run again."""
WRITTEN_AT_LOAD = 32 * 1024 * 1024
"""A session log (Claude Code, Codex, pi) up to this many bytes has its export worked out in a
worker once it is shown whole, so the header says where the export writes otherwise than the
repair's changes (about 0.7 s for 23 MB), and its checks work out what its agent sends from the
session ``suture repair`` writes (the header's figure after repair); a larger one's export is
worked out when it is exported, and its header gives that figure only where it is 0."""


def shared_summary(shared: tuple[list[Breach], list[Breach]]) -> str:
    """The verdict of the Valid property every provider shares, before and after repair."""
    before, after = shared
    if not before and not after:
        return f"{SHARED}: no problems"
    return f"{SHARED}: {count(len(before), 'problem')} {after_repair(len(after))}"


def _said_in(parts: Sequence[tuple[str, str]], status: StatusBar) -> Text:
    """A headline's form (its clauses' words, each in its colour) as the status line shows it."""
    text = Text(end="")
    for words, style in parts:
        text.append(words, status.part(style))
    return text


class Checked(Message):
    """Provider verdicts for a model (``None`` where the checks could not run). ``shared``: for
    a file written for no single provider, its breaches of the Valid property every provider
    shares, before and after repair (the verdict its headline shows)."""

    def __init__(
        self,
        model: RowModel,
        verdicts: dict[str, Judged] | None,
        error: str | None = None,
        pending: int = 0,
        shared: tuple[list[Breach], list[Breach]] | None = None,
    ) -> None:
        super().__init__()
        self.model = model
        self.verdicts = verdicts
        self.error = error
        self.pending = pending
        self.shared = shared


class ChecksOver(Message):
    """The run of the checks numbered ``run`` has ended, done or not."""

    def __init__(self, run: int) -> None:
        super().__init__()
        self.run = run


class ChecksKept(Message):
    """The checks of ``model``, done, to resume from after the file's next append."""

    def __init__(self, model: RowModel, checks: Checks | SentChecks) -> None:
        super().__init__()
        self.model = model
        self.checks = checks


def _still_same(same: int | None, kept: int | None) -> int | None:
    """How many messages at the start of a newly shown file are those of an earlier model, of
    which ``same`` were those of the model before (``kept``: how many of its messages the new one
    kept; ``None``: not known, or read again whole)."""
    return min(same, kept) if same is not None and kept is not None else None


class CheckFlow(App[None]):
    """The provider checks of :class:`~suture.tui.app.SutureApp` (a base of it: the state and
    handlers live on the app, where the rest of it and the tests read them)."""

    if TYPE_CHECKING:  # what the app that has this part gives it
        model: RowModel | None
        row_filter: str

        @property
        def view(self) -> TranscriptView: ...
        @property
        def status(self) -> StatusBar: ...
        @property
        def live(self) -> LiveFile: ...
        def _apply_filter(self) -> None: ...
        def _next_round(self, rows: list[int], step: int, what: str) -> tuple[int | None, str]: ...
        def _go_round(self, rows: list[int], step: int, what: str, plural: str) -> int | None: ...
        def refuse(self, action: str) -> bool: ...
        def take_down_not_ready(self) -> None: ...

    CHECKS_GROUP: ClassVar[str] = "checks"

    def new_checks(self) -> None:
        """The checks' state for a file not checked yet."""
        self.verdicts: dict[str, Judged] | None = None
        self.provider: str | None = None
        self.provider_picked = False
        self.shared: tuple[list[Breach], list[Breach]] | None = None
        """For a file written for no single provider: its breaches of the Valid property every
        provider shares, before and after repair (the headline unless ``p`` picks a provider)."""
        self.problem_rows: dict[int, list[Finding]] = {}
        """The rows the provider would reject (``x``, the problem filter), with what it says."""
        self.other_rows: dict[int, list[Finding]] = {}
        """The rows of what the problems list shows besides problems (a session log's notes of
        what its agent repairs itself, its contract view): where ``x`` goes when no row is a
        problem."""
        self.none_said = "no provider problems"
        """That the verdict shown finds no problem, in its words."""
        self.checks_pending = 0
        self._checks_timer: Timer | None = None
        self._checks_child: Apart[Any] | None = None
        self._checks_wanted = False
        self._checked: weakref.ref[RowModel] | None = None
        self.checks_error: str | None = None
        """Why the checks of the model shown could not be done (``None`` while they can)."""
        self._kept_checks: Checks | SentChecks | None = None
        """The checks of the last model checked whole, to resume from after an append."""
        self._kept_same: int | None = None
        """How many messages at the start of the file shown are those of the model checked
        (``None``: not known, or not the same file)."""
        self._verdict_same: int | None = None
        """How many messages at the start of the file shown are those of the model whose
        verdicts are shown (``None``: not known, or the file was read again whole since)."""
        self._shown_last: RowModel | None = None
        self._checking: weakref.ref[RowModel] | None = None
        """The model whose checks run now (``None``: none run)."""
        self._checking_same: int | None = None
        """How many messages at the start of the file shown are those of :attr:`_checking`
        (``None``: not known): what its checks, once kept, resume from."""
        self._checks_run = 0
        """The number of the latest run of the checks (:class:`ChecksOver` says which ended)."""
        self._start_due = False
        """Whether the checks of the model shown (:attr:`_start_latest`) are to start once those
        running now have ended."""
        self._start_latest: Callable[[], None] | None = None
        """What starts the checks of the model shown (:meth:`check_model`)."""
        self._checks_quiet = Quiet()
        self.verdict_behind = False
        """Whether the verdict shown is of an earlier state of the file than the one shown (the
        checks of what was written since are to come): the status line and the problems list's
        heading say so."""
        """The reloads that put the checks off (:data:`suture.tui.quiet.MOST_WAIT`)."""
        figures: Figures | None = getattr(self, "_figures", None)
        if figures is not None:
            figures.drop()
        self._figures: Figures | None = None
        """Where a resumed check's figure after repair is worked out, one child at a time (made
        with the first check: what it imports, the first frame does not wait for)."""

    @property
    def checks_settling(self) -> bool:
        """Whether the checks of the model shown wait for the file to be quiet (after a reload)."""
        return self._checks_timer is not None

    @property
    def checks_done(self) -> bool:
        """Whether the checks of the model shown are over: every provider's verdict is shown,
        or why there is none."""
        checked = self._checked() if self._checked is not None else None
        return checked is not None and checked is self.model and not self._checks_wanted

    def check_model(
        self, model: RowModel, at_once: bool, also: Callable[[weakref.ref[RowModel]], object] | None = None
    ) -> None:
        """Check ``model`` (shown now) in place of what was checked: once this screen is drawn
        (``at_once``: a first load, so the rows show first), else once the file has been quiet
        for :data:`CHECKS_SETTLE` seconds (a live session appends in bursts, and checks
        restarted on every line would slow every reload), at most
        :data:`suture.tui.quiet.MOST_WAIT` after the first reload not checked. Checks still running on an earlier state of the
        file, which ``model`` extends, are not stopped: they end, and the checks of ``model``
        start from where they stopped (each run then costs what was appended, and a file
        appended to faster than a run takes still gets its verdicts); at once where they end
        with the file grown past them, as their verdicts are not shown
        (:meth:`on_checks_over`). ``also(ref)`` is called at the same time, with the model by
        weak reference. A figure after repair worked out
        for the model before is left to end (:class:`~suture.tui.judged.Figures`) where this
        one resumes its checks: the next is worked out once it has, for the latest bytes."""
        self._follow(model)
        if at_once or self._checking_same is None:
            self.stop_checks(figures=at_once)
        elif self._checks_timer is not None:  # (the checks running go on)
            self._checks_timer.stop()
            self._checks_timer = None
        self._start_due = False
        ref = weakref.ref(model)
        self._checks_wanted = True

        def start() -> None:
            if self._start_latest is not start:
                return  # (the start of a state shown before: a first frame's, come late)
            self._checks_timer = None
            if self._checking is not None:  # (checks of an earlier state run: this starts as they end)
                self._start_due = True
                return
            checked = ref()
            if checked is None:  # (replaced before its checks began)
                return
            self._checks_wanted = False
            self._checks_quiet.done()
            resume = None
            if not at_once and self._kept_checks is not None and self._kept_same is not None:
                # Handed to the checks, which change it: it is kept again when they are done.
                resume = (self._kept_checks, self._kept_same)
            self._kept_checks = None
            if self._figures is None:
                from suture.tui.judged import Figures

                self._figures = Figures(lambda shown: shown is self.model)
            elif resume is None:  # (checked whole: its figure comes with its verdicts)
                self._figures.drop()
            self._checking, self._checking_same = ref, len(checked.transcript.messages)
            self._checks_run += 1
            self.run_checks(ref, resume, self._checks_run)
            if also is not None:
                also(ref)

        self._start_latest = start
        if not at_once and self.verdicts is not None and not self.verdict_behind:
            self.verdict_behind = True
            self._show_verdict()
        if at_once:
            self._checks_quiet.done()
            self.call_after_refresh(start)
        else:
            self._checks_timer = self.set_timer(self._checks_quiet.wait(CHECKS_SETTLE), start)

    def _follow(self, model: RowModel) -> None:
        """Keep count of how many messages at the start of ``model``'s file are those of the
        model last checked, and of the model whose checks run now: the least of what each model
        shown since kept of the one before."""
        grown = getattr(model, "grown_from", None)
        shown, self._shown_last = self._shown_last, model
        if model is shown:
            return
        extends = grown is not None and shown is not None and grown[0]() is shown
        kept = grown[1] if grown is not None and extends else None
        self._kept_same = _still_same(self._kept_same, kept)
        self._verdict_same = _still_same(self._verdict_same, kept)
        self._checking_same = _still_same(self._checking_same, kept)

    def stop_checks(self, figures: bool = True) -> None:
        """End the checks under way, their child process with them, and any about to start; and
        (``figures``) a figure after repair worked out and any asked for."""
        self.workers.cancel_group(self, self.CHECKS_GROUP)
        self._checking = self._checking_same = None
        self._start_due = False
        child, self._checks_child = self._checks_child, None
        if child is not None:
            child.end(wait=False)  # its worker reaps it; the drawing thread does not wait
        if self._checks_timer is not None:
            self._checks_timer.stop()
            self._checks_timer = None
        if figures and self._figures is not None:
            self._figures.drop()

    def on_unmount(self) -> None:
        self.stop_checks()

    @work(thread=True, exclusive=True, group="checks", exit_on_error=False)
    def run_checks(
        self, ref: weakref.ref[RowModel], resume: tuple[Checks | SentChecks, int] | None = None, run: int = 0
    ) -> None:
        """One provider at a time, each reported when done: the first shows while the rest run.
        The file's own provider goes first (a session log's: the one its agent talks to), as its
        verdict is the one the header shows; a file written for no single provider is headed by
        the Valid property every provider shares, worked out first. ``resume``: the checks of the
        model last checked and how many messages at the start of this one's file are its
        (:func:`~suture.tui.judged.judge_all`).

        The model comes by weak reference: a finished worker lives on in a reference cycle (with
        its context), and with the heap frozen that cycle is never collected. ``run``: the run's
        number, which :class:`ChecksOver` gives back once it has ended."""
        try:
            self._check(ref, resume)
        finally:
            self.post_message(ChecksOver(run))

    def _check(self, ref: weakref.ref[RowModel], resume: tuple[Checks | SentChecks, int] | None) -> None:
        """(In the checks' worker.) The work of :meth:`run_checks`."""
        from suture.checks import PROVIDERS
        from suture.formats import own_provider
        from suture.sent import models

        model = ref()
        if model is None:  # replaced before the checks began
            return
        worker = get_current_worker()
        order = list(PROVIDERS)
        own = own_provider(model.transcript)
        if own in order:
            order.remove(own)
            order.insert(0, own)
        shared = None
        valid: Valid | None = None
        if not own and model.transcript.format not in models():
            from suture.checks.resume import Checks, Valid

            # Resumed with the checks it was kept with: what was appended is checked, not the file.
            valid = resume[0].valid if resume is not None and isinstance(resume[0], Checks) else None
            same = resume[1] if resume is not None and valid is not None else 0
            valid = valid if valid is not None else Valid()
            shared = valid.check(model.transcript.messages, model.repair, same)
        found: dict[str, Judged] = {}

        def each(name: str, judged: Judged) -> None:
            found[name] = judged
            shown = {p: found[p] for p in PROVIDERS if p in found}
            coming = sum(1 for j in found.values() if j.figure_coming)  # (a figure after repair to come)
            self.post_message(Checked(model, shown, pending=len(order) - len(found) + coming, shared=shared))

        def started(child: Apart[Any]) -> None:
            if worker.is_cancelled:
                child.end(wait=False)
            else:
                self._checks_child = child

        try:  # (the bytes the session was read from, read only where a figure after repair needs them)
            shown = self.live.bytes_as_shown(model.transcript, most=WRITTEN_AT_LOAD)
        except RuntimeError:  # (no file open: nothing to read)
            shown = None
        data = shown.read if shown is not None else None
        try:
            kept = judge_all(
                model, tuple(order), each, lambda: worker.is_cancelled, started, resume, data, self._figures
            )
        except Exception as e:  # a check that breaks, or its process that dies, must not take the app down
            self.post_message(Checked(model, None, f"provider checks failed: {e}"))
            return
        if kept is not None and not worker.is_cancelled:
            if valid is not None and isinstance(kept, Checks):
                kept.valid = valid  # (kept with the checks it was worked out beside)
            self.post_message(ChecksKept(model, kept))

    def on_checks_kept(self, message: ChecksKept) -> None:
        if message.model is self.model and message.model is self._shown_last:
            self._kept_checks = message.checks
            self._kept_same = len(message.model.transcript.messages)
        elif self._checking is not None and message.model is self._checking() and self._checking_same is not None:
            # Checks of an earlier state of the file shown, which went on through its reloads.
            self._kept_checks = message.checks
            self._kept_same = self._checking_same

    def on_checks_over(self, message: ChecksOver) -> None:
        if message.run != self._checks_run:
            return  # a run stopped before the one running now began
        ran = self._checking() if self._checking is not None else None
        self._checking = self._checking_same = None
        due, self._start_due = self._start_due, False
        grown_past = ran is not None and ran is not self.model
        if not due and self._checks_timer is not None and grown_past and self._kept_checks is not None:
            # The run ended with every verdict (kept), but of a state the file has grown past,
            # so they are not shown: the latest's checks start now from them, for what was
            # appended meanwhile, not once the file is quiet (a file written to faster than a
            # run takes would never be shown one).
            self._checks_timer.stop()
            due = True
        if due and self._start_latest is not None:
            self._start_latest()

    def on_checked(self, message: Checked) -> None:
        if message.model is not self.model or panes_gone(self):
            return  # a stale result, or one that lands while the app is closing
        problems = self.screen_stack[0].query_one("#problems", ProblemList)
        self.take_down_not_ready()
        if message.verdicts is None:
            self.verdicts = None
            self.verdict_behind = False
            self.checks_pending = 0
            self._checked = weakref.ref(message.model)
            said = self.checks_error = message.error or "provider checks are not available"
            problems.empty = said
            problems.set_items([])
            status = self.status
            status.update_state(checks=(Text(said, status.part("error")), Text("checks failed", status.part("error"))))
            self.call_after_refresh(self.refresh_bindings)
            return
        if self.verdicts is None:
            self.call_after_refresh(self.refresh_bindings)  # p and x can act now: tell the footer
        self.verdicts = message.verdicts
        self._verdict_same = len(message.model.transcript.messages)
        self.verdict_behind = False
        self.checks_pending = message.pending
        self.checks_error = None
        if not message.pending:
            self._checked = weakref.ref(message.model)
            from suture.tui.app import freeze_heap

            freeze_heap()
        if not self.provider_picked:
            self.provider = self._provider_to_show(message.model, message.verdicts)
        self.shared = message.shared
        if not (self.provider in message.verdicts or (self.provider is None and self.shared is not None)):
            return  # the file's own provider's verdict is still to come
        self._show_verdict()
        model = message.model
        if not model.changed_rows and self.problem_rows and self.view.cursor == 0 and not self.provider_picked:
            # Nothing to repair but a provider would still say no: start where it would.
            self.view.select(min(self.problem_rows), center=True)

    @staticmethod
    def _provider_to_show(model: RowModel, found: dict[str, Judged]) -> str | None:
        """The provider whose verdict heads the app: the file's own, as ``suture scan`` and the
        sessions browser judge it (:func:`suture.formats.own_provider`; for a session log, the
        provider its agent talks to, as the library's verdict names it). ``None`` for a file
        written for no single provider (the Valid property every provider shares heads it) and
        while the own provider's verdict has not come."""
        own = next((j.sent.sent.provider for j in found.values() if j.sent is not None), None)
        if own in found:
            return own
        from suture.formats import own_provider

        own = own_provider(model.transcript)
        return own if own in found else None

    def _show_verdict(self) -> None:
        """The verdict that heads the app: the provider's shown (:attr:`provider`), or for a file
        written for no single provider with none picked, the Valid property every provider's
        rules share, as ``suture check`` and ``suture scan`` give it (``p`` picks either): in the
        status line, the problems list and its title, the info bar, and the rows ``x`` visits."""
        model = self.model
        if model is None:
            return
        items: list[Any]
        by_row: Mapping[int, Sequence[Finding | Breach]]
        from suture.tui.judged import NEVER, SEE, figure_clauses

        clauses: list[tuple[tuple[str, str], int]]
        """The headline's clauses (words, colour), each with when a narrow window leaves it out."""
        judged = self._judged_shown()
        if judged is not None:
            rows: dict[int, list[Finding]] = {}
            for finding in judged.problems:
                rows.setdefault(finding.row, []).append(finding)
            others: dict[int, list[Finding]] = {}
            for finding in judged.others:
                others.setdefault(finding.row, []).append(finding)
            none_said = judged.none_said()
            empty, agent, items, title = f"{self.provider}: no problems", judged.agent, judged.listed(), judged.title()
            by_row = judged.by_row
            if judged.session:
                style = "error" if judged.rejected else "ok"
            else:
                style = "error" if judged.broken_after else ("ok" if judged.rejected else "muted")
            clauses = [((words, style), rank) for words, rank in judged.headline()]
            strict = self._stricter_rejecting(judged)
            if strict is not None:  # accepted, but the stricter servers of the same API would not
                from suture.sent import stricter_words

                them = "it" if len(strict.problems) == 1 else "them"
                said = stricter_words(strict.provider, count(len(strict.problems), "problem"))
                empty += f" ({said}; p shows {them})"
                title += f" · {strict.provider} rejects it"
                clauses += [((f" ({said}", "error"), NEVER), ((f"; p shows {them}", "error"), SEE)]
                clauses.append(((")", "error"), NEVER))
        elif self.provider is None and self.shared is not None:
            before, after = self.shared
            rows = {model.row_of_input[b.index]: [] for b in before if b.index < model.inputs}
            others, none_said = {}, f"{SHARED}: no problems by suture's property, stricter than any one provider"
            said = shared_summary(self.shared)
            empty = f"{said} by suture's property, stricter than any one provider (p: one provider's own rules)"
            # Listed in the order of their rows, as the panes read them (a breach on a message
            # not shown yet, last).
            listed = sorted(before, key=lambda b: model.row_of_input[b.index] if b.index < model.inputs else len(model))
            agent, items, title = "", listed, f"Problems: {SHARED} {len(before)} → {len(after)}"
            breaches: dict[int, list[Finding | Breach]] = {}
            for breach in before:
                if breach.index < model.inputs:
                    breaches.setdefault(model.row_of_input[breach.index], []).append(breach)
            by_row = breaches
            style = "error" if after else ("ok" if before else "muted")
            clauses = [((words, style), rank) for words, rank in figure_clauses(said)]
        else:
            return
        if self.verdict_behind and self._verdict_same is None:
            # The file was read again whole (a compaction, a rewrite) since the verdict shown:
            # its findings name rows that hold other messages now, or none. Its headline stays,
            # said to be behind; its findings wait for the checks of the file as read again.
            rows, others, by_row, items = {}, {}, {}, []
            empty = none_said = "checking the file as read again…"
        if (bool(rows), bool(others)) != (bool(self.problem_rows), bool(self.other_rows)):
            self.call_after_refresh(self.refresh_bindings)  # (x acts, or not; the key bar says what it does)
        self.problem_rows = rows
        self.other_rows = others
        self.none_said = none_said
        if self.row_filter == "problems":
            self._apply_filter()
        problems = self.query_one("#problems", ProblemList)
        problems.empty = empty
        problems.agent = agent
        problems.set_items(items)
        self.query_one("#problems-title", Static).update(f"{title} · checking…" if self.verdict_behind else title)
        self._show_headline(clauses)
        self._show_findings(by_row, agent)

    def _show_headline(self, clauses: list[tuple[tuple[str, str], int]]) -> None:
        """The verdict's ``clauses`` (and how many verdicts are still to come) in the status line,
        longest first (it says the longest that fits): the same sentence at every width, clauses
        left out in a fixed order where it does not fit (:func:`suture.tui.judged.cut`)."""
        from suture.tui.judged import COMING, NEVER, cut

        if self.verdict_behind:  # (of the file before its last writes: their checks are to come)
            clauses = [*clauses, (("  (checking new lines…)", "muted"), NEVER)]
        elif self.checks_pending:  # (a provider still checked, or a figure after repair still worked out)
            coming = f": {count(self.checks_pending, 'more verdict')} to come"
            clauses = [
                *clauses,
                (("  (checking", "muted"), NEVER),
                ((coming, "muted"), COMING),
                (("…)", "muted"), NEVER),
            ]
        status = self.status
        status.update_state(checks=tuple(_said_in(form, status) for form in cut(clauses)))

    def _show_findings(self, by_row: Mapping[int, Sequence[Finding | Breach]], agent: str) -> None:
        """The verdict's findings where the rows are told of (the info bar), and the banner
        again: what it says of an error not about the history depends on the verdict."""
        info = self.query_one("#info", InfoBar)
        info.findings = by_row
        info.agent = agent
        info.refresh()
        for banner in self.screen_stack[0].query_children(Banner):
            if banner.verdict_said():
                banner.refresh(layout=True)

    def _judged_shown(self) -> Judged | None:
        """The verdict of the provider shown (:attr:`provider`), once its check is in."""
        verdicts, provider = self.verdicts, self.provider
        return verdicts.get(provider) if verdicts is not None and provider is not None else None

    def history_rejected(self) -> bool:
        """Whether the provider shown would reject the history: what the agent sends on resume
        (a session log), or the file as it is (any other)."""
        judged = self._judged_shown()
        return judged is not None and judged.rejected

    def _stricter_rejecting(self, judged: Judged) -> SentVerdict | None:
        """Where ``judged`` accepts what a session sends, the verdict of the stricter servers of the
        same API that would not (:func:`suture.sent.stricter`, from the verdicts already made)."""
        from suture.checks import STRICTER

        strict = self.verdicts.get(STRICTER.get(judged.provider, "")) if self.verdicts is not None else None
        if judged.rejected or strict is None or strict.sent is None or not strict.sent.rejected:
            return None
        return strict.sent

    def _findings_at(self, row: int) -> tuple[list[Finding | Breach], str]:
        """What the verdict shown says about a row (the line under the panes says it too): the
        provider's findings, or the breaches of the Valid property every provider shares; and
        the agent's name."""
        info = self.screen_stack[0].query_one("#info", InfoBar)
        return list(info.findings.get(row, [])), info.agent

    def action_pick_provider(self) -> None:
        if self.refuse("pick_provider") or self.verdicts is None:
            return
        choices: list[tuple[str, tuple[str, ...]]] = [
            (name, verdict.forms()) for name, verdict in self.verdicts.items()
        ]
        if self.shared is not None:  # a file written for no single provider: its headline, first
            from suture.tui.judged import NOTE, cut, figure_clauses

            clauses = [*figure_clauses(shared_summary(self.shared)), (" (suture's property)", NOTE)]
            choices.insert(0, (SHARED, tuple("".join(form) for form in cut(clauses))))
        if self.checks_pending:
            self.notify(f"{count(self.checks_pending, 'verdict')} still to come: the checks are running", markup=False)
        self.push_screen(ProviderScreen(choices, self.provider or SHARED), self._picked)

    def _picked(self, provider: str | None) -> None:
        if provider == SHARED and self.shared is not None:
            self.provider = None
        elif provider and self.verdicts and provider in self.verdicts:
            self.provider = provider
        else:
            return
        self.provider_picked = True
        self._show_verdict()

    def action_problem(self, step: int) -> None:
        """The next row with a provider problem (``step`` 1) or the one before (-1), round past
        the last (the first); where there is none, the next row of what the problems list shows
        besides (the notes of what a session's agent repairs itself, the contract view), saying
        that it is not a problem and what is there."""
        if self.refuse("problem"):
            return
        if self.problem_rows:
            row = self._go_round(sorted(self.problem_rows), step, "problem", "problems")
            if row is not None:
                self._sync_problems(row, self.problem_rows[row])
            return
        rows = sorted(self.other_rows)
        row, note = self._next_round(rows, step, "listed item")
        if row is None:
            self.notify(f"{self.none_said}; no item listed is among the rows shown (esc shows every row)", markup=False)
            return
        here = self.other_rows[row]
        agent = self.query_one("#problems", ProblemList).agent or "the agent"
        from suture.tui.judged import AGENT

        fixes = sum(f.kind == AGENT for f in here)
        parts = [f"{count(fixes, 'thing')} {agent} repairs itself"] if fixes else []
        if len(here) > fixes:
            parts.append(f"{count(len(here) - fixes, 'item')} of the {CONTRACT}")
        said = f"{self.none_said}; listed here ({rows.index(row) + 1}/{len(rows)}): {', '.join(parts)}"
        self.notify(said + (f"; {note}" if note else ""), timeout=4, markup=False)
        self.view.select(row, center=True)
        self._sync_problems(row, here)

    def _sync_problems(self, row: int, here: Sequence[Finding]) -> None:
        """Put the problems list's cursor on the first item of ``row``, the row ``x`` went to
        (one of its findings ``here``, or a breach of the Valid property every provider shares
        on it), without moving the panes."""
        from suture.tui.judged import Finding

        problems = self.query_one("#problems", ProblemList)
        model = self.model
        for k, item in enumerate(problems.items):
            if isinstance(item, Finding):
                found = item in here
            elif isinstance(item, Breach) and model is not None:
                found = item.index < model.inputs and model.row_of_input[item.index] == row
            else:
                found = False
            if found:
                problems.sync_to(k)
                return
