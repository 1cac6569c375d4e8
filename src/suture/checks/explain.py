"""Recognise a pasted provider error and find the messages it names (the core of ``suture explain``).

``recognise(text)`` matches the text against every rule's patterns (providers reword their
errors, so patterns match the stable words and pull out the ids and indices);
``locate(messages, recognition)`` finds the messages: first among the violations the provider's
check reports for that rule (narrowed to the ids and indices the text names), then, for a rule no
check can see from the history alone (an edited thinking block), by the ids and indices
themselves. ``closest(text)`` ranks rules for a text nothing recognises.

``explain(messages, text)`` puts it together (an :class:`Explanation`: the rule, the messages,
what the error names that the history does not hold, whether the repair fixes it, and one
sentence that says so), for the command line and the app alike. ``resolve(messages, typed)``
reads a pointer a person types (``messages.3``, ``input[5]``, ``line 760``, ``#12``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import orjson

from suture import show
from suture.checks import Verdict, Violation, verdict
from suture.checks._wire import contents, items, turns
from suture.checks.rules import RULES, Rule, normalise
from suture.model import ImagePart, Message, TextPart, text_of
from suture.repair import Change, Repair, repair
from suture.written import lines_of

__all__ = [
    "Explanation",
    "Location",
    "Pointer",
    "Recognition",
    "absent",
    "closest",
    "explain",
    "locate",
    "recognise",
    "related_changes",
    "resolve",
    "summary",
]

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


def _wire_length(messages: Sequence[Message], kind: str | None) -> tuple[int, str]:
    """How many wire messages (or items, or contents) the history makes, and what they are called."""
    if kind in ("turns", "turns1"):
        return len(turns(messages)), "messages"
    if kind == "contents":
        return len(contents(messages)), "contents"
    if kind == "items":
        return len(items(messages)), "input items"
    return len(messages), "messages"


def _holds_id(messages: Sequence[Message], wanted: str) -> bool:
    for m in messages:
        if m.tool_call_id == wanted or any(c.id == wanted for c in m.tool_calls):
            return True
    # Item ids (a Responses reasoning item's ``rs_…``) and others live only in the records.
    quoted = orjson.dumps(wanted)
    for m in messages:
        if m.raw is not None:
            try:
                if quoted in orjson.dumps(m.raw, option=orjson.OPT_NON_STR_KEYS):
                    return True
            except TypeError:
                continue
    return False


def absent(messages: Sequence[Message], rec: Recognition) -> list[str]:
    """What the error names that this history does not hold: ids no message has, an index past
    the end of the request the history makes. Empty when everything it names is here."""
    missing = [f"id {i}" for i in rec.ids if not _holds_id(messages, i)]
    n, _ = _wire_index(rec)
    if n is not None:
        length, what = _wire_length(messages, rec.rule.index)
        if n >= length:
            shown = rec.index if rec.index is not None else n
            missing.append(f"index {shown} (this history makes {length} {what})")
    return missing


@dataclass(slots=True)
class Explanation:
    """What a provider's error says about a history: the rule it breaks, the messages it is
    about, whether suture's repair fixes it, or why it does not fit this history at all."""

    text: str
    recognition: Recognition | None = None
    others: list[Recognition] = field(default_factory=list)
    location: Location | None = None
    absent: list[str] = field(default_factory=list)
    """What the error names that the history does not hold (then it is about another request)."""
    changes: list[Change] = field(default_factory=list)
    closest: list[Rule] = field(default_factory=list)

    @property
    def recognised(self) -> bool:
        return self.recognition is not None

    @property
    def found(self) -> bool:
        """Recognised, everything it names is in this history, and its messages were found."""
        return self.location is not None and self.location.found and not self.absent

    @property
    def indices(self) -> list[int]:
        """The messages the error is about (none where it is not about this history)."""
        return list(self.location.indices) if self.location is not None and not self.absent else []

    @property
    def flagged(self) -> bool:
        """Whether suture's own check sees the problem in this history."""
        return self.found and self.location is not None and self.location.by == "check"

    @property
    def fixed(self) -> bool:
        """Whether the repaired history is free of it: a problem suture's check sees, gone after
        repair."""
        if not self.flagged or self.location is None:
            return False
        return all(v.fixed for v in self.location.violations)

    def verdict(self) -> str:
        """One sentence on what to do, that never contradicts itself."""
        rec = self.recognition
        if rec is None:
            return "suture does not recognise this error text."
        rule = rec.rule
        if self.absent:
            return (
                f"not in this file: wrong file, or a different request? The error names {', '.join(self.absent)}. "
                f"Where it is the right file, what fixes this kind of error: {_sentence(rule.repair_does or rule.remedy)}"
            )
        location = self.location
        assert location is not None
        if self.flagged:
            if self.fixed:
                return f"Repair: fixes it: {_sentence(location.violations[0].remedy)}"
            stays = next(v for v in location.violations if not v.fixed)
            return f"Repair: does not fix this. What to do: {_sentence(stays.remedy)}"
        if not self.found:
            return (
                f"not found: suture's {', '.join(rule.providers)} check finds no {rule.id} problem here, "
                "and the error names no message of it. Is this the history that was sent? "
                f"What fixes this kind of error: {_sentence(rule.repair_does or rule.remedy)}"
            )
        if rule.fixed == "no":
            return f"Repair: does not fix this kind of problem. What to do: {_sentence(rule.remedy)}"
        return (
            f"Repair: nothing to repair here: suture's {location.provider} check finds no {rule.id} problem in "
            "these messages as this file holds them. If the agent still gets this error, what it sends differs "
            "from this file (a state before the last write, or what the agent adds when it sends)."
        )


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "?", "!")) else text + "."


