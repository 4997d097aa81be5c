#!/usr/bin/env python3
"""A Bumble peripheral that pairs with its central, for the pairing suite over the HCI backend
(Tests/HaraldHCIBackendTests/BumblePairingTests.swift), steered by the test.

"Harald-SEC" serves one service (5EC00001-…) with three readable characteristics:
  open       5EC00002-…  no security                       "open"
  encrypted  5EC00003-…  needs an encrypted link (ATT 0x0F) "encrypted"
  guarded    5EC00004-…  needs authentication (ATT 0x05)    "guarded"
(Bumble passes "authentication" on any encrypted LE link, Just Works included.)

How it pairs is set over the control channel before the central connects; Bumble asks the
pairing_config_factory at each pairing, so a change takes effect with the next Pairing Request.

Control channel: a TCP socket on 127.0.0.1 (port chosen by the system unless --control-port),
one JSON object per line, each answered by one line {"ok": true, ...} or {"ok": false, "error"}:
  {"op": "reset"}            the defaults below, counters and records cleared, bonds forgotten
  {"op": "configure", ...}   any of (the rest keep their value):
      "sc": bool (true)            LE Secure Connections offered
      "mitm": bool (false)         MITM protection asked for
      "bonding": bool (true)       bonding asked for
      "io": "none" | "display" | "keyboard" | "yesno" | "keyboard-display"   ("none")
      "passkey": int (123456)      what it displays (a display side) or types (a keyboard side);
                                   null: a keyboard side waits to type until it is set
      "accept_comparison": bool (true)   its answer to Numeric Comparison
      "silent": bool (false)       the delegate never answers the Pairing Request: no Pairing
                                   Response is ever sent (the central's SMP timeout)
      "security_request": bool (false)   sends a Security Request as soon as a central connects
  {"op": "forget_bonds"}     deletes every keystore entry (the peer "lost the bond")
  {"op": "change_keys"}      replaces every stored LTK by another (the next encryption with the
                             old key ends in a disconnection, MIC Failure 0x3D)
  {"op": "status"}           -> {"started", "completed", "failed": counts of pairings since the
                                 last reset; "last_failure": the reason of the last failure (int)
                                 or null; "comparison": the six-digit value it was asked to
                                 compare last, or null; "passkey_shown": the passkey it displayed
                                 last, or null; "encrypted": whether its newest link is
                                 encrypted; "connected": how many links it has; "smp_received":
                                 the code of every SMP PDU received since the last reset, in
                                 order; "identity": the identity address it distributes (the
                                 static random address it connects from)}
  {"op": "bonds"}            -> {"bonds": [{"name": the peer's identity address as Bumble keys
                                 it, "keys": names of the keys stored, "ltk": hex (as on the
                                 wire) of the LTK for that peer (SC "ltk"; legacy: the one it
                                 distributed), "ediv" and "rand" (hex) with it}]}
  {"op": "security_request"} sends a Security Request now on the newest link (AuthReq from the
                             current settings)
  {"op": "disconnect"}       ends every link (reason 0x13)

Prints "CONTROL <port>" and then "READY <address>" once advertising; serves until killed.
"""
import argparse
import asyncio
import json
import logging
import sys

from bumble import hci
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

NAME = "Harald-SEC"
SERVICE = "5EC00001-7A1D-4C3B-9E2F-1B0A5D6C7E8F"
OPEN = "5EC00002-7A1D-4C3B-9E2F-1B0A5D6C7E8F"
ENCRYPTED = "5EC00003-7A1D-4C3B-9E2F-1B0A5D6C7E8F"
GUARDED = "5EC00004-7A1D-4C3B-9E2F-1B0A5D6C7E8F"
SMP = 0x0006

IO = {
    "none": PairingDelegate.NO_OUTPUT_NO_INPUT,
    "display": PairingDelegate.DISPLAY_OUTPUT_ONLY,
    "keyboard": PairingDelegate.KEYBOARD_INPUT_ONLY,
    "yesno": PairingDelegate.DISPLAY_OUTPUT_AND_YES_NO_INPUT,
    "keyboard-display": PairingDelegate.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT,
}
DEFAULTS = {"sc": True, "mitm": False, "bonding": True, "io": "none", "passkey": 123456,
            "accept_comparison": True, "silent": False, "security_request": False}


