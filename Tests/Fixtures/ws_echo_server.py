#!/usr/bin/python3
"""A WebSocket echo server written with Python's `websockets` library, for end-to-end tests of `--target ws://`.

Usage: ws_echo_server.py PORT

Listens on 127.0.0.1:PORT (any path) and sends every message back as it came, text as text, binary as binary.
Works with websockets 10.4 (asyncio server).
"""
import asyncio
import sys

import websockets


async def echo(websocket, path=None):
    try:
        async for message in websocket:
            await websocket.send(message)
    except websockets.ConnectionClosed:
        pass


async def main(port: int) -> None:
    async with websockets.serve(echo, "127.0.0.1", port, max_size=1 << 20):
        await asyncio.Future()  # until killed


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
