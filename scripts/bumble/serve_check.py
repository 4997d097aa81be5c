#!/usr/bin/env python3
"""A Bumble central checks a device Harald serves (`harald serve`), as issue 15 asks.

Finds the device advertising --name, connects, discovers everything, and checks, for
  --device hrm: Heart Rate 0x180D with Heart Rate Measurement 0x2A37 (notify) and Body Sensor
    Location 0x2A38 (read), Battery 0x180F and Device Information 0x180A; reads 0x2A38 (one octet,
    a defined location); subscribes to 0x2A37 and decodes --count notifications as Heart Rate
    Measurements (flags, 8- or 16-bit rate, energy expended and RR intervals exactly filling the
    value);
  --device gopro: service 0xFEA6 with the command (GP-0072) and its response (GP-0073); writes Get
    Open GoPro Version (0x51) and decodes the answer notified on GP-0073 (General header, id 0x51,
    status 0, a version); the WiFi SSID (GP-0002) is refused with Insufficient Authentication (0x05: no bond yet)
    on the unpaired link;
  --device miband: services 0xFEE0 and 0xFEE1; asks the auth characteristic (0x0009) for a
    challenge (`02 08`) and decodes the answer notified back (`10 02 01` and 16 octets); reads the
    realtime steps (0x0007: `0C` and three u32).
Prints one JSON document; exit 0 only when every check passed.
"""
import argparse
import asyncio
import json
import struct
import sys

from bumble import hci
from bumble.core import UUID
from bumble.device import Device
from bumble.transport import open_transport

import attacker as kit  # same directory: the connect-and-discover steps the Bumble centrals share


def decode_measurement(value):
    """A Heart Rate Measurement's fields, or raises ValueError when the bytes are not one."""
    if len(value) < 2:
        raise ValueError(f"{len(value)} octets")
    flags, offset = value[0], 1
    if flags & 0x01:
        rate = struct.unpack_from("<H", value, offset)[0]
        offset += 2
    else:
        rate = value[offset]
        offset += 1
    energy = None
    if flags & 0x08:
        energy = struct.unpack_from("<H", value, offset)[0]
        offset += 2
    rr = []
    if flags & 0x10:
        rest = value[offset:]
        if len(rest) % 2:
            raise ValueError("RR intervals of odd length")
        rr = list(struct.unpack(f"<{len(rest) // 2}H", rest))
        offset = len(value)
    if offset != len(value):
        raise ValueError(f"{len(value) - offset} octets left over")
    if not 20 <= rate <= 250:
        raise ValueError(f"heart rate {rate}")
    return {"heartRate": rate, "energyExpended": energy, "rrIntervals": rr}


async def check(args):
    result = {"checks": {}}

    def record(name, ok, detail=None):
        result["checks"][name] = {"ok": bool(ok), **({"detail": detail} if detail is not None else {})}

    async with await open_transport(args.transport) as transport:
        device = Device.with_hci("ServeCheck", hci.Address("C0:00:00:00:00:F2"), transport.source, transport.sink)
        await device.power_on()
        address, connection, peer = await kit.connect_and_discover(device, args.name)
        record("found by name", True, str(address))
        services = {service.uuid: service for service in peer.services}
        if args.device in ("gopro", "miband"):
            await (check_gopro if args.device == "gopro" else check_miband)(peer, services, record)
            await connection.disconnect()
            result["ok"] = all(check["ok"] for check in result["checks"].values())
            return result
        for uuid in (UUID.from_16_bits(0x180D), UUID.from_16_bits(0x180F), UUID.from_16_bits(0x180A)):
            record(f"service {uuid}", uuid in services)
        heart_rate = services.get(UUID.from_16_bits(0x180D))
        chars = {c.uuid: c for c in heart_rate.characteristics} if heart_rate else {}
        measurement = chars.get(UUID.from_16_bits(0x2A37))
        location = chars.get(UUID.from_16_bits(0x2A38))
        record("2A37 notifies", measurement is not None and measurement.properties & 0x10)
        record("2A38 is readable", location is not None and location.properties & 0x02)
        if location is not None:
            value = bytes(await location.read_value())
            record("2A38 value", len(value) == 1 and value[0] <= 6, value.hex())
        if measurement is not None:
            received = asyncio.Queue()
            await measurement.discover_descriptors()
            await measurement.subscribe(lambda value: received.put_nowait(bytes(value)))
            decoded, failures = [], []
            for _ in range(args.count):
                value = await asyncio.wait_for(received.get(), 10)
                try:
                    decoded.append(decode_measurement(value))
                except ValueError as error:
                    failures.append(f"{value.hex()}: {error}")
            record("measurements decode", len(decoded) == args.count and not failures, failures or decoded)
            await measurement.unsubscribe()
        await connection.disconnect()
    result["ok"] = all(check["ok"] for check in result["checks"].values())
    return result


