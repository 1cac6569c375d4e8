"""Scanning many files: every core of this machine, or a Dask cluster; rows as they come.

:func:`scan_all` takes files as found (``suture.sessions.find``), answers what it can from the
cache (``suture.scan_cache``), and scans the rest with the one per-file function
(``suture.scan.scan_found``) in batches:

- here, in this process, for a few files or ``jobs=1``;
- on a ``concurrent.futures.ProcessPoolExecutor`` of ``jobs`` processes (every core by default),
  started by fork server so that a caller with threads (the app) is safe; where no pool can be
  started, here, and :class:`Progress` says why;
- on a Dask cluster (``dask="tcp://host:8786"``, or ``"local"`` for a ``LocalCluster`` here),
  whose workers read the files themselves, paths or fsspec URLs (``s3://…``): nothing but the
  names goes over the network, and rows come back.

Rows are yielded as batches finish (not in the order given), with a bounded number of batches in
flight, so memory stays flat on millions of files and a caller can write each row as it comes.
:class:`Progress` counts as it goes, and names the processes that scanned.

An app that takes over the terminal calls :func:`start_pool_server` before it runs: the pool's
helper processes are started with the process's own standard streams, which such an app replaces
(Textual's stand-in for ``sys.stderr`` has no file descriptor, and ``multiprocessing`` cannot
start its resource tracker, so no pool, without one). The Dask path needs ``pip install 'suture[fleet]'``;
:func:`require_fleet` says so in one line when it is missing.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from suture.io import InputError
from suture.scan import Row, scan_found
from suture.scan_cache import ScanCache
from suture.sessions import Found

__all__ = ["FLEET_HINT", "Progress", "cores", "require_fleet", "scan_all", "scan_batch", "start_pool_server"]

FLEET_HINT = "--dask needs Dask: pip install 'suture[fleet]' (dask, distributed, fsspec)"

_POOL_FILES = 64
_POOL_BYTES = 8 * 1024 * 1024
"""Below both (files to scan, their bytes), starting processes (about 0.3 s) costs more than it
saves: the files are scanned here."""
_BATCH_FILES = 64
_FIRST_FILES = 4
_BATCH_BYTES = 16 * 1024 * 1024


@dataclass
class Progress:
    """Counts a scan keeps up to date while it runs: files ``total`` (known once every file has
    been found), ``done`` so far, of which ``cached`` came from the cache without a read.
    ``processes`` holds each process that scanned a file (its host name and process id: this one,
    a pool's, or a Dask worker's); ``pool_error`` says why no process pool could be started, when
    one was wanted and the files were scanned here instead."""

    total: int = 0
    done: int = 0
    cached: int = 0
    found_all: bool = False
    processes: set[tuple[str, int]] = field(default_factory=set)
    pool_error: str = ""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


BatchRows = tuple[tuple[str, int], list[tuple[Row, bool]]]
"""What :func:`scan_batch` returns: the process that scanned (host name, process id), and each
file's row with whether it may be kept in the cache."""


def scan_batch(batch: Sequence[Found]) -> BatchRows:
    """The rows of a batch of files (``suture.scan.scan_found`` of each), and which process made
    them: what a pool process or a Dask worker runs."""
    return _process(), [scan_found(found) for found in batch]


@cache
def _host() -> str:
    import socket

    return socket.gethostname()


def _process() -> tuple[str, int]:
    return _host(), os.getpid()


def require_fleet() -> None:
    """InputError with how to install the fleet extra, unless Dask's ``distributed`` imports."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise InputError(FLEET_HINT) from None


def _batches(todo: Sequence[Found], workers: int, most: int = _BATCH_FILES) -> Iterator[list[Found]]:
    """Runs of files in the given order, small enough that every worker gets several (the last
    to finish does not hold the others up) and no batch holds much more than _BATCH_BYTES. The
    first batch of each worker is small, so the first rows come back at once."""
    per = max(1, min(most, math.ceil(len(todo) / (workers * 4))))
    batch: list[Found] = []
    size = 0
    made = 0
    for found in todo:
        batch.append(found)
        size += found.size or 0
        if len(batch) >= (min(per, _FIRST_FILES) if made < workers else per) or size >= _BATCH_BYTES:
            yield batch
            made += 1
            batch, size = [], 0
    if batch:
        yield batch


def scan_all(
    found: Iterable[Found],
    *,
    jobs: int | None = None,
    cache: ScanCache | None = None,
    dask: str | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[Row]:
    """A row per file of ``found``: cached rows at once, the others as their batch finishes.

    ``jobs`` is how many processes scan here (every core by default), or with ``dask="local"``
    how many workers the local cluster starts. ``cancelled`` is asked between batches; once it
    says so, no new batch starts and the iteration ends."""
    progress = progress if progress is not None else Progress()
    todo: list[Found] = []
    for f in found:
        progress.total += 1
        row = cache.get(f) if cache is not None else None
        if row is not None:
            progress.done += 1
            progress.cached += 1
            yield row
        else:
            todo.append(f)
    progress.found_all = True
    if not todo or cancelled():
        return
    if dask is not None:
        results = _on_dask(todo, dask, jobs, cancelled)
    else:
        workers = min(jobs or cores(), len(todo))
        small = len(todo) < _POOL_FILES and sum(f.size or 0 for f in todo) < _POOL_BYTES
        results = _here(todo, cancelled) if workers <= 1 or small else _on_pool(todo, workers, cancelled, progress)
    for batch, (process, scanned) in results:
        progress.processes.add(process)
        if cache is not None:
            cache.put((f, row) for f, (row, keep) in zip(batch, scanned, strict=True) if keep)
        for row, _ in scanned:
            progress.done += 1
            yield row


def _here(todo: Sequence[Found], cancelled: Callable[[], bool]) -> Iterator[tuple[list[Found], BatchRows]]:
    for batch in _batches(todo, 1, most=16):
        if cancelled():
            return
        yield batch, scan_batch(batch)


PRELOAD = (__name__, "suture._warm")
"""What the fork server imports before it forks a pool's processes."""


