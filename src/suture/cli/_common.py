"""What the subcommands share: loading an input the strict way, writing an output, counting, and
putting lines on the terminal (every line through :func:`suture.show.line`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from suture import show
from suture.formats import load_file
from suture.io import InputError, write_atomic
from suture.model import Transcript
from suture.repair import ChangeKind, Repair

__all__ = ["err", "load_strict", "out", "out_json", "same_file", "summary_line", "write_output"]


def out(*lines: str) -> None:
    """Lines of a command's human output on stdout, each shown by :func:`suture.show.line`: no
    text from a transcript or a file name can add a line or reach the terminal as a control."""
    sys.stdout.write("".join(show.line(line) + "\n" for line in lines))


def err(*lines: str) -> None:
    """Lines on stderr (errors, warnings, summaries), each shown by :func:`suture.show.line`."""
    sys.stderr.write("".join(show.line(line) + "\n" for line in lines))


def out_json(value: object) -> None:
    """A command's ``--json`` output: :func:`suture.show.dumps` on stdout."""
    sys.stdout.flush()
    sys.stdout.buffer.write(show.dumps(value))


def _to_stderr(line: str) -> None:
    err(line)


def load_strict(
    path: str,
    format: str | None = None,
    skip_bad_lines: bool = False,
    warn: Callable[[str], None] = _to_stderr,
) -> Transcript:
    """Load a transcript for a command: a JSONL line that cannot be read is an error unless the
    person asked to skip such lines (then each is named by ``warn``, on stderr by default)."""
    transcript = load_file(path, format)
    problems = list(transcript.problems)
    if problems:
        if not skip_bad_lines:
            shown = "; ".join(str(p) for p in problems[:3])
            more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
            raise InputError(f"{path}: {shown}{more}; pass --skip-bad-lines to repair the rest")
        for problem in problems:
            warn(f"suture: warning: {path}: skipped {problem}")
    return transcript


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def write_output(data: bytes, out: str | None) -> None:
    """Write to stdout when ``out`` is ``-`` or None, else atomically to the file."""
    if out is None or out == "-":
        sys.stdout.flush()
        if sys.stdout.isatty():  # the same JSON, with nothing a terminal would act on
            data = show.inert_json(data)
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        write_atomic(out, data)
    except OSError as e:
        raise InputError(f"{out}: cannot write ({e.strerror or e})") from None


_KIND_WORDS = {
    ChangeKind.MOVED_RESULT: "moved result",
    ChangeKind.SYNTHETIC_INTERRUPT: "synthetic interrupt",
    ChangeKind.ORPHAN_NOTE: "orphan note",
    ChangeKind.RENAMED_ID: "renamed id",
    ChangeKind.DROPPED_PLACEHOLDER: "dropped placeholder",
}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_line(result: Repair) -> str:
    """One line a person reads after a repair: how many changes of each kind."""
    n_in, n_out = result.input_count, len(result.messages)
    if not result.changes:
        return f"no changes needed ({_plural(n_in, 'message')})"
    parts = [_plural(count, _KIND_WORDS[kind]) for kind, count in result.counts().items() if count]
    line = f"{_plural(len(result.changes), 'change')} ({', '.join(parts)}); {n_in} messages in, {n_out} out"
    if result.interrupted:
        ids = ", ".join(show.line(c.id) for c in result.interrupted[:5])
        more = f" and {len(result.interrupted) - 5} more" if len(result.interrupted) > 5 else ""
        line += f"; interrupted: {ids}{more}"
    return line
