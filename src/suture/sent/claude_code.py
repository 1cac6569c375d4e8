"""Claude Code's resume step, as the Claude Code releases in ``MEASURED`` (2.1.328, 2.1.332) do it.

Measured on the sessions the real Claude Code wrote and the requests it sent
(``sample_sessions/recorded/claude-code-*``), and matching its own code where it could be read.
From the history as written (``suture.formats.claude_code``):

1. **When it resumes.** The calls of the last response that have no result anywhere after it get
   one each: a ``tool_result`` with ``is_error: true`` and :data:`INTERRUPTED`, appended at the end
   (Claude Code writes these lines into the file). Then, unless the session's last record is an
   API error (the turn ended, it was not cut off), a history that ends with a user message gets an
   assistant reply "No response requested.", so the new prompt is a turn of its own. After an API
   error, or a command the person ran in Claude Code (``/compact``: its caveat, command and
   output records), the new prompt joins the last user message instead.
2. **Building the request.** Whitespace-only text blocks of assistant messages are left out (a
   ``"\\n\\n"`` block in front of a thinking block: the message is sent thinking-first). A call
   that has no result anywhere (a dangling call with later turns after it) is left out, and its
   message if nothing is left. Consecutive user records become one message: their blocks in order
   (a text block that meets a text block gets a newline), then the ``tool_result`` blocks moved
   to the front. A lone record is sent as written, so ``[text, tool_result]`` in one record stays
   as it is and is rejected (Anthropic's rule A1a): the 400 loop real users hit.
3. **Batch entries.** Claude Code splits a call of a batch tool into calls ``{id}_0``,
   ``{id}_1``, … and, building every request, folds their results back into one result for
   ``{id}``: any ``tool_result`` whose id is ``{stem}_{n}`` (``n`` digits) where ``{stem}`` is the
   id of a call of the history is taken for entry ``n`` of call ``{stem}``. The first such result
   of a stem becomes one result for ``{stem}`` (``--- entry 1 ---`` headed texts, an entry with no
   result ``[entry 1 error: no result]``, ``is_error`` where an entry has none or an error), the
   others leave, and a user message left with nothing leaves. A result of a call whose id only
   looks like an entry (a call named ``{stem}_1`` after a call ``{stem}``) is so taken away from
   its call, which the pairing then answers with "[Tool result missing due to internal error]".
4. **Pairing** (Claude Code's ``ensureToolResultPairing``): a call whose id an earlier call
   already has is left out (a message left with nothing says "[Tool use interrupted]"); results
   that answer no call of the message before them, and repeated results, are left out (a message
   left empty says "(no content)"); a call whose result is not in the next message gets
   "[Tool result missing due to internal error]" there.

Each of these is a :class:`~suture.sent.Fix` (the agent repairs it itself), named at the message
it is about in the as-written view. Each message sent names every record it was joined from
(``Sent.written``), a record whose blocks it then left out among them.

When it sends, Claude Code also puts a ``system`` message right after the first message of the
request (:data:`ADDED`; its ``<system-reminder>`` text joins the first message and moves nothing),
so from the second message on Anthropic's ``messages.N`` is one more than the place in ``wire``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from suture.model import Transcript
from suture.sent import Added, Built, Fix, Pieces
from suture.sent.kept import Resumed, Whole
from suture.words import count

__all__ = [
    "ADDED",
    "ENTRY",
    "INTERRUPTED",
    "MEASURED",
    "MODEL",
    "NO_RESPONSE",
    "Grown",
    "batch_stem",
    "build",
    "merges",
]

MEASURED = ("2.1.328", "2.1.332")
"""The Claude Code versions recorded resuming every crash shape of the corpus
(``sample_sessions/recorded``), each sending what this module says: a file one of them wrote is
modelled as its own version."""
MODEL = MEASURED[-1]
"""The Claude Code version whose resume is assumed for a file another version wrote."""
ADDED = (Added(1, "system", "the system message Claude Code adds after the first message"),)
"""What Claude Code puts into every request it sends that the file does not hold (seen in
every request of the recorded corpus)."""
INTERRUPTED = (
    "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is "
    "unknown. Check whether it took effect before relying on it or running it again.]"
)
NO_RESPONSE = "No response requested."
ENTRY = re.compile(r"_(\d+)$")
"""The end of a call id Claude Code reads as entry ``n`` of a batch call: ``{stem}_{n}``."""
_MISSING = "[Tool result missing due to internal error]"
_NO_CONTENT = "(no content)"
_TOOL_USE_INTERRUPTED = "[Tool use interrupted]"
_TOOL_USE_REMOVED = "[Tool use removed]"
_ORPHANED = "[Orphaned tool result removed due to conversation resume]"
_THINKING = frozenset({"thinking", "redacted_thinking"})
_COMMAND_OUTPUTS = ("<local-command-stdout>", "<local-command-stderr>", "<command-name>")


@dataclass(slots=True)
class _Unit:
    """One message on its way to the request: ``user`` or ``assistant``, its content as the
    request holds it (a string or a list of blocks), and the as-written messages it is made of."""

    role: str
    content: Any
    indices: list[int] = field(default_factory=list)

    @property
    def index(self) -> int | None:
        return self.indices[0] if self.indices else None

    def blocks(self) -> list[Any]:
        """The content as a list of blocks (a string is one text block)."""
        if isinstance(self.content, list):
            return self.content
        if isinstance(self.content, str):
            return [{"type": "text", "text": self.content}]
        return []


def _kind(block: Any) -> str | None:
    return block.get("type") if isinstance(block, dict) and isinstance(block.get("type"), str) else None


def batch_stem(call_id: Any, calls: set[Any] | frozenset[Any]) -> str | None:
    """The call whose batch entry Claude Code takes a result with id ``call_id`` for:
    ``{stem}`` where ``call_id`` is ``{stem}_{n}`` and ``{stem}`` is one of ``calls`` (the ids
    of the calls of the history); ``None`` where it sends the result as the call's own."""
    if not isinstance(call_id, str):
        return None
    found = ENTRY.search(call_id)
    if found is None:
        return None
    stem = call_id[: found.start()]
    return stem if stem in calls else None


