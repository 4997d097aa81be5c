#!/usr/bin/env python3
"""Checks the `harald` radio commands end to end against Bumble.

Usage: scripts/cli_integration.py PORT
  First a few checks on the default transport, `sim` (the built-in virtual devices).
  PORT is a Bumble virtual controller whose link carries scripts/integration's peers (hr "Harald-HR"
  C0:00:00:00:00:01, gopro C0:…:02, long C0:…:03, the Mi-Band-like band "Harald-MB" C0:…:08). The checks run the built `harald` binary over
  tcp:127.0.0.1:PORT and assert on its JSON output, exit status and stderr.
  A second, private link (two fresh controllers from scripts/bumble/controllers.py, and
  scripts/bumble/bench_peer.py advertising with a PUBLIC address) covers `--address-type public`
  and `write --without-response`, which the integration peers cannot.

Every harald run has a hard limit: a command that hangs is a failure, not a stuck CI job. Error
cases given `--connect-timeout 1` must end within 8 s: generous for a loaded CI box, yet shorter
than the 10 s default, so the option is shown to take effect.
Exit status 0 when every check passes.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "bumble"))
import ports  # noqa: E402  (the controller indices of scripts/bumble/ports.env)

PORTS = ports.names()
HR, GOPRO, LONG = "C0:00:00:00:00:01", "C0:00:00:00:00:02", "C0:00:00:00:00:03"
BAND = "C0:00:00:00:00:08"  # scripts/bumble/miband_peer.py "Harald-MB"
NEW_BAND = "C0:00:00:00:00:0A"  # scripts/bumble/miband_peer.py --no-key: a band that has no key yet
ABSENT = "C0:00:00:00:00:0E"
LONG_VALUE = "6E40A001-3C1D-4B2A-9F3E-48415241C000"
LONG_ORIGINAL = bytes(index % 256 for index in range(512)).hex().upper()
ADDRESS = re.compile(r"^([0-9A-F]{2}:){5}[0-9A-F]{2}$")
HARD_LIMIT = 40  # seconds any single harald run may take

results = []


class Run:
    def __init__(self, args, out, err, status, seconds):
        self.args, self.out, self.err, self.status, self.seconds = args, out, err, status, seconds

    @property
    def lines(self):
        return [line for line in self.out.splitlines() if line.strip()]

    def json_lines(self):
        return [json.loads(line) for line in self.lines]

    def __str__(self):
        return f"`harald {' '.join(self.args)}` -> exit {self.status} in {self.seconds:.1f}s, stdout {self.out[-400:]!r}, stderr {self.err[-400:]!r}"


def harald(*args, transport):
    command = [HARALD, *args] + (["--transport", transport] if transport else [])
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=HARD_LIMIT)
        status, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        status, out, err = "hung", expired.stdout or "", expired.stderr or ""
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    return Run(list(args), out, err, status, time.monotonic() - start)


def check(name):
    """Decorator: runs the check now, records pass/fail with the assertion's message."""
    def run(body):
        try:
            body()
            results.append((name, None))
            print(f"ok   {name}", flush=True)
        except AssertionError as error:
            results.append((name, str(error)))
            print(f"FAIL {name}: {error}", flush=True)
        except Exception as error:  # a crash in the check itself is a failure too
            results.append((name, repr(error)))
            print(f"FAIL {name}: {error!r}", flush=True)
        return body
    return run


def expect_success(run):
    assert run.status == 0, f"expected success: {run}"
    assert run.err.strip() == "", f"expected a quiet stderr: {run}"


def expect_error(run, within=None):
    assert run.status != "hung", f"hung: {run}"
    assert run.status != 0, f"expected a non-zero exit: {run}"
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), f"expected one 'error:' line on stderr: {run}"
    assert run.out.strip() == "", f"expected nothing on stdout: {run}"
    if within is not None:
        assert run.seconds <= within, f"took {run.seconds:.1f}s, limit {within}s: {run}"


