#!/usr/bin/env python3
"""A Bumble GATT peripheral for Harald's integration tests.

Kinds (each advertises its name and service UUIDs in the advertising data itself, because the
stock controller never delivers scan responses):
  hr     "Harald-HR"  Heart Rate 0x180D (measurement 0x2A37 notifying every 50 ms while
                      subscribed, with sensor contact, one RR interval and, on every other value,
                      the energy expended; body sensor location 0x2A38, control point 0x2A39: 0x01
                      resets energy expended, other op codes get ATT error 0x80), Battery 0x180F (0x2A19 = 87),
                      Device Information 0x180A (manufacturer, model, firmware), plus a control
                      service whose characteristic 0xFFF1, when written, makes the peer disconnect.
  gopro  "GoPro 1234" a GoPro-like camera speaking the Open GoPro BLE protocol (gopro_camera.py):
                      service 0xFEA6 with the command, settings and query characteristics,
                      responses fragmented across 20-byte packets, pushes of registered statuses;
                      manufacturer data 0x02F2. --boot-polls N: Get Hardware Info is refused
                      (status error) N times per connection, like a camera still booting.
  long   "HaraldLV"   one 128-bit service with a 512-byte readable and writable characteristic.
  victim "Harald-VX"  like hr; the tests kill this process to see a peer vanish.

--secure (hr, victim): the Body Sensor Location 0x2A38 can only be read over an encrypted link
(ATT error 0x0F until the central pairs or re-encrypts with its bond), and the peer pairs as a
bonding LE Secure Connections responder asking for MITM protection, with the IO capability of
--io (none by default: Just Works) and, with --passkey N, the passkey it shows (display) or
types (keyboard). It distributes its static random address as its identity (not the
controller's public one), so a central finds the bond again by the address it connects to.
Prints "PAIRED <central> sc=… authenticated=…", "PAIRING FAILED <central> reason=0x.." and
"ENCRYPTED <central>" as they happen, so a test can count pairings in its log.

--scan-response moves the name out of the advertising data into the scan response, together with
manufacturer data 0xFFFF "HRLD" (only a controller that delivers real scan responses, such as
controllers.py with --reports, shows them to a scanner).

Prints "READY <address>" once advertising, then serves until killed.
"""
import argparse
import asyncio
import logging
import struct
import sys

from bumble import att, hci
from bumble.core import AdvertisingData, UUID
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

import gopro_camera
import read_multiple_fix

LONG_SERVICE = "6E40A000-3C1D-4B2A-9F3E-48415241C000"
LONG_VALUE = "6E40A001-3C1D-4B2A-9F3E-48415241C000"
CONTROL_SERVICE = "FFF0"
CONTROL_DISCONNECT = "FFF1"

READABLE = "READABLE"
WRITEABLE = "WRITEABLE"
READ_WRITE = "READABLE,WRITEABLE"


def ad(kind, data):
    return bytes([len(data) + 1, kind]) + data


def uuid16_list(*values):
    return b"".join(struct.pack("<H", value) for value in values)


IO_CAPABILITIES = {
    "none": PairingDelegate.NO_OUTPUT_NO_INPUT,
    "display-only": PairingDelegate.DISPLAY_OUTPUT_ONLY,
    "keyboard-only": PairingDelegate.KEYBOARD_INPUT_ONLY,
    "keyboard-display": PairingDelegate.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT,
    "display-yes-no": PairingDelegate.DISPLAY_OUTPUT_AND_YES_NO_INPUT,
}


class FixedPasskeyDelegate(PairingDelegate):
    """Shows (display) or types (keyboard) a fixed passkey instead of a random one / 000000."""

    def __init__(self, io_capability, passkey):
        super().__init__(io_capability=io_capability)
        self.passkey = passkey

    async def generate_passkey(self):
        return self.passkey if self.passkey is not None else await super().generate_passkey()

    async def get_number(self):
        return self.passkey if self.passkey is not None else 0

    async def display_number(self, number, digits=6):
        print(f"DISPLAY {number:0{digits}d}", flush=True)


