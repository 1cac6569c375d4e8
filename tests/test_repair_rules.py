"""The repair contract (docs/contract.md) rule by rule, change kind by change kind, and the edge cases around them.

Histories are written with the small helpers below: ``A(...)`` an assistant message with calls,
``C(id, name)`` a call, ``T(id, content)`` a result, ``U(text)`` a user message, ``say(text)`` an
assistant reply without calls, ``P(content)`` a placeholder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from suture.formats.chat import ADAPTER as CHAT
from suture.io import parse_document
from suture.model import Content, ImagePart, Message, OtherPart, TextPart, ThinkingPart, ToolCall
from suture.repair import Change, ChangeKind, Repair, interrupted_text, note_text, repair
from suture.validity import violations

MAY_HAVE_RUN = "It may have partly run: check its effects before running it again."
SAFE_AGAIN = "It only reads, so it is safe to run again."


def C(call_id: str, name: str | None = "read_file", arguments: Any = "{}") -> ToolCall:
    return ToolCall(call_id, name, arguments)


def A(*calls: ToolCall, content: Content = None) -> Message:
    return Message("assistant", content, calls)


def T(call_id: str, content: Content = "ok", **kw: Any) -> Message:
    return Message("tool", content, tool_call_id=call_id, **kw)


def U(text: Content = "go on") -> Message:
    return Message("user", text)


def say(text: Content = "done") -> Message:
    return Message("assistant", text)


def P(content: Content = "") -> Message:
    return Message("assistant", content)


def records(result: Repair) -> list[tuple[Any, ...]]:
    return [(str(c.kind), c.input_index, c.output_index, c.span, c.call_id, c.new_id) for c in result.changes]


def shape(result: Repair) -> list[str]:
    """Each output message as role:id, e.g. ``A:x,y``, ``T:x``, ``U``."""
    out = []
    for m in result.messages:
        if m.role == "assistant":
            out.append("A:" + ",".join(c.id for c in m.tool_calls) if m.tool_calls else "A")
        elif m.role == "tool":
            out.append(f"T:{m.tool_call_id}")
        else:
            out.append(m.role[0].upper())
    return out


def only(result: Repair, kind: str) -> Change:
    found = [c for c in result.changes if c.kind == kind]
    assert len(found) == 1, result.changes
    return found[0]


# -- rule 1: placeholders ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        None,
        "",
        " ",
        "\n\t \r\n",
        "\u00a0\u2003\u3000",
        [],
        [TextPart("")],
        [TextPart(" "), TextPart("\n\t")],
    ],
    ids=["missing", "empty", "space", "mixed-whitespace", "unicode-spaces", "empty-list", "empty-text", "ws-parts"],
)
def test_rule1_placeholder_in_every_form_is_dropped(content: Content) -> None:
    result = repair([U("hi"), P(content), U("more")])
    assert shape(result) == ["U", "U"]
    assert records(result) == [("dropped_placeholder", 1, None, None, None, None)]
    assert result.origin == [0, 2]
    assert result.changes[0].summary


@pytest.mark.parametrize(
    "content",
    [
        "ok",
        [TextPart(" "), ImagePart({"type": "image_url"}, "image/png", 4)],
        [ThinkingPart("   ")],
        [ThinkingPart("let me think")],
        [OtherPart({"type": "refusal"}, "refusal")],
        [TextPart(" x ")],
    ],
    ids=["text", "image", "whitespace-thinking", "thinking", "other-part", "text-part"],
)
def test_rule1_not_a_placeholder(content: Content) -> None:
    messages = [U("hi"), say(content)]
    result = repair(messages)
    assert result.changes == []
    assert result.messages == messages
    assert result.messages[1] is messages[1]


def test_rule1_assistant_with_calls_and_empty_content_is_no_placeholder() -> None:
    result = repair([A(C("x"), content=""), T("x")])
    assert result.changes == []


def test_rule1_other_roles_with_empty_content_are_kept() -> None:
    messages = [U(""), Message("system", None), T("x", ""), Message("custom", " ")]
    result = repair(messages)
    assert [m.role for m in result.messages] == ["user", "system", "user", "custom"]
    assert [c.kind for c in result.changes] == ["orphan_note"]


def test_rule1_placeholder_does_not_end_a_span() -> None:
    result = repair([U("hi"), A(C("x")), P(), T("x", "contents")])
    assert shape(result) == ["U", "A:x", "T:x"]
    assert records(result) == [("dropped_placeholder", 2, None, None, None, None)]
    assert result.spans[0].input_start == 1
    assert result.spans[0].input_stop == 4


def test_rule1_several_placeholders_in_a_row() -> None:
    result = repair([A(C("x")), P(), P(None), P([]), T("x")])
    assert shape(result) == ["A:x", "T:x"]
    assert [c.input_index for c in result.changes] == [1, 2, 3]
    assert all(c.kind == "dropped_placeholder" for c in result.changes)


# -- rule 2: spans -------------------------------------------------------------------------------


def test_rule2_span_ends_at_next_assistant_message() -> None:
    result = repair([A(C("x")), say("thinking aloud"), T("x")])
    assert shape(result) == ["A:x", "T:x", "A", "U"]
    assert records(result) == [
        ("synthetic_interrupt", 0, 1, 0, "x", None),
        ("orphan_note", 2, 3, None, "x", None),
    ]


def test_rule2_messages_before_first_span_and_after_text_reply_are_in_no_span() -> None:
    messages = [Message("system", "be careful"), U("hi"), say("hello"), U("read it"), A(C("x")), T("x"), say("ok")]
    result = repair(messages)
    assert result.changes == []
    assert result.messages == messages
    assert len(result.spans) == 1
    span = result.spans[0]
    assert (span.index, span.input_start, span.input_stop, span.output_start, span.output_stop) == (0, 4, 6, 4, 6)


def test_rule2_span_ranges_in_input_and_output() -> None:
    result = repair([U(), A(C("x"), C("y")), U("steer"), T("y"), A(C("z")), say()])
    assert [(s.index, s.input_start, s.input_stop, s.output_start, s.output_stop) for s in result.spans] == [
        (0, 1, 4, 1, 5),
        (1, 4, 5, 5, 7),
    ]
    assert shape(result) == ["U", "A:x,y", "T:x", "T:y", "U", "A:z", "T:z", "A"]


def test_rule2_a_second_assistant_with_calls_starts_a_new_span() -> None:
    result = repair([A(C("x")), A(C("y")), T("x"), T("y")])
    assert shape(result) == ["A:x", "T:x", "A:y", "T:y", "U"]
    assert records(result) == [
        ("synthetic_interrupt", 0, 1, 0, "x", None),
        ("orphan_note", 2, 4, 1, "x", None),
        ("moved_result", 3, 3, 1, "y", None),  # the note for x was before it and is now after
    ]


# -- rule 3: ids ---------------------------------------------------------------------------------


def test_rule3_empty_id_gets_call_m_c_from_input_indices() -> None:
    # The placeholder at 0 still counts: m is the input index.
    result = repair([P(), U(), A(C("a"), C("")), T("a"), T("")])
    assert shape(result) == ["U", "A:a,call_2_1", "T:a", "T:call_2_1"]
    assert records(result) == [
        ("dropped_placeholder", 0, None, None, None, None),
        ("renamed_id", 2, 1, 0, "", "call_2_1"),
    ]
    assert "(no id)" in result.changes[1].summary


def test_rule3_repeated_id_across_messages_gets_smallest_free_k() -> None:
    result = repair([A(C("x")), T("x"), A(C("x")), T("x"), A(C("x")), T("x")])
    assert shape(result) == ["A:x", "T:x", "A:x_1", "T:x_1", "A:x_2", "T:x_2"]
    assert records(result) == [
        ("renamed_id", 2, 2, 1, "x", "x_1"),
        ("renamed_id", 4, 4, 2, "x", "x_2"),
    ]


def test_rule3_two_calls_with_one_id_in_one_message() -> None:
    result = repair([A(C("x", "read_file"), C("x", "grep")), T("x", "first"), T("x", "second")])
    assert shape(result) == ["A:x,x_1", "T:x", "T:x_1"]
    assert [m.content for m in result.messages[1:]] == ["first", "second"]
    assert records(result) == [("renamed_id", 0, 0, 0, "x", "x_1")]
    assert result.messages[0].tool_calls[1].name == "grep"


def test_rule3_later_original_id_equal_to_earlier_generated_one() -> None:
    result = repair([A(C("x")), T("x"), A(C("x")), T("x"), A(C("x_1")), T("x_1")])
    assert shape(result) == ["A:x", "T:x", "A:x_1", "T:x_1", "A:x_1_1", "T:x_1_1"]
    assert records(result) == [
        ("renamed_id", 2, 2, 1, "x", "x_1"),
        ("renamed_id", 4, 4, 2, "x_1", "x_1_1"),
    ]


def test_rule3_later_call_never_changes_an_earlier_id() -> None:
    # x_1 comes first, so it keeps its id; the later repeated x skips the taken x_1.
    result = repair([A(C("x_1")), T("x_1"), A(C("x")), T("x"), A(C("x")), T("x")])
    assert shape(result) == ["A:x_1", "T:x_1", "A:x", "T:x", "A:x_2", "T:x_2"]


def test_rule3_smallest_k_fills_gaps() -> None:
    result = repair([A(C("x"), C("x_2"), C("x"), C("x"))])
    assert [c.id for c in result.messages[0].tool_calls] == ["x", "x_2", "x_1", "x_3"]


def test_rule3_generated_base_can_collide_with_an_original_id() -> None:
    result = repair([A(C("call_1_0")), T("call_1_0"), A(C("")), T("")])
    assert shape(result) == ["A:call_1_0", "T:call_1_0", "A:call_2_0", "T:call_2_0"]
    result = repair([A(C("call_1_0")), A(C(""))])
    assert [c.id for m in result.messages for c in m.tool_calls] == ["call_1_0", "call_1_0_1"]


def test_rule3_two_empty_ids_in_one_message() -> None:
    result = repair([U(), A(C(""), C("")), T(""), T("")])
    assert shape(result) == ["U", "A:call_1_0,call_1_1", "T:call_1_0", "T:call_1_1"]
    assert records(result) == [
        ("renamed_id", 1, 1, 0, "", "call_1_0"),
        ("renamed_id", 1, 1, 0, "", "call_1_1"),
    ]


# -- rule 4: pairing -----------------------------------------------------------------------------


def test_rule4_pairing_uses_original_ids_not_final_ones() -> None:
    # The second call is renamed x_1, but a result saying x_1 does not answer it: pairing is by
    # the original id, which is x.
    result = repair([A(C("x"), C("x")), T("x"), T("x_1")])
    assert shape(result) == ["A:x,x_1", "T:x", "T:x_1", "U"]
    assert records(result) == [
        ("renamed_id", 0, 0, 0, "x", "x_1"),
        ("synthetic_interrupt", 0, 2, 0, "x_1", None),
        ("orphan_note", 2, 3, 0, "x_1", None),
    ]


def test_rule4_a_second_result_for_the_same_call_becomes_a_note() -> None:
    result = repair([A(C("x")), T("x", "first"), T("x", "again")])
    assert shape(result) == ["A:x", "T:x", "U"]
    assert result.messages[1].content == "first"
    assert records(result) == [("orphan_note", 2, 2, 0, "x", None)]
    assert result.messages[2].content == note_text("x") + "\nagain"


def test_rule4_results_pair_only_inside_their_span() -> None:
    result = repair([A(C("x")), U("wait"), A(C("y")), T("x"), T("y")])
    assert shape(result) == ["A:x", "T:x", "U", "A:y", "T:y", "U"]
    assert records(result) == [
        ("synthetic_interrupt", 0, 1, 0, "x", None),
        ("orphan_note", 3, 5, 1, "x", None),
        ("moved_result", 4, 4, 1, "y", None),
    ]


def test_rule4_empty_result_id_pairs_with_empty_call_id() -> None:
    result = repair([A(C("")), Message("tool", "out")])
    assert shape(result) == ["A:call_0_0", "T:call_0_0"]
    assert records(result) == [("renamed_id", 0, 0, 0, "", "call_0_0")]
    assert result.messages[1].content == "out"


def test_rule4_paired_result_takes_its_calls_final_id() -> None:
    messages = [A(C("x")), T("x"), A(C("x")), T("x", "second")]
    result = repair(messages)
    assert result.messages[3].tool_call_id == "x_1"
    assert messages[3].tool_call_id == "x"  # the input is untouched


def test_rule4_first_unpaired_call_wins() -> None:
    result = repair([A(C("x", "a"), C("y", "b"), C("x", "c")), T("x", "1"), T("x", "2"), T("y", "3")])
    assert [(m.tool_call_id, m.content) for m in result.messages[1:]] == [("x", "1"), ("y", "3"), ("x_1", "2")]


# -- rule 5: orphans -----------------------------------------------------------------------------


def test_rule5_result_before_any_call() -> None:
    result = repair([T("z", "stale"), U("hi")])
    assert result.messages[0] == Message("user", note_text("z") + "\nstale")
    assert records(result) == [("orphan_note", 0, 0, None, "z", None)]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("late output", f"{note_text('z')}\nlate output"),
        ("", note_text("z")),
        (None, note_text("z")),
        ("  ", f"{note_text('z')}\n  "),
    ],
)
def test_rule5_string_content(content: Content, expected: str) -> None:
    note = repair([U(), T("z", content)]).messages[1]
    assert note.role == "user"
    assert note.content == expected


def test_rule5_list_content_keeps_every_part_after_the_note() -> None:
    image = ImagePart({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}, "image/png", 26)
    text = TextPart("screenshot attached")
    other = OtherPart({"type": "file"}, "file")
    result = repair([U(), T("shot", [text, image, other])])
    note = result.messages[1]
    assert isinstance(note.content, list)
    assert isinstance(note.content[0], TextPart) and note.content[0].text == note_text("shot")
    assert note.content[1:] == [text, image, other]
    assert note.content[2] is image


def test_rule5_empty_list_content() -> None:
    note = repair([T("z", [])]).messages[0]
    assert isinstance(note.content, list) and len(note.content) == 1
    assert isinstance(note.content[0], TextPart) and note.content[0].text == note_text("z")


def test_rule5_missing_id_is_no_id() -> None:
    assert note_text("") == "A result for tool call (no id) arrived outside its turn and is kept here as a note:"
    result = repair([U(), Message("tool", "lost")])
    assert result.messages[1].content == note_text("") + "\nlost"
    assert records(result) == [("orphan_note", 1, 1, None, "", None)]
    assert "(no id)" in result.changes[0].summary


def test_rule5_other_keys_are_not_carried_over() -> None:
    result = repair([T("z", "out", name="bash", is_error=True, raw={"role": "tool", "extra": 1})])
    note = result.messages[0]
    assert (note.role, note.tool_call_id, note.name, note.is_error, note.raw, note.tool_calls) == (
        "user",
        "",
        None,
        None,
        None,
        (),
    )


def test_rule5_note_in_the_chat_format() -> None:
    transcript = CHAT.load(parse_document(b'[{"role":"tool","tool_call_id":"z","content":"x","name":"bash"}]'))
    out = orjson.loads(CHAT.dump(repair(transcript.messages).messages, transcript))
    assert out == [{"role": "user", "content": note_text("z") + "\nx"}]


def test_rule5_wording() -> None:
    assert note_text("z") == "A result for tool call z arrived outside its turn and is kept here as a note:"


# -- rule 6: synthetic results -------------------------------------------------------------------


def test_rule6_default_wording_without_is_read_only() -> None:
    result = repair([A(C("x", "read_file"))])
    synthetic = result.messages[1]
    assert synthetic.role == "tool" and synthetic.tool_call_id == "x"
    assert synthetic.content == f"Interrupted before read_file returned a result. {MAY_HAVE_RUN}"
    assert [c.id for c in result.interrupted] == ["x"]


def test_rule6_read_only_wording() -> None:
    result = repair([A(C("x", "read_file"), C("y", "edit_file"))], is_read_only=lambda name: name == "read_file")
    assert [m.content for m in result.messages[1:]] == [
        f"Interrupted before read_file returned a result. {SAFE_AGAIN}",
        f"Interrupted before edit_file returned a result. {MAY_HAVE_RUN}",
    ]


@pytest.mark.parametrize("name", [None, ""])
def test_rule6_missing_name_is_the_tool(name: str | None) -> None:
    result = repair([A(C("x", name))], is_read_only=lambda n: True)
    assert isinstance(result.messages[1].content, str)
    assert result.messages[1].content.startswith("Interrupted before the tool returned a result.")
    assert interrupted_text(None, False) == f"Interrupted before the tool returned a result. {MAY_HAVE_RUN}"


def test_rule6_interrupted_calls_carry_final_ids() -> None:
    result = repair([A(C("x")), T("x"), A(C("x", "bash"), C("", "grep"))])
    assert [(c.id, c.name) for c in result.interrupted] == [("x_1", "bash"), ("call_2_1", "grep")]
    assert [m.tool_call_id for m in result.messages[3:]] == ["x_1", "call_2_1"]


def test_rule6_synthetic_result_in_the_chat_format() -> None:
    transcript = CHAT.load(
        parse_document(b'[{"role":"assistant","content":null,"tool_calls":[{"id":"q","function":{"name":"bash"}}]}]')
    )
    out = orjson.loads(CHAT.dump(repair(transcript.messages).messages, transcript))
    assert out[1] == {"role": "tool", "tool_call_id": "q", "content": interrupted_text("bash", False)}


# -- rule 7: order -------------------------------------------------------------------------------


def test_rule7_results_in_call_order_then_the_rest_in_original_order() -> None:
    messages = [
        U("start"),
        A(C("a"), C("b"), C("c")),
        U("steer 1"),
        T("c", "C"),
        T("zz", "orphan"),
        Message("system", "sys"),
        T("a", "A"),
        U("steer 2"),
        say("end"),
        U("after"),
    ]
    result = repair(messages)
    assert shape(result) == ["U", "A:a,b,c", "T:a", "T:b", "T:c", "U", "U", "S", "U", "A", "U"]
    assert result.origin == [0, 1, 6, None, 3, 2, 4, 5, 7, 8, 9]


# -- change kinds --------------------------------------------------------------------------------


def test_kind_dropped_placeholder_record() -> None:
    change = only(repair([U(), P("  ")]), "dropped_placeholder")
    assert (change.input_index, change.output_index, change.span, change.call_id, change.new_id) == (
        1,
        None,
        None,
        None,
        None,
    )
    assert change.summary


def test_kind_renamed_id_record() -> None:
    result = repair([U(), A(C("x")), T("x"), A(C("x", "bash")), T("x")])
    change = only(result, "renamed_id")
    assert (change.input_index, change.output_index, change.span, change.call_id, change.new_id) == (
        3,
        3,
        1,
        "x",
        "x_1",
    )
    assert "x" in change.summary and "x_1" in change.summary


def test_kind_synthetic_interrupt_record() -> None:
    result = repair([U(), A(C("x"), C("y", "bash")), T("x")])
    change = only(result, "synthetic_interrupt")
    assert (change.input_index, change.output_index, change.span, change.call_id, change.new_id) == (
        1,
        3,
        0,
        "y",
        None,
    )
    assert "y" in change.summary


def test_kind_moved_result_record() -> None:
    result = repair([U(), A(C("x")), U("steer"), T("x")])
    change = only(result, "moved_result")
    assert (change.input_index, change.output_index, change.span, change.call_id, change.new_id) == (
        3,
        2,
        0,
        "x",
        None,
    )
    assert "x" in change.summary


def test_kind_moved_result_names_the_final_id() -> None:
    result = repair([A(C("x")), T("x"), A(C("x")), U("steer"), T("x")])
    assert records(result) == [
        ("renamed_id", 2, 2, 1, "x", "x_1"),
        ("moved_result", 4, 3, 1, "x_1", None),
    ]


def test_kind_orphan_note_record() -> None:
    result = repair([U(), A(C("x")), T("x"), T("q")])
    change = only(result, "orphan_note")
    assert (change.input_index, change.output_index, change.span, change.call_id, change.new_id) == (
        3,
        3,
        0,
        "q",
        None,
    )
    assert "q" in change.summary


def test_every_summary_is_one_line_even_for_hostile_ids() -> None:
    messages = [
        A(C("a\nb", "evil\ntool"), C("a\nb")),
        U("steer"),
        T("a\nb"),
        T("q\r\n\x1b[31mred", "x"),
        P(),
        A(C("", "x\ny")),
    ]
    result = repair(messages)
    assert {c.kind for c in result.changes} == set(ChangeKind)
    for change in result.changes:
        assert change.summary
        assert change.summary.isprintable(), change.summary


# -- moved, exactly as the contract defines it ----------------------------------------------------


def _moved(result: Repair) -> list[int]:
    return [c.input_index for c in result.changes if c.kind == "moved_result"]


def test_moved_both_results_swapped() -> None:
    assert _moved(repair([A(C("x"), C("y")), T("y"), T("x")])) == [1, 2]


def test_moved_only_the_result_a_steer_crossed() -> None:
    assert _moved(repair([A(C("x"), C("y")), T("x"), U(), T("y")])) == [3]


def test_moved_when_a_note_crosses_it() -> None:
    result = repair([A(C("x")), T("zz"), T("x")])
    assert _moved(result) == [2]
    assert shape(result) == ["A:x", "T:x", "U"]


def test_not_moved_when_in_place() -> None:
    assert _moved(repair([A(C("x"), C("y")), T("x"), T("y"), U()])) == []


def test_not_moved_when_only_a_synthetic_result_or_placeholder_changed_its_position() -> None:
    # y's output position differs from its input position, but no other input member crossed it.
    result = repair([A(C("x"), C("y")), P(), T("y")])
    assert shape(result) == ["A:x,y", "T:x", "T:y"]
    assert _moved(result) == []
    assert [c.kind for c in result.changes] == ["synthetic_interrupt", "dropped_placeholder"]


def test_not_moved_when_renamed_only() -> None:
    result = repair([A(C("x")), T("x"), A(C("x")), T("x")])
    assert _moved(result) == []


def test_moved_counts_members_of_its_own_span_only() -> None:
    # The orphan before the span and the user message after the next assistant are in other
    # places; within the span nothing crossed the result.
    result = repair([T("q"), A(C("x")), T("x"), say(), U()])
    assert _moved(result) == []


# -- the worked example --------------------------------------------------------------------------


def worked_example() -> list[Message]:
    return [
        U("fix the build"),
        A(C("x", "read_file"), C("y", "run_tests")),
        U("also check the lint"),
        T("y", "2 failed"),
        P(""),
        T("x", "<contents>"),
        A(C("x", "read_file")),
        say("done"),
        T("z", "late output"),
    ]


def test_worked_example() -> None:
    messages = worked_example()
    result = repair(messages)
    assert shape(result) == ["U", "A:x,y", "T:x", "T:y", "U", "A:x_1", "T:x_1", "A", "U"]
    assert [m.content for m in result.messages] == [
        "fix the build",
        None,
        "<contents>",
        "2 failed",
        "also check the lint",
        None,
        f"Interrupted before read_file returned a result. {MAY_HAVE_RUN}",
        "done",
        "A result for tool call z arrived outside its turn and is kept here as a note:\nlate output",
    ]
    assert records(result) == [
        ("moved_result", 3, 3, 0, "y", None),
        ("dropped_placeholder", 4, None, None, None, None),
        ("moved_result", 5, 2, 0, "x", None),
        ("renamed_id", 6, 5, 1, "x", "x_1"),
        ("synthetic_interrupt", 6, 6, 1, "x_1", None),
        ("orphan_note", 8, 8, None, "z", None),
    ]
    assert [c.id for c in result.interrupted] == ["x_1"]
    assert result.origin == [0, 1, 5, 3, 2, 6, None, 7, 8]
    assert [(s.input_start, s.input_stop, s.output_start, s.output_stop) for s in result.spans] == [
        (1, 6, 1, 5),
        (6, 7, 5, 7),
    ]
    assert violations(result.messages) == []
    assert all(c.summary and c.summary.isprintable() for c in result.changes)
    assert result.report() == {
        "changes": [c.to_json() for c in result.changes],
        "interrupted": ["x_1"],
    }


def test_worked_example_read_only() -> None:
    result = repair(worked_example(), is_read_only={"read_file"}.__contains__)
    assert result.messages[6].content == f"Interrupted before read_file returned a result. {SAFE_AGAIN}"


def test_output_of_maps_input_to_output() -> None:
    result = repair(worked_example())
    assert [result.output_of(i) for i in range(9)] == [0, 1, 4, 3, None, 2, 5, 7, 8]


def test_counts_and_changed() -> None:
    result = repair(worked_example())
    assert result.changed
    assert result.counts() == {
        ChangeKind.DROPPED_PLACEHOLDER: 1,
        ChangeKind.RENAMED_ID: 1,
        ChangeKind.SYNTHETIC_INTERRUPT: 1,
        ChangeKind.MOVED_RESULT: 2,
        ChangeKind.ORPHAN_NOTE: 1,
    }
    assert not repair([U()]).changed


def test_empty_history() -> None:
    result = repair([])
    assert (result.messages, result.changes, result.spans, result.origin, result.interrupted) == ([], [], [], [], [])


# -- the bundled chat samples --------------------------------------------------------------------

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions" / "chat"
SAMPLE_KINDS = {
    "clean.json": set(),
    "moved-result.json": {"moved_result"},
    "synthetic-interrupt.jsonl": {"synthetic_interrupt"},
    "orphan-note.json": {"orphan_note"},
    "renamed-id.json": {"renamed_id"},
    "dropped-placeholder.json": {"dropped_placeholder"},
    "worked-example.json": set(ChangeKind),
}


def test_every_chat_sample_is_listed() -> None:
    files = {p.name for p in SAMPLES.iterdir() if p.suffix in (".json", ".jsonl")}
    assert files == set(SAMPLE_KINDS)
    readme = (SAMPLES / "README.md").read_text()
    assert all(f"`{name}`" in readme for name in SAMPLE_KINDS)


@pytest.mark.parametrize("name", sorted(SAMPLE_KINDS))
def test_each_chat_sample_shows_exactly_its_kind(name: str) -> None:
    import suture

    transcript = suture.load_file(SAMPLES / name)
    assert transcript.format == "chat"
    result = repair(transcript.messages)
    assert {str(c.kind) for c in result.changes} == SAMPLE_KINDS[name]
    assert violations(result.messages) == []
    assert (violations(transcript.messages) == []) == (name == "clean.json")