def related_changes(result: Repair, where: Location, ids: Sequence[str]) -> list[Change]:
    """The repair's changes to the messages an error is about (by index, or by the ids it names)."""
    wanted = set(ids) | {v.call_id for v in where.violations if v.call_id}
    indices = set(where.indices) | {i for v in where.violations for i in v.related}
    return [
        c
        for c in result.changes
        if c.input_index in indices or (c.call_id is not None and c.call_id in wanted) or (c.new_id in wanted)
    ]


def explain(messages: Sequence[Message], text: str, repaired: Repair | None = None) -> Explanation:
    """Everything ``suture explain`` and the app say about ``text`` (a provider's error) and
    ``messages``. ``repaired`` reuses a repair of ``messages``."""
    recognised = recognise(text)
    if not recognised:
        return Explanation(text, closest=closest(text))
    rec = recognised[0]
    result = repaired if repaired is not None else repair(messages)
    missing = absent(messages, rec)
    where = locate(messages, rec, result)
    changes = [] if missing else related_changes(result, where, rec.ids)
    return Explanation(text, rec, recognised[1:], where, missing, changes)


def summary(m: Message, limit: int = 70) -> str:
    """One line about a message: its calls, its result id, its text."""
    bits = []
    if m.tool_calls:
        bits.append("calls " + ", ".join(f"{c.name or '?'} {c.id or '(no id)'}" for c in m.tool_calls))
    if m.role == "tool":
        bits.append(f"result for {m.tool_call_id or '(no id)'}")
    content = m.content
    if isinstance(content, list):
        content = "\n".join(p.text for p in content if isinstance(p, TextPart))
    text = " ".join(text_of(content).split())
    if text:
        bits.append(f"“{show.prose(text if len(text) <= limit else text[: limit - 1] + '…')}”")
    images = [p for p in (m.content if isinstance(m.content, list) else []) if isinstance(p, ImagePart)]
    if images:
        bits.append(f"{len(images)} image{'s' if len(images) > 1 else ''}")
    return "  ".join(bits) or "(empty)"


# -- pointers a person types: messages.3, input[5], contents[2], line 760, #12 ------------------

_POINTER = re.compile(
    r"^\s*(?:(?P<wire>messages|input|contents|items)\s*(?:\.\s*\[?|\[)\s*(?P<n>\d+)\s*\]?(?P<rest>[\w.\[\]]*)"
    r"|(?:line\s*|l)(?P<line>\d+)|#\s*(?P<message>\d+)|(?P<bare>\d+))\s*$",
    re.IGNORECASE,
)
_WIRE_OF = {
    "anthropic": "turns",
    "bedrock": "merged",
    "gemini": "contents",
    "openai-responses": "items",
}


@dataclass(frozen=True, slots=True)
class Pointer:
    """Where a typed pointer leads: the input messages, and what it was understood as."""

    indices: list[int]
    said: str


def resolve(messages: Sequence[Message], typed: str, provider: str | None = None) -> Pointer:
    """The input messages ``typed`` points at: ``messages.N`` (the Nth message of the request
    ``provider`` is sent, as its errors count them), ``input[N]`` (an OpenAI Responses item),
    ``contents[N]`` (Gemini), ``line N`` or a bare ``N`` (a line of the file), ``#N`` (suture's
    own message index). No indices where nothing matches; ``said`` says what was looked for."""
    m = _POINTER.match(typed)
    if m is None:
        return Pointer([], f"not a pointer suture reads: {typed.strip()!r} (try messages.3, input[5], line 760, #12)")
    if m.group("message") is not None:
        n = int(m.group("message"))
        ok = 0 <= n < len(messages)
        return Pointer([n] if ok else [], f"message #{n}" + ("" if ok else f" (the file has {len(messages)})"))
    number = m.group("line") or m.group("bare")
    if number is not None:
        return _line(messages, int(number))
    wire, n = m.group("wire").lower(), int(m.group("n"))
    if wire in ("input", "items"):
        listed = items(messages)
        ok = n < len(listed)
        return Pointer([listed[n].source] if ok else [], f"input[{n}]" + ("" if ok else f" (of {len(listed)} items)"))
    kind = "contents" if wire == "contents" else _WIRE_OF.get(provider or "", "one per message")
    if kind == "items":
        return resolve(messages, f"input[{n}]", provider)
    if kind == "one per message":
        ok = n < len(messages)
        return Pointer([n] if ok else [], f"messages[{n}]" + ("" if ok else f" (of {len(messages)})"))
    wire_list = contents(messages) if kind == "contents" else turns(messages, merge=kind == "merged")
    label = f"contents[{n}]" if kind == "contents" else f"messages.{n} as {provider} counts them"
    if n >= len(wire_list):
        return Pointer([], f"{label} (the request has {len(wire_list)})")
    return Pointer(list(wire_list[n].members), label)


def _line(messages: Sequence[Message], line: int) -> Pointer:
    """The message read from ``line`` (or merged from it), else the first read after it."""
    after: tuple[int, int] | None = None
    for i, m in enumerate(messages):
        lines = lines_of(m.source)
        if line in lines:
            return Pointer([i], f"line {line}")
        if lines and lines[0] > line and (after is None or lines[0] < after[0]):
            after = (lines[0], i)
    if after is not None:
        return Pointer([after[1]], f"line {line} holds no message; the next one read is on line {after[0]}")
    return Pointer([], f"line {line}: no message was read from it or after it")
