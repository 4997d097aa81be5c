#!/usr/bin/env python3
"""The controller indices named in ports.env, for Python; and, as a program, the ports of a
controllers.py --ready-file, one per line (for bash: mapfile -t ports < <(ports.py FILE)).
"""
import json
import os
import re
import sys

PORTS_ENV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ports.env")


def names(path=PORTS_ENV):
    """NAME -> index, from the NAME=NUMBER lines of ports.env."""
    found = {}
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            match = re.fullmatch(r"([A-Z][A-Z0-9_]*)=([0-9]+)", line)
            if not match:
                raise ValueError(f"{path}:{number}: expected NAME=NUMBER, got {line!r}")
            found[match[1]] = int(match[2])
    return found


def ready_ports(path):
    """The TCP ports controllers.py wrote to its --ready-file, in controller order."""
    with open(path) as handle:
        return json.load(handle)["ports"]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: ports.py READY_FILE")
    print("\n".join(str(port) for port in ready_ports(sys.argv[1])))
