"""The start page (app.starting): what gunicorn's master answers while it imports the dashboard. A browser's page
request gets the self-reloading page; Dash's callbacks, assets, the health check and other methods get 503 with
Retry-After, so nothing takes the start page for the app. Served over a real socket, with a client that sends
nothing held to the read timeout, and the thread joined by stop()."""

from __future__ import annotations

import socket
import time

import pytest

from app import starting


@pytest.mark.parametrize("line", [b"GET / HTTP/1.1", b"GET /run?benchmark=pendulum_3d HTTP/1.1",
                                  b"GET /lessons/ HTTP/1.1", b"HEAD / HTTP/1.1"])
def test_a_page_request_gets_the_start_page(line):
    answer = starting.response(line + b"\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"Content-Length: %d\r\n" % len(starting.PAGE) in answer
    assert (b"Integrator Lab is starting" in answer) == (not line.startswith(b"HEAD"))
    assert b'http-equiv="refresh"' in starting.PAGE


@pytest.mark.parametrize("line", [b"POST /_dash-update-component HTTP/1.1", b"GET /_dash-layout HTTP/1.1",
                                  b"GET /healthz HTTP/1.1", b"GET /assets/style.css HTTP/1.1",
                                  b"POST / HTTP/1.1", b"", b"garbage"])
def test_anything_else_gets_503_with_retry_after(line):
    answer = starting.response(line + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 503 ")
    assert b"Retry-After: 1\r\n" in answer


def _get(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(request)
        out = b""
        while chunk := c.recv(65536):
            out += chunk
    return out


def test_the_start_page_answers_on_the_listening_socket_until_stopped():
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)  # as gunicorn leaves its listeners
    port = listener.getsockname()[1]
    page = starting.StartPage([listener]).start()
    try:
        silent = socket.create_connection(("127.0.0.1", port))  # sends nothing: held READ_TIMEOUT at most
        t0 = time.monotonic()
        assert _get(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 200 OK")
        assert time.monotonic() - t0 < starting.READ_TIMEOUT + 5
        assert _get(port, b"GET /healthz HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 503")
        silent.close()
    finally:
        page.stop()
    assert page.answered == 3
    # after stop() nothing accepts: a new connection waits in the backlog for the workers
    waiting = socket.create_connection(("127.0.0.1", port), timeout=1)
    waiting.settimeout(0.3)
    with pytest.raises(TimeoutError):
        waiting.recv(1)
    waiting.close()
    listener.close()
