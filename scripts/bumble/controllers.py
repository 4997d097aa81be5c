#!/usr/bin/env python3
"""Linked virtual LE controllers for Harald's integration tests, one process, 127.0.0.1 only.

Starts N Bumble controllers on one LocalLink, each behind its own TCP port speaking H4 to one
host at a time. Writes {"ports": [...]} to --ready-file once every port listens (port 0 = let
the system pick, so parallel runs never collide).

"Bench mode": a small subclass of Bumble's stock Controller fixes the quirks that would make a
host test flaky or hang (see README.md in this folder, "Bench mode, and why"):
  * a host that disconnects from its TCP port, or sends HCI_Reset, really resets the controller:
    its links end (peers see reason 0x08 and the peer host re-advertises), advertising, scanning
    and any pending connection stop. A peer whose process dies therefore disconnects the central.
  * controller->host ACL is fragmented to --fragment bytes (27 by default), as real controllers
    do, so hosts exercise reassembly (stock Bumble sends one packet per whole L2CAP PDU).
  * LE Create Connection Cancel completes the pending attempt with LE Connection Complete 0x02
    (stock Bumble answers success and keeps the attempt forever).
  * one host per port with its own parser: a new host replaces the previous one (stock Bumble
    shares one parser between clients and answers only the last).

Emulations that stock Bumble lacks, each turned on by an option naming the controllers (indices
from 0, comma-separated, or "all"); without the option a controller behaves as above:
  --answer-all    (F5) every command gets an answer: a Command Status command without a handler
                  gets Command Status 0x01 Unknown HCI Command (stock: no answer, the host waits).
  --data-length   (F7/F12) Data Length Extension: LE Read Maximum Data Length 251 octets / 2120 us,
                  suggested default data length kept per host, LE Set Data Length (clamped to
                  27-251 octets, 328-2120 us) answered and followed by LE Data Length Change to
                  both ends when the link's lengths change, links coming up with the lengths both
                  hosts suggested, LE Read Buffer Size 251, and controller->host ACL fragmented to
                  the link's receive length (instead of --fragment).
  --phy           (F6) LE Set PHY: Command Status, then LE PHY Update Complete to the host (and to
                  the peer's host when a PHY changed), honouring both ends' preferences (LE Set
                  Default PHY); LE Read PHY reports the link's PHYs. No speed effect.
  --reports       (F9/F14) advertising reports as a real controller sends them: a legacy scan (LE
                  Set Scan Enable) gets LE Advertising Reports (0x3E/0x02) for legacy advertising
                  only, an extended scan gets LE Extended Advertising Reports (0x3E/0x0D) with the
                  advertiser's event properties (0x13 for a legacy ADV_IND), active scans of a
                  scannable advertiser also get its real scan response data (0x04 / 0x1B), and
                  extended reports longer than one HCI event are split ("more to come").
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


DEFAULT_OCTETS, DEFAULT_TIME = 27, 328  # the link's lengths before any data length procedure
MAX_OCTETS, MAX_TIME = 251, 2120  # what a Data Length Extension controller takes on LE 1M
EMULATIONS = ("answer-all", "data-length", "phy", "reports")
PHY_PREFERENCE = ((0x02, 2), (0x01, 1), (0x04, 3))  # (LE Set PHY bit, PHY): 2M first, then 1M, Coded


def clamp(value, low, high):
    return max(low, min(high, value))


def shorter(first, second):
    """The lengths a direction can carry: (octets, time) each the smaller of the two."""
    return (min(first[0], second[0]), min(first[1], second[1]))


def link_state(connection):
    """What the bench keeps about one end of a link (lengths are (octets, time) pairs)."""
    state = getattr(connection, "bench", None)
    if state is None:
        state = {"tx": (DEFAULT_OCTETS, DEFAULT_TIME), "rx": (DEFAULT_OCTETS, DEFAULT_TIME),
                 "preferred_tx": None, "tx_phy": 1, "rx_phy": 1}
        connection.bench = state
    return state


def phy_preferences(all_phys, tx_phys, rx_phys):
    """(tx, rx) PHY bit masks a host accepts; "no preference" (or none given) accepts every PHY."""
    tx = 0x07 if all_phys & 0x01 or not tx_phys else tx_phys
    rx = 0x07 if all_phys & 0x02 or not rx_phys else rx_phys
    return tx, rx


def choose_phy(ours, theirs, current):
    for bit, phy in PHY_PREFERENCE:
        if ours & bit and theirs & bit:
            return phy
    return current


class BenchController(Controller):
    fragment_size = 27

    def __init__(self, *args, emulations=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.emulations = frozenset(emulations)
        self.scan_is_extended = False
        self.extended_scan_is_active = False
        if self.emulates("data-length"):
            self.supported_max_tx_octets = self.supported_max_rx_octets = MAX_OCTETS
            self.supported_max_tx_time = self.supported_max_rx_time = MAX_TIME
            self.le_acl_data_packet_length = MAX_OCTETS

    def emulates(self, emulation):
        return emulation in self.emulations

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
        self.scan_is_extended = False
        self.extended_scan_is_active = False
        self.suggested_max_tx_octets = DEFAULT_OCTETS
        self.suggested_max_tx_time = DEFAULT_TIME
        self.default_phy = {"all_phys": 0, "tx_phys": 0, "rx_phys": 0}
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

    # --- F5: an answer for every command ------------------------------------------------------

    def on_hci_command_packet(self, command):
        if not self.emulates("answer-all") or isinstance(command, hci.HCI_SyncCommand):
            return super().on_hci_command_packet(command)
        handler = getattr(self, f"on_{command.name.lower()}", self.on_hci_command)
        result = handler(command)
        if result is None:
            return  # an asynchronous handler sends its own Command Status
        # Stock Bumble drops these: a Command Status command without a handler of its own (or one
        # whose handler returns parameters and does nothing), or an opcode it does not know.
        status = getattr(result, "status", 0) or hci.HCI_ErrorCode.UNKNOWN_HCI_COMMAND_ERROR
        if isinstance(command, hci.HCI_AsyncCommand):
            self._send_hci_command_status(status, command.op_code)
        else:
            self.send_hci_packet(hci.HCI_Command_Complete_Event(
                num_hci_command_packets=1, command_opcode=command.op_code,
                return_parameters=hci.HCI_StatusReturnParameters(status)))

    # --- connections ----------------------------------------------------------------------------

    def bench_peer(self, connection):
        """(controller, connection) of the other end of a link, or None once it is gone."""
        other = self.link.find_le_controller(connection.peer_address)
        if other is None or other is self:
            return None
        other_connection = other.le_connections.get(connection.self_address)
        return (other, other_connection) if other_connection is not None else None

    def create_le_connection(self, peer_address):
        pending = self.pending_le_connection
        super().create_le_connection(peer_address)
        connection = self.le_connections.get(pending.peer_address) if pending else None
        if connection is not None and self.emulates("data-length"):
            # After the peer has handled CONNECT_IND (queued before this), as a real link layer
            # starts its data length procedure right after the connection is established.
            asyncio.get_running_loop().call_soon(self.bench_update_data_length, connection)

    def on_le_connect_ind(self, packet):
        before = self.le_connections.get(packet.initiator_address)
        super().on_le_connect_ind(packet)
        connection = self.le_connections.get(packet.initiator_address)
        if connection is not None and connection is not before and self.emulates("data-length"):
            asyncio.get_running_loop().call_soon(self.bench_update_data_length, connection)

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

    # --- F7/F12: Data Length Extension ------------------------------------------------------------

    def bench_receive_limit(self):
        return (MAX_OCTETS, MAX_TIME) if self.emulates("data-length") else (DEFAULT_OCTETS, DEFAULT_TIME)

    def bench_preferred_tx(self, connection):
        """What this end wants to send per packet: its host's LE Set Data Length, else its suggested default."""
        if not self.emulates("data-length"):
            return (DEFAULT_OCTETS, DEFAULT_TIME)
        preferred = link_state(connection)["preferred_tx"]
        if preferred is not None:
            return preferred
        return (clamp(self.suggested_max_tx_octets, DEFAULT_OCTETS, MAX_OCTETS),
                clamp(self.suggested_max_tx_time, DEFAULT_TIME, MAX_TIME))

    def bench_update_data_length(self, connection):
        """The link layer's data length procedure: each direction carries what its sender wants
        and its receiver takes; both hosts hear of a change (LE Data Length Change)."""
        if self.le_connections.get(connection.peer_address) is not connection:
            return  # the link ended meanwhile
        peer = self.bench_peer(connection)
        if peer is None:
            return
        other, other_connection = peer
        def receive_limit(controller):
            return controller.bench_receive_limit() if isinstance(controller, BenchController) else (DEFAULT_OCTETS, DEFAULT_TIME)
        def preferred_tx(controller, end):
            return controller.bench_preferred_tx(end) if isinstance(controller, BenchController) else (DEFAULT_OCTETS, DEFAULT_TIME)
        forward = shorter(preferred_tx(self, connection), receive_limit(other))
        backward = shorter(preferred_tx(other, other_connection), receive_limit(self))
        for controller, end, tx, rx in ((self, connection, forward, backward), (other, other_connection, backward, forward)):
            state = link_state(end)
            if (state["tx"], state["rx"]) == (tx, rx):
                continue
            state["tx"], state["rx"] = tx, rx
            controller.send_hci_packet(hci.HCI_LE_Data_Length_Change_Event(
                connection_handle=end.handle, max_tx_octets=tx[0], max_tx_time=tx[1],
                max_rx_octets=rx[0], max_rx_time=rx[1]))

    def on_hci_le_set_data_length_command(self, command):
        if not self.emulates("data-length"):
            return self.on_hci_command(command)  # stock: Unknown HCI Command
        connection = self.find_le_connection_by_handle(command.connection_handle)
        if connection is None:
            return hci.HCI_StatusAndConnectionHandleReturnParameters(
                hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR, command.connection_handle)
        link_state(connection)["preferred_tx"] = (clamp(command.tx_octets, DEFAULT_OCTETS, MAX_OCTETS),
                                                  clamp(command.tx_time, DEFAULT_TIME, MAX_TIME))
        # Command Complete (sent when this returns) comes before the Data Length Change.
        asyncio.get_running_loop().call_soon(self.bench_update_data_length, connection)
        return hci.HCI_StatusAndConnectionHandleReturnParameters(hci.HCI_ErrorCode.SUCCESS, command.connection_handle)

    # --- F6: PHY update -----------------------------------------------------------------------------

    def bench_default_phys(self):
        """(tx, rx) PHY masks this end accepts when its peer asks (its host's LE Set Default PHY)."""
        if not self.emulates("phy"):
            return 0x01, 0x01
        return phy_preferences(self.default_phy["all_phys"], self.default_phy["tx_phys"], self.default_phy["rx_phys"])

    def on_hci_le_set_phy_command(self, command):
        if not self.emulates("phy"):
            return self.on_hci_command(command)  # stock: no handler (answered with --answer-all)
        connection = self.find_le_connection_by_handle(command.connection_handle)
        if connection is None:
            self._send_hci_command_status(hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR, command.op_code)
            return None
        self._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
        tx, rx = phy_preferences(command.all_phys, command.tx_phys, command.rx_phys)
        asyncio.get_running_loop().call_soon(self.bench_update_phy, connection, tx, rx)
        return None

    def bench_update_phy(self, connection, tx_wanted, rx_wanted):
        if self.le_connections.get(connection.peer_address) is not connection:
            return
        peer = self.bench_peer(connection)
        state = link_state(connection)
        other_tx, other_rx = (peer[0].bench_default_phys() if peer and isinstance(peer[0], BenchController)
                              else (0x01, 0x01))
        tx = choose_phy(tx_wanted, other_rx, state["tx_phy"])
        rx = choose_phy(rx_wanted, other_tx, state["rx_phy"])
        changed = (tx, rx) != (state["tx_phy"], state["rx_phy"])
        state["tx_phy"], state["rx_phy"] = tx, rx
        self.send_hci_packet(hci.HCI_LE_PHY_Update_Complete_Event(
            status=hci.HCI_ErrorCode.SUCCESS, connection_handle=connection.handle, tx_phy=tx, rx_phy=rx))
        if changed and peer is not None:
            other, other_connection = peer
            other_state = link_state(other_connection)
            other_state["tx_phy"], other_state["rx_phy"] = rx, tx
            other.send_hci_packet(hci.HCI_LE_PHY_Update_Complete_Event(
                status=hci.HCI_ErrorCode.SUCCESS, connection_handle=other_connection.handle, tx_phy=rx, rx_phy=tx))

    def on_hci_le_read_phy_command(self, command):
        if not self.emulates("phy"):
            return super().on_hci_le_read_phy_command(command)
        connection = self.find_le_connection_by_handle(command.connection_handle)
        if connection is None:
            return hci.HCI_LE_Read_PHY_ReturnParameters(
                status=hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR,
                connection_handle=command.connection_handle, tx_phy=hci.HCI_LE_1M_PHY, rx_phy=hci.HCI_LE_1M_PHY)
        state = link_state(connection)
        return hci.HCI_LE_Read_PHY_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS, connection_handle=command.connection_handle,
            tx_phy=state["tx_phy"], rx_phy=state["rx_phy"])

    # --- F9/F14: advertising reports ------------------------------------------------------------------

    def on_hci_le_set_scan_enable_command(self, command):
        self.scan_is_extended = False
        return super().on_hci_le_set_scan_enable_command(command)

    def on_hci_le_set_extended_scan_parameters_command(self, command):
        self.extended_scan_is_active = any(scan_type == 1 for scan_type in command.scan_types)
        return super().on_hci_le_set_extended_scan_parameters_command(command)

    def on_hci_le_set_extended_scan_enable_command(self, command):
        self.scan_is_extended = True
        return super().on_hci_le_set_extended_scan_enable_command(command)

    def bench_advertiser(self, pdu):
        """(event properties, scan response data) of the advertising that sent `pdu`: properties as
        in LE Set Extended Advertising Parameters (bit 0 connectable, 1 scannable, 2 directed,
        4 legacy PDUs)."""
        controller = self.link.find_le_controller(pdu.advertiser_address)
        if isinstance(pdu, ll.AdvInd):
            advertiser = getattr(controller, "le_legacy_advertiser", None)
            if advertiser is not None and advertiser.enabled and advertiser.address == pdu.advertiser_address:
                return 0x13, bytes(advertiser.scan_response_data)
            return 0x13, b""  # an ADV_IND whose advertiser is unknown: connectable and scannable
        for advertising_set in list(getattr(controller, "advertising_sets", {}).values()):
            if (advertising_set.enabled and advertising_set.parameters is not None
                    and advertising_set.address == pdu.advertiser_address
                    and advertising_set.parameters.advertising_sid == pdu.sid):
                return int(advertising_set.parameters.advertising_event_properties), bytes(advertising_set.scan_response_data)
        return 0x01, b""

    def bench_send_reports(self, pdu):
        properties, scan_response = self.bench_advertiser(pdu)
        legacy = bool(properties & 0x10)
        scannable = bool(properties & 0x02)
        direct_address = getattr(pdu, "target_address", None)
        address = pdu.advertiser_address
        if not self.scan_is_extended:
            if not legacy:
                return  # a legacy scanner cannot see extended advertising PDUs
            if properties & 0x04:
                event_type = hci.HCI_LE_Advertising_Report_Event.EventType.ADV_DIRECT_IND
            elif properties & 0x01:
                event_type = hci.HCI_LE_Advertising_Report_Event.EventType.ADV_IND
            elif scannable:
                event_type = hci.HCI_LE_Advertising_Report_Event.EventType.ADV_SCAN_IND
            else:
                event_type = hci.HCI_LE_Advertising_Report_Event.EventType.ADV_NONCONN_IND
            reports = [(event_type, bytes(pdu.data))]
            if scannable and self.le_scan_type == 1:
                reports.append((hci.HCI_LE_Advertising_Report_Event.EventType.SCAN_RSP, scan_response))
            for event_type, data in reports:
                self.send_hci_packet(hci.HCI_LE_Advertising_Report_Event([hci.HCI_LE_Advertising_Report_Event.Report(
                    event_type=event_type, address_type=address.address_type, address=address,
                    data=data[:31], rssi=-50)]))
            return
        event_type = properties & (0x17 if legacy else 0x07)
        reports = [(event_type, bytes(pdu.data))]
        if scannable and self.extended_scan_is_active:
            reports.append((event_type & 0x13 | 0x08, scan_response))
        sid = 0xFF if legacy else getattr(pdu, "sid", 0)
        for event_type, data in reports:
            # An HCI event holds 229 bytes of report data; longer data is split, "more to come".
            chunks = [data[offset:offset + 229] for offset in range(0, len(data), 229)] or [b""]
            for index, chunk in enumerate(chunks):
                status = 0x00 if index == len(chunks) - 1 else 0x01
                self.send_hci_packet(hci.HCI_LE_Extended_Advertising_Report_Event([
                    hci.HCI_LE_Extended_Advertising_Report_Event.Report(
                        event_type=event_type | status << 5, address_type=address.address_type, address=address,
                        primary_phy=hci.Phy.LE_1M, secondary_phy=0 if legacy else hci.Phy.LE_1M,
                        advertising_sid=sid, tx_power=0x7F, rssi=-50, periodic_advertising_interval=0,
                        direct_address_type=direct_address.address_type if direct_address else 0,
                        direct_address=direct_address or hci.Address.ANY, data=chunk)]))

    def on_advertising_pdu(self, pdu):
        if not self.emulates("reports"):
            return super().on_advertising_pdu(pdu)
        scanning = self.le_scan_enable
        if scanning:
            self.bench_send_reports(pdu)
        # The stock handler still does periodic advertising sync and connection creation.
        self.le_scan_enable = False
        try:
            super().on_advertising_pdu(pdu)
        finally:
            self.le_scan_enable = scanning

    # --- F8: controller->host ACL fragmentation -------------------------------------------------------

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
        size = link_state(connection)["rx"][0] if self.emulates("data-length") else self.fragment_size
        size = max(1, size)
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


