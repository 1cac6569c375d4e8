"""suture's settings file: the keys a person binds otherwise than suture does.

The file is TOML, at ``$SUTURE_CONFIG`` where that is set, else at
``$XDG_CONFIG_HOME/suture/config.toml`` (``~/.config/suture/config.toml``). It may be missing; one
named by ``$SUTURE_CONFIG`` may not. Its one table, ``[keymap]``, maps a binding's id (``suture
keys`` lists them; quoted or not) to the keys that do it instead of its own, as Textual's keymaps
do::

    [keymap]
    "app.next_change" = "n,ctrl+n"
    "view.down" = "down,j,ctrl+j"

A key a binding takes from another leaves the other without it (the app says so once). A file
suture cannot use is one line of error, exit code 2 (:class:`suture.io.InputError`), before
anything opens; a binding id no screen has is said in the app, not refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from suture import show
from suture.io import InputError

__all__ = ["SETTINGS_ENV", "Settings", "read_settings", "settings_path"]

SETTINGS_ENV = "SUTURE_CONFIG"
"""The environment variable that names the settings file (it must exist then)."""
_TABLES = ("keymap",)


class Settings(Struct, frozen=True):
    """What the settings file says: ``keymap`` (binding id to keys, each list of keys joined by
    commas, no spaces), and the file it was read from (``None`` where there is none). A Struct,
    as every record made before the app's first screen (docs/architecture.md)."""

    keymap: dict[str, str] = field(default_factory=dict)
    path: Path | None = None


def settings_path(env: Mapping[str, str] | None = None) -> tuple[Path, bool]:
    """Where the settings file is, and whether ``$SUTURE_CONFIG`` named it."""
    env = os.environ if env is None else env
    named = env.get(SETTINGS_ENV)
    if named:
        return Path(named).expanduser(), True
    base = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME") or str(Path.home()), ".config")
    return Path(base) / "suture" / "config.toml", False


def read_settings(env: Mapping[str, str] | None = None) -> Settings:
    """The settings file read (:func:`settings_path`); empty settings where there is none."""
    path, named = settings_path(env)
    shown = show.path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if named:
            raise InputError(f"{shown}: no such settings file (${SETTINGS_ENV} names it)") from None
        return Settings()
    except IsADirectoryError:
        raise InputError(f"{shown}: is a folder, not a settings file") from None
    except OSError as e:
        raise InputError(f"{shown}: cannot read the settings file: {e.strerror or e}") from None
    import tomllib  # (only where there is a file: a first screen without one does not import it)

    try:
        table = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{shown}: the settings file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{shown}: not a TOML settings file: {show.line(str(e))}") from None
    unknown = [name for name in table if name not in _TABLES]
    if unknown:
        known = ", ".join(f"[{name}]" for name in _TABLES)
        raise InputError(f"{shown}: unknown setting {show.line(repr(unknown[0]))} (suture reads {known})")
    return Settings(keymap=_keymap(table.get("keymap", {}), shown), path=path)


def _keymap(table: object, shown: str) -> dict[str, str]:
    if not isinstance(table, dict):
        raise InputError(f'{shown}: [keymap] is a table of binding ids and keys ("app.next_change" = "n,ctrl+n")')
    keymap: dict[str, str] = {}
    for binding_id, keys in _flat(table):
        name = show.line(repr(binding_id))
        if not isinstance(keys, str):
            raise InputError(f'{shown}: keymap {name}: the keys are one string, such as "n,ctrl+n"')
        each = [key.strip() for key in keys.split(",")]
        if not all(each) or any(" " in key for key in each):
            raise InputError(
                f'{shown}: keymap {name}: keys are named one by one, with commas: "n,ctrl+n", not {show.line(repr(keys))}'
            )
        keymap[binding_id] = ",".join(each)
    return keymap


def _flat(table: dict[str, Any], prefix: str = "") -> list[tuple[str, object]]:
    """The keymap's ids and values, an id written unquoted (``app.next_change = "n"``, which TOML
    reads as a table ``app`` holding ``next_change``) read as the id it spells."""
    out: list[tuple[str, object]] = []
    for name, value in table.items():
        if isinstance(value, dict):
            out.extend(_flat(value, f"{prefix}{name}."))
        else:
            out.append((f"{prefix}{name}", value))
    return out
