"""``suture FILE`` / ``suture view FILE``: open the app; ``suture demo``: open it on a bundled sample.

Textual is imported inside :func:`run` only, so the other subcommands start fast.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from suture.io import InputError

NAMES = ("view", "demo")
ORDER = 10


def add_arguments(sub: Any, name: str) -> None:
    if name == "demo":
        p = sub.add_parser(
            name,
            help="open the app on a bundled sample that shows every kind of change",
            description="Open the app on a small bundled transcript in which repair makes every kind of change.",
        )
        p.set_defaults(run=run, demo=True, input=None, format=None, read_only="", no_watch=True)
        return
    p = sub.add_parser(
        name,
        help="open the app: original and repaired side by side (also 'suture FILE')",
        description=(
            "Open a transcript in the app: the original and the repaired history side by side, every change "
            "marked. The file is watched and the view reloads when it changes. The input is never written "
            "unless you export over it and confirm."
        ),
    )
    p.add_argument("input", metavar="FILE", help="transcript file")
    p.add_argument("--format", metavar="NAME", help="the input's format (default: detect from content)")
    p.add_argument(
        "--read-only",
        metavar="NAME,...",
        default="",
        help="tools that only read: their interrupted calls are marked safe to run again",
    )
    p.add_argument("--no-watch", action="store_true", help="read the file once; do not reload when it changes")
    p.set_defaults(run=run, demo=False)


def demo_path() -> Path:
    """The bundled demo transcript (a real file inside the installed package)."""
    return Path(__file__).resolve().parent.parent / "tui" / "demo.json"


def run(args: argparse.Namespace) -> int:
    names = frozenset(n.strip() for n in (args.read_only or "").split(",") if n.strip())
    if args.demo:
        path = demo_path()
        export_dir: Path | None = Path.cwd()
        title = "demo"
    else:
        path = Path(args.input)
        if path.is_dir():
            raise InputError(f"{path}: is a folder, not a transcript file")
        if not path.exists():
            raise InputError(f"{path}: no such file")
        export_dir = None
        title = None
    from suture.tui.app import SutureApp

    app = SutureApp(
        path,
        format=args.format,
        read_only=names,
        watch=not args.no_watch,
        export_dir=export_dir,
        title=title,
    )
    app.run()
    return 0
