"""What the subcommands share: loading an input the strict way, counting, and
putting lines on the terminal (every line through :func:`suture.show.line`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from suture import show
from suture.formats import bad_lines_said, reordered_said
from suture.io import InputError
from suture.kinds import counted
from suture.model import Message, Transcript
from suture.repair import Repair
from suture.words import count

if TYPE_CHECKING:
    from suture.sent import Sent

__all__ = [
    "STDIN",
    "bad_lines_json",
    "err",
    "is_stdin",
    "load_sent",
    "load_strict",
    "made_in_sent",
    "made_up",
    "name_json",
    "name_of",
    "name_typed",
    "out",
    "out_json",
    "read_strict",
    "summary_line",
    "unmade",
    "unmade_json",
]


class _Stdin(str):
    """The input named ``-``: a path to open (``/dev/stdin``, read as a pipe or a file is) that
    knows it was named ``-``, so that what suture says of it names it as the person did, not as
    the path it is read through. A ``/dev/stdin`` typed as such stays ``/dev/stdin``."""

    __slots__ = ()


STDIN = _Stdin("/dev/stdin")
"""Where an input named ``-`` is read from: standard input."""

STDIN_SAID = "standard input"
"""Standard input, named where a line names its input."""


def input_path(value: str) -> str:
    """An input as named on the command line (argparse's ``type``): ``-`` is standard input."""
    return STDIN if value == "-" else value


def is_stdin(path: object) -> bool:
    """Whether ``path`` is the input named ``-`` (:data:`STDIN`, also once pickled for a worker)."""
    return isinstance(path, _Stdin)


def name_of(path: str) -> str:
    """An input's name in a line for a person: ``standard input`` for ``-``, else the path as
    given (:func:`suture.show.path`)."""
    return STDIN_SAID if is_stdin(path) else show.path(path)


def name_json(path: str) -> str:
    """An input's name in ``--json`` output and in a command to run: ``-`` for standard input,
    else the path as given (:func:`suture.show.path_json`)."""
    return "-" if is_stdin(path) else show.path_json(path)


def name_typed(path: str) -> str:
    """An input's name as a command line takes it (``suture check -``), fit for a terminal: a
    file's name that starts with ``-`` as ``./-name``, which is not read as an option."""
    name = name_json(path)
    return show.line(f"./{name}" if name.startswith("-") and name != "-" else name)


@contextmanager
def _stdin_named(path: str) -> Iterator[None]:
    """An error reading standard input, naming it ``standard input`` where the reading names the
    path it opened (``/dev/stdin: is a terminal, …``)."""
    try:
        yield
    except InputError as e:
        said, opened = str(e), f"{show.path(STDIN)}:"
        if not is_stdin(path) or not said.startswith(opened):
            raise
        raise type(e)(f"{STDIN_SAID}:{said[len(opened) :]}") from None


def out(*lines: str) -> None:
    """Lines of a command's human output on stdout, each shown by :func:`suture.show.line`: no
    text from a transcript or a file name can add a line or reach the terminal as a control."""
    _stdout(lambda: sys.stdout.write("".join(show.line(line) + "\n" for line in lines)))


def err(*lines: str) -> None:
    """Lines on stderr (errors, warnings, summaries), each shown by :func:`suture.show.line`."""
    sys.stderr.write("".join(show.line(line) + "\n" for line in lines))


def out_json(value: object) -> None:
    """A command's ``--json`` output: :func:`suture.show.dumps` on stdout."""
    data = show.dumps(value)

    def write() -> None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)

    _stdout(write)


def _stdout(write: Callable[[], object]) -> None:
    """Run a write to stdout and flush it; a stdout that cannot take it (full, closed) becomes
    an InputError (one line), a broken pipe stays a BrokenPipeError (the reader left: no error)."""
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        from suture.cli import drop_stdout

        drop_stdout()
        raise InputError(f"cannot write to stdout ({e.strerror or e})") from None


def _to_stderr(line: str) -> None:
    err(line)


def load_strict(
    path: str,
    format: str | None = None,
    skip_bad_lines: bool = False,
    warn: Callable[[str], None] = _to_stderr,
) -> Transcript:
    """Load a transcript for a command: a JSONL line that cannot be read is an error unless the
    person asked to skip such lines (then each is named by ``warn``, on stderr by default). The
    file is loaded with its bad lines skipped and the command refuses it in its own words."""
    return _strict(read_detected(path, format)[1], path, skip_bad_lines, warn)


def read_strict(
    path: str,
    format: str | None = None,
    skip_bad_lines: bool = False,
    warn: Callable[[str], None] = _to_stderr,
) -> tuple[bytes, Transcript]:
    """:func:`load_strict`, and the bytes the transcript was read from (what a session log is
    written back into)."""
    data, transcript, _ = read_detected(path, format)
    return data, _strict(transcript, path, skip_bad_lines, warn)


