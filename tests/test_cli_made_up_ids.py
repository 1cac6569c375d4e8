"""A Gemini call with no id of its own gets one suture makes from its place (``call_c1_p0``),
which the file names nowhere: what the command line shows names the call by its place instead
(``call at contents[1].parts[1] (grep)``), or by the id the session holds for it; in JSON its
``call_id`` is ``null`` (or that id) and ``call_at`` its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from suture.cli import main

SAMPLES = Path(__file__).parent.parent / "sample_sessions"
NO_IDS = SAMPLES / "gemini" / "broken-no-ids.json"  # calls at contents[1].parts[0, 1] and contents[3].parts[0]
PI_GEMINI = SAMPLES / "recorded" / "pi-0.73.1-gemini" / "orphan-result" / "session.jsonl"
PI_ID = "bash_1796448570907_1"  # the session's id of the call pi sends to Gemini with none
G3 = (
    "Please ensure that the number of function response parts is equal to the number of function call parts "
    "of the function call turn."
)


def _no_made_up_id(said: str) -> None:
    assert "call_c" not in said, said


def test_repair_names_an_interrupted_call_by_its_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.json"
    assert main(["repair", str(NO_IDS), "-o", str(tmp_path / "out.json"), "--report", str(report)]) == 0
    summary = capsys.readouterr().err
    assert "interrupted: call at contents[1].parts[1] (grep), call at contents[3].parts[0] (edit_file)" in summary, (
        summary
    )
    written = json.loads(report.read_text())
    _no_made_up_id(json.dumps(written))
    interrupts = [c for c in written["changes"] if c["kind"] == "synthetic_interrupt"]
    assert [(c["call_id"], c["call_at"]) for c in interrupts] == [
        (None, "contents[1].parts[1]"),
        (None, "contents[3].parts[0]"),
    ]
    assert interrupts[0]["summary"].startswith("call at contents[1].parts[1] (grep) had no result")
    assert written["interrupted"] == [None, None]
    assert written["interrupted_at"] == ["contents[1].parts[1]", "contents[3].parts[0]"]


def test_repair_to_another_format_names_the_ids_it_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    main(["repair", str(NO_IDS), "--to", "chat", "-o", str(out)])
    assert "interrupted: call_c1_p1, call_c3_p0" in capsys.readouterr().err
    assert "call_c1_p1" in out.read_text()  # (written there: the reader finds it)


def test_check_names_a_call_by_its_place(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(NO_IDS)])
    said = capsys.readouterr().out
    _no_made_up_id(said)
    assert "[1] (contents[1]) call at contents[1].parts[1] (grep) has no result in its turn" in said
    main(["check", "--json", str(NO_IDS)])
    report = json.loads(capsys.readouterr().out)
    _no_made_up_id(json.dumps(report))
    first = report["problems"][0]
    assert (first["call_id"], first["call_at"]) == (None, "contents[1].parts[1]")
    main(["check", "--provider", "gemini", str(NO_IDS)])
    _no_made_up_id(capsys.readouterr().out)


def test_check_of_what_pi_sends_to_gemini_names_the_session_s_own_id(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", "--json", str(PI_GEMINI)])
    report = json.loads(capsys.readouterr().out)
    _no_made_up_id(json.dumps(report))
    sent = report["providers"]["gemini"]["sent"][0]
    assert (sent["call_id"], sent["call_at"]) == (PI_ID, "contents[1].parts[0]")


def test_explain_names_a_call_by_its_place_or_the_session_s_id(capsys: pytest.CaptureFixture[str]) -> None:
    main(["explain", str(NO_IDS), G3])
    said = capsys.readouterr().out
    _no_made_up_id(said)
    assert "call at contents[1].parts[1] (grep) had no result" in said
    main(["explain", "--json", str(NO_IDS), G3])
    report = json.loads(capsys.readouterr().out)
    _no_made_up_id(json.dumps(report))
    assert [(c["call_id"], c["call_at"]) for c in report["changes"]] == [(None, "contents[1].parts[1]")]
    main(["explain", str(PI_GEMINI), G3])
    said = capsys.readouterr().out
    _no_made_up_id(said)
    assert f"calls bash {PI_ID}" in said
    main(["explain", "--json", str(PI_GEMINI), G3])
    report = json.loads(capsys.readouterr().out)
    _no_made_up_id(json.dumps(report))
    assert report["sent"]["problems"][0]["call_id"] == PI_ID


def test_what_a_provider_would_say_is_quoted_as_it_says_it(capsys: pytest.CaptureFixture[str]) -> None:
    """The words suture writes name a made-up id's call by its place; a provider's error is quoted
    as the provider gives it (about the request suture's conversion writes, made-up ids and all),
    in the text as in --json's error."""
    main(["check", "--provider", "gemini,anthropic", str(SAMPLES / "gemini" / "broken-no-ids.json")])
    said = capsys.readouterr().out
    quoted = [line for line in said.splitlines() if "anthropic would say:" in line]
    assert quoted and all("call_c" in line and "contents[" not in line.split("would say:")[1] for line in quoted[:2])
    main(["check", "--json", "--provider", "anthropic", str(SAMPLES / "gemini" / "broken-no-ids.json")])
    errors = [p["error"] for p in json.loads(capsys.readouterr().out)["providers"]["anthropic"]["before"]]
    assert [e for e in errors if e in "\n".join(quoted)]
