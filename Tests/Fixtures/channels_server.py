#!/usr/bin/python3
"""A chat server speaking Phoenix Channels (the V2 JSON serializer) or Rails ActionCable, as their documented frames
say, with Python's `websockets` library: for end-to-end tests of `--protocol phoenix` and `--protocol actioncable`.

Usage: channels_server.py PORT phoenix|actioncable [REFUSED_CHANNEL]

phoenix (any path): `[join_ref, ref, topic, "phx_join", payload]` joins the topic and is answered with a phx_reply
{"status": "ok"} (or {"status": "error", "response": {"reason": "unauthorized"}} for REFUSED_CHANNEL); a "heartbeat"
on the topic "phoenix" is answered with its phx_reply; a "new_msg" push on a joined topic is replied to and broadcast
to every member of the topic as `[null, null, topic, "new_msg", payload]`.

actioncable (any path): {"type": "welcome"} on connect and a ping every second; {"command": "subscribe",
"identifier": I} is answered with confirm_subscription (reject_subscription for the identifier REFUSED_CHANNEL);
{"command": "message", "identifier": I, "data": D} with D's "action" "speak" broadcasts {"identifier": I,
"message": D-without-action} to every subscriber of I. Works with websockets 10.4 (asyncio server).
"""
import asyncio
import json
import sys

import websockets

TOPICS = {}  # topic or identifier -> set of connections


def dumps(value):
    """JSON as Phoenix (Jason) and Rails write it: no blanks after separators."""
    return json.dumps(value, separators=(",", ":"))


async def phoenix(websocket, refused):
    joined = set()
    async for text in websocket:
        try:
            join_ref, ref, topic, event, payload = json.loads(text)
        except ValueError:
            continue
        if topic == "phoenix" and event == "heartbeat":
            await websocket.send(dumps([None, ref, "phoenix", "phx_reply", {"status": "ok", "response": {}}]))
        elif event == "phx_join":
            if topic == refused:
                reply = {"status": "error", "response": {"reason": "unauthorized"}}
            else:
                reply = {"status": "ok", "response": {}}
                TOPICS.setdefault(topic, set()).add(websocket)
                joined.add(topic)
            await websocket.send(dumps([join_ref, ref, topic, "phx_reply", reply]))
        elif event == "new_msg" and topic in joined:
            await websocket.send(dumps([join_ref, ref, topic, "phx_reply", {"status": "ok", "response": {}}]))
            websockets.broadcast(TOPICS[topic], dumps([None, None, topic, "new_msg", payload]))
    return joined


async def pings(websocket):
    while True:
        await asyncio.sleep(1)
        await websocket.send(dumps({"type": "ping", "message": int(asyncio.get_running_loop().time())}))


async def actioncable(websocket, refused):
    joined = set()
    await websocket.send(dumps({"type": "welcome"}))
    pinger = asyncio.ensure_future(pings(websocket))
    try:
        async for text in websocket:
            try:
                command = json.loads(text)
                identifier = command["identifier"]
            except (ValueError, KeyError, TypeError):
                continue
            if command.get("command") == "subscribe":
                if identifier == refused:
                    await websocket.send(dumps({"identifier": identifier, "type": "reject_subscription"}))
                    continue
                TOPICS.setdefault(identifier, set()).add(websocket)
                joined.add(identifier)
                await websocket.send(dumps({"identifier": identifier, "type": "confirm_subscription"}))
            elif command.get("command") == "message" and identifier in joined:
                data = json.loads(command.get("data", "{}"))
                if data.pop("action", None) == "speak":
                    websockets.broadcast(TOPICS[identifier], dumps({"identifier": identifier, "message": data}))
    finally:
        pinger.cancel()
    return joined


def serving(kind, refused):
    async def serve(websocket, path=None):
        joined = set()
        try:
            joined = await (phoenix if kind == "phoenix" else actioncable)(websocket, refused)
        except websockets.ConnectionClosed:
            pass
        finally:
            for members in TOPICS.values():
                members.discard(websocket)
        return joined
    return serve


async def main(port, kind, refused):
    async with websockets.serve(serving(kind, refused), "127.0.0.1", port, max_size=1 << 20, backlog=4096):
        await asyncio.Future()  # until killed


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
