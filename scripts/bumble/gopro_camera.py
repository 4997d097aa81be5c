"""The `gopro` kind of peer.py: a GoPro-like camera speaking the Open GoPro BLE protocol.

Service 0xFEA6 with the three request characteristics (GP-0072 command, GP-0074 settings,
GP-0076 query; write) and their response characteristics (GP-0073, GP-0075, GP-0077; notify).
Requests are reassembled from Open GoPro packets (any header, continuation packets included);
every answer is a TLV message cut into packets of at most 20 bytes: a General (5-bit) header when
the whole message fits one packet, an Extended 13-bit header otherwise, continuation packets with
the 4-bit counter. So Get Hardware Info goes out as the 6 packets of the Open GoPro tutorial and
Get All Statuses as 20 packets whose counter wraps, as the real camera sends them.

Commands: 0x01 shutter (starts/stops "encoding", status 10, and "busy", status 8; while encoding,
status 13 — video progress — rises and status 35 — video time left — falls once a second), 0x05 sleep,
0x17 AP control, 0x18 hilight, 0x3C Get Hardware Info, 0x3E load preset group, 0x51 Open GoPro
version. A known command with a bad parameter answers status 2 (invalid parameter), an unknown
command status 1 (error). Settings: the ones in SETTINGS, each with its allowed values; keep-alive
(setting 0x5B = 0x42); at 5K (resolution 24) only 60/30/24 fps are allowed. Queries: 0x12/0x13
get settings/statuses (all when no ids), 0x32 setting capabilities, 0x52/0x53/0x62 register
(answers the current values or capabilities), 0x72/0x73/0x82 unregister; registered connections
get 0x92 (setting), 0x93 (status) and 0xA2 (capability) pushes when a value changes.

With `encrypted` (peer.py gopro --encrypted), as on a real camera, the request characteristics
can only be written, and the response characteristics' notifications only switched on (their
CCCDs written), over an encrypted link: ATT error 0x0F until the central pairs or re-encrypts.
"""
import asyncio
import logging

from bumble import att
from bumble.core import UUID
from bumble.gatt import GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR, Characteristic, CharacteristicValue, Service


def gp(short):
    return f"B5F9{short:04X}-AA8D-11E3-9046-0002A5D5C51B"


SERVICE = "FEA6"
COMMAND, COMMAND_RESPONSE = gp(0x72), gp(0x73)
SETTINGS, SETTINGS_RESPONSE = gp(0x74), gp(0x75)
QUERY, QUERY_RESPONSE = gp(0x76), gp(0x77)
PACKET_SIZE = 20

SUCCESS, ERROR, INVALID_PARAMETER = 0, 1, 2

# Get Hardware Info as a HERO12 Black answers it (Open GoPro tutorial 3): 98 bytes after the header.
HARDWARE_INFO = bytes.fromhex(
    "3c00040000003e0c4845524f313220426c61636b04307830350f4832332e30312e30312e39392e35360e4333353031"
    "333234353030373032114845524f313220426c61636b64656275670c323637346637663636313034010001010100025b5d0101")
# The statuses of a real camera (Open GoPro SDK test_complex_write_command): 88 TLV triplets.
ALL_STATUSES = bytes.fromhex(
    "0101010201040301000401ff0601000801000901000a01000b01000d04000000000e0400000000110101130103140101"
    "150400003ea41601001701001801001a01001b01001c01521d001e0a475032343530303435361f010020010121010022"
    "0400000873230400000fd624040000004025040000003526040000004027040000003528122531422530342530362530"
    "372533312530442901002a01002d0100310400000000360800000000019582603701013801013904006e2f813a01003b"
    "04000000003c04000001f43d01023e04000000003f01004004000004394101004201644301644401004501014601354a"
    "01004b01004c01014d01014e01004f010051010152010153010155010056010058010059010c5a01015b01005d040000"
    "00025e04000100005f04000200006004000003e861040000000262040100000263040000054764040000000065010066"
    "01006701006801016901006a01006b04ffffffff6c01006d01006e0100710100")
