"""``suture repair IN... [-o OUT | --out-dir DIR | --in-place]``: write repaired transcripts, say what changed.

One input: the repaired transcript goes to OUT (stdout by default) and one summary line to
stderr. Several inputs, or a folder (its ``.json`` and ``.jsonl`` files): each is written to
``DIR/<name>`` in its own format, work spread over the machine's cores, one line per file on
stderr in input order. A bad input is named on its own line and makes the exit code 2; the
other files are still written.

A session log (Claude Code, Codex, pi) is written back as a session log of its agent, a minimal
edit the agent resumes (``suture.writeback``); ``--to FORMAT`` writes a request body instead. A
request body is checked by the rules of the provider it is written for (on a thread, while it is
written): what that provider would still reject is one warning line, the exit code stays 0.
Where the input was already valid (``suture check``) and the contract still changed it, the
summary says which rules did.
No input file is ever written, except with ``--in-place``: the input is then replaced
atomically, after a copy of it is kept beside it (its name is printed).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from suture import show
from suture.cli import EXIT_BAD_INPUT, EXIT_OK
from suture.cli._common import (
    STDIN,
    bad_lines_json,
    err,
    input_path,
    made_up,
    name_of,
    read_strict,
    summary_line,
    unmade,
    unmade_json,
)
from suture.io import InputError, Target, backup_name, file_key, output_target, same_file, write_files
from suture.repair import Change, ChangeKind, Repair
from suture.words import count

if TYPE_CHECKING:
    from suture.checks import Violation
    from suture.model import Transcript
    from suture.writeback import Written

NAMES = ("repair",)
ORDER = 20

# Files a folder given as input contributes (format detection itself is by content).
_TRANSCRIPT_SUFFIXES = (".json", ".jsonl")

_WARNING = "suture: warning: "
"""How a warning line begins (the exit code stays 0)."""


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="write the repaired transcript (stdout by default) and a summary of changes to stderr",
        description=(
            "Repair transcripts by suture's contract and write each in its input's format: a Claude Code, "
            "Codex or pi session is written back as a session its agent resumes, with only what the repair "
            "changes edited. A one-line summary of the changes goes to stderr. Input files are never written "
            "(unless --in-place). With several inputs, or a folder (its .json and .jsonl files), pass --out-dir."
        ),
    )
    p.add_argument(
        "input",
        metavar="IN",
        nargs="+",
        type=input_path,
        help="transcript file, or a folder of them ('-': standard input)",
    )
    p.add_argument("-o", "--output", metavar="OUT", help="where to write one input (default: stdout; '-' is stdout)")
    p.add_argument(
        "--in-place",
        action="store_true",
        help="replace the input with its repair (atomically), after keeping a copy of it beside it as NAME.bak",
    )
    p.add_argument("--out-dir", metavar="DIR", help="write each repaired input to DIR/<its name> (created if missing)")
    p.add_argument(
        "--read-only",
        metavar="NAME,...",
        default="",
        help="tools that only read: their interrupted calls are marked safe to run again",
    )
    p.add_argument(
        "--report",
        metavar="PATH",
        help="write a JSON report of every change to PATH; with several inputs (or when PATH is a folder), "
        "PATH is a folder holding <name>.report.json per input",
    )
    p.add_argument("--format", metavar="NAME", help="the input's format (default: detect from content)")
    p.add_argument(
        "--to",
        metavar="FORMAT",
        help=(
            "write in this format instead of the input's (a session log: its request body, e.g. --to messages; "
            "suture formats lists what each format is written as)"
        ),
    )
    p.add_argument("--skip-bad-lines", action="store_true", help="repair the readable lines of a damaged JSONL file")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(run=run)


def read_only_set(spec: str) -> frozenset[str]:
    return frozenset(n.strip() for n in spec.split(",") if n.strip())


@dataclass(frozen=True, slots=True)
class _Job:
    """One input to repair and where its results go (``None`` output: stdout)."""

    input: str
    output: str | None
    report: str | None
    format: str | None
    to: str | None
    read_only: frozenset[str]
    skip_bad_lines: bool
    in_place: bool = False
    other: str | None = None
    """With --out-dir and --to: the output's name with the other ending of .json and .jsonl,
    where the output goes when what is written is the other (a session log's request body)."""


@dataclass(frozen=True, slots=True)
class _Done:
    """What a job has to say: warnings and its summary, or the one-line error that stopped it."""

    lines: tuple[str, ...]
    error: str | None = None


def _report_bytes(report: dict[str, Any]) -> bytes:
    return show.dumps(report)


def _repair_one(job: _Job) -> tuple[list[str], str, list[str]]:
    """Repair one input and write its outputs. Returns the warnings (each a whole line), the
    summary, and notes on what a session log written back leaves to its agent (the summary and
    the notes each without ``suture:``, which names the input where there are several).

    Both outputs are made before either is written, and written together (:func:`write_files`):
    a report that cannot be written leaves no repaired file behind."""
    from suture.formats import dump, export_name, not_written, reordered_turns, written_formats
    from suture.repair import repair
    from suture.writeback import resume_command, write_back, writes_back, written_as

    warnings: list[str] = []
    before = _stat(job.input) if job.in_place else None
    data, transcript = read_strict(job.input, job.format, job.skip_bad_lines, warnings.append)
    if job.in_place and job.to not in (None, transcript.format):
        raise InputError(
            f"--in-place keeps the file's format and --to {job.to} converts it; write the conversion with -o"
        )
    if job.to and job.to not in written_formats(transcript.format):
        raise InputError(not_written(job.to, transcript.format, "--to NAME"))
    names = job.read_only
    result = repair(transcript.messages, names.__contains__ if names else None)
    report = result.report()
    written = None
    checking: Callable[[], list[Violation]] | None = None
    if writes_back(transcript.format) and job.to in (None, transcript.format):
        written = write_back(data, transcript, result)  # (over its whole lines: not a line cut off)
        out, what = written.data, written_as(transcript.format)
        if written.ids:
            # The report is of the file written: a call written under another id is named by it.
            report["changes"] = [_as_written(c, transcript, written.ids) for c in result.changes]
            report["interrupted"] = [written.ids.get(i, i) for i in report["interrupted"]]
        report["written"] = written.to_json()
        # (A Codex turn's outputs moved up to its last call: the same as a Responses export's.)
        reordered = reordered_turns(result.messages, transcript)
        checking = _check_session(transcript, written)
    else:
        body = job.to or export_name(transcript)
        out, what = dump(result.messages, transcript, job.to, data), written_as(body)
        reordered = reordered_turns(result.messages, transcript, job.to)
        checking = _check_body(result, body)
    # A session the repair leaves as it is may still be edited for its agent: not "no changes".
    unchanged = "the history needs no repair" if written is not None and written.changed else "no changes needed"
    made = _unmade_report(report, transcript, job.to if written is None else None, written is None)
    summary = summary_line(result, transcript.messages, reordered, unchanged, _called(transcript, made, written))
    if not writes_back(transcript.format):
        summary += _valid_before(result, transcript)
    notes: list[str] = []
    if written is not None:
        summary, notes = written.report(summary, bool(result.changes or reordered))
    summary += _bad_lines(transcript, data, written is not None, report)
    output = job.input if job.in_place else job.output
    if job.other is not None and output is not None and not _fits(Path(output).suffix, out):
        output = job.other
        summary += f"; written to {show.path(output)}"
    target = output_target(output)
    shown = (
        f"the {'session' if written is not None else 'request body'} on stdout" if target.is_stdout else target.shown
    )
    found: list[Violation] = []
    if checking is not None and job.report:
        found = _rejected(checking, shown, warnings, transcript, written is not None)
        report["provider_check"] = [unmade_json(v.to_json(), made) for v in found]
        checking = None
    if job.in_place:
        resume = resume_command(transcript, data, job.input) if written is not None else None
        summary = _in_place(job, data, out, before, report, summary, resume)
    else:
        _check_suffix(target, out, what, transcript.format, job.to)
        writes = [(target, out)]
        if job.report:
            writes.append((output_target(job.report), _report_bytes(report)))
        warnings.extend(f"{_WARNING}{note}" for note in write_files(writes))
    if checking is not None:
        found = _rejected(checking, shown, warnings, transcript, written is not None)
    if found and not result.changes and summary.startswith(unchanged):
        # What was written would be rejected (the warning says why): the repair changes nothing,
        # but changes are needed, of a kind it does not make.
        summary = "the repair changes nothing" + summary[len(unchanged) :]
    return [unmade(w, made) for w in warnings], summary, notes


def _called(transcript: Transcript, made: Mapping[str, str], written: Written | None) -> Mapping[str, str]:
    """How the summary names an interrupted call otherwise than by its id: where suture made its
    id up (``made``: :func:`made_up`), ``call at contents[1].parts[0] (grep)``, its place and its
    tool; where the session written back names it otherwise, that id (``Written.ids``)."""
    if not made:
        return written.ids if written is not None else {}
    tools = {c.id: c.name for m in transcript.messages for c in m.tool_calls}
    return {i: f"call at {at}" + (f" ({tools[i]})" if tools.get(i) else "") for i, at in made.items()}


def _unmade_report(report: dict[str, Any], transcript: Transcript, to: str | None, exported: bool) -> dict[str, str]:
    """The call ids suture made up reading ``transcript`` (:func:`made_up`), each with its place,
    where what is written names them nowhere either (an export, ``exported``, in the file's own
    format: ``to``, else the one it is written in); then ``report`` (``--report``) names each
    change's call by its place (:func:`unmade_json`), and ``interrupted`` holds ``null`` for such
    a call, whose place ``interrupted_at`` gives (``null`` for one with its own id)."""
    from suture.formats import export_name

    made = made_up(transcript) if exported and (to or export_name(transcript)) == transcript.format else {}
    if not made:
        return made
    report["changes"] = [unmade_json(c, made) for c in report["changes"]]
    interrupted = report["interrupted"]
    report["interrupted"] = [None if i in made else i for i in interrupted]
    report["interrupted_at"] = [made.get(i) for i in interrupted]
    return made


def _bad_lines(transcript: Transcript, data: bytes, session: bool, report: dict[str, Any]) -> str:
    """What the summary adds of the lines skipped as unreadable (``--skip-bad-lines``, each
    warned of), and their ``bad_lines`` in ``report``: what is written from the messages (a
    request body) leaves them out; a session written back (``session``) only a last line cut off
    (:func:`suture.writeback.whole_lines`), and keeps the others as written, as every line the repair does not
    change. ``""`` where no line was skipped."""
    from suture.writeback import whole_lines

    if not transcript.problems:
        return ""
    left = {whole_lines(data, transcript)[1]} - {None} if session else {p.line for p in transcript.problems}
    report["bad_lines"] = [{**bad, "left_out": bad["line"] in left} for bad in bad_lines_json(transcript)]
    said = ""
    out = [p.line for p in transcript.problems if p.line in left]
    kept = [p.line for p in transcript.problems if p.line not in left]
    for lines, what in ((out, "left out"), (kept, "kept as written, as every line the repair does not change")):
        if lines:
            named = ", ".join(str(n) for n in lines[:5]) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
            said += f"; {count(len(lines), 'unreadable line')} {what} (line{'s' if len(lines) > 1 else ''} {named})"
    return said


def _check_body(result: Repair, body: str) -> Callable[[], list[Violation]] | None:
    """Start checking the repaired history by the rules of the provider a request body in the
    format ``body`` is written for (``suture.checks.check``, as suture writes it), on a thread
    of its own: the check runs while the files are written (a write lets go of the interpreter).
    Returns what waits for its problems; ``None`` for a format written for no one provider."""
    from suture.formats import provider_of

    provider = provider_of(body)
    if not provider:
        return None
    from suture.checks import check

    return _on_a_thread(lambda: check(result.messages, provider, repaired=True))


def _check_session(transcript: Transcript, written: Written) -> Callable[[], list[Violation]] | None:
    """Start working out, on a thread of its own, what the provider the agent talks to finds in
    what the agent sends on resume from the session log written back (``written``, from
    ``transcript``): the count ``suture check`` and ``suture scan`` give after repair. ``None``
    where the session's provider is not known."""
    from suture.formats import own_provider

    provider = own_provider(transcript)
    if not provider:
        return None

    def problems() -> list[Violation]:
        from suture.scan import read_back, sent_problems

        return sent_problems(read_back(transcript.format, written.data) if written.changed else transcript, provider)

    return _on_a_thread(problems)


def _on_a_thread(work: Callable[[], list[Violation]]) -> Callable[[], list[Violation]]:
    """``work`` started on a thread of its own; returns what waits for what it finds."""
    import threading

    done: list[list[Violation]] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as e:  # raised again where the problems are waited for
            failed.append(e)

    thread = threading.Thread(target=run, name="suture-check", daemon=True)
    thread.start()

    def wait() -> list[Violation]:
        thread.join()
        if failed:
            raise failed[0]
        return done[0]

    return wait


def _rejected(
    checking: Callable[[], list[Violation]], shown: str, warnings: list[str], transcript: Transcript, session: bool
) -> list[Violation]:
    """The problems the provider would find in the request body written, or in what the agent
    sends from the session log written back (``session``) (``checking``: from :func:`_check_body`
    or :func:`_check_session`; ``shown``: where it is written; ``transcript``: what it was
    written from), said in one warning (the exit code stays 0: the repair did its work)."""
    from suture.checks import rejected_words
    from suture.writeback import AGENTS

    found = checking()
    if found:
        said = rejected_words(found, AGENTS.get(transcript.format, ""), session)
        warnings.append(f"{_WARNING}{shown}: {said}")
    return found


# Changes the contract makes to a history that keeps its Valid property (docs/contract.md): a
# call without an id (rule 3), an empty assistant placeholder (rule 1). Any other change mends a
# breach of it.
_KEEP_VALID = frozenset({ChangeKind.RENAMED_ID, ChangeKind.DROPPED_PLACEHOLDER})


def _valid_before(result: Repair, transcript: Transcript) -> str:
    """Where the input already had the Valid property (``suture check`` says "valid") and its own
    provider accepts it, and the repair changed it anyway, what the summary adds to say why: the
    rules that change a valid history too. ``""`` otherwise. (The property is checked only when
    every change is of a kind a valid history can get; a provider that rejects the file, as
    OpenAI Chat an empty assistant message, is what the change mends.)"""
    if not result.changes or any(c.kind not in _KEEP_VALID for c in result.changes):
        return ""
    from suture.validity import violations

    if violations(transcript.messages):
        return ""
    from suture.checks import check
    from suture.formats import own_provider

    own = own_provider(transcript)
    if own and check(transcript.messages, own):
        return ""
    said: list[str] = []
    placeholders = sum(1 for c in result.changes if c.kind is ChangeKind.DROPPED_PLACEHOLDER)
    given = [c.new_id or "" for c in result.changes if c.kind is ChangeKind.RENAMED_ID and not c.call_id]
    renamed = sum(1 for c in result.changes if c.kind is ChangeKind.RENAMED_ID and c.call_id)
    if placeholders:
        said.append(f"rule 1 drops {count(placeholders, 'empty assistant message')}")
    if given:
        ids = ", ".join(show.line(i) for i in given[:3]) + (f" and {len(given) - 3} more" if len(given) > 3 else "")
        said.append(
            f"rule 3 gives {count(len(given), 'call')} without an id {'the id' if len(given) == 1 else 'ids'} {ids}"
        )
    if renamed:
        said.append(f"rule 3 renames {count(renamed, 'call')} whose id a call without one was given")
    return f"; the input was already valid (suture check says so), and the contract still changes it: {'; '.join(said)}"


def _as_written(change: Change, transcript: Transcript, ids: Mapping[str, str]) -> dict[str, Any]:
    """A change record of the report of a session written back, as the file has it: where the
    file gives its call another id than the final one, ``written_id`` is that id and the summary
    names it (``suture.writeback.as_written``)."""
    from suture.writeback import as_written, written_id

    found = as_written(change, transcript, ids).to_json()
    written = written_id(change, ids)
    if written is not None:
        found["written_id"] = written
    return found


def _check_suffix(target: Target, data: bytes, what: str, source: str, to: str | None) -> None:
    """-o names a file whose ending says JSON or JSONL: it must be what is written there."""
    from suture.writeback import layout, writes_back

    suffix = Path(target.given).suffix if target.kind in ("file", "new") else ""
    if _fits(suffix, data):
        return
    found = layout(data)
    if found == "jsonl":
        also = f", or pass --to {_request_of(source)} for a request body" if writes_back(source) and not to else ""
        raise InputError(
            f"{target.shown}: suture writes {what} here, one JSON record a line (JSONL): name the file .jsonl{also}"
        )
    also = " (or leave out --to to write the session itself, as a .jsonl file)" if writes_back(source) and to else ""
    raise InputError(f"{target.shown}: suture writes {what} here, one JSON document: name the file .json{also}")


def _fits(suffix: str, data: bytes) -> bool:
    """Whether a file name ending ``suffix`` fits ``data``: any ending but .json and .jsonl
    does, and those fit a JSON document and JSONL, each its own."""
    from suture.writeback import layout

    suffix = suffix.lower()
    if suffix not in _TRANSCRIPT_SUFFIXES:
        return True
    found = layout(data)
    return found == "either" or (found == "jsonl") == (suffix == ".jsonl")


def _other_ending(path: str) -> str | None:
    """``path`` with the other ending of .json and .jsonl (``None`` for any other ending)."""
    stem, suffix = os.path.splitext(path)
    if suffix.lower() not in _TRANSCRIPT_SUFFIXES:
        return None
    return stem + (".json" if suffix.lower() == ".jsonl" else ".jsonl")


def _request_of(source: str) -> str:
    from suture.formats import get

    return get(source).export_format


def _stat(path: str) -> tuple[int, int, int, int]:
    """What says a file changed: its size, modification time, device and inode."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputError(f"{name_of(path)}: cannot read ({e.strerror or e})") from None
    return st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino


def _in_place(
    job: _Job,
    data: bytes,
    out: bytes,
    before: tuple[int, int, int, int] | None,
    report: dict[str, Any],
    summary: str,
    resume: str | None,
) -> str:
    """Replace the input with ``out``, after a copy of it (``data``) is kept beside it."""
    target = output_target(job.input)
    if target.kind != "file":
        raise InputError(f"{target.shown}: --in-place replaces a regular file; write this one with -o")
    if out == data:
        same = "is what it holds, byte for byte"
    else:
        same = "holds the same JSON, laid out otherwise" if _same_json(data, out) else ""
    if same:
        if job.report:
            write_files([(output_target(job.report), _report_bytes(report))])
        return f"{summary}; {name_of(job.input)} left as it is: what repair writes {same}"
    if _stat(job.input) != before:
        raise InputError(
            f"{name_of(job.input)}: changed while suture read it (is the agent still running?); nothing written"
        )
    backup = backup_name(job.input)
    writes = [(output_target(backup), data), (target, out)]
    if job.report:
        writes.append((output_target(job.report), _report_bytes(report)))
    write_files(writes)
    said = f"{summary}; the original is kept as {show.path(backup)}"
    return f"{said}; resume it: {resume}" if resume else said


def _same_json(data: bytes, out: bytes) -> bool:
    """Whether ``out`` holds the JSON ``data`` holds, only laid out or spelled otherwise (a JSON
    document, or JSONL line by line): a file whose layout suture's writer does not keep (a space
    before a colon, ``\u00e9``), with nothing to repair, is not rewritten in place."""
    from suture import codec

    def written(value: bytes) -> bytes:  # (one spelling of a value: its types and key order kept)
        return codec.dumps(codec.loads(value))

    try:
        return written(data) == written(out)
    except ValueError:
        pass
    try:
        lines = [written(line) for line in data.splitlines() if line.strip()]
        return lines == [written(line) for line in out.splitlines() if line.strip()]
    except ValueError:
        return False


def _run_job(job: _Job) -> _Done:
    """A job in a worker process: errors a person can cause come back as one line."""
    try:
        warnings, summary, notes = _repair_one(job)
    except InputError as e:
        said, name = str(e), name_of(job.input)
        # Which input it is about, where the error does not say (a conversion's, among several).
        return _Done((), said if said.startswith(f"{name}:") else f"{name}: {said}")
    except RecursionError:
        return _Done((), f"{name_of(job.input)}: nested too deeply to be a transcript")
    # Among several inputs every line names its input, as the summary does: the output of a
    # batch can be searched for one file's lines.
    name = name_of(job.input)
    return _Done(
        (
            *(_naming(line, name) for line in warnings),
            *(f"suture: {name}: {line}" for line in (summary, *notes)),
        )
    )


def _naming(warning: str, name: str) -> str:
    """A warning line of one input among several, naming the input (``name``) after
    ``suture: warning:`` where it does not already begin with it."""
    said = warning.removeprefix(_WARNING)
    return warning if said.startswith(f"{name}: ") else f"{_WARNING}{name}: {said}"


def _inputs(paths: Sequence[str]) -> Iterator[str | InputError]:
    """Every input file: files as given, a folder's transcript files sorted by name; an empty
    folder is an error of its own."""
    for path in paths:
        if not os.path.isdir(path):
            yield path
            continue
        names = sorted(
            entry.name
            for entry in os.scandir(path)
            if not entry.name.startswith(".") and entry.name.lower().endswith(_TRANSCRIPT_SUFFIXES) and entry.is_file()
        )
        if not names:
            yield InputError(f"{show.path(path)}: a folder with no .json or .jsonl files in it")
        yield from (os.path.join(path, n) for n in names)


def _clashes(inputs: Sequence[str], outputs: Sequence[tuple[str, Target]]) -> list[str]:
    """Every output (``what`` says which option names it) compared with every input and with
    the other outputs, before anything is written: one line per clash."""
    by_key: dict[tuple[object, ...], str] = {}
    for path in inputs:
        by_key.setdefault(file_key(path), path)
    errors: list[str] = []
    taken: dict[tuple[object, ...], tuple[str, Target]] = {}
    for what, target in outputs:
        source = by_key.get(target.key)
        if source is not None and target.is_stdout:
            errors.append(_stdout_is_input(source, what))
            continue
        if source is not None and not target.is_device:
            named_as = "" if name_of(source) == target.shown else f" {name_of(source)}"
            errors.append(f"{target.shown}: is the input file{named_as}; {OVER_INPUT}, choose another {what}")
            continue
        earlier = taken.get(target.key)
        if earlier is not None and target.is_stdout and earlier[1].is_stdout:
            errors.append(
                f"{what} {target.shown}: the repaired transcript goes to stdout already; give -o FILE or write {what} to a file"
            )
            continue
        if earlier is not None and not target.is_device:
            errors.append(f"{target.shown}: {earlier[0]} writes this file already; choose another {what}")
            continue
        taken.setdefault(target.key, (what, target))
    return errors


OVER_INPUT = "suture writes over its input only with --in-place"
"""Said wherever an output would be the input file."""


def _stdout_is_input(source: str, what: str) -> str:
    """What is said where standard output is the input file (``suture repair x.json > x.json``:
    the shell opened, and so emptied, the file before suture ran)."""
    try:
        empty = os.stat(source).st_size == 0
    except OSError:
        empty = False
    said = (
        "standard output is the file standard input reads"
        if source == STDIN
        else f"standard output is {show.path(source)}, the input file"
    )
    if empty:
        said += ", and it is empty: the shell's > empties the file before suture runs"
    fix = "redirect stdout to another file, or write with -o FILE" if what == "-o" else f"choose another {what}"
    return f"{said}; {OVER_INPUT}: {fix}"


def _single(args: argparse.Namespace) -> int:
    path = args.input[0]
    if args.in_place:
        if args.output is not None:
            raise InputError("--in-place writes the input itself; leave out -o (or leave out --in-place)")
        if path == STDIN:
            raise InputError("--in-place replaces a file; standard input is none")
    if args.output not in (None, "-") and (args.output.endswith(os.sep) or os.path.isdir(args.output)):
        raise InputError(f"{show.path(args.output)}: is a folder; -o names a file (use --out-dir DIR for a folder)")
    report = args.report
    report_folder = None
    if report and (report.endswith(os.sep) or os.path.isdir(report)):
        report_folder = report
        report = os.path.join(report, f"{Path(path).name}.report.json")
    outputs = [] if args.in_place else [("-o", output_target(args.output))]
    if report:
        outputs.append(("--report", output_target(report, planned=report_folder is not None)))
    errors = _clashes([path], outputs)
    if errors:
        raise InputError(errors[0])
    if report_folder is not None:
        _folder(report_folder, "--report")
    warnings, summary, notes = _repair_one(
        _Job(
            path,
            args.output,
            report,
            args.format,
            args.to,
            read_only_set(args.read_only),
            args.skip_bad_lines,
            args.in_place,
        )
    )
    err(*warnings)
    if not args.quiet:
        err(*(f"suture: {line}" for line in (summary, *notes)))
    return EXIT_OK


def _folder(path: str, what: str) -> Path:
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{show.path(path)}: is a file; {what} must be a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{show.path(path)}: cannot create the folder ({e.strerror or e})") from None
    return folder


def _plan(args: argparse.Namespace, inputs: list[str | InputError]) -> tuple[list[_Job | str], list[str]]:
    """A job per input, or the one-line error that stops it before it starts; and the clashes
    between outputs and inputs (any clash: nothing is written)."""
    for folder, what in ((args.out_dir, "--out-dir"), (args.report, "--report with several inputs")):
        if folder and os.path.exists(folder) and not os.path.isdir(folder):
            raise InputError(f"{show.path(folder)}: is a file; {what} must be a folder")
    read_only = read_only_set(args.read_only)
    taken: dict[str, str] = {}
    planned: list[_Job | str] = []
    outputs: list[tuple[str, Target]] = []
    for path in inputs:
        if isinstance(path, InputError):
            planned.append(str(path))
            continue
        # Standard input has no name of its own: its output is stdin.json, or stdin.jsonl where
        # what is written is JSONL.
        stdin = path == STDIN
        name = "stdin.json" if stdin else Path(path).name
        output = os.path.join(args.out_dir, name)
        # Converting (--to), what is written may be JSON where the input was JSONL, or the other
        # way round: the output then takes the other ending, so both names are the input's own.
        other = _other_ending(output) if args.to or stdin else None
        names = [name] if other is None else [name, Path(other).name]
        same = next((n for n in names if n in taken), None)
        if same is not None and same_file(path, taken[same]):
            planned.append(f"{name_of(path)}: is given twice; give each input once")
            continue
        if same is not None:
            planned.append(
                f"{name_of(path)}: has the same name as {name_of(taken[same])}; both would be written to "
                f"{show.path(os.path.join(args.out_dir, same))}"
            )
            continue
        taken.update(dict.fromkeys(names, path))
        report = os.path.join(args.report, f"{name}.report.json") if args.report else None
        try:
            outputs.append(("--out-dir", output_target(output, planned=True)))
            if other is not None:
                outputs.append(("--out-dir", output_target(other, planned=True)))
            if report:
                outputs.append(("--report", output_target(report, planned=True)))
        except InputError as e:
            planned.append(str(e))
            continue
        planned.append(_Job(path, output, report, args.format, args.to, read_only, args.skip_bad_lines, other=other))
    sources = [p for p in inputs if isinstance(p, str)]
    return planned, _clashes(sources, outputs)


def _names_clash(line: str) -> bool:
    """Whether a line of :func:`_plan` says two inputs would be written to one output."""
    return "has the same name as" in line or line.endswith("is given twice; give each input once")


def _many(args: argparse.Namespace) -> int:
    if args.in_place:
        raise InputError("--in-place replaces one input; give one file (or write many with --out-dir DIR)")
    if args.output is not None:
        raise InputError("-o writes one file; with several inputs or a folder, use --out-dir DIR")
    if not args.out_dir:
        raise InputError("several inputs (or a folder) need --out-dir DIR to write them to")
    inputs = list(_inputs(args.input))
    # Every output takes its input's name: a folder that holds an input holds what its output
    # would replace. Said once, not once per input.
    held = [
        p
        for p in inputs
        if isinstance(p, str) and os.path.isdir(args.out_dir) and same_file(os.path.dirname(p) or ".", args.out_dir)
    ]
    if held:
        what = "the inputs" if len(held) == len(inputs) else f"{name_of(held[0])}, an input,"
        raise InputError(
            f"--out-dir {show.path(args.out_dir)}: holds {what} and each output takes its input's name: "
            f"{OVER_INPUT}; choose another folder"
        )
    planned, clashes = _plan(args, inputs)
    same_name = [item for item in planned if isinstance(item, str) and _names_clash(item)]
    if clashes or same_name:
        # Any clash stops every write: one line says the first, how many more, and that.
        first, *rest = [*same_name, *clashes]
        more = f" (and {len(rest)} more)" if rest else ""
        raise InputError(f"{first}{more}; nothing written")
    _folder(args.out_dir, "--out-dir")
    if args.report:
        _folder(args.report, "--report with several inputs")
    jobs = [j for j in planned if isinstance(j, _Job)]
    done = iter(_map(jobs))
    bad = False
    for item in planned:
        outcome = _Done((), item) if isinstance(item, str) else next(done)
        for line in outcome.lines:
            if not args.quiet or line.startswith(_WARNING):
                err(line)
        if outcome.error is not None:
            bad = True
            err(f"suture: error: {outcome.error}")
        sys.stderr.flush()
    return EXIT_BAD_INPUT if bad else EXIT_OK


def _quiet_worker() -> None:
    """Ctrl-C is the parent's to handle: a worker that also took it would print a traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _map(jobs: list[_Job]) -> Iterator[_Done]:
    """Run the jobs over every core, yielding outcomes in job order."""
    workers = min(len(jobs), os.cpu_count() or 1)
    if workers <= 1:
        yield from map(_run_job, jobs)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers, initializer=_quiet_worker) as pool:
        # A few chunks per worker: little overhead for many small files, balanced for big ones.
        yield from pool.map(_run_job, jobs, chunksize=max(1, len(jobs) // (workers * 4)))


def run(args: argparse.Namespace) -> int:
    if len(args.input) == 1 and not args.out_dir and not os.path.isdir(args.input[0]):
        return _single(args)
    return _many(args)
