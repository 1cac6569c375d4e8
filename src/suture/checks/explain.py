"""Recognise a pasted provider error and find the messages it names (the core of ``suture explain``).

``recognise(text)`` matches the text against every rule's patterns (providers reword their
errors, so patterns match the stable words and pull out the ids and indices);
``locate(messages, recognition)`` finds the messages: first among the violations the provider's
check reports for that rule (narrowed to the ids and indices the text names), then, for a rule no
check can see from the history alone (an edited thinking block), by the ids and indices
themselves. ``closest(text)`` ranks rules for a text nothing recognises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from suture.checks import Verdict, Violation, verdict
from suture.checks._wire import contents, items, turns
from suture.checks.rules import RULES, Rule, normalise
from suture.model import Message
from suture.repair import Repair

__all__ = ["Location", "Recognition", "closest", "locate", "recognise"]

# Indices some providers give outside the sentence (OpenAI's "param": "messages.[57].role").
_PARAM_INDEX = re.compile(r"messages\.?\[(\d+)\]\.role", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Recognition:
    """A rule whose text the error matches, and what the error names."""

    rule: Rule
    ids: tuple[str, ...] = ()
    index: int | None = None
    block: int | None = None
    other_index: int | None = None
    matched: str = ""

    @property
    def providers(self) -> tuple[str, ...]:
        return self.rule.providers


def _ids(groups: dict[str, str | None]) -> tuple[str, ...]:
    found: list[str] = []
    for key in ("ids", "id", "id2"):
        value = groups.get(key)
        if not value:
            continue
        for part in value.split(","):
            part = part.strip().rstrip(".:;)")
            if part and part not in found:
                found.append(part)
    return tuple(found)


def _int(groups: dict[str, str | None], key: str) -> int | None:
    value = groups.get(key)
    return int(value) if value is not None and value.isdigit() else None


def recognise(text: str) -> list[Recognition]:
    """Every rule the text matches, best (longest match) first."""
    flat = normalise(text)
    found: list[tuple[int, int, Recognition]] = []
    for order, r in enumerate(RULES.values()):
        best: re.Match[str] | None = None
        for pattern in r.compiled():
            m = pattern.search(flat)
            if m and (best is None or len(m.group()) > len(best.group())):
                best = m
        if best is None:
            continue
        groups = best.groupdict()
        index = _int(groups, "n")
        if index is None:
            param = _PARAM_INDEX.search(flat)
            index = int(param.group(1)) if param else None
        block = _int(groups, "m")
        if block is None:
            block = _int(groups, "c")
        rec = Recognition(r, _ids(groups), index, block, _int(groups, "n2"), best.group())
        found.append((-len(best.group()), order, rec))
    found.sort(key=lambda t: (t[0], t[1]))
    return [rec for _, _, rec in found]


_WORD = re.compile(r"[a-z_]{3,}")
_COMMON = frozenset({"the", "and", "for", "with", "must", "messages", "message", "that", "this", "each", "are"})


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(normalise(text).lower()) if w not in _COMMON}


def closest(text: str, limit: int = 3) -> list[Rule]:
    """The rules whose texts share the most words with ``text``."""
    words = _words(text)
    scored = []
    for order, r in enumerate(RULES.values()):
        theirs = _words(" ".join((r.title, *r.errors)))
        common = len(words & theirs)
        if common:
            scored.append((-common / (len(theirs) ** 0.5 or 1), order, r))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [r for _, _, r in scored[:limit]]


@dataclass(slots=True)
class Location:
    """Where the error's messages are: the provider's violations, or just the messages named."""

    provider: str | None
    violations: list[Violation] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)
    verdict: Verdict | None = None
    by: str = ""
    """``check`` (found by the provider's check), ``ids`` or ``index`` (found by what the text names)."""

    @property
    def found(self) -> bool:
        return bool(self.indices)


def _wire_index(rec: Recognition) -> tuple[int | None, int | None]:
    if rec.rule.index == "turns1":
        return (rec.index - 1 if rec.index else None), (rec.block - 1 if rec.block else None)
    return rec.index, rec.block


def _narrow(found: list[Violation], rec: Recognition) -> list[Violation]:
    n, m = _wire_index(rec)
    if rec.ids:
        by_id = [v for v in found if v.call_id in rec.ids or any(i in v.error for i in rec.ids)]
        if by_id:
            found = by_id
        elif n is None:
            return []
    if n is not None:
        by_index = [v for v in found if v.wire_index == n]
        if not by_index and not rec.ids:
            return []
        found = by_index or found
        if m is not None:
            found = [v for v in found if v.block == m] or found
    return found


def _named(messages: Sequence[Message], rec: Recognition) -> tuple[list[int], str]:
    """The neutral messages the error's ids, or else its index, point at."""
    if rec.ids:
        wanted = set(rec.ids)
        hits = [
            i
            for i, m in enumerate(messages)
            if (m.role == "tool" and m.tool_call_id in wanted) or any(c.id in wanted for c in m.tool_calls)
        ]
        if hits:
            return hits, "ids"
    n, m = _wire_index(rec)
    if n is None:
        return [], ""
    kind = rec.rule.index
    if kind in ("turns", "turns1", "contents"):
        wire = contents(messages) if kind == "contents" else turns(messages)
        if not 0 <= n < len(wire):
            return [], ""
        turn = wire[n]
        if m is not None and 0 <= m < len(turn.blocks):
            return [turn.blocks[m].source], "index"
        return list(turn.members), "index"
    if kind == "items":
        listed = items(messages)
        return ([listed[n].source], "index") if 0 <= n < len(listed) else ([], "")
    return ([n], "index") if 0 <= n < len(messages) else ([], "")


def locate(messages: Sequence[Message], rec: Recognition, repaired: Repair | None = None) -> Location:
    """Find the messages ``rec`` is about, checking each of its providers in turn."""
    first: Location | None = None
    for provider in rec.providers:
        v = verdict(messages, provider, repaired)
        repaired = v.repair
        found = _narrow([x for x in v.before if x.rule in rec.rule.members], rec)
        if found:
            indices = sorted({x.index for x in found})
            return Location(provider, found, indices, v, "check")
        if first is None:
            first = Location(provider, [], [], v)
    assert first is not None
    indices, by = _named(messages, rec)
    first.indices = indices
    first.by = by
    return first
