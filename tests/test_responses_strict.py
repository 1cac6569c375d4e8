"""Responses written for strict servers: a turn's outputs right after its last call, outputs
without a call_id, one output per call; and the ``openai-responses-strict`` checks that say so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from suture.checks import check, verdict
from suture.formats import dump, load_bytes
from suture.model import Transcript
from suture.repair import ChangeKind, repair
from suture.validity import violations
from suture.writeback import write_back

STRICT = "openai-responses-strict"


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def said(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def fc(call_id: str | None, name: str = "shell") -> dict[str, Any]:
    item = {"type": "function_call", "name": name, "arguments": "{}"}
    return item if call_id is None else {**item, "call_id": call_id}


def out(call_id: str | None, text: str = "ok") -> dict[str, Any]:
    item = {"type": "function_call_output", "output": text}
    return item if call_id is None else {**item, "call_id": call_id}


THINK = {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"}


def _load(items: list[Any]) -> Transcript:
    return load_bytes(orjson.dumps(items), "responses")


def _repaired_items(items: list[Any]) -> list[Any]:
    t = _load(items)
    written: list[Any] = orjson.loads(dump(repair(t.messages).messages, t))
    return written


def _rollout(items: list[Any]) -> bytes:
    meta = {"id": "019a9b2e", "cwd": "/w", "originator": "codex_cli_rs", "cli_version": "0.61.0"}
    lines = [{"timestamp": "2026-11-18T09:14:02.118Z", "type": "session_meta", "payload": meta}]
    lines += [{"timestamp": "2026-11-18T09:14:03.000Z", "type": "response_item", "payload": i} for i in items]
    return b"".join(orjson.dumps(r) + b"\n" for r in lines)


# -- how a repaired turn is laid out ----------------------------------------------------------------


def test_a_trailing_message_is_written_after_the_turns_outputs() -> None:
    items = [user("go"), THINK, fc("a"), fc("b"), said("running both"), out("a"), out("b"), user("next")]
    written = _repaired_items(items)
    assert written == [user("go"), THINK, fc("a"), fc("b"), out("a"), out("b"), said("running both"), user("next")]


def test_a_synthetic_output_goes_before_the_trailing_message_too() -> None:
    written = _repaired_items([user("go"), fc("a"), said("waiting for it")])
    assert [i["type"] for i in written] == ["message", "function_call", "function_call_output", "message"]
    assert written[2]["call_id"] == "a" and written[2]["output"].startswith("Interrupted before shell")
    assert written[3] == said("waiting for it")


def test_the_trailing_message_stays_before_a_steer_and_a_note() -> None:
    # Results first (rule 7), then what the model wrote after its calls, then the user's steer.
    items = [user("go"), fc("a"), said("on it"), user("and the lint"), out("a"), out("a", "twice")]
    written = _repaired_items(items)
    assert written[:5] == [user("go"), fc("a"), out("a"), said("on it"), user("and the lint")]
    assert written[5]["role"] == "user"
    assert written[5]["content"][0]["text"].startswith("A result for tool call a arrived outside its turn")


def test_a_run_without_calls_is_written_as_it_was() -> None:
    items = [user("hi"), THINK, said("hello")]
    t = _load(items)
    assert orjson.loads(dump(t.messages, t)) == items


def test_the_laid_out_turn_reads_back_as_the_same_history() -> None:
    items = [user("go"), fc("a"), said("done soon"), out("a")]
    written = _repaired_items(items)
    back = _load(written)
    assert violations(back.messages) == []
    assert repair(back.messages).changes == []
    assert _repaired_items(written) == written  # laying out again changes nothing


def test_the_repair_summary_says_which_turns_are_written_in_another_order(tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_bytes(orjson.dumps([user("go"), fc("a"), said("waiting"), out("a")]))
    target = tmp_path / "out.json"
    done = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(source), "-o", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "suture: no changes needed (2 messages and 1 tool result); 1 turn written with the outputs right after the calls\n"
    )
    assert [i["type"] for i in orjson.loads(target.read_bytes())][2:] == ["function_call_output", "message"]
    # Converted to chat, the text and the calls are one message again: nothing to say.
    done = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(source), "--to", "chat", "-o", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stderr == "suture: no changes needed (2 messages and 1 tool result)\n"


# -- an output without call_id ------------------------------------------------------------------------


def test_an_output_without_call_id_becomes_a_no_id_note() -> None:
    t = _load([user("go"), fc("a"), out("a"), out(None, "lost")])
    assert t.messages[3].role == "tool" and t.messages[3].tool_call_id == ""
    result = repair(t.messages)
    assert [(c.kind, c.call_id) for c in result.changes] == [(ChangeKind.ORPHAN_NOTE, "")]
    written = orjson.loads(dump(result.messages, t))
    assert written[3] == {
        "type": "message",
        "role": "user",
        "content": [
            {
                "type": "input_text",
                "text": "A result for tool call (no id) arrived outside its turn and is kept here as a note:\nlost",
            }
        ],
    }
    assert all("call_id" in i for i in written if i["type"].endswith("_call_output"))


def test_an_output_without_call_id_pairs_with_a_call_without_one() -> None:
    t = _load([user("go"), fc(None), out(None, "listed")])
    result = repair(t.messages)
    assert [c.kind for c in result.changes] == [ChangeKind.RENAMED_ID]
    written = orjson.loads(dump(result.messages, t))
    assert written[1]["call_id"] == written[2]["call_id"] == "call_1_0"
    assert written[2]["output"] == "listed"


# -- the strict profile --------------------------------------------------------------------------------


def test_strict_servers_see_an_item_between_call_and_output_and_openai_does_not() -> None:
    t = _load([user("go"), fc("a"), said("waiting"), out("a")])
    assert check(t.messages, "openai-responses") == []
    [v] = check(t.messages, STRICT)
    assert (v.rule, v.index, v.where, v.call_id, v.fixed) == ("R7", 1, "input[1]", "a", True)
    assert v.error == "No tool output found for tool call a"
    assert v.problem == "a message item (input[2]) stands between call a (input[1]) and its output (input[3])"
    checked = verdict(t.messages, STRICT)
    assert checked.counts == (1, 0) and checked.before[0].fixed
    # The repaired history is checked as suture writes it, and the written file agrees.
    assert check(checked.repair.messages, STRICT, repaired=True) == []
    assert check(_load(_repaired_items([user("go"), fc("a"), said("waiting"), out("a")])).messages, STRICT) == []


def test_a_message_between_two_calls_of_a_turn_is_not_moved_and_says_so() -> None:
    items = [user("go"), fc("a"), said("and another"), fc("b"), out("a"), out("b")]
    t = _load(items)
    [v] = check(t.messages, STRICT)
    assert (v.rule, v.call_id, v.fixed) == ("R7", "a", False)
    checked = verdict(t.messages, STRICT)
    assert checked.counts == (1, 1) and not checked.before[0].fixed
    assert "Move the item out from between" in checked.before[0].remedy
    assert _repaired_items(items) == items


def test_an_output_before_its_call_is_r7_for_strict_servers() -> None:
    t = _load([user("go"), out("a"), fc("a")])
    assert [v.rule for v in check(t.messages, "openai-responses")] == []
    [v] = check(t.messages, STRICT)
    assert (v.rule, v.index, v.fixed) == ("R7", 2, True)
    assert v.problem == "the output for a comes before its call"


def test_duplicate_outputs_are_flagged_where_repair_changes_them() -> None:
    t = _load([user("go"), fc("a"), out("a"), out("a", "again")])
    [v] = check(t.messages, STRICT)
    assert (v.rule, v.index, v.related, v.fixed) == ("R9", 3, (2,), True)
    assert [c.kind for c in repair(t.messages).changes] == [ChangeKind.ORPHAN_NOTE]
    assert verdict(t.messages, STRICT).counts == (1, 0)


def test_a_call_id_reused_by_a_later_turn_is_a_duplicate_output_the_repair_renames() -> None:
    t = _load([user("go"), fc("terminal:0"), out("terminal:0"), user("again"), fc("terminal:0"), out("terminal:0")])
    [v] = check(t.messages, STRICT)
    assert (v.rule, v.index, v.call_id) == ("R9", 5, "terminal:0")
    checked = verdict(t.messages, STRICT)
    assert checked.counts == (1, 0)
    assert [c.kind for c in checked.repair.changes] == [ChangeKind.RENAMED_ID]


def test_missing_call_ids_are_r8_for_every_responses_server() -> None:
    t = _load([user("go"), fc("a"), out("a"), out(None)])
    for provider in ("openai-responses", STRICT):
        [v] = check(t.messages, provider)
        assert (v.rule, v.where, v.fixed) == ("R8", "input[3]", True)
        assert v.error == "Missing required parameter: 'input[3].call_id'."
        assert verdict(t.messages, provider).counts == (1, 0)


# -- Codex: the same layout when its history is written -----------------------------------------------


def test_codex_check_and_repair_agree_on_a_resumed_turn(tmp_path: Path) -> None:
    items = [user("go"), fc("c1"), said("waiting"), out("c1"), out("c1", "again")]
    source = tmp_path / "rollout.jsonl"
    source.write_bytes(_rollout(items))
    checked = subprocess.run(
        [sys.executable, "-m", "suture", "check", str(source), "--provider", STRICT, "--json"],
        capture_output=True,
        check=False,
    )
    assert checked.returncode == 1, checked.stderr
    found = orjson.loads(checked.stdout)["providers"][STRICT]
    # Codex sends both as written; the contract view (the file and suture's repair of it) fixes both.
    assert [p["rule"] for p in found["sent"]] == ["R7", "R9"]
    report = found["contract"]
    assert [(p["rule"], p["fixed_by_repair"]) for p in report["before"]] == [("R7", True), ("R9", True)]
    assert report["after"] == []
    target = tmp_path / "repaired.json"
    done = subprocess.run(
        [sys.executable, "-m", "suture", "repair", str(source), "--to", "responses", "-o", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    written = orjson.loads(target.read_bytes())
    assert [i["type"] for i in written] == ["message", "function_call", "function_call_output", "message", "message"]
    assert written[3] == said("waiting")
    assert check(_load(written).messages, STRICT) == []
    rollout = load_bytes(_rollout(items))
    again = load_bytes(write_back(_rollout(items), rollout).data)
    assert check(again.messages, STRICT) == []


# -- property: whatever a session holds, its repair is accepted by strict servers ---------------------


@st.composite
def sessions(draw: st.DrawFn) -> list[Any]:
    """Responses input as agents leave it: turns of reasoning, text, calls and text after the calls;
    outputs late, early, twice, for unknown calls, without call_id; user messages anywhere. No
    text or reasoning between two calls of one turn (that the repair leaves alone)."""
    items: list[Any] = [user("start")]
    used: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["turn", "turn", "output", "output", "user"]))
        if kind == "turn":
            if items[-1].get("role") != "user" and items[-1]["type"] != "function_call_output":
                items.append(user("next"))
            if draw(st.booleans()):
                items.append(THINK)
            if draw(st.booleans()):
                items.append(said("let me look"))
            for _ in range(draw(st.integers(1, 3))):
                call_id = draw(st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d"])))
                items.append(fc(call_id))
                if call_id is not None:
                    used.append(call_id)
            if draw(st.booleans()):
                items.append(said("running these"))
        elif kind == "output":
            call_id = draw(st.one_of(st.none(), st.sampled_from([*used, "zz"])))
            items.append(out(call_id))
        else:
            items.append(user("steer"))
    return items


@settings(max_examples=300, deadline=None)
@given(sessions())
def test_every_repaired_session_passes_the_strict_profile(items: list[Any]) -> None:
    t = _load(items)
    result = repair(t.messages)
    assert check(result.messages, STRICT, repaired=True) == []
    back = _load(orjson.loads(dump(result.messages, t)))
    assert check(back.messages, STRICT) == []
    assert violations(back.messages) == []
    # What the checks call fixed before repair is what the written file no longer has.
    v = verdict(t.messages, STRICT, result)
    assert v.after == [] and all(x.fixed for x in v.before)


@settings(max_examples=200, deadline=None)
@given(sessions())
def test_the_checked_layout_is_the_written_one(items: list[Any]) -> None:
    # Before repair too: a file suture writes back untouched has the problems the checks name.
    t = _load(items)
    for provider in ("openai-responses", STRICT):
        written = _load(orjson.loads(dump(t.messages, t)))
        laid_out = [(v.rule, v.where) for v in check(t.messages, provider, repaired=True)]
        assert laid_out == [(v.rule, v.where) for v in check(written.messages, provider)]
