#!/usr/bin/env python3
"""A Bumble central that opens an LE credit-based channel to a peripheral (issue 28: the check of
`harald l2cap listen` in scripts/cli_integration.py).

Connects to --address, opens --psm through Bumble's own channel manager (in Enhanced Credit Based
Flow Control Mode with --enhanced), writes the hex bytes of
--send (split into SDUs of the peer's MTU by Bumble), and collects what arrives until --expect
bytes came (or --timeout seconds passed); then closes the channel and disconnects.
Prints "OPEN <peer mtu>", then "RECEIVED <hex>" with everything received, or "FAILED <reason>".
Exit status 0 when the channel opened and --expect bytes arrived.
"""
import argparse
import asyncio
import logging
import sys

from bumble import hci, l2cap
from bumble.device import Device
from bumble.transport import open_transport


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="the peripheral's static random address")
    parser.add_argument("--psm", type=lambda text: int(text, 0), required=True)
    parser.add_argument("--send", default="", help="hex bytes to write on the channel")
    parser.add_argument("--expect", type=int, default=0, help="bytes to wait for")
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--enhanced", action="store_true", help="open it in Enhanced Credit Based Flow Control Mode")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    received = bytearray()
    enough = asyncio.Event()
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci("Harald-L2C", hci.Address("C0:00:00:00:00:2E"), transport.source, transport.sink)
        await device.power_on()
        try:
            connection = await asyncio.wait_for(
                device.connect(hci.Address(args.address, hci.Address.RANDOM_DEVICE_ADDRESS)), args.timeout)
        except Exception as error:  # noqa: BLE001 - reported, not raised
            print(f"FAILED connect: {error!r}", flush=True)
            return 1
        spec = l2cap.LeCreditBasedChannelSpec(psm=args.psm, mtu=2048, mps=247, max_credits=64)
        try:
            if args.enhanced:
                channels = await asyncio.wait_for(
                    device.l2cap_channel_manager.create_enhanced_credit_based_channels(connection, spec, 1), args.timeout)
                channel = channels[0]
            else:
                channel = await asyncio.wait_for(connection.create_l2cap_channel(spec=spec), args.timeout)
        except Exception as error:  # noqa: BLE001
            print(f"FAILED open: {error!r}", flush=True)
            await connection.disconnect()
            return 1

        def on_sdu(sdu):
            received.extend(sdu)
            if len(received) >= args.expect:
                enough.set()
        # Bumble drops what arrives before a sink is set: set it first thing.
        channel.sink = on_sdu
        print(f"OPEN {channel.peer_mtu}", flush=True)
        if args.send:
            channel.write(bytes.fromhex(args.send))
            await channel.drain()
        if args.expect:
            try:
                await asyncio.wait_for(enough.wait(), args.timeout)
            except asyncio.TimeoutError:
                pass
        else:
            await asyncio.sleep(0.5)
        print(f"RECEIVED {bytes(received).hex()}", flush=True)
        try:
            await channel.disconnect()
            await connection.disconnect()
        except Exception as error:  # noqa: BLE001 - the peer may have ended the channel or link first
            print(f"CLOSING {error!r}", flush=True)
        return 0 if len(received) >= args.expect else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
