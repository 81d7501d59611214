"""A PostgreSQL server of its own for the class-database tests and ``make load``: ``initdb`` in a
temporary folder and ``pg_ctl start`` on a free port (as the ``postgres`` user when run as root, since
PostgreSQL refuses to run as root). Debian's ``postgresql`` package provides the binaries
(``make test`` and ``make load`` install it when missing); no system service is used."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from load import free_port  # benchmarks/ is on the path of every caller (tests, class_load)


class PostgresUnavailable(RuntimeError):
    pass


class PostgresServer:
    def __init__(self):
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        if not found:
            raise PostgresUnavailable(
                "PostgreSQL not found (/usr/lib/postgresql/*/bin/pg_ctl): `make test` and `make load` install "
                "Debian's postgresql package. Database tests are required."
            )
        self.bin = Path(found[-1]).parent
        self.dir = Path(tempfile.mkdtemp(prefix="hetdp-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.getuid() == 0:
            import pwd

            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
        self.start()
        self._n = 0

    def _run(self, tool: str, *args: str) -> None:
        out = subprocess.run([*self.as_user, str(self.bin / tool), *args], capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise PostgresUnavailable(f"{tool} {' '.join(args)} failed: {out.stderr.strip() or out.stdout.strip()}")

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300"
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.dir / "log"), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def pids(self) -> list[int]:
        """The server's main process (its connections' processes are its children), or none while it is
        stopped: the database's share of a run's server CPU."""
        try:
            return [int((self.data / "postmaster.pid").read_text().split()[0])]
        except (OSError, ValueError, IndexError):
            return []

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database on this server; returns its SQLAlchemy URL."""
        import psycopg

        self._n += 1
        name = f"t{os.getpid()}_{self._n}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def remove(self) -> None:
        try:
            self.stop("immediate")
        except PostgresUnavailable:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
