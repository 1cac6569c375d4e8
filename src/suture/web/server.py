"""Serve the app to browsers with textual-serve: each page that connects gets its own app process.

textual-serve runs a command per WebSocket connection with Textual's web driver and draws the
app's output in the page with xterm.js. What suture adds: its own page (no third-party fonts, the
socket on the page's own host and port, so a forwarded port works), a check that a socket comes
from this server's own page (any site a person visits could otherwise open one to a local port
and read the transcripts), a refusal of every request whose ``Host`` is not this machine's when
served on a loopback address, only the static files the page uses (no folder listed), headers
that keep the page out of other sites' frames, a line per connection, any free port on ``--port
0``, and an orderly stop that ends every app process it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import shlex
import signal
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, web
from aiohttp.typedefs import Handler
from textual_serve.app_service import AppService
from textual_serve.server import Server

from suture.io import InputError

__all__ = ["HEADERS", "STATIC", "AppServer", "host_refusal", "is_loopback", "refusal", "url_for"]

PAGE = Path(__file__).with_name("page.html")
DRIVER = "suture.web.driver:WebDriver"
"""Each app's Textual driver (``TEXTUAL_DRIVER``): it ends the app if the server goes away."""
QUIT_SECONDS = 5.0
"""How long an app has to end after each of: asked to quit, SIGTERM, SIGKILL."""
CLOSE_SECONDS = 5.0
"""How long closing a page's socket waits for the page to answer."""
STATIC = {
    "xterm_css": "css/xterm.css",
    "textual_js": "js/textual.js",
    "font": "fonts/RobotoMono-VariableFont_wght.ttf",
}
"""The files of textual-serve's ``static`` folder the page uses, by the name the page knows each
by: the only ones served (under ``/static/``); no folder is listed, no other file is served."""
HEADERS = {
    "Content-Security-Policy": "frame-ancestors 'none'; object-src 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}
"""Sent with every response: no site may show the page in a frame (a page framed by another site
could be led into keys that export files), and no file is taken for another type than it says."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address, IPv6 with or without brackets) is this machine only."""
    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_name(host_header: str) -> str:
    """``example:8000`` -> ``example``; ``[::1]:8000`` -> ``::1``."""
    try:
        return urlsplit(f"//{host_header}").hostname or ""
    except ValueError:
        return ""


def host_refusal(headers: Mapping[str, str], loopback_only: bool) -> str | None:
    """Why any request (the page, a static file, the socket) must be refused for its ``Host``, or
    ``None``. Served on a loopback address, the ``Host`` must name a loopback address too: a site
    whose name was pointed at 127.0.0.1 (DNS rebinding) would otherwise be served the page, and
    pass as the same origin when it opens the socket."""
    host = headers.get("Host", "")
    if loopback_only and not is_loopback(_host_name(host)):
        return f"the Host {host!r} is not this machine's loopback address"
    return None


def refusal(headers: Mapping[str, str], loopback_only: bool) -> str | None:
    """Why a request for the app's socket must be refused, or ``None`` to let it through.

    Browsers let a page from any site open a WebSocket to any address, this machine's included,
    so the request's ``Origin`` must be the host and port it is sent to: the page this server
    gave; and its ``Host`` must pass :func:`host_refusal`. A request with no ``Origin`` comes
    from a program, not a page, and is let through."""
    why = host_refusal(headers, loopback_only)
    if why is not None:
        return why
    host = headers.get("Host", "")
    origin = headers.get("Origin")
    if origin is None:
        return None
    try:
        parts = urlsplit(origin)
    except ValueError:
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
        return f"a page from {origin!r} may not open the app served at {host!r}"
    return None


def url_for(host: str, port: int) -> str:
    """The address a person opens: the host as given (any-address hosts by this machine's name)."""
    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


class AppServer(Server):
    """Serves the app that ``argv`` starts at ``host``:``port``, one process per page; ``name``
    titles the page; ``say`` gets one line per event (a page opened or closed, a socket refused)."""

    def __init__(self, argv: Sequence[str], *, name: str, host: str, port: int, say: Callable[[str], None]) -> None:
        # exec: the process textual-serve starts is the app itself, so ending it ends the app.
        command = f"exec env TEXTUAL_DRIVER={DRIVER} {shlex.join(argv)}"
        super().__init__(command, host=host, port=port, title=name, templates_path=PAGE.parent)
        self.name = name
        self.say = say
        self.loopback_only = is_loopback(host)
        self._open: dict[web.WebSocketResponse, asyncio.Task[Any] | None] = {}

    async def _make_app(self) -> web.Application:
        """textual-serve's routes, but for its static folder only the files the page uses
        (:data:`STATIC`, no folder listed), each behind :meth:`_check_host` and sent with
        :data:`HEADERS`."""
        app = web.Application(middlewares=[self._check_host])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.get("/static/{file:.+}", self.handle_static, name="static"),
            ]
        )
        app.on_response_prepare.append(_add_headers)
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def handle_static(self, request: web.Request) -> web.FileResponse:
        """One of the files the page uses (:data:`STATIC`); any other path is not found."""
        file = request.match_info["file"]
        if file not in STATIC.values():
            raise web.HTTPNotFound()
        return web.FileResponse(Path(self.statics_path) / file)

    @web.middleware
    async def _check_host(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Refuse any request, to any route or none, whose ``Host`` :func:`host_refusal` refuses."""
        why = host_refusal(request.headers, self.loopback_only)
        if why is not None:
            self.say(f"suture: refused a request for {request.path!r} from {request.remote}: {why}")
            raise web.HTTPForbidden(text=why)
        return await handler(request)

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints a banner here; suture says one line once it listens."""

    @aiohttp_jinja2.template(PAGE.name)
    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        static = {key: f"/static/{file}" for key, file in STATIC.items()}
        return {"name": self.name, "font_size": _number(request.query, "fontsize", 16, 8, 40), "static": static}

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One page's app: started when its socket opens, ended when it closes."""
        why = refusal(request.headers, self.loopback_only)
        if why is not None:
            self.say(f"suture: refused a connection from {request.remote}: {why}")
            raise web.HTTPForbidden(text=why)
        websocket = web.WebSocketResponse(heartbeat=15, timeout=CLOSE_SECONDS)
        await websocket.prepare(request)

        async def close() -> None:
            await websocket.close()

        service = AppService(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=self.download_manager,
            debug=self.debug,
        )
        self._open[websocket] = asyncio.current_task()
        self.say(f"suture: a page at {request.remote} opened the app ({len(self._open)} open)")
        try:
            width = _number(request.query, "width", 80, 10, 1000)
            height = _number(request.query, "height", 24, 5, 1000)
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except Exception as e:  # a page that sends what the app cannot take: end its app, say why
            self.say(f"suture: the page at {request.remote} broke off: {type(e).__name__}: {e!r}")
        finally:
            await _end(service)
            del self._open[websocket]
            self.say(f"suture: a page at {request.remote} closed the app ({len(self._open)} open)")
        return websocket

    async def serve_until_stopped(self, ready: Callable[[str], None]) -> None:
        """Listen, call ``ready`` with the address, and serve until SIGINT or SIGTERM; then end
        every app it started. Raises :class:`InputError` when the address cannot be listened on."""
        errors = logging.StreamHandler(sys.stderr)
        errors.setFormatter(logging.Formatter("suture: %(message)s"))
        for name in ("textual-serve", "aiohttp"):
            logger = logging.getLogger(name)
            logger.addHandler(errors)
            logger.setLevel(logging.WARNING)
            logger.propagate = False
        runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
        except OSError as e:
            await runner.cleanup()
            raise InputError(f"cannot listen on {self.host} port {self.port}: {e.strerror or e}") from None
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            ready(url_for(self.host, runner.addresses[0][1]))
            await stop.wait()
        finally:
            # Close every page's socket: each handler then ends its app (quit, then SIGTERM, then
            # SIGKILL, each after a bounded wait) and the page says the view has ended.
            waiting = [task for task in self._open.values() if task is not None]
            waiting += [
                asyncio.ensure_future(websocket.close(code=WSCloseCode.GOING_AWAY, message=b"the server stopped"))
                for websocket in list(self._open)
            ]
            if waiting:
                await asyncio.wait(waiting, timeout=CLOSE_SECONDS + 3 * QUIT_SECONDS)
            await runner.cleanup()


async def _add_headers(request: web.Request, response: web.StreamResponse) -> None:
    """:data:`HEADERS` on every response, a refusal or a missing file's included."""
    response.headers.update(HEADERS)


def _number(query: Mapping[str, str], key: str, default: int, low: int, high: int) -> int:
    try:
        return min(max(int(query.get(key, default)), low), high)
    except ValueError:
        return default


async def _end(service: AppService) -> None:
    """End one page's app: ask it to quit; if its process has not ended after
    :data:`QUIT_SECONDS`, send it SIGTERM; if still not, SIGKILL. Only the process this server
    started is signalled, by its PID."""
    process = service._process
    stopping = asyncio.ensure_future(service.stop())
    if process is not None:
        exited = asyncio.ensure_future(process.wait())
        for step in (None, process.terminate, process.kill):
            if step is not None and process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    step()
            done, _ = await asyncio.wait({exited}, timeout=QUIT_SECONDS)
            if done:
                break
    await asyncio.wait({stopping}, timeout=QUIT_SECONDS)
