#!/usr/bin/env python3
"""A Bumble peripheral serving LE credit-based L2CAP channels, for Harald's channel suite (issue 28).

"Harald-L2" serves, through Bumble's own L2CAP channel manager:
  - PSM 0x0080: echoes every SDU it receives on the same channel (MTU/MPS/credits from the
    options; Bumble's defaults otherwise);
  - PSM 0x0081: a sink that counts bytes and, when the central writes "report" as an SDU, answers
    with "<bytes> <sdus>" of what it received before;
  - PSM 0x0082: a source: on the central's SDU "send N", it writes N bytes (the byte at offset i is
    i mod 251) and then closes the channel.
Bumble's server answers LE Credit Based and Enhanced Credit Based Connection Requests alike.
Prints "READY <address> random" once advertising, "OPEN <psm> <cid>" and "CLOSED <psm>" per channel.
"""
import argparse
import asyncio
import logging
import sys

from bumble import hci, l2cap
from bumble.device import Device
from bumble.transport import open_transport

import peer  # same directory: the advertising helpers

ECHO, SINK, SOURCE = 0x0080, 0x0081, 0x0082


def serve(device, args):
    def spec(psm):
        return l2cap.LeCreditBasedChannelSpec(psm=psm, mtu=args.mtu, mps=args.mps, max_credits=args.credits)

    def opened(psm, channel, on_sdu):
        print(f"OPEN {psm:#06x} {channel.source_cid:#06x}", flush=True)
        channel.sink = on_sdu
        channel.on("close", lambda: print(f"CLOSED {psm:#06x}", flush=True))

    def echo(channel):
        opened(ECHO, channel, lambda sdu: channel.write(sdu))

    def sink(channel):
        counts = {"bytes": 0, "sdus": 0}

        def on_sdu(sdu):
            if sdu == b"report":
                channel.write(f"{counts['bytes']} {counts['sdus']}".encode())
            else:
                counts["bytes"] += len(sdu)
                counts["sdus"] += 1
        opened(SINK, channel, on_sdu)

    def source(channel):
        async def send(count):
            data = bytes(i % 251 for i in range(count))
            for offset in range(0, count, 4096):
                channel.write(data[offset:offset + 4096])
                await channel.drain()
            await channel.disconnect()

        def on_sdu(sdu):
            words = sdu.split()
            if len(words) == 2 and words[0] == b"send":
                asyncio.ensure_future(send(int(words[1])))
        opened(SOURCE, channel, on_sdu)

    device.create_l2cap_server(spec(ECHO), echo)
    device.create_l2cap_server(spec(SINK), sink)
    device.create_l2cap_server(spec(SOURCE), source)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="static random address, e.g. C0:00:00:00:00:21")
    parser.add_argument("--name", default="Harald-L2")
    parser.add_argument("--mtu", type=int, default=2048)
    parser.add_argument("--mps", type=int, default=247)
    parser.add_argument("--credits", type=int, default=64)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci(args.name, hci.Address(args.address), transport.source, transport.sink)
        serve(device, args)
        await device.power_on()
        advertising = peer.ad(0x01, bytes([0x06])) + peer.ad(0x09, args.name.encode())
        await device.start_advertising(advertising_data=advertising, own_address_type=hci.OwnAddressType.RANDOM,
                                       auto_restart=True, advertising_interval_min=20, advertising_interval_max=20)
        print(f"READY {device.random_address.to_string(with_type_qualifier=False)} random", flush=True)
        await transport.source.wait_for_termination()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
