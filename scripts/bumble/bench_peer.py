#!/usr/bin/env python3
"""A Bumble GATT peripheral for the Harald-vs-Bumble benchmark and the CLI checks.

"Harald-BN": the same GATT database as peer.py's `hr` (Heart Rate 0x180D, Battery 0x180F = 87,
Device Information 0x180A, control 0xFFF0) plus a bench service 0xFFB0:
  0xFFB1 notify         when a client subscribes, the peer notifies --notify-count values
                        (20 bytes: little-endian uint32 sequence number, then 16 bytes of filler)
                        as fast as the host's ACL flow control lets it, then stops.
  0xFFB2 read, write, write without response
                        stores what is written and prints "WROTE <hex> <with|without>".

--public advertises with the controller's public address instead of the static random one, so
the CLI's `--address-type public` has something to connect to.

Prints "READY <address> <public|random>" once advertising, then serves until killed; after each
burst, one "BURST central=... handedSeconds=... drainedSeconds=... flowWaits=... flowWaitSeconds=...
cpuSeconds=... controllersCPUSeconds=..." line timing it from the peer's side (see notify_burst).
"""
import argparse
import asyncio
import logging
import os
import struct
import sys
import time

from bumble import hci
from bumble.device import Device
from bumble.gatt import GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR as GATT_CCCD, Characteristic, CharacteristicValue, Service
from bumble.transport import open_transport

import peer  # same directory: reuse the hr database and the advertising helpers

BENCH_SERVICE = "FFB0"
BENCH_STREAM = "FFB1"
BENCH_SINK = "FFB2"


def process_cpu_seconds(pid):
    """CPU seconds a (single-threaded) process has run, from Linux's /proc/PID/schedstat
    (nanoseconds, unlike the 10 ms ticks of /proc/PID/stat), or -1 when unreadable."""
    try:
        return int(open(f"/proc/{pid}/schedstat").read().split()[0]) / 1e9
    except (OSError, IndexError, ValueError):
        return -1.0


