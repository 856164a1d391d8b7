"""The page a browser gets while the server is starting: gunicorn's master listens first and answers with it while
it imports the dashboard and loads the compiled kernels (app/gunicorn_conf.py, ``when_ready``).

Importing Dash, Plotly, numba and SciPy takes about 3 s on a quiet 2-core machine and twice that on a busy one;
before this page a browser waited on a silent socket for all of it. Here a plain thread accepts on gunicorn's own
listening sockets and answers each request at once:

- a page (``GET`` of a path without a dot, outside ``/_dash``): 200 with a short HTML page that says the lab is
  starting and reloads itself every second, so the dashboard appears as soon as the workers serve it;
- anything else (Dash's callbacks, assets, ``/healthz``): 503 with ``Retry-After: 1``, so a health check or a
  script does not take the start page for the app.

The thread is stopped and joined before gunicorn forks its workers, which then accept on the same sockets; a
connection that arrives in between waits in the socket's backlog for them.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from collections.abc import Iterable

READ_TIMEOUT = 1.0  # s per connection: one slow client holds the start page for at most this long
MAX_REQUEST = 8192  # bytes of a request head read; the start page needs only its first line

PAGE = b"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="1"><title>Integrator Lab is starting</title>
<style>body{font:1.1rem/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;
color:#1a1a1a;background:#fff}main{max-width:32rem;padding:1.5rem}</style></head>
<body><main><h1>Integrator Lab is starting</h1>
<p role="status">The server is loading the dashboard. This page reloads itself every second and shows the lab as
soon as it is ready, usually within a few seconds.</p></main></body></html>
"""


def _wants_page(head: bytes) -> bool:
    """A GET (or HEAD) of a page path: what a browser's address bar asks for."""
    parts = head.split(b"\r\n", 1)[0].split()
    if len(parts) < 2 or parts[0] not in (b"GET", b"HEAD"):
        return False
    path = parts[1].split(b"?", 1)[0]
    return (path.startswith(b"/") and not path.startswith(b"/_") and path != b"/healthz"
            and b"." not in path.rsplit(b"/", 1)[-1])


def response(head: bytes) -> bytes:
    """The whole HTTP response to a request whose head (up to the blank line) is ``head``."""
    if _wants_page(head):
        body = b"" if head.startswith(b"HEAD") else PAGE
        return (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(PAGE)) + body
    message = b"starting: retry in a second\n"
    return (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\n"
            b"Cache-Control: no-store\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(message)) + message


def _answer(conn: socket.socket) -> None:
    with conn:
        conn.settimeout(READ_TIMEOUT)
        head = b""
        with contextlib.suppress(OSError):
            while b"\r\n\r\n" not in head and len(head) < MAX_REQUEST:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                head += chunk
            conn.sendall(response(head))


class StartPage:
    """Answers on ``sockets`` in a daemon thread from ``start()`` until ``stop()`` returns (joined)."""

    def __init__(self, sockets: Iterable[socket.socket]) -> None:
        self._sockets = list(sockets)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="start-page", daemon=True)
        self.answered = 0

    def _serve(self) -> None:
        with selectors.DefaultSelector() as sel:
            for s in self._sockets:
                sel.register(s, selectors.EVENT_READ)
            while not self._stop.is_set():
                for key, _ in sel.select(timeout=0.05):
                    try:
                        conn, _addr = key.fileobj.accept()  # type: ignore[union-attr]
                    except (BlockingIOError, InterruptedError):
                        continue  # another process took it (none should, before the fork)
                    _answer(conn)
                    self.answered += 1

    def start(self) -> StartPage:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
