"""``python -m tools.agents``: install the pinned agents, record the corpus, list the shapes.

python -m tools.agents install [--agent NAME] [--version NAME=VERSION]
python -m tools.agents record [--agent NAME] [--shape NAME] [--out DIR] [--version NAME=VERSION] [--api API]
python -m tools.agents list

pi is recorded talking to each provider the mock speaks (``drivers.PI_APIS``), each into its own
folder (``pi-0.73.1`` OpenAI Chat, ``pi-0.73.1-anthropic``, ``pi-0.73.1-responses``,
``pi-0.73.1-gemini``); ``--api``
records only those of pi's ``api`` names given.

``--version`` runs another release of an agent than the pinned one (to see whether a new release
still does what the corpus recorded: record it into another ``--out`` and compare the tables).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

from tools.agents.corpus import table
from tools.agents.drivers import AGENTS, PI_APIS, Agent, Pi
from tools.agents.edits import EditError
from tools.agents.record import CORPUS, SHAPES, RecordError, applies, record_shape


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.agents", description=__doc__.splitlines()[0] if __doc__ else None
    )
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install", help="install the pinned agents into the cache folder")
    inst.add_argument("--agent", choices=sorted(AGENTS), action="append")
    inst.add_argument("--version", action="append", default=[], metavar="NAME=VERSION", type=_version)
    rec = sub.add_parser("record", help="record crash shapes with the real agents")
    rec.add_argument("--agent", choices=sorted(AGENTS), action="append")
    rec.add_argument("--shape", choices=sorted(SHAPES), action="append")
    rec.add_argument("--out", type=Path, default=CORPUS, help=f"corpus folder (default {CORPUS})")
    rec.add_argument("--version", action="append", default=[], metavar="NAME=VERSION", type=_version)
    rec.add_argument("--api", choices=list(PI_APIS), action="append", help="pi's api to record with (default: each)")
    sub.add_parser("list", help="list agents, shapes and which apply")
    tab = sub.add_parser("table", help="print the corpus as a table: what each agent sent on resume, the mock's answer")
    tab.add_argument("--root", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    if args.command == "table":
        print(table(args.root))
        return 0

    versions = dict(getattr(args, "version", []))
    agents = [_released(AGENTS[n], versions.get(n)) for n in (getattr(args, "agent", None) or sorted(AGENTS))]
    if args.command == "install":
        for agent in agents:
            if agent.installed():
                print(f"{agent.folder}: installed in {agent.prefix}")
                continue
            print(f"{agent.folder}: installing {agent.package}@{agent.version} into {agent.prefix}")
            agent.install()
        return 0
    if args.command == "list":
        for agent in [v for a in agents for v in a.variants()]:
            state = "installed" if agent.installed() else "not installed"
            names = [s.name for s in SHAPES.values() if applies(agent, s)]
            print(f"{agent.folder} ({state}): {', '.join(names)}")
        return 0
    shapes = [SHAPES[n] for n in (args.shape or list(SHAPES))]
    failed = 0
    apis = args.api or list(PI_APIS)
    variants = [v for a in agents for v in a.variants() if not isinstance(v, Pi) or v.api in apis]
    for agent in variants:
        for shape in shapes:
            if not applies(agent, shape):
                continue
            try:
                folder = record_shape(agent, shape, args.out)
            except (RecordError, EditError) as exc:
                failed += 1
                print(f"{agent.folder} {shape.name}: FAILED: {exc}", file=sys.stderr)
                continue
            resume = json.loads((folder / "shape.json").read_text())["resume"]
            print(
                f"{agent.folder} {shape.name}: {resume['outcome']} ({resume['status']}) {resume['error'] or ''}".rstrip()
            )
    return 1 if failed else 0


def _version(text: str) -> tuple[str, str]:
    name, _, version = text.partition("=")
    if name not in AGENTS or not version.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VERSION with NAME one of {', '.join(sorted(AGENTS))}")
    return name, version.strip()


def _released(agent: Agent, version: str | None) -> Agent:
    """``agent`` pinned to ``version`` instead (a copy; the pinned driver is left as it is)."""
    if version is None or version == agent.version:
        return agent
    other = copy.copy(agent)
    other.version = version
    return other


if __name__ == "__main__":
    sys.exit(main())
