"""What the Bumble peers steered by Harald's integration tests share: the attackers
(attack_smp.py, attack_bonds.py, attack_bonds_central.py, attack_protected_value.py) and the
central that checks `harald serve` (serve_check.py). Imported from the same directory.

  say(line)                    one line on stdout, flushed (the tests and scripts/integration read it)
  advertising_data(name, ...)  Flags (LE General Discoverable, no BR/EDR) + fields + Complete Local Name
  AcceptingDelegate            a pairing delegate that says yes to everything and, when a passkey is
                               needed, shows or types the one it was given
  serve_control(handler, port) the JSON-lines control socket: one request object a line, answered by
                               {"ok": true, ...handler's answer} or {"ok": false, "error": ...}
  run_peer(...)                opens the transport, makes the device, starts the control socket,
                               powers on, advertises (peripherals), prints READY, serves until killed
  find_by_name, connect_and_discover, read_raw   a central's first steps towards a device
  main(coroutine)              asyncio.run, and a quiet exit on Ctrl-C
"""
import asyncio
import json
import logging
import sys

from bumble import att, hci
from bumble.core import AdvertisingData, UUID
from bumble.device import Device, Peer
from bumble.pairing import PairingDelegate
from bumble.transport import open_transport


def say(line):
    print(line, flush=True)


def ad(kind, data):
    """One advertising data structure: length, AD type, data."""
    return bytes([len(data) + 1, kind]) + data


def advertising_data(name, *fields):
    """Flags 0x06, then `fields` (already encoded with `ad`), then the Complete Local Name."""
    data = ad(0x01, bytes([0x06])) + b"".join(fields) + ad(0x09, name.encode())
    assert len(data) <= 31, f"{len(data)} octets of advertising data"
    return data


class AcceptingDelegate(PairingDelegate):
    """Accepts every pairing and confirms every number. As a keyboard it types `passkey`; as a
    display it shows `passkey` (a line DISPLAY nnnnnn). `key_size` is the Maximum Encryption Key
    Size its Pairing Request or Response offers."""

    def __init__(self, io=PairingDelegate.NO_OUTPUT_NO_INPUT, passkey=0, key_size=16):
        super().__init__(io_capability=io, maximum_encryption_key_size=key_size)
        self.passkey = passkey

    async def accept(self):
        return True

    async def compare_numbers(self, number, digits):
        return True

    async def get_number(self):
        return self.passkey

    async def generate_passkey(self):
        return self.passkey

    async def display_number(self, number, digits):
        say(f"DISPLAY {number:06d}")


async def serve_control(handler, port=0):
    """Serves the control socket on 127.0.0.1:`port` (0: any free port), printing CONTROL <port>.
    `handler` is an async function from the request object to the answer's fields; what it raises
    goes back to the test as the error, which fails the test with it."""

    async def client(reader, writer):
        while line := await reader.readline():
            try:
                answer = {"ok": True, **await handler(json.loads(line))}
            except (asyncio.CancelledError, Exception) as error:  # reported to the test
                # Bumble cancels what waits on a link that went down (CancelledError); the test
                # hears of it rather than wait for an answer that never comes. Only a
                # cancellation of this task itself goes on.
                if isinstance(error, asyncio.CancelledError) and asyncio.current_task().cancelling():
                    raise
                answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
            writer.write((json.dumps(answer) + "\n").encode())
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(client, "127.0.0.1", port)
    say(f"CONTROL {server.sockets[0].getsockname()[1]}")
    return server


async def run_peer(transport_name, address, name, make, control_port=0, advertising=None, log_level=logging.WARNING):
    """The life of a steered peer: `make(device)` builds it (an object with an async
    `control(request)`), the control socket starts, the device powers on and, given `advertising`
    data, advertises (again after each connection); prints READY <address> and serves until its
    transport closes or the process is stopped."""
    logging.basicConfig(level=log_level)
    async with await open_transport(transport_name) as transport:
        device = Device.with_hci(name, hci.Address(address), transport.source, transport.sink)
        device.name = name
        peer = make(device)
        _server = await serve_control(peer.control, control_port)
        await device.power_on()
        if advertising is not None:
            await device.start_advertising(advertising_data=advertising, auto_restart=True)
        say(f"READY {address}")
        await transport.source.wait_for_termination()


def main(coroutine):
    try:
        return asyncio.run(coroutine)
    except KeyboardInterrupt:
        sys.exit(0)


async def find_by_name(device, name, timeout=15.0):
    """The address of the first device advertising `name` (Complete Local Name), by an active scan."""
    found = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement):
        local = advertisement.data.get(AdvertisingData.COMPLETE_LOCAL_NAME)
        if isinstance(local, (bytes, bytearray)):
            local = bytes(local).decode(errors="replace")
        if local == name and not found.done():
            found.set_result(advertisement.address)

    device.on("advertisement", on_advertisement)
    await device.start_scanning(active=True)
    try:
        return await asyncio.wait_for(found, timeout)
    finally:
        device.remove_listener("advertisement", on_advertisement)
        await device.stop_scanning()


async def connect_and_discover(device, name, timeout=15.0, on_connection=None):
    """Finds the device advertising `name`, connects from our random address and discovers its
    services and their characteristics: (address, connection, peer). `on_connection(address,
    connection)` runs first, before any request (to watch everything the device sends)."""
    address = await find_by_name(device, name, timeout)
    connection = await device.connect(address, own_address_type=hci.OwnAddressType.RANDOM, timeout=timeout)
    if on_connection is not None:
        on_connection(address, connection)
    peer = Peer(connection)
    await peer.discover_services()
    for service in peer.services:
        await service.discover_characteristics()
    return address, connection, peer


def characteristic(peer, uuid):
    """The first discovered characteristic with `uuid` (a bumble UUID), or None."""
    return next((c for service in peer.services for c in service.characteristics if c.uuid == uuid), None)


def parse_uuid(text):
    """A bumble UUID from 16-bit hex (`2A37`) or a full UUID string."""
    return UUID.from_16_bits(int(text, 16)) if len(text) <= 4 else UUID(text)


async def att_request(client, pdu):
    """Sends a raw ATT request, bypassing Bumble's GATT client checks: (status, response), status
    "ok" or the ATT error code as 0xNN."""
    response = await client.send_request(pdu)
    if response.op_code == att.Opcode.ATT_ERROR_RESPONSE:
        return f"0x{response.error_code:02X}", response
    return "ok", response


async def read_raw(connection, handle):
    """A raw ATT Read Request of `handle`: {"status": "ok", "value": hex} or {"status": "0xNN"}."""
    status, response = await att_request(connection.gatt_client, att.ATT_Read_Request(attribute_handle=handle))
    if status == "ok":
        return {"status": status, "value": bytes(response.attribute_value).hex()}
    return {"status": status}
