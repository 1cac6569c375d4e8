"""Rows of files already scanned, so that scanning an unchanged tree again reads no file.

A row is kept under the file's path, size and modification time (nanoseconds where ``stat``
gives them): a file that changed in any of them is scanned again. The rows also depend on
suture itself (a new check, or a new model of what an agent sends, changes verdicts), so the
database is named after a hash of suture's own code: an upgrade (or an edit of a checkout)
starts a fresh cache and never shows a verdict an older suture gave.

The cache lives outside every tree it describes, in ``$XDG_CACHE_HOME/suture/`` (default
``~/.cache/suture/``; ``SUTURE_CACHE_DIR`` overrides it), as SQLite in WAL mode: any number of
scans (the command line, the app, in several terminals) read and write it at once; a writer
that finds it busy waits a little, then goes on without storing. Where the folder cannot be
written the scan runs without a cache. Nothing here raises on a broken cache: at worst the
files are scanned again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

import orjson

from suture.scan import Row
from suture.sessions import Found

__all__ = ["ScanCache", "cache_dir", "code_fingerprint"]

_SCHEMA = "2"


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where suture keeps its cache for ``env`` (the process environment by default)."""
    env = os.environ if env is None else env
    if env.get("SUTURE_CACHE_DIR"):
        return Path(env["SUTURE_CACHE_DIR"])
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or str(Path.home()), ".cache")
    return Path(base) / "suture"


@cache
def code_fingerprint() -> str:
    """A short hash of suture's installed code (each module's path and bytes, read once per
    process: about a megabyte): rows made by any other code are never used, however it was
    installed (an installer or an archive that keeps files' times and sizes included)."""
    return fingerprint_of(Path(__file__).resolve().parent)


def fingerprint_of(root: Path) -> str:
    """:func:`code_fingerprint` of the package in folder ``root``."""
    h = hashlib.sha256(_SCHEMA.encode())
    for path in sorted(root.rglob("*.py")):
        with contextlib.suppress(OSError):
            data = path.read_bytes()
            h.update(f"{path.relative_to(root)}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()[:16]


def _key(found: Found) -> tuple[bytes, int, int] | None:
    """The file's path (as bytes: a file name need not be UTF-8), size and time in nanoseconds."""
    if found.error or found.size is None or found.mtime is None:
        return None
    return found.path.encode("utf-8", "surrogateescape"), found.size, round(found.mtime * 1e9)


class ScanCache:
    """``ScanCache()`` opens (or makes) the cache for this version of suture; ``get`` a row for a
    file as found, ``put`` rows after scanning. ``hits`` and ``misses`` count lookups."""

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = Path(folder) if folder is not None else cache_dir()
        self.path = self.folder / f"scan-{code_fingerprint()}.sqlite3"
        self.hits = 0
        self.misses = 0
        self._db: sqlite3.Connection | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=2.0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS rows (path BLOB, size INTEGER, mtime_ns INTEGER, row BLOB, "
                "PRIMARY KEY (path, size, mtime_ns)) WITHOUT ROWID"
            )
            self._db = db
        except (OSError, sqlite3.Error):
            self._db = None

    @property
    def usable(self) -> bool:
        return self._db is not None

    def get(self, found: Found) -> Row | None:
        """The row stored for this file at this size and time, or None."""
        key = _key(found)
        if key is None or self._db is None:
            return None
        try:
            got = self._db.execute("SELECT row FROM rows WHERE path=? AND size=? AND mtime_ns=?", key).fetchone()
        except sqlite3.Error:
            got = None
        if got is None:
            self.misses += 1
            return None
        try:
            row = Row.from_json({**orjson.loads(got[0]), "path": found.path})
        except (orjson.JSONDecodeError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return row

    def put(self, rows: Iterable[tuple[Found, Row]]) -> None:
        """Store rows of files as they were found (pass only rows that are a function of the
        file's bytes: see ``suture.scan.scan_found``). Files whose stat is unknown are not kept."""
        if self._db is None:
            return
        items = []
        for found, row in rows:
            key = _key(found)
            if key is None:
                continue
            value = row.to_json()
            del value["path"]  # the key holds it
            try:
                items.append((*key, orjson.dumps(value)))
            except orjson.JSONEncodeError:
                continue
        if not items:
            return
        try:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany("INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?)", items)
        except sqlite3.Error:
            pass  # busy beyond the timeout, or a full disk: these rows are scanned again next time

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
