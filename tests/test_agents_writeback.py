"""A pi session talking to OpenAI Responses, written back by suture: what pi's way of sending ids
there asks of the write-back (every recorded session written back is judged by the strict mock's
rules in ``tests/test_writeback.py``; the live tier resumes them with the real pi,
``tests/test_agents_live.py``)."""

from __future__ import annotations

from suture.formats import load_bytes
from suture.sent import as_sent
from suture.writeback import write_back
from tools.agents.record import CORPUS


def test_a_repeated_responses_call_id_is_written_with_its_call_id_renamed() -> None:
    """pi sends a call's stored id ``{call_id}|{item id}`` to Responses split in two: the repair's
    rename of the repeated id (``…|{item id}_1``) leaves the ``call_id`` repeated, so the
    write-back renames that part too."""
    data = (CORPUS / "pi-0.73.1-responses" / "repeated-id" / "session.jsonl").read_bytes()
    written = write_back(data, load_bytes(data))
    ((final, to),) = written.ids.items()
    head, item = final.split("|")
    assert to == f"{head}_1|{item}"
    calls = [i["call_id"] for i in as_sent(load_bytes(written.data)).wire if i.get("type") == "function_call"]
    assert calls == [head, f"{head}_1"]
    assert any("another call's" in note for note in written.notes)
