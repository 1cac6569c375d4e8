"""``suture repair IN [-o OUT]``: write the repaired transcript, say what changed."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson

from suture.cli._common import load_strict, same_file, summary_line, write_output
from suture.formats import dump
from suture.io import InputError
from suture.repair import repair

NAMES = ("repair",)
ORDER = 20


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="write the repaired transcript (stdout by default) and a summary of changes to stderr",
        description=(
            "Repair a transcript by suture's contract and write it in the input's format. "
            "A one-line summary of the changes goes to stderr. The input file is never written."
        ),
    )
    p.add_argument("input", metavar="IN", help="transcript file")
    p.add_argument("-o", "--output", metavar="OUT", help="where to write (default: stdout; '-' is stdout)")
    p.add_argument(
        "--read-only",
        metavar="NAME,...",
        default="",
        help="tools that only read: their interrupted calls are marked safe to run again",
    )
    p.add_argument("--report", metavar="PATH", help="write a JSON report of every change to PATH")
    p.add_argument("--format", metavar="NAME", help="the input's format (default: detect from content)")
    p.add_argument("--to", metavar="FORMAT", help="write in this format instead of the input's")
    p.add_argument("--skip-bad-lines", action="store_true", help="repair the readable lines of a damaged JSONL file")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(run=run)


def read_only_set(spec: str) -> frozenset[str]:
    return frozenset(n.strip() for n in spec.split(",") if n.strip())


def run(args: argparse.Namespace) -> int:
    if args.output not in (None, "-") and same_file(args.input, args.output):
        raise InputError(f"{args.output}: is the input file; suture never writes over its input, choose another -o")
    if args.report and same_file(args.input, args.report):
        raise InputError(f"{args.report}: is the input file; choose another --report path")
    transcript = load_strict(args.input, args.format, args.skip_bad_lines)
    names = read_only_set(args.read_only)
    result = repair(transcript.messages, names.__contains__ if names else None)
    data = dump(result.messages, transcript, args.to)
    write_output(data, args.output)
    if args.report:
        write_output(orjson.dumps(result.report(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE), args.report)
    if not args.quiet:
        sys.stderr.write(f"suture: {summary_line(result)}\n")
    return 0
