#!/usr/bin/python3
"""A Server-Sent Events server with an HTTP publish endpoint, for `bench fanout --target sse://`.

Usage: sse_server.py PORT_FILE chunked|plain [CERT KEY]

Listens on 127.0.0.1 and a free port, which it writes to PORT_FILE (written whole, then renamed into place).
GET /events answers 200 text/event-stream, with chunked transfer encoding (chunked) or a body that runs until the
connection closes (plain), and a retry line. With CERT and KEY (PEM files), over TLS (for sses:// and https://). Every POST /publish's body goes to every stream as one event: a comment,
an id, an event name and the body as its data line, the data line cut in the middle into two chunks (chunked) so
that a reader must join a line across chunks. The POST is answered 204 on a kept-alive connection. Standard library
only.
"""
import asyncio
import os
import ssl
import sys

STREAMS = []
COUNTER = 0


def write_event(writer, chunked, body):
    global COUNTER
    COUNTER += 1
    head = f": relayed\nid: {COUNTER}\nevent: broadcast\ndata: ".encode()
    text = head + body + b"\n\n"
    if not chunked:
        writer.write(text)
        return
    middle = len(head) + len(body) // 2
    for piece in (text[:middle], text[middle:]):
        writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")


async def handle(reader, writer, chunked):
    try:
        while True:
            request = await reader.readuntil(b"\r\n\r\n")
            lines = request.decode("latin-1").split("\r\n")
            method, path = lines[0].split(" ")[:2]
            headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
            if method == "GET" and path == "/events":
                transfer = "Transfer-Encoding: chunked\r\n" if chunked else ""
                writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                             f"{transfer}\r\n".encode())
                if chunked:
                    writer.write(b"b\r\nretry: 500\n\r\n")
                else:
                    writer.write(b"retry: 500\n")
                STREAMS.append(writer)
                await reader.read()  # until the subscriber goes
                return
            if method == "POST" and path == "/publish":
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                for stream in list(STREAMS):
                    write_event(stream, chunked, body)
                writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
                await writer.drain()
                continue
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        if writer in STREAMS:
            STREAMS.remove(writer)
        writer.close()


async def main(port_file, chunked, tls):
    context = None
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
    server = await asyncio.start_server(lambda r, w: handle(r, w, chunked), "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    with open(port_file + ".tmp", "w") as out:
        out.write(str(port))
    os.rename(port_file + ".tmp", port_file)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] == "chunked", sys.argv[3:5] if len(sys.argv) > 4 else None))
