"""``suture serve`` without a browser: its command line, the page, the socket's origin check, and
apps that start per connection and end with the server. (The browser tests are in
``test_serve_browser.py``.)"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from suture.cli import main
from tests.fakehome import SAMPLES
from tests.helpers.cli import one_error_line
from tests.helpers.cli import run as suture
from tests.serving import alive, serving, stop

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "sample_sessions" / "chat" / "worked-example.json"

pytest.importorskip("textual_serve", reason="suture serve needs the web extra: pip install -e '.[web]'")
aiohttp = pytest.importorskip("aiohttp")

from suture.cli.serve import INSTALL_HINT, exposure_warning  # noqa: E402
from suture.web.server import is_loopback, refusal, url_for  # noqa: E402

# -- the command line ------------------------------------------------------------------------


def test_a_folder_is_served_as_the_sessions_browser_on_that_folder_only(tmp_path: Path) -> None:
    from argparse import Namespace

    from suture.cli.serve import app_command

    options = {"demo": False, "format": None, "read_only": "", "no_watch": False}
    argv, name = app_command(Namespace(input=str(tmp_path), **options))
    assert argv[-3:] == ["sessions", "--only", str(tmp_path)]
    assert name == f"{tmp_path.name}/"
    line = one_error_line(suture("serve", tmp_path, "--format", "chat"))
    assert "--format: for a FILE" in line


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "name a transcript FILE"),
        (("nothing-here.json",), "no such file"),
        (("--demo", "x.json"), "not both"),
        (("--demo", "--port", "70000"), "not a port"),
    ],
)
def test_bad_arguments_are_one_line(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    assert said in one_error_line(suture("serve", *args, cwd=tmp_path))


@pytest.mark.parametrize(
    ("name", "data", "options"),
    [
        ("package.json", b'{"name": "x", "version": "1.0.0"}', ()),
        ("broken.json", b'[{"role": "user", "content": "hi"', ()),
        ("empty.json", b"", ()),
        ("chat.json", WORKED.read_bytes(), ("--format", "gemini")),
    ],
    ids=["no-transcript", "broken-json", "empty", "another-format"],
)
def test_a_file_that_is_no_transcript_is_refused_as_check_refuses_it(
    tmp_path: Path, name: str, data: bytes, options: tuple[str, ...]
) -> None:
    """Before it listens: one line, the one ``suture check`` gives, exit code 2 (it served the
    file before, each page's app showing only the error)."""
    (tmp_path / name).write_bytes(data)
    command = [sys.executable, "-m", "suture", "serve", "--port", "0", name, *options]
    # Bounded: a server that starts on it would run until the timeout ends it.
    served = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert one_error_line(served) == one_error_line(suture("check", name, *options, cwd=tmp_path))
    assert served.stdout == ""  # never said it was serving


def test_a_session_still_being_written_is_served_and_a_large_one_read_only_to_its_first_piece(
    tmp_path: Path,
) -> None:
    """The file is read as the app reads it, not loaded whole: a session whose last line an agent
    is still writing is served (the app shows it, and that line once it is complete), and of a
    large file only the first piece is read before serving (each page's app reads all of it)."""
    from argparse import Namespace

    from suture.cli.serve import app_command

    options = {"demo": False, "format": None, "read_only": "", "no_watch": False}
    writing = tmp_path / "writing.jsonl"
    whole = (SAMPLES / "pi" / "v1-clean.jsonl").read_bytes()
    writing.write_bytes(whole + b'{"type":"message","timestamp":"2025-11-20T10:05:00.000Z","message":{"ro')
    assert app_command(Namespace(input=str(writing), **options))[1] == "writing.jsonl"

    large = tmp_path / "large.jsonl"
    chat = (SAMPLES / "chat" / "synthetic-interrupt.jsonl").read_bytes()
    large.write_bytes(chat * (1 + (1 << 20) // len(chat)) + b'{"content": "no role"}\n')
    assert app_command(Namespace(input=str(large), **options))[1] == "large.jsonl"
    # (A read of the whole file finds its last line is no message: the page's app says where.)
    assert "message has no role" in one_error_line(suture("check", large))


def test_a_fifo_is_refused_without_waiting_on_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    started = time.monotonic()
    line = one_error_line(suture("serve", "--port", "0", "fifo", cwd=tmp_path))
    assert "is a FIFO" in line and time.monotonic() - started < 30


def test_without_the_web_extra_it_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # None in sys.modules makes an import fail as if the package were not installed.
    monkeypatch.setitem(sys.modules, "textual_serve", None)
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    monkeypatch.delitem(sys.modules, "suture.web.server", raising=False)
    assert main(["serve", "--demo"]) == 2
    err = capsys.readouterr().err
    assert err == f"suture: error: {INSTALL_HINT}\n"
    assert "pip install 'suture[web]'" in err


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error_line(suture("serve", "--demo", "--port", port, cwd=tmp_path))
    assert f"cannot listen on 127.0.0.1 port {port}" in line


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.0.1", "localhost", "::1", "[::1]", "LOCALHOST", "app.localhost"])
def test_loopback_hosts_get_no_warning(host: str) -> None:
    assert is_loopback(host)
    assert exposure_warning(host, 8000) is None


def test_the_warning_names_the_port_listened_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # --port 0: the system picks the port; the warning, said once bound, names that one. (No
    # server is started: the one here only tells where it would listen.)
    import suture.web.server

    class Bound:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        async def serve_until_stopped(self, ready: Any) -> None:
            ready("http://host.example:32795/")

    monkeypatch.setattr(suture.web.server, "AppServer", Bound)
    assert main(["serve", "--host", "0.0.0.0", "--port", "0", str(WORKED)]) == 0
    said = capsys.readouterr()
    assert "anyone who can reach port 32795 can read" in said.err and "port 0" not in said.err
    assert "at http://host.example:32795/" in said.out


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "example.com", "10.0.0.1"])
def test_other_hosts_get_one_warning_line(host: str) -> None:
    assert not is_loopback(host)
    warning = exposure_warning(host, 8123)
    assert warning is not None and "\n" not in warning
    assert warning.startswith("suture: warning: ") and "anyone who can reach port 8123" in warning


def test_the_address_shown_for_an_ipv6_host_is_bracketed() -> None:
    assert url_for("::1", 8000) == "http://[::1]:8000/"
    assert url_for("127.0.0.1", 9) == "http://127.0.0.1:9/"
    assert "0.0.0.0" not in url_for("0.0.0.0", 8000)


# -- who may open the app's socket -----------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "loopback_only", "allowed"),
    [
        ({"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:8000"}, True, True),
        ({"Host": "localhost:9000", "Origin": "http://localhost:9000"}, True, True),  # a forwarded port
        ({"Host": "[::1]:8000", "Origin": "http://[::1]:8000"}, True, True),
        ({"Host": "127.0.0.1:8000"}, True, True),  # a program, not a page
        ({"Host": "evil.example:8000"}, True, False),  # a program naming another host
        ({"Host": "127.0.0.1:8000", "Origin": "http://evil.example"}, True, False),
        ({"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:8001"}, True, False),
        ({"Host": "127.0.0.1:8000", "Origin": "null"}, True, False),
        ({"Host": "evil.example:8000", "Origin": "http://evil.example:8000"}, True, False),  # DNS rebinding
        ({"Host": "box.lan:8000", "Origin": "http://box.lan:8000"}, False, True),
        ({"Host": "box.lan:8000", "Origin": "http://evil.example"}, False, False),
    ],
)
def test_a_socket_is_opened_only_by_this_servers_own_page(
    headers: dict[str, str], loopback_only: bool, allowed: bool
) -> None:
    assert (refusal(headers, loopback_only) is None) == allowed