def read_detected(path: str, format: str | None = None) -> tuple[bytes, Transcript, tuple[str, ...]]:
    """The bytes of ``path``, the transcript read from them (its JSONL lines that cannot be read
    named in ``Transcript.problems``), and the other formats detection found the file fits
    (``Detection.others``; none where ``format`` names one). ``suture.formats.read_file``, with the
    document parsed once for both; a file not in the ``format`` named is refused saying why."""
    from suture.formats import detect, errors_named, get
    from suture.io import parse_document, read_input

    with _stdin_named(path):
        data = read_input(path)
    others: tuple[str, ...] = ()
    with errors_named(STDIN_SAID if is_stdin(path) else path):
        doc = parse_document(data)
        if format:
            adapter = get(format)
            if adapter.sniff(doc) == 0:
                raise InputError(_not_in(doc, adapter))
        else:
            found = detect(doc)
            adapter, others = found.adapter, found.others
        return data, adapter.load(doc), others


def _not_in(doc: Any, adapter: Any) -> str:
    """Why a document is not in the format ``--format`` named: what that format's reading of it
    stops at (its ``FormatError``), and what the file reads as, as detection says it."""
    from suture.formats import FormatError, detect

    try:
        adapter.load(doc)
        why = f"it holds none of what a {adapter.name} file holds"
    except FormatError as e:
        why = str(e)
    except (InputError, RecursionError, ValueError, TypeError, KeyError, AttributeError):
        why = ""
    try:
        found: str | None = detect(doc).adapter.name
    except (InputError, RecursionError):
        found = None
    said = f"this file is not in the {adapter.name} format" + (f" ({why})" if why else "")
    return said + (f"; it reads as {found} (--format {found})" if found else "")


def _strict(transcript: Transcript, path: str, skip_bad_lines: bool, warn: Callable[[str], None]) -> Transcript:
    problems = list(transcript.problems)
    if problems:
        if not skip_bad_lines:
            raise InputError(f"{name_of(path)}: {bad_lines_said(problems, '--skip-bad-lines')}")
        for problem in problems:
            warn(f"suture: warning: {name_of(path)}: skipped {problem}")
    return transcript


def load_sent(
    path: str,
    format: str | None = None,
    skip_bad_lines: bool = False,
    warn: Callable[[str], None] = _to_stderr,
) -> Transcript:
    """Load a transcript to judge what is sent from it. A session log's lines that cannot be
    read are skipped, as the agent itself skips them (each named by ``warn``): the verdict is on
    the rest. Any other format is loaded as :func:`load_strict` does."""
    return loaded_sent(path, format, skip_bad_lines, warn)[1]


def loaded_sent(
    path: str,
    format: str | None = None,
    skip_bad_lines: bool = False,
    warn: Callable[[str], None] = _to_stderr,
) -> tuple[bytes, Transcript, tuple[str, ...]]:
    """:func:`load_sent`, with the bytes it was read from and the other formats the file reads
    as (:func:`read_detected`)."""
    from suture.sent import skips_bad_lines

    data, transcript, others = read_detected(path, format)
    if not skips_bad_lines(transcript.format):
        return data, _strict(transcript, path, skip_bad_lines, warn), others
    for problem in transcript.problems:
        warn(f"suture: warning: {name_of(path)}: skipped {problem} (the agent skips it too)")
    return data, transcript, others


def bad_lines_json(transcript: Transcript) -> list[dict[str, Any]]:
    """The lines left out because they could not be read (``--skip-bad-lines``), as the warnings
    on stderr say them: each line's number and what is wrong with it (``bad_lines`` in the JSON
    of ``check`` and of ``repair --report``)."""
    return [{"line": p.line, "problem": p.message} for p in transcript.problems]


def changes_said(result: Repair) -> str:
    """``3 changes (2 moved results, 1 orphan note)``: the repair's changes, counted by kind, as
    ``suture repair`` says them."""
    parts = [counted(kind, n) for kind, n in result.counts().items() if n]
    return f"{count(len(result.changes), 'change')} ({', '.join(parts)})"


def _counted(messages: Sequence[Message]) -> tuple[int, int]:
    results = sum(1 for m in messages if m.role == "tool")
    return len(messages) - results, results


def _amount(messages: int, results: int) -> str:
    said = count(messages, "message")
    return f"{said} and {count(results, 'tool result')}" if results else said


