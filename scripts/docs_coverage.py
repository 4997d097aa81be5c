#!/usr/bin/env python3
"""Documentation coverage of public declarations, per module, from SwiftPM's symbol graphs.

Reads .build/<triple>/extracted-symbols/<package>/<Module>/*.symbols.json (written by
`swift package generate-documentation`, see scripts/docs). Counted: every public or open symbol
declared in the module's own sources (Sources/<Module>/), including the members it adds to other
modules' types. Not counted: compiler-synthesized members and default implementations that come
from a protocol extension elsewhere (their source is not the module's). Documented: the symbol has
a `///` comment of its own, or it implements a protocol requirement and so carries the
requirement's comment (DocC shows it with --enable-inherited-docs).

Prints one line per module, then the total as the last line; exits 1 when a module is below the
bar, 2 when a module has no symbol graph.
  scripts/docs_coverage.py [--bar 95] [--missing MODULE]... MODULE...
"""
import argparse
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def graph_files(module):
    """The newest symbol-graph folder for the module (there is one per package checkout name)."""
    folders = glob.glob(os.path.join(ROOT, ".build", "*", "extracted-symbols", "*", module))
    if not folders:
        return []
    newest = max(folders, key=os.path.getmtime)
    return sorted(glob.glob(os.path.join(newest, "*.symbols.json")))


def coverage(module):
    """(declarations, with own comment, with inherited comment, undocumented [(file, line, name)])."""
    marker = f"/Sources/{module}/"
    counted, own, inherited, undocumented = 0, 0, 0, []
    seen = set()
    for path in graph_files(module):
        with open(path) as f:
            graph = json.load(f)
        for symbol in graph["symbols"]:
            precise = symbol["identifier"]["precise"]
            location = symbol.get("location")
            if "::SYNTHESIZED::" in precise or not location or marker not in location["uri"]:
                continue
            if symbol["accessLevel"] not in ("public", "open") or precise in seen:
                continue
            seen.add(precise)
            counted += 1
            comment = symbol.get("docComment")
            if comment and comment.get("lines") and comment.get("uri") == location["uri"]:
                own += 1
            elif comment and comment.get("lines"):
                inherited += 1
            else:
                file = location["uri"].split(marker, 1)[1]
                undocumented.append((file, location["position"]["line"] + 1, ".".join(symbol["pathComponents"])))
    return counted, own, inherited, undocumented


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bar", type=float, default=95.0)
    parser.add_argument("--missing", action="append", default=[], help="list this module's undocumented declarations")
    parser.add_argument("modules", nargs="+")
    args = parser.parse_args()

    total_counted = total_documented = 0
    below, absent = [], []
    width = max(len(m) for m in args.modules)
    for module in args.modules:
        if not graph_files(module):
            absent.append(module)
            print(f"{module:<{width}}  no symbol graph (run scripts/docs without --coverage-only)")
            continue
        counted, own, inherited, undocumented = coverage(module)
        documented = own + inherited
        percent = 100.0 * documented / counted if counted else 100.0
        total_counted += counted
        total_documented += documented
        flag = "" if percent >= args.bar else f"  BELOW {args.bar:g}%"
        if percent < args.bar:
            below.append(module)
        print(f"{module:<{width}}  {percent:5.1f}%  {documented:4}/{counted:<4} documented "
              f"({own} own comment, {inherited} inherited), {len(undocumented)} missing{flag}")
        if module in args.missing:
            for file, line, name in sorted(undocumented):
                print(f"    Sources/{module}/{file}:{line}  {name}")
    if below:
        print(f"below the {args.bar:g}% bar: {', '.join(below)}")
    total = 100.0 * total_documented / total_counted if total_counted else 0.0
    print(f"total {total:.1f}% ({total_documented}/{total_counted} public declarations documented)")
    if absent:
        sys.exit(2)
    if below:
        sys.exit(1)


if __name__ == "__main__":
    main()
