"""``suture keys [--json]``: every key binding of the app, by the id a keymap names it by.

The settings file (:mod:`suture.settings`) binds keys otherwise by these ids; this lists each
one's keys as the app binds them now (the settings file's where it gives some), what it does, and
where the settings file is. A settings file suture cannot use is one line of error, exit code 2,
as when the app opens.
"""

from __future__ import annotations

import argparse
from typing import Any

from suture import show
from suture.cli import EXIT_OK
from suture.cli._common import out, out_json
from suture.settings import read_settings, settings_path

NAMES = ("keys",)
ORDER = 85


def add_arguments(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="list the app's key bindings by id, for the settings file's [keymap]",
        description=(
            "List every key binding of the app and the sessions browser: its id, its keys now (the settings "
            "file's [keymap] where it binds it otherwise) and what it does."
        ),
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON object for scripts: the settings file and every binding's id, keys, own keys and words",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from textual.keys import format_key

    from suture.tui.keys import every_binding, keys_now, shadowed

    settings = read_settings()
    path, _ = settings_path()
    keys = keys_now(settings.keymap)
    over = shadowed(settings.keymap)
    rows: list[dict[str, Any]] = []
    for binding_id, binding in every_binding().items():
        own = binding.key.split(",")
        now = keys[binding_id]
        rows.append(
            {
                "id": binding_id,
                "keys": [format_key(k) for k in now],
                "own_keys": [format_key(k) for k in own],
                "description": binding.description,
                "tooltip": binding.tooltip,
                "shadowed": [{"key": format_key(key), "by": other} for key, other in over.get(binding_id, [])],
            }
        )
    unknown = sorted(set(settings.keymap) - {row["id"] for row in rows})
    if args.json:
        out_json(
            {"settings": show.path_json(path), "read": settings.path is not None, "unknown": unknown, "bindings": rows}
        )
        return EXIT_OK
    bound = sum(row["keys"] != row["own_keys"] for row in rows)
    where = show.path(path)
    if settings.path is None:
        out(f"settings file: {where} (none there: every key is suture's own)")
    else:
        out(f"settings file: {where} ({bound} binding{'' if bound == 1 else 's'} with keys other than suture's own)")
    if unknown:
        out(f"  its keymap names {', '.join(unknown)}, which no binding is called")
    out("")
    id_width = max(len(row["id"]) for row in rows)
    key_width = min(24, max(len(", ".join(row["keys"])) for row in rows))
    for row in rows:
        shown = ", ".join(row["keys"]) or "(none)"
        mark = "*" if row["keys"] != row["own_keys"] else " "
        words = row["description"] + (f": {row['tooltip']}" if row["tooltip"] else "")
        for key in dict.fromkeys(each["key"] for each in row["shadowed"]):
            # (the key is the app's only where no widget or dialog takes it)
            by = ", ".join(each["by"] for each in row["shadowed"] if each["key"] == key)
            words += f" ({key} does {by} where that has focus)"
        mark = "!" if row["shadowed"] else mark
        out(f"{row['id']:<{id_width}} {mark}{shown:<{key_width}}  {words}")
    if bound:
        out(
            "",
            "* bound otherwise by the settings file, or a key of its own taken by it (suture keys --json gives own_keys)",
        )
    if over:
        out(
            "! a key a widget's or dialog's binding has too, the settings file giving either of them the key: "
            "that one takes it where it has focus"
        )
    return EXIT_OK
