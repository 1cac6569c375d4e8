"""Codex CLI rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``).

Each line is ``{"timestamp", "type", "payload"}`` with ``type`` one of ``session_meta``,
``response_item``, ``event_msg``, ``turn_context`` or ``compacted`` (codex-rs protocol
``RolloutItem``). The history is what Codex itself rebuilds when it resumes a session
(codex-rs core ``rollout_reconstruction.rs``):

- every ``response_item`` payload is a Responses item, in file order, and those items are the
  history; ``ghost_snapshot`` items (Codex's undo bookkeeping, never sent to the API) are left out;
- ``event_msg`` lines are what the terminal showed: a ``user_message`` event repeats the text of
  the ``response_item`` user message next to it, so it is not history (counting it would put every
  prompt in twice). An ``error`` event is kept as evidence of why the session stopped, and so is
  the error a turn's end event carries (``task_complete``'s ``error``, Codex 0.169 and later);
- ``compacted`` with ``replacement_history`` replaces everything before it; without one (older
  files) the history becomes the user messages so far plus the summary as a user message, as Codex
  rebuilds it;
- an ``event_msg`` ``thread_rolled_back`` drops the last ``num_turns`` user turns.

Codex reads a line back only when it has a top-level ``timestamp``: a line without one is skipped
(``Transcript.skipped``), and so is a line that is not JSON (``Transcript.problems``). The version
that wrote the file is ``session_meta``'s ``cli_version`` (``meta["agent_version"]``).

Legacy files hold a first line ``{"id", "timestamp", ...}``, then bare items and
``{"record_type": "state"}`` lines; older still, one JSON object ``{"session", "items"}``.

The repaired history is exported as Responses input (``export_format``): the messages keep the
items as read, so untouched items are written back exactly. A rollout is written only back over
the one it was read from (``suture.writeback.codex``: every line the repair leaves alone kept, the
terminal's events included). Each message's source is its line number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from suture.formats import CERTAIN, LIKELY, About, FormatError, first_text
from suture.formats.responses import item_kind, item_problem, messages_from_items
from suture.io import Document, InputError, gc_paused
from suture.model import LoadProblem, Message, Skipped, Source, Transcript

__all__ = ["ADAPTER", "CodexAdapter"]

_RECORD_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_HISTORY_KINDS = frozenset({"message", "assistant", "call", "result"})
_NOT_HISTORY = frozenset({"ghost_snapshot"})
_EVIDENCE_EVENTS = frozenset({"error", "stream_error"})


def _named(value: Any, names: frozenset[str]) -> bool:
    return isinstance(value, str) and value in names


def _line_words(record: Any) -> str:
    """What a rollout line holds, in a few words: ``response_item: user message``,
    ``response_item: function_call``, ``event_msg: token_count``, ``session_meta``."""
    if not isinstance(record, dict):
        return "a line that is not an object"
    kind = record.get("type")
    payload = record.get("payload") if "payload" in record else record
    what = payload.get("type") if isinstance(payload, dict) else None
    if what == "message" and isinstance(payload, dict) and isinstance(payload.get("role"), str):
        what = f"{payload['role']} message"
    said = [str(part)[:40] for part in (kind if "payload" in record else None, what) if isinstance(part, str) and part]
    return ": ".join(said) or "a record with no type"


def _is_record(value: Any) -> bool:
    return isinstance(value, dict) and _named(value.get("type"), _RECORD_TYPES) and "payload" in value


def _is_legacy_header(value: Any) -> bool:
    return isinstance(value, dict) and "id" in value and "timestamp" in value and not ({"type", "role"} & value.keys())


def _is_state(value: Any) -> bool:
    return isinstance(value, dict) and value.get("record_type") == "state"


def _is_user_message(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type", "message") == "message" and item.get("role") == "user"


class CodexAdapter:
    name = "codex"
    title = "Codex CLI rollout JSONL (session log)"
    order = 32
    export_format = "responses"
    raw_format = "responses"
    """The records a rollout's lines hold: Responses items."""
    provider = "openai-responses"
    """The provider (a ``suture.checks`` name) whose API these records are written for."""

    # -- detection ---------------------------------------------------------------------------

    def _records(self, doc: Document) -> list[tuple[int, Any]] | None:
        """The rollout lines, or None when the document cannot be a rollout."""
        if doc.kind == "jsonl":
            return doc.records
        value = doc.value
        if _is_record(value):
            return [(1, value)]  # a rollout of one line parses as one JSON value
        return None

    def sniff(self, doc: Document) -> int:
        value = doc.value
        if doc.kind == "json" and isinstance(value, dict) and isinstance(value.get("session"), dict):
            return CERTAIN if isinstance(value.get("items"), list) else 0
        records = self._records(doc)
        if not records:
            return 0
        head = [v for _, v in records[:50]]
        if any(_is_record(v) for v in head):
            return CERTAIN
        body = head[1:] if _is_legacy_header(head[0]) else head
        items = [v for v in body if not _is_state(v)]
        if any(item_kind(v) not in _HISTORY_KINDS or "type" not in v for v in items):
            return 0
        if _is_legacy_header(head[0]) or len(items) < len(body):
            return CERTAIN
        return LIKELY if items else 0

    # -- loading -----------------------------------------------------------------------------

    def skipped(self, transcript: Transcript) -> list[str]:
        """What the file holds that the agent does not send: the lines before a compaction."""
        compacted = transcript.meta.get("compacted")
        if not compacted or compacted["line"] <= 1:
            return []
        line = compacted["line"]
        return [f"lines 1–{line - 1} are before a compaction (line {line}) and are not sent: only what it kept is"]

    def before_compaction(self, transcript: Transcript) -> list[Skipped]:
        """The lines before the last compaction that Codex does not send when it resumes: all of
        them but those the compaction kept (older files keep the user messages)."""
        compacted = transcript.meta.get("compacted")
        if not compacted:
            return []
        line = compacted["line"]
        return [
            Skipped(Source(line=n), "compacted", f"{words} before the compaction (line {line})")
            for n, words in compacted.get("before", ())
        ]

    def load(self, doc: Document) -> Transcript:
        value = doc.value
        problems = list(doc.problems)
        meta: dict[str, Any] = {"shape": "array", "pretty": True, "timestamps": {}}
        evidence: list[tuple[Source, str]] = []
        history: list[tuple[Any, Source]] = []
        if doc.kind == "json" and isinstance(value, dict) and isinstance(value.get("session"), dict):
            meta["session"] = value["session"]
            items = value.get("items")
            if not isinstance(items, list):
                raise FormatError("items", "must be a list of Responses items")
            for i, item in enumerate(items):
                self._add(history, problems, item, Source(pointer=f"items[{i}]"), None)
            return self._transcript(history, meta, problems, evidence)
        records = self._records(doc)
        if records is None:
            raise FormatError("", "not a Codex rollout: expected JSONL lines with type and payload")
        own: list[LoadProblem] = []
        skipped: list[Skipped] = []
        meta["skipped"] = skipped
        with gc_paused():
            history, _ = self._read(records, 0, history, own, evidence, meta)
        meta["history"] = history
        meta["problems"] = own
        return self._transcript(history, meta, [*problems, *own], evidence)

    def _read(
        self,
        records: Sequence[tuple[int, Any]],
        first: int,
        history: list[tuple[Any, Source]],
        problems: list[LoadProblem],
        evidence: list[tuple[Source, str]],
        meta: dict[str, Any],
    ) -> tuple[list[tuple[Any, Source]], bool]:
        """Read rollout lines (``first`` is the index of the first of them in the file) into
        ``history``; also whether a line rewrote what came before it (compaction, rollback)."""
        timestamps: dict[int, Any] = meta["timestamps"]
        rewrote = False
        # The last compaction read: its place among ``records``, its line, the lines it kept.
        compaction: tuple[int, int, set[int | None]] | None = None
        for n, (line, record) in enumerate(records, first):
            if not isinstance(record, dict):
                problems.append(LoadProblem(line, "a rollout line must be an object"))
                continue
            kind = record.get("type")
            payload = record.get("payload")
            if _is_record(record):
                stamp = record.get("timestamp")
                if stamp is None:
                    meta["skipped"].append(
                        Skipped(
                            Source(line=line), "no_timestamp", "a line with no timestamp: Codex does not read it back"
                        )
                    )
                    continue
                if kind == "response_item":
                    self._add(history, problems, payload, Source(line=line), line, timestamps, stamp)
                elif kind == "session_meta":
                    meta.setdefault("session_record", record)
                    version = payload.get("cli_version") if isinstance(payload, dict) else None
                    if isinstance(version, str):
                        meta.setdefault("agent_version", version)
                elif kind == "turn_context" and isinstance(payload, dict):
                    meta["model"] = payload.get("model")
                elif kind == "compacted":
                    history = self._compacted(history, problems, payload, line, timestamps, stamp)
                    compaction = (n - first, line, {source.line for _, source in history})
                    rewrote = True
                elif kind == "event_msg" and isinstance(payload, dict):
                    event = payload.get("type")
                    failed = payload.get("error")
                    if _named(event, _EVIDENCE_EVENTS):
                        evidence.append((Source(line=line), str(payload.get("message", event))))
                    elif isinstance(failed, dict) and isinstance(failed.get("message"), str) and failed["message"]:
                        # A turn that ended on the provider's error: Codex 0.169 and later write it
                        # into the turn's end event (``task_complete``'s ``error``), with no error
                        # event of its own (recorded in sample_sessions/recorded/codex-*/).
                        evidence.append((Source(line=line), failed["message"]))
                    elif event == "thread_rolled_back":
                        history = _rolled_back(history, payload.get("num_turns"))
                        rewrote = True
            elif n == 0 and _is_legacy_header(record):
                meta["session"] = record
            elif _is_state(record):
                continue
            elif ("type" in record or "role" in record) and "payload" not in record:
                self._add(history, problems, record, Source(line=line), line)
            # Any other line (a record type newer than this reader) is not history.
        if compaction is not None:  # (the lines before the last one only: those are not sent)
            at, line, sent = compaction
            before = [(n, _line_words(r)) for n, r in records[:at] if n not in sent]
            meta["compacted"] = {"line": line, "before": before}
        return history, rewrote

    def extend(self, transcript: Transcript, doc: Document, start: int) -> tuple[Transcript, int] | None:
        """The transcript with appended rollout lines (``suture.tail.Extends``). Items that
        continue the model's last turn are read again with it; a compaction or rollback among
        the new lines means a full load."""
        meta = transcript.meta
        if doc.kind != "jsonl" or transcript.format != self.name or "history" not in meta:
            return None
        old_history: list[tuple[Any, Source]] = meta["history"]
        new_meta = {**meta, "timestamps": dict(meta["timestamps"]), "skipped": list(meta["skipped"])}
        own = list(meta["problems"])
        evidence = list(transcript.evidence)
        with gc_paused():
            history, rewrote = self._read(doc.records[start:], start, list(old_history), own, evidence, new_meta)
        if rewrote:
            return None
        new_meta["history"] = history
        new_meta["problems"] = own
        added = history[len(old_history) :]
        old = transcript.messages
        last = old[-1] if old else None
        if (
            last is not None
            and isinstance(last.raw, list)
            and added
            and item_kind(added[0][0]) in ("assistant", "call")
        ):
            # The model's turn goes on: its message is read again with the new items.
            reread = history[len(old_history) - len(last.raw) :]
            messages, changed = [*old[:-1], *messages_from_items(reread)], len(old) - 1
        else:
            messages, changed = [*old, *messages_from_items(added)], len(old)
        problems = [*doc.problems, *own]
        extended = Transcript(
            messages,
            self.name,
            raw_format="responses",
            meta=new_meta,
            problems=problems,
            evidence=evidence,
            skipped=list(new_meta["skipped"]),
        )
        return extended, changed

    def _add(
        self,
        history: list[tuple[Any, Source]],
        problems: list[LoadProblem],
        item: Any,
        source: Source,
        line: int | None,
        timestamps: dict[int, Any] | None = None,
        stamp: Any = None,
    ) -> None:
        if isinstance(item, dict) and _named(item.get("type"), _NOT_HISTORY):
            return
        problem = item_problem(item)
        if problem:
            problems.append(LoadProblem(line, f"{source.pointer + ': ' if source.pointer else ''}{problem}"))
            return
        history.append((item, source))
        if timestamps is not None:
            timestamps[id(item)] = stamp

    def _compacted(
        self,
        history: list[tuple[Any, Source]],
        problems: list[LoadProblem],
        payload: Any,
        line: int,
        timestamps: dict[int, Any],
        stamp: Any,
    ) -> list[tuple[Any, Source]]:
        if not isinstance(payload, dict):
            problems.append(LoadProblem(line, "compacted payload must be an object"))
            return history
        replacement = payload.get("replacement_history")
        if isinstance(replacement, list):
            new: list[tuple[Any, Source]] = []
            for i, item in enumerate(replacement):
                self._add(new, problems, item, Source(line=line, pointer=f"replacement_history[{i}]"), line)
                timestamps[id(item)] = stamp
            return new
        summary = payload.get("message")
        kept = [(item, source) for item, source in history if _is_user_message(item)]
        if isinstance(summary, str) and summary:
            item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary}]}
            timestamps[id(item)] = stamp
            kept.append((item, Source(line=line, pointer="message")))
        return kept

    def _transcript(
        self,
        history: list[tuple[Any, Source]],
        meta: dict[str, Any],
        problems: list[LoadProblem],
        evidence: list[tuple[Source, str]],
    ) -> Transcript:
        messages = messages_from_items(history)
        return Transcript(
            messages,
            self.name,
            raw_format="responses",
            meta=meta,
            problems=problems,
            evidence=evidence,
            skipped=list(meta.get("skipped", [])),
        )

    # -- dumping -----------------------------------------------------------------------------

    def dump(self, messages: Sequence[Message], transcript: Transcript) -> bytes:
        """Never: suture writes a rollout only back over the one it was read from
        (``suture.writeback.codex``); the history exports as Responses input."""
        from suture.formats import written_back_said

        raise InputError(written_back_said(self.name))

    def about(self, doc: Document) -> About:
        """The working folder and session id of the ``session_meta`` payload (or, in a legacy
        file, of its first line, or its ``session`` object)."""
        value = doc.value
        if doc.kind == "json" and isinstance(value, dict) and isinstance(value.get("session"), dict):
            heads: list[tuple[int, Any]] = [(1, value["session"])]
        else:
            records = self._records(doc) or []
            heads = [(n, r.get("payload") if _is_record(r) else r) for n, r in records[:50] if isinstance(r, dict)]
            heads = [(n, r) for n, r in heads if isinstance(r, dict) and ("cwd" in r or _is_legacy_header(r))]
        cwd, session = first_text(heads, "cwd", "id")
        return About(cwd, session)


def _rolled_back(history: list[tuple[Any, Source]], turns: Any) -> list[tuple[Any, Source]]:
    """History without its last ``turns`` user turns (a turn starts at a user message)."""
    if not isinstance(turns, int) or isinstance(turns, bool) or turns <= 0:
        return history
    starts = [i for i, (item, _) in enumerate(history) if _is_user_message(item)]
    if not starts:
        return history
    return history[: starts[-turns]] if turns <= len(starts) else history[: starts[0]]


ADAPTER = CodexAdapter()
