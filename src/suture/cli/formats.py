"""``suture formats``: the formats suture reads and writes."""

from __future__ import annotations

import argparse
from typing import Any

from suture.cli import EXIT_OK
from suture.cli._common import out
from suture.formats import Adapter, adapters

NAMES = ("formats",)
ORDER = 90


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="list the transcript formats suture knows", description="List the formats.")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    found = adapters()
    width = max(len(a.name) for a in found)
    out(*(f"{a.name:<{width}}  {a.title}{_writes(a)}" for a in found))
    return EXIT_OK


def _writes(adapter: Adapter) -> str:
    """What ``suture repair`` writes for a file of this format, where it is not the format
    itself: a session log is written back as itself; its request body is ``--to``."""
    from suture.writeback import AGENTS, writes_back

    if writes_back(adapter.name):
        bodies: tuple[str, ...] = getattr(adapter, "request_formats", (adapter.export_format,))
        to = (
            bodies[0]
            if len(bodies) == 1
            else f"the format its provider takes ({', '.join(bodies[:-1])} or {bodies[-1]})"
        )
        return f"  (writes the session back, for {AGENTS[adapter.name]} to resume; --to {to}: its request body)"
    return "" if adapter.export_format == adapter.name else f"  (exports as {adapter.export_format})"
