"""Where agents keep their sessions, and finding session files in folders.

Each agent writes one JSONL file per session under a folder of its own
(``research/agents-resume.md`` in the design notes has how each was measured):

- Claude Code: ``$CLAUDE_CONFIG_DIR/projects/<cwd with / as ->/<session>.jsonl`` (default
  ``~/.claude``), subagents in ``<session>/subagents/agent-<id>.jsonl`` beside it;
- Codex: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`` (default ``~/.codex``);
- pi: ``$PI_CODING_AGENT_DIR/sessions/<cwd>/<ts>_<id>.jsonl`` (default ``~/.pi/agent``).

:func:`agent_places` names those folders for an environment; :func:`find` walks places and any
paths a person gives (a file is taken as it is, a folder is walked for ``.json`` and ``.jsonl``
files) and yields a :class:`Found` per file, newest first within each folder walked, with what
``stat`` said. Nothing here reads a file's content (what a session file says about its session is
its format adapter's to read: ``suture.formats.about``).

Pure standard library, no Textual: the command line, the app and the Dask workers share it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from suture import show

__all__ = ["Found", "Listing", "Place", "agent_places", "find", "find_urls", "is_url", "same_file_key"]


@dataclass(frozen=True, slots=True)
class Place:
    """A folder an agent keeps sessions in: ``agent`` (a format name), the folder, and where its
    location came from (``$CODEX_HOME/sessions``), for messages."""

    agent: str
    root: Path
    origin: str


@dataclass(frozen=True, slots=True)
class Found:
    """A file to scan: a local path or an fsspec URL, with the size and modification time (seconds
    since the epoch) ``stat`` gave, ``agent`` when it was found in an agent's own folder, and
    ``error`` when it could not even be listed (a folder that cannot be read, a path that does
    not exist)."""

    path: str
    size: int | None = None
    mtime: float | None = None
    agent: str = ""
    error: str = ""


@dataclass(slots=True)
class Listing:
    """What :func:`find` saw of each path it was given: how many files it gave (counted before
    any is left out as already found through another path), and the hidden folders it passed
    over in walking it (they are not walked: see :func:`_walk`)."""

    files: dict[str, int] = field(default_factory=dict)
    hidden: dict[str, list[str]] = field(default_factory=dict)

    def empty(self) -> list[str]:
        """The paths that gave no file at all, in the order given."""
        return [path for path, n in self.files.items() if not n]

    def skipped(self, paths: Iterable[str], command: str) -> str:
        """The hidden folders passed over in ``paths`` (folders whose name starts with a dot are
        not walked: a ``.git`` or a cache holds no session) and how to take one in with
        ``suture COMMAND``: name it; "" when there were none. The folders an agent keeps sessions
        in (``.claude`` in a home) come first."""
        paths = list(paths)
        hidden = [(p, h) for p in paths for h in self.hidden.get(p, [])]
        if not hidden:
            return ""
        hidden.sort(key=lambda ph: (not _holds_agent_place(ph[0], ph[1]), ph[1]))
        names = [show.path(os.path.relpath(h, p) if len(paths) == 1 else h) for p, h in hidden]
        more = f" and {len(names) - _HIDDEN_NAMED:,} more" if len(names) > _HIDDEN_NAMED else ""
        verb = "scan" if command == "scan" else "look in"
        return (
            f"skipped hidden folders: {', '.join(names[:_HIDDEN_NAMED])}{more}; "
            f"to {verb} one, name it: suture {command} {show.path(hidden[0][1])}"
        )

    def nothing_in(self, paths: Iterable[str], command: str) -> str:
        """That ``paths`` gave no session file, with the hidden folders passed over in them
        (:meth:`skipped`)."""
        paths = list(paths)
        text = "no session files found in " + ", ".join(show.path(p) for p in paths)
        skipped = self.skipped(paths, command)
        return f"{text} ({skipped})" if skipped else text


_HIDDEN_NAMED = 3
"""How many hidden folders :meth:`Listing.skipped` names (then how many more there are)."""


def _holds_agent_place(path: str, hidden: str) -> bool:
    """Whether ``hidden`` is, or holds, where an agent keeps sessions when ``path`` is a home."""
    folder = Path(hidden)
    return any(folder == p.root or folder in p.root.parents for p in agent_places({"HOME": path}))


def _home(env: Mapping[str, str]) -> Path:
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def agent_places(env: Mapping[str, str] | None = None) -> list[Place]:
    """The folders Claude Code, Codex and pi keep sessions in, for ``env`` (the process
    environment by default): each agent's own variable when set, else its default under HOME."""
    env = os.environ if env is None else env
    home = _home(env)
    places = []
    claude = env.get("CLAUDE_CONFIG_DIR")
    places.append(
        Place("claude-code", Path(claude) / "projects", "$CLAUDE_CONFIG_DIR/projects")
        if claude
        else Place("claude-code", home / ".claude" / "projects", "~/.claude/projects")
    )
    codex = env.get("CODEX_HOME")
    places.append(
        Place("codex", Path(codex) / "sessions", "$CODEX_HOME/sessions")
        if codex
        else Place("codex", home / ".codex" / "sessions", "~/.codex/sessions")
    )
    pi = env.get("PI_CODING_AGENT_DIR")
    places.append(
        Place("pi", Path(pi) / "sessions", "$PI_CODING_AGENT_DIR/sessions")
        if pi
        else Place("pi", home / ".pi" / "agent" / "sessions", "~/.pi/agent/sessions")
    )
    return places


