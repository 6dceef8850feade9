"""PgBouncer in transaction mode in front of a local server: the tests and benchmarks reach
Postgres the way production does, through a proxy that multiplexes transactions over a few
backends (RDS Proxy there; PgBouncer is the open stand-in that breaks loudly where RDS Proxy
would pin silently: a prepared statement or a session `SET` on one backend is missing on the
next).

Dev and test tooling only (like `db.server`): the Debian `pgbouncer` package, found on PATH, in
/usr/sbin, or at $PGBOUNCER.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

from spotter.db.server import with_params

# Who PgBouncer runs as when started by root (it refuses to run as root): the owner of the
# server's socket directory (the embedded server's own user), else nobody.
_UNPRIVILEGED = "nobody"
_READY_SECONDS = 10.0
INSTALL_HINT = (
    "PgBouncer is needed: the integration tests and bench/proxy_load.py reach Postgres through"
    " it in transaction mode, as production reaches Aurora through RDS Proxy. Install it"
    " (Debian/Ubuntu: `apt-get install -y pgbouncer`; macOS: `brew install pgbouncer`) or set"
    " PGBOUNCER=/path/to/pgbouncer"
)


class PgBouncerMissing(RuntimeError):
    pass


def find_pgbouncer() -> str:
    """The pgbouncer binary, or `PgBouncerMissing` saying how to get one."""
    candidates = [os.environ.get("PGBOUNCER"), shutil.which("pgbouncer"), "/usr/sbin/pgbouncer"]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise PgBouncerMissing(INSTALL_HINT)


@dataclass(frozen=True)
class BouncerConfig:
    """A small, fixed server pool whose backends are closed soon after use, so a test run or a
    benchmark sees transactions of one client land on many backends, and backends recycle."""

    server_pool: int = 4
    server_lifetime_s: int = 3
    server_idle_timeout_s: int = 5
    # a client waiting longer than this for a backend gets an error instead of hanging
    query_wait_timeout_s: int = 30
    max_client_conn: int = 2000


class PgBouncer:
    """One PgBouncer process, listening on 127.0.0.1, forwarding every database of `server_url`'s
    server. Logins are the ones in `users` ({name: password}): the proxy checks them (SCRAM) and
    logs in to Postgres with them."""

    def __init__(
        self, server_url: str, users: dict[str, str], config: BouncerConfig | None = None
    ) -> None:
        self.config = config or BouncerConfig()
        self._binary = find_pgbouncer()
        with psycopg.connect(server_url) as conn:  # libpq resolves socket directory and port
            self._target = (conn.info.host, conn.info.port)
        self._users = users
        self._dir = tempfile.TemporaryDirectory(prefix="spotter-pgbouncer-")
        self.port = _free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def log_path(self) -> Path:
        return Path(self._dir.name) / "pgbouncer.log"

    def url(self, database_url: str) -> str:
        """`database_url` (a login and a database) reached through this PgBouncer."""
        return with_params(database_url, host="127.0.0.1", port=str(self.port))

    def start(self) -> PgBouncer:
        home = Path(self._dir.name)
        host, port = self._target
        c = self.config
        (home / "users.txt").write_text(
            "".join(f'"{name}" "{password}"\n' for name, password in self._users.items())
        )
        (home / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={host} port={port}\n"
            "[pgbouncer]\n"
            "listen_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = scram-sha-256\n"
            f"auth_file = {home / 'users.txt'}\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {c.server_pool}\n"
            "min_pool_size = 0\n"
            "reserve_pool_size = 0\n"
            f"max_client_conn = {c.max_client_conn}\n"
            f"server_lifetime = {c.server_lifetime_s}\n"
            f"server_idle_timeout = {c.server_idle_timeout_s}\n"
            f"query_wait_timeout = {c.query_wait_timeout_s}\n"
            f"admin_users = {','.join(self._users)}\n"
            f"logfile = {self.log_path}\n"
            "log_connections = 0\n"
            "log_disconnections = 0\n"
        )
        command = [self._binary, "-q"]  # it logs to its logfile only
        if os.geteuid() == 0:
            # PgBouncer refuses to run as root: it drops to an unprivileged user, which must be
            # able to read its files and write its log
            entry = self._unprivileged_user()
            os.chown(home, entry.pw_uid, entry.pw_gid)
            for name in ("users.txt", "pgbouncer.ini"):
                os.chown(home / name, entry.pw_uid, entry.pw_gid)
            command += ["-u", entry.pw_name]
        command.append(str(home / "pgbouncer.ini"))
        self._process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self._wait_ready()
        return self

    def _unprivileged_user(self) -> pwd.struct_passwd:
        host = self._target[0]
        if host.startswith("/"):
            owner = pwd.getpwuid(os.stat(host).st_uid)
            if owner.pw_uid != 0:
                return owner
        return pwd.getpwnam(_UNPRIVILEGED)

    def _wait_ready(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + _READY_SECONDS
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"pgbouncer exited at start:{self._log_tail()}")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"pgbouncer did not listen within {_READY_SECONDS}s{self._log_tail()}")

    def _log_tail(self) -> str:
        try:
            return "\n" + "\n".join(self.log_path.read_text().splitlines()[-20:])
        except OSError:
            return ""

    def admin(self, login_url: str) -> psycopg.Connection[tuple[object, ...]]:
        """A connection to PgBouncer's admin console (SHOW POOLS, SHOW STATS, ...)."""
        console = with_params(self.url(login_url), dbname="pgbouncer")
        return psycopg.connect(console, autocommit=True, prepare_threshold=None)

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        self._dir.cleanup()

    def __enter__(self) -> PgBouncer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
