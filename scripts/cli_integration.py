#!/usr/bin/env python3
"""Checks the `harald` radio commands end to end against Bumble.

Usage: scripts/cli_integration.py PORT
       scripts/cli_integration.py --self-test   shows a failing check fails the run (also under -O)
  First a few checks on the default transport, `sim` (the built-in virtual devices).
  PORT is a Bumble virtual controller whose link carries scripts/integration's peers (hr "Harald-HR"
  C0:00:00:00:00:01, gopro C0:…:02, long C0:…:03, the Mi-Band-like band "Harald-MB" C0:…:08). The checks run the built `harald` binary over
  tcp:127.0.0.1:PORT and check its JSON output, exit status and stderr.
  A second, private link (five fresh controllers from scripts/bumble/controllers.py, and
  scripts/bumble/bench_peer.py advertising with a PUBLIC address) covers `--address-type public`
  and `write --without-response`, which the integration peers cannot; on the same link,
  scripts/cli_l2cap_checks.py covers `harald l2cap connect` against scripts/bumble/l2cap_peer.py and
  `harald l2cap listen` opened by scripts/bumble/l2cap_client.py.
  A third link (four more controllers, three scripts/bumble/peer.py hr --secure peers whose Body Sensor
  Location needs encryption: one pairs with Just Works, one shows the passkey 123456, one types
  654321) covers
  `harald pair`, pairing on demand and re-encrypting with the stored bond, `harald bonds`, a wrong
  or missing passkey, and --log-level. Every run gets XDG_CONFIG_HOME in a temporary directory,
  so the default bond file is never the user's.

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
import stat
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "bumble"))
import ports  # noqa: E402  (the controller indices of scripts/bumble/ports.env)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import cli_l2cap_checks  # noqa: E402  (`harald l2cap`, on the private link)

PORTS = ports.names()
HR, GOPRO, LONG = "C0:00:00:00:00:01", "C0:00:00:00:00:02", "C0:00:00:00:00:03"
BAND = "C0:00:00:00:00:08"  # scripts/bumble/miband_peer.py "Harald-MB"
NEW_BAND = "C0:00:00:00:00:0A"  # scripts/bumble/miband_peer.py --no-key: a band that has no key yet
ABSENT = "C0:00:00:00:00:0E"
LONG_VALUE = "6E40A001-3C1D-4B2A-9F3E-48415241C000"
LONG_ORIGINAL = bytes(index % 256 for index in range(512)).hex().upper()
ADDRESS = re.compile(r"^([0-9A-F]{2}:){5}[0-9A-F]{2}$")
HARD_LIMIT = 40  # seconds any single harald run may take
# Exit statuses (Sources/harald/Output/ExitStatus.swift, after sysexits.h).
EX_USAGE, EX_UNAVAILABLE, EX_TEMPFAIL, EX_PROTOCOL = 64, 69, 75, 76
TREE_LINE = re.compile(r"^(?:[│ ]  )*[├└]─ ")  # a branch of `harald dump`'s tree

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
        # stdin is never a terminal here: pairing that needs a person must fail, not wait.
        done = subprocess.run(command, capture_output=True, text=True, timeout=HARD_LIMIT, stdin=subprocess.DEVNULL)
        status, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        status, out, err = "hung", expired.stdout or "", expired.stderr or ""
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    return Run(list(args), out, err, status, time.monotonic() - start)


class CheckFailed(Exception):
    """A check's expectation did not hold."""


def expect(condition, message="expectation not met"):
    """Fails the running check unless `condition` holds. A function, not an `assert` statement:
    `python -O` strips asserts, and a check that vanishes under -O would pass without checking."""
    if not condition:
        raise CheckFailed(message)


def check(name):
    """Decorator: runs the check now, records pass/fail with the failed expectation's message."""
    def run(body):
        try:
            body()
            results.append((name, None))
            print(f"ok   {name}", flush=True)
        except CheckFailed as error:
            results.append((name, str(error)))
            print(f"FAIL {name}: {error}", flush=True)
        except Exception as error:  # a crash in the check itself is a failure too
            results.append((name, repr(error)))
            print(f"FAIL {name}: {error!r}", flush=True)
        return body
    return run


def expect_success(run):
    expect(run.status == 0, f"expected success: {run}")
    expect(run.err.strip() == "", f"expected a quiet stderr: {run}")