def gopro_uuid(short):
    return UUID(f"B5F9{short:04X}-AA8D-11E3-9046-0002A5D5C51B")


async def check_gopro(peer, services, record):
    control = services.get(UUID.from_16_bits(0xFEA6))
    record("service FEA6", control is not None)
    if control is None:
        return
    chars = {c.uuid: c for c in control.characteristics}
    command, response = chars.get(gopro_uuid(0x0072)), chars.get(gopro_uuid(0x0073))
    record("GP-0072 writable", command is not None and command.properties & 0x08)
    record("GP-0073 notifies", response is not None and response.properties & 0x10)
    if command is None or response is None:
        return
    received = asyncio.Queue()
    await response.discover_descriptors()
    await response.subscribe(lambda value: received.put_nowait(bytes(value)))
    await command.write_value(bytes([0x01, 0x51]), with_response=True)
    answer = await asyncio.wait_for(received.get(), 10)
    # General header: 3 bits of type 0, 5 bits of length; then id, status, payload.
    ok = len(answer) >= 3 and answer[0] >> 5 == 0 and answer[0] & 0x1F == len(answer) - 1 and answer[1] == 0x51 and answer[2] == 0
    record("Get Open GoPro Version answered", ok, answer.hex())
    wifi = services.get(gopro_uuid(0x0001))
    ssid = next((c for c in wifi.characteristics if c.uuid == gopro_uuid(0x0002)), None) if wifi else None
    if ssid is None:
        record("GP-0002 present", False)
        return
    try:
        await ssid.read_value()
        record("GP-0002 refused before pairing", False, "read succeeded")
    except Exception as error:  # Bumble raises ATT_Error with the code
        code = getattr(error, "error_code", None)
        record("GP-0002 refused before pairing", code == 0x05, repr(error))


def huami_uuid(short):
    return UUID(f"0000{short:04X}-0000-3512-2118-0009AF100700")


async def check_miband(peer, services, record):
    band, auth_service = services.get(UUID.from_16_bits(0xFEE0)), services.get(UUID.from_16_bits(0xFEE1))
    record("services FEE0 and FEE1", band is not None and auth_service is not None)
    if band is None or auth_service is None:
        return
    auth = next((c for c in auth_service.characteristics if c.uuid == huami_uuid(0x0009)), None)
    steps = next((c for c in band.characteristics if c.uuid == huami_uuid(0x0007)), None)
    record("auth characteristic writes and notifies", auth is not None and auth.properties & 0x18 == 0x18)
    if auth is not None:
        received = asyncio.Queue()
        await auth.discover_descriptors()
        await auth.subscribe(lambda value: received.put_nowait(bytes(value)))
        await auth.write_value(bytes([0x02, 0x08]), with_response=True)
        answer = await asyncio.wait_for(received.get(), 10)
        record("a challenge is answered", len(answer) == 19 and answer[:3] == bytes([0x10, 0x02, 0x01]), answer.hex())
    if steps is not None:
        value = bytes(await steps.read_value())
        record("realtime steps", len(value) == 13 and value[0] == 0x0C, value.hex())
    else:
        record("realtime steps", False, "missing")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--device", choices=("hrm", "gopro", "miband"), default="hrm")
    parser.add_argument("--count", type=int, default=3)
    args = parser.parse_args()
    result = asyncio.run(check(args))
    print(json.dumps(result, sort_keys=True))
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()
