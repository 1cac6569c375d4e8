"""``suture scan [PATH...]``: a row per session file: would the provider reject it on resume?

Folders are walked (their ``.json`` and ``.jsonl`` files, not their hidden folders: a PATH
that gives no file is named in a warning, or the error when none gives one, with the hidden
folders skipped in it); with no PATH, the folders Claude Code, Codex and pi keep their
sessions in. Each file becomes one row (``suture.scan.Row``): a
table on stdout (newest first; a file met in a folder that is no transcript is counted, not
listed, where any file is), ``--json`` JSON Lines (as the rows come), ``--csv``; ``--out FILE``
writes the rows to a file instead (JSON Lines, or Parquet for ``.parquet``, CSV for ``.csv``),
atomically. A summary line goes to stderr. Exit 1 when any file would be rejected,
2 when no file could be read, else 0. Files that cannot be read are rows with their error.

Scanning uses every core, and a cache (``suture.scan_cache``) so an unchanged file is not read
again; ``--dask ADDRESS`` (or ``local``) runs the same per-file work on a Dask cluster.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any

from suture import show
from suture.cli import EXIT_BAD_INPUT, EXIT_FOUND, EXIT_OK
from suture.io import NO_OUTPUT_NAME, InputError, open_atomic, same_file
from suture.scan import COLUMNS, OK, OTHER, REJECTED, UNREADABLE, Row, self_repairs, stricter_said
from suture.sessions import Found, is_url, same_file_key
from suture.validity import NAME as VALID
from suture.words import count

NAMES = ("scan",)
ORDER = 35


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="a row per session file: would the provider reject it on resume? exit 1 if any would",
        description=(
            "Scan session files and folders (with no PATH: where Claude Code, Codex and pi keep their "
            "sessions). One row per file: verdict, agent, when, messages, changes the repair would make, "
            "the last API error recorded, or why the file cannot be read. Files found in a folder that "
            "are no transcript are counted in the table's summary, and listed by --json and --csv. Exit 1 if "
            "any file would be "
            "rejected, 2 if no file could be read, else 0."
        ),
    )
    p.add_argument(
        "paths",
        metavar="PATH",
        nargs="*",
        help="a session file, a folder to walk (not its hidden folders, such as .claude: name one to walk it), or an fsspec URL",
    )
    shape = p.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="JSON Lines on stdout, a row as each file is done")
    shape.add_argument("--csv", action="store_true", help="CSV on stdout, a header then a row per file")
    p.add_argument(
        "--out",
        metavar="FILE",
        help="write the rows to FILE as they come (JSON Lines; Parquet for .parquet, CSV for .csv) instead of stdout",
    )
    p.add_argument("-j", "--jobs", type=int, metavar="N", help="processes (or local Dask workers); default: every core")
    p.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="scan on a Dask cluster: its scheduler's address, or 'local' for a cluster on this machine "
        "(needs pip install 'suture[fleet]')",
    )
    p.add_argument("--no-cache", action="store_true", help="read every file, and keep nothing for next time")
    p.set_defaults(run=run)


# -- writing rows ---------------------------------------------------------------------------------


def _for_output(row: Row) -> dict[str, object]:
    """The row as JSON values: a file name that is not UTF-8 with its bytes as ``\\xNN``."""
    value = row.to_json()
    value["path"] = show.path_json(row.path)
    return value


class _Table:
    """The human table: collected, then printed newest first (rows come in any order). A file
    that is no transcript, met in walking a folder (a settings file, a request log beside the
    sessions), has no row of its own where other files have one: the summary counts them, and
    ``--json`` lists them. A file named on the command line always has its row."""

    def __init__(self, out: IO[str], named: Iterable[str]) -> None:
        self.out = out
        self.rows: list[Row] = []
        self.named = {same_file_key(path) for path in named}
        self.left_out = 0
        """How many ``other`` rows :meth:`close` left out of the table."""

    def write(self, row: Row) -> None:
        self.rows.append(row)

    def close(self) -> None:
        rows = self.rows
        if any(r.verdict != OTHER for r in rows):
            rows = [r for r in rows if r.verdict != OTHER or same_file_key(r.path) in self.named]
        self.left_out = len(self.rows) - len(rows)
        if not rows:
            return
        rows = sorted(rows, key=lambda r: (r.when, r.path), reverse=True)
        agent_w = max([len(r.agent) for r in rows] + [5])  # (empty for a file that is no session log)
        head = f"{'verdict':<10}  {'agent':<{agent_w}}  {'last written':<16}  {'msgs':>6}  {'changes':>7}  file"
        lines = [head]
        for r in rows:
            when = r.when[:16].replace("T", " ")
            lines.append(
                f"{r.verdict:<10}  {r.agent:<{agent_w}}  {when:<16}  {_count(r, r.messages):>6}  "
                f"{_count(r, r.changes):>7}  {show.path(r.path)}{_note(r)}"
            )
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()  # (a stdout that cannot take it says so before the summary line)


def _count(row: Row, n: int) -> str:
    return "-" if row.verdict in (UNREADABLE, OTHER) else f"{n:,}"


def _note(row: Row) -> str:
    """What to know about a row beyond its columns, after the file name."""
    bits = []
    if row.verdict in (UNREADABLE, OTHER):
        bits.append(row.error)
    if row.verdict == REJECTED:
        who = row.provider or VALID
        left = "repair fixes it" if not row.after_repair else f"{row.after_repair} left after repair"
        more = f" (+{row.problems - 1} more)" if row.problems > 1 else ""
        bits.append(f"{who}: {row.problem}{more}; {left}")
    if row.verdict == OK and row.stricter:
        bits.append(stricter_said(row))
    if row.verdict == OK and row.fixes:
        bits.append(self_repairs(row))
    if row.last_error:
        bits.append(f"last API error: {row.last_error}{_length_said(row.last_error)}")
    if row.skipped:
        bits.append(f"{count(row.skipped, 'unreadable line')} skipped")
    return "  — " + show.line("; ".join(bits)) if bits else ""


def _length_said(error: str) -> str:
    """What a row's verdict does not judge where its last API error says the history was longer
    than the model's context window (``suture check`` says it after its verdict too)."""
    from suture.checks.explain import SHAPE_NOT_LENGTH, elsewhere

    cause = elsewhere(error)
    return f" ({SHAPE_NOT_LENGTH}: suture explain FILE)" if cause is not None and cause.kind == "length" else ""


