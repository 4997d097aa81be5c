#!/usr/bin/env python3
"""Checks the module graph against the layer table (scripts/architecture/layers.txt).

Usage: scripts/check-architecture             check this repository
       scripts/check-architecture --self-test  check the checker on small made-up packages
(scripts/check-architecture runs this file.)

Every import of a package module found in a target's sources (`import X`, `@testable import X`,
`@_exported import X`, `public/package/internal import X`, `import struct X.Y`, …) and every
target dependency in Package.swift must be allowed by the importing module's line in the table.
Modules that are not targets of this package (Foundation, Logging, …) are ignored. A target
without a line in the table fails. An `@_exported import` of a package module fails unless the
importer's line marks that module `@_exported`; at most one module's line may mark any, a marked
re-export must be in that module's sources, and a module allowed to import the re-exporting one
must be allowed what it re-exports too (the re-export hands it those names).
Violations listed in scripts/architecture/known-violations.txt are reported but tolerated; a
listed line that is not a violation fails the check, so that list only shrinks.
Exit status 0 when the graph is as the table says.
"""
import argparse
import contextlib
import io
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import package_targets  # noqa: E402  (scripts/package_targets.py)

LAYERS = os.path.join(HERE, "layers.txt")
KNOWN = os.path.join(HERE, "known-violations.txt")
TESTS_RULE = "[tests]"

IMPORT = re.compile(
    r"^\s*(?P<attributes>(?:@\w+(?:\([^)]*\))?\s+)*)"
    r"(?:(?:public|package|internal|fileprivate|private|open)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func|actor)\s+)?"
    r"(?P<module>\w+)")


def read_table(path):
    """Module (or TESTS_RULE) -> allowed names (may hold "*"), module -> the names its line marks
    `@_exported`, and problems with the file."""
    table, exports, problems = {}, {}, []
    with open(path) as handle:
        lines = handle.read().splitlines()
    for number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        module, colon, allowed = line.partition(":")
        module = module.strip()
        if not colon or not re.fullmatch(r"\w+|\[tests\]", module):
            problems.append(f"{path}:{number}: expected `Module: allowed, imports`, got {line!r}")
            continue
        if module in table:
            problems.append(f"{path}:{number}: {module} has a second line")
        table[module] = set()
        for name in (name.strip() for name in allowed.split(",")):
            if not name:
                continue
            exported = re.fullmatch(r"@_exported\s+(\w+)", name)
            if exported:
                name = exported[1]
                exports.setdefault(module, set()).add(name)
            elif not re.fullmatch(r"\w+|\*", name):
                problems.append(f"{path}:{number}: expected a module name or `@_exported Module`, got {name!r}")
                continue
            table[module].add(name)
    for module, allowed in table.items():
        for name in sorted(allowed - set(table) - {"*"}):
            problems.append(f"{path}: {module} may import {name}, which has no line of its own (a typo?)")
    if len(exports) > 1:
        problems.append(f"{path}: only one module may re-export package modules; {' and '.join(sorted(exports))} do")
    for exporter, names in sorted(exports.items()):
        for module, allowed in sorted(table.items()):
            if exporter in allowed and module != exporter and "*" not in allowed:
                for name in sorted(names - allowed - {module}):
                    problems.append(f"{path}: {module} may import {exporter}, which re-exports {name}: "
                                    f"its line must allow {name} too")
    return table, exports, problems


def read_known(path):
    """(module, imported, exported) triples listed as known violations, and problems."""
    known, problems = {}, []
    if not os.path.exists(path):
        return known, problems
    with open(path) as handle:
        lines = handle.read().splitlines()
    for number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"(\w+)\s*->\s*(@_exported\s+)?(\w+)", line)
        if not match:
            problems.append(f"{path}:{number}: expected `Module -> Import` or `Module -> @_exported Import`, got {line!r}")
            continue
        known[(match[1], match[3], bool(match[2]))] = number
    return known, problems


def code_lines(text):
    """(line number, line) outside block comments and multi-line string literals."""
    in_comment = in_string = False
    for number, line in enumerate(text.splitlines(), 1):
        if in_string:
            in_string = line.count('"""') % 2 == 0
            continue
        if in_comment:
            if "*/" not in line:
                continue
            in_comment, line = False, line.split("*/", 1)[1]
        yield number, line
        code = line.split("//", 1)[0]
        in_string = code.count('"""') % 2 == 1
        in_comment = "/*" in code and "*/" not in code.rsplit("/*", 1)[1]


def imports(root, target):
    """(imported module, exported?, "file:line") for every import line of a target's sources."""
    found = []
    directory = os.path.join(root, target.path)
    for folder, _, files in sorted(os.walk(directory)):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                for number, line in code_lines(handle.read()):
                    match = IMPORT.match(line)
                    if match:
                        exported = "@_exported" in match["attributes"]
                        found.append((match["module"], exported, f"{os.path.relpath(path, root)}:{number}"))
    return found


