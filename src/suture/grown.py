"""Sequences that the versions of a growing file share (no Textual here).

A file that grows (a live session, a file read in pieces) is loaded, repaired and drawn again
and again; each new state keeps almost everything of the one before. :class:`Grown` is a list
that such versions share: a new version costs what it adds, never the items it keeps.
:class:`Growing` is a version being written, item by item, over the kept items of another (the
repair of appended messages writes its output so: :func:`suture.repair.repair_from`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Generic, TypeVar, overload

__all__ = ["Growing", "Grown", "grown_by"]

T = TypeVar("T")

_BITS = 12
_CHUNK = 1 << _BITS
_MASK = _CHUNK - 1


class Grown(Sequence[T]):
    """A list that versions share as it grows: each version sees its own first ``len`` items.

    Items live in chunks of 4,096. :meth:`grown` makes the next version, which keeps the first
    ``start`` items of this one and adds ``items``: the chunks before ``start`` are shared, the
    chunk ``start`` falls in is copied (at most 4,096 references) unless no later version wrote
    into it yet, so a new version costs what it adds, never the items it keeps. No version's
    items change once made: a version only reads its own first ``len`` items, and a chunk is
    only ever appended to past the ends of the versions that share it. Making versions from one
    another needs one writer at a time (readers of older versions may run meanwhile)."""

    __slots__ = ("_chunks", "_n")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._chunks: list[list[T]] = []
        self._n = 0
        self._add(items if isinstance(items, list) else list(items))

    def _add(self, items: list[T]) -> None:
        chunks = self._chunks
        at = 0
        while at < len(items):
            if not chunks or len(chunks[-1]) == _CHUNK:
                chunks.append([])
            last = chunks[-1]
            room = _CHUNK - len(last)
            last.extend(items[at : at + room])
            at += room
        self._n += len(items)

    def grown(self, start: int, items: list[T]) -> Grown[T]:
        """A new version: the first ``start`` items of this one, then ``items``."""
        if not 0 <= start <= self._n:
            raise IndexError(start)
        new: Grown[T] = Grown.__new__(Grown)
        chunks = self._chunks[: start >> _BITS]
        rest = start & _MASK
        if rest:
            part = self._chunks[start >> _BITS]
            # Written past ``start`` by a version made from this one: copy what is kept.
            chunks.append(part if len(part) == rest else part[:rest])
        new._chunks = chunks
        new._n = start
        new._add(items)
        return new

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._n)
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            out: list[T] = []
            while start < stop:
                chunk = self._chunks[start >> _BITS]
                at = start & _MASK
                piece = chunk[at : at + min(stop - start, _CHUNK - at)]
                out.extend(piece)
                start += len(piece)
            return out
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError(index)
        return self._chunks[index >> _BITS][index & _MASK]

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of equal items (a list too), as a list is."""
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == self._n and all(a == b for a, b in zip(self, other, strict=False))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Grown({list(self)!r})"

    def __iter__(self) -> Iterator[T]:
        left = self._n
        for chunk in self._chunks:
            if left <= 0:
                return
            if len(chunk) <= left:
                yield from chunk
            else:
                yield from chunk[:left]
            left -= len(chunk)


def grown_by(items: Sequence[T], more: list[T], start: int | None = None) -> Sequence[T]:
    """``[*items[:start], *more]`` (``start``: all of ``items`` by default) without copying
    ``items`` once they are a :class:`Grown` (made one the first time: a full read gives a
    list)."""
    base = items if isinstance(items, Grown) else Grown(items)
    return base.grown(len(items) if start is None else start, more)


class Growing(Generic[T]):
    """The next version of ``base`` being written: its first ``start`` items, kept (never
    copied), then what :meth:`append` and :meth:`extend` add. Indexed as the whole version is
    (an index or a slice from ``start`` on reads what was added); :meth:`done` gives it."""

    __slots__ = ("_base", "_items", "_start", "append", "extend")

    def __init__(self, base: Sequence[T] = (), start: int = 0) -> None:
        if not 0 <= start <= len(base):
            raise IndexError(start)
        self._base = base
        self._start = start
        self._items: list[T] = []
        # The list's own methods: a repair appends an item at a time.
        self.append: Callable[[T], None] = self._items.append
        self.extend: Callable[[Iterable[T]], None] = self._items.extend

    def __len__(self) -> int:
        return self._start + len(self._items)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        start = self._start
        if isinstance(index, slice):
            first, stop, step = index.indices(len(self))
            if step != 1 or first < start:
                return [self[i] for i in range(first, stop, step)]
            return self._items[first - start : stop - start]
        if index < 0:
            index += len(self)
        if index >= start:
            return self._items[index - start]
        if index < 0:
            raise IndexError(index)
        return self._base[index]

    def done(self) -> Sequence[T]:
        """The version written: a plain list where nothing was kept, else a :class:`Grown` that
        shares the kept items with ``base``."""
        if not self._start:
            return self._items
        base = self._base if isinstance(self._base, Grown) else Grown(self._base)
        return base.grown(self._start, self._items)