class _JsonLines:
    def __init__(self, out: IO[bytes]) -> None:
        self.out = out

    def write(self, row: Row) -> None:
        self.out.write(show.dumps(_for_output(row), indent=False))
        self.out.flush()

    def close(self) -> None:
        self.out.flush()


_KEPT = re.compile("([\n\t])")
"""What a CSV cell holds as it is: the csv module quotes a cell with a newline or a tab in it."""


def _cell(value: object) -> object:
    """A CSV cell: text as it is where CSV can hold it (a newline or a tab, in a quoted cell: a
    file name with a newline and one with a backslash and an ``n`` stay two names), every other
    character a terminal would act on escaped as :func:`suture.show.line` escapes it (a carriage
    return, ESC, bidi controls); a truth value as JSON writes it (``true``, ``false``)."""
    if isinstance(value, str):
        if value.isprintable():
            return value
        return "".join(part if part in ("\n", "\t") else show.line(part) for part in _KEPT.split(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


class _Csv:
    """CSV with a header; text cells shown as ``suture.show.line`` shows them (``--json`` keeps every
    value exact), truth values as JSON writes them (:func:`_cell`)."""

    def __init__(self, out: IO[bytes]) -> None:
        self.text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
        self.writer = csv.writer(self.text)
        self.writer.writerow(COLUMNS)

    def write(self, row: Row) -> None:
        self.writer.writerow([_cell(v) for v in _for_output(row).values()])

    def close(self) -> None:
        self.text.flush()
        self.text.detach()  # the stream underneath stays open: it is not ours to close


class _Parquet:
    """Rows written to a Parquet file in row groups as they come (needs pyarrow)."""

    GROUP = 10_000

    def __init__(self, out: IO[bytes]) -> None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise InputError("writing Parquet needs pyarrow: pip install 'suture[parquet]'") from None
        types = {bool: pa.bool_(), int: pa.int64(), float: pa.float64(), str: pa.string()}
        sample = Row(path="", verdict="")
        self.pa = pa
        self.schema = pa.schema([(name, types[type(getattr(sample, name))]) for name in COLUMNS])
        self.writer = pq.ParquetWriter(out, self.schema)
        self.rows: list[dict[str, Any]] = []

    def write(self, row: Row) -> None:
        self.rows.append(_for_output(row))
        if len(self.rows) >= self.GROUP:
            self._flush()

    def _flush(self) -> None:
        if self.rows:
            self.writer.write_table(self.pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        self._flush()
        self.writer.close()


@contextlib.contextmanager
def _to_file(target: str) -> Iterator[Any]:
    """A writer for ``--out`` by the file's suffix, into a file that replaces ``target`` once
    every row is written (``suture.io.open_atomic``): a reader never sees half of it."""
    if os.path.isdir(target):
        raise InputError(f"{target}: is a folder; --out names a file")
    try:
        with open_atomic(target) as out:
            writer = (
                _Parquet(out)
                if target.endswith(".parquet")
                else _Csv(out)
                if target.endswith(".csv")
                else _JsonLines(out)
            )
            yield writer
            writer.close()
    except OSError as e:
        raise InputError(f"{target}: cannot write ({e.strerror or e})") from None


# -- running --------------------------------------------------------------------------------------


class _Ticker:
    """``scanned 1,200 of 10,000…`` on stderr, redrawn at most ten times a second, when stderr is
    a terminal."""

    def __init__(self) -> None:
        self.on = sys.stderr.isatty()
        self.last = 0.0
        self.shown = False

    def tick(self, done: int, total: int, found_all: bool) -> None:
        if not self.on:
            return
        now = time.monotonic()
        if now - self.last < 0.1:
            return
        self.last = now
        of = f" of {total:,}" if found_all else ""
        sys.stderr.write(f"\rscanned {done:,}{of}…\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    from suture.scan_cache import ScanCache
    from suture.scan_pool import Progress, require_fleet, scan_all
    from suture.sessions import Listing, agent_places, find

    if args.jobs is not None and args.jobs < 1:
        raise InputError("--jobs must be 1 or more")
    if args.out == "":
        raise InputError(NO_OUTPUT_NAME)
    if args.dask is not None:
        require_fleet()
    if args.out and args.out.endswith(".parquet"):
        with contextlib.suppress(ImportError):
            import pyarrow  # noqa: F401
        if "pyarrow" not in sys.modules:
            raise InputError("writing Parquet needs pyarrow: pip install 'suture[parquet]'")
    places = [] if args.paths else agent_places()
    listing = Listing()
    found = find(args.paths, places, listing)
    if args.out:
        found = _not_into(found, args.out)
    cache = None if args.no_cache else ScanCache()
    progress = Progress()
    counts = dict.fromkeys((REJECTED, OK, UNREADABLE, OTHER), 0)
    fixed = 0
    ticker = _Ticker()
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        writer: Any
        if args.out:
            writer = stack.enter_context(_to_file(args.out))
        elif args.json:
            writer = _JsonLines(sys.stdout.buffer)
        elif args.csv:
            writer = _Csv(sys.stdout.buffer)
        else:
            writer = _Table(sys.stdout, args.paths)
        try:
            for row in scan_all(found, jobs=args.jobs, cache=cache, dask=args.dask, progress=progress):
                counts[row.verdict] += 1
                fixed += row.verdict == REJECTED and not row.after_repair
                writer.write(row)
                ticker.tick(progress.done, progress.total, progress.found_all)
        finally:
            ticker.clear()
            if cache is not None:
                cache.close()
        if not args.out:
            writer.close()
    total = sum(counts.values())
    if not total:
        if not args.paths:
            raise InputError(f"no session files found {_no_places(places)}")
        raise InputError(listing.nothing_in(args.paths, "scan"))
    for path in listing.empty():
        sys.stderr.write(f"suture: warning: {show.line(listing.nothing_in([path], 'scan'))}\n")
    seconds = time.perf_counter() - start
    cached = f", {progress.cached:,} from the cache" if progress.cached else ""
    rejected = f"{counts[REJECTED]:,} would be rejected"
    if counts[REJECTED]:
        rejected += f" ({fixed:,} fixed by repair)"
    wrote = f"; rows in {show.path(args.out)}" if args.out else ""
    other = ""
    if counts[OTHER]:
        left_out = writer.left_out if isinstance(writer, _Table) else 0
        other = f", {count(counts[OTHER], 'other file')} (not transcripts{_left_out(left_out, counts[OTHER])})"
    sys.stderr.write(
        f"suture: scanned {count(total, 'file')} in {seconds:.1f} s{cached}: {rejected}, "
        f"{counts[OK]:,} ok, {counts[UNREADABLE]:,} unreadable{other}{wrote}\n"
    )
    if counts[UNREADABLE] + counts[OTHER] == total:
        return EXIT_BAD_INPUT
    return EXIT_FOUND if counts[REJECTED] else EXIT_OK


def _left_out(left_out: int, others: int) -> str:
    """What the summary adds where the table left ``left_out`` of the ``others`` rows out."""
    if not left_out:
        return ""
    listed = "" if left_out == others else f"{left_out:,} of them "
    return f"; {listed}not listed above: --json lists them"


def _not_into(found: Iterator[Found], out: str) -> Iterator[Found]:
    """The files found, stopping with an error at one that is the ``--out`` file: suture never
    writes over a file it reads."""
    for f in found:
        if not f.error and not is_url(f.path) and same_file(f.path, out):
            raise InputError(f"{show.path(out)}: is one of the files scanned; choose another --out")
        yield f


def _no_places(places: list[Any]) -> str:
    return "in " + ", ".join(show.path(p.root) for p in places) + " (pass a PATH to scan elsewhere)"