def build(device, notify_count, controllers_pid=None):
    peer.build("hr", device)  # the hr services; its 50 ms heart-rate task is not started
    device.name = "Harald-BN"
    stream = Characteristic(BENCH_STREAM, Characteristic.Properties.NOTIFY, peer.READABLE, bytes(20))
    stored = {"value": b""}

    def on_write(connection, value, kind):
        stored["value"] = bytes(value)
        print(f"WROTE {bytes(value).hex().upper()} {kind}", flush=True)

    def read_sink(connection):
        return stored["value"]

    sink = Characteristic(
        BENCH_SINK,
        Characteristic.Properties.READ | Characteristic.Properties.WRITE | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
        peer.READ_WRITE,
        CharacteristicValue(read=read_sink, write=lambda connection, value: on_write(connection, value, "write")),
    )
    device.add_services([Service(BENCH_SERVICE, [stream, sink])])
    # Bumble calls the same write handler for Write Request and Write Command; tell them apart
    # from the ATT opcode of the PDU being served.
    original = device.gatt_server.on_att_write_command

    def on_write_command(connection, request):
        attribute = device.gatt_server.get_attribute(request.attribute_handle)
        if attribute is not None and attribute.handle == sink.handle:
            on_write(connection, request.attribute_value, "without")
            return
        original(connection, request)

    device.gatt_server.on_att_write_command = on_write_command

    streams = {}

    async def notify_burst(connection, started, cpu_started, controllers_started):
        queue = device.host.le_acl_packet_queue
        flow = asyncio.Event()
        queue.on("flow", flow.set)
        # Handle Value Notification PDUs built up front and handed straight to L2CAP: the peer's
        # Python GATT server would otherwise be the bottleneck of the step being measured.
        prefix = bytes([0x1B]) + struct.pack("<H", stream.handle)
        filler = bytes(range(16))
        pdus = [prefix + struct.pack("<I", sequence) + filler for sequence in range(notify_count)]
        waits, waited = 0, 0.0
        try:
            for pdu in pdus:
                # Keep no more packets queued than the controller takes at once: as fast as flow
                # control allows, without an unbounded backlog in the host.
                while queue.pending >= queue.max_in_flight:
                    flow.clear()
                    paused = time.monotonic()
                    await flow.wait()
                    waits += 1
                    waited += time.monotonic() - paused
                connection.send_l2cap_pdu(0x0004, pdu)
            handed = time.monotonic() - started
            # The controller reports each packet complete once it has taken it onto the link.
            while queue.pending > 0:
                flow.clear()
                await flow.wait()
            drained = time.monotonic() - started
            print(f"NOTIFIED {notify_count}", flush=True)
            # Timing of the burst, as the peer sees it (read by ../bench-bumble): when the CCCD
            # write arrived (CLOCK_MONOTONIC seconds, the clock the centrals stamp their steps
            # with), and from then to the last notification handed to the controller, to the last
            # one taken by the controller (Number Of Completed Packets), the waits for ACL flow
            # control, and CPU seconds of this process and of the controllers' process.
            controllers_cpu = process_cpu_seconds(controllers_pid) - controllers_started if controllers_pid else -1.0
            print(f"BURST central={connection.peer_address} count={notify_count} startedAt={started:.6f} handedSeconds={handed:.6f} "
                  f"drainedSeconds={drained:.6f} flowWaits={waits} flowWaitSeconds={waited:.6f} "
                  f"cpuSeconds={time.process_time() - cpu_started:.6f} controllersCPUSeconds={controllers_cpu:.6f}",
                  flush=True)
        except Exception as error:  # the subscriber left mid-burst
            logging.debug("burst ended: %s", error)
        finally:
            queue.remove_listener("flow", flow.set)

    def on_subscription(connection, notify, indicate):
        task = streams.pop(connection, None)
        if task is not None:
            task.cancel()
        if notify:
            started, cpu_started = time.monotonic(), time.process_time()
            controllers_started = process_cpu_seconds(controllers_pid) if controllers_pid else 0.0
            streams[connection] = asyncio.ensure_future(notify_burst(connection, started, cpu_started, controllers_started))

    stream.on("subscription", on_subscription)
    device.bench_stream_handle = stream.handle
    flags = peer.ad(0x01, bytes([0x06]))
    return flags + peer.ad(0x03, peer.uuid16_list(0x180D, 0x180F, 0x180A, 0xFFB0)) + peer.ad(0x09, b"Harald-BN")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="static random address, e.g. C0:00:00:00:00:05")
    parser.add_argument("--public", action="store_true", help="advertise with the controller's public address")
    parser.add_argument("--advertising-interval", type=float, default=20, help="milliseconds between advertisements")
    parser.add_argument("--notify-count", type=int, default=1000, help="notifications per subscription")
    parser.add_argument("--controllers-pid", type=int, help="the controllers' process, whose CPU time BURST lines report")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci("bench", hci.Address(args.address), transport.source, transport.sink)
        advertising = build(device, args.notify_count, args.controllers_pid)
        # "at": CLOCK_MONOTONIC seconds when the link came up (LE Connection Complete on this side,
        # sent by the linked controllers together with the central's), for ../bench-bumble.
        device.on("connection", lambda connection: print(
            f"CONNECTED {connection.peer_address} at={time.monotonic():.6f}", flush=True))
        # Bumble reports a disconnection on the connection (with the HCI reason), not on the device.
        device.on("connection", lambda connection: connection.on(
            "disconnection", lambda reason: print(f"DISCONNECTED reason=0x{reason:02X}", flush=True)))
        await device.power_on()
        own = hci.OwnAddressType.PUBLIC if args.public else hci.OwnAddressType.RANDOM
        # A virtual link connects at the peer's next advertisement: a short interval keeps the
        # connect step about the centrals, not about Bumble's 1 s default interval.
        await device.start_advertising(advertising_data=advertising, own_address_type=own, auto_restart=True,
                                       advertising_interval_min=args.advertising_interval,
                                       advertising_interval_max=args.advertising_interval)
        address = device.public_address if args.public else device.random_address
        # The stream's CCCD handle, for bench_floor.py (a raw-HCI central that does no discovery).
        cccd = next(attribute.handle for attribute in device.gatt_server.attributes
                    if attribute.handle > device.bench_stream_handle and attribute.type == GATT_CCCD)
        print(f"STREAM cccd=0x{cccd:04X}", flush=True)
        print(f"READY {address.to_string(with_type_qualifier=False)} {'public' if args.public else 'random'}", flush=True)
        await transport.source.wait_for_termination()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