def selected(text, count, option):
    """Controller indices named by an emulation option ("", "all" or "0,3,15")."""
    if not text:
        return set()
    if text == "all":
        return set(range(count))
    try:
        indices = {int(part) for part in text.split(",")}
    except ValueError:
        sys.exit(f"--{option}: expected controller indices such as 0,15 or 'all', got {text!r}")
    if not all(0 <= index < count for index in indices):
        sys.exit(f"--{option}: indices must be 0...{count - 1}, got {text!r}")
    return indices


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=4, help="number of linked controllers")
    parser.add_argument("--ready-file", required=True, help="where to write the chosen ports (JSON)")
    parser.add_argument("--fragment", type=int, default=27, help="controller->host ACL fragment size")
    parser.add_argument("--stock", action="store_true",
                        help="plain Bumble controllers (no bench fixes; state survives hosts: one run only)")
    for emulation in EMULATIONS:
        parser.add_argument(f"--{emulation}", metavar="INDICES", default="",
                            help='controllers (indices from 0, comma-separated, or "all") with this emulation; '
                                 "see the module's documentation")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    BenchController.fragment_size = args.fragment
    link = LocalLink()
    loop = asyncio.get_running_loop()
    ports = []
    servers = []
    chosen = {emulation: selected(getattr(args, emulation.replace("-", "_")), args.count, emulation)
              for emulation in EMULATIONS}
    if args.stock and any(chosen.values()):
        parser.error("the emulations need bench mode (drop --stock)")
    for index in range(args.count):
        name, address = f"C{index}", f"00:00:00:00:91:{index:02X}"
        if args.stock:
            controller = StockController(name, link=link, public_address=address)
        else:
            emulations = [emulation for emulation in EMULATIONS if index in chosen[emulation]]
            controller = BenchController(name, link=link, public_address=address, emulations=emulations)
            if emulations:
                log.info("%s emulates %s", name, ", ".join(emulations))
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
