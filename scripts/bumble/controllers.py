#!/usr/bin/env python3
"""Linked virtual LE controllers for Harald's integration tests, one process, 127.0.0.1 only.

Starts N Bumble controllers on one LocalLink, each behind its own TCP port speaking H4 to one
host at a time. Writes {"ports": [...]} to --ready-file once every port listens (port 0 = let
the system pick, so parallel runs never collide).

"Bench mode": a small subclass of Bumble's stock Controller fixes the quirks that would make a
host test flaky or hang (see ../../README or the report for the list):
  * a host that disconnects from its TCP port, or sends HCI_Reset, really resets the controller:
    its links end (peers see reason 0x08 and the peer host re-advertises), advertising, scanning
    and any pending connection stop. A peer whose process dies therefore disconnects the central.
  * controller->host ACL is fragmented to --fragment bytes (27 by default), as real controllers
    do, so hosts exercise reassembly (stock Bumble sends one packet per whole L2CAP PDU).
  * LE Create Connection Cancel completes the pending attempt with LE Connection Complete 0x02
    (stock Bumble answers success and keeps the attempt forever).
  * one host per port with its own parser: a new host replaces the previous one (stock Bumble
    shares one parser between clients and answers only the last).
"""
import argparse
import asyncio
import json
import logging
import os
import signal
import sys

from bumble import hci, ll
from bumble.controller import Controller
from bumble.link import LocalLink

log = logging.getLogger("harald-controllers")


class BenchController(Controller):
    fragment_size = 27

    def bench_reset(self, reason=hci.HCI_ErrorCode.CONNECTION_TIMEOUT_ERROR):
        """Forget every link and activity, telling the peers their links ended."""
        for connection in list(self.le_connections.values()):
            try:
                connection.send_ll_control_pdu(ll.TerminateInd(reason))
            except Exception as error:  # the peer may be gone already
                log.debug("terminate failed: %s", error)
        self.le_connections.clear()
        self.pending_le_connection = None
        self.le_scan_enable = False
        try:
            self.le_legacy_advertiser.stop()
        except Exception as error:
            log.debug("advertiser stop failed: %s", error)
        for advertising_set in list(getattr(self, "advertising_sets", {}).values()):
            try:
                advertising_set.stop()
            except Exception as error:
                log.debug("advertising set stop failed: %s", error)
        if hasattr(self, "advertising_sets"):
            self.advertising_sets.clear()

    def on_hci_reset_command(self, command):
        self.bench_reset()
        return super().on_hci_reset_command(command)

    def on_hci_le_create_connection_cancel_command(self, command):
        pending = self.pending_le_connection is not None
        self.pending_le_connection = None
        if pending:
            # Command Complete first (returned below), then the cancelled attempt's completion.
            asyncio.get_running_loop().call_soon(
                lambda: self.send_hci_packet(
                    hci.HCI_LE_Connection_Complete_Event(
                        status=hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR,
                        connection_handle=0,
                        role=hci.Role.CENTRAL,
                        peer_address_type=0,
                        peer_address=hci.Address("00:00:00:00:00:00"),
                        connection_interval=0,
                        peripheral_latency=0,
                        supervision_timeout=0,
                        central_clock_accuracy=0,
                    )
                )
            )
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR)

    def on_link_acl_data(self, sender_address, transport, data):
        connection = self.le_connections.get(sender_address)
        if connection is None:
            # Bumble's LocalLink always names the sender by its random address, so a peer that
            # connected with its public address would never be found: match the controller.
            connection = next((candidate for candidate in self.le_connections.values()
                               if getattr(self.link.find_le_controller(candidate.peer_address), "random_address", None)
                               == sender_address), None)
        if connection is None:
            return super().on_link_acl_data(sender_address, transport, data)
        size = max(1, self.fragment_size)
        for offset in range(0, len(data), size):
            chunk = data[offset : offset + size]
            boundary = 2 if offset == 0 else 1  # PB 10 first flushable, 01 continuation
            self.send_hci_packet(hci.HCI_AclDataPacket(connection.handle, boundary, 0, len(chunk), chunk))


class StockController(Controller):
    """Bumble as installed; resetting does nothing, as in stock Bumble."""

    def bench_reset(self, reason=None):
        pass


class H4Server(asyncio.Protocol):
    """One TCP port = one controller; one host at a time."""

    HEADER = {0x01: (3, lambda h: h[2]), 0x02: (4, lambda h: h[2] | h[3] << 8), 0x04: (2, lambda h: h[1])}

    def __init__(self, port_state):
        self.state = port_state
        self.transport = None
        self.buffer = bytearray()

    def connection_made(self, transport):
        previous = self.state["current"]
        if previous is not None:
            # The newest host wins: a host that just closed its socket may not have been
            # noticed yet, and a second live host would corrupt the first one's session anyway.
            log.warning("%s: new host replaces the previous one", self.state["controller"].name)
            previous.transport.close()
            previous.transport = None
        self.state["current"] = self
        self.transport = transport
        controller = self.state["controller"]
        controller.bench_reset()
        controller.host = self
        log.info("%s: host connected", controller.name)

    def connection_lost(self, error):
        if self.state["current"] is not self:
            return  # replaced by a newer host, which already reset the controller
        controller = self.state["controller"]
        controller.host = None
        controller.bench_reset()
        self.state["current"] = None
        self.transport = None
        log.info("%s: host gone (%s)", controller.name, error)

    # Packet sink for the controller.
    def on_packet(self, packet):
        if self.transport is not None and self.state["current"] is self:
            self.transport.write(packet)

    def data_received(self, data):
        self.buffer += data
        while self.buffer:
            kind = self.buffer[0]
            if kind not in self.HEADER:
                log.error("bad H4 indicator 0x%02x, dropping the host", kind)
                self.transport.close()
                return
            header_length, body_length = self.HEADER[kind]
            if len(self.buffer) < 1 + header_length:
                return
            total = 1 + header_length + body_length(self.buffer[1 : 1 + header_length])
            if len(self.buffer) < total:
                return
            packet = bytes(self.buffer[:total])
            del self.buffer[:total]
            try:
                self.state["controller"].on_packet(packet)
            except Exception:
                log.exception("controller failed on %s", packet.hex())


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=4, help="number of linked controllers")
    parser.add_argument("--ready-file", required=True, help="where to write the chosen ports (JSON)")
    parser.add_argument("--fragment", type=int, default=27, help="controller->host ACL fragment size")
    parser.add_argument("--stock", action="store_true",
                        help="plain Bumble controllers (no bench fixes; state survives hosts: one run only)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    BenchController.fragment_size = args.fragment
    link = LocalLink()
    loop = asyncio.get_running_loop()
    ports = []
    servers = []
    for index in range(args.count):
        kind = StockController if args.stock else BenchController
        controller = kind(f"C{index}", link=link, public_address=f"00:00:00:00:91:{index:02X}")
        state = {"controller": controller, "current": None}
        server = await loop.create_server(lambda state=state: H4Server(state), "127.0.0.1", 0)
        servers.append(server)
        ports.append(server.sockets[0].getsockname()[1])
    temporary = args.ready_file + ".tmp"
    with open(temporary, "w") as handle:
        json.dump({"ports": ports, "pid": os.getpid()}, handle)
    os.replace(temporary, args.ready_file)
    log.info("controllers listening on %s", ports)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for server in servers:
        server.close()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