# Settings with their allowed values: resolution (2), frames per second (3), lens (121),
# auto power down (59), and the LED (91, whose value 0x42 is the keep-alive).
SETTINGS_ALLOWED = {
    2: [1, 4, 6, 7, 9, 18, 24, 25, 26, 27, 28, 100, 107, 108, 109, 110, 111],
    3: [0, 1, 2, 5, 6, 8, 9, 10, 13],
    59: [0, 1, 4, 6, 7, 11, 12],
    91: [0, 2, 3, 4, 0x42],
    121: [0, 2, 3, 4, 7, 8, 9, 10],
}
KEEP_ALIVE_SETTING = 0x5B
FRAMES_PER_SECOND_AT_5K = [5, 8, 10]  # at resolution 24 (5K): 60, 30, 24 fps only


def parse_tlv(data):
    values, index = {}, 0
    while index + 2 <= len(data):
        length = data[index + 1]
        values[data[index]] = data[index + 2:index + 2 + length]
        index += 2 + length
    assert index == len(data), "malformed TLV table"
    return values


def tlv(values):
    return b"".join(bytes([key, len(value)]) + value for key, value in values)


def fragment(message):
    """Open GoPro packets of at most 20 bytes for one message."""
    if len(message) <= PACKET_SIZE - 1:
        return [bytes([len(message)]) + message]
    if len(message) <= 8191:
        header = bytes([0x20 | (len(message) >> 8), len(message) & 0xFF])
    else:
        header = bytes([0x40, len(message) >> 8, len(message) & 0xFF])
    first = PACKET_SIZE - len(header)
    packets = [header + message[:first]]
    for counter, start in enumerate(range(first, len(message), PACKET_SIZE - 1)):
        packets.append(bytes([0x80 | (counter & 0x0F)]) + message[start:start + PACKET_SIZE - 1])
    return packets


class Assembler:
    """Reassembles one characteristic's packets into messages; None until a message completes."""

    def __init__(self):
        self.message, self.remaining = None, 0

    def add(self, packet):
        if not packet:
            raise ValueError("empty packet")
        header = packet[0]
        if header & 0x80:
            if self.message is None:
                raise ValueError("continuation without a start")
            body = packet[1:]
        else:
            kind = (header >> 5) & 0x03
            if kind == 0:
                self.remaining, body = header & 0x1F, packet[1:]
            elif kind == 1 and len(packet) >= 2:
                self.remaining, body = ((header & 0x1F) << 8) | packet[1], packet[2:]
            elif kind == 2 and len(packet) >= 3:
                self.remaining, body = (packet[1] << 8) | packet[2], packet[3:]
            else:
                self.message = None
                raise ValueError(f"bad header {header:02X}")
            self.message = b""
        if len(body) > self.remaining:
            self.message = None
            raise ValueError("more bytes than announced")
        self.message += body
        self.remaining -= len(body)
        if self.remaining == 0:
            done, self.message = self.message, None
            return done
        return None


