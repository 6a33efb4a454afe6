"""A throwaway PostgreSQL cluster for the tests and ``assess bench replicas``: Debian's PostgreSQL 15 binaries, a
temporary directory, a free port on 127.0.0.1, trust authentication for the one local user; stopped (immediate
shutdown) and deleted after. ``ASSESS_TEST_POSTGRES_URL`` points the tests at an existing server instead. As root
the cluster runs as the ``postgres`` system user (``initdb`` refuses root). The product itself never starts one."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BIN = Path(os.environ.get("ASSESS_TEST_POSTGRES_BIN", "/usr/lib/postgresql/15/bin"))


def _as_owner(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


def stop_cluster(server_url: str) -> None:
    """Stop the throwaway cluster serving ``server_url`` at once, as a crashed server would go (its folder stays
    until ``throwaway_cluster`` ends)."""
    subprocess.run(_as_owner([str(BIN / "pg_ctl"), "-D", _DATA[server_url], "-m", "immediate", "-w", "stop"]),
                   capture_output=True, timeout=60)


_DATA: dict[str, str] = {}  # a running cluster's URL -> its data folder


@contextmanager
def throwaway_cluster(port: int) -> Iterator[str]:
    """A running cluster's URL (database ``postgres``, user ``assess``)."""
    if not (BIN / "initdb").exists():
        raise RuntimeError(f"PostgreSQL binaries not found in {BIN}: install postgresql-15 or set "
                           "ASSESS_TEST_POSTGRES_URL to a server the tests may create databases on")
    root = Path(tempfile.mkdtemp(prefix="assess-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    data = root / "data"
    try:
        subprocess.run(_as_owner([str(BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "assess", "-E", "UTF8",
                                  "--no-sync"]), check=True, capture_output=True, timeout=120)
        subprocess.run(_as_owner([str(BIN / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w", "-t", "60",
                                  "-o", f"-h 127.0.0.1 -p {port} -k {root} -F -c max_connections=300", "start"]),
                       check=True, capture_output=True, timeout=120)
        url = f"postgresql://assess@127.0.0.1:{port}/postgres"
        _DATA[url] = str(data)
        yield url
    finally:
        subprocess.run(_as_owner([str(BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
                       capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def fresh_database(server_url: str) -> str:
    """A new, empty database on the server; its URL."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + f"/{name}"
