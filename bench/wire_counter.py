"""SQL round trips counted on the wire: a byte-forwarding proxy between a client and PostgreSQL.

A round trip is one request/response turn of a connection: the client starts sending after the
server last sent (or for the first time). Bytes the client sends before any answer arrives
(a pipeline's statements and its sync, a statement split over several writes) are one round
trip, whatever the client library does inside; nothing is parsed, so TLS or any protocol
feature passes through unchanged. The proxy only forwards: the server sees the proxy's
connections made the same way the client's would be (a unix socket when the server is reached
through one), so authentication and settings are the same as a direct connection's.

It runs in its own thread, so counting never waits on the client's event loop; it adds latency,
which is why the benchmark times turns on direct connections and counts on proxied ones.
"""

from __future__ import annotations

import os
import selectors
import socket
import tempfile
import threading
from dataclasses import dataclass, field

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

_CHUNK = 65536


@dataclass
class _Pair:
    client: socket.socket
    server: socket.socket
    client_spoke_last: bool = False


@dataclass
class RoundTripProxy:
    """Forwards every connection to `target` (a unix socket path or a (host, port) pair)."""

    target: str | tuple[str, int]
    round_trips: int = 0
    _selector: selectors.DefaultSelector = field(default_factory=selectors.DefaultSelector)
    _pairs: dict[socket.socket, _Pair] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _listener: socket.socket | None = None
    _dir: tempfile.TemporaryDirectory[str] | None = None

    @classmethod
    def for_url(cls, url: str) -> RoundTripProxy:
        """A proxy to the server `url` reaches, found by connecting once (libpq resolves the
        defaults: socket directory, port)."""
        with psycopg.connect(url) as conn:
            host, port = conn.info.host, conn.info.port
        if host.startswith("/"):
            return cls(target=os.path.join(host, f".s.PGSQL.{port}"))
        return cls(target=(host, port))

    def start(self) -> None:
        if isinstance(self.target, str):
            self._dir = tempfile.TemporaryDirectory(prefix="spotter-wire-")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(os.path.join(self._dir.name, ".s.PGSQL.5432"))
        else:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listener.setblocking(False)
        self._listener = listener
        self._selector.register(listener, selectors.EVENT_READ)
        self._thread = threading.Thread(target=self._serve, name="wire-counter", daemon=True)
        self._thread.start()

    def url(self, url: str) -> str:
        """`url` with its host and port pointing at this proxy."""
        info = {k: v for k, v in conninfo_to_dict(url).items() if v is not None}
        info.pop("hostaddr", None)
        if self._dir is not None:
            info["host"], info["port"] = self._dir.name, "5432"
        else:
            assert self._listener is not None
            info["host"], info["port"] = "127.0.0.1", str(self._listener.getsockname()[1])
        return make_conninfo(**{k: str(v) for k, v in info.items()})

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for sock in list(self._pairs):
            sock.close()
        if self._listener is not None:
            self._listener.close()
        self._selector.close()
        if self._dir is not None:
            self._dir.cleanup()

    def __enter__(self) -> RoundTripProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(timeout=0.05):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if sock is self._listener:
                    self._accept()
                else:
                    self._forward(sock)

    def _accept(self) -> None:
        assert self._listener is not None
        client, _ = self._listener.accept()
        if isinstance(self.target, str):
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        else:
            server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            server.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        server.connect(self.target)
        client.setblocking(True)
        pair = _Pair(client, server)
        self._pairs[client] = self._pairs[server] = pair
        self._selector.register(client, selectors.EVENT_READ)
        self._selector.register(server, selectors.EVENT_READ)

    def _forward(self, sock: socket.socket) -> None:
        pair = self._pairs.get(sock)
        if pair is None:  # its pair was dropped by an earlier event of the same select
            return
        try:
            data = sock.recv(_CHUNK)
        except OSError:
            data = b""
        if not data:
            self._drop(pair)
            return
        from_client = sock is pair.client
        # counted before the bytes go on, so a client that has its answer sees its count
        if from_client and not pair.client_spoke_last:
            self.round_trips += 1
        pair.client_spoke_last = from_client
        try:
            (pair.server if from_client else pair.client).sendall(data)
        except OSError:
            self._drop(pair)

    def _drop(self, pair: _Pair) -> None:
        for sock in (pair.client, pair.server):
            if sock in self._pairs:
                self._selector.unregister(sock)
                del self._pairs[sock]
            sock.close()


def self_check(url: str, statements: int = 5) -> dict[str, int]:
    """Proves the counter on the server `url` reaches: `statements` plain `SELECT 1`s count
    `statements`, and a pipeline of `statements` statements with one sync counts 1."""
    with (
        RoundTripProxy.for_url(url) as proxy,
        psycopg.connect(proxy.url(url), autocommit=True) as conn,
    ):
        before = proxy.round_trips
        for _ in range(statements):
            conn.execute("SELECT 1", prepare=False).fetchone()
        plain = proxy.round_trips - before
        before = proxy.round_trips
        with conn.pipeline():  # leaving the block sends its one sync and reads the results
            cursors = [conn.execute("SELECT 1", prepare=False) for _ in range(statements)]
        results = [cur.fetchone() for cur in cursors]
        assert results == [(1,)] * statements
        piped = proxy.round_trips - before
    return {"statements": statements, "plain": plain, "pipeline": piped}