@dataclass(slots=True)
class Before:
    """What the build of the records after a cut needs of those before it (an assistant message
    at the cut, which the build keeps: no user records are joined across it)."""

    answered: set[Any]
    """The ids of the results before the cut."""
    calls: set[Any]
    """The ids of the calls before the cut that the request keeps (the pairing's calls seen)."""
    end: int | None
    """The greatest line of the records before the cut (``None``: none has a line)."""
    stems: set[str]
    """For each result before the cut whose id reads as a batch entry (``{stem}_{n}``), its stem."""


class _Builder:
    def __init__(self, transcript: Transcript, start: int = 0, before: Before | None = None) -> None:
        self.transcript = transcript
        self.messages = transcript.messages
        self.start = start
        self.before = before
        self.built = Built([], "messages", "anthropic", MODEL, [], {}, added=ADDED)
        self.passes: list[int] = []
        """How many fixes there are after each step of the build (see :meth:`build`)."""
        self.results: set[Any] = set()
        self.folded = False
        self.read: list[_Unit] = []
        self.read_calls: list[list[Any]] = []
        """The calls of each of :attr:`read` as read (before those no result answers leave)."""
        self.kept: list[_Unit] = []
        self.merged: list[_Unit] = []
        self.sent: list[_Unit] = []

    # -- helpers ---------------------------------------------------------------------------------

    def fix(self, kind: str, summary: str, index: int | None, call_id: str | None = None) -> None:
        source = self.messages[index].source if index is not None and 0 <= index < len(self.messages) else None
        self.built.fixes.append(Fix(kind, summary, index, source, call_id))

    def where(self, index: int | None) -> str:
        if index is None or not 0 <= index < len(self.messages):
            return ""
        source = self.messages[index].source
        return f" ({source})" if source is not None else ""

    def new(self, value: dict[str, Any], index: int | None) -> dict[str, Any]:
        return self.built.mark(value, index)  # type: ignore[no-any-return]

    # -- 0. records as written -------------------------------------------------------------------

    def records(self) -> list[_Unit]:
        """One unit per record: an assistant message each; the pieces of one user record (the
        loader splits ``[text, tool_result]`` into a user message and a result) joined again."""
        units: list[_Unit] = []
        last_line: int | None = None
        for i in range(self.start, len(self.messages)):
            m = self.messages[i]
            raw = m.raw
            if m.role == "assistant":
                content = raw.get("content") if isinstance(raw, dict) else m.content
                content = list(content) if isinstance(content, list) else content
                for block in content if isinstance(content, list) else ():
                    self.built.mark(block, i)
                units.append(_Unit("assistant", content, [i]))
                last_line = None
                continue
            if m.role == "tool":
                piece: Any = [raw] if isinstance(raw, dict) else []
            else:
                piece = raw.get("content") if isinstance(raw, dict) else m.content
            for block in piece if isinstance(piece, list) else ():
                self.built.mark(block, i)
            line = m.source.line if m.source is not None else None
            if units and units[-1].role == "user" and line is not None and line == last_line:
                unit = units[-1]
                unit.content = [*unit.blocks(), *(piece if isinstance(piece, list) else [])]
                unit.indices.append(i)
            else:
                units.append(_Unit("user", list(piece) if isinstance(piece, list) else piece, [i]))
            last_line = line
        return units

    # -- 1. the resume step ----------------------------------------------------------------------

    def resume(self, units: list[_Unit]) -> bool:
        """Interrupted results and "No response requested."; whether the new prompt joins the
        last user message (the session ended on an API error)."""
        last = next((k for k in range(len(units) - 1, -1, -1) if units[k].role == "assistant"), None)
        if last is not None:
            answered = {
                b.get("tool_use_id") for u in units[last + 1 :] for b in u.blocks() if _kind(b) == "tool_result"
            }
            owner = units[last]
            for block in owner.blocks():
                if _kind(block) != "tool_use" or block.get("id") in answered:
                    continue
                call_id = block.get("id") if isinstance(block.get("id"), str) else None
                result = self.new(
                    {"type": "tool_result", "content": INTERRUPTED, "is_error": True, "tool_use_id": block.get("id")},
                    owner.index,
                )
                units.append(_Unit("user", [result], []))
                self.fix(
                    "inserted_result",
                    f"Claude Code answers call {call_id or '(no id)'}{self.where(owner.index)} with an interrupted result",
                    owner.index,
                    call_id,
                )
        if self.ended_on_error() or self.ends_on_local_command(units):
            return bool(units) and units[-1].role == "user"
        if units and units[-1].role == "user":
            reply = self.new({"type": "text", "text": NO_RESPONSE}, None)
            units.append(_Unit("assistant", [reply], []))
            self.fix(
                "inserted_reply",
                f'Claude Code adds the reply "{NO_RESPONSE}" after the last user message, so the new prompt is a turn of its own',
                units[-2].index,
            )
        return False

    def ends_on_local_command(self, units: list[_Unit]) -> bool:
        """Whether the history ends with the records of a command the person ran in Claude Code
        (``/compact`` and the like: a caveat, the command, its output): no turn was cut off."""
        trailing: list[str] = []
        for unit in reversed(units):
            if unit.role != "user":
                break
            trailing.extend(str(b.get("text") or "") for b in reversed(unit.blocks()) if _kind(b) == "text")
        if not trailing or not trailing[0].lstrip().startswith(_COMMAND_OUTPUTS):
            return False
        return any(text.lstrip().startswith("<local-command-caveat>") for text in trailing)

    def ended_on_error(self) -> bool:
        """Whether the session's last record is an API error (Claude Code wrote it, the turn ended)."""
        if not self.messages:
            return False
        lines = [line for m in self.messages[self.start :] if m.source is not None for line in m.source.lines]
        if self.before is not None and self.before.end is not None:
            lines.append(self.before.end)
        end = max(lines) if lines else 0
        return any(s.kind == "api_error" and (s.source.line or 0) > end for s in self.transcript.skipped)

    # -- 2. building the request -----------------------------------------------------------------

    def blank_text(self, units: list[_Unit]) -> list[_Unit]:
        out = []
        for unit in units:
            if unit.role != "assistant" or not isinstance(unit.content, list):
                out.append(unit)
                continue
            kept = [b for b in unit.content if not (_kind(b) == "text" and not str(b.get("text") or "").strip())]
            if len(kept) != len(unit.content):
                self.fix(
                    "dropped_block",
                    f"Claude Code leaves out {count(len(unit.content) - len(kept), 'whitespace-only text block')} of the "
                    f"assistant message{self.where(unit.index)}",
                    unit.index,
                )
                unit.content = kept
            if unit.content:
                out.append(unit)
        return out

    def unresolved(self, units: list[_Unit]) -> list[_Unit]:
        answered = {
            b.get("tool_use_id") for u in units if u.role == "user" for b in u.blocks() if _kind(b) == "tool_result"
        }
        self.results = answered
        earlier = self.before.answered if self.before is not None else set()
        out = []
        for unit in units:
            if unit.role != "assistant" or not isinstance(unit.content, list):
                out.append(unit)
                continue
            gone = [
                b
                for b in unit.content
                if _kind(b) == "tool_use" and b.get("id") not in answered and b.get("id") not in earlier
            ]
            if not gone:
                out.append(unit)
                continue
            unit.content = [b for b in unit.content if not any(b is g for g in gone)]
            ids = ", ".join(str(b.get("id") or "(no id)") for b in gone)
            calls = "call" if len(gone) == 1 else "calls"
            what = "the whole message" if not unit.content else f"the {calls}"
            self.fix(
                "dropped_call",
                f"Claude Code leaves out {calls} {ids}{self.where(unit.index)}, which never got a result "
                f"({what}; later turns follow it)",
                unit.index,
                str(gone[0].get("id")) if gone[0].get("id") is not None else None,
            )
            if unit.content:
                out.append(unit)
        return out

    def merge(self, units: list[_Unit], prompt_joins: bool) -> list[_Unit]:
        out: list[_Unit] = []
        for unit in units:
            if out and unit.role == "user" and out[-1].role == "user":
                last = out[-1]
                last.content = self.joined(last.blocks(), unit.blocks(), last.index)
                last.indices.extend(unit.indices)
                continue
            out.append(_Unit(unit.role, unit.content, list(unit.indices)))
        if prompt_joins and out and out[-1].role == "user":
            # The new prompt (a text block) joins the last user message: the same merge.
            last = out[-1]
            last.content = self.joined(last.blocks(), [{"type": "text", "text": ""}], last.index)[:-1]
        return out

    def joined(self, first: list[Any], second: list[Any], index: int | None) -> list[Any]:
        """Two user messages as one: blocks in order, a text that meets a text gets a newline,
        then the results moved to the front."""
        if first and second and _kind(first[-1]) == "text" and _kind(second[0]) == "text":
            first = [*first[:-1], self.new({**first[-1], "text": str(first[-1].get("text") or "") + "\n"}, index)]
        blocks = [*first, *second]
        results = [b for b in blocks if _kind(b) == "tool_result"]
        ordered = results + [b for b in blocks if _kind(b) != "tool_result"]
        if [id(b) for b in ordered] != [id(b) for b in blocks]:
            self.fix(
                "moved_result",
                f"Claude Code puts the results first in the user message it joins from consecutive records{self.where(index)}",
                index,
            )
        return ordered

    # -- 3. batch entries ------------------------------------------------------------------------

    def batch_entries(self, units: list[_Unit]) -> list[_Unit]:
        """Results whose id reads as a batch entry of another call become one result of that
        call (see the module docstring): where the first of them was, the others leave."""
        calls: set[Any] = {
            b.get("id") for u in units if u.role == "assistant" for b in u.blocks() if _kind(b) == "tool_use"
        }
        if self.before is not None:
            if not self.before.stems.isdisjoint(calls):
                raise Whole  # a result before the cut reads as an entry of a call after it
            from suture.checks.resume import LayerSet

            both = LayerSet(self.before.calls)
            both.update(calls)
            calls = both
        entries: dict[str, dict[str, Any]] = {}
        for unit in units:
            if unit.role != "user" or not isinstance(unit.content, list):
                continue
            for b in unit.content:
                stem = batch_stem(b.get("tool_use_id"), calls) if _kind(b) == "tool_result" else None
                if stem is not None:
                    entries.setdefault(stem, {}).setdefault(b["tool_use_id"], b)
        if not entries:
            return units
        self.folded = True
        if self.before is not None:
            raise Whole  # an entry's result joins every entry's, wherever they are
        out: list[_Unit] = []
        done: set[str] = set()
        for unit in units:
            if unit.role != "user" or not isinstance(unit.content, list):
                out.append(unit)
                continue
            blocks: list[Any] = []
            folded = False
            for b in unit.content:
                stem = batch_stem(b.get("tool_use_id"), calls) if _kind(b) == "tool_result" else None
                if stem is None:
                    blocks.append(b)
                    continue
                folded = True
                at = self.origin(b, unit.index)
                self.fix(
                    "joined_results",
                    f"Claude Code takes the result for {b['tool_use_id']}{self.where(at)} for an entry of a batch "
                    f"call {stem} and sends it in one result for {stem}",
                    at,
                    str(b["tool_use_id"]),
                )
                if stem in done:
                    continue
                done.add(stem)
                blocks.append(self.new(_joined(stem, entries[stem]), at))
            if not folded:
                out.append(unit)
            elif blocks:
                out.append(_Unit("user", blocks, unit.indices))
        return out

    # -- 4. pairing ------------------------------------------------------------------------------

    def pairing(self, units: list[_Unit]) -> list[_Unit]:
        """What Claude Code does to pair calls and results before it sends: results before any
        assistant message become notes, repeated or unanswered calls leave, missing results are
        made, and results that answer nothing leave the next message."""
        out: list[_Unit] = []
        seen: set[Any] = set()
        if self.before is not None:
            from suture.checks.resume import LayerSet

            seen = LayerSet(self.before.calls)  # (the calls before the cut, and those found here)
        y = 0
        while y < len(units):
            unit = units[y]
            if unit.role != "assistant":
                self.leading_user(unit, out)
                y += 1
                continue
            if not isinstance(unit.content, list):
                out.append(unit)
                y += 1
                continue
            mine, kept_blocks, changed = self.calls_kept(unit, seen)
            out.append(_Unit("assistant", kept_blocks, unit.indices) if changed else unit)
            nxt = units[y + 1] if y + 1 < len(units) else None
            y += self.answered(unit, nxt, mine, out)
        return out

    def leading_user(self, unit: _Unit, out: list[_Unit]) -> None:
        """A user message: results in it with no assistant message before them leave it."""
        if isinstance(unit.content, list) and (not out or out[-1].role != "assistant"):
            kept = [b for b in unit.content if _kind(b) != "tool_result"]
            if len(kept) != len(unit.content):
                for b in unit.content:
                    if _kind(b) == "tool_result":
                        self.orphan(b, unit.index, "no assistant message comes before it")
                content: list[Any] | None = kept
                if not kept:
                    content = None if out else [self.new({"type": "text", "text": _ORPHANED}, unit.index)]
                if content is not None:
                    out.append(_Unit("user", content, unit.indices))
                return
        out.append(unit)

    def calls_kept(self, unit: _Unit, seen: set[Any]) -> tuple[list[Any], list[Any], bool]:
        """An assistant message's blocks without repeated calls, unanswered server calls and
        results; returns its call ids, the blocks kept and whether any left."""
        assert isinstance(unit.content, list)
        mine: list[Any] = []
        changed = False
        kept_blocks: list[Any] = []
        server = {b.get("tool_use_id") for b in unit.content if _kind(b) != "tool_result" and "tool_use_id" in b}
        for k, block in enumerate(unit.content):
            kind = _kind(block)
            drop = False
            if kind == "tool_use":
                if block.get("id") in seen:
                    drop = True
                    self.fix(
                        "replaced_call",
                        f"Claude Code leaves out call {block.get('id')}{self.where(unit.index)}: an earlier call has its id",
                        unit.index,
                        str(block.get("id")),
                    )
                else:
                    seen.add(block.get("id"))
                    mine.append(block.get("id"))
            else:
                # A server tool call without its result in the message, or a result where
                # only calls belong.
                unanswered = kind in ("server_tool_use", "mcp_tool_use") and block.get("id") not in server
                drop = unanswered or kind == "tool_result"
            if not drop:
                kept_blocks.append(block)
                continue
            changed = True
            before = _kind(unit.content[k - 1]) if k > 0 else None
            after = _kind(unit.content[k + 1]) if k + 1 < len(unit.content) else None
            if before in _THINKING and after in _THINKING:
                kept_blocks.append(self.new({"type": "text", "text": _TOOL_USE_REMOVED, "citations": []}, unit.index))
        if not kept_blocks:
            kept_blocks.append(self.new({"type": "text", "text": _TOOL_USE_INTERRUPTED, "citations": []}, unit.index))
        return mine, kept_blocks, changed

    def answered(self, unit: _Unit, nxt: _Unit | None, mine: list[Any], out: list[_Unit]) -> int:
        """The message after an assistant message with calls ``mine``: a result made for each call
        it does not answer, results that answer nothing left out. Returns how many units it took
        (the assistant message, and the next one where it wrote it)."""
        answered: list[Any] = []
        repeated = False
        if nxt is not None and nxt.role == "user" and isinstance(nxt.content, list):
            for b in nxt.content:
                if _kind(b) == "tool_result":
                    repeated = repeated or b.get("tool_use_id") in answered
                    answered.append(b.get("tool_use_id"))
        missing = [i for i in mine if i not in answered]
        extra = [i for i in dict.fromkeys(answered) if i not in mine]
        if not missing and not extra and not repeated:
            return 1
        made = []
        for call_id in missing:
            made.append(
                self.new(
                    {"type": "tool_result", "tool_use_id": call_id, "content": _MISSING, "is_error": True},
                    unit.index,
                )
            )
            self.fix(
                "inserted_result",
                f"Claude Code answers call {call_id}{self.where(unit.index)}, whose result is not in the next "
                f"message, with a result of its own, {_MISSING!r}: what the model reads of that call",
                unit.index,
                str(call_id),
            )
        if nxt is not None and nxt.role == "user":
            blocks = nxt.blocks()
            if extra or repeated:
                taken: set[Any] = set()
                filtered = []
                for b in blocks:
                    if _kind(b) == "tool_result":
                        ident = b.get("tool_use_id")
                        if ident in extra or ident in taken:
                            self.orphan(b, nxt.index, "it answers no call of the message before it")
                            continue
                        taken.add(ident)
                    filtered.append(b)
                blocks = filtered
            content = [*made, *blocks]
            out.append(_Unit("user", content if content else _NO_CONTENT, nxt.indices))
            return 2
        if made:
            out.append(_Unit("user", made, []))
        return 1

    def orphan(self, block: Any, index: int | None, why: str) -> None:
        call_id = block.get("tool_use_id") if isinstance(block, dict) else None
        at = self.origin(block, index)
        self.fix(
            "dropped_result",
            f"Claude Code leaves out the result for {call_id or '(no id)'}{self.where(at)}: {why}",
            at,
            str(call_id) if call_id is not None else None,
        )

    def origin(self, block: Any, fallback: int | None) -> int | None:
        found = self.built.origin_of.get(id(block))
        return found if found is not None else fallback

    # -- all of it -------------------------------------------------------------------------------

    def build(self) -> Built:
        """The request history; :attr:`passes` says where each step's fixes end in
        ``built.fixes``, :attr:`kept` holds the messages the request keeps before they are joined,
        :attr:`merged` after, and :attr:`sent` those it sends."""
        fixes = self.built.fixes
        units = self.records()
        prompt_joins = self.resume(units)
        self.passes.append(len(fixes))
        units = self.blank_text(units)
        self.passes.append(len(fixes))
        self.read = units
        self.read_calls = [
            [b.get("id") for b in u.blocks() if _kind(b) == "tool_use"] if u.role == "assistant" else [] for u in units
        ]
        units = self.unresolved(units)
        self.passes.append(len(fixes))
        self.kept = units
        if self.before is not None and (not units or units[0].role != "assistant" or units[0].indices != [self.start]):
            raise Whole  # the message at the cut is left out: the records around it may join
        units = self.merge(units, prompt_joins)
        self.passes.append(len(fixes))
        self.merged = units
        units = self.batch_entries(units)
        self.passes.append(len(fixes))
        units = self.pairing(units)
        self.passes.append(len(fixes))
        self.sent = units
        for unit in units:
            record = {"role": unit.role, "content": unit.content}
            self.built.wire.append(self.built.mark(record, unit.index, unit.indices))
        return self.built


