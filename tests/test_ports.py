"""A server's port and its health check: no connection to itself.

A port the kernel hands out (``bind(0)``) lies in its ephemeral range, the source ports of outgoing
connections; polling such a port before the server listens can connect the poll to itself, which then
reads its own request back as the answer (a full run's class-load test: ``BadStatusLine('GET
/_stcore/health HTTP/1.1')``). The ports the suite and the benchmarks serve on lie below that range, and a
health check that gets anything but an HTTP answer says "not healthy" instead of raising."""

from __future__ import annotations

import socket
import sys
import threading

from conftest import ROOT

from hetdp_ui.serve import _healthy

sys.path.insert(0, str(ROOT / "benchmarks"))
import load  # noqa: E402


def test_a_free_port_and_the_ports_after_it_are_free_and_below_the_ephemeral_range():
    low = load._ephemeral_low()
    for _ in range(20):
        base = load.free_port()
        assert 10_000 <= base and base + 8 < low, (base, low)
        for p in range(base, base + 9):  # a stack's workers take base+1 …
            with socket.socket() as s:
                s.bind(("127.0.0.1", p))


def test_a_health_check_answered_by_its_own_request_is_not_healthy():
    """An echo where the server should be, as a connection to itself behaves: not healthy, no exception."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", load.free_port()))
    srv.listen()
    port = srv.getsockname()[1]

    def echo():
        conn, _ = srv.accept()
        with conn:
            conn.sendall(conn.recv(65536))  # the request, sent back as the "answer"

    t = threading.Thread(target=echo, daemon=True)
    t.start()
    try:
        assert _healthy(f"http://127.0.0.1:{port}") is False
    finally:
        t.join(timeout=10)
        srv.close()


def test_no_server_is_not_healthy():
    assert _healthy(f"http://127.0.0.1:{load.free_port()}") is False
