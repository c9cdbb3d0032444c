#!/usr/bin/python3
"""A gRPC relay on raw bytes (python3-grpcio's asyncio server, generic handlers: no .proto file, no generated code),
for `bench fanout|roundtrip --target grpc://`.

Usage: grpc_relay_server.py PORT [CERTIFICATE KEY]

Listens on 127.0.0.1:PORT, over TLS (HTTP/2 chosen by ALPN) with the PEM certificate and key given. Methods of the service bench.Relay:
- Subscribe (server streaming): sends its response headers once the subscriber is registered in the room its
  request's field 1 names, then every message published to that room, verbatim;
- Publish (unary): hands the request to every subscriber of the room its field 1 names (the sender's own call
  included) and answers an empty message;
- Echo (bidirectional streaming): sends each message back to its sender;
- Refuse (server streaming): fails with PERMISSION_DENIED and a message.
Any other method is UNIMPLEMENTED (the library's own answer). Pings are allowed at any rate (see main).
"""
import asyncio
import sys

import grpc

ROOMS = {}


def room(request):
    """Field 1 of a protocol buffers message when it comes first and is length-delimited (b"" otherwise)."""
    if not request or request[0] != 0x0A:
        return b""
    length, shift, position = 0, 0, 1
    while position < len(request):
        byte = request[position]
        position += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            break
    return bytes(request[position:position + length])


async def subscribe(request, context):
    queue = asyncio.Queue()
    members = ROOMS.setdefault(room(request), set())
    members.add(queue)
    try:
        await context.send_initial_metadata(())
        while True:
            yield await queue.get()
    finally:
        members.discard(queue)


async def publish(request, context):
    for queue in list(ROOMS.get(room(request), ())):
        queue.put_nowait(request)
    return b""


async def echo(requests, context):
    async for request in requests:
        yield request


async def refuse(request, context):
    await context.abort(grpc.StatusCode.PERMISSION_DENIED, "no entry for bench")
    yield b""  # an async generator, as a server-streaming handler is


async def main(port, tls):
    # Pings allowed as often as a client sends them (grpc-core's default answers a ping more often than every 5 minutes
    # on a quiet connection with GOAWAY ENHANCE_YOUR_CALM "too_many_pings"), as a server set up for its clients'
    # keepalive is: `--dead-after` pings each `--heartbeat`.
    # Not SO_REUSEPORT (grpc-core's default): on a port another process of the tests listens on with it (the built-in
    # server's shards do), this server would join that listener and take its connections.
    server = grpc.aio.server(options=[
        ("grpc.so_reuseport", 0),
        ("grpc.max_concurrent_streams", 100000),
        ("grpc.http2.min_ping_interval_without_data_ms", 10),
        ("grpc.http2.max_ping_strikes", 0),
        ("grpc.keepalive_permit_without_calls", 1),
    ])
    handlers = {
        "Subscribe": grpc.unary_stream_rpc_method_handler(subscribe),
        "Publish": grpc.unary_unary_rpc_method_handler(publish),
        "Echo": grpc.stream_stream_rpc_method_handler(echo),
        "Refuse": grpc.unary_stream_rpc_method_handler(refuse),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Relay", handlers),))
    if tls:
        with open(tls[0], "rb") as certificate, open(tls[1], "rb") as key:
            credentials = grpc.ssl_server_credentials([(key.read(), certificate.read())])
        server.add_secure_port(f"127.0.0.1:{port}", credentials)
    else:
        server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2:4]))
