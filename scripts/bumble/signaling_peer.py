#!/usr/bin/env python3
"""A Bumble peripheral that tests the central's LE signaling and SMP answers (issue 6).

"Harald-SG": once a central connects, the peer sends, over the link's fixed channels,
  1. an L2CAP Connection Parameter Update Request (CID 0x0005, interval 16..32 x 1.25 ms,
     latency 0, supervision timeout 2.56 s), which a central must answer (and, if it accepts,
     apply with an LE Connection Update that reaches this peer's controller);
  2. an LE signaling command with a code no specification defines (0x1F), which a central must
     reject with Command Reject;
  3. an SMP Pairing Request (CID 0x0006), which a host without pairing answers with Pairing
     Failed, reason 0x05 Pairing Not Supported,
and records what came back. The outcome is readable from characteristic 0xFFD1 (service 0xFFD0)
as ASCII "update=RRRR reject=RRRR pairing=RR updated=yes|no" (RRRR: the little-endian result or
reason as 4 hex digits, "none" until an answer arrived; updated: whether this peer's controller
reported a connection update). Prints "READY <address> random" once advertising.
"""
import argparse
import asyncio
import logging
import struct
import sys

from bumble import hci
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.transport import open_transport

import peer  # same directory: the advertising helpers

SERVICE = "FFD0"
REPORT = "FFD1"
LE_SIGNALING, SMP = 0x0005, 0x0006


def build(device):
    state = {"update": "none", "reject": "none", "pairing": "none", "updated": "no"}

    def report(connection):
        return " ".join(f"{key}={state[key]}" for key in ("update", "reject", "pairing", "updated")).encode()

    device.add_services([Service(SERVICE, [
        Characteristic(REPORT, Characteristic.Properties.READ, peer.READABLE, CharacteristicValue(read=report)),
    ])])

    def on_pdu(handle, cid, pdu):
        pdu = bytes(pdu)
        if cid == LE_SIGNALING and len(pdu) >= 6:
            code, identifier = pdu[0], pdu[1]
            value = struct.unpack_from("<H", pdu, 4)[0]
            if code == 0x13 and identifier == 0x41:  # Connection Parameter Update Response
                state["update"] = f"{value:04X}"
            elif code == 0x01 and identifier == 0x42:  # Command Reject
                state["reject"] = f"{value:04X}"
            print(f"SIGNALING {pdu.hex().upper()}", flush=True)
        elif cid == SMP and len(pdu) >= 2 and pdu[0] == 0x05:  # Pairing Failed
            state["pairing"] = f"{pdu[1]:02X}"
            print(f"SMP {pdu.hex().upper()}", flush=True)

    device.host.on("l2cap_pdu", on_pdu)

    async def probe(connection):
        await asyncio.sleep(0.05)  # after the central's own first exchange has started
        # Connection Parameter Update Request: code 0x12, identifier 0x41, 8 bytes.
        connection.send_l2cap_pdu(LE_SIGNALING, struct.pack("<BBHHHHH", 0x12, 0x41, 8, 16, 32, 0, 256))
        # A command code no specification defines: code 0x1F, identifier 0x42, no data.
        connection.send_l2cap_pdu(LE_SIGNALING, struct.pack("<BBH", 0x1F, 0x42, 0))
        # SMP Pairing Request: NoInputNoOutput, no OOB, bonding, 16-byte keys, no keys distributed.
        connection.send_l2cap_pdu(SMP, bytes([0x01, 0x03, 0x00, 0x01, 0x10, 0x00, 0x00]))

    def on_connection(connection):
        for state_key in ("update", "reject", "pairing"):
            state[state_key] = "none"
        state["updated"] = "no"
        connection.on("connection_parameters_update", lambda: state.__setitem__("updated", "yes"))
        print(f"CONNECTED {connection.peer_address}", flush=True)
        asyncio.ensure_future(probe(connection))

    device.on("connection", on_connection)
    return peer.ad(0x01, bytes([0x06])) + peer.ad(0x03, peer.uuid16_list(0xFFD0)) + peer.ad(0x09, b"Harald-SG")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="static random address, e.g. C0:00:00:00:00:06")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci("Harald-SG", hci.Address(args.address), transport.source, transport.sink)
        advertising = build(device)
        await device.power_on()
        await device.start_advertising(advertising_data=advertising, own_address_type=hci.OwnAddressType.RANDOM,
                                       auto_restart=True, advertising_interval_min=20, advertising_interval_max=20)
        print(f"READY {device.random_address.to_string(with_type_qualifier=False)} random", flush=True)
        await transport.source.wait_for_termination()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