def summary_line(
    result: Repair,
    messages: Sequence[Message],
    reordered: int = 0,
    unchanged: str = "no changes needed",
    ids: Mapping[str, str] | None = None,
) -> str:
    """One line a person reads after a repair: how many changes of each kind, and what went in
    and came out. Tool results are counted on their own: formats differ in how many of them one
    record holds (a Claude Code or Anthropic record can hold several), so "messages" alone
    would count different things in and out. ``reordered``: how many turns the output format
    writes in another order (``suture.formats.reordered_turns``); ``unchanged``: what is said
    where the repair changes nothing (a session written back may still change for its agent);
    ``ids``: the calls the file written names otherwise than the repair (``Written.ids``), named
    so among the interrupted calls."""
    n_in, r_in = _counted(messages)
    n_out, r_out = _counted(result.messages)
    moved = reordered_said(reordered)
    if not result.changes and reordered:
        return f"{unchanged} ({_amount(n_in, r_in)}); {moved}"
    if not result.changes:
        return f"{unchanged} ({_amount(n_in, r_in)})"
    went = (
        f"{_amount(n_in, r_in)}, in and out"
        if (n_in, r_in) == (n_out, r_out)
        else f"{_amount(n_in, r_in)} in, {_amount(n_out, r_out)} out"
    )
    line = f"{changes_said(result)}; {went}"
    if result.interrupted:
        named = ids or {}
        shown = ", ".join(show.line(named.get(c.id, c.id)) for c in result.interrupted[:5])
        more = f" and {len(result.interrupted) - 5} more" if len(result.interrupted) > 5 else ""
        line += f"; interrupted: {shown}{more}"
    if reordered:
        line += f"; {moved}"
    return line


def made_up(transcript: Transcript) -> dict[str, str]:
    """The call ids suture made up reading the file (a Gemini call with no id of its own:
    ``suture.formats.gemini.made_up_calls``), each with the call's place in the file
    (``contents[1].parts[0]``): where an id would reach a person, the place is named instead (and
    in JSON, ``call_id`` is ``null`` and ``call_at`` the place)."""
    return _made_up_by(transcript.format, transcript.messages)


def _made_up_by(format: str, messages: Sequence[Message]) -> dict[str, str]:
    """The call ids the reader of ``format`` made up reading ``messages`` (its adapter's
    ``made_up_calls``; none where its reader makes up no id)."""
    from suture.formats import get

    finder = getattr(get(format), "made_up_calls", None)
    return finder(messages) if finder is not None else {}


def made_in_sent(transcript: Transcript, sent: Sent) -> tuple[dict[str, str], dict[str, str]]:
    """The call ids suture made up reading what the agent sends (a Gemini request, whose calls
    pi sends with no id), each with its place there, and of those, the id the session holds for
    the same call (its message's calls as written, in the same order)."""
    made = _made_up_by(sent.wire_format, sent.messages)
    if not made:
        return {}, {}
    real: dict[str, str] = {}
    for k, m in enumerate(sent.messages):
        ids = [c.id for c in m.tool_calls]
        if not made.keys() & set(ids):
            continue
        theirs = [c.id for i in sent.written_of(k) for c in transcript.messages[i].tool_calls]
        if len(theirs) == len(ids):
            real.update((i, r) for i, r in zip(ids, theirs, strict=True) if i in made and r)
    return made, real


_QUOTED = re.compile(r"\s*\S+ would say\b[^:]*: ")
"""A line of check's that quotes a provider's error (``      anthropic would say: …``)."""


def unmade(text: str, made: Mapping[str, str], real: Mapping[str, str] | None = None) -> str:
    """``text`` with each id of ``made`` (:func:`made_up`) said as the place it maps to: ``call
    call_c1_p0`` becomes ``call at contents[1].parts[0]``, the id alone the place; an id of
    ``real`` (the one the file itself holds for that call, where it does) becomes that id. A line
    that quotes what a provider would say is left as the provider says it (as ``--json`` leaves
    ``error``)."""
    if _QUOTED.match(text):
        return text  # what the provider would say, quoted as it says it
    for id_, said in made.items():
        if id_ not in text:
            continue
        if real is not None and id_ in real:
            text = re.sub(rf"(?<![\w-]){re.escape(id_)}(?![\w-])", real[id_], text)
            continue
        text = re.sub(rf"\bcall {re.escape(id_)}(?![\w-])", f"call at {said}", text)
        text = re.sub(rf"(?<![\w-]){re.escape(id_)}(?![\w-])", said, text)
    return text


def unmade_json(
    found: dict[str, Any], made: Mapping[str, str], real: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A change or a problem as JSON where its call's id is one suture made up (:func:`made_up`):
    ``call_id`` ``null`` (or the id the file holds for that call, ``real``), ``call_at`` the
    call's place, and its words naming it so (:func:`unmade`)."""
    if not made:
        return found
    if found.get("call_id") in made:
        id_ = found["call_id"]
        found["call_at"] = made[id_]
        found["call_id"] = real.get(id_) if real is not None else None
    for key in ("summary", "problem"):
        if isinstance(found.get(key), str):
            found[key] = unmade(found[key], made, real)
    return found
