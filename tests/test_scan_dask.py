"""``suture scan --dask``: the same per-file work on a Dask cluster gives the same rows.

Runs on a ``LocalCluster`` of two worker processes; needs the fleet extra (CI installs it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from suture.scan_pool import scan_all
from suture.sessions import find
from tests.fakehome import env_for, home_with_sessions

pytest.importorskip("distributed", reason="the Dask tests need the fleet extra: pip install 'suture[fleet]'")
pytest.importorskip("fsspec", reason="the Dask tests need the fleet extra: pip install 'suture[fleet]'")


def _agents(home: Path) -> list[str]:
    return [str(home / ".claude"), str(home / ".codex"), str(home / ".pi")]


def test_a_local_cluster_of_two_workers_gives_the_rows_of_the_local_pool(tmp_path: Path) -> None:
    made = home_with_sessions(tmp_path, real=True)
    files = [p for paths in made.values() for p in paths]
    local = sorted((r.to_json() for r in scan_all(find(_agents(tmp_path)), jobs=2)), key=lambda r: str(r["path"]))
    # The same files twice over: as paths, and as fsspec URLs that the workers open themselves.
    urls = [f"file://{p}" for p in files]
    on_dask = list(scan_all(find([*_agents(tmp_path), *urls]), dask="local", jobs=2))
    by_path = sorted((r.to_json() for r in on_dask if not r.path.startswith("file://")), key=lambda r: str(r["path"]))
    assert by_path == local
    assert len(local) == len(files)
    from_urls = {r.path.removeprefix("file://"): r.to_json() for r in on_dask if r.path.startswith("file://")}
    for row in local:
        url_row = dict(from_urls[str(row["path"])])
        # Read through fsspec, the row is the same but for the path (and the agent, which only
        # says in whose folder a file was found: a URL has none).
        assert {k: v for k, v in url_row.items() if k not in ("path", "agent", "mtime")} == {
            k: v for k, v in row.items() if k not in ("path", "agent", "mtime")
        }


def test_the_command_writes_rows_as_they_come_to_out(tmp_path: Path) -> None:
    home_with_sessions(tmp_path)
    out = tmp_path / "rows.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "suture", "scan", *_agents(tmp_path), "--dask", "local", "-j", "2", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env_for(tmp_path),
        timeout=180,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert len(rows) == 7
    assert {r["verdict"] for r in rows} == {"ok", "rejected"}


def test_a_scheduler_address_where_nothing_listens_is_one_error_at_once(tmp_path: Path) -> None:
    # A port just closed: nothing listens there. Dask's client tries again for its whole
    # timeout (30 s) where the connection is refused, then says it timed out; scan says the
    # connection was refused, at once, exit 2.
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    home_with_sessions(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "suture", "scan", *_agents(tmp_path), "--no-cache", "--dask", f"tcp://127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        env=env_for(tmp_path),
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert (
        proc.stderr
        == f"suture: error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} ([Errno 111] Connection refused)\n"
    )
