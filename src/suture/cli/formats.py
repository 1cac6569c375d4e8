"""``suture formats``: the formats suture reads and writes."""

from __future__ import annotations

import argparse
from typing import Any

from suture.cli import EXIT_OK
from suture.cli._common import out
from suture.formats import adapters

NAMES = ("formats",)
ORDER = 90


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="list the transcript formats suture knows", description="List the formats.")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    found = adapters()
    width = max(len(a.name) for a in found)
    lines = []
    for a in found:
        export = "" if a.export_format == a.name else f"  (exports as {a.export_format})"
        lines.append(f"{a.name:<{width}}  {a.title}{export}")
    out(*lines)
    return EXIT_OK
