"""The studio under uvicorn as `rulecraft studio` runs it (tools.studio.server_config), on a free port of 127.0.0.1,
and a websocket opened by hand on it: for the tests that need a real server (slow or hostile clients), no browser."""

from __future__ import annotations

import socket
import threading


def served(folder, token: str):
    """(server, thread, port, app) of a studio of `folder` started in a thread; stop it with `stopped`."""
    import uvicorn

    from rulecraft.tools.studio import server_config
    from rulecraft.tools.studio.app import make_app
    from rulecraft.tools.studio.guard import Guard

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    app = make_app(str(folder), Guard(token, bound="127.0.0.1"), pace=0)
    server = uvicorn.Server(server_config(app))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        thread.join(0.05)
    return server, thread, sock.getsockname()[1], app


def stopped(server, thread) -> None:
    server.should_exit = True
    thread.join(30)


def raw_websocket(port: int, link: str, base: str, rcvbuf: int = 0) -> socket.socket:
    """The websocket of a seat's `link`, opened by hand (so that it can stop reading, or send what a browser would
    not); `rcvbuf` shrinks its receive buffer."""
    conn = socket.socket()
    if rcvbuf:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    conn.connect(("127.0.0.1", port))
    conn.sendall((f"GET /play/ws?seat={link.split('seat=', 1)[1]} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                  f"Sec-WebSocket-Version: 13\r\nOrigin: {base}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += conn.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return conn
