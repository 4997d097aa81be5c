#!/usr/bin/env python3
"""Bumble's side of the Harald-vs-Bumble benchmark (../bench-bumble).

A Bumble central (Device/Peer API) on its own virtual controller does the same steps as Harald's
HaraldBumbleBench against bench_peer.py, step by step:
  connect        LE connection, then Exchange MTU (517, as Harald offers)
  discover       every primary service, characteristic and descriptor (Peer.discover_all's steps)
  read           every readable characteristic value (Bumble reads long values with Read Blob)
  notifications  subscribe to --stream and receive --notifications values
Each step reports wall time and the ATT requests sent, counted by wrapping the GATT client's
send_request (every request Bumble sends goes through it).

Prints one JSON document on stdout.
"""
import argparse
import asyncio
import json
import logging
import random
import resource
import struct
import sys
import time

from bumble import hci
from bumble.core import UUID
from bumble.device import Device, Peer
from bumble.gatt import Characteristic
from bumble.transport import open_transport


def count_requests(gatt_client, counts):
    original = gatt_client.send_request

    async def send_request(request):
        key = f"0x{request.op_code:02X}"
        counts[key] = counts.get(key, 0) + 1
        return await original(request)

    gatt_client.send_request = send_request


async def session(device, address, stream_uuid, wanted):
    counts = {}
    steps = {}
    last = {}

    cpu = {"start": 0.0, "switches": 0}

    def context_switches():
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_nvcsw + usage.ru_nivcsw

    def begin():
        cpu["start"] = time.process_time()
        cpu["switches"] = context_switches()
        return time.perf_counter()

    def step(name, start):
        elapsed, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu["start"]
        delta = {key: value - last.get(key, 0) for key, value in counts.items() if value - last.get(key, 0)}
        steps[name] = {"seconds": elapsed, "cpuSeconds": cpu_seconds, "contextSwitches": context_switches() - cpu["switches"],
                       "attRequests": sum(delta.values()), "attRequestsByOpcode": delta}
        last.clear()
        last.update(counts)

    start = begin()
    started_at = time.monotonic()
    connection = await device.connect(hci.Address(address), timeout=20)
    count_requests(connection.gatt_client, counts)
    peer = Peer(connection)
    mtu = await peer.request_mtu(517)
    ended_at = time.monotonic()
    step("connect", start)
    steps["connect"]["startedAt"], steps["connect"]["endedAt"] = started_at, ended_at

    start = begin()
    await peer.discover_services()
    characteristics = []
    descriptors = 0
    for service in peer.services:
        await service.discover_characteristics()
        for characteristic in service.characteristics:
            descriptors += len(await characteristic.discover_descriptors())
            characteristics.append(characteristic)
    step("discover", start)

    start = begin()
    bytes_read = 0
    for characteristic in characteristics:
        if characteristic.properties & Characteristic.Properties.READ:
            bytes_read += len(await characteristic.read_value())
    step("read", start)

    stream = next(c for c in characteristics if c.uuid == UUID(stream_uuid))
    done = asyncio.get_running_loop().create_future()
    state = {"received": 0, "outOfOrder": 0}

    def on_value(value):
        sequence = struct.unpack_from("<I", value)[0] if len(value) >= 4 else -1
        if sequence != state["received"]:
            state["outOfOrder"] += 1
        state["received"] += 1
        if state["received"] == wanted and not done.done():
            done.set_result(None)

    start = begin()
    started_at = time.monotonic()
    await peer.subscribe(stream, on_value)
    await asyncio.wait_for(done, 60)
    ended_at = time.monotonic()
    step("notifications", start)
    steps["notifications"]["startedAt"], steps["notifications"]["endedAt"] = started_at, ended_at

    disconnected = asyncio.get_running_loop().create_future()
    connection.on("disconnection", lambda reason: disconnected.done() or disconnected.set_result(reason))
    await connection.disconnect()
    await asyncio.wait_for(disconnected, 10)
    return {
        "steps": steps, "services": len(peer.services), "characteristics": len(characteristics),
        "descriptors": descriptors, "bytesRead": bytes_read, "notificationsReceived": state["received"],
        "notificationsOutOfOrder": state["outOfOrder"], "notificationsDropped": 0, "mtu": mtu,
    }


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="the peer's static random address")
    parser.add_argument("--own-address", default="C0:00:00:00:00:0B")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--notifications", type=int, default=1000)
    parser.add_argument("--stream", default="FFB1")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci("bench-central", hci.Address(args.own_address), transport.source, transport.sink)
        await device.power_on()
        runs = []
        for _ in range(args.iterations):
            runs.append(await session(device, args.address, args.stream, args.notifications))
            # Let the peer advertise again; the random part samples every phase of its
            # advertising interval, which the next connect step waits for.
            await asyncio.sleep(0.3 + random.uniform(0, 0.02))
    json.dump({"central": "bumble", "iterations": runs}, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    asyncio.run(main())