def _joined(stem: str, results: dict[str, Any]) -> dict[str, Any]:
    """The one result Claude Code sends for batch call ``stem`` from its entries' ``results``
    (by their ids ``{stem}_{n}``): entry ``n`` headed ``--- entry {n + 1} ---``, up to the
    highest ``n`` seen (no more than 1000 entries are counted)."""
    count = max(int(m.group(1)) + 1 for k in results if (m := ENTRY.search(k)) is not None)
    if count > 1000:
        count = len(results)
    blocks: list[Any] = []
    text = ""
    error = False

    def say(s: str) -> None:
        nonlocal text
        if s:
            text = s if not text else f"{text}\n{s}"

    def flush() -> None:
        nonlocal text
        if text:
            blocks.append({"type": "text", "text": text})
            text = ""

    for n in range(count):
        result = results.get(f"{stem}_{n}")
        failed = result is None or result.get("is_error") is True
        error = error or failed
        say(f"--- entry {n + 1}{' (error)' if failed else ''} ---")
        if result is None:
            say(f"[entry {n + 1} error: no result]")
            continue
        content = result.get("content")
        if isinstance(content, str):
            say(content)
        elif isinstance(content, list):
            for part in content:
                if _kind(part) == "text":
                    say(str(part.get("text") or ""))
                else:
                    flush()
                    blocks.append(part)
    flush()
    joined: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": stem,
        "content": blocks[0]["text"] if len(blocks) == 1 and _kind(blocks[0]) == "text" else blocks,
    }
    if error:
        joined["is_error"] = True
    return joined


