"""``suture formats [--json]``: the formats suture reads and writes."""

from __future__ import annotations

import argparse
from typing import Any

from suture.cli import EXIT_OK
from suture.cli._common import out, out_json
from suture.formats import Adapter, adapters, request_bodies, written_formats
from suture.words import either

NAMES = ("formats",)
ORDER = 90


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="list the transcript formats suture knows", description="List the formats.")
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array for scripts: each format's name, title and the formats suture repair writes it as",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    found = adapters()
    if args.json:
        out_json([_as_json(a) for a in found])
        return EXIT_OK
    width = max(len(a.name) for a in found)
    out(*(f"{a.name:<{width}}  {a.title}{f'  ({w})' if (w := _writes(a)) else ''}" for a in found))
    out("", f"suture repair --to writes any of them as {either(request_bodies())}, and a session log as itself")
    return EXIT_OK


def _as_json(adapter: Adapter) -> dict[str, Any]:
    """A format as ``--json`` gives it: ``name``, ``title``; ``writes``, every format ``suture
    repair --to`` writes a transcript of it as, what it writes without ``--to`` first
    (:func:`suture.formats.written_formats`); ``written_back``, the agent a session log is written
    back for (``null``: none); ``request_formats``, the request bodies among ``writes``;
    ``sent_as``, the request format its history is sent to its provider in (a session log's: its
    agent's; pi's: one per provider it talks to)."""
    from suture.writeback import AGENTS

    writes = written_formats(adapter.name)
    bodies = request_bodies()
    return {
        "name": adapter.name,
        "title": adapter.title,
        "writes": list(writes),
        "written_back": AGENTS.get(adapter.name),
        "request_formats": [name for name in writes if name in bodies],
        "sent_as": list(_sent_as(adapter)),
    }


def _sent_as(adapter: Adapter) -> tuple[str, ...]:
    """The formats of the request body a transcript of this format is sent in: a session log's
    (pi's: one per provider it talks to), or the format itself for a request body."""
    return getattr(adapter, "request_formats", (adapter.export_format,))


def _writes(adapter: Adapter) -> str:
    """What ``suture repair`` writes for a file of this format, where it is not the format
    itself: a session log is written back as itself; the request body its agent sends is
    ``--to``. ``""`` where it is the format itself."""
    from suture.writeback import AGENTS, writes_back

    if writes_back(adapter.name):
        bodies = _sent_as(adapter)
        to = bodies[0] if len(bodies) == 1 else f"the format its provider takes ({either(bodies)})"
        return f"writes the session back, for {AGENTS[adapter.name]} to resume; --to {to}: its request body"
    return "" if adapter.export_format == adapter.name else f"exports as {adapter.export_format}"
