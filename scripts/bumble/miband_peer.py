#!/usr/bin/env python3
"""A Mi-Band-2-like Bumble peripheral for the Mi Band kit's integration tests.

"Harald-MB" speaks the protocol of HaraldMiBand (and of the simulator's band):
  FEE1 / 0x0009 auth   02 08 -> 10 02 01 <16 random bytes>; 03 08 <AES-128-ECB(key, random)>
                       -> 10 03 01 (or 10 03 04); 01 08 <key> -> 10 01 01. Without a key
                       (--no-key) the challenge request is refused (10 02 04) until one is set.
                       The key is "0123456789@ABCDE" unless --key HEX says otherwise.
  FEE0 / 0x0007        realtime steps (read/notify once a second): 0C steps u32, m u32, kcal u32
       / 0x0006        battery info, 20 bytes (level 64 %, charging, last charge 2026-11-20 08:15:00)
       / 0x0004, 0x0005 activity fetch: 01 01 <timestamp> -> 10 01 01 <count u32> <timestamp>;
                       02 -> packets (counter + 4-byte samples) on 0x0005, then 10 02 01
  180D / 0x2A39        15 02 01 -> one measurement 00 <bpm> on 0x2A37 after 0.5 s; 15 01 01 ->
                       one a second until 15 01 00 or 15 s without a keep-alive (16)

Prints "READY <address>" once advertising, then serves until killed.
"""
import argparse
import asyncio
import datetime
import logging
import os
import struct
import sys

from bumble import hci
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.transport import open_transport
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

HUAMI = "0000{:04X}-0000-3512-2118-0009AF100700"
DEFAULT_KEY = b"0123456789@ABCDE"
HISTORY_END = datetime.datetime(2026, 11, 21, 12, 0, tzinfo=datetime.timezone.utc)
HISTORY_MINUTES = 6 * 60
CONTINUOUS_TIMEOUT = 15.0
READABLE = "READABLE"
WRITEABLE = "WRITEABLE"
P = Characteristic.Properties


def aes_ecb(key, block):
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return encryptor.update(block) + encryptor.finalize()