def expect_error(run, within=None):
    expect(run.status != "hung", f"hung: {run}")
    expect(run.status != 0, f"expected a non-zero exit: {run}")
    lines = run.err.strip().splitlines()
    expect(len(lines) == 1 and lines[0].startswith("error: "), f"expected one 'error:' line on stderr: {run}")
    expect(run.out.strip() == "", f"expected nothing on stdout: {run}")
    if within is not None:
        expect(run.seconds <= within, f"took {run.seconds:.1f}s, limit {within}s: {run}")


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
            expect(ADDRESS.match(advertisement["address"]), f"address not upper-case colon form: {advertisement}")
            expect(advertisement["addressType"] in ("public", "random"), advertisement)
            expect(isinstance(advertisement["rssi"], int) and -127 <= advertisement["rssi"] <= 20, advertisement)
            expect(advertisement["connectable"] is True, advertisement)
        peers = by_address(advertisements)
        expected = {
            HR: ("Harald-HR", ["180D", "180F", "180A"]),
            GOPRO: ("GoPro 1234", ["FEA6"]),
            LONG: ("HaraldLV", ["6E40A000-3C1D-4B2A-9F3E-48415241C000"]),
        }
        for address, (name, uuids) in expected.items():
            expect(address in peers, f"{address} missing from scan: {run}")
            expect(peers[address]["addressType"] == "random", peers[address])
            expect(peers[address]["name"] == name, peers[address])
            expect(peers[address]["serviceUUIDs"] == uuids, peers[address])
        maker = peers[GOPRO].get("manufacturerData")
        expect(maker == {"companyID": 0x02F2, "data": "02013833"} or (
            maker and maker["companyID"] == 0x02F2 and maker["data"].upper() == "02013833"), peers[GOPRO])
        expect(run.seconds < 3 + 10, f"scan --timeout 3 took {run.seconds:.1f}s")

    @check("scan prints one text line per device, services and manufacturer with their SIG names")
    def _():
        run = harald("scan", "--timeout", "2", transport=transport)
        expect_success(run)
        text = run.out
        expect(HR in text and "Harald-HR" in text and "180D" in text, run)
        strap = next(line for line in run.lines if line.startswith(HR))
        expect("services 180D Heart Rate, 180F Battery, 180A Device Information" in strap, strap)
        camera = next(line for line in run.lines if line.startswith(GOPRO))
        expect("FEA6 GoPro, Inc." in camera and "manufacturer 0x02F2 GoPro, Inc." in camera, camera)
        expect("\x1b" not in run.out, f"no terminal escapes when piped: {run}")

    @check("dump --json shows the HR tree: handles, properties, descriptors, decoded values")
    def _():
        run = harald("dump", HR, "--json", transport=transport)
        expect_success(run)
        expect(len(run.lines) == 1, f"expected one JSON document: {run}")
        tree = json.loads(run.lines[0])
        expect(tree["address"] == HR, tree)
        services = {service["uuid"]: service for service in tree["services"]}
        for uuid in ("180D", "180F", "180A", "FFF0"):
            expect(uuid in services, f"service {uuid} missing: {sorted(services)}")
        previous_end = 0
        for service in tree["services"]:
            expect(previous_end < service["startHandle"] <= service["endHandle"], f"service ranges out of order: {service}")
            previous_end = service["endHandle"]
            for characteristic in service["characteristics"]:
                expect(service["startHandle"] < characteristic["handle"] <= service["endHandle"], characteristic)
                for descriptor in characteristic["descriptors"]:
                    expect(characteristic["handle"] < descriptor["handle"] <= service["endHandle"], characteristic)
        characteristics = {c["uuid"]: c for s in tree["services"] for c in s["characteristics"]}
        battery = characteristics["2A19"]
        expect("read" in battery["properties"] and "notify" in battery["properties"], battery)
        expect(battery["value"]["hex"].upper() == "57", battery)
        expect(battery["value"]["decoded"] == {"level": 87}, battery)
        measurement = characteristics["2A37"]
        expect(measurement["properties"] == ["notify"], measurement)
        expect([d["uuid"] for d in measurement["descriptors"]] == ["2902"], measurement)
        expect(measurement["descriptors"][0]["handle"] == measurement["handle"] + 1, measurement)
        expect(measurement.get("value") is None, "a notify-only characteristic has no value to read")
        expect(characteristics["2A38"]["value"]["decoded"]["location"] == "chest", characteristics["2A38"])
        expect(characteristics["2A29"]["value"]["decoded"] == {"text": "Harald Test Peers"}, characteristics["2A29"])
        expect(characteristics["FFF1"]["properties"] == ["write"] and characteristics["FFF1"].get("value") is None)

    @check("dump prints a tree: service → characteristic → descriptors, SIG names, properties, access, values")
    def _():
        run = harald("dump", HR, "--address-type", "random", transport=transport)
        expect_success(run)
        lines = run.lines
        expect(lines[0] == HR, run)
        expect(all(TREE_LINE.match(line) or line.lstrip("│ ").startswith("= ") for line in lines[1:]), run)
        def depth(line):
            return len(TREE_LINE.match(line).group(0)) // 3
        def find(text):
            return next(index for index, line in enumerate(lines) if text in line)
        battery, level = find("─ 180F Battery"), find("─ 2A19 Battery Level")
        expect(depth(lines[battery]) == 1 and depth(lines[level]) == 2 and battery < level, run)
        expect("[read, notify]" in lines[level] and "readable" in lines[level], lines[level])
        expect("= 57 → level: 87" in lines[level + 1], lines[level + 1])
        cccd = lines[level + 2]
        expect("─ 2902 Client Characteristic Configuration" in cccd and depth(cccd) == 3, cccd)
        measurement = find("─ 2A37 Heart Rate Measurement")
        expect("[notify]" in lines[measurement] and "readable" not in lines[measurement], lines[measurement])
        expect("─ 180D Heart Rate" in lines[find("180D")], run)
        expect('text: "Harald Test Peers"' in lines[find("─ 2A29 Manufacturer Name String") + 1], run)

    @check("read 2A19 --json gives uuid, hex and the decoded battery level")
    def _():
        run = harald("read", HR, "2A19", "--json", transport=transport)
        expect_success(run)
        expect(run.json_lines() == [{"uuid": "2A19", "hex": "57", "decoded": {"level": 87},
                                     "security": {"level": 1, "name": "none", "bonded": False}}], run)

    @check("read prints the SIG name, hex and the decoded value as text")
    def _():
        run = harald("read", HR, "2A29", transport=transport)
        expect_success(run)
        expect(run.lines[0].lower().startswith("2a29 manufacturer name string: 486172616c642054657374205065657273"), run)
        expect('text: "Harald Test Peers"' in run.out, run)
        battery = harald("read", HR, "2A19", "--address-type", "random", transport=transport)
        expect_success(battery)
        expect(battery.lines == ["2A19 Battery Level: 57 → level: 87", "security: level 1 (no encryption)"], battery)

    @check("read with --address-type random connects without scanning first")
    def _():
        run = harald("read", HR, "2A19", "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        expect(run.json_lines()[0]["hex"] == "57", run)

    @check("write of a 512-byte value (long write) reads back, then the original is restored")
    def _():
        pattern = bytes((255 - index) % 256 for index in range(512)).hex().upper()
        run = harald("write", LONG, LONG_VALUE, pattern, "--json", transport=transport)
        expect_success(run)
        expect(run.json_lines() == [{"uuid": LONG_VALUE, "hex": pattern.lower(), "written": True}] or run.json_lines() == [
            {"uuid": LONG_VALUE, "hex": pattern, "written": True}], run)
        back = harald("read", LONG, LONG_VALUE, "--json", "--address-type", "random", transport=transport)
        expect_success(back)
        expect(back.json_lines()[0]["hex"].upper() == pattern, back)
        restore = harald("write", LONG, LONG_VALUE, LONG_ORIGINAL, "--address-type", "random", transport=transport)
        expect_success(restore)
        again = harald("read", LONG, LONG_VALUE, "--json", "--address-type", "random", transport=transport)
        expect(again.json_lines()[0]["hex"].upper() == LONG_ORIGINAL, again)

    @check("write --without-response to a characteristic without that property is refused")
    def _():
        run = harald("write", LONG, LONG_VALUE, "01", "--without-response", "--address-type", "random", transport=transport)
        expect_error(run)
        expect("without" in run.err.lower(), run)

    @check("subscribe 2A37 --count 3 --json prints three values with uuid, hex, decoded")
    def _():
        run = harald("subscribe", HR, "2A37", "--count", "3", "--json", transport=transport)
        expect_success(run)
        values = run.json_lines()
        expect(len(values) == 3, run)
        for value in values:
            expect(value["uuid"] == "2A37", value)
            expect(re.fullmatch(r"16[0-9a-fA-F]{6}|1[eE][0-9a-fA-F]{10}", value["hex"]), value)
            expect(value["decoded"]["heartRate"] == int(value["hex"][2:4], 16), value)
            expect(len(value["decoded"]["rrIntervals"]) == 1, value)

    @check("subscribe prints timestamped, SIG-named, decoded values with a sparkline of the heart rate")
    def _():
        run = harald("subscribe", HR, "2A37", "--count", "4", "--address-type", "random", transport=transport)
        expect_success(run)
        expect(len(run.lines) == 4, run)
        times = []
        for index, line in enumerate(run.lines):
            match = re.match(r"^\[\+(\d+\.\d{3})s\] 2A37 Heart Rate Measurement: [0-9a-fA-F]+ → .*heartRate: (\d+).*  heartRate ([▁▂▃▄▅▆▇█]+)$", line)
            expect(match, line)
            times.append(float(match.group(1)))
            expect(len(match.group(3)) == index + 1, f"the sparkline grows by a bar per value: {line}")
        expect(times == sorted(times), run)

    @check("subscribe --timeout ends quietly when nothing is notified")
    def _():
        run = harald("subscribe", HR, "2A19", "--timeout", "1", "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        expect(run.lines == [], run)

    @check("--btsnoop writes an owner-only (0600) capture that Wireshark's reader opens")
    def _():
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "read.btsnoop")
            run = harald("read", HR, "2A19", "--address-type", "random", "--btsnoop", path, transport=transport)
            expect_success(run)
            with open(path, "rb") as capture:
                header = capture.read(16)
            expect(header[:8] == b"btsnoop\0", f"not a btsnoop file: {header!r}")
            expect(int.from_bytes(header[12:16], "big") == 1002, "datalink must be HCI UART (H4), 1002")
            expect(stat.S_IMODE(os.stat(path).st_mode) == 0o600, f"a capture holds keys: mode {oct(os.stat(path).st_mode)}")
            if shutil.which("tshark"):
                frames = subprocess.run(["tshark", "-r", path, "-Y", "btatt"], capture_output=True, text=True, timeout=60)
                expect(frames.returncode == 0, frames.stderr)
                expect("Read Request" in frames.stdout and "Read Response" in frames.stdout, frames.stdout)
            else:
                print("     (tshark not installed: capture header checked only)")

    @check("unreachable transport: one error line, exit 69 (unavailable), no hang")
    def _():
        run = harald("read", HR, "2A19", transport=f"tcp:127.0.0.1:{free_port()}")
        expect_error(run, within=10)
        expect(run.status == EX_UNAVAILABLE, run)

    @check("unknown device: error within --connect-timeout (scanning)")
    def _():
        run = harald("read", ABSENT, "2A19", "--connect-timeout", "1", transport=transport)
        expect_error(run, within=1 + 7)
        expect(ABSENT in run.err, run)
        expect(run.status == EX_UNAVAILABLE, f"a device that does not advertise is unavailable (69): {run}")

    @check("unknown device: error within --connect-timeout (address type given, direct connect)")
    def _():
        run = harald("read", ABSENT, "2A19", "--connect-timeout", "1", "--address-type", "random", transport=transport)
        expect_error(run, within=1 + 7)
        expect(run.status == EX_TEMPFAIL, f"a connection that times out exits 75: {run}")

    @check("unknown characteristic: error")
    def _():
        run = harald("read", HR, "FFFF", "--address-type", "random", transport=transport)
        expect_error(run)
        expect("FFFF" in run.err, run)
        expect(run.status == EX_UNAVAILABLE, run)

    @check("an ATT error from the peer: one error line naming it, non-zero exit")
    def _():
        # The strap's Heart Rate Control Point answers op codes other than 0x01 with ATT error 0x80.
        run = harald("write", HR, "2A39", "02", "--address-type", "random", transport=transport)
        expect_error(run)
        expect("ATT error" in run.err and "80" in run.err, run)
        expect(run.status == EX_PROTOCOL, f"a refusal by the device exits 76: {run}")

    @check("hci:N without an adapter: one error line, non-zero exit, no hang")
    def _():
        run = harald("read", HR, "2A19", "--address-type", "random", transport="hci:97")
        expect_error(run, within=10)
        expect("hci" in run.err.lower(), run)
        expect(run.status == EX_UNAVAILABLE, run)

    @check("--address-type public for a random-address device: error within --connect-timeout")
    def _():
        run = harald("read", HR, "2A19", "--address-type", "public", "--connect-timeout", "1", transport=transport)
        expect_error(run, within=1 + 7)

    @check("malformed arguments are rejected before touching the radio")
    def _():
        for args in (("read", "C0:00:00:00:00", "2A19"), ("read", HR, "not-a-uuid"), ("write", HR, "2A19", "zz"),
                     ("read", HR, "2A19", "--address-type", "static")):
            run = harald(*args, transport=transport)
            expect(run.status == EX_USAGE, f"expected a usage error (64): {run}")
        run = harald("scan", "--timeout", "1", transport="carrier-pigeon:1")
        expect(run.status == EX_USAGE, f"expected a usage error (64): {run}")


def miband_checks(transport):
    """`harald miband …` against the Bumble band (authenticated with the default key first)."""
    @check("miband steps --json gives steps, meters and calories")
    def _():
        run = harald("miband", "steps", BAND, "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        value = run.json_lines()[0]
        expect(set(value) == {"steps", "meters", "calories"}, run)
        expect(value["steps"] >= 409 and value["meters"] == value["steps"] * 62 // 100, run)

    @check("miband battery --json gives level, charging and the last charge")
    def _():
        run = harald("miband", "battery", BAND, "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        value = run.json_lines()[0]
        expect(value["level"] == 64 and value["charging"] is True, run)
        expect(value["lastCharge"] == "2026-11-20 08:15:00" and value["chargeCount"] == 12, run)

    @check("miband heart-rate --json gives one heart rate")
    def _():
        run = harald("miband", "heart-rate", BAND, "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        expect(40 <= run.json_lines()[0]["heartRate"] <= 200, run)

    @check("miband activity --json: a JSON line per minute of the history; no progress bar when piped")
    def _():
        run = harald("miband", "activity", BAND, "--since", "2026-11-21T11:00:00Z", "--json", "--address-type", "random",
                     transport=transport)
        expect_success(run)
        minutes = run.json_lines()
        expect(len(minutes) == 60, run)
        expect(minutes[0]["timestamp"] == "2026-11-21T11:00:00Z" and minutes[-1]["timestamp"] == "2026-11-21T11:59:00Z", run)
        expect(all(set(minute) >= {"timestamp", "steps", "intensity", "category"} for minute in minutes), run)

    @check("miband with a wrong --key: the band refuses, one error line, non-zero exit")
    def _():
        run = harald("miband", "steps", BAND, "--json", "--address-type", "random", "--key", "00" * 16, transport=transport)
        expect_error(run, within=HARD_LIMIT)
        expect("refused" in run.err, run)
        expect(run.status == EX_PROTOCOL, f"a band refusing the key exits 76: {run}")

    @check("miband on a band without a key: refused without --set-key, paired with it, then known")
    def _():
        run = harald("miband", "battery", NEW_BAND, "--json", "--address-type", "random", transport=transport)
        expect_error(run, within=HARD_LIMIT)
        expect("key" in run.err, run)
        expect(run.status == EX_PROTOCOL, run)
        run = harald("miband", "battery", NEW_BAND, "--json", "--address-type", "random", "--set-key", transport=transport)
        expect_success(run)
        expect(run.json_lines()[0]["level"] == 64, run)
        # The band keeps the key it was given: plain authentication works from now on.
        run = harald("miband", "steps", NEW_BAND, "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        expect(run.json_lines()[0]["steps"] >= 409, run)

    @check("miband on a device without the band's services fails with one error line")
    def _():
        run = harald("miband", "battery", HR, "--no-auth", "--address-type", "random", "--timeout", "2", transport=transport)
        expect_error(run, within=HARD_LIMIT)

    @check("miband --key with a malformed key is rejected before touching the radio")
    def _():
        run = harald("miband", "steps", BAND, "--key", "1234", transport=transport)
        expect(run.status not in (0, "hung") and run.out.strip() == "", run)


def basics_checks():
    """What needs no radio: --version, completion scripts, the exit-status table in --help."""
    @check("--version prints the version written in Sources/harald/Output/Version.swift")
    def _():
        with open(os.path.join(ROOT, "Sources", "harald", "Output", "Version.swift"), encoding="utf-8") as file:
            version = re.search(r'static let string = "([^"]+)"', file.read()).group(1)
        run = harald("--version", transport=None)
        expect_success(run)
        expect(run.lines == [version], run)

    @check("completion scripts for bash, zsh and fish name the subcommands")
    def _():
        markers = {"bash": "-F _harald harald", "zsh": "#compdef harald", "fish": "complete -c 'harald'"}
        for shell, marker in markers.items():
            run = harald("--generate-completion-script", shell, transport=None)
            expect_success(run)
            expect(marker in run.out, f"{shell}: {marker!r} missing: {run.out[:300]!r}")
            for subcommand in ("scan", "dump", "subscribe", "miband"):
                expect(subcommand in run.out, f"{shell}: {subcommand} missing")
        if shutil.which("bash"):
            script = harald("--generate-completion-script", "bash", transport=None).out
            syntax = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
            expect(syntax.returncode == 0, f"the bash script does not parse: {syntax.stderr}")

    @check("--help documents the exit statuses; an unknown option is a usage error (64)")
    def _():
        run = harald("--help", transport=None)
        expect_success(run)
        flat = " ".join(run.out.split())
        for text in ("64 usage error", "69 adapter, device or attribute unavailable", "75 timed out", "76 the device refused"):
            expect(text in flat, f"{text!r} missing from --help: {run}")
        unknown = harald("scan", "--frobnicate", transport=None)
        expect(unknown.status == EX_USAGE and unknown.out.strip() == "", unknown)


def serve_security_checks():
    """`serve --security` (issue 25): what needs no radio, the option and its refusals."""
    @check("serve --help names --security and its four levels; --encrypted is hidden (deprecated)")
    def _():
        run = harald("serve", "--help", transport=None)
        expect_success(run)
        flat = " ".join(run.out.split())
        expect("--security" in flat, run)
        for level in ("open", "encrypted", "authenticated", "sc-only"):
            expect(level in flat, f"{level!r} missing from serve --help: {run}")
        expect("--encrypted" not in flat, f"the deprecated --encrypted is shown: {run}")

    @check("serve --security with an unknown level, or --encrypted with another level, is a usage error (64)")
    def _():
        radio = f"tcp:127.0.0.1:{free_port()}"
        for arguments in (["--security", "secret"], ["--encrypted", "--security", "sc-only"]):
            run = harald("serve", "hrm", *arguments, transport=radio)
            expect(run.status == EX_USAGE and run.out.strip() == "", run)


def simulator_checks():
    """The default transport: the built-in virtual devices in virtual time."""
    @check("sim (the default transport): scan lists the virtual devices")
    def _():
        run = harald("scan", "--json", "--timeout", "3", transport=None)
        expect_success(run)
        peers = by_address(run.json_lines())
        expect(peers.get("C0:FF:EE:00:00:01", {}).get("name") == "Harald HR", run)
        expect(peers.get("C8:0F:10:00:00:03", {}).get("addressType") == "public", run)

    @check("sim: text output names services, characteristics and descriptors after the SIG")
    def _():
        scan = harald("scan", "--timeout", "3", transport="sim")
        expect_success(scan)
        expect("services 180D Heart Rate, 180F Battery" in scan.out, scan)
        dump = harald("dump", "C0:FF:EE:00:00:01", transport="sim")
        expect_success(dump)
        for text in ("─ 180D Heart Rate", "─ 2A37 Heart Rate Measurement", "─ 2902 Client Characteristic Configuration",
                     "─ 2A19 Battery Level", "= 57 → level: 87"):
            expect(text in dump.out, f"{text!r} missing: {dump}")
        read = harald("read", "C0:FF:EE:00:00:01", "2A19", transport="sim")
        expect_success(read)
        expect(read.lines == ["2A19 Battery Level: 57 → level: 87", "security: level 1 (no encryption)"], read)
        subscribe = harald("subscribe", "C0:FF:EE:00:00:01", "2A37", "--count", "2", transport="sim")
        expect_success(subscribe)
        expect(len(subscribe.lines) == 2 and all("2A37 Heart Rate Measurement: " in line and "heartRate" in line for line in subscribe.lines), subscribe)

    @check("sim: miband activity fetches the virtual band's history; a malformed --since is a usage error")
    def _():
        run = harald("miband", "activity", "C8:0F:10:00:00:03", "--since", "2026-11-21T09:00:00Z", transport="sim")
        expect_success(run)
        expect(len(run.lines) == 1 and run.lines[0].startswith("180 minutes from 2026-11-21T09:00:00Z: "), run)
        bad = harald("miband", "activity", "C8:0F:10:00:00:03", "--since", "yesterday", transport="sim")
        expect(bad.status == EX_USAGE, bad)

    @check("sim: read, dump and subscribe work in virtual time")
    def _():
        read = harald("read", "C0:FF:EE:00:00:01", "2A19", "--json", transport="sim")
        expect_success(read)
        expect(read.json_lines()[0]["uuid"] == "2A19" and "level" in read.json_lines()[0]["decoded"], read)
        dump = harald("dump", "C8:0F:10:00:00:03", "--json", "--address-type", "public", transport="sim")
        expect_success(dump)
        expect(any(s["uuid"] == "FEE0" for s in json.loads(dump.lines[0])["services"]), dump)
        subscribe = harald("subscribe", "C0:FF:EE:00:00:01", "2A37", "--count", "3", "--json", transport="sim")
        expect_success(subscribe)
        expect(len(subscribe.json_lines()) == 3, subscribe)

    @check("sim: miband steps, battery and heart-rate on the virtual band")
    def _():
        for command, key in (("steps", "steps"), ("battery", "level"), ("heart-rate", "heartRate")):
            run = harald("miband", command, "C8:0F:10:00:00:03", "--json", transport="sim")
            expect_success(run)
            expect(key in run.json_lines()[0], run)

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
        expect(len(run.lines) == 1, run)
        document = json.loads(run.lines[0])
        statuses, known = document["statuses"], document["known"]
        expect(len(statuses) == 88, f"{len(statuses)} statuses: {run}")
        expect(all(re.fullmatch(r"[0-9a-f]*", value) for value in statuses.values()), statuses)
        expect(known["10"] == {"name": "encoding", "value": int(statuses["10"], 16)}, known["10"])
        expect(known["70"]["name"] == "internalBatteryPercentage" and known["70"]["value"] == int(statuses["70"], 16), known)
        expect(known["30"]["name"] == "accessPointSSID" and bytes.fromhex(statuses["30"]).decode() == known["30"]["value"], known)
        expect("3" in statuses and "3" not in known, "an unnamed ID is kept raw only")

    @check(f"gopro setting ({transport}): a change is read back; a refused value is an error")
    def _():
        run = harald("gopro", "setting", camera, "2", "4", "--json", "--address-type", "random", transport=transport)
        expect_success(run)
        result = run.json_lines()[0]
        expect(result["setting"] == 2 and result["name"] == "videoResolution" and result["value"] == "04", result)
        expect(result["verified"] is True, result)
        back = harald("gopro", "setting", camera, "2", "9", "--json", "--address-type", "random", transport=transport)
        expect_success(back)
        # Each sim run is a fresh world: the camera there starts from resolution 9 again.
        expect(back.json_lines()[0]["previous"] == ("09" if transport == "sim" else "04"), back)
        refused = harald("gopro", "setting", camera, "3", "238", "--address-type", "random", transport=transport)
        expect_error(refused)
        expect("invalidParameter" in refused.err, refused)

    @check(f"gopro shutter on, watch --count 2 prints two pushes (Bumble), shutter off ({transport})")
    def _():
        on = harald("gopro", "shutter", camera, "on", "--json", "--address-type", "random", transport=transport)
        expect_success(on)
        expect(on.json_lines() == [{"shutter": "on", "encoding": True}], on)
        watch = None
        if transport != "sim":  # each sim run is a fresh world: no recording there to watch
            watch = harald("gopro", "watch", camera, "--statuses", "10,13,35", "--count", "2", "--json",
                           "--address-type", "random", transport=transport)
        off = harald("gopro", "shutter", camera, "off", "--json", "--address-type", "random", transport=transport)
        if watch is not None:
            expect_success(watch)
            pushes = watch.json_lines()
            expect(len(pushes) == 2, watch)
            for push in pushes:
                expect(push["statuses"] and set(push["statuses"]) <= {"10", "13", "35"}, push)
                expect("13" in push["statuses"] and push["known"]["13"]["name"] == "videoEncodingDuration", push)
        expect_success(off)
        expect(off.json_lines() == [{"shutter": "off", "encoding": False}], off)

    @check("gopro: malformed arguments are rejected before touching the radio")
    def _():
        for args in (("gopro", "shutter", camera, "maybe"), ("gopro", "watch", camera, "--statuses", "10,x"),
                     ("gopro", "setting", camera, "2", "256"), ("gopro", "setting", camera, "300", "1")):
            run = harald(*args, transport=transport)
            expect(run.status not in (0, "hung"), f"accepted: {run}")


def private_link_checks(python):
    """A fresh link with bench_peer.py advertising a PUBLIC address, then the `harald l2cap` checks."""
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
            expect(public in peers, f"{public} missing: {run}")
            expect(peers[public]["addressType"] == "public" and peers[public]["name"] == "Harald-BN", peers[public])

        @check("--address-type public connects to a public-address peer")
        def _():
            run = harald("write", public, "FFB2", "C0FFEE", "--address-type", "public", transport=transport)
            expect_success(run)
            back = harald("read", public, "FFB2", "--json", "--address-type", "public", transport=transport)
            expect_success(back)
            expect(back.json_lines()[0]["hex"].upper() == "C0FFEE", back)
            expect("WROTE C0FFEE write" in peer_log(), peer_log())

        @check("without --address-type the public address type is learnt by scanning")
        def _():
            run = harald("read", public, "FFB2", "--json", transport=transport)
            expect_success(run)
            expect(run.json_lines()[0]["hex"].upper() == "C0FFEE", run)

        @check("--address-type random for a public-address peer: error within --connect-timeout")
        def _():
            run = harald("read", public, "FFB2", "--address-type", "random", "--connect-timeout", "1", transport=transport)
            expect_error(run, within=1 + 7)

        @check("write --without-response sends a Write Command the peer receives")
        def _():
            run = harald("write", public, "FFB2", "A1B2C3", "--without-response", "--json", transport=transport)
            expect_success(run)
            expect(run.json_lines()[0]["written"] is True, run)
            for _ in range(50):  # the peer logs the write when its host processes it
                if "WROTE A1B2C3 without" in peer_log():
                    break
                time.sleep(0.1)
            expect("WROTE A1B2C3 without" in peer_log(), peer_log())

        cli_l2cap_checks.checks(harald=HARALD, python=python, root=ROOT, link=link, names=PORTS, work=work, processes=processes,
                                check=check, expect=expect)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


JW_PEER, PASSKEY_PEER, KEYBOARD_PEER = "C0:00:00:00:00:21", "C0:00:00:00:00:22", "C0:00:00:00:00:23"
PEER_PASSKEY = "123456"  # what the Passkey Entry peer displays
TYPED_PASSKEY = "654321"  # what the keyboard peer types
SMP_TIMEOUT = 30


def start_link(python, count, peers, work):
    """Starts `count` fresh linked controllers and `peers` (name -> (controller index, peer.py
    arguments)) on them; returns (processes, ports, log paths by name) once every peer is READY."""
    processes = []
    ready = os.path.join(work, "ports.json")
    processes.append(subprocess.Popen([python, os.path.join(ROOT, "scripts/bumble/controllers.py"), "--count", str(count),
                                       "--ready-file", ready], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for _ in range(300):
        if os.path.exists(ready):
            break
        time.sleep(0.1)
    link = ports.ready_ports(ready)
    logs = {}
    for name, (index, arguments) in peers.items():
        logs[name] = os.path.join(work, f"{name}.log")
        processes.append(subprocess.Popen(
            [python, os.path.join(ROOT, "scripts/bumble/peer.py"), *arguments, "--transport", f"tcp-client:127.0.0.1:{link[index]}"],
            stdout=open(logs[name], "w"), stderr=subprocess.STDOUT))
    for name, path in logs.items():
        for _ in range(300):
            if "READY" in open(path).read():
                break
            time.sleep(0.1)
        expect("READY" in open(path).read(), f"peer {name} did not start: {open(path).read()[-2000:]}")
    return processes, link, logs


def stop(processes):
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def pairing_checks(python):
    """`harald pair`, pairing on demand, `harald bonds`, passkeys and --log-level on a private link."""
    work = tempfile.mkdtemp()
    processes = []
    try:
        processes, link, logs = start_link(python, PORTS["CLI_PAIRING_CONTROLLERS"], {
            "jw": (PORTS["CLI_JW_PEER"], ["hr", "--secure", "--address", JW_PEER]),
            "passkey": (PORTS["CLI_PASSKEY_PEER"], ["hr", "--secure", "--io", "display-only", "--passkey", PEER_PASSKEY,
                                                    "--address", PASSKEY_PEER]),
            "keyboard": (PORTS["CLI_KEYBOARD_PEER"], ["hr", "--secure", "--io", "keyboard-only", "--passkey", TYPED_PASSKEY,
                                                      "--address", KEYBOARD_PEER]),
        }, work)
        transport = f"tcp:127.0.0.1:{link[PORTS['CLI_PAIRING_CENTRAL']]}"

        def peer_log(name):
            return open(logs[name]).read()

        def pairings(name):
            return peer_log(name).count("PAIRED ")

        def stored_keys(path):
            """Every key in a bond file (32 hex digits), which no output may contain."""
            return {key for key in re.findall(r'"([0-9a-f]{32})"', open(path).read()) if key != "0" * 32}

        def no_keys_in(run, path):
            for key in stored_keys(path):
                expect(key not in (run.out + run.err).lower(), f"key material in the output: {run}")

        bonds = os.path.join(work, "state", "bonds.json")  # the directory does not exist yet

        @check("pair (Just Works) --json: method, level, key size, bonded, identity; the bond file 0600 in 0700")
        def _():
            before = pairings("jw")
            run = harald("pair", JW_PEER, "--bonds", bonds, "--json", transport=transport)
            expect_success(run)
            result = run.json_lines()
            expect(result == [{"address": JW_PEER, "method": "Just Works", "secureConnections": True, "level": "encrypted",
                               "keySize": 16, "bonded": True, "identityAddress": JW_PEER, "identityAddressType": "random",
                               "bonds": bonds, "security": {"level": 2, "name": "encrypted", "pairing": "secure-connections",
                                                            "keySize": 16, "bonded": True}}], run)
            expect(pairings("jw") == before + 1, peer_log("jw"))
            expect(stat.S_IMODE(os.stat(bonds).st_mode) == 0o600, oct(os.stat(bonds).st_mode))
            expect(stat.S_IMODE(os.stat(os.path.dirname(bonds)).st_mode) == 0o700, oct(os.stat(os.path.dirname(bonds)).st_mode))
            expect(stored_keys(bonds), "the bond file holds the LTK")
            no_keys_in(run, bonds)

        @check("pair again (text): pairs afresh and says how")
        def _():
            before = pairings("jw")
            run = harald("pair", JW_PEER, "--bonds", bonds, "--address-type", "random", transport=transport)
            expect_success(run)
            expect("method: LE Secure Connections, Just Works" in run.out and "bonded: yes" in run.out, run)
            expect(JW_PEER in run.out and "128 bits" in run.out, run)
            expect("security: level 2 (encrypted, unauthenticated, LE Secure Connections), 128-bit key, bonded" in run.out, run)
            expect(pairings("jw") == before + 1, peer_log("jw"))
            no_keys_in(run, bonds)

        @check("bonds list: a table and --json, without key material")
        def _():
            table = harald("bonds", "list", "--bonds", bonds, transport=None)
            expect_success(table)
            expect(table.lines[0].split()[:2] == ["ADDRESS", "TYPE"] and JW_PEER in table.lines[1], table)
            listed = harald("bonds", "list", "--bonds", bonds, "--json", transport=None)
            expect_success(listed)
            entries = listed.json_lines()
            expect(len(entries) == 1, listed)
            entry = entries[0]
            expect(entry["address"] == JW_PEER and entry["addressType"] == "random" and entry["level"] == "encrypted", entry)
            expect(entry["keySize"] == 16 and entry["secureConnections"] is True and "LTK" in entry["keys"], entry)
            no_keys_in(table, bonds)
            no_keys_in(listed, bonds)

        @check("bonds remove: forgets the bond; a second remove is an error")
        def _():
            run = harald("bonds", "remove", JW_PEER, "--bonds", bonds, transport=None)
            expect_success(run)
            expect(f"removed the bond of {JW_PEER}" in run.out, run)
            listed = harald("bonds", "list", "--bonds", bonds, "--json", transport=None)
            expect_success(listed)
            expect(listed.lines == [], listed)
            again = harald("bonds", "remove", JW_PEER, "--bonds", bonds, transport=None)
            expect_error(again)
            expect("no bond" in again.err, again)

        fresh = os.path.join(work, "read-bonds.json")

        @check("read of a characteristic that needs encryption: pairs, stores the bond, prints the value")
        def _():
            before = pairings("jw")
            run = harald("read", JW_PEER, "2A38", "--bonds", fresh, "--json", "--address-type", "random", "--log-level", "notice",
                         transport=transport)
            expect(run.status == 0, run)
            value = run.json_lines()
            expect(len(value) == 1 and value[0]["hex"] == "01" and value[0]["decoded"]["location"] == "chest", run)
            expect("paired and stored the bond" in run.err, run)
            expect(pairings("jw") == before + 1, peer_log("jw"))
            listed = harald("bonds", "list", "--bonds", fresh, "--json", transport=None)
            expect([entry["address"] for entry in listed.json_lines()] == [JW_PEER], listed)
            no_keys_in(run, fresh)

        @check("read again: re-encrypts with the stored bond, does not pair, leaves the bond file unchanged")
        def _():
            before, encryptions = pairings("jw"), peer_log("jw").count("ENCRYPTED ")
            with open(fresh, "rb") as file:
                contents = file.read()
            modified = os.stat(fresh).st_mtime_ns
            run = harald("read", JW_PEER, "2A38", "--bonds", fresh, "--json", "--address-type", "random", "--log-level", "notice",
                         transport=transport)
            expect(run.status == 0, run)
            value = run.json_lines()
            expect(len(value) == 1 and value[0]["hex"] == "01" and value[0]["decoded"]["location"] == "chest", run)
            expect("encrypted with the stored bond, without pairing" in run.err and "paired" not in run.err, run)
            expect(pairings("jw") == before, f"paired again: {peer_log('jw')}")
            expect(peer_log("jw").count("ENCRYPTED ") == encryptions + 1, peer_log("jw"))
            with open(fresh, "rb") as file:
                expect(file.read() == contents, "the bond file changed")
            expect(os.stat(fresh).st_mtime_ns == modified, "the bond file was rewritten")
            no_keys_in(run, fresh)

        @check("without --bonds the bond file is $XDG_CONFIG_HOME/harald/bonds.json")
        def _():
            # A config home of its own: other checks (harald demo's pairing flow) may have bonded there.
            previous = os.environ["XDG_CONFIG_HOME"]
            os.environ["XDG_CONFIG_HOME"] = os.path.join(work, "config")
            try:
                default = os.path.join(os.environ["XDG_CONFIG_HOME"], "harald", "bonds.json")
                run = harald("read", JW_PEER, "2A38", "--json", "--address-type", "random", transport=transport)
                expect_success(run)
                expect(os.path.exists(default) and stat.S_IMODE(os.stat(default).st_mode) == 0o600, default)
                listed = harald("bonds", "list", "--json", transport=None)
                expect([entry["address"] for entry in listed.json_lines()] == [JW_PEER], listed)
            finally:
                os.environ["XDG_CONFIG_HOME"] = previous

        @check("dump without a bond marks the value that needs encryption (0x0F) in the tree and goes on")
        def _():
            nobond = os.path.join(work, "dump-nobond", "bonds.json")
            run = harald("dump", JW_PEER, "--bonds", nobond, "--address-type", "random", transport=transport)
            expect_success(run)
            location = next(line for line in run.lines if "─ 2A38 Body Sensor Location" in line)
            expect("[read]" in location and "needs encryption" in location and "0x0F" in location, run)
            level = next(line for line in run.lines if "─ 2A19 Battery Level" in line)
            expect("readable" in level, run)

        @check("a read that needs no encryption leaves no bond file behind")
        def _():
            untouched = os.path.join(work, "untouched", "bonds.json")
            run = harald("read", JW_PEER, "2A19", "--bonds", untouched, "--json", "--address-type", "random", transport=transport)
            expect_success(run)
            expect(not os.path.exists(os.path.dirname(untouched)), "a run without pairing wrote the bond file")

        @check("wrong passkey: non-zero exit within the SMP timeout, 'pairing failed' and why")
        def _():
            wrong = os.path.join(work, "wrong.json")
            run = harald("pair", PASSKEY_PEER, "--bonds", wrong, "--io", "keyboard-only", "--passkey", "111111",
                         "--address-type", "random", transport=transport)
            expect_error(run, within=SMP_TIMEOUT)
            expect("pairing failed" in run.err and "Confirm Value Failed" in run.err, run)
            expect(run.status == EX_PROTOCOL, f"a failed pairing exits 76: {run}")
            expect("111111" not in run.err, f"the passkey in the output: {run}")
            expect(not os.path.exists(wrong), "a failed pairing stored something")
            expect("PAIRING FAILED" in peer_log("passkey"), peer_log("passkey"))

        @check("passkey needed, none given, stdin not a terminal: fails at once and says to pass --passkey")
        def _():
            run = harald("pair", PASSKEY_PEER, "--bonds", os.path.join(work, "none.json"), "--address-type", "random",
                         transport=transport)
            expect_error(run, within=SMP_TIMEOUT)
            expect("pairing failed" in run.err and "--passkey" in run.err and "not a terminal" in run.err, run)

        @check("a read that fails (needs encryption, pairing cannot finish): the peer sees 0x13, not a supervision timeout")
        def _():
            def reasons():
                return re.findall(r"DISCONNECTED reason=(0x[0-9A-F]{2})", peer_log("passkey"))
            before = len(reasons())
            run = harald("read", PASSKEY_PEER, "2A38", "--bonds", os.path.join(work, "none.json"), "--address-type", "random",
                         transport=transport)
            expect_error(run, within=SMP_TIMEOUT)
            # harald exits once its controller reported Disconnection Complete; the peer's report
            # travels the virtual link too, so it may land a moment later.
            for _ in range(50):
                if len(reasons()) > before:
                    break
                time.sleep(0.1)
            expect(reasons()[before:] == ["0x13"], f"the peer saw the link end with {reasons()[before:]}: {peer_log('passkey')[-600:]}")

        @check("right passkey: Passkey Entry, authenticated, bonded")
        def _():
            run = harald("pair", PASSKEY_PEER, "--bonds", os.path.join(work, "passkey.json"), "--passkey", PEER_PASSKEY, "--json",
                         "--address-type", "random", transport=transport)
            expect_success(run)
            result = run.json_lines()[0]
            expect(result["method"] == "Passkey Entry" and result["level"] == "authenticated-secure-connections", run)
            expect(result["bonded"] is True and result["identityAddress"] == PASSKEY_PEER, run)
            expect("authenticated=True" in peer_log("passkey"), peer_log("passkey"))

        @check("this side displays a fresh random passkey on every pairing, never --passkey; --fixed-passkey N shows N, with a warning")
        def _():
            shown = []
            for _ in range(2):
                # --passkey is what this side types: it is never shown. The peer types its own fixed
                # passkey, so these pairings fail (unless the random one matches: one in a million).
                run = harald("pair", KEYBOARD_PEER, "--bonds", os.path.join(work, "display.json"), "--io", "display-only",
                             "--passkey", TYPED_PASSKEY, "--address-type", "random", transport=transport)
                match = re.search(r"Type the passkey (\d{6}) on the device", run.err)
                expect(match, run)
                shown.append(match.group(1))
                expect(run.status not in (0, "hung") and "--fixed-passkey" not in run.err, run)
            expect(shown[0] != shown[1] and TYPED_PASSKEY not in shown, f"the displayed passkeys: {shown}")
            run = harald("pair", KEYBOARD_PEER, "--bonds", os.path.join(work, "display.json"), "--io", "display-only",
                         "--fixed-passkey", TYPED_PASSKEY, "--json", "--address-type", "random", transport=transport)
            expect(run.status == 0, run)
            expect(f"Type the passkey {TYPED_PASSKEY} on the device" in run.err, run)
            expect("warning: --fixed-passkey" in run.err, run)
            result = run.json_lines()[0]
            expect(result["method"] == "Passkey Entry" and result["level"] == "authenticated-secure-connections", run)
            expect(result["security"]["level"] == 4 and result["security"]["pairing"] == "secure-connections", run)
            wrong = harald("pair", KEYBOARD_PEER, "--bonds", os.path.join(work, "display.json"), "--io", "display-only",
                           "--fixed-passkey", "111111", "--address-type", "random", transport=transport)
            expect(wrong.status not in (0, "hung") and wrong.seconds <= SMP_TIMEOUT, wrong)
            expect("pairing failed" in wrong.err and "Confirm Value Failed" in wrong.err, wrong)

        @check("--log-level takes trace…error (and --verbose still works); anything else is a usage error")
        def _():
            for level in ("trace", "debug", "info", "notice", "warning", "error"):
                run = harald("read", JW_PEER, "2A19", "--bonds", fresh, "--json", "--address-type", "random", "--log-level", level,
                             transport=transport)
                expect(run.status == 0 and run.json_lines()[0]["hex"] == "57", run)
                if level in ("warning", "error"):
                    expect(run.err.strip() == "", run)
            verbose = harald("read", JW_PEER, "2A19", "--bonds", fresh, "--json", "--address-type", "random", "--verbose",
                             transport=transport)
            expect(verbose.status == 0, verbose)
            loud = harald("read", JW_PEER, "2A19", "--log-level", "loud", transport=transport)
            expect(loud.status == 64 and "log-level" in loud.err, loud)

        @check("pairing options are checked before touching the radio: passkey, IO, address")
        def _():
            for args in (("pair", JW_PEER, "--passkey", "1000000"), ("pair", JW_PEER, "--passkey", "12a"),
                         ("pair", JW_PEER, "--passkey", "-1"), ("read", JW_PEER, "2A38", "--io", "telepathy"),
                         ("pair", "C0:00:00:00:21"), ("bonds", "remove", "nowhere")):
                run = harald(*args, transport=transport if args[0] != "bonds" else None)
                expect(run.status == 64 and run.out.strip() == "", f"expected a usage error: {run}")
            run = harald("pair", JW_PEER, "--passkey", "1000000", transport=transport)
            expect("0 to 999999" in run.err, run)
    finally:
        stop(processes)
        shutil.rmtree(work, ignore_errors=True)

    @check("sim: pair says the simulator does not pair yet")
    def _():
        run = harald("pair", "C0:FF:EE:00:00:01", transport="sim")
        expect_error(run, within=10)
        expect("does not pair yet" in run.err, run)


def heart_rate_monitor_checks(transport):
    """`harald hrm monitor` and `harald demo`: on the simulator, and against the Bumble strap."""
    @check("sim: hrm monitor --json --count 3 gives heartRate, contact, energyExpended, rrIntervals (s)")
    def _():
        run = harald("hrm", "monitor", "C0:FF:EE:00:00:01", "--json", "--count", "3", transport="sim")
        expect_success(run)
        readings = run.json_lines()
        expect(len(readings) == 3, run)
        for reading in readings:
            expect(set(reading) == {"heartRate", "contact", "energyExpended", "rrIntervals"}, reading)
            expect(40 <= reading["heartRate"] <= 220 and reading["contact"] is True, reading)
            expect(isinstance(reading["energyExpended"], int), reading)
            # The virtual strap sends one RR interval per beat: 60 / bpm seconds, in 1/1024 s steps.
            expect(len(reading["rrIntervals"]) == 1 and abs(reading["rrIntervals"][0] - 60 / reading["heartRate"]) < 0.002, reading)

    @check("sim: hrm monitor prints one line per reading when stdout is not a terminal")
    def _():
        run = harald("hrm", "monitor", "C0:FF:EE:00:00:01", "--count", "4", transport="sim")
        expect_success(run)
        expect(len(run.lines) == 4 and all("bpm" in line and "RR" in line for line in run.lines), run)
        expect("\r" not in run.out and "\x1b" not in run.out, f"no in-place rewriting off a terminal: {run}")

    @check("hrm monitor --json --count 3 against the Bumble strap")
    def _():
        run = harald("hrm", "monitor", HR, "--json", "--count", "3", transport=transport)
        expect_success(run)
        readings = run.json_lines()
        expect(len(readings) == 3, run)
        for reading in readings:
            # The peer notifies contact, one RR interval matching the rate, and energy every other value.
            expect(60 <= reading["heartRate"] <= 99, reading)
            expect(reading["contact"] is True and len(reading["rrIntervals"]) == 1, reading)
            expect(abs(reading["rrIntervals"][0] - 60 / reading["heartRate"]) < 0.001, reading)
        expect(any(reading["energyExpended"] is not None for reading in readings), run)

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
            expect(expected in run.out, f"{expected!r} missing: {run}")
        total = next(line for line in run.lines if line.split("] ", 1)[-1].strip().startswith("total"))
        expect(int(total.split()[-6]) > 0, f"the total row counts ATT requests: {total}")

    @check("demo over tcp runs the strap, camera and band sections against the Bumble peers")
    def _():
        run = harald("demo", "--measurements", "3", transport=transport)
        expect_success(run)
        for expected in ("Harald-HR", "pairing: paired", "bpm", "camera: all statuses", "band: activity sync",
                         "summary", "total"):
            expect(expected in run.out, f"{expected!r} missing: {run}")
        expect("conn. events" not in run.out, f"connection events exist only on the simulator: {run}")


def summary():
    """Prints the tally; the exit status: 0 only when every recorded check passed."""
    failed = [name for name, error in results if error]
    print(f"cli_integration.py: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


def self_test():
    """Shows that the checks can fail, also under `python -O`: the file holds no `assert`
    statement (which -O would strip), a planted failing expectation and a check that crashes are
    each recorded as failures and make the exit status non-zero, and a passing check does not."""
    import ast
    with open(os.path.abspath(__file__)) as source:
        asserts = [node.lineno for node in ast.walk(ast.parse(source.read())) if isinstance(node, ast.Assert)]
    problems = [f"assert statements at lines {asserts}: python -O removes them"] if asserts else []

    @check("self-test: a planted failing expectation")
    def _():
        expect(1 + 1 == 3, "planted failure")

    @check("self-test: a check that raises")
    def _():
        {}["missing"]

    @check("self-test: a passing check")
    def _():
        expect(True)

    outcomes = [error is not None for _, error in results]
    if outcomes != [True, True, False]:
        problems.append(f"recorded outcomes (failed?) {outcomes}, expected [True, True, False]")
    if summary() == 0:
        problems.append("exit status 0 with failed checks")
    del results[:2]
    if summary() != 0:
        problems.append("non-zero exit status with only passing checks")
    for problem in problems:
        print(f"cli_integration.py --self-test: {problem}")
    print("cli_integration.py --self-test:", "FAILED" if problems else f"ok (optimize level {sys.flags.optimize})")
    return 1 if problems else 0


def main():
    global HARALD
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: scripts/cli_integration.py PORT | --self-test")
    os.chdir(ROOT)
    # The default bond file ($XDG_CONFIG_HOME/harald/bonds.json) of every harald run: never the user's.
    config_home = tempfile.mkdtemp()
    os.environ["XDG_CONFIG_HOME"] = config_home
    build = subprocess.run(["swift", "build", "--product", "harald"], capture_output=True, text=True)
    if build.returncode != 0:
        print(build.stdout[-3000:], build.stderr[-3000:])
        sys.exit("cli_integration.py: swift build --product harald failed")
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], capture_output=True, text=True).stdout.strip()
    HARALD = os.path.join(bin_path, "harald")
    python = subprocess.run([os.path.join(ROOT, "scripts/bumble/setup-venv")], capture_output=True, text=True).stdout.split()[-1]
    print("== CLI checks without a radio: version, completions, help", flush=True)
    basics_checks()
    serve_security_checks()
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
    print("== Pairing CLI checks on a private link with peers that need encryption", flush=True)
    pairing_checks(python)
    shutil.rmtree(config_home, ignore_errors=True)
    sys.exit(summary())


if __name__ == "__main__":
    main()