def require_pairing(device, io="none", passkey=None):
    """Makes `device` pair as a bonding SC responder with MITM and the given IO, distributing its
    static random address as identity; prints PAIRED / PAIRING FAILED / ENCRYPTED lines."""
    def config(connection):
        return PairingConfig(sc=True, mitm=True, bonding=True, delegate=FixedPasskeyDelegate(IO_CAPABILITIES[io], passkey),
                             identity_address_type=PairingConfig.AddressType.RANDOM)

    device.pairing_config_factory = config

    def on_connection(connection):
        central = connection.peer_address
        connection.on("pairing", lambda keys: print(
            f"PAIRED {central} sc={connection.sc} authenticated={connection.authenticated}", flush=True))
        connection.on("pairing_failure", lambda reason: print(f"PAIRING FAILED {central} reason=0x{int(reason):02X}", flush=True))
        connection.on("connection_encryption_change", lambda *args: print(
            f"ENCRYPTED {central} encrypted={connection.is_encrypted}", flush=True))

    device.on("connection", on_connection)


def build(kind, device, name=None, boot_polls=0, secure=False, encrypted=False):
    """Services and advertising data for one kind of peer (`name` replaces the kind's own).
    `secure` (hr, victim): Body Sensor Location needs encryption. `encrypted` (gopro): the camera's
    service needs an encrypted link."""
    name = name or {"hr": "Harald-HR", "victim": "Harald-VX", "gopro": "GoPro 1234", "long": "HaraldLV"}[kind]
    device.name = name
    flags = ad(0x01, bytes([0x06]))
    tasks = []
    if kind in ("hr", "victim"):
        subscribed = {"on": False}
        measurement = Characteristic("2A37", Characteristic.Properties.NOTIFY, READABLE, bytes([0x00, 60]))

        def disconnect_me(connection, value):
            asyncio.get_running_loop().call_later(0.05, lambda: asyncio.ensure_future(connection.disconnect()))

        energy = {"kJ": 0}

        def control_point(connection, value):
            # Heart Rate Control Point: only Reset Energy Expended exists; the rest is refused
            # with the profile's error 0x80 (Control Point Not Supported).
            if bytes(value) != bytes([0x01]):
                raise att.ATT_Error(0x80)
            energy["kJ"] = 0

        def measurement_value(beat, sequence):
            # Flags: sensor contact supported and detected (bits 1-2), RR intervals present (bit 4),
            # energy expended present (bit 3) on every other value; then the 8-bit heart rate, the
            # energy in kJ (u16) and one RR interval in 1/1024 s matching the heart rate.
            flags = 0x16
            body = bytes([beat])
            if sequence % 2 == 0:
                flags |= 0x08
                body += energy["kJ"].to_bytes(2, "little")
            body += round(60 * 1024 / beat).to_bytes(2, "little")
            return bytes([flags]) + body

        device.add_services([
            Service("180D", [measurement,
                             Characteristic("2A38", Characteristic.Properties.READ,
                                            "READABLE,READ_REQUIRES_ENCRYPTION" if secure else READABLE, bytes([0x01])),
                             Characteristic("2A39", Characteristic.Properties.WRITE, WRITEABLE,
                                            CharacteristicValue(write=control_point))]),
            Service("180F", [Characteristic("2A19", Characteristic.Properties.READ | Characteristic.Properties.NOTIFY,
                                            READABLE, bytes([87]))]),
            Service("180A", [
                Characteristic("2A29", Characteristic.Properties.READ, READABLE, b"Harald Test Peers"),
                Characteristic("2A24", Characteristic.Properties.READ, READABLE, b"HR-1"),
                Characteristic("2A26", Characteristic.Properties.READ, READABLE, b"1.0.0"),
            ]),
            Service(CONTROL_SERVICE, [Characteristic(
                CONTROL_DISCONNECT, Characteristic.Properties.WRITE, WRITEABLE, CharacteristicValue(write=disconnect_me))]),
        ])

        async def notify_forever():
            beat = 60
            sequence = 0
            while True:
                await asyncio.sleep(0.05)
                beat = 60 + (beat - 59) % 40
                sequence += 1
                energy["kJ"] = min(energy["kJ"] + 1, 0xFFFF)
                try:
                    await device.notify_subscribers(measurement, measurement_value(beat, sequence))
                except Exception as error:  # a subscriber that just left
                    logging.debug("notify failed: %s", error)

        tasks.append(notify_forever)
        advertising = flags + ad(0x03, uuid16_list(0x180D, 0x180F, 0x180A)) + ad(0x09, name.encode())
    elif kind == "gopro":
        tasks += gopro_camera.build_camera(device, boot_polls, encrypted)
        advertising = (ad(0x01, bytes([0x02])) + ad(0x03, uuid16_list(0xFEA6)) + ad(0x09, name.encode())
                       + ad(0xFF, bytes([0xF2, 0x02, 0x02, 0x01, 0x38, 0x33])))
    else:
        device.add_services([Service(LONG_SERVICE, [Characteristic(
            LONG_VALUE, Characteristic.Properties.READ | Characteristic.Properties.WRITE, READ_WRITE,
            bytes(index % 256 for index in range(512)))])])
        advertising = flags + ad(0x07, UUID(LONG_SERVICE).to_bytes(force_128=True)) + ad(0x09, name.encode())
    assert len(advertising) <= 31, f"{kind}: {len(advertising)} bytes of advertising data"
    return advertising, tasks


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["hr", "gopro", "long", "victim"])
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="static random address, e.g. C0:00:00:00:00:01")
    parser.add_argument("--name", help="advertised name instead of the kind's own (a second peer of one kind)")
    parser.add_argument("--boot-polls", type=int, default=0,
                        help="gopro: refuse Get Hardware Info this many times per connection (still booting)")
    parser.add_argument("--secure", action="store_true",
                        help="hr, victim: Body Sensor Location 0x2A38 needs an encrypted link; pair with --io and --passkey")
    parser.add_argument("--encrypted", action="store_true",
                        help="gopro: the command, settings and query characteristics need an encrypted link, as on a real camera")
    parser.add_argument("--io", choices=sorted(IO_CAPABILITIES), default="none",
                        help="with --secure or --encrypted: the IO capability the peer pairs with (default none: Just Works)")
    parser.add_argument("--passkey", type=int, choices=range(0, 1000000), metavar="N",
                        help="with --secure or --encrypted: the passkey the peer displays or types")
    parser.add_argument("--scan-response", action="store_true",
                        help="name and manufacturer data 0xFFFF 'HRLD' in the scan response, not the advertising data")
    args = parser.parse_args()
    if args.secure and args.kind not in ("hr", "victim"):
        parser.error("--secure is for the hr and victim kinds")
    if args.encrypted and args.kind != "gopro":
        parser.error("--encrypted is for the gopro kind")
    logging.basicConfig(level=logging.WARNING)
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci(args.kind, hci.Address(args.address), transport.source, transport.sink)
        advertising, tasks = build(args.kind, device, args.name, args.boot_polls, args.secure, args.encrypted)
        if args.secure or args.encrypted:
            read_multiple_fix.install()  # a refused attribute in a Read Multiple Variable gets an answer
            require_pairing(device, args.io, args.passkey)
        else:
            # Bumble's defaults, except the identity: the static random address it connects from
            # (a central refuses an identity the connection does not prove).
            device.pairing_config_factory = lambda connection: PairingConfig(identity_address_type=PairingConfig.AddressType.RANDOM)
        device.on("connection", lambda connection: print(f"CONNECTED {connection.peer_address}", flush=True))
        # Bumble reports a disconnection on the connection (with the HCI reason), not on the device.
        device.on("connection", lambda connection: connection.on(
            "disconnection", lambda reason: print(f"DISCONNECTED reason=0x{reason:02X}", flush=True)))
        await device.power_on()
        scan_response = None
        if args.scan_response:
            name = ad(0x09, device.name.encode())
            assert name in advertising
            advertising = advertising.replace(name, b"")
            scan_response = name + ad(0xFF, bytes([0xFF, 0xFF]) + b"HRLD")
        await device.start_advertising(advertising_data=advertising, scan_response_data=scan_response, auto_restart=True)
        for task in tasks:
            asyncio.ensure_future(task())
        print(f"READY {args.address}", flush=True)
        await transport.source.wait_for_termination()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
