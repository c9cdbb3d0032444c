#!/usr/bin/python3
"""A bench echo client written against Python's `websockets` library, for interop tests of the WebSocket transport.

Usage: ws_echo_client.py PORT CLIENT_ID TOKEN [PATH [WIRE_VERSION]]

Connects to ws://127.0.0.1:PORT/PATH, sends the hello as one binary message, then echoes every data frame: kind
byte data (2) -> echo (3), recv_ns = time.monotonic_ns() (CLOCK_MONOTONIC, the server's clock), recv_kernel_ns 0.
Exits 0 when the server closes the connection. Works with websockets 10.4 (asyncio client; no sync client there).
"""
import asyncio
import struct
import sys
import time

import websockets

KIND_HELLO, KIND_DATA, KIND_ECHO, KIND_GOODBYE = 1, 2, 3, 10
WIRE_VERSION = 4  # WireFormat.version; the Swift test passes its own as argv[5]
HELLO_SIZE = 20


def hello(client: int, token: int, version: int = WIRE_VERSION) -> bytes:
    # length (u32, excluding itself), kind, version, 2 bytes zero, client (u32), token (u64); big-endian
    return struct.pack(">IBBxxIQ", HELLO_SIZE - 4, KIND_HELLO, version, client, token)


def echo(frame: bytes) -> bytes:
    data = bytearray(frame)
    if len(data) < 40 or data[4] != KIND_DATA:
        raise ValueError(f"not a data frame: {bytes(data[:8]).hex()} ({len(data)} bytes)")
    data[4] = KIND_ECHO
    struct.pack_into(">QQ", data, 24, time.monotonic_ns(), 0)
    return bytes(data)


async def main() -> int:
    port, client, token = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    path = sys.argv[4] if len(sys.argv) > 4 else "/"
    version = int(sys.argv[5]) if len(sys.argv) > 5 else WIRE_VERSION
    echoed = 0
    async with websockets.connect(
        f"ws://127.0.0.1:{port}{path}", max_size=1 << 20, compression=None, ping_interval=None, open_timeout=10
    ) as socket:
        await socket.send(hello(client, token, version))
        try:
            async for message in socket:
                if isinstance(message, str):
                    print(f"unexpected text message: {message[:80]!r}", file=sys.stderr)
                    return 2
                if len(message) >= 5 and message[4] == KIND_GOODBYE:
                    continue  # the run is over; the server closes next
                await socket.send(echo(message))
                echoed += 1
        except websockets.exceptions.ConnectionClosedError as error:
            print(f"closed with an error after {echoed} echoes: {error}", file=sys.stderr)
            return 0
    print(f"echoed {echoed} messages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(asyncio.wait_for(main(), timeout=60)))
