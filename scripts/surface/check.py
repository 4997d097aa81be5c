#!/usr/bin/env python3
"""Checks that `import Harald` reaches every type Harald's public declarations name.

Usage: scripts/check-surface              check the last debug build's Harald module
       scripts/check-surface --list       also list, per module, the types Harald's API names
       scripts/check-surface --self-test  check the checker on planted symbol graphs
(scripts/check-surface runs this file.)

`swift symbolgraph-extract` writes Harald's public symbols (and its extensions of other modules'
types) as JSON. Every type reference in a public declaration (its declaration fragments and its
function signature) carries the USR of the type, whose mangled module name says where the type
lives. A type from a module of this package must come from Harald or from a module that
Harald's line in scripts/architecture/layers.txt marks `@_exported`; types from outside the
package (the standard library, Foundation, swift-log's Logger) are listed, not checked: an app
that names them imports their module anyway. Exit status 0 when every package type is reachable.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LAYERS = os.path.join(ROOT, "scripts", "architecture", "layers.txt")
MODULE = "Harald"


def layer_table(path):
    """Every module with a line in the layer table, and the modules `MODULE`'s line re-exports."""
    modules, exported = set(), set()
    with open(path) as handle:
        for line in handle:
            line = line.split("#", 1)[0].strip()
            name, colon, allowed = line.partition(":")
            if not colon or not re.fullmatch(r"\w+", name.strip()):
                continue
            modules.add(name.strip())
            if name.strip() == MODULE:
                exported = set(re.findall(r"@_exported\s+(\w+)", allowed))
    return modules, exported


def usr_module(usr):
    """The module a Swift USR names (`s:11HaraldCore4RSSIV` → HaraldCore); None for the standard
    library's short manglings (`s:Si`, `s:SS`) and for anything that is not a Swift USR."""
    match = re.match(r"s:(\d+)(\w+)", usr)
    if not match:
        return None
    length = int(match[1])
    return match[2][:length] if len(match[2]) >= length else None


def references(graph):
    """(module, type name) for every type a public declaration of the graph names."""
    found = set()
    for symbol in graph.get("symbols", []):
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        fragments = list(symbol.get("declarationFragments", []))
        signature = symbol.get("functionSignature", {})
        for parameter in signature.get("parameters", []):
            fragments += parameter.get("declarationFragments", [])
        fragments += signature.get("returns", [])
        for fragment in fragments:
            if fragment.get("kind") == "typeIdentifier" and "preciseIdentifier" in fragment:
                found.add((usr_module(fragment["preciseIdentifier"]), fragment.get("spelling", "?")))
    return found


def check(graphs, package_modules, exported, show_list=False):
    """Prints the findings; returns the number of unreachable package types."""
    named = set()
    for graph in graphs:
        named |= references(graph)
    by_module = {}
    for module, name in named:
        by_module.setdefault(module or "(standard library)", set()).add(name)
    reachable = {MODULE} | exported
    problems = 0
    for module in sorted(by_module):
        names = sorted(by_module[module])
        if module in package_modules and module not in reachable:
            problems += len(names)
            print(f"error: Harald's public API names {module}'s {', '.join(names)}, which `import Harald` does not "
                  f"bring (re-export {module} from Harald, or keep its types out of Harald's public signatures)")
        elif show_list:
            where = "Harald" if module == MODULE else "re-exported" if module in exported else \
                "outside the package" if module not in package_modules else "?"
            print(f"{module} ({where}): {len(names)} types: {', '.join(names)}")
    summary = ", ".join(f"{module} {len(by_module[module])}" for module in sorted(by_module) if module in package_modules)
    if problems:
        print(f"check-surface: FAILED ({problems} types not reachable with `import Harald`)")
    else:
        others = sorted(m for m in by_module if m not in package_modules)
        print(f"check-surface: ok (types named per package module: {summary}; "
              f"from outside the package: {', '.join(others)})")
    return problems


def extract():
    """Harald's symbol graphs from the last debug build, as parsed JSON."""
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    modules = os.path.join(bin_path, "Modules")
    if not os.path.exists(os.path.join(modules, f"{MODULE}.swiftmodule")):
        modules = bin_path
    if not os.path.exists(os.path.join(modules, f"{MODULE}.swiftmodule")):
        sys.exit(f"check-surface: no {MODULE}.swiftmodule under {bin_path}: run `swift build` first")
    info = json.loads(subprocess.run(["swiftc", "-print-target-info"], capture_output=True, text=True,
                                     check=True).stdout)
    with tempfile.TemporaryDirectory() as output:
        subprocess.run(["swift", "symbolgraph-extract", "-module-name", MODULE, "-I", modules,
                        "-target", info["target"]["triple"], "-minimum-access-level", "public",
                        "-output-dir", output], check=True)
        graphs = []
        for path in sorted(glob.glob(os.path.join(output, f"{MODULE}*.symbols.json"))):
            with open(path) as handle:
                graphs.append(json.load(handle))
    return graphs


# --- self-test: planted symbol graphs ------------------------------------------------------------

def planted(*usrs, access="public"):
    """A symbol graph with one symbol whose declaration names the types `usrs`."""
    fragments = [{"kind": "typeIdentifier", "spelling": usr.rsplit("_", 1)[-1], "preciseIdentifier": usr} for usr in usrs]
    return {"symbols": [{"accessLevel": access, "declarationFragments": fragments}]}


def self_test():
    modules = {"Harald", "HaraldCore", "HaraldATT"}
    exported = {"HaraldCore"}
    cases = [
        ("Harald's own and re-exported types pass", True, [planted("s:6Harald7CentralC", "s:10HaraldCore4RSSIV")]),
        ("standard-library and outside types pass", True, [planted("s:Si", "s:7Logging6LoggerV", "s:SS")]),
        ("a type of a package module Harald does not re-export fails", False,
         [planted("s:10HaraldCore4RSSIV"), planted("s:9HaraldATT10GATTServerC")]),
        ("a parameter's type counts", False,
         [{"symbols": [{"accessLevel": "public", "functionSignature": {"parameters": [{"declarationFragments": [
             {"kind": "typeIdentifier", "spelling": "GATTServer", "preciseIdentifier": "s:9HaraldATT10GATTServerC"}]}]}}]}]),
        ("a return type counts", False,
         [{"symbols": [{"accessLevel": "public", "functionSignature": {"returns": [
             {"kind": "typeIdentifier", "spelling": "GATTServer", "preciseIdentifier": "s:9HaraldATT10GATTServerC"}]}}]}]),
        ("an internal declaration does not count", True, [planted("s:9HaraldATT10GATTServerC", access="internal")]),
    ]
    failures = 0
    for name, should_pass, graphs in cases:
        with open(os.devnull, "w") as quiet:
            stdout, sys.stdout = sys.stdout, quiet
            try:
                problems = check(graphs, modules, exported)
            finally:
                sys.stdout = stdout
        if (problems == 0) == should_pass:
            print(f"ok   {name}")
        else:
            failures += 1
            print(f"FAIL {name}: {problems} problems")
    print(f"check-surface self-test: {len(cases) - failures} passed, {failures} failed")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--self-test", action="store_true", help="check the checker on planted symbol graphs")
    parser.add_argument("--list", action="store_true", help="list the types Harald's API names, per module")
    args = parser.parse_args()
    if args.self_test:
        sys.exit(1 if self_test() else 0)
    package_modules, exported = layer_table(LAYERS)
    sys.exit(1 if check(extract(), package_modules, exported, args.list) else 0)


if __name__ == "__main__":
    main()
