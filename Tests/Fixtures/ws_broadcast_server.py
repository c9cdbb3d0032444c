#!/usr/bin/python3
"""A WebSocket relay written with Python's `websockets` library, for end-to-end tests of `fanout --target ws://`.

Usage: ws_broadcast_server.py PORT

Listens on 127.0.0.1:PORT (any path). Every connection is subscribed from its handshake on; every JSON object it
sends with "type": "broadcast" is relayed, unchanged, to every connected client (the sender included). Anything
else is ignored. Works with websockets 10.4 (asyncio server).
"""
import asyncio
import json
import sys

import websockets

CLIENTS = set()


async def relay(websocket, path=None):
    CLIENTS.add(websocket)
    try:
        async for message in websocket:
            try:
                parsed = json.loads(message)
            except ValueError:
                continue
            if isinstance(parsed, dict) and parsed.get("type") == "broadcast":
                websockets.broadcast(CLIENTS, message)
    except websockets.ConnectionClosed:
        pass
    finally:
        CLIENTS.discard(websocket)


async def main(port: int) -> None:
    async with websockets.serve(relay, "127.0.0.1", port, max_size=1 << 20, backlog=4096):  # a connect burst waits whole
        await asyncio.Future()  # until killed


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