def _pool_context() -> Any:
    """Fork server where there is one: forking a process that runs threads (the app, a Dask
    client) can copy a lock mid-use; a fork server forks from a clean process instead."""
    import multiprocessing

    try:
        context = multiprocessing.get_context("forkserver")
    except ValueError:
        return multiprocessing.get_context("spawn")
    # The server imports suture once, and what a scan imports on first use; every process it
    # forks starts with it all imported.
    context.set_forkserver_preload(list(PRELOAD))
    return context


def _quiet_worker() -> None:
    """Ctrl-C is the parent's to handle: a worker that also took it would print a traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _on_pool(
    todo: Sequence[Found], workers: int, cancelled: Callable[[], bool], progress: Progress
) -> Iterator[tuple[list[Found], BatchRows]]:
    batches = _batches(todo, workers)
    window = workers * 3
    pool: ProcessPoolExecutor | None = None
    running: dict[Future[BatchRows], list[Found]] = {}
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context(), initializer=_quiet_worker)
        for batch in batches:
            running[pool.submit(scan_batch, batch)] = batch
            if len(running) >= window:
                break
    except (OSError, ValueError) as e:
        # No pool could be started (no processes or descriptors left, or standard streams with
        # no descriptor: see start_pool_server). Nothing was scanned yet: every file is, here.
        progress.pool_error = f"no process pool ({type(e).__name__}: {e})"
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        yield from _here(todo, cancelled)
        return
    with pool:
        try:
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    batch = running.pop(future)
                    yield batch, future.result()
                    if not cancelled():
                        nxt = next(batches, None)
                        if nxt is not None:
                            running[pool.submit(scan_batch, nxt)] = nxt
        finally:
            for future in running:
                future.cancel()


def start_pool_server() -> None:
    """Start what the process pool needs (the fork server and ``multiprocessing``'s resource
    tracker) now, from this thread, with this process's standard streams as they are. An app
    that replaces ``sys.stderr`` with an object that has no file descriptor (Textual does, while
    it runs) calls this before it starts: ``multiprocessing`` hands ``sys.stderr``'s descriptor to
    the resource tracker it starts, and a pool started in the app would otherwise fail with
    ``ValueError: bad value(s) in fds_to_keep``. The server imports suture meanwhile, so the
    first batch a pool gives it starts at once. Harmless to call again."""
    context = _pool_context()
    if context.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()
    else:
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()


def _refused_at_once(address: str) -> None:
    """Raise ConnectionRefusedError where nothing listens at a TCP scheduler's address: Dask's
    client would try again and again for its whole timeout (30 s) before saying so."""
    from distributed.comm import parse_address, parse_host_port

    scheme, location = parse_address(address)
    if scheme != "tcp":
        return  # (TLS, UCX and the rest: the client's own connection says what is wrong)
    host, port = parse_host_port(location)
    with socket.create_connection((host, port), timeout=10):
        pass


def _on_dask(
    todo: Sequence[Found], address: str, jobs: int | None, cancelled: Callable[[], bool]
) -> Iterator[tuple[list[Found], BatchRows]]:
    require_fleet()
    from distributed import Client, LocalCluster, as_completed

    with contextlib.ExitStack() as stack:
        if address == "local":
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=jobs or cores(),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
            )
            client = stack.enter_context(Client(cluster))
        else:
            try:
                _refused_at_once(address)
                client = stack.enter_context(Client(address, timeout=30))
            except (OSError, TimeoutError, ValueError) as e:
                raise InputError(f"cannot reach the Dask scheduler at {address} ({e})") from None
        workers = max(1, sum(int(n) for n in client.nthreads().values()))
        batches = _batches(todo, workers, most=256)
        running: dict[str, list[Found]] = {}
        pending = as_completed()
        for batch in batches:
            future = client.submit(scan_batch, batch, pure=False)
            running[future.key] = batch
            pending.add(future)
            if len(running) >= workers * 4:
                break
        for future in pending:
            batch = running.pop(future.key)
            yield batch, future.result()
            future.release()
            if not cancelled():
                nxt = next(batches, None)
                if nxt is not None:
                    new = client.submit(scan_batch, nxt, pure=False)
                    running[new.key] = nxt
                    pending.add(new)
