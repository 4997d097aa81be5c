"""Ways for a Bumble GATT server to break the ATT/GATT rules on purpose, for the strict-ATT suite
(Tests/HaraldHCIBackendTests/StrictATTBumbleIntegrationTests.swift).

`Misbehavior.install(server)` wraps the server's request dispatch: while a mode is set, the
requests that mode concerns get a hand-made answer instead of Bumble's, every other request is
served as usual. Modes (the request they answer, and how):

  oversized_read                  Read Request: a Read Response one byte longer than ATT_MTU
  overlapping_services            primary services: groups 0x0001-0x0010 and 0x0008-0x0020
  decreasing_services             primary services: groups 0x0020-0x0030, then 0x0010-0x0015
  service_outside_range           primary services: 0x0001-0x0005 first; the next request (from
                                  0x0006) gets a group starting at 0x0003
  zero_handle_service             primary services: a group 0x0000-0x0005
  decreasing_characteristics      first characteristic discovery: declarations at S+3, then S+1
                                  (S: the requested start)
  characteristic_outside_range    first characteristic discovery: a declaration at E+1 (E: the
                                  requested end)
  zero_handle_characteristic      first characteristic discovery: a declaration at 0x0000
  value_handle_mismatch           first characteristic discovery: a declaration at S+1 whose value
                                  handle is S+3
  descriptor_outside_range        first descriptor discovery: a descriptor at E+1

Discovery answers use 16-bit UUIDs (0x180A for services, 0x2A29 for characteristics, 0x2902 for
descriptors); only the handles matter.
"""
import struct

READ_REQUEST = 0x0A
READ_RESPONSE = 0x0B
READ_BY_TYPE_REQUEST = 0x08
READ_BY_TYPE_RESPONSE = 0x09
FIND_INFORMATION_REQUEST = 0x04
FIND_INFORMATION_RESPONSE = 0x05
READ_BY_GROUP_TYPE_REQUEST = 0x10
READ_BY_GROUP_TYPE_RESPONSE = 0x11
PRIMARY_SERVICE = 0x2800
CHARACTERISTIC = 0x2803

MODES = (
    "oversized_read", "overlapping_services", "decreasing_services", "service_outside_range",
    "zero_handle_service", "decreasing_characteristics", "characteristic_outside_range",
    "zero_handle_characteristic", "value_handle_mismatch", "descriptor_outside_range",
)


def groups(*ranges):
    """A Read By Group Type Response listing service groups with UUID 0x180A."""
    return bytes([READ_BY_GROUP_TYPE_RESPONSE, 6]) + b"".join(struct.pack("<HHH", start, end, 0x180A) for start, end in ranges)


def declarations(*pairs):
    """A Read By Type Response of characteristic declarations (handle, value handle), UUID 0x2A29."""
    return bytes([READ_BY_TYPE_RESPONSE, 7]) + b"".join(struct.pack("<HBHH", handle, 0x02, value, 0x2A29) for handle, value in pairs)


def uuid16(uuid):
    """The 16-bit value of a Bumble UUID, or None for a 128-bit one."""
    data = uuid.to_bytes()
    return struct.unpack("<H", data)[0] if len(data) == 2 else None


class Misbehavior:
    def __init__(self):
        self.mode = None
        self.answered = 0

    def set(self, mode):
        if mode is not None and mode not in MODES:
            raise ValueError(f"unknown misbehavior {mode!r}; known: {', '.join(MODES)}")
        self.mode = mode
        self.answered = 0

    def install(self, server):
        serve = server.on_gatt_pdu

        def on_gatt_pdu(bearer, pdu):
            answer = self.answer(bearer, pdu)
            if answer is None:
                serve(bearer, pdu)
            else:
                self.answered += 1
                server.send_gatt_pdu(bearer, answer)

        server.on_gatt_pdu = on_gatt_pdu

    def answer(self, bearer, pdu):
        """The bytes to send instead of Bumble's answer to `pdu`, or None to let Bumble answer."""
        mode, code = self.mode, pdu.op_code
        if mode is None:
            return None
        if mode == "oversized_read" and code == READ_REQUEST:
            mtu = getattr(bearer, "att_mtu", 23)
            return bytes([READ_RESPONSE]) + bytes(i & 0xFF for i in range(mtu))  # mtu + 1 bytes in all
        if code == READ_BY_GROUP_TYPE_REQUEST and uuid16(pdu.attribute_group_type) == PRIMARY_SERVICE:
            start = pdu.starting_handle
            if mode == "overlapping_services":
                return groups((0x0001, 0x0010), (0x0008, 0x0020))
            if mode == "decreasing_services":
                return groups((0x0020, 0x0030), (0x0010, 0x0015))
            if mode == "service_outside_range":
                return groups((0x0001, 0x0005)) if start == 1 else groups((0x0003, 0x0009))
            if mode == "zero_handle_service":
                return groups((0x0000, 0x0005))
        if code == READ_BY_TYPE_REQUEST and uuid16(pdu.attribute_type) == CHARACTERISTIC and self.answered == 0:
            start, end = pdu.starting_handle, pdu.ending_handle
            if mode == "decreasing_characteristics":
                return declarations((start + 3, start + 4), (start + 1, start + 2))
            if mode == "characteristic_outside_range" and end < 0xFFFF:
                return declarations((end + 1, min(end + 2, 0xFFFF)))
            if mode == "zero_handle_characteristic":
                return declarations((0x0000, 0x0001))
            if mode == "value_handle_mismatch":
                return declarations((start + 1, start + 3))
        if code == FIND_INFORMATION_REQUEST and mode == "descriptor_outside_range" and self.answered == 0:
            end = pdu.ending_handle
            if end < 0xFFFF:
                return bytes([FIND_INFORMATION_RESPONSE, 0x01]) + struct.pack("<HH", end + 1, 0x2902)
        return None
