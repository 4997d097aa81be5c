#!/usr/bin/env python3
"""The floor of the Harald-vs-Bumble benchmark (../bench-bumble): a "null central".

Raw HCI over H4/TCP with no host stack at all: it connects to bench_peer.py, exchanges the MTU,
writes the stream's CCCD and then only counts the notification packets in large socket reads,
doing no per-packet work beyond framing. Nothing is done on its side between the packets that a
central could leave out, so what it measures is what the peer and the virtual controllers allow:
  connect        LE Create Connection until LE Connection Complete, then one Exchange MTU
                 (517) round trip. The virtual link connects at the peer's next advertisement,
                 so this is mostly the wait for it (0..advertising interval).
  notifications  from the CCCD Write Request until the last of N notifications arrived.
Discovery and reads are not done (their floor is round trips, which the centrals' request
counts already show). Prints one JSON document on stdout, with --iterations sessions.
"""
import argparse
import json
import random
import socket
import struct
import sys
import time

EVENT, ACL = 0x04, 0x02


class RawCentral:
    def __init__(self, host, port):
        self.socket = socket.create_connection((host, port))
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = bytearray()

    def packets(self):
        """Yields (type, payload) for every whole H4 packet, reading 64 KiB at a time. A packet
        is consumed once yielded, so a caller may stop iterating and start again later."""
        buffer = self.buffer
        while True:
            while len(buffer) >= 3:
                kind = buffer[0]
                if kind == EVENT:
                    end = 3 + buffer[2]
                elif kind == ACL:
                    if len(buffer) < 5:
                        break
                    end = 5 + (buffer[3] | buffer[4] << 8)
                else:
                    raise RuntimeError(f"bad H4 indicator 0x{kind:02x}")
                if end > len(buffer):
                    break
                packet = bytes(buffer[1:end])
                del buffer[:end]
                yield kind, packet
            data = self.socket.recv(65536)
            if not data:
                raise RuntimeError("the controller closed the connection")
            buffer += data

    def command(self, opcode, parameters=b""):
        self.socket.sendall(bytes([0x01]) + struct.pack("<HB", opcode, len(parameters)) + parameters)

    def wait_event(self, matches):
        for kind, payload in self.packets():
            if kind == EVENT and matches(payload):
                return payload

    def execute(self, opcode, parameters=b""):
        self.command(opcode, parameters)
        payload = self.wait_event(lambda p: (p[0] == 0x0E and struct.unpack_from("<H", p, 3)[0] == opcode)
                                  or (p[0] == 0x0F and struct.unpack_from("<H", p, 4)[0] == opcode))
        status = payload[5] if payload[0] == 0x0E else payload[2]
        if status != 0:
            raise RuntimeError(f"command 0x{opcode:04x} failed: 0x{status:02x}")

    def send_att(self, handle, pdu):
        l2cap = struct.pack("<HH", len(pdu), 0x0004) + pdu
        self.socket.sendall(bytes([ACL]) + struct.pack("<HH", handle | 0x2000, len(l2cap)) + l2cap)


def address_bytes(text):
    return bytes(int(part, 16) for part in reversed(text.split(":")))


def session(central, peer, cccd, wanted):
    steps = {}
    start = time.perf_counter()
    started_at = time.monotonic()
    # LE Create Connection: scan 0x60/0x60, no filter, peer random, own random, interval 0x18.
    central.command(0x200D, struct.pack("<HHBB6sBHHHHHH", 0x60, 0x60, 0, 1, address_bytes(peer), 1,
                                        0x18, 0x18, 0, 0x48, 0, 0))
    complete = central.wait_event(lambda p: p[0] == 0x3E and p[2] in (0x01, 0x0A))
    if complete[3] != 0:
        raise RuntimeError(f"connection failed: 0x{complete[3]:02x}")
    handle = struct.unpack_from("<H", complete, 4)[0] & 0x0FFF
    connected = time.perf_counter()
    central.send_att(handle, struct.pack("<BH", 0x02, 517))
    for kind, payload in central.packets():
        if kind == ACL and payload[8] == 0x03:
            break
    end = time.perf_counter()
    # The MTU exchange alone is one ATT round trip through both controllers and the peer's host:
    # the floor of every request a central sends.
    steps["connect"] = {"seconds": end - start, "linkSeconds": connected - start, "attRoundTripSeconds": end - connected,
                        "startedAt": started_at, "endedAt": time.monotonic()}

    start = time.perf_counter()
    started_at = time.monotonic()
    central.send_att(handle, struct.pack("<BHH", 0x12, cccd, 0x0001))
    received = out_of_order = 0
    for kind, payload in central.packets():
        # One notification per ACL packet: 27-byte L2CAP PDUs fit one controller fragment.
        if kind == ACL and len(payload) >= 15 and payload[8] == 0x1B:
            if struct.unpack_from("<I", payload, 11)[0] != received:
                out_of_order += 1
            received += 1
            if received == wanted:
                break
    steps["notifications"] = {"seconds": time.perf_counter() - start, "startedAt": started_at, "endedAt": time.monotonic()}

    central.command(0x0406, struct.pack("<HB", handle, 0x13))
    central.wait_event(lambda p: p[0] == 0x05)
    return {"steps": steps, "notificationsReceived": received, "notificationsOutOfOrder": out_of_order}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="tcp-client:HOST:PORT")
    parser.add_argument("--address", required=True, help="the peer's static random address")
    parser.add_argument("--cccd", required=True, type=lambda text: int(text, 0), help="the stream's CCCD handle")
    parser.add_argument("--own-address", default="C0:00:00:00:00:0F")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--notifications", type=int, default=1000)
    args = parser.parse_args()
    _, host, port = args.transport.split(":")
    central = RawCentral(host, int(port))
    central.execute(0x0C03)  # Reset
    central.execute(0x0C01, b"\xff" * 8)  # Set Event Mask: everything
    central.execute(0x2001, b"\xff" * 8)  # LE Set Event Mask: everything
    central.execute(0x2005, address_bytes(args.own_address))  # LE Set Random Address
    runs = []
    for _ in range(args.iterations):
        runs.append(session(central, args.address, args.cccd, args.notifications))
        # Let the peer advertise again, as the centrals do; the random part samples every phase
        # of its advertising interval, which the connect step waits for.
        time.sleep(0.3 + random.uniform(0, 0.02))
    json.dump({"central": "floor", "iterations": runs}, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