# -- the server, run as a person runs it -----------------------------------------------------


async def _first_screen(url: str, origin: str | None) -> bytes:
    """Open the app's socket as the page does and collect its output until the panes are drawn."""
    headers = {"Origin": origin} if origin else {}
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{url}ws?width=140&height=40", headers=headers) as ws,
    ):
        await ws.send_str(json.dumps(["resize", {"width": 140, "height": 40}]))
        seen = b""
        deadline = time.monotonic() + 60
        while b"Repaired" not in seen:
            left = deadline - time.monotonic()
            assert left > 0, seen[-500:]
            message = await ws.receive(timeout=left)
            assert message.type == aiohttp.WSMsgType.BINARY, message
            seen += message.data
        return seen


def test_the_page_and_one_app_per_connection(tmp_path: Path) -> None:
    source = tmp_path / "worked.json"
    shutil.copyfile(WORKED, source)
    with serving(source, cwd=tmp_path) as served:
        assert served.url.startswith("http://127.0.0.1:")
        page = asyncio.run(_get(served.url))
        assert "<title>worked.json · suture</title>" in page
        assert "googleapis" not in page  # nothing from another site
        origin = served.url.rstrip("/")
        screen = asyncio.run(_first_screen(served.url, origin))
        assert b"Original" in screen and b"run_tests" in screen
        assert any("opened the app (1 open)" in line for line in served.out)