def build(transcript: Transcript) -> Built:
    """The request history Claude Code builds from this as-written transcript on resume."""
    return _Builder(transcript).build()


def merges(transcript: Transcript) -> list[dict[str, Any]]:
    """Every message Claude Code makes from several records of this file at some point of the
    session, as ``{"role", "content"}``: each response merged from its lines (and without its
    whitespace-only text), each run of consecutive user records joined up to each of its
    records (a request sent in the middle of the run holds only the first of them), and the
    history it sends on resume. What ``suture.sent.recorded`` hashes to confirm this model."""
    builder = _Builder(transcript)
    units = builder.records()
    found: list[dict[str, Any]] = []
    run: list[Any] | None = None
    for unit in units:
        if unit.role == "assistant":
            run = None
            found.append({"role": "assistant", "content": unit.content})
            if isinstance(unit.content, list):
                kept = [b for b in unit.content if not (_kind(b) == "text" and not str(b.get("text") or "").strip())]
                if len(kept) != len(unit.content):
                    found.append({"role": "assistant", "content": kept})
            continue
        run = unit.blocks() if run is None else builder.joined(run, unit.blocks(), unit.index)
        found.append({"role": "user", "content": run})
    found.extend(_Builder(transcript).build().wire)
    return found


class Grown(Resumed):
    """What Claude Code sends on resume, for a session that grows: after an append, the records
    from a *cut* near the end are built again and those before it are kept
    (:class:`suture.sent.kept.Resumed`).

    The cut is an assistant message the request keeps, before the last one: no user records are
    joined across it, and the pairing starts there afresh but for the calls seen before it. What
    the build reads of the whole history is carried over the cut (the results and calls before
    it, its greatest line) or checked: a call before the cut that no result before it answers is
    left out, or kept, as a result after it says, so the build starts again from the first
    record wherever the results after the cut answer other such calls than before; and where
    results are taken for batch entries (:func:`batch_stem`), which join across the history.
    ``tests/test_sent_resume.py`` proves the history, its provenance and the fixes equal
    :func:`suture.sent.as_sent`'s."""

    steps = 6
    """The steps of :meth:`_Builder.build` whose fixes are listed in turn."""

    def _fresh(self) -> None:
        super()._fresh()
        self.before: Before | None = None
        self.pending: set[Any] = set()
        """Calls before the cut that no result before it answers."""
        self.answered_after: set[Any] = set()
        """Those of them a result after the cut answered at the last build."""
        self.builder: _Builder | None = None

    def _build(self, transcript: Transcript) -> tuple[Built, list[int]]:
        builder = _Builder(transcript, self.cut, self.before if self.cut else None)
        builder.build()
        if self.cut and {key for key in builder.results if key in self.pending} != self.answered_after:
            raise Whole  # a call before the cut is now answered after it, or no longer
        self.builder = builder
        return builder.built, builder.passes

    def _move(self, transcript: Transcript, built: Built, passes: list[int], found: Pieces, first: int) -> None:
        """Move the cut to the last assistant message but one that the request keeps, keeping
        what the build made of the records before it."""
        builder, self.builder = self.builder, None
        assert builder is not None
        if builder.folded:
            self._fresh()  # results are taken for batch entries: the next build is whole too
            return
        kept = [u.indices[0] for u in builder.kept if u.role == "assistant" and u.indices]
        if len(kept) < 2 or kept[-2] <= self.cut:
            return
        cut = kept[-2]
        at = next(k for k, u in enumerate(builder.sent) if u.role == "assistant" and u.indices == [cut])
        old = self.cut
        if not self._keep(built, passes, found, first, at, cut):
            return
        before = self.before if self.before is not None else Before(set(), set(), None, set())
        read_at = next(k for k, u in enumerate(builder.read) if u.role == "assistant" and u.indices == [cut])
        results = _results(builder.read[:read_at])
        later = _results(builder.read[read_at:])
        calls = {key for ids in builder.read_calls[:read_at] for key in ids}
        merged_at = next(k for k, u in enumerate(builder.merged) if u.role == "assistant" and u.indices == [cut])
        kept_calls = {
            b.get("id")
            for u in builder.merged[:merged_at]
            if u.role == "assistant"
            for b in u.blocks()
            if _kind(b) == "tool_use"
        }
        before.answered |= results
        before.calls |= kept_calls
        before.stems |= {key[: e.start()] for key in results if isinstance(key, str) and (e := ENTRY.search(key))}
        lines = [line for m in transcript.messages[old:cut] if m.source is not None for line in m.source.lines]
        if lines:
            before.end = max(lines) if before.end is None else max(before.end, *lines)
        self.pending = {key for key in self.pending | calls if key not in before.answered}
        self.answered_after = {key for key in later if key in self.pending}
        self.before = before


def _results(units: list[_Unit]) -> set[Any]:
    """The ids of the results of some user messages."""
    return {b.get("tool_use_id") for u in units if u.role == "user" for b in u.blocks() if _kind(b) == "tool_result"}
