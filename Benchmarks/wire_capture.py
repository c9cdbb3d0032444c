#!/usr/bin/env python3
"""Reads a nanosecond pcap of bench (or sockperf) traffic on loopback and compares it with what the tool reported.

    wire_capture.py pingpong PCAP PORT RUN_FOLDER            bench roundtrip --timestamps both, 1 client, closed loop
    wire_capture.py sockperf PCAP PORT SOCKPERF_P50_US       sockperf ping-pong against a server on PORT
    wire_capture.py fanout PCAP PORT RUN_FOLDER              bench fanout --timestamps both --warmup 0

The wire round trip is the time from a data segment to the next data segment the other way; the wire spread of a
broadcast is the time from its first to its last data segment from the server (frames parsed from the payload, so
coalesced frames count). Standard library only.
"""
import csv
import statistics
import struct
import sys


def segments(path, port):
    """(time_ns, from_server, payload) of every TCP segment with data to or from `port`, in capture order."""
    with open(path, "rb") as f:
        header = f.read(24)
        magic, = struct.unpack("<I", header[:4])
        if magic != 0xA1B23C4D:
            sys.exit(f"{path}: not a nanosecond pcap (magic {magic:#x}); capture with --time-stamp-precision nano")
        linktype, = struct.unpack("<I", header[20:24])
        link = {1: 14, 113: 16, 276: 20}.get(linktype)
        if link is None:
            sys.exit(f"{path}: link type {linktype} not handled")
        while True:
            record = f.read(16)
            if len(record) < 16:
                return
            seconds, nanoseconds, captured, _ = struct.unpack("<IIII", record)
            packet = f.read(captured)
            ip = packet[link:]
            if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
                continue
            ip_length = (ip[0] & 15) * 4
            total, = struct.unpack(">H", ip[2:4])
            tcp = ip[ip_length:]
            source, destination = struct.unpack(">HH", tcp[:4])
            tcp_length = (tcp[12] >> 4) * 4
            payload = tcp[tcp_length:total - ip_length]
            if payload and port in (source, destination):
                yield seconds * 1_000_000_000 + nanoseconds, source == port, payload


def percentile(values, p):
    values = sorted(values)
    return values[max(0, min(len(values) - 1, int(round(p / 100 * len(values) + 0.5)) - 1))]


def wire_round_trips(path, port, server_sends_first):
    """Data segment one way to the next data segment the other way."""
    trips, pending = [], None
    for time, from_server, _ in segments(path, port):
        if from_server == server_sends_first:
            pending = time
        elif pending is not None:
            trips.append(time - pending)
            pending = None
    return trips


def rows(folder, name):
    with open(f"{folder}/{name}", newline="") as f:
        return list(csv.DictReader(f))


def main():
    mode, path, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "pingpong":
        folder = sys.argv[4]
        # The client's hello goes first; the round trips start at the server's first data segment.
        wire = wire_round_trips(path, port, server_sends_first=True)[1:]
        samples = [r for r in rows(folder, "samples.csv") if r["lost"] == "0"]
        kernel = [int(r["rtt_ns"]) for r in samples]
        user = [int(r["user_echo_ns"]) - int(r["user_sent_ns"]) for r in samples]
        w = statistics.median(wire) / 1000
        print(f"pingpong wire_p50_us {w:.2f} user_p50_us {statistics.median(user) / 1000:.2f} "
              f"kernel_p50_us {statistics.median(kernel) / 1000:.2f} round_trips {len(wire)}")
    elif mode == "sockperf":
        wire = wire_round_trips(path, port, server_sends_first=False)
        print(f"sockperf wire_p50_us {statistics.median(wire) / 1000:.2f} reported_p50_us {float(sys.argv[4]):.2f} "
              f"round_trips {len(wire)}")
    elif mode == "fanout":
        folder = sys.argv[4]
        first, last = {}, {}
        for time, from_server, payload in segments(path, port):
            if not from_server:
                continue
            offset = 0
            while offset + 16 <= len(payload):
                length, kind = struct.unpack(">IB", payload[offset:offset + 5])
                if kind == 2:
                    sequence, = struct.unpack(">I", payload[offset + 8:offset + 12])
                    first.setdefault(sequence, time)
                    last[sequence] = time
                offset += 4 + length
        wire = {s: last[s] - first[s] for s in first}
        user_spread, kernel_spread = {}, {}
        by_broadcast = {}
        for r in rows(folder, "samples.csv"):
            by_broadcast.setdefault(int(r["broadcast"]), []).append(r)
        for b, rs in by_broadcast.items():
            if all(r["lost"] == "0" for r in rs):
                user = [int(r["user_recv_ns"]) for r in rs]
                kernel = [int(r["recv_ns"]) for r in rs]
                user_spread[b], kernel_spread[b] = max(user) - min(user), max(kernel) - min(kernel)
        common = sorted(set(wire) & set(user_spread))
        w = statistics.median(wire[b] for b in common) / 1000
        u = statistics.median(user_spread[b] for b in common) / 1000
        k = statistics.median(kernel_spread[b] for b in common) / 1000
        print(f"fanout broadcasts {len(common)} wire_spread_p50_us {w:.1f} user_spread_p50_us {u:.1f} "
              f"kernel_spread_p50_us {k:.1f} user_ratio {u / w:.3f} kernel_ratio {k / w:.3f}")
    else:
        sys.exit(__doc__)


main()
