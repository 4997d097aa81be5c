#!/usr/bin/env python3
"""The Bumble peer of Harald's scenario suite (Tests/HaraldScenarioSuite), steered by the test.

Serves the scenario profile (one 128-bit service; see ScenarioProfile.swift):
  status   5CE40002-…  read, notify          starts as 2A
  setting  5CE40003-…  read, write           starts as 01 02
  stream   5CE40004-…  write without response (kept in arrival order)
  command  5CE40005-…  write                 answered by a notification on `response` of 80 + the
                                            command; a command starting with FF is refused with
                                            ATT error 0x80
  response 5CE40006-…  notify
and advertises the name "Scenario" with the service UUID. On L2CAP it serves an LE credit-based
channel on PSM 0x0080 (ScenarioProfile.echoPSM) that sends every SDU back.

Control channel: a TCP socket on 127.0.0.1 (port chosen by the system unless --control-port),
one JSON object per line, each answered by one line {"ok": true, ...} or {"ok": false, "error"}:
  {"op": "reset"}                          initial values, no writes recorded, answers flowing
  {"op": "hold"} / {"op": "resume"}        hold every read/write answer / answer the held ones
  {"op": "held"}                           -> {"count": requests held now}
  {"op": "notify", "uuid": U, "hex": H}    notify subscribers of characteristic U
  {"op": "value", "uuid": U}               -> {"hex": current value of U}
  {"op": "writes", "uuid": U}              -> {"values": [hex of each write without response]}
  {"op": "disconnect"}                     the peer terminates its connections (reason 0x13)
  {"op": "misbehave", "mode": M}           answer some requests against the ATT/GATT rules (modes in
                                            misbehavior.py; null or reset: behave again)
  {"op": "disconnections"}                 -> {"reasons": [HCI reason of each disconnection since reset]}
  {"op": "change_services"}                the scenario service moves to new handles (a fresh copy
                                            after the last attribute, the old one removed; values
                                            kept) and subscribers of Service Changed get an
                                            indication of the range covering both; answered once
                                            they confirmed it

Prints "CONTROL <port>" and then "READY <address>" once advertising; serves until killed.
"""
import argparse
import asyncio
import json
import logging
import struct
import sys

from bumble import hci, l2cap
from bumble.att import ATT_Error
from bumble.core import UUID
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.transport import open_transport

from misbehavior import Misbehavior

NAME = "Scenario"
SERVICE = "5CE40001-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
STATUS = "5CE40002-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
SETTING = "5CE40003-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
STREAM = "5CE40004-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
COMMAND = "5CE40005-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
RESPONSE = "5CE40006-9F3B-4D4E-8A5C-6B1D2E3F4A5B"
INITIAL = {STATUS: bytes([0x2A]), SETTING: bytes([0x01, 0x02])}
REFUSED_COMMAND = 0xFF
REFUSAL_CODE = 0x80