def free_port():
    """A local TCP port nobody listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def by_address(advertisements):
    found = {}
    for advertisement in advertisements:
        found.setdefault(advertisement["address"], advertisement)
    return found


def main_link_checks(transport):
    @check("scan --json lists each peer with address, addressType, rssi, name, serviceUUIDs")
    def _():
        run = harald("scan", "--json", "--timeout", "3", transport=transport)
        expect_success(run)
        advertisements = run.json_lines()
        for advertisement in advertisements:
            assert ADDRESS.match(advertisement["address"]), f"address not upper-case colon form: {advertisement}"
            assert advertisement["addressType"] in ("public", "random"), advertisement
            assert isinstance(advertisement["rssi"], int) and -127 <= advertisement["rssi"] <= 20, advertisement
            assert advertisement["connectable"] is True, advertisement
        peers = by_address(advertisements)
        expected = {
            HR: ("Harald-HR", ["180D", "180F", "180A"]),
            GOPRO: ("GoPro 1234", ["FEA6"]),
            LONG: ("HaraldLV", ["6E40A000-3C1D-4B2A-9F3E-48415241C000"]),
        }
        for address, (name, uuids) in expected.items():
            assert address in peers, f"{address} missing from scan: {run}"
            assert peers[address]["addressType"] == "random", peers[address]
            assert peers[address]["name"] == name, peers[address]
            assert peers[address]["serviceUUIDs"] == uuids, peers[address]
        maker = peers[GOPRO].get("manufacturerData")
        assert maker == {"companyID": 0x02F2, "data": "02013833"} or (
            maker and maker["companyID"] == 0x02F2 and maker["data"].upper() == "02013833"), peers[GOPRO]
        assert run.seconds < 3 + 10, f"scan --timeout 3 took {run.seconds:.1f}s"

    @check("scan prints one text line per device")
    def _():
        run = harald("scan", "--timeout", "2", transport=transport)
        expect_success(run)
        text = run.out
        assert HR in text and "Harald-HR" in text and "180D" in text, run

    @check("dump --json shows the HR tree: handles, properties, descriptors, decoded values")
    def _():
        run = harald("dump", HR, "--json", transport=transport)
        expect_success(run)
        assert len(run.lines) == 1, f"expected one JSON document: {run}"
        tree = json.loads(run.lines[0])
        assert tree["address"] == HR, tree
        services = {service["uuid"]: service for service in tree["services"]}
        for uuid in ("180D", "180F", "180A", "FFF0"):
            assert uuid in services, f"service {uuid} missing: {sorted(services)}"
        previous_end = 0
        for service in tree["services"]:
            assert previous_end < service["startHandle"] <= service["endHandle"], f"service ranges out of order: {service}"
            previous_end = service["endHandle"]
            for characteristic in service["characteristics"]:
                assert service["startHandle"] < characteristic["handle"] <= service["endHandle"], characteristic
                for descriptor in characteristic["descriptors"]:
                    assert characteristic["handle"] < descriptor["handle"] <= service["endHandle"], characteristic
        characteristics = {c["uuid"]: c for s in tree["services"] for c in s["characteristics"]}
        battery = characteristics["2A19"]
        assert "read" in battery["properties"] and "notify" in battery["properties"], battery
        assert battery["value"]["hex"].upper() == "57", battery
        assert battery["value"]["decoded"] == {"level": 87}, battery
        measurement = characteristics["2A37"]
        assert measurement["properties"] == ["notify"], measurement
        assert [d["uuid"] for d in measurement["descriptors"]] == ["2902"], measurement
        assert measurement["descriptors"][0]["handle"] == measurement["handle"] + 1, measurement
        assert measurement.get("value") is None, "a notify-only characteristic has no value to read"
        assert characteristics["2A38"]["value"]["decoded"]["location"] == "chest", characteristics["2A38"]
        assert characteristics["2A29"]["value"]["decoded"] == {"text": "Harald Test Peers"}, characteristics["2A29"]
        assert characteristics["FFF1"]["properties"] == ["write"] and characteristics["FFF1"].get("value") is None

    @check("dump prints the tree as text")
    def _():
        run = harald("dump", HR, "--address-type", "random", transport=transport)
        expect_success(run)
        assert "service 180F" in run.out and "characteristic 2A19" in run.out and "descriptor 2902" in run.out, run

    @check("read 2A19 --json gives uuid, hex and the decoded battery level")
    def _():
        run = harald("read", HR, "2A19", "--json", transport=transport)
        expect_success(run)
        assert run.json_lines() == [{"uuid": "2A19", "hex": "57", "decoded": {"level": 87}}], run

    @check("read prints hex and the decoded value as text")
    def _():
        run = harald("read", HR, "2A29", transport=transport)
        expect_success(run)
        assert run.lines[0].startswith("2A29: 486172616C642054657374205065657273") or run.lines[0].lower().startswith(
            "2a29: 486172616c642054657374205065657273"), run
        assert "Harald Test Peers" in run.out, run

    @check("read with --address-type random connects without scanning first")
    def _():
        run = harald("read", HR, "2A19", "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        assert run.json_lines()[0]["hex"] == "57", run

    @check("write of a 512-byte value (long write) reads back, then the original is restored")
    def _():
        pattern = bytes((255 - index) % 256 for index in range(512)).hex().upper()
        run = harald("write", LONG, LONG_VALUE, pattern, "--json", transport=transport)
        expect_success(run)
        assert run.json_lines() == [{"uuid": LONG_VALUE, "hex": pattern.lower(), "written": True}] or run.json_lines() == [
            {"uuid": LONG_VALUE, "hex": pattern, "written": True}], run
        back = harald("read", LONG, LONG_VALUE, "--json", "--address-type", "random", transport=transport)
        expect_success(back)
        assert back.json_lines()[0]["hex"].upper() == pattern, back
        restore = harald("write", LONG, LONG_VALUE, LONG_ORIGINAL, "--address-type", "random", transport=transport)
        expect_success(restore)
        again = harald("read", LONG, LONG_VALUE, "--json", "--address-type", "random", transport=transport)
        assert again.json_lines()[0]["hex"].upper() == LONG_ORIGINAL, again

    @check("write --without-response to a characteristic without that property is refused")
    def _():
        run = harald("write", LONG, LONG_VALUE, "01", "--without-response", "--address-type", "random", transport=transport)
        expect_error(run)
        assert "without" in run.err.lower(), run

    @check("subscribe 2A37 --count 3 --json prints three values with uuid, hex, decoded")
    def _():
        run = harald("subscribe", HR, "2A37", "--count", "3", "--json", transport=transport)
        expect_success(run)
        values = run.json_lines()
        assert len(values) == 3, run
        for value in values:
            assert value["uuid"] == "2A37", value
            assert re.fullmatch(r"16[0-9a-fA-F]{6}|1[eE][0-9a-fA-F]{10}", value["hex"]), value
            assert value["decoded"]["heartRate"] == int(value["hex"][2:4], 16), value
            assert len(value["decoded"]["rrIntervals"]) == 1, value

    @check("subscribe --timeout ends quietly when nothing is notified")
    def _():
        run = harald("subscribe", HR, "2A19", "--timeout", "1", "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        assert run.lines == [], run

    @check("--btsnoop writes a capture that Wireshark's reader opens")
    def _():
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "read.btsnoop")
            run = harald("read", HR, "2A19", "--address-type", "random", "--btsnoop", path, transport=transport)
            expect_success(run)
            with open(path, "rb") as capture:
                header = capture.read(16)
            assert header[:8] == b"btsnoop\0", f"not a btsnoop file: {header!r}"
            assert int.from_bytes(header[12:16], "big") == 1002, "datalink must be HCI UART (H4), 1002"
            if shutil.which("tshark"):
                frames = subprocess.run(["tshark", "-r", path, "-Y", "btatt"], capture_output=True, text=True, timeout=60)
                assert frames.returncode == 0, frames.stderr
                assert "Read Request" in frames.stdout and "Read Response" in frames.stdout, frames.stdout
            else:
                print("     (tshark not installed: capture header checked only)")

    @check("unreachable transport: one error line, non-zero exit, no hang")
    def _():
        run = harald("read", HR, "2A19", transport=f"tcp:127.0.0.1:{free_port()}")
        expect_error(run, within=10)

    @check("unknown device: error within --connect-timeout (scanning)")
    def _():
        run = harald("read", ABSENT, "2A19", "--connect-timeout", "1", transport=transport)
        expect_error(run, within=1 + 7)
        assert ABSENT in run.err, run

    @check("unknown device: error within --connect-timeout (address type given, direct connect)")
    def _():
        run = harald("read", ABSENT, "2A19", "--connect-timeout", "1", "--address-type", "random", transport=transport)
        expect_error(run, within=1 + 7)

    @check("unknown characteristic: error")
    def _():
        run = harald("read", HR, "FFFF", "--address-type", "random", transport=transport)
        expect_error(run)
        assert "FFFF" in run.err, run

    @check("an ATT error from the peer: one error line naming it, non-zero exit")
    def _():
        # The strap's Heart Rate Control Point answers op codes other than 0x01 with ATT error 0x80.
        run = harald("write", HR, "2A39", "02", "--address-type", "random", transport=transport)
        expect_error(run)
        assert "ATT error" in run.err and "80" in run.err, run

    @check("hci:N without an adapter: one error line, non-zero exit, no hang")
    def _():
        run = harald("read", HR, "2A19", "--address-type", "random", transport="hci:97")
        expect_error(run, within=10)
        assert "hci" in run.err.lower(), run

    @check("--address-type public for a random-address device: error within --connect-timeout")
    def _():
        run = harald("read", HR, "2A19", "--address-type", "public", "--connect-timeout", "1", transport=transport)
        expect_error(run, within=1 + 7)

    @check("malformed arguments are rejected before touching the radio")
    def _():
        for args in (("read", "C0:00:00:00:00", "2A19"), ("read", HR, "not-a-uuid"), ("write", HR, "2A19", "zz"),
                     ("read", HR, "2A19", "--address-type", "static")):
            run = harald(*args, transport=transport)
            assert run.status not in (0, "hung"), f"accepted: {run}"
        run = harald("scan", "--timeout", "1", transport="carrier-pigeon:1")
        assert run.status not in (0, "hung"), f"accepted: {run}"


def miband_checks(transport):
    """`harald miband …` against the Bumble band (authenticated with the default key first)."""
    @check("miband steps --json gives steps, meters and calories")
    def _():
        run = harald("miband", "steps", BAND, "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        value = run.json_lines()[0]
        assert set(value) == {"steps", "meters", "calories"}, run
        assert value["steps"] >= 409 and value["meters"] == value["steps"] * 62 // 100, run

    @check("miband battery --json gives level, charging and the last charge")
    def _():
        run = harald("miband", "battery", BAND, "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        value = run.json_lines()[0]
        assert value["level"] == 64 and value["charging"] is True, run
        assert value["lastCharge"] == "2026-11-20 08:15:00" and value["chargeCount"] == 12, run

    @check("miband heart-rate --json gives one heart rate")
    def _():
        run = harald("miband", "heart-rate", BAND, "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        assert 40 <= run.json_lines()[0]["heartRate"] <= 200, run

    @check("miband with a wrong --key: the band refuses, one error line, non-zero exit")
    def _():
        run = harald("miband", "steps", BAND, "--json", "--address-type", "random", "--key", "00" * 16, transport=transport)
        expect_error(run, within=HARD_LIMIT)
        assert "refused" in run.err, run

    @check("miband on a band without a key: refused without --set-key, paired with it, then known")
    def _():
        run = harald("miband", "battery", NEW_BAND, "--json", "--address-type", "random", transport=transport)
        expect_error(run, within=HARD_LIMIT)
        assert "key" in run.err, run
        run = harald("miband", "battery", NEW_BAND, "--json", "--address-type", "random", "--set-key", transport=transport)
        expect_success(run)
        assert run.json_lines()[0]["level"] == 64, run
        # The band keeps the key it was given: plain authentication works from now on.
        run = harald("miband", "steps", NEW_BAND, "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        assert run.json_lines()[0]["steps"] >= 409, run

    @check("miband on a device without the band's services fails with one error line")
    def _():
        run = harald("miband", "battery", HR, "--no-auth", "--address-type", "random", "--timeout", "2", transport=transport)
        expect_error(run, within=HARD_LIMIT)

    @check("miband --key with a malformed key is rejected before touching the radio")
    def _():
        run = harald("miband", "steps", BAND, "--key", "1234", transport=transport)
        assert run.status not in (0, "hung") and run.out.strip() == "", run


def simulator_checks():
    """The default transport: the built-in virtual devices in virtual time."""
    @check("sim (the default transport): scan lists the virtual devices")
    def _():
        run = harald("scan", "--json", "--timeout", "3", transport=None)
        expect_success(run)
        peers = by_address(run.json_lines())
        assert peers.get("C0:FF:EE:00:00:01", {}).get("name") == "Harald HR", run
        assert peers.get("C8:0F:10:00:00:03", {}).get("addressType") == "public", run

    @check("sim: read, dump and subscribe work in virtual time")
    def _():
        read = harald("read", "C0:FF:EE:00:00:01", "2A19", "--json", transport="sim")
        expect_success(read)
        assert read.json_lines()[0]["uuid"] == "2A19" and "level" in read.json_lines()[0]["decoded"], read
        dump = harald("dump", "C8:0F:10:00:00:03", "--json", "--address-type", "public", transport="sim")
        expect_success(dump)
        assert any(s["uuid"] == "FEE0" for s in json.loads(dump.lines[0])["services"]), dump
        subscribe = harald("subscribe", "C0:FF:EE:00:00:01", "2A37", "--count", "3", "--json", transport="sim")
        expect_success(subscribe)
        assert len(subscribe.json_lines()) == 3, subscribe

    @check("sim: miband steps, battery and heart-rate on the virtual band")
    def _():
        for command, key in (("steps", "steps"), ("battery", "level"), ("heart-rate", "heartRate")):
            run = harald("miband", command, "C8:0F:10:00:00:03", "--json", transport="sim")
            expect_success(run)
            assert key in run.json_lines()[0], run

    @check("sim: an absent device fails after the virtual connect timeout")
    def _():
        run = harald("read", ABSENT, "2A19", "--connect-timeout", "1", transport="sim")
        expect_error(run, within=10)


def gopro_checks(transport, camera):
    """`harald gopro status/watch/shutter/setting` against a GoPro-like camera."""
    @check(f"gopro status --json ({transport}): every status in hex by ID, names and numbers for known IDs")
    def _():
        run = harald("gopro", "status", camera, "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        assert len(run.lines) == 1, run
        document = json.loads(run.lines[0])
        statuses, known = document["statuses"], document["known"]
        assert len(statuses) == 88, f"{len(statuses)} statuses: {run}"
        assert all(re.fullmatch(r"[0-9a-f]*", value) for value in statuses.values()), statuses
        assert known["10"] == {"name": "encoding", "value": int(statuses["10"], 16)}, known["10"]
        assert known["70"]["name"] == "internalBatteryPercentage" and known["70"]["value"] == int(statuses["70"], 16), known
        assert known["30"]["name"] == "accessPointSSID" and bytes.fromhex(statuses["30"]).decode() == known["30"]["value"], known
        assert "3" in statuses and "3" not in known, "an unnamed ID is kept raw only"

    @check(f"gopro setting ({transport}): a change is read back; a refused value is an error")
    def _():
        run = harald("gopro", "setting", camera, "2", "4", "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        result = run.json_lines()[0]
        assert result["setting"] == 2 and result["name"] == "videoResolution" and result["value"] == "04", result
        assert result["verified"] is True, result
        back = harald("gopro", "setting", camera, "2", "9", "--json", "--address-type", "random", transport=transport)
        expect_success(back)
        # Each sim run is a fresh world: the camera there starts from resolution 9 again.
        assert back.json_lines()[0]["previous"] == ("09" if transport == "sim" else "04"), back
        refused = harald("gopro", "setting", camera, "3", "238", "--address-type", "random", transport=transport)
        expect_error(refused)
        assert "invalidParameter" in refused.err, refused

    @check(f"gopro shutter on, watch --count 2 prints two pushes (Bumble), shutter off ({transport})")
    def _():
        on = harald("gopro", "shutter", camera, "on", "--json", "--address-type", "random", transport=transport)
        expect_success(on)
        assert on.json_lines() == [{"shutter": "on", "encoding": True}], on
        watch = None
        if transport != "sim":  # each sim run is a fresh world: no recording there to watch
            watch = harald("gopro", "watch", camera, "--statuses", "10,13,35", "--count", "2", "--json",
                           "--address-type", "random", transport=transport)
        off = harald("gopro", "shutter", camera, "off", "--json", "--address-type", "random", transport=transport)
        if watch is not None:
            expect_success(watch)
            pushes = watch.json_lines()
            assert len(pushes) == 2, watch
            for push in pushes:
                assert push["statuses"] and set(push["statuses"]) <= {"10", "13", "35"}, push
                assert "13" in push["statuses"] and push["known"]["13"]["name"] == "videoEncodingDuration", push
        expect_success(off)
        assert off.json_lines() == [{"shutter": "off", "encoding": False}], off

    @check("gopro: malformed arguments are rejected before touching the radio")
    def _():
        for args in (("gopro", "shutter", camera, "maybe"), ("gopro", "watch", camera, "--statuses", "10,x"),
                     ("gopro", "setting", camera, "2", "256"), ("gopro", "setting", camera, "300", "1")):
            run = harald(*args, transport=transport)
            assert run.status not in (0, "hung"), f"accepted: {run}"


def private_link_checks(python):
    """A fresh two-controller link with bench_peer.py advertising a PUBLIC address."""
    work = tempfile.mkdtemp()
    processes = []
    try:
        ready = os.path.join(work, "ports.json")
        controllers = subprocess.Popen([python, os.path.join(ROOT, "scripts/bumble/controllers.py"),
                                        "--count", str(PORTS["CLI_CONTROLLERS"]),
                                        "--ready-file", ready], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(controllers)
        for _ in range(300):
            if os.path.exists(ready):
                break
            time.sleep(0.1)
        link = ports.ready_ports(ready)
        log_path = os.path.join(work, "bench_peer.log")
        log = open(log_path, "w")
        peer = subprocess.Popen([python, os.path.join(ROOT, "scripts/bumble/bench_peer.py"), "--public",
                                 "--transport", f"tcp-client:127.0.0.1:{link[PORTS['CLI_PUBLIC_PEER']]}", "--address", "C0:00:00:00:00:05"],
                                stdout=log, stderr=subprocess.STDOUT)
        processes.append(peer)
        for _ in range(300):
            if "READY" in open(log_path).read():
                break
            time.sleep(0.1)
        line = next(line for line in open(log_path) if line.startswith("READY"))
        public = line.split()[1].upper()
        transport = f"tcp:127.0.0.1:{link[PORTS['CLI_CENTRAL']]}"

        def peer_log():
            return open(log_path).read()

        @check("scan reports a public-address peer as addressType public")
        def _():
            run = harald("scan", "--json", "--timeout", "3", transport=transport)
            expect_success(run)
            peers = by_address(run.json_lines())
            assert public in peers, f"{public} missing: {run}"
            assert peers[public]["addressType"] == "public" and peers[public]["name"] == "Harald-BN", peers[public]

        @check("--address-type public connects to a public-address peer")
        def _():
            run = harald("write", public, "FFB2", "C0FFEE", "--address-type", "public", transport=transport)
            expect_success(run)
            back = harald("read", public, "FFB2", "--json", "--address-type", "public", transport=transport)
            expect_success(back)
            assert back.json_lines()[0]["hex"].upper() == "C0FFEE", back
            assert "WROTE C0FFEE write" in peer_log(), peer_log()

        @check("without --address-type the public address type is learnt by scanning")
        def _():
            run = harald("read", public, "FFB2", "--json", transport=transport)
            expect_success(run)
            assert run.json_lines()[0]["hex"].upper() == "C0FFEE", run

        @check("--address-type random for a public-address peer: error within --connect-timeout")
        def _():
            run = harald("read", public, "FFB2", "--address-type", "random", "--connect-timeout", "1", transport=transport)
            expect_error(run, within=1 + 7)

        @check("write --without-response sends a Write Command the peer receives")
        def _():
            run = harald("write", public, "FFB2", "A1B2C3", "--without-response", "--json", transport=transport)
            expect_success(run)
            assert run.json_lines()[0]["written"] is True, run
            for _ in range(50):  # the peer logs the write when its host processes it
                if "WROTE A1B2C3 without" in peer_log():
                    break
                time.sleep(0.1)
            assert "WROTE A1B2C3 without" in peer_log(), peer_log()
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


def heart_rate_monitor_checks(transport):
    """`harald hrm monitor` and `harald demo`: on the simulator, and against the Bumble strap."""
    @check("sim: hrm monitor --json --count 3 gives heartRate, contact, energyExpended, rrIntervals (s)")
    def _():
        run = harald("hrm", "monitor", "C0:FF:EE:00:00:01", "--json", "--count", "3", transport="sim")
        expect_success(run)
        readings = run.json_lines()
        assert len(readings) == 3, run
        for reading in readings:
            assert set(reading) == {"heartRate", "contact", "energyExpended", "rrIntervals"}, reading
            assert 40 <= reading["heartRate"] <= 220 and reading["contact"] is True, reading
            assert isinstance(reading["energyExpended"], int), reading
            # The virtual strap sends one RR interval per beat: 60 / bpm seconds, in 1/1024 s steps.
            assert len(reading["rrIntervals"]) == 1 and abs(reading["rrIntervals"][0] - 60 / reading["heartRate"]) < 0.002, reading

    @check("sim: hrm monitor prints one line per reading when stdout is not a terminal")
    def _():
        run = harald("hrm", "monitor", "C0:FF:EE:00:00:01", "--count", "4", transport="sim")
        expect_success(run)
        assert len(run.lines) == 4 and all("bpm" in line and "RR" in line for line in run.lines), run
        assert "\r" not in run.out and "\x1b" not in run.out, f"no in-place rewriting off a terminal: {run}"

    @check("hrm monitor --json --count 3 against the Bumble strap")
    def _():
        run = harald("hrm", "monitor", HR, "--json", "--count", "3", transport=transport)
        expect_success(run)
        readings = run.json_lines()
        assert len(readings) == 3, run
        for reading in readings:
            # The peer notifies contact, one RR interval matching the rate, and energy every other value.
            assert 60 <= reading["heartRate"] <= 99, reading
            assert reading["contact"] is True and len(reading["rrIntervals"]) == 1, reading
            assert abs(reading["rrIntervals"][0] - 60 / reading["heartRate"]) < 0.001, reading
        assert any(reading["energyExpended"] is not None for reading in readings), run

    @check("hrm monitor of an absent device: one error line within --connect-timeout")
    def _():
        run = harald("hrm", "monitor", ABSENT, "--connect-timeout", "1", transport=transport)
        expect_error(run, within=1 + 7)

    @check("sim: demo runs every section and ends with the cost summary")
    def _():
        run = harald("demo", transport=None)
        expect_success(run)
        for expected in ("pairing: paired", "HR1-000042", "bpm", "Control Point Not Supported", "camera: all statuses",
                         "band: activity sync", "180/180", "conn. events", "done"):
            assert expected in run.out, f"{expected!r} missing: {run}"
        total = next(line for line in run.lines if line.split("] ", 1)[-1].strip().startswith("total"))
        assert int(total.split()[-6]) > 0, f"the total row counts ATT requests: {total}"

    @check("demo over tcp runs the strap, camera and band sections against the Bumble peers")
    def _():
        run = harald("demo", "--measurements", "3", transport=transport)
        expect_success(run)
        for expected in ("Harald-HR", "pairing: paired", "bpm", "camera: all statuses", "band: activity sync",
                         "summary", "total"):
            assert expected in run.out, f"{expected!r} missing: {run}"
        assert "conn. events" not in run.out, f"connection events exist only on the simulator: {run}"


def main():
    global HARALD
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: scripts/cli_integration.py PORT")
    os.chdir(ROOT)
    build = subprocess.run(["swift", "build", "--product", "harald"], capture_output=True, text=True)
    if build.returncode != 0:
        print(build.stdout[-3000:], build.stderr[-3000:])
        sys.exit("cli_integration.py: swift build --product harald failed")
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], capture_output=True, text=True).stdout.strip()
    HARALD = os.path.join(bin_path, "harald")
    python = subprocess.run([os.path.join(ROOT, "scripts/bumble/setup-venv")], capture_output=True, text=True).stdout.split()[-1]
    print("== CLI checks on the built-in simulator", flush=True)
    simulator_checks()
    print(f"== CLI checks against Bumble peers (harald over tcp:127.0.0.1:{sys.argv[1]})", flush=True)
    main_link_checks(f"tcp:127.0.0.1:{sys.argv[1]}")
    heart_rate_monitor_checks(f"tcp:127.0.0.1:{sys.argv[1]}")
    print(f"== Mi Band CLI checks against the Bumble band {BAND}", flush=True)
    miband_checks(f"tcp:127.0.0.1:{sys.argv[1]}")
    print("== CLI checks on a private link with a public-address peer", flush=True)
    private_link_checks(python)
    print("== GoPro CLI checks on the simulator and against the Bumble camera", flush=True)
    gopro_checks("sim", "D4:D9:19:00:00:02")
    gopro_checks(f"tcp:127.0.0.1:{sys.argv[1]}", GOPRO)
    failed = [name for name, error in results if error]
    print(f"cli_integration.py: {len(results) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