async def _get(url: str) -> str:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        assert response.status == 200
        return await response.text()


def test_a_page_from_another_site_cannot_open_the_app(tmp_path: Path) -> None:
    with serving("--demo", cwd=tmp_path) as served:

        async def attempt() -> int:
            async with aiohttp.ClientSession() as session:
                try:
                    async with session.ws_connect(f"{served.url}ws", headers={"Origin": "http://evil.example"}):
                        return 101
                except aiohttp.WSServerHandshakeError as e:
                    return e.status

        assert asyncio.run(attempt()) == 403
        assert served.descendants() == set()  # no app was started for it
    assert any("refused a connection" in line and "evil.example" in line for line in served.out)


def test_a_host_name_that_is_not_this_machines_is_refused_every_route(tmp_path: Path) -> None:
    # A site whose name was pointed at 127.0.0.1 (DNS rebinding) sends its own name as the Host.
    source = tmp_path / "secret-plans.json"
    shutil.copyfile(WORKED, source)
    paths = ["/", "/?fontsize=20", "/static/js/textual.js", "/static/", "/download/x", "/ws", "/nothing"]

    async def statuses(host: str) -> dict[str, tuple[int, str]]:
        seen = {}
        async with aiohttp.ClientSession() as session:
            for path in paths:
                async with session.get(served.url.rstrip("/") + path, headers={"Host": host}) as response:
                    seen[path] = (response.status, await response.text(errors="replace"))
        return seen

    with serving(source, cwd=tmp_path) as served:
        port = served.url.rstrip("/").rsplit(":", 1)[1]
        for host in ("evil.com", f"evil.com:{port}", f"192.168.1.20:{port}", ""):
            for path, (status, body) in asyncio.run(statuses(host)).items():
                assert status == 403, (host, path)
                assert "secret-plans" not in body and "textual" not in body.lower(), (host, path)
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            seen = asyncio.run(statuses(host))
            assert seen["/"][0] == 200 and "secret-plans.json · suture" in seen["/"][1]
            assert seen["/static/js/textual.js"][0] == 200
            assert seen["/nothing"][0] == 404
        assert served.descendants() == set()  # no app was started for a refused request
    assert any("refused a request for '/'" in line and "evil.com" in line for line in served.out)


async def _fetch(url: str, host: str | None = None) -> tuple[int, Any, str]:
    """A GET's status, headers and body (``host``: the Host header sent)."""
    headers = {"Host": host} if host else {}
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as response:
        return response.status, response.headers, await response.text(errors="replace")


def test_no_folder_is_listed_and_only_the_pages_files_are_served(tmp_path: Path) -> None:
    from suture.web.server import STATIC

    with serving("--demo", cwd=tmp_path) as served:
        base = served.url.rstrip("/")
        page = asyncio.run(_fetch(served.url))[2]
        for file in STATIC.values():
            assert f"/static/{file}" in page  # the page uses it, and gets it
            assert asyncio.run(_fetch(f"{base}/static/{file}"))[0] == 200
        # textual-serve's static folder holds more, and listed itself, its folders too.
        for path in ("/static/", "/static", "/static/js/", "/static/fonts", "/static/images/background.png"):
            status, _, body = asyncio.run(_fetch(base + path))
            assert status == 404, path
            assert "Index of" not in body and "textual.js" not in body and "xterm" not in body, path