def sample(index):
    """The history sample of minute `index` (the same pattern as the simulator's band)."""
    phase = index % 90
    steps = 0 if phase < 50 else (60 + (index * 7) % 40 if phase < 80 else 140 + (index * 3) % 30)
    category = 0x01 if steps == 0 else (0x11 if steps < 120 else 0x12)
    intensity = (steps // 2 + (index * 13) % 16) & 0xFF
    rate = 60 + steps // 3 if index % 10 == 0 else 0xFF
    return bytes([category, intensity, steps, rate])


def timestamp_bytes(moment):
    return struct.pack("<HBBBBBb", moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second, 0)


def parse_timestamp(data):
    year, month, day, hour, minute, second, quarters = struct.unpack("<HBBBBBb", data)
    zone = datetime.timezone(datetime.timedelta(minutes=15 * quarters))
    return datetime.datetime(year, month, day, hour, minute, second, tzinfo=zone)


class Band:
    def __init__(self, device, key):
        self.device = device
        self.key = key
        self.steps = 409
        self.challenge = None
        self.pending_fetch = None
        self.continuous_until = 0.0
        self.pulse = 0
        loop = asyncio.get_event_loop()
        self.clock = loop.time
        self.auth = Characteristic(HUAMI.format(9), P.WRITE | P.WRITE_WITHOUT_RESPONSE | P.NOTIFY, WRITEABLE,
                                   CharacteristicValue(write=self.on_auth))
        self.realtime = Characteristic(HUAMI.format(7), P.READ | P.NOTIFY, READABLE, CharacteristicValue(read=self.read_steps))
        battery = (bytes([0x0F, 64, 0x01]) + struct.pack("<HBBBBB", 2026, 11, 20, 7, 0, 0) + bytes([12])
                   + struct.pack("<HBBBBB", 2026, 11, 20, 8, 15, 0) + bytes([0x04, 100]))
        self.battery = Characteristic(HUAMI.format(6), P.READ, READABLE, battery)
        self.control = Characteristic(HUAMI.format(4), P.WRITE | P.NOTIFY, WRITEABLE, CharacteristicValue(write=self.on_fetch))
        self.data = Characteristic(HUAMI.format(5), P.NOTIFY, READABLE, b"")
        self.measurement = Characteristic("2A37", P.NOTIFY, READABLE, bytes([0x00, 70]))
        self.control_point = Characteristic("2A39", P.WRITE, WRITEABLE, CharacteristicValue(write=self.on_heart_rate))
        device.add_services([
            Service("FEE0", [self.control, self.data, self.battery, self.realtime]),
            Service("FEE1", [self.auth]),
            Service("180D", [self.measurement, self.control_point]),
            Service("180A", [Characteristic("2A29", P.READ, READABLE, b"Harald Test Peers"),
                             Characteristic("2A24", P.READ, READABLE, b"MB-2")]),
        ])

    def steps_value(self):
        return bytes([0x0C]) + struct.pack("<III", self.steps, self.steps * 62 // 100, self.steps // 50)

    def read_steps(self, connection):
        return self.steps_value()

    async def reply(self, connection, characteristic, value):
        try:
            await self.device.notify_subscriber(connection, characteristic, value)
        except Exception as error:  # the central left
            logging.debug("notify failed: %s", error)

    async def on_auth(self, connection, value):
        value = bytes(value)
        command = value[0] if value else 0
        if command == 0x01 and len(value) == 18:
            self.key = value[2:]
            answer = bytes([0x10, 0x01, 0x01])
        elif command == 0x02 and len(value) == 2:
            if self.key is None:
                answer = bytes([0x10, 0x02, 0x04])
            else:
                self.challenge = os.urandom(16)
                answer = bytes([0x10, 0x02, 0x01]) + self.challenge
        elif command == 0x03 and len(value) == 18:
            good = self.challenge is not None and self.key is not None and aes_ecb(self.key, self.challenge) == value[2:]
            self.challenge = None
            answer = bytes([0x10, 0x03, 0x01 if good else 0x04])
        else:
            answer = bytes([0x10, command, 0x04])
        asyncio.ensure_future(self.reply(connection, self.auth, answer))

    async def on_heart_rate(self, connection, value):
        value = bytes(value)
        if value == bytes([0x15, 0x02, 0x01]):
            asyncio.get_running_loop().call_later(0.5, lambda: asyncio.ensure_future(
                self.reply(connection, self.measurement, bytes([0x00, self.next_pulse()]))))
        elif value == bytes([0x15, 0x01, 0x01]) or (value == bytes([0x16]) and self.continuous_until > 0):
            self.continuous_until = self.clock() + CONTINUOUS_TIMEOUT
        elif value == bytes([0x15, 0x01, 0x00]):
            self.continuous_until = 0.0

    def next_pulse(self):
        pattern = [76, 78, 81, 79, 77, 74, 72, 75]
        self.pulse += 1
        return pattern[(self.pulse - 1) % len(pattern)]

    async def on_fetch(self, connection, value):
        value = bytes(value)
        if len(value) == 10 and value[0] == 0x01 and value[1] == 0x01:
            since = parse_timestamp(value[2:])
            start = HISTORY_END - datetime.timedelta(minutes=HISTORY_MINUTES)
            offset = (since - start).total_seconds() / 60
            first = min(HISTORY_MINUTES, max(0, int(-(-offset // 1))))
            self.pending_fetch = (first, HISTORY_MINUTES - first)
            moment = start + datetime.timedelta(minutes=first)
            answer = bytes([0x10, 0x01, 0x01]) + struct.pack("<I", HISTORY_MINUTES - first) + timestamp_bytes(moment)
            asyncio.ensure_future(self.reply(connection, self.control, answer))
        elif value == bytes([0x02]) and self.pending_fetch is not None:
            first, count = self.pending_fetch
            self.pending_fetch = None
            asyncio.ensure_future(self.send_history(connection, first, count))
        else:
            asyncio.ensure_future(self.reply(connection, self.control, bytes([0x10, value[0] if value else 0, 0x04])))

    async def send_history(self, connection, first, count):
        counter = 0
        for index in range(first, first + count, 4):
            packet = bytes([counter & 0xFF]) + b"".join(sample(i) for i in range(index, min(first + count, index + 4)))
            await self.reply(connection, self.data, packet)
            counter += 1
        await self.reply(connection, self.control, bytes([0x10, 0x02, 0x01]))

    async def run(self):
        while True:
            await asyncio.sleep(1.0)
            self.steps += 2
            try:
                await self.device.notify_subscribers(self.realtime, self.steps_value())
                if self.continuous_until > 0:
                    if self.clock() > self.continuous_until:
                        self.continuous_until = 0.0
                    else:
                        await self.device.notify_subscribers(self.measurement, bytes([0x00, self.next_pulse()]))
            except Exception as error:  # a subscriber that just left
                logging.debug("notify failed: %s", error)


def ad(kind, data):
    return bytes([len(data) + 1, kind]) + data


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="static random address, e.g. C0:00:00:00:00:08")
    parser.add_argument("--key", help="auth key, 32 hex digits (default: 0123456789@ABCDE)")
    parser.add_argument("--no-key", action="store_true", help="start without a key (the first auth installs one)")
    parser.add_argument("--name", default="Harald-MB", help="advertised local name (default: Harald-MB)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    key = None if args.no_key else (bytes.fromhex(args.key) if args.key else DEFAULT_KEY)
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci(args.name, hci.Address(args.address), transport.source, transport.sink)
        device.name = args.name
        band = Band(device, key)
        device.on("connection", lambda connection: print(f"CONNECTED {connection.peer_address}", flush=True))
        # Bumble reports a disconnection on the connection (with the HCI reason), not on the device.
        device.on("connection", lambda connection: connection.on(
            "disconnection", lambda reason: print(f"DISCONNECTED reason=0x{reason:02X}", flush=True)))
        await device.power_on()
        advertising = ad(0x01, bytes([0x06])) + ad(0x03, struct.pack("<H", 0xFEE0)) + ad(0x09, args.name.encode())
        await device.start_advertising(advertising_data=advertising, auto_restart=True)
        asyncio.ensure_future(band.run())
        print(f"READY {args.address}", flush=True)
        await transport.source.wait_for_termination()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