class Person(PairingDelegate):
    """The peer's side of pairing, as the test configured it; records what it was shown."""

    def __init__(self, peer):
        super().__init__(io_capability=IO[peer.settings["io"]])
        self.peer = peer

    async def accept(self):
        if self.peer.settings["silent"]:
            await asyncio.get_running_loop().create_future()  # never answers
        return True

    async def compare_numbers(self, number, digits):
        self.peer.comparison = number
        return self.peer.settings["accept_comparison"]

    async def get_number(self):
        # A passkey of null: wait until the test tells what the central displays.
        while self.peer.settings["passkey"] is None:
            await asyncio.sleep(0.02)
        return self.peer.settings["passkey"]

    async def generate_passkey(self):
        return self.peer.settings["passkey"]

    async def display_number(self, number, digits):
        self.peer.passkey_shown = number


class SecurePeer:
    def __init__(self, device):
        self.device = device
        self.settings = dict(DEFAULTS)
        self.counts = {"started": 0, "completed": 0, "failed": 0}
        self.last_failure = None
        self.comparison = None
        self.passkey_shown = None
        self.newest = None
        self.smp_received = []
        device.pairing_config_factory = self.pairing_config
        device.on("connection", self.on_connection)
        device.on("pairing_start", self.on_pairing_start)
        device.host.on("l2cap_pdu", self.on_l2cap_pdu)
        device.host.long_term_key_provider = self.long_term_key
        props, perms = Characteristic.Properties, Characteristic.Permissions
        device.add_service(Service(SERVICE, [
            Characteristic(OPEN, props.READ, perms.READABLE, b"open"),
            Characteristic(ENCRYPTED, props.READ, perms.READABLE | perms.READ_REQUIRES_ENCRYPTION, b"encrypted"),
            Characteristic(GUARDED, props.READ, perms.READABLE | perms.READ_REQUIRES_AUTHENTICATION, b"guarded"),
        ]))

    def pairing_config(self, connection):
        s = self.settings
        # It distributes the static random address it connects from as its identity: a central
        # refuses an identity its connection does not prove (Bumble's default would be the
        # controller's public address, which this peer never connects from).
        return PairingConfig(sc=s["sc"], mitm=s["mitm"], bonding=s["bonding"], delegate=Person(self),
                             identity_address_type=PairingConfig.AddressType.RANDOM)

    def on_connection(self, connection):
        self.newest = connection
        print(f"CONNECTED {connection.peer_address}", flush=True)
        connection.on("pairing", lambda keys: self.on_pairing(connection))
        connection.on("pairing_failure", lambda reason: self.on_pairing_failure(reason))
        connection.on("disconnection", lambda reason: print(f"DISCONNECTED reason=0x{reason:02X}", flush=True))
        if self.settings["security_request"]:
            self.device.request_pairing(connection)
            print("SECURITY REQUEST sent", flush=True)

    async def long_term_key(self, handle, rand, ediv):
        """The LTK for the controller's LE Long Term Key Request (this peer is peripheral).

        Bumble 0.0.236 answers a legacy bond's request with the LTK the *central* distributed
        (ltk_peripheral), or refuses when the central distributed none; by the spec the peripheral
        answers with the LTK it distributed itself, which the central sends back with its EDIV and
        Rand. That key (Bumble files it under ltk_central when it is the responder) is looked up
        here; everything else is left to Bumble.
        """
        connection = self.device.lookup_connection(handle)
        keys = await self.device.keystore.get(str(connection.peer_address)) if connection and self.device.keystore else None
        if keys is not None and keys.ltk is None and keys.ltk_central is not None:
            own = keys.ltk_central
            if (own.ediv or 0) == ediv and (own.rand or bytes(8)) == bytes(rand):
                return own.value
        return await self.device.get_long_term_key(handle, rand, ediv)

    def on_l2cap_pdu(self, handle, cid, pdu):
        if cid == SMP and pdu:
            self.smp_received.append(pdu[0])

    def on_pairing_start(self, connection):
        self.counts["started"] += 1
        print("PAIRING started", flush=True)

    def on_pairing(self, connection):
        self.counts["completed"] += 1
        print(f"PAIRED {connection.peer_address}", flush=True)

    def on_pairing_failure(self, reason):
        self.counts["failed"] += 1
        self.last_failure = int(reason)
        print(f"PAIRING FAILED reason=0x{int(reason):02X}", flush=True)

    async def bonds(self):
        keystore = self.device.keystore
        entries = await keystore.get_all() if keystore else []
        answer = []
        for name, keys in entries:
            stored = keys.to_dict()
            # As responder Bumble files the LTK it distributed (legacy) under ltk_central.
            ltk = keys.ltk or keys.ltk_central
            answer.append({"name": name, "keys": sorted(k for k in stored if k != "address_type"),
                           "ltk": ltk.value.hex().upper() if ltk else None,
                           "ediv": ltk.ediv if ltk else None, "rand": ltk.rand.hex().upper() if ltk and ltk.rand else None})
        return answer

    async def control(self, request):
        op = request.get("op")
        if op == "reset":
            self.settings = dict(DEFAULTS)
            self.counts = {key: 0 for key in self.counts}
            self.last_failure = self.comparison = self.passkey_shown = None
            self.smp_received = []
            if self.device.keystore:
                await self.device.keystore.delete_all()
            return {}
        if op == "configure":
            unknown = set(request) - set(DEFAULTS) - {"op"}
            if unknown:
                raise ValueError(f"unknown settings {sorted(unknown)}")
            if "io" in request and request["io"] not in IO:
                raise ValueError(f"unknown io {request['io']!r}")
            self.settings.update({key: value for key, value in request.items() if key != "op"})
            return {}
        if op == "forget_bonds":
            if self.device.keystore:
                await self.device.keystore.delete_all()
            return {}
        if op == "change_keys":
            # Every stored LTK replaced by another: the next encryption ends in MIC Failure.
            for name, keys in await self.device.keystore.get_all():
                for key in (keys.ltk, keys.ltk_central, keys.ltk_peripheral):
                    if key is not None:
                        key.value = bytes(octet ^ 0x5A for octet in key.value)
                await self.device.keystore.update(name, keys)
            return {}
        if op == "status":
            connections = list(self.device.connections.values())
            return {**self.counts, "last_failure": self.last_failure, "comparison": self.comparison,
                    "passkey_shown": self.passkey_shown, "connected": len(connections),
                    "smp_received": self.smp_received, "identity": str(self.device.static_address).split("/")[0],
                    "encrypted": bool(self.newest and self.newest in connections and self.newest.is_encrypted)}
        if op == "bonds":
            return {"bonds": await self.bonds()}
        if op == "security_request":
            # A Security Request now, on the newest link, with the AuthReq of the current settings.
            if self.newest is None or self.newest not in self.device.connections.values():
                raise ValueError("no link")
            self.device.request_pairing(self.newest)
            return {}
        if op == "disconnect":
            for connection in list(self.device.connections.values()):
                await connection.disconnect()
            return {}
        raise ValueError(f"unknown op {op!r}")

    async def serve_client(self, reader, writer):
        while line := await reader.readline():
            try:
                answer = {"ok": True, **await self.control(json.loads(line))}
            except Exception as error:  # reported to the test, which fails with it
                answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
            writer.write((json.dumps(answer) + "\n").encode())
            await writer.drain()
        writer.close()


def advertising_data():
    def ad(kind, data):
        return bytes([len(data) + 1, kind]) + data
    return ad(0x01, bytes([0x06])) + ad(0x09, NAME.encode())  # the 128-bit UUID would not fit too


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="static random address, e.g. C0:00:00:00:00:0C")
    parser.add_argument("--control-port", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    async with await open_transport(args.transport) as transport:
        device = Device.with_hci("secure", hci.Address(args.address), transport.source, transport.sink)
        device.name = NAME
        peer = SecurePeer(device)
        server = await asyncio.start_server(peer.serve_client, "127.0.0.1", args.control_port)
        print(f"CONTROL {server.sockets[0].getsockname()[1]}", flush=True)
        await device.power_on()
        await device.start_advertising(advertising_data=advertising_data(), auto_restart=True)
        print(f"READY {args.address}", flush=True)
        await transport.source.wait_for_termination()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
