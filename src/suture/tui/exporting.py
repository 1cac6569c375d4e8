"""The export flow of :class:`~suture.tui.app.SutureApp`: ``e`` asks what to write and where,
confirms before it overwrites a file (the opened file keeps a copy beside it), and writes what
``suture repair`` writes, atomically, from the file as it is when written.

:class:`ExportFlow` is a part of the app (the app inherits it); it keeps the one piece of state the
export carries from one question to the next, the format last chosen.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
from textual import work
from textual.app import App
from textual.message import Message

from suture import codec, show
from suture._deferred import deferred
from suture.io import InputError, backup_name, output_target, same_file, write_atomic, write_files
from suture.live import LiveFile, Update
from suture.model import Transcript
from suture.repair import Repair
from suture.words import count

if TYPE_CHECKING:
    from suture.tui.judged import Judged
    from suture.tui.rows import RowModel
    from suture.tui.screens import ConfirmScreen, ExportOption, ExportScreen
else:  # the export's screens, imported when an export is asked for
    ConfirmScreen = deferred("suture.tui.screens", "ConfirmScreen")
    ExportOption = deferred("suture.tui.screens", "ExportOption")
    ExportScreen = deferred("suture.tui.screens", "ExportScreen")

__all__ = ["ExportFlow", "Exported", "default_export_path"]


def default_export_path(path: Path, folder: Path | None = None) -> Path:
    """``<stem>.repaired<suffix>`` beside the input (or in ``folder``), or in the current folder
    where the input's folder cannot be written or is an agent's own folder of sessions: a copy
    there, with the session's id, would be listed by the agent as a second session."""
    where = folder or path.parent
    if folder is None and (not os.access(where, os.W_OK) or _in_agent_sessions(path)):
        where = Path.cwd()
    return where / f"{path.stem}.repaired{path.suffix}"


def _in_agent_sessions(path: Path) -> bool:
    """Whether ``path`` is under a folder Claude Code, Codex or pi keeps its sessions in."""
    from suture.sessions import agent_places

    resolved = path.resolve()
    return any(resolved.is_relative_to(place.root.resolve()) for place in agent_places())


