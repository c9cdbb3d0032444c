#!/usr/bin/python3
"""A Socket.IO chat server (python3-socketio and python3-aiohttp, from Debian), for `bench fanout --target socketio://`.

Usage: socketio_server.py PORT_FILE PING_INTERVAL_SECONDS [ENGINEIO_PATH [CERT KEY]]

Listens on 127.0.0.1 and a free port, which it writes to PORT_FILE (written whole, then renamed into place), in the
namespace /chat. A client that emits "join" with a room's name enters it; a "chat" event is emitted again to every
client in room "room1"; an "echo" event is emitted back to its sender alone; a "say" event (room, text) is emitted as
"chat" to every other client in that room (for `bench chat`). The server pings every PING_INTERVAL_SECONDS and disconnects a client that has not answered
within as long again: a run across several pings shows that the harness answers them. ENGINEIO_PATH (default
socket.io) is where Engine.IO answers; with CERT and KEY (PEM files), over TLS (for socketios://).
"""
import asyncio
import os
import ssl
import sys

import socketio
from aiohttp import web


async def main(port_file, ping_interval, path, tls):
    server = socketio.AsyncServer(async_mode="aiohttp", ping_interval=ping_interval, ping_timeout=ping_interval)
    app = web.Application()
    server.attach(app, socketio_path=path)

    @server.on("join", namespace="/chat")
    async def join(sid, room):
        server.enter_room(sid, room, namespace="/chat")

    @server.on("chat", namespace="/chat")
    async def chat(sid, text):
        await server.emit("chat", text, room="room1", namespace="/chat")

    @server.on("say", namespace="/chat")
    async def say(sid, room, text):
        await server.emit("chat", text, room=room, skip_sid=sid, namespace="/chat")

    @server.on("echo", namespace="/chat")
    async def echo(sid, text):
        await server.emit("echo", text, to=sid, namespace="/chat")

    runner = web.AppRunner(app)
    await runner.setup()
    context = None
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    with open(port_file + ".tmp", "w") as out:
        out.write(str(port))
    os.rename(port_file + ".tmp", port_file)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(
        sys.argv[1], float(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "socket.io",
        sys.argv[4:6] if len(sys.argv) > 5 else None))
