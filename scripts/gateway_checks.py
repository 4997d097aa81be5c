#!/usr/bin/env python3
"""Checks `harald gateway` (and `harald fleet`) against a real broker, Debian's Mosquitto, with
Mosquitto's own `mosquitto_sub` as the independent consumer.

Usage: scripts/gateway_checks.py [PORT]
       scripts/gateway_checks.py --self-test   shows a failing check fails the run
  The gateways listen to the simulator's virtual room (`--transport sim`: BTHome thermometer
  A4:C1:38:00:00:01 "Kitchen" and door sensor A4:C1:38:00:00:02 "Front door", in real time).
  PORT, when given, is a Bumble virtual controller whose link carries scripts/integration's peers
  (the heart-rate peer "Harald-HR" C0:00:00:00:00:01): one gateway runs over HCI against it.
  Each broker is started here on a free loopback port (`mosquitto -c` with a configuration in a
  temporary directory, no persistence) and stopped by its PID; `scripts/mosquitto start` installs
  Mosquitto first when missing. Every process has a hard time limit.
Exit status 0 when every check passes.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARALD = None
THERMOMETER, DOOR = "A4C138000001", "A4C138000002"
BUMBLE_HR = "C00000000001"
EX_USAGE = 64
results = []


def check(name):
    def wrap(function):
        def run(*args):
            try:
                function(*args)
                results.append((name, None))
                print(f"ok    {name}", flush=True)
            except Exception as error:  # a failed check is reported, and the run goes on
                results.append((name, error))
                print(f"FAIL  {name}: {error}", flush=True)
        return run
    return wrap


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """A Mosquitto on 127.0.0.1:port, started and stopped by PID; restartable on the same port."""

    def __init__(self):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="harald-gateway-broker.")
        os.chmod(self.dir, 0o755)  # mosquitto started as root reads it as its own user
        self.process = None

    def start(self):
        conf = os.path.join(self.dir, "mosquitto.conf")
        with open(conf, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n")
        os.chmod(conf, 0o644)
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.log = open(os.path.join(self.dir, "mosquitto.log"), "a")
        self.process = subprocess.Popen([binary, "-c", conf], stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                expect(self.process.poll() is None, "mosquitto exited at start")
                time.sleep(0.1)
        raise AssertionError("mosquitto did not listen")

    def stop(self):
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None

    def remove(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def subscribe(broker, topic, count, wait=20):
    """The first `count` messages on `topic` (retained ones included) as (retained, topic, payload)."""
    done = subprocess.run(
        ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", topic, "-C", str(count), "-W", str(wait),
         "-F", "%r\t%t\t%p"],
        capture_output=True, text=True, timeout=wait + 10)
    messages = []
    for line in done.stdout.splitlines():
        retained, name, payload = line.split("\t", 2)
        messages.append((retained == "1", name, payload))
    return messages


def retained(broker, topic, count=1):
    """The retained messages on `topic`: what a subscriber arriving now is given at once."""
    return [m for m in subscribe(broker, topic, count, wait=3) if m[0]]


class Process:
    """A harald process in the background with a hard limit; stopped by its PID."""

    def __init__(self, *args, limit=120):
        self.args = args
        self.out = tempfile.TemporaryFile(mode="w+")
        self.err = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen([HARALD, *args], stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL)
        self.deadline = time.monotonic() + limit

    def signal(self, number):
        if self.process.poll() is None:
            os.kill(self.process.pid, number)

    def wait(self, seconds=20):
        try:
            return self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.process.wait()
            raise AssertionError(f"`harald {' '.join(self.args)}` did not end within {seconds} s")

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def stdout(self):
        self.out.seek(0)
        return self.out.read()

    def kill(self):
        self.signal(signal.SIGKILL)
        self.process.wait()


def gateway(broker, name, *extra):
    return Process("gateway", "--broker", f"mqtt://127.0.0.1:{broker.port}", "--id", name, *extra)


def wait_for(description, probe, seconds=30):
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{description}: not within {seconds} s")
        time.sleep(0.5)


# MARK: the checks

@check("a gateway's report of a BTHome thermometer carries its decoded values, units, name and RSSI")
def report_carries_values(broker):
    (_, topic, payload), = subscribe(broker, f"home/hall/BTtoMQTT/{THERMOMETER}", 1)
    report = json.loads(payload)
    expect(topic == f"home/hall/BTtoMQTT/{THERMOMETER}", topic)
    expect(report["id"] == "A4:C1:38:00:00:01" and report["name"] == "Kitchen", report)
    expect(isinstance(report["temperature"], (int, float)) and 20 < report["temperature"] < 25, report)
    expect(report["units"] == {"battery": "%", "humidity": "%", "temperature": "°C"}, report)
    expect(report["rssi"] == -52 and report["gateway"] == "hall", report)


@check("the gateway's availability is a retained online while it runs")
def availability_online(broker):
    expect(retained(broker, "home/hall/LWT") == [(True, "home/hall/LWT", "online")], retained(broker, "home/hall/LWT"))


@check("every decoded value has a retained Home Assistant discovery config naming its unit and class")
def discovery_retained(broker):
    configs = retained(broker, f"homeassistant/+/harald_{THERMOMETER}/+/config", 3)
    by_topic = {topic: json.loads(payload) for _, topic, payload in configs}
    expect(sorted(by_topic) == [f"homeassistant/sensor/harald_{THERMOMETER}/{key}/config" for key in ("battery", "humidity", "temperature")],
           sorted(by_topic))
    temperature = by_topic[f"homeassistant/sensor/harald_{THERMOMETER}/temperature/config"]
    expect(temperature["unit_of_measurement"] == "°C" and temperature["device_class"] == "temperature", temperature)
    expect(temperature["state_topic"] == f"home/hall/BTtoMQTT/{THERMOMETER}", temperature)
    expect(temperature["availability_topic"] == "home/hall/LWT", temperature)
    expect(temperature["device"]["name"] == "Kitchen", temperature)


@check("an on/off value is a retained binary_sensor config")
def door_is_binary_sensor(broker):
    configs = retained(broker, f"homeassistant/binary_sensor/harald_{DOOR}/door/config")
    expect(len(configs) == 1, configs)
    expect(json.loads(configs[0][2])["device_class"] == "door", configs)


@check("a broker restart mid-run loses nothing: online and the discovery configs are retained again, reports flow")
def broker_restart(broker):
    broker.stop()
    broker.start()  # no persistence: every retained message is gone until the gateway sends it again
    wait_for("retained online after the restart", lambda: retained(broker, "home/hall/LWT") == [(True, "home/hall/LWT", "online")])
    wait_for("retained discovery configs after the restart",
             lambda: len(retained(broker, f"homeassistant/+/harald_{THERMOMETER}/+/config", 3)) == 3)
    expect(len(subscribe(broker, f"home/hall/BTtoMQTT/{THERMOMETER}", 1, wait=45)) == 1, "no report after the restart")


def fleet_view(broker, address):
    views = retained(broker, f"home/fleet/{address}")
    return json.loads(views[0][2]) if views and views[0][2] else None


@check("the fleet gives a device to the gateway that hears it more than 16 dB stronger")
def fleet_owner_is_the_stronger_gateway(broker):
    view = wait_for("the thermometer owned by hall",
                    lambda: (lambda v: v if v and v.get("owner") == "hall" else None)(fleet_view(broker, THERMOMETER)))
    expect(view["present"] is True and view["id"] == "A4:C1:38:00:00:01", view)
    expect(set(view["rssi"]) == {"hall", "porch"} and view["rssi"]["hall"] - view["rssi"]["porch"] > 16, view)


@check("the fleet publishes every gateway's liveness, retained")
def fleet_gateways_online(broker):
    wait_for("hall and porch online", lambda: retained(broker, "home/fleet/gateways")
             and json.loads(retained(broker, "home/fleet/gateways")[0][2]) == {"hall": "online", "porch": "online"})


@check("a killed gateway's last will is a retained offline, and the fleet moves its devices to the next gateway")
def killed_gateway_will(broker, process):
    process.kill()
    wait_for("retained offline", lambda: retained(broker, "home/hall/LWT") == [(True, "home/hall/LWT", "offline")], seconds=15)
    wait_for("the thermometer owned by porch",
             lambda: (fleet_view(broker, THERMOMETER) or {}).get("owner") == "porch", seconds=30)
    wait_for("hall offline in the fleet's gateways",
             lambda: retained(broker, "home/fleet/gateways")
             and json.loads(retained(broker, "home/fleet/gateways")[0][2]).get("hall") == "offline", seconds=15)


@check("a gateway 14 dB stronger than the owner does not take the device; one 20 dB stronger does")
def switch_needs_more_than_the_threshold(broker, processes):
    # porch (20 dB down) owns the thermometer now; cellar hears it 6 dB down, 14 dB above porch.
    cellar = gateway(broker, "cellar", "--sim-attenuation", "6", "--no-discovery")
    processes.append(cellar)
    view = wait_for("cellar's RSSI in the fleet's view",
                    lambda: (lambda v: v if v and "cellar" in v.get("rssi", {}) else None)(fleet_view(broker, THERMOMETER)))
    expect(view["owner"] == "porch", f"14 dB stronger took the device: {view}")
    time.sleep(5)  # more reports from both; the owner must not move
    view = fleet_view(broker, THERMOMETER)
    expect(view["owner"] == "porch" and view["rssi"]["cellar"] - view["rssi"]["porch"] < 16, view)
    loft = gateway(broker, "loft", "--no-discovery")  # 0 dB down: 20 dB above porch
    processes.append(loft)
    wait_for("the thermometer owned by loft", lambda: (fleet_view(broker, THERMOMETER) or {}).get("owner") == "loft", seconds=30)


@check("SIGINT stops the fleet with exit 0 and a retained offline")
def fleet_stops_cleanly(broker, fleet):
    fleet.signal(signal.SIGINT)
    status = fleet.wait()
    expect(status == 0, f"exit {status}: {fleet.stderr()[-400:]}")
    expect(retained(broker, "home/fleet/LWT") == [(True, "home/fleet/LWT", "offline")], retained(broker, "home/fleet/LWT"))


@check("SIGINT stops a gateway with exit 0, a retained offline and a summary on stderr")
def sigint_stops_cleanly(broker):
    process = gateway(broker, "attic")
    wait_for("attic online", lambda: retained(broker, "home/attic/LWT") == [(True, "home/attic/LWT", "online")])
    process.signal(signal.SIGINT)
    status = process.wait()
    expect(status == 0, f"exit {status}: {process.stderr()[-400:]}")
    expect(retained(broker, "home/attic/LWT") == [(True, "home/attic/LWT", "offline")], "no retained offline")
    expect("gateway attic:" in process.stderr() and "advertisements" in process.stderr(), process.stderr()[-400:])


@check("a broker URL that is not mqtt:// or mqtts:// exits 64")
def bad_broker_url(_broker):
    done = subprocess.run([HARALD, "gateway", "--broker", "http://127.0.0.1:1883"], capture_output=True, text=True, timeout=30)
    expect(done.returncode == EX_USAGE, f"exit {done.returncode}: {done.stderr[-300:]}")


@check("a gateway over HCI publishes the Bumble heart-rate peer it hears")
def bumble_gateway(broker, controller_port):
    process = gateway(broker, "bumble", "--transport", f"tcp:127.0.0.1:{controller_port}", "--no-discovery", "--duration", "15")
    try:
        (_, _, payload), = subscribe(broker, f"home/bumble/BTtoMQTT/{BUMBLE_HR}", 1, wait=25)
        report = json.loads(payload)
        expect(report["id"] == "C0:00:00:00:00:01" and report["name"] == "Harald-HR", report)
        expect(report["address_type"] == "random" and isinstance(report.get("rssi"), int), report)
    finally:
        process.wait(40)


def run_all(controller_port):
    broker = Broker()
    broker.start()
    processes = []
    try:
        fleet = Process("fleet", "--broker", f"mqtt://127.0.0.1:{broker.port}")
        hall = gateway(broker, "hall")
        porch = gateway(broker, "porch", "--sim-attenuation", "20", "--no-discovery")
        processes += [fleet, hall, porch]
        report_carries_values(broker)
        availability_online(broker)
        discovery_retained(broker)
        door_is_binary_sensor(broker)
        fleet_owner_is_the_stronger_gateway(broker)
        fleet_gateways_online(broker)
        broker_restart(broker)
        killed_gateway_will(broker, hall)
        switch_needs_more_than_the_threshold(broker, processes)
        sigint_stops_cleanly(broker)
        bad_broker_url(broker)
        if controller_port:
            bumble_gateway(broker, controller_port)
        fleet_stops_cleanly(broker, fleet)
    finally:
        failed_any = any(error for _, error in results)
        for process in processes:
            process.kill()
            if failed_any:
                print(f"`harald {' '.join(process.args)}` stderr:", process.stderr()[-1500:], file=sys.stderr)
        broker.remove()
    failed = [name for name, error in results if error]
    print(f"gateway checks: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def self_test():
    """A check that cannot pass must fail the run."""
    @check("planted: a false expectation")
    def planted():
        expect(False, "planted")
    planted()
    failed = [name for name, error in results if error]
    results.clear()
    return 0 if failed == ["planted: a false expectation"] else 1


def main():
    global HARALD
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    subprocess.run([os.path.join(ROOT, "scripts", "mosquitto"), "install"], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not shutil.which("mosquitto_sub"):
        print("gateway checks: mosquitto_sub missing (scripts/mosquitto installs it)", file=sys.stderr)
        sys.exit(1)
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    HARALD = os.path.join(bin_path, "harald")
    sys.exit(run_all(sys.argv[1] if len(sys.argv) > 1 else None))


if __name__ == "__main__":
    main()