class Exported(Message):
    """An export ended: the file written (with what else was written, such as the copy of the
    original), or why nothing was. ``over_input``: the file written is the one shown, read again
    before this is posted (the view shows it as it is now). ``rejected``: what the provider of the request body written
    would reject in it, as ``suture repair`` warns it (:func:`suture.checks.rejected_words`);
    empty where nothing, or for a session. ``again``: where the write itself failed, what asks
    the export dialog again with what was typed and why nothing was written under it."""

    def __init__(
        self,
        path: Path | None,
        error: str | None,
        notes: tuple[str, ...] = (),
        over_input: bool = False,
        rejected: str = "",
        again: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        self.path = path
        self.error = error
        self.notes = notes
        self.over_input = over_input
        self.rejected = rejected
        self.again = again


class ExportFlow(App[None]):
    """Export the repaired transcript (``e``)."""

    _export_choice: str
    """The format the last export chose to write (a session log, or its request body)."""
    _export_said: tuple[str, ...] = ()
    """What the last export chose says of itself (a session: written unchanged, what is left to
    its agent), for the note when it is written."""
    _export_rejected: str | None = None
    """What the last export chose says a provider would reject in it, where worked out with it."""
    _written_over = False
    """The state shown next is the file an export has just written over the input: the view
    keeps the place by the Repaired pane's message, and the reload note says what it is."""

    if TYPE_CHECKING:  # what the export uses of the app
        model: RowModel | None
        shown_version: int
        export_dir: Path | None
        provider: str | None
        verdicts: dict[str, Judged] | None

        @property
        def path(self) -> Path: ...

        @property
        def live(self) -> LiveFile: ...

        def _post_loaded(self, update: Update, initial: bool = False) -> None: ...

        def refuse(self, action: str) -> bool: ...

    def action_export(self) -> None:
        if self.refuse("export") or self.model is None:
            return
        if self.model.partial:
            self.notify("the file is still being read: the export opens once it is read whole", markup=False)
        self.prepare_export(self.shown_version)

    def _latest(self) -> Update:
        """(In a worker.) The file's state now, checked whole against the disk; a newer state
        than the one shown is shown too."""
        update = self.live.poll(verify=True)
        if update.kind in ("full", "append"):
            self._post_loaded(update)
        return update

    def _unreadable(self, update: Update) -> str:
        return f"{show.path(self.path)} cannot be read now ({show.line(update.error or '')})"

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def prepare_export(self, shown: int) -> None:
        """The bytes to write, made once from the file as it is now (an export never writes a
        version older than the file without saying so): the export writes exactly what
        ``suture repair`` does."""
        update = self._latest()
        if update.transcript is None or update.repair is None:
            self.post_message(Exported(None, self._unreadable(update)))
            return
        options = self._export_options(update)
        stale = None
        if update.kind == "error":
            stale = f"{self._unreadable(update)}: this is the last version that could be read, older than the file."
        elif update.version != shown:
            stale = "The file changed on disk since it was shown: this is its current version, now shown."
        self.call_from_thread(self._ask_export, options, update.version, stale)

    def _export_options(self, update: Update) -> list[ExportOption]:
        """(In a worker.) What the export can write, each made now, as ``suture repair`` makes
        it: for a session log its agent resumes, the session (the default), then its request
        body; for any other file, the file's own format."""
        from suture.writeback import export_choices, writes_back

        transcript, repaired = update.transcript, update.repair
        assert transcript is not None and repaired is not None
        data, cut = self._bytes_read(transcript, update.pending_line)
        default = default_export_path(self.path, self.export_dir)
        options: list[ExportOption] = []
        if data is None and writes_back(transcript.format):  # said, not left out without a word
            options.append(_not_written_back(transcript, default))
        for choice in export_choices(transcript, repaired, data, str(self.path)):
            try:
                made: bytes | None = choice.bytes()
                error = None
            except InputError as e:  # a format that cannot write this history says why
                made, error = None, show.line(str(e))
            except Exception:  # never a traceback's words in the dialog
                made, error = None, f"suture could not make it from this history ({_REPORT})"
            session = choice.format == transcript.format and writes_back(choice.format)
            suffix = choice.suffix if session or made is None else _suffix_for(made, default.suffix)
            target = default.with_suffix(suffix) if default.suffix.lower() in (".json", ".jsonl") else default
            said = tuple(show.line(line) for line in choice.said()) if made is not None else ()
            what = _export_words(transcript, choice.label, choice.resume, session)
            if said:  # what this file gets: "Claude Code session written unchanged", what is left to it
                what += f" For this file: {'; '.join(said)}."
            unreadable = len(transcript.problems)
            if unreadable:  # a session is edited where the repair changes it: its other lines stay
                lines = count(unreadable, "unreadable line")
                what += (
                    f" {lines} {'stays' if unreadable == 1 else 'stay'} as written, as every line the repair does not change."
                    if session
                    else f" {lines} {'is' if unreadable == 1 else 'are'} left out, as with --skip-bad-lines."
                )
            if cut is not None and made is not None:  # said in the dialog, and once written
                what += f" {cut[0]}"
                said += (cut[1],)
            rejected = None
            if made is not None:  # said before it is written, where the check is quick
                # (A session's is worked out once written: it takes the session read again.)
                rejected = None if session else rejected_in(transcript, repaired, choice.format, WARNED_IN_DIALOG)
                what += f" {show.line(rejected)}." if rejected else ""  # (it quotes the history)
            options.append(ExportOption(choice.label, what, target, choice.format, made, error, said, rejected))
        return options

    def _bytes_read(self, transcript: Transcript, pending: int | None) -> tuple[bytes | None, tuple[str, str] | None]:
        """(In a worker.) The bytes ``transcript`` was read from, where the file still holds
        them (``None`` where it holds something else now, or cannot be read): what a session is
        written back over. A last line still being written is no part of them, as it is no part
        of the view: the export leaves it out, and the sentence returned says so (``suture
        repair`` refuses the file while it is cut off): in the dialog, and in the note once
        written."""
        data = self.live.read_as_shown(transcript)  # (without that line)
        if data is None or pending is None:
            return data, None
        return data, (
            f"Line {pending} of the file is still being written: it is left out, as the view leaves "
            "it out (suture repair refuses the file while its last line is cut off); export again "
            "once it is complete to have it in.",
            f"line {pending} left out: still being written",
        )

    def _ask_export(
        self,
        options: list[ExportOption],
        version: int,
        stale: str | None,
        answer: tuple[str, int] | None = None,
        why: str = "",
    ) -> None:
        """The export dialog; asked again (``answer``: what was typed and chosen) with ``why``
        under the path where a target is refused or an overwrite declined, so nothing typed is
        lost."""
        # (First asked: the first choice that can be written, the session where it can.)
        first = next((k for k, option in enumerate(options) if option.error is None), 0)
        path, chosen = answer if answer is not None else (None, first)
        if answer is not None and path == str(options[chosen].target):
            path = None  # the path offered, shown as the dialog shows it
        self.push_screen(
            ExportScreen(options, stale or "", path=path, chosen=chosen, why=why),
            lambda answer: self._export_to(answer, options, version),
        )

    def _export_to(self, answer: tuple[str, int] | None, options: list[ExportOption], version: int) -> None:
        if not answer:
            self.notify("not exported", markup=False)
            return
        path, chosen = answer
        data = options[chosen].data
        self._export_choice = options[chosen].format
        self._export_said = options[chosen].said
        self._export_rejected = options[chosen].rejected
        target = Path(os.path.expanduser(path))
        if not target.is_absolute():
            target = (self.export_dir or Path.cwd()) / target
        if target.is_dir():  # a folder: the name offered, in it (as cp writes into a folder)
            name = options[chosen].target.name
            self._export_said = (
                *self._export_said,
                f"{show.path(path)} is a folder: written in it as {show.path(name)}",
            )
            target = target / name
        try:
            output_target(target)  # a folder, a missing folder, a socket: said now, before any question
        except InputError as e:  # said in the dialog, asked again with what was typed
            self._ask_export(options, version, None, answer, f"Nothing written: {show.line(str(e))}")
            return

        def declined() -> None:
            self._ask_export(options, version, None, answer, f"Not overwritten: {show.path(target)} is as it was.")

        def failed(why: str) -> None:  # the write itself failed: said in the dialog, asked again
            self._ask_export(options, version, None, answer, f"Nothing written: {why}")

        is_input = same_file(target, self.path)
        if is_input:
            question = (
                f"{show.path(target)} is the file you opened. Overwrite the input with the repaired transcript? "
                f"A copy of the original is kept beside it ({show.path(os.path.basename(backup_name(target)))}), as suture "
                "repair --in-place keeps one."
            )
            self.push_screen(
                ConfirmScreen(question, yes="Overwrite the input"),
                lambda yes: self._confirmed(yes, target, data, version, declined=declined, again=failed),
            )
        elif target.exists():
            question = (
                f"{show.path(target)} exists. Overwrite it? A copy of it is kept beside it "
                f"({show.path(os.path.basename(backup_name(target)))}), as when an export replaces the input."
            )
            self.push_screen(
                ConfirmScreen(question),
                lambda yes: self._confirmed(yes, target, data, version, declined=declined, again=failed),
            )
        else:
            self.write_export(target, data, version, again=failed)

    def _confirmed(
        self,
        yes: bool | None,
        target: Path,
        data: bytes | None,
        version: int,
        force: bool = False,
        declined: Callable[[], None] | None = None,
        again: Callable[[str], None] | None = None,
    ) -> None:
        """Write on yes (a failed write asks ``again``); on no, the dialog again (``declined``),
        or nothing exported."""
        if yes:
            self.write_export(target, data, version, force, again)
        elif declined is not None:
            declined()
        else:
            self.notify("not exported", markup=False)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def write_export(
        self,
        target: Path,
        data: bytes | None,
        version: int,
        force: bool = False,
        again: Callable[[str], None] | None = None,
    ) -> None:
        """Write ``data``, made from state ``version``, if the file still is that version (else
        ask first). ``data`` None: make it now, from the file's current state. ``force``: write
        even though the file cannot be read now (the person said yes to that). ``again``: where
        the write fails, what asks the dialog again with why (else the failure is a toast)."""
        update = self._latest()
        if data is None:
            if update.transcript is None or update.repair is None:
                self.post_message(Exported(None, self._unreadable(update)))
                return
            # What was chosen, made again from the file's current state.
            options = self._export_options(update)
            option = next((o for o in options if o.format == self._export_choice), options[0])
            if option.data is None:
                self.post_message(Exported(None, option.error or "nothing to write"))
                return
            data = option.data
            self._export_said = option.said
            self._export_rejected = option.rejected
            version = update.version
        if update.kind == "error" and not force:
            question = f"{self._unreadable(update)}. Write the version read before, older than the file?"
            self.call_from_thread(self._ask_again, question, "Write it anyway", target, data, version, True, again)
            return
        if update.kind != "error" and update.version != version:
            question = (
                f"{show.path(self.path)} changed on disk while you were exporting; the view now shows it. "
                f"Export its current version to {show.path(target)}?"
            )
            self.call_from_thread(
                self._ask_again, question, "Export the current version", target, None, 0, False, again
            )
            return
        try:
            replace = same_file(target, self.path)
            notes = (
                self._replace_keeping(target, data, replace)
                if replace or target.is_file()
                else write_atomic(target, data)
            )
        except Exception as e:  # an export that fails must say why, never crash the app
            said = str(e) if isinstance(e, InputError) else f"{show.path(target)}: {getattr(e, 'strerror', None) or e}"
            self.post_message(Exported(None, said, again=again))
            return
        shown = False
        if replace:  # the view shows the file as it is now: what was written, as the Original
            self._written_over = True
            read = self.live.poll(whole=True)
            self._post_loaded(read)
            shown = read.kind != "error"  # (else the status line says why it cannot be read)
        said = self._rejected(update, data)
        self.post_message(Exported(target, None, (*self._export_said, *notes), shown, said))

    def _rejected(self, update: Update, data: bytes) -> str:
        """(In a worker.) What the provider of the request body just written would reject in it,
        or in what the agent sends from the session written back (``data``, what was written),
        as ``suture repair`` warns it: as worked out with the option chosen, else now
        (:func:`rejected_in`)."""
        transcript, repaired = update.transcript, update.repair
        if self._export_rejected is not None:
            return self._export_rejected
        if transcript is None or repaired is None:
            return ""
        return rejected_in(transcript, repaired, self._export_choice, made=data) or ""

    def _replace_keeping(self, target: Path, data: bytes, is_input: bool) -> list[str]:
        """(In a worker.) Replace ``target`` (the opened file, or another file the person said
        yes to overwriting: a session log of another agent, maybe) with ``data`` after keeping a
        copy of it beside it, both written as one atomic step, as ``suture repair --in-place``
        does."""
        original = target.read_bytes()
        backup = backup_name(target)
        if is_input:
            self.live.ignore(data)
        notes = write_files([(output_target(backup), original), (output_target(target), data)])
        kept = "the original" if is_input else "what it held"
        return [f"{kept} is kept as {show.path(backup)}", *notes]

    def _ask_again(
        self,
        question: str,
        yes: str,
        target: Path,
        data: bytes | None,
        version: int,
        force: bool,
        again: Callable[[str], None] | None = None,
    ) -> None:
        self.push_screen(
            ConfirmScreen(question, yes=yes),
            lambda said: self._confirmed(said, target, data, version, force, again=again),
        )

    def on_exported(self, message: Exported) -> None:
        self._written_over = False  # (the file read after it was written is shown by now, or was as shown)
        if message.error and message.again is not None:  # the dialog again, with what was typed
            message.again(show.line(message.error))
        elif message.error:
            self.notify(show.line(message.error), title="export failed", severity="error", markup=False)
        else:
            said = f"wrote {show.path(message.path or '')}"
            if message.notes:
                said += "; " + "; ".join(show.line(note) for note in message.notes)
            if message.over_input:  # read again: the panes no longer show the file as it was
                said += "; the view shows it as it now is: the Original pane holds what was written"
            if message.rejected:  # said as suture repair warns it, and marked as a warning
                said += f"; {show.line(message.rejected)}"
            shown = self._shown_still_rejects()
            if shown:
                said += f"; {shown}"
            warned = bool(message.rejected or shown)
            self.notify(said, title="exported", severity="warning" if warned else "information", markup=False)

    def _shown_still_rejects(self) -> str:
        """What the provider shown in the header (picked with ``p``) would still reject in the
        repaired history just written as a request body, where the body is not for it (the one
        it is for is warned of as ``suture repair`` warns it): the figure after repair the
        header gives, so the export's word does not leave it out."""
        from suture.formats import provider_of

        provider, verdicts = self.provider, self.verdicts
        judged = verdicts.get(provider) if verdicts is not None and provider is not None else None
        if judged is None or judged.session or provider == provider_of(self._export_choice):
            return ""
        after = len(judged.contract.after)
        return f"{provider}, shown, would still reject it: {count(after, 'problem')} after repair" if after else ""


def rejected_in(
    transcript: Transcript, repaired: Repair, body: str, most: int | None = None, made: bytes | None = None
) -> str | None:
    """What the provider of a request body in the format ``body`` would reject in the repaired
    history, in the words ``suture repair`` warns with (:func:`suture.checks.rejected_words`);
    for a session written back (``made``, its bytes), what its provider would reject in what its
    agent sends on resume from it, as ``suture repair`` warns that. Empty for a format written
    for no one provider, or nothing found; ``None`` for a history of more than ``most`` messages,
    not checked (the dialog does not wait for a long check)."""
    from suture.formats import own_provider, provider_of
    from suture.writeback import AGENTS, writes_back

    session = body == transcript.format and writes_back(body)
    provider = own_provider(transcript) if session else provider_of(body)
    if not provider or (session and made is None):
        return ""
    if most is not None and len(repaired.messages) > most:
        return None
    from suture.checks import check, rejected_words

    if made is not None and session:
        from suture.scan import read_back, sent_problems

        found = sent_problems(read_back(body, made), provider)
    else:
        found = check(repaired.messages, provider, repaired=True)
    return rejected_words(found, AGENTS.get(transcript.format, ""), session) if found else ""


_REPORT = "a fault in suture; please report it with the file"


def _not_written_back(transcript: Transcript, target: Path) -> ExportOption:
    """The session choice where the file no longer holds the bytes the view was read from: a
    session is written back over those bytes, so it cannot be written now (the request body,
    made from the history read, still can)."""
    from suture.sent import agent_name

    what = (
        "A session is written as the file it was read from, with the repair written in, and the "
        "file has changed or cannot be read since: export again once it reads as a session. What "
        "else is offered is made from the version read."
    )
    label = f"{agent_name(transcript.format)} session"
    why = "the file no longer holds what was read"
    return ExportOption(label, what, target.with_suffix(".jsonl"), transcript.format, None, why)


WARNED_IN_DIALOG = 20_000
"""Messages up to which the export dialog says, before anything is written, what the provider of
a request body would reject in it (a check of the whole history); a longer history's export says
it once written."""


def _export_words(transcript: Transcript, label: str, resume: str | None, session: bool) -> str:
    """What an export option writes, in words a person can act on."""
    from suture.sent import agent_name, models

    if session:
        who = agent_name(transcript.format)
        how = f" (`{show.line(resume)}`)" if resume else ""
        return (
            "Writes the session file with the repair written into it; every line the repair does not change "
            f"stays as written. {who} resumes it{how} once it replaces the session file: export over the "
            "input, or suture repair --in-place, which keeps a copy."
        )
    if transcript.format in models():
        return (
            f"Writes the repaired history (the Repaired pane) as {show.line(label)}, for a provider or "
            f"another tool: not a session {agent_name(transcript.format)} can resume."
        )
    return f"Writes the repaired transcript (the Repaired pane) as {show.line(label)}, as suture repair does."


def _suffix_for(data: bytes, suffix: str) -> str:
    """``.json`` or ``.jsonl`` by what the bytes are, where the input's suffix says the other one
    (a JSONL session log is sent, and so exported, as one JSON document); else ``suffix``."""
    if suffix.lower() not in (".json", ".jsonl"):
        return suffix
    try:
        codec.loads(data)
    except orjson.JSONDecodeError:
        return ".jsonl"
    # One line of JSON is a one-line JSONL file as well: keep what the input said.
    return ".json" if data.rstrip(b"\n").count(b"\n") else suffix