class ScenarioPeer:
    def __init__(self, device):
        self.device = device
        self.values = {}
        self.writes = []
        self.held = 0
        self.released = asyncio.Event()
        self.service = None
        self.misbehavior = Misbehavior()
        self.disconnections = []
        self.reset()
        server = device.gatt_server
        self.misbehavior.install(server)
        # Bumble reports a disconnection on the connection, with the HCI reason.
        device.on("connection", lambda connection: connection.on("disconnection", self.disconnections.append))
        # Bumble numbers a new attribute 1 + the number of attributes, which assumes no service
        # was ever removed. Numbering after the last handle keeps that true once one was: a
        # service added later never lands on handles still in use.
        server.next_handle = lambda: 1 + (server.attributes[-1].handle if server.attributes else 0)
        self.service = self.add_scenario_service()
        self.first_handle = self.service.handle

    def add_scenario_service(self):
        """A fresh copy of the scenario service, after the last attribute."""
        props = Characteristic.Properties
        readable, writeable = Characteristic.Permissions.READABLE, Characteristic.Permissions.WRITEABLE
        self.characteristics = {
            STATUS: Characteristic(STATUS, props.READ | props.NOTIFY, readable, CharacteristicValue(read=self.reader(STATUS))),
            SETTING: Characteristic(SETTING, props.READ | props.WRITE, readable | writeable,
                                    CharacteristicValue(read=self.reader(SETTING), write=self.on_setting)),
            STREAM: Characteristic(STREAM, props.WRITE_WITHOUT_RESPONSE, writeable, CharacteristicValue(write=self.on_stream)),
            COMMAND: Characteristic(COMMAND, props.WRITE, writeable, CharacteristicValue(write=self.on_command)),
            RESPONSE: Characteristic(RESPONSE, props.NOTIFY, readable, b""),
        }
        service = Service(SERVICE, list(self.characteristics.values()))
        self.device.add_service(service)
        return service

    def remove_service(self, service):
        """Takes `service` and its attributes out of the GATT server; its handles stay unused."""
        server = self.device.gatt_server
        first, last = service.handle, service.end_group_handle
        server.attributes = [a for a in server.attributes if not first <= a.handle <= last]
        server.services = [s for s in server.services if s is not service]
        server.attributes_by_handle.clear()  # a cache of handle lookups, stale now

    async def change_services(self):
        """Moves the scenario service to new handles and indicates Service Changed."""
        old = self.service
        self.service = self.add_scenario_service()
        self.remove_service(old)
        changed = struct.pack("<HH", old.handle, self.service.end_group_handle)
        service_changed = self.device.gatt_service.service_changed_characteristic
        await self.device.indicate_subscribers(service_changed, changed)

    def reset(self):
        self.values = dict(INITIAL)
        self.writes = []
        self.misbehavior.set(None)
        self.disconnections.clear()
        self.resume()
        if self.service is not None and self.service.handle != self.first_handle:
            # A scenario moved the service: put it back where it started (no one is connected).
            self.remove_service(self.service)
            self.service = self.add_scenario_service()

    def hold(self):
        self.released = asyncio.Event()

    def resume(self):
        self.held = 0
        self.released.set()

    async def gate(self):
        """Where an answer waits while answers are held."""
        if self.released.is_set():
            return
        released = self.released
        self.held += 1
        await released.wait()

    def reader(self, uuid):
        async def read(connection):
            await self.gate()
            return self.values[uuid]
        return read

    async def on_setting(self, connection, value):
        await self.gate()
        self.values[SETTING] = bytes(value)

    def on_stream(self, connection, value):
        self.writes.append(bytes(value))

    async def on_command(self, connection, value):
        await self.gate()
        if value and value[0] == REFUSED_COMMAND:
            raise ATT_Error(REFUSAL_CODE)
        await self.device.notify_subscriber(connection, self.characteristics[RESPONSE], bytes([0x80]) + bytes(value))

    async def control(self, request):
        op = request.get("op")
        if op == "reset":
            self.reset()
            return {}
        if op == "hold":
            self.hold()
            return {}
        if op == "resume":
            self.resume()
            return {}
        if op == "held":
            return {"count": self.held}
        uuid = request.get("uuid", "").upper()
        if op == "notify":
            characteristic = self.characteristics[uuid]
            value = bytes.fromhex(request["hex"])
            if uuid in self.values:
                self.values[uuid] = value
            await self.device.notify_subscribers(characteristic, value)
            return {}
        if op == "value":
            return {"hex": self.values.get(uuid, b"").hex().upper()}
        if op == "writes":
            return {"values": [value.hex().upper() for value in self.writes] if uuid == STREAM else []}
        if op == "subscribed":
            # The CCCD value the newest client wrote for this characteristic (Bumble keeps
            # one table per ATT bearer, dropped when the bearer goes away).
            handle = self.characteristics[uuid].handle
            tables = list(self.device.gatt_server.subscribers.values())
            cccd = tables[-1].get(handle, b"\x00\x00") if tables else b"\x00\x00"
            return {"enabled": any(cccd)}
        if op == "disconnect":
            for connection in list(self.device.connections.values()):
                await connection.disconnect()
            return {}
        if op == "misbehave":
            self.misbehavior.set(request.get("mode"))
            return {}
        if op == "disconnections":
            return {"reasons": list(self.disconnections)}
        if op == "change_services":
            await self.change_services()
            return {}
        raise ValueError(f"unknown op {op!r}")

    async def serve_client(self, reader, writer):
        while line := await reader.readline():
            try:
                answer = {"ok": True, **await self.control(json.loads(line))}
            except Exception as error:  # reported to the test, which fails with it
                answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
            writer.write((json.dumps(answer) + "\n").encode())
            await writer.drain()
        writer.close()


def advertising_data(name=NAME, with_service=True):
    def ad(kind, data):
        return bytes([len(data) + 1, kind]) + data
    data = ad(0x01, bytes([0x06]))
    if with_service:
        data += ad(0x07, UUID(SERVICE).to_bytes(force_128=True))
    data += ad(0x09, name.encode())
    assert len(data) <= 31
    return data


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="static random address, e.g. C0:00:00:00:00:05")
    parser.add_argument("--control-port", type=int, default=0)
    parser.add_argument("--name", default=NAME, help="the advertised name")
    parser.add_argument(
        "--hide-service", action="store_true",
        help="leave the service UUID out of the advertisement (a second peer on the same link that a scan for the service must not find)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci("scenario", hci.Address(args.address), transport.source, transport.sink)
        device.name = args.name
        peer = ScenarioPeer(device)

        def echo(channel):
            channel.sink = lambda sdu: channel.write(sdu) if sdu else None
        device.create_l2cap_server(l2cap.LeCreditBasedChannelSpec(psm=0x0080, mtu=2048, mps=247, max_credits=64), echo)
        server = await asyncio.start_server(peer.serve_client, "127.0.0.1", args.control_port)
        print(f"CONTROL {server.sockets[0].getsockname()[1]}", flush=True)
        def connected(connection):
            print(f"CONNECTED {connection.peer_address}", flush=True)
            connection.on("disconnection", lambda reason: print(f"DISCONNECTED reason=0x{reason:02X}", flush=True))
        device.on("connection", connected)
        await device.power_on()
        await device.start_advertising(advertising_data=advertising_data(args.name, not args.hide_service), auto_restart=True)
        print(f"READY {args.address}", flush=True)
        await transport.source.wait_for_termination()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
