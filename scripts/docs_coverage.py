#!/usr/bin/env python3
"""Documentation coverage of public declarations, per module, from SwiftPM's symbol graphs.

Reads .build/<triple>/extracted-symbols/<package>/<Module>/*.symbols.json (written by
`swift package generate-documentation`, see scripts/docs), or those under another build folder
(`--build-dir`, as scripts/check-corebluetooth passes for its scratch package).

Counted: every public or open symbol declared in the module's own sources (Sources/<Module>/),
including the members it adds to other modules' types. Not counted: compiler-synthesized members
and default implementations that come from a protocol extension elsewhere (their source is not the
module's).

Documented, and only these:
  - own comment: the symbol's `docComment` was written for it, in the same file as the
    declaration (the comment's `uri` is the symbol's `location.uri`);
  - project comment: the symbol implements a protocol requirement declared in this repository's
    own modules, and carries that requirement's comment (DocC shows it with
    --enable-inherited-docs); the comment's `uri` lies under this repository's Sources/ (the folder
    the symbol's own `location.uri` lies in), e.g. `init(decoding:)` documented in HaraldCodec.
Not documented:
  - no `docComment`, or one without text;
  - a comment inherited from any other module: the standard library, Foundation, Dispatch,
    _Concurrency or a package dependency. The symbol graph gives such a comment no `uri` (toolchain
    modules: `"module": "Swift"` and the like) or one outside this repository's Sources/
    (dependencies: .build/checkouts/...). This is what `description`, `debugDescription`,
    `hash(into:)`, `==`, `init(from:)`, `encode(to:)`, `makeIterator()`, `rawValue`, `errorDescription`
    … carry when they have no `///` comment of their own: the generic text of the protocol, which
    says nothing about this type. The decision is by the comment's source location, not its text.

Prints one line per module, then the total as the last line; exits 1 when a module is below the
bar, 2 when a module has no symbol graph. `--missing MODULE` lists that module's undocumented
declarations, each marked with the module whose generic comment it carries, if any.
`--self-test` runs the count on the planted graphs in scripts/docs-selftest/ and checks that the
bar fails on an undocumented declaration and on ones carrying only the standard library's or a
dependency's comment, and passes when each has its own comment.
  scripts/docs_coverage.py [--bar 95] [--missing MODULE]... [--build-dir DIR] MODULE...
  scripts/docs_coverage.py --self-test
"""
import argparse
import contextlib
import glob
import io
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Where SwiftPM's DocC plugin leaves the symbol graphs: one folder per module under this pattern.
GRAPHS = os.path.join(ROOT, ".build", "*", "extracted-symbols", "*")
SELF_TEST = os.path.join(ROOT, "scripts", "docs-selftest")


def graph_files(module, graphs=GRAPHS):
    """The newest symbol-graph folder for the module (there is one per package checkout name)."""
    folders = glob.glob(os.path.join(graphs, module))
    if not folders:
        return []
    newest = max(folders, key=os.path.getmtime)
    return sorted(glob.glob(os.path.join(newest, "*.symbols.json")))


def comment_origin(symbol, location_uri, marker):
    """'own', 'project', or the module (or file) an outside comment comes from; None without one."""
    comment = symbol.get("docComment") or {}
    if not any(line.get("text", "").strip() for line in comment.get("lines", [])):
        return None
    uri = comment.get("uri")
    if uri == location_uri:
        return "own"
    # This repository's Sources/ folder, as the symbol graph spells it: the declaration's own path
    # up to "/Sources/<Module>/".
    sources = location_uri.split(marker, 1)[0] + "/Sources/"
    if uri and uri.startswith(sources):
        return "project"
    return comment.get("module") or uri or "unknown module"


def coverage(module, graphs=GRAPHS):
    """(declarations, own comment, project comment, undocumented [(file, line, name, origin)]).

    `origin` is None for a declaration without any comment, else the outside module whose comment
    it carries."""
    marker = f"/Sources/{module}/"
    counted, own, project, undocumented = 0, 0, 0, []
    seen = set()
    for path in graph_files(module, graphs):
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
            origin = comment_origin(symbol, location["uri"], marker)
            if origin == "own":
                own += 1
            elif origin == "project":
                project += 1
            else:
                file = location["uri"].split(marker, 1)[1]
                name = ".".join(symbol["pathComponents"])
                undocumented.append((file, location["position"]["line"] + 1, name, origin))
    return counted, own, project, undocumented


