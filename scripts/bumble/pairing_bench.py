#!/usr/bin/env python3
"""Bumble's sides of the pairing benchmark (../bench-pairing).

  peer     a Bumble peripheral "BumblePair" with one characteristic that needs encryption,
           answering pairing in the given model; serves until killed (prints READY).
  central  a Bumble central that connects to the device advertising --name, then pairs
           --iterations times (a fresh connection each: Bumble cannot pair twice on one), timing
           `connection.pair()` alone; prints one JSON document.

Models: jw (LE Secure Connections Just Works), nc (Numeric Comparison, both say yes), passkey
(the peripheral shows 123456, the central types it), legacy-jw, legacy-passkey. Both sides of
one model use the same IO capabilities as Harald's (Sources/HaraldBumbleBench/PairingBench.swift),
so the association model is the same whoever pairs with whom.
"""
import argparse
import asyncio
import json
import logging
import sys
import time

from bumble import hci
from bumble.core import AdvertisingData
from bumble.device import Device
from bumble.gatt import Characteristic, Service
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

PASSKEY = 123456


class Person(PairingDelegate):
    """Says yes to everything and shows or types the bench passkey."""

    async def accept(self):
        return True

    async def confirm(self, auto=False):
        return True

    async def compare_numbers(self, number, digits):
        return True

    async def get_number(self):
        return PASSKEY

    async def generate_passkey(self):
        return PASSKEY

    async def display_number(self, number, digits):
        return None


def pairing_config(model, central):
    sc = not model.startswith("legacy")
    if model == "nc":
        io, mitm = PairingDelegate.DISPLAY_OUTPUT_AND_YES_NO_INPUT, True
    elif model in ("passkey", "legacy-passkey"):
        io = PairingDelegate.KEYBOARD_INPUT_ONLY if central else PairingDelegate.DISPLAY_OUTPUT_ONLY
        mitm = True
    else:
        io, mitm = PairingDelegate.NO_OUTPUT_NO_INPUT, False
    # The identity distributed is the static random address it connects from, which a central
    # can check against the connection (the controller's public address would be refused).
    return PairingConfig(sc=sc, mitm=mitm, bonding=True, delegate=Person(io_capability=io),
                         identity_address_type=PairingConfig.AddressType.RANDOM)


async def run_peer(args, transport):
    device = Device.with_hci("BumblePair", hci.Address(args.address), transport.source, transport.sink)
    device.pairing_config_factory = lambda connection: pairing_config(args.model, central=False)
    device.add_service(Service("FFE0", [Characteristic("FFE1", Characteristic.Properties.READ,
                                                       "READABLE,READ_REQUIRES_ENCRYPTION", bytes([0x01]))]))
    await device.power_on()
    data = bytes(AdvertisingData([(AdvertisingData.FLAGS, bytes([0x06])),
                                  (AdvertisingData.COMPLETE_LOCAL_NAME, b"BumblePair")]))
    await device.start_advertising(advertising_data=data, own_address_type=hci.OwnAddressType.RANDOM,
                                   auto_restart=True, advertising_interval_min=20, advertising_interval_max=20)
    print("READY", flush=True)
    await transport.source.wait_for_termination()


async def find(device, name, timeout=10.0):
    found = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement):
        local = advertisement.data.get(AdvertisingData.COMPLETE_LOCAL_NAME)
        if isinstance(local, (bytes, bytearray)):
            local = bytes(local).decode(errors="replace")
        if isinstance(local, str) and local.startswith(name) and not found.done():
            found.set_result(advertisement.address)

    device.on("advertisement", on_advertisement)
    await device.start_scanning(active=False)
    try:
        return await asyncio.wait_for(found, timeout)
    finally:
        await device.stop_scanning()


async def run_central(args, transport):
    device = Device.with_hci("BumbleCentral", hci.Address("C0:00:00:00:00:F1"), transport.source, transport.sink)
    device.pairing_config_factory = lambda connection: pairing_config(args.model, central=True)
    await device.power_on()
    address = await find(device, args.name)
    milliseconds, failures = [], []
    for _ in range(args.iterations):
        connection = await device.connect(address, own_address_type=hci.OwnAddressType.RANDOM, timeout=10)
        start = time.perf_counter()
        try:
            await asyncio.wait_for(connection.pair(), 30)
            milliseconds.append((time.perf_counter() - start) * 1000)
        except Exception as error:  # a failed pairing is a result, not a crash
            failures.append(repr(error))
        await connection.disconnect()
        await asyncio.sleep(0.05)  # the peer advertises again
    print(json.dumps({"model": args.model, "milliseconds": milliseconds, "failures": failures}, sort_keys=True))


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=("peer", "central"))
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--model", required=True, choices=("jw", "nc", "passkey", "legacy-jw", "legacy-passkey"))
    parser.add_argument("--address", default="C0:00:00:00:00:E1", help="the peer's static random address")
    parser.add_argument("--name", default="BumblePair", help="the central pairs with the device advertising this name")
    parser.add_argument("--iterations", type=int, default=10)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    async with await open_transport(args.transport) as transport:
        await (run_peer(args, transport) if args.role == "peer" else run_central(args, transport))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
