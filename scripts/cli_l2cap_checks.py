"""`harald l2cap` end to end (issue 28), for scripts/cli_integration.py.

Runs on cli_integration.py's private link: scripts/bumble/l2cap_peer.py ("Harald-L2", echo PSM
0x80, source 0x82) on controller CLI_L2CAP_PEER for `harald l2cap connect` from CLI_CENTRAL, and
`harald l2cap listen` on CLI_L2CAP_LISTENER opened by scripts/bumble/l2cap_client.py (a Bumble
central) on CLI_L2CAP_CLIENT. Binary data goes in and out as bytes, never as text.
"""
import os
import signal
import subprocess
import time

L2CAP_PEER = "C0:00:00:00:00:21"
LISTENER = "C0:00:00:00:00:31"
EX_USAGE, EX_PROTOCOL = 64, 76
LIMIT = 40  # seconds any one harald run may take


def run_bytes(harald, args, data):
    """Runs harald with `data` on stdin; returns (status, stdout bytes, stderr text, seconds)."""
    start = time.monotonic()
    try:
        done = subprocess.run([harald, *args], input=data, capture_output=True, timeout=LIMIT)
        status, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        status, out, err = "hung", expired.stdout or b"", expired.stderr or b""
    return status, out, err.decode(errors="replace"), time.monotonic() - start


def wait_for(path, text, seconds=30):
    for _ in range(int(seconds * 10)):
        if os.path.exists(path) and text in open(path, errors="replace").read():
            return True
        time.sleep(0.1)
    return False


def checks(*, harald, python, root, link, names, work, processes, check, expect):
    """Starts the L2CAP peer on `link` (ports by index; `names` from ports.env), then the checks."""
    peer_log = os.path.join(work, "l2cap_peer.log")
    processes.append(subprocess.Popen(
        [python, os.path.join(root, "scripts/bumble/l2cap_peer.py"), "--address", L2CAP_PEER,
         "--transport", f"tcp-client:127.0.0.1:{link[names['CLI_L2CAP_PEER']]}"],
        stdout=open(peer_log, "w"), stderr=subprocess.STDOUT))
    central = f"tcp:127.0.0.1:{link[names['CLI_CENTRAL']]}"
    ready = wait_for(peer_log, "READY")

    @check("l2cap connect to the echo PSM 0x80: 100 KiB of random bytes (and all 256 values) come back unchanged")
    def _():
        expect(ready, f"l2cap_peer.py did not start: {open(peer_log).read()[-2000:]}")
        data = os.urandom(100 * 1024) + bytes(range(256)) + b"\r\n\n\r\x00\x1a"
        status, out, err, seconds = run_bytes(
            harald, ["l2cap", "connect", L2CAP_PEER, "--psm", "0x80", "--address-type", "random", "--transport", central], data)
        expect(status == 0, f"exit {status} after {seconds:.1f}s, stderr {err[-400:]!r}")
        expect(len(out) == len(data), f"{len(out)} bytes back for {len(data)}")
        expect(out == data, "the bytes came back changed")
        expect(err.strip() == "", f"expected a quiet stderr: {err[-400:]!r}")

    @check("l2cap connect ends when the peer closes the channel (source PSM 0x82), well before --linger")
    def _():
        status, out, err, seconds = run_bytes(
            harald, ["l2cap", "connect", L2CAP_PEER, "--psm", "130", "--linger", "30", "--transport", central], b"send 5000")
        expect(status == 0, f"exit {status}, stderr {err[-400:]!r}")
        expect(out == bytes(index % 251 for index in range(5000)), f"{len(out)} bytes, not the source's 5000")
        expect(seconds < 25, f"took {seconds:.1f}s: the peer's close did not end it")

    @check("l2cap connect to an unserved PSM: exit 76 and the refusal on stderr")
    def _():
        status, out, err, seconds = run_bytes(
            harald, ["l2cap", "connect", L2CAP_PEER, "--psm", "0x90", "--address-type", "random", "--transport", central], b"x")
        expect(status == EX_PROTOCOL, f"exit {status}, stderr {err!r}")
        lines = err.strip().splitlines()
        expect(len(lines) == 1 and lines[0].startswith("error: ") and "PSM not supported" in lines[0], f"stderr {err!r}")
        expect(out == b"", f"stdout {out!r}")

    @check("l2cap connect --psm 0x100 is a usage error (outside the LE range)")
    def _():
        status, out, err, _ = run_bytes(harald, ["l2cap", "connect", L2CAP_PEER, "--psm", "0x100", "--transport", central], b"")
        expect(status == EX_USAGE and "not an LE PSM" in err, f"exit {status}, stderr {err!r}")

    def listen_check(enhanced):
        out_path, err_path = os.path.join(work, "listen.out"), os.path.join(work, "listen.err")
        listener = subprocess.Popen(
            [harald, "l2cap", "listen", "--psm", "0x80", "--address", LISTENER,
             "--transport", f"tcp:127.0.0.1:{link[names['CLI_L2CAP_LISTENER']]}"],
            stdin=subprocess.PIPE, stdout=open(out_path, "wb"), stderr=open(err_path, "w"))
        processes.append(listener)
        to_harald = bytes(range(255, -1, -1)) * 3 + b"\x00\r\n"
        to_central = os.urandom(3000) + bytes(range(256))
        expect(wait_for(err_path, "listening"), f"listen did not start: {open(err_path).read()[-2000:]}")
        client = subprocess.Popen(
            [python, os.path.join(root, "scripts/bumble/l2cap_client.py"), "--address", LISTENER, "--psm", "0x80",
             "--send", to_central.hex(), "--expect", str(len(to_harald))] + (["--enhanced"] if enhanced else []) + [
             "--transport", f"tcp-client:127.0.0.1:{link[names['CLI_L2CAP_CLIENT']]}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        processes.append(client)
        opened = client.stdout.readline()
        expect(opened.startswith("OPEN"), f"the central did not open the channel: {opened!r} {open(err_path).read()[-2000:]}")
        # stdin only once the channel is open: Bumble drops data that comes before its sink is set.
        listener.stdin.write(to_harald)
        listener.stdin.close()
        try:
            rest, _ = client.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            client.kill()
            rest = ""
        received = next((line.split()[1] for line in rest.splitlines() if line.startswith("RECEIVED ") and len(line.split()) == 2), "")
        expect(bytes.fromhex(received) == to_harald,
               f"the central got {len(received) // 2} bytes: {rest[-400:]!r}; listen's stderr: {open(err_path).read()[-1500:]!r}")
        expect(wait_for(err_path, "channel closed", seconds=10), open(err_path).read()[-2000:])
        listener.send_signal(signal.SIGINT)
        try:
            status = listener.wait(timeout=15)
        except subprocess.TimeoutExpired:
            status = "hung"
        expect(status == 0, f"listen exited {status} on SIGINT: {open(err_path).read()[-2000:]}")
        expect(open(out_path, "rb").read() == to_central, "stdout does not hold the central's bytes unchanged")

    @check("l2cap listen: a Bumble central's bytes reach stdout, and stdin reaches the central, byte for byte")
    def _():
        listen_check(enhanced=False)

    @check("l2cap listen: the same over an Enhanced Credit Based channel the Bumble central opens")
    def _():
        listen_check(enhanced=True)