def test_every_response_forbids_framing_and_sniffing(tmp_path: Path) -> None:
    """The page, a static file, a missing one, a refused request: none may be framed by any
    site (``X-Frame-Options: DENY``, CSP ``frame-ancestors 'none'``) or taken for another type."""
    with serving("--demo", cwd=tmp_path) as served:
        base = served.url.rstrip("/")
        port = base.rsplit(":", 1)[1]
        answers = {
            "page": asyncio.run(_fetch(served.url)),
            "static": asyncio.run(_fetch(f"{base}/static/js/textual.js")),
            "missing": asyncio.run(_fetch(f"{base}/nothing")),
            "refused": asyncio.run(_fetch(served.url, host=f"evil.example:{port}")),
        }
    assert [status for status, _, _ in answers.values()] == [200, 200, 404, 403]
    for what, (_, headers, _) in answers.items():
        assert headers.get("X-Frame-Options") == "DENY", what
        policies = headers.getall("Content-Security-Policy", [])
        assert len(policies) == 1 and "frame-ancestors 'none'" in policies[0].split(";")[0], what
        assert headers.get("X-Content-Type-Options") == "nosniff", what


def test_a_hostile_file_name_is_text_in_the_page(tmp_path: Path) -> None:
    name = "<img src=x onerror=alert(1)>.json"
    shutil.copyfile(WORKED, tmp_path / name)
    with serving(tmp_path / name, cwd=tmp_path) as served:
        page = asyncio.run(_get(served.url))
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;.json · suture" in page


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_stopping_the_server_ends_the_apps_it_started(tmp_path: Path) -> None:
    with serving("--demo", cwd=tmp_path) as served:
        apps: set[int] = set()

        async def open_and_stop() -> None:
            async with aiohttp.ClientSession() as session:
                ws = await session.ws_connect(f"{served.url}ws", headers={"Origin": served.url.rstrip("/")})
                await ws.send_str(json.dumps(["resize", {"width": 100, "height": 30}]))
                message = await ws.receive(timeout=60)
                assert message.type == aiohttp.WSMsgType.BINARY
                apps.update(served.descendants())
                # The page goes on reading (as a browser does) while the server stops.
                stopped = asyncio.get_running_loop().run_in_executor(None, stop, served.process)
                while not ws.closed:
                    await ws.receive(timeout=60)
                assert await stopped == 0

        asyncio.run(open_and_stop())
    assert apps, "no app process was running for the open page"
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in apps) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in apps)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_an_app_whose_server_is_killed_ends_too(tmp_path: Path) -> None:
    with serving("--demo", cwd=tmp_path) as served:
        apps: set[int] = set()

        async def open_and_kill() -> None:
            async with aiohttp.ClientSession() as session:
                ws = await session.ws_connect(f"{served.url}ws", headers={"Origin": served.url.rstrip("/")})
                await ws.send_str(json.dumps(["resize", {"width": 100, "height": 30}]))
                # Until the app is idle: drawn and then quiet for 3 s (an app that still draws
                # would find its output gone; an idle one only sees its input end).
                seen = b""
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    try:
                        message = await ws.receive(timeout=3)
                    except TimeoutError:
                        if b"Repaired" in seen:
                            break
                        continue
                    assert message.type == aiohttp.WSMsgType.BINARY
                    seen += message.data
                assert b"Repaired" in seen
                apps.update(served.descendants())
                served.process.kill()  # no time to end its apps: their input just closes
                served.process.wait(timeout=30)

        asyncio.run(open_and_kill())
    assert apps, "no app process was running for the open page"
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in apps) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in apps if alive(pid)]
    for pid in left:  # ours: end them before failing
        os.kill(pid, signal.SIGKILL)
    assert not left


def test_the_command_line_loads_no_web_server() -> None:
    code = (
        "import sys; from suture.cli import build_parser; build_parser();"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual_serve', 'aiohttp', 'textual')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]"