def report(modules, bar, missing=(), graphs=GRAPHS):
    """Prints the coverage lines; returns the exit status (0 all at the bar, 1 below, 2 absent)."""
    total_counted = total_documented = 0
    below, absent = [], []
    width = max(len(m) for m in modules)
    for module in modules:
        if not graph_files(module, graphs):
            absent.append(module)
            print(f"{module:<{width}}  no symbol graph (run scripts/docs without --coverage-only)")
            continue
        counted, own, project, undocumented = coverage(module, graphs)
        documented = own + project
        percent = 100.0 * documented / counted if counted else 100.0
        total_counted += counted
        total_documented += documented
        outside = sum(1 for entry in undocumented if entry[3])
        flag = "" if percent >= bar else f"  BELOW {bar:g}%"
        if percent < bar:
            below.append(module)
        print(f"{module:<{width}}  {percent:5.1f}%  {documented:4}/{counted:<4} documented "
              f"({own} own comment, {project} from the project's protocols), "
              f"{len(undocumented)} missing ({outside} with only another module's comment){flag}")
        if module in missing:
            for file, line, name, origin in sorted(undocumented):
                note = f"  (only {origin}'s generic comment)" if origin else ""
                print(f"    Sources/{module}/{file}:{line}  {name}{note}")
    if below:
        print(f"below the {bar:g}% bar: {', '.join(below)}")
    total = 100.0 * total_documented / total_counted if total_counted else 0.0
    print(f"total {total:.1f}% ({total_documented}/{total_counted} public declarations documented)")
    if absent:
        return 2
    return 1 if below else 0


def self_test():
    """Runs `report` on each planted graph in scripts/docs-selftest/<case>/ and checks the verdict.

    Every case holds a trimmed HaraldCore graph, shaped as the compiler writes it: a documented
    struct, a `description` and an `init(decoding:)` whose comment comes from HaraldCodec's
    protocol, plus symbols the count must skip (a synthesized `Comparable` operator with the
    standard library's comment, an internal one without comment, one declared outside
    Sources/HaraldCore/). The failing cases change one declaration each."""
    cases = [
        # (case folder, expected exit status, declaration that must be listed as missing, origin)
        ("documented", 0, None, None),
        ("undocumented", 1, "BluetoothAddress.isResolvablePrivate", None),
        ("standard-library-comment", 1, "BluetoothAddress.description", "Swift"),
        ("dependency-comment", 1, "BluetoothAddress.description", "NIOCore"),
    ]
    failures = []
    for case, expected, name, origin in cases:
        graphs = os.path.join(SELF_TEST, case)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = report(["HaraldCore"], 95.0, missing=["HaraldCore"], graphs=graphs)
        text = out.getvalue()
        problems = []
        if status != expected:
            problems.append(f"exit {status}, expected {expected}")
        if name:
            listed = [line for line in text.splitlines() if line.endswith(name) or f"{name}  (" in line]
            if not listed:
                problems.append(f"{name} not listed as missing")
            elif origin and f"(only {origin}'s generic comment)" not in listed[0]:
                problems.append(f"{name} not marked as carrying {origin}'s comment")
        elif "0 missing" not in text:
            problems.append("declarations listed as missing")
        verdict = "ok" if not problems else "FAILED: " + "; ".join(problems)
        print(f"docs coverage self-test, {case}: {verdict}")
        if problems:
            print("    " + text.replace("\n", "\n    ").rstrip())
            failures.append(case)
    if failures:
        print(f"docs coverage self-test failed: {', '.join(failures)}")
        return 1
    print("docs coverage self-test passed: the bar fails on an undocumented declaration and on "
          "the standard library's or a dependency's comment, passes on the project's own comments")
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bar", type=float, default=95.0)
    parser.add_argument("--missing", action="append", default=[], help="list this module's undocumented declarations")
    parser.add_argument("--self-test", action="store_true", help="check the count on the planted graphs")
    parser.add_argument("--build-dir", help="the build folder holding the symbol graphs (default: .build)")
    parser.add_argument("modules", nargs="*")
    args = parser.parse_args()
    if args.self_test:
        sys.exit(self_test())
    if not args.modules:
        parser.error("name at least one module")
    graphs = GRAPHS
    if args.build_dir:
        graphs = os.path.join(os.path.abspath(args.build_dir), "*", "extracted-symbols", "*")
    sys.exit(report(args.modules, args.bar, args.missing, graphs))


if __name__ == "__main__":
    main()
