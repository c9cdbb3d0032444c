#!/usr/bin/python3
"""A WebSocket relay written with Python's `websockets` library, for end-to-end tests of `fanout --target ws://`.

Usage: ws_broadcast_server.py PORT [BEARER_TOKEN[,BEARER_TOKEN…]]

Listens on 127.0.0.1:PORT (any path). Every connection is subscribed from its handshake on; every JSON object it
sends with "type": "broadcast" is relayed, unchanged, to every connected client (the sender included). Anything
else is ignored. With BEARER_TOKENs, a handshake without `Authorization: Bearer T` for one of them is refused with 401
and a reason in the body, as a staging server that wants a user's token does. Works with websockets 10.4 (asyncio server).
"""
import asyncio
import http
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


def demanding(tokens):
    """A handshake check that refuses every request without one of the bearer tokens."""
    accepted = {"Bearer " + token for token in tokens.split(",")}

    async def check(path, headers):
        if headers.get("Authorization") not in accepted:
            return http.HTTPStatus.UNAUTHORIZED, [("Content-Type", "text/plain")], b"missing or wrong bearer token\n"
        return None
    return check


async def main(port: int, token) -> None:
    check = demanding(token) if token else None
    # max_size: whole messages; backlog: a connect burst waits whole.
    async with websockets.serve(relay, "127.0.0.1", port, max_size=1 << 20, backlog=4096, process_request=check):
        await asyncio.Future()  # until killed


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None))