def check(root, layers, known_path, manifest=None):
    """Prints what it finds; returns the number of problems. `manifest`: dump-package's JSON."""
    targets = package_targets.load(root, manifest)
    libraries = {name for name, target in targets.items() if target.is_library}
    table, exports, problems = read_table(layers)
    known, known_problems = read_known(known_path)
    problems += known_problems
    def rel(path):  # repository-relative when inside the package
        inside = os.path.abspath(path).startswith(os.path.abspath(root) + os.sep)
        return os.path.relpath(path, root) if inside else path

    def rule(name):
        return table.get(name, table.get(TESTS_RULE) if targets[name].kind == "test" else None)

    # (module, imported, exported) -> where it happens
    edges = {}
    # (module, imported) -> where a module imports a package module Package.swift does not give it
    undeclared = {}
    for name, target in sorted(targets.items()):
        if rule(name) is None:
            problems.append(f"module {name} is not in the layer table ({rel(layers)})")
            continue
        for imported in target.dependencies:
            edges.setdefault((name, imported, False), []).append("Package.swift")
        for imported, exported, where in imports(root, target):
            if imported in targets and imported != name:
                edges.setdefault((name, imported, False), []).append(where)
                if imported not in target.dependencies:
                    undeclared.setdefault((name, imported), []).append(where)
                if exported:
                    edges.setdefault((name, imported, True), []).append(where)

    violations = {}
    for (module, imported, exported), where in sorted(edges.items()):
        allowed = rule(module)
        allowed = (allowed - {"*"}) | (libraries if "*" in allowed else set())
        if exported:
            if imported not in exports.get(module, set()):
                violations[(module, imported, True)] = (
                    where, f"{module} re-exports {imported} (@_exported import), which its line does not mark @_exported")
        elif imported not in allowed:
            line = ", ".join(sorted(rule(module))) or "nothing"
            violations[(module, imported, False)] = (
                where, f"{module} imports {imported}, which its layer may not import (it may import: {line})")

    for module, names in sorted(exports.items()):
        for name in sorted(names):
            if module in targets and (module, name, True) not in edges:
                problems.append(f"{module}'s line marks {name} @_exported, but no source file of {module} re-exports it")

    for (module, imported), where in sorted(undeclared.items()):
        if (module, imported, False) in known:
            continue  # a tolerated violation, reported below
        places = sorted(set(where))
        problems.append(f"{module} imports {imported} without declaring it in Package.swift ({', '.join(places[:4])})")

    tolerated = 0
    for key, (where, message) in violations.items():
        places = sorted(set(where), key=where.index)
        places = ", ".join(places[:4] + ([f"{len(places) - 4} more"] if len(places) > 4 else []))
        if key in known:
            tolerated += 1
            print(f"known violation: {message} ({places})")
        else:
            problems.append(f"{message} ({places})")
    for (module, imported, exported), number in sorted(known.items()):
        if (module, imported, exported) not in violations:
            entry = f"{module} -> {'@_exported ' if exported else ''}{imported}"
            problems.append(f"{rel(known_path)}:{number}: {entry} is not a violation (any more): delete that line")

    for problem in problems:
        print(f"error: {problem}")
    checked = sum(1 for key in edges if not key[2])
    summary = f"{len(targets)} modules, {checked} module dependencies checked against {rel(layers)}"
    if problems:
        print(f"check-architecture: FAILED ({len(problems)} problems; {summary})")
    else:
        print(f"check-architecture: ok ({summary}; {tolerated} known violations tolerated)")
    return len(problems)


# --- self-test: the checker against made-up packages ---------------------------------------------

SELF_TEST_MANIFEST = """// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "Layers",
    targets: [
        .target(name: "Low"),
        .target(name: "High", dependencies: [{high_deps}]),
        .target(name: "Extra"),
        .executableTarget(name: "App", dependencies: ["High", "Low"]),
        .testTarget(name: "HighTests", dependencies: ["High", "Low"]),
    ]
)
"""
SELF_TEST_TABLE = """# made up for the self-test
Low:
{high_line}
App: *
{extra}
[tests]: *
"""
CLEAN_SOURCES = {
    "Sources/Low/Low.swift": "import Foundation\n// import High (a comment)\n/*\nimport High\n*/\npublic let low = 1\n",
    "Sources/High/High.swift": "import Foundation\n@testable import Low\nimport struct Low.Nothing\npublic let high = low\n"
                               "let text = \"\"\"\nimport App\n\"\"\"\n",
    "Sources/Extra/Extra.swift": "public let extra = 0\n",
    "Sources/App/main.swift": "import High\nimport Low\nimport ArgumentParser\nprint(high)\n",
    "Tests/HighTests/HighTests.swift": "import Testing\n@testable import High\nimport Low\n",
}