class Camera:
    """The camera's state (shared by every connection) and its protocol."""

    def __init__(self, device, boot_polls=0, encrypted=False):
        self.device = device
        self.encrypted = encrypted
        # Get Hardware Info is refused (status error) this many times per connection, as a camera
        # that is still booting does; the readiness flow must poll through it.
        self.boot_polls = boot_polls
        self.statuses = parse_tlv(ALL_STATUSES)
        self.settings = {2: bytes([9]), 3: bytes([0]), 59: bytes([4]), 91: bytes([3]), 121: bytes([0])}
        self.connections = {}  # connection -> {"lock", "assemblers", "statuses", "settings"}
        self.responses = {}

    def build(self):
        def request(uuid, answer_uuid, handler):
            async def on_write(connection, value):
                await self.on_packet(connection, uuid, answer_uuid, handler, bytes(value))
            permissions = "WRITEABLE,WRITE_REQUIRES_ENCRYPTION" if self.encrypted else "WRITEABLE"
            return Characteristic(uuid, Characteristic.Properties.WRITE, permissions, CharacteristicValue(write=on_write))

        for uuid in (COMMAND_RESPONSE, SETTINGS_RESPONSE, QUERY_RESPONSE):
            self.responses[uuid] = Characteristic(uuid, Characteristic.Properties.NOTIFY, "READABLE", b"")
        self.device.on("connection", self.on_connection)
        return Service(SERVICE, [
            request(COMMAND, COMMAND_RESPONSE, self.command), self.responses[COMMAND_RESPONSE],
            request(SETTINGS, SETTINGS_RESPONSE, self.setting), self.responses[SETTINGS_RESPONSE],
            request(QUERY, QUERY_RESPONSE, self.query), self.responses[QUERY_RESPONSE],
        ])

    def on_connection(self, connection):
        self.connections[connection] = {
            "lock": asyncio.Lock(), "assemblers": {}, "statuses": set(), "settings": set(), "capabilities": set(),
            "booting": self.boot_polls}
        connection.on("disconnection", lambda reason: self.connections.pop(connection, None))

    async def send(self, connection, uuid, message):
        state = self.connections.get(connection)
        if state is None:
            return
        async with state["lock"]:  # one whole message at a time: packets of two never interleave
            for packet in fragment(message):
                try:
                    await self.device.notify_subscriber(connection, self.responses[uuid], packet)
                except Exception as error:  # the link just went away
                    logging.debug("notify failed: %s", error)
                    return

    async def on_packet(self, connection, uuid, answer_uuid, handler, packet):
        state = self.connections.get(connection)
        if state is None:
            return
        assembler = state["assemblers"].setdefault(uuid, Assembler())
        try:
            message = assembler.add(packet)
        except ValueError as error:
            logging.warning("malformed request packet on %s: %s", uuid, error)
            return
        if message is None:
            return
        answer = handler(connection, message)
        if answer is not None:
            await self.send(connection, answer_uuid, answer)

    # Commands (GP-0072 -> GP-0073)

    def command(self, connection, message):
        if not message:
            return bytes([0, ERROR])
        command_id, parameters = message[0], message[1:]
        if command_id == 0x01:
            if parameters not in (b"\x01\x00", b"\x01\x01"):
                return bytes([command_id, INVALID_PARAMETER])
            self.set_encoding(parameters[1] == 1)
            return bytes([command_id, SUCCESS])
        if command_id == 0x3C:
            state = self.connections.get(connection)
            if state is not None and state["booting"] > 0:
                state["booting"] -= 1
                return bytes([command_id, ERROR])
            return HARDWARE_INFO
        if command_id == 0x51:
            return bytes([0x51, SUCCESS, 0x01, 0x02, 0x01, 0x00])
        if command_id in (0x05, 0x17, 0x18, 0x3E):
            return bytes([command_id, SUCCESS])
        return bytes([command_id, ERROR])

    def set_encoding(self, on):
        changes = {}
        if self.statuses[10] != bytes([int(on)]):
            changes[10] = bytes([int(on)])
            changes[8] = bytes([int(on)])  # busy while recording
            if on:
                changes[13] = bytes(4)  # seconds recorded, from zero
        self.update_statuses(changes)

    def tick(self):
        """One second of camera time: a recording grows, the remaining video time shrinks."""
        if self.statuses[10] != b"\x01":
            return
        recorded = int.from_bytes(self.statuses[13], "big") + 1
        left = max(0, int.from_bytes(self.statuses[35], "big") - 1)
        self.update_statuses({13: recorded.to_bytes(4, "big"), 35: left.to_bytes(4, "big")})

    def update_statuses(self, changes):
        changes = {key: value for key, value in changes.items() if self.statuses.get(key) != value}
        self.statuses.update(changes)
        self.push(0x93, "statuses", changes)

    def push(self, push_id, kind, changes):
        for connection, state in list(self.connections.items()):
            wanted = [(key, value) for key, value in sorted(changes.items()) if key in state[kind]]
            if wanted:
                asyncio.ensure_future(self.send(connection, QUERY_RESPONSE, bytes([push_id, SUCCESS]) + tlv(wanted)))

    # Settings (GP-0074 -> GP-0075)

    def allowed(self, setting_id):
        if setting_id == 3 and self.settings.get(2) == bytes([24]):
            return FRAMES_PER_SECOND_AT_5K
        return SETTINGS_ALLOWED.get(setting_id)

    def setting(self, connection, message):
        if len(message) < 2:
            return bytes([message[0] if message else 0, ERROR])
        setting_id, length, value = message[0], message[1], message[2:]
        if length != len(value) or setting_id not in SETTINGS_ALLOWED:
            return bytes([setting_id, ERROR])
        if len(value) != 1 or value[0] not in self.allowed(setting_id):
            return bytes([setting_id, INVALID_PARAMETER])
        if setting_id != KEEP_ALIVE_SETTING and self.settings.get(setting_id) != value:
            rates_before = self.allowed(3)
            self.settings[setting_id] = value
            self.push(0x92, "settings", {setting_id: value})
            if self.allowed(3) != rates_before:
                self.push_capabilities(3)
        return bytes([setting_id, SUCCESS])

    def push_capabilities(self, setting_id):
        """0xA2 to connections registered for `setting_id`'s capabilities: its allowed values."""
        for connection, state in list(self.connections.items()):
            if setting_id in state["capabilities"]:
                message = bytes([0xA2, SUCCESS]) + tlv((setting_id, bytes([value])) for value in self.allowed(setting_id))
                asyncio.ensure_future(self.send(connection, QUERY_RESPONSE, message))

    # Queries (GP-0076 -> GP-0077)

    def query(self, connection, message):
        if not message:
            return bytes([0, ERROR])
        query_id, ids = message[0], list(message[1:])
        state = self.connections[connection]
        table, kind = (self.settings, "settings") if query_id in (0x12, 0x52, 0x72) else (self.statuses, "statuses")
        if query_id in (0x12, 0x13, 0x52, 0x53):
            ids = ids or sorted(table)
            if query_id in (0x52, 0x53):
                state[kind].update(ids)
            return bytes([query_id, SUCCESS]) + tlv((key, table.get(key, b"")) for key in ids)
        if query_id in (0x72, 0x73):
            state[kind].difference_update(ids or list(state[kind]))
            return bytes([query_id, SUCCESS])
        if query_id in (0x32, 0x62):
            ids = ids or sorted(SETTINGS_ALLOWED)
            if query_id == 0x62:
                state["capabilities"].update(ids)
            return bytes([query_id, SUCCESS]) + tlv(
                (key, bytes([value])) for key in ids for value in (self.allowed(key) or []))
        if query_id == 0x82:
            state["capabilities"].difference_update(ids or list(state["capabilities"]))
            return bytes([query_id, SUCCESS])
        return bytes([query_id, ERROR])


def build_camera(device, boot_polls=0, encrypted=False):
    """Adds the camera's service to `device`; returns its background tasks (the camera's clock).
    `boot_polls`: Get Hardware Info answers with status error that many times per connection.
    `encrypted`: requests and notification switches need an encrypted link."""
    camera = Camera(device, boot_polls, encrypted)
    device.add_services([camera.build()])
    if encrypted:
        # Bumble adds each CCCD itself, readable and writable by anyone: make writing it need
        # encryption too, so subscribing to a response characteristic is refused with 0x0F.
        for uuid in (COMMAND_RESPONSE, SETTINGS_RESPONSE, QUERY_RESPONSE):
            cccd = device.gatt_server.get_descriptor_attribute(
                UUID(SERVICE), UUID(uuid), GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR)
            assert cccd is not None, f"no CCCD for {uuid}"
            cccd.permissions |= att.Attribute.WRITE_REQUIRES_ENCRYPTION

    async def clock():
        while True:
            await asyncio.sleep(1.0)
            camera.tick()

    return [clock]
