"""``suture formats [--json]``: the formats suture reads and writes."""

from __future__ import annotations

import argparse
from typing import Any

from suture.cli import EXIT_OK
from suture.cli._common import out, out_json
from suture.formats import Adapter, adapters

NAMES = ("formats",)
ORDER = 90


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="list the transcript formats suture knows", description="List the formats.")
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array for scripts: each format's name, title and what suture repair writes for it",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    found = adapters()
    if args.json:
        out_json([_as_json(a) for a in found])
        return EXIT_OK
    width = max(len(a.name) for a in found)
    out(*(f"{a.name:<{width}}  {a.title}{f'  ({w})' if (w := _writes(a)) else ''}" for a in found))
    return EXIT_OK


def _as_json(adapter: Adapter) -> dict[str, Any]:
    """A format as ``--json`` gives it: ``name``, ``title``; ``writes``, what the table says
    ``suture repair`` writes for it (``null`` where that is the format itself); ``written_back``,
    the agent a session log is written back for (``null``: none); ``request_formats``, the
    formats of the request body its history is sent in (a session log's: what ``--to`` writes)."""
    from suture.writeback import AGENTS

    return {
        "name": adapter.name,
        "title": adapter.title,
        "writes": _writes(adapter) or None,
        "written_back": AGENTS.get(adapter.name),
        "request_formats": list(_bodies(adapter)),
    }


def _bodies(adapter: Adapter) -> tuple[str, ...]:
    """The formats of the request body a transcript of this format is sent in: a session log's
    (pi's: one per provider it talks to), or the format itself for a request body."""
    return getattr(adapter, "request_formats", (adapter.export_format,))


def _writes(adapter: Adapter) -> str:
    """What ``suture repair`` writes for a file of this format, where it is not the format
    itself: a session log is written back as itself; its request body is ``--to``. ``""``
    where it is the format itself."""
    from suture.writeback import AGENTS, writes_back

    if writes_back(adapter.name):
        bodies = _bodies(adapter)
        to = (
            bodies[0]
            if len(bodies) == 1
            else f"the format its provider takes ({', '.join(bodies[:-1])} or {bodies[-1]})"
        )
        return f"writes the session back, for {AGENTS[adapter.name]} to resume; --to {to}: its request body"
    return "" if adapter.export_format == adapter.name else f"exports as {adapter.export_format}"
