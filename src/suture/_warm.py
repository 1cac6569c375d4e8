"""Imported by the scan pool's fork server (``suture.scan_pool``) before it forks any process: it
loads, once, everything the per-file function imports on first use (``suture.scan.warm``), so
every process the server forks starts with it loaded."""

from suture.scan import warm

warm()