_SUFFIXES = (".jsonl", ".json")


def is_url(path: str) -> bool:
    """Whether ``path`` names a file through fsspec (``s3://bucket/key``, ``gs://…``,
    ``memory://…``) rather than the local file system. ``file://`` counts as a URL too."""
    scheme, sep, _ = path.partition("://")
    return bool(sep) and scheme.replace("+", "").replace("-", "").isalnum()


def _is_candidate(name: str) -> bool:
    return not name.startswith(".") and name.endswith(_SUFFIXES)


def _walk(root: str, agent: str, hidden: list[str] | None = None) -> Iterator[Found]:
    """Every candidate file under ``root``, depth first, each folder's files newest first.
    Hidden files and folders (``.git``, a temporary file being written) are skipped, the folders
    added to ``hidden`` when given; symbolic links to folders are not followed (they could
    loop). A hidden folder named as ``root`` is walked."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as e:
            yield Found(folder, agent=agent, error=f"cannot list this folder ({e.strerror or e})")
            continue
        files: list[Found] = []
        subfolders: list[str] = []
        for entry in entries:
            if entry.name.startswith("."):
                if hidden is not None and _is_folder(entry):
                    hidden.append(entry.path)
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    subfolders.append(entry.path)
                    continue
                if not _is_candidate(entry.name) or not entry.is_file():
                    continue
                st = entry.stat()
            except OSError as e:
                files.append(Found(entry.path, agent=agent, error=f"cannot read ({e.strerror or e})"))
                continue
            files.append(Found(entry.path, st.st_size, st.st_mtime, agent))
        files.sort(key=lambda f: -(f.mtime or 0.0))
        yield from files
        stack.extend(sorted(subfolders, reverse=True))


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _one(path: str, agent: str = "", hidden: list[str] | None = None) -> Iterator[Found]:
    """A path a person named: a file as it is (whatever its name), a folder walked."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        yield Found(path, agent=agent, error="no such file or folder")
        return
    except OSError as e:
        yield Found(path, agent=agent, error=f"cannot read ({e.strerror or e})")
        return
    if os.path.isdir(path):
        yield from _walk(path, agent, hidden)
    else:
        yield Found(path, st.st_size, st.st_mtime, agent)


def find(
    paths: Iterable[str | os.PathLike[str]] = (), places: Iterable[Place] = (), listing: Listing | None = None
) -> Iterator[Found]:
    """Every file to scan: the agents' ``places`` that exist (a missing one is no error: that
    agent is not installed), then ``paths`` (files as they are, folders walked; one that does not
    exist is a :class:`Found` with an error). Each file once, however it was reached. URLs are
    listed through fsspec (:func:`find_urls`). ``listing``, when given, is filled in with what
    each path gave as the files are yielded."""
    seen: set[str] = set()

    def fresh(found: Found) -> bool:
        key = same_file_key(found.path)
        if key in seen:
            return False
        seen.add(key)
        return True

    for place in places:
        if place.root.is_dir():
            yield from (f for f in _walk(str(place.root), place.agent) if fresh(f))
    for path in paths:
        text = os.fspath(path)
        hidden: list[str] = []
        found = find_urls(text) if is_url(text) else _one(text, hidden=hidden)
        if listing is not None:
            listing.files[text] = 0
            listing.hidden[text] = hidden
        for f in found:
            if listing is not None:
                listing.files[text] += 1
            if fresh(f):
                yield f


def same_file_key(path: str) -> str:
    """What ``path`` and every other way to the same file give alike (its real path; a URL as
    it is): a file is scanned once however it was reached."""
    return path if is_url(path) else os.path.realpath(path)


def find_urls(url: str) -> Iterator[Found]:
    """The files under an fsspec URL (or the one file it names), with size and modification time
    where the store gives them. Needs fsspec (``pip install 'suture[fleet]'``)."""
    try:
        import fsspec
    except ImportError:
        yield Found(url, error="reading URLs needs fsspec: pip install 'suture[fleet]'")
        return
    try:
        fs, root = fsspec.core.url_to_fs(url)
        if fs.isdir(root):
            listing: dict[str, dict[str, Any]] = fs.find(root, detail=True)
            items = sorted(listing.items())
        else:
            items = [(root, fs.info(root))]
    except Exception as e:  # any store's error (no such bucket, no credentials): a row, not a stop
        yield Found(url, error=f"cannot list ({type(e).__name__}: {e})")
        return
    for name, info in items:
        base = name.rstrip("/").rsplit("/", 1)[-1]
        if info.get("type") == "directory" or (len(items) > 1 and not _is_candidate(base)):
            continue
        yield Found(fs.unstrip_protocol(name), info.get("size"), _mtime_of(info))


def _mtime_of(info: Mapping[str, Any]) -> float | None:
    """The modification time an fsspec listing gives, in seconds, under whichever name the store
    uses (``mtime`` locally, ``LastModified`` on S3, ``updated`` on GCS)."""
    for key in ("mtime", "LastModified", "last_modified", "updated", "modified"):
        value = info.get(key)
        if value is None:
            continue
        if isinstance(value, int | float):
            return float(value)
        if hasattr(value, "timestamp"):
            return float(value.timestamp())
        if isinstance(value, str):
            from datetime import datetime

            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return None