def self_test():
    cases = []

    def case(name, expect, files=None, extra="Extra:", high_deps='"Low"', known="", high_line="High: Low"):
        """`expect`: None when the check must pass, else a message its failure must print."""
        cases.append((name, expect, files or {}, extra, high_deps, known, high_line))

    case("a package with only allowed imports passes", None)
    for line in ("import High", "@testable import High", "internal import High", "package import High",
                 "public import High", "import struct High.Thing", "@preconcurrency import High"):
        case(f"an upward `{line}` fails", "Low imports High", {"Sources/Low/Up.swift": line + "\n"})
    case("an upward target dependency in Package.swift fails", "High imports App", high_deps='"Low", "App"')
    case("an @_exported import of an allowed package module fails", "High re-exports Low",
         {"Sources/High/Exports.swift": "@_exported import Low\n"})
    case("an @_exported import of a system module passes", None,
         {"Sources/High/Exports.swift": "@_exported import Foundation\n"})
    case("a test target importing an executable fails", "HighTests imports App",
         {"Tests/HighTests/App.swift": "@testable import App\n"})
    case("an import of a package module the target does not declare fails", "High imports Extra without declaring it",
         {"Sources/High/Extra.swift": "import Extra\n"}, extra="Extra:\nHigh: Low, Extra")
    case("a module without a line in the table fails", "module Extra is not in the layer table", extra="")
    case("a known violation is tolerated", None, {"Sources/Low/Up.swift": "import High\n"}, known="Low -> High\n")
    case("a known re-export is tolerated", None, {"Sources/High/Exports.swift": "@_exported import Low\n"},
         known="High -> @_exported Low\n")
    case("a known violation that no longer occurs fails", "Low -> High is not a violation", known="Low -> High\n")
    exports = {"Sources/High/Exports.swift": "@_exported import Low\n"}
    case("a re-export the importer's line marks passes", None, exports, high_line="High: @_exported Low")
    case("a re-export the line marks but no source makes fails", "High's line marks Low @_exported",
         high_line="High: @_exported Low")
    case("a second module marking a re-export fails", "only one module may re-export", exports,
         extra="Extra: @_exported Low", high_line="High: @_exported Low")
    case("a module allowed the re-exporter but not what it re-exports fails",
         "Extra may import High, which re-exports Low", exports, extra="Extra: High", high_line="High: @_exported Low")
    case("a re-export of a module the line does not allow fails", "High re-exports Extra",
         {"Sources/High/Exports.swift": "@_exported import Low\n@_exported import Extra\n"}, high_deps='"Low", "Extra"',
         high_line="High: @_exported Low, Extra")
    case("a table line naming a module without a line fails", "Extra may import Lwo", extra="Extra: Lwo")

    failures, manifests = 0, {}
    with tempfile.TemporaryDirectory() as root:
        for name, expect, files, extra, high_deps, known, high_line in cases:
            # One directory for every case, rewritten each time (SwiftPM caches the manifest).
            for folder in ("Sources", "Tests"):
                shutil.rmtree(os.path.join(root, folder), ignore_errors=True)
            tree = dict(CLEAN_SOURCES, **files)
            tree["Package.swift"] = SELF_TEST_MANIFEST.format(high_deps=high_deps)
            tree["layers.txt"] = SELF_TEST_TABLE.format(extra=extra, high_line=high_line)
            tree["known.txt"] = known
            for path, text in tree.items():
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as handle:
                    handle.write(text)
            # dump-package once per distinct manifest: it is the slow part.
            if tree["Package.swift"] not in manifests:
                manifests[tree["Package.swift"]] = package_targets.dump(root)
            output = io.StringIO()
            with contextlib.redirect_stdout(output):
                problems = check(root, os.path.join(root, "layers.txt"), os.path.join(root, "known.txt"),
                                 manifests[tree["Package.swift"]])
            if expect is None:
                good = problems == 0
            else:
                good = problems > 0 and any(line.startswith("error: ") and expect in line
                                            for line in output.getvalue().splitlines())
            if good:
                print(f"ok   {name}")
            else:
                failures += 1
                wanted = "success" if expect is None else f"failure with {expect!r}"
                print(f"FAIL {name}: wanted {wanted}, got {problems} problems:\n{output.getvalue()}")
    print(f"check-architecture self-test: {len(cases) - failures} passed, {failures} failed")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--self-test", action="store_true", help="check the checker on made-up packages")
    parser.add_argument("--root", default=package_targets.ROOT, help="the package root (default: this repository)")
    parser.add_argument("--layers", default=LAYERS, help="the layer table")
    parser.add_argument("--known", default=KNOWN, help="the known violations")
    args = parser.parse_args()
    sys.exit(1 if (self_test() if args.self_test else check(args.root, args.layers, args.known)) else 0)


if __name__ == "__main__":
    main()
