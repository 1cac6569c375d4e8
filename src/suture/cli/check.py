"""``suture check IN``: every way the transcript breaks the Valid property; exit 1 if any."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson

from suture.cli._common import load_strict
from suture.validity import violations

NAMES = ("check",)
ORDER = 30


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="list what would make a provider reject the transcript; exit 1 if anything",
        description=(
            "List every way the transcript breaks suture's Valid property (a call without exactly one "
            "result right after it, a result outside its call's turn, two calls with one id). "
            "Exit 1 if there is any, 0 if none, 2 if the file cannot be read."
        ),
    )
    p.add_argument("input", metavar="IN", help="transcript file")
    p.add_argument("--format", metavar="NAME", help="the input's format (default: detect from content)")
    p.add_argument("--json", action="store_true", help="print a JSON object for scripts")
    p.add_argument("--skip-bad-lines", action="store_true", help="check the readable lines of a damaged JSONL file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    transcript = load_strict(args.input, args.format, args.skip_bad_lines)
    found = violations(transcript.messages)
    if args.json:
        out = {
            "file": args.input,
            "format": transcript.format,
            "messages": len(transcript.messages),
            "valid": not found,
            "problems": [{**v.to_json(), "source": str(transcript.messages[v.index].source or "")} for v in found],
        }
        sys.stdout.buffer.write(orjson.dumps(out, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    else:
        n = len(transcript.messages)
        if not found:
            sys.stdout.write(f"{args.input}: valid ({n} messages, {transcript.format})\n")
        else:
            sys.stdout.write(
                f"{args.input}: {len(found)} problem{'s' if len(found) > 1 else ''} "
                f"({n} messages, {transcript.format})\n"
            )
            for v in found:
                source = transcript.messages[v.index].source
                where = f" ({source})" if source else ""
                sys.stdout.write(f"  [{v.index}]{where} {v.problem}\n")
    return 1 if found else 0
