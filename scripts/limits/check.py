#!/usr/bin/env python3
"""Checks RELIABILITY.md's "Bounded resources" table against the code and the tests.

Usage: scripts/check-limits             check this repository
       scripts/check-limits --self-test  plant defects (in memory, over this repository's files) and
                                         show the check finds each
(scripts/check-limits runs this file.)

For every row of the table:
- every figure in the Limit column must equal the default in the code, found by the row's lines
  in scripts/limits/defaults.txt (a file, and a pattern whose first group is the default);
  a figure no line covers, a line whose pattern matches nothing, a row without lines and a line
  naming no row all fail;
- every test named in the last column must exist under Tests/: `Type.function` a function in
  the body of that type (or of an extension of it), `SuiteTests` (a name ending in Tests) a type,
  and with "(N tests)" after it a type holding N @Test functions;
- the last column must say, for at least one test, "reaches the default N" or "pins the default
  N" (or "reach", "pin", "defaults N and M") (N a figure of the row; "reaches the default" alone for a row without figures), and each test
  a claim names must hold N as a literal (4096 or 4_096): the test is where a changed default in
  the code fails `swift test`, this check is where the document and the code disagree.
Exit status 0 when every row holds.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HEADING = "## Bounded resources"
DEFAULT_CLAIM = re.compile(r"\b(?:reach(?:es)?|pins?) the defaults?\b((?:\s*(?:\d[\d,]*(?![\d,]*\w)|and|,))*)")
TEST_NAME = re.compile(r"`([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?`(\s*\((\d+) tests?\))?")
FIGURE = re.compile(r"\d[\d,]*")


def figures(text):
    """The numbers written in a cell, in order ("4,096" is 4096)."""
    return [int(number.replace(",", "")) for number in FIGURE.findall(text) if number.strip(",")]


def cells(line):
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


OVERRIDES = {}  # path -> text, for the self-test's planted defects


def read(path):
    if path in OVERRIDES:
        return OVERRIDES[path]
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def read_table(path):
    """The rows of the Bounded resources table: (line number, [cells])."""
    lines = read(path).splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == HEADING), None)
    if start is None:
        return None
    rows, seen_table = [], False
    for number, line in enumerate(lines[start + 1:], start + 2):
        if line.startswith("## "):
            break
        if line.startswith("|"):
            seen_table = True
            row = cells(line)
            if row and row[0] != "What" and not set(row[0]) <= set("-: "):
                rows.append((number, row))
        elif seen_table:
            break
    return rows


def read_defaults(path):
    """Manifest lines: (line number, row key, figure position, file, pattern)."""
    entries, problems = [], []
    if True:
        for number, line in enumerate(read(path).splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [part.strip() for part in line.split(" | ")]
            if len(parts) != 4 or not parts[1].isdigit():
                problems.append(f"{path}:{number}: expected `row | figure number | file | pattern`, got {line!r}")
                continue
            entries.append((number, parts[0], int(parts[1]), parts[2], parts[3]))
    return entries, problems


def evaluate(expression):
    """A default as the code writes it: 4096, 4_096 or a product such as 366 * 24 * 60."""
    if not re.fullmatch(r"\s*\d[\d_]*(\s*\*\s*\d[\d_]*)*\s*", expression):
        return None
    value = 1
    for factor in expression.split("*"):
        value *= int(factor.strip().replace("_", ""))
    return value


def swift_files(root):
    for directory, _, names in os.walk(os.path.join(root, "Tests")):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                yield path, read(path)


def body_at(text, index):
    """The text between the first `{` at or after index and its matching `}`."""
    opening = text.find("{", index)
    if opening < 0:
        return ""
    depth = 0
    for position in range(opening, len(text)):
        if text[position] == "{":
            depth += 1
        elif text[position] == "}":
            depth -= 1
            if depth == 0:
                return text[opening:position + 1]
    return text[opening:]


class TestIndex:
    def __init__(self, root):
        self.files = list(swift_files(root))
        self.bodies = {}

    def type_bodies(self, name):
        if name not in self.bodies:
            self.bodies[name] = self.find_type_bodies(name)
        return self.bodies[name]

    def find_type_bodies(self, name):
        pattern = re.compile(rf"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|fileprivate|final)\s+)*"
                             rf"(?:struct|class|enum|actor|extension)\s+{re.escape(name)}\b", re.M)
        return [body_at(text, match.end()) for _, text in self.files if name in text for match in pattern.finditer(text)]

    def function_body(self, type_name, function):
        pattern = re.compile(rf"\bfunc\s+{re.escape(function)}\s*\(")
        for body in self.type_bodies(type_name):
            match = pattern.search(body)
            if match:
                return body_at(body, match.end())
        return None

    @staticmethod
    def test_count(body):
        return len(re.findall(r"@Test\b", body))


def holds_literal(body, figure):
    digits = str(figure)
    grouped = "_?".join(re.findall(r"\d{1,3}(?=(?:\d{3})*$)", digits))
    return re.search(rf"(?<![\w.]){grouped}(?![\w])", body) is not None


def check_row(number, row, entries, tests, root, where):
    problems = []
    say = lambda message: problems.append(f"{where}:{number}: {row[0][:60]}: {message}")
    if len(row) != 5:
        say(f"expected 5 columns, found {len(row)}")
        return problems
    limit_figures = figures(row[2])
    if not entries:
        say("no line in scripts/limits/defaults.txt ties this row to the code")
    covered = set()
    for line, _, position, path, pattern in entries:
        source = os.path.join(root, path)
        if position < 1 or position > len(limit_figures):
            say(f"defaults.txt:{line} names figure {position}, the Limit column has {len(limit_figures)}")
            continue
        covered.add(position)
        if source not in OVERRIDES and not os.path.exists(source):
            say(f"defaults.txt:{line}: {path} does not exist")
            continue
        match = re.search(pattern, read(source), re.M)
        if not match:
            say(f"defaults.txt:{line}: no `{pattern}` in {path}")
            continue
        value = evaluate(match.group(1))
        if value is None:
            say(f"defaults.txt:{line}: `{match.group(1)}` in {path} is not a number")
        elif value != limit_figures[position - 1]:
            say(f"the document says {limit_figures[position - 1]:,}, the code says {value:,} ({path}: {match.group(0).strip()})")
    for position in range(1, len(limit_figures) + 1):
        if position not in covered:
            say(f"figure {limit_figures[position - 1]:,} of the Limit column is tied to no default in the code")

    claims = [part.strip() for part in row[4].split(";") if part.strip()]
    default_claims = 0
    named = 0
    for claim in claims:
        bodies = []
        for match in TEST_NAME.finditer(claim):
            type_name, function, _, count = match.groups()
            if not function and not type_name.endswith("Tests"):
                continue  # a type of the code named in passing, not a test
            named += 1
            if function:
                body = tests.function_body(type_name, function)
                if body is None:
                    say(f"no test {type_name}.{function} under Tests/")
                    continue
                bodies.append((f"{type_name}.{function}", body))
            else:
                type_bodies = tests.type_bodies(type_name)
                if not type_bodies:
                    say(f"no test suite {type_name} under Tests/")
                    continue
                found = sum(TestIndex.test_count(body) for body in type_bodies)
                if count is not None and found != int(count):
                    say(f"{type_name} holds {found} tests, the document says {count}")
                bodies.append((type_name, "\n".join(type_bodies)))
        for claim_match in DEFAULT_CLAIM.finditer(claim):
            default_claims += 1
            claimed = figures(claim_match.group(1))
            if limit_figures and not claimed:
                say(f"“{claim_match.group(0).strip()}” names no figure")
            for figure in claimed:
                if figure not in limit_figures:
                    say(f"a test is said to reach or pin {figure:,}, which is not a figure of the Limit column")
                for name, body in bodies:
                    if not holds_literal(body, figure):
                        say(f"{name} is said to reach or pin the default {figure:,} but never writes {figure}")
    if named == 0:
        say("the last column names no test")
    if default_claims == 0:
        say("no test is said to reach or pin the default (“reaches the default N” or “pins the default N”)")
    return problems


def check(root, quiet=False):
    document = os.path.join(root, "RELIABILITY.md")
    rows = read_table(document)
    if not rows:
        print(f"{document}: no table under “{HEADING}”")
        return False
    entries, problems = read_defaults(os.path.join(root, "scripts", "limits", "defaults.txt"))
    tests = TestIndex(root)
    keys = {}
    for entry in entries:
        keys.setdefault(entry[1], []).append(entry)
    used = set()
    for number, row in rows:
        matching = [key for key in keys if row[0].startswith(key)]
        used.update(matching)
        row_entries = [entry for key in matching for entry in keys[key]]
        problems += check_row(number, row, row_entries, tests, root, "RELIABILITY.md")
    for key in sorted(set(keys) - used):
        problems.append(f"defaults.txt:{keys[key][0][0]}: “{key}” starts no row of the table")
    for problem in problems:
        print(problem)
    if not quiet:
        print(f"check-limits: {len(rows)} rows, {len(problems)} problems")
    return not problems


# --- self-test: defects planted in a copy of the repository ------------------------------------

def planted(path, old, new):
    """The text of `path` with `old` replaced once by `new`."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if old not in text:
        raise SystemExit(f"self-test: `{old}` is not in {path}; update the self-test")
    return text.replace(old, new, 1)


def self_test():
    cases = [
        ("the repository as it is", None, True),
        ("a default changed in code (the dual-role bearer's 4096 made 4095)",
         ("Sources/HaraldATT/Bearer/ATTDualRoleBearer.swift", "bufferLimit = 4096", "bufferLimit = 4095"), False),
        ("a default changed in code (the Mi Band's year of minutes made 365 days)",
         ("Sources/HaraldMiBand/Band/MiBandActivityTransfer.swift", "366 * 24 * 60", "365 * 24 * 60"), False),
        ("a limit changed in the document (GATT server events 1,024 made 2,048)",
         ("RELIABILITY.md", "| `GATTServer.events` | 1,024 |", "| `GATTServer.events` | 2,048 |"), False),
        ("a named test that does not exist",
         ("RELIABILITY.md", "`SimulatedLinkTests.aFullTransmitBufferMakesTheSenderWait`",
          "`SimulatedLinkTests.aFullTransmitBufferMakesTheSenderWaitForever`"), False),
        ("a wrong test count",
         ("RELIABILITY.md", "`LongReadBoundTests` (3 tests)", "`LongReadBoundTests` (4 tests)"), False),
        ("a pinning test that no longer writes the default",
         ("Tests/HaraldSimulatorTests/ConnectionHistoryTests.swift", "closedConnectionHistory == 64",
          "closedConnectionHistory > 0"), False),
        ("a row that claims no default",
         ("RELIABILITY.md", "pins the default 527,040", "pins a figure"), False),
        ("a line of defaults.txt whose pattern no longer matches",
         ("Sources/HaraldSMP/Pairing/SMPPendingPDUs.swift", "static let capacity = 16", "static let size = 16"), False),
    ]
    failures = 0
    import contextlib
    import io
    for name, plant, should_pass in cases:
        OVERRIDES.clear()
        if plant:
            path = os.path.join(ROOT, plant[0])
            OVERRIDES[path] = planted(path, plant[1], plant[2])
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            passed = check(ROOT, quiet=True)
        OVERRIDES.clear()
        verdict = "ok" if passed == should_pass else "WRONG"
        failures += passed != should_pass
        reported = output.getvalue().strip().splitlines()
        detail = f": {reported[0]}" if reported and not passed else ""
        print(f"  {verdict}: {name} -> {'passes' if passed else 'fails'}{detail}")
    print(f"check-limits self-test: {len(cases) - failures} passed, {failures} failed")
    return failures == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--self-test", action="store_true", help="plant defects in a copy and check they are found")
    parser.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.exit(0 if (self_test() if args.self_test else check(args.root)) else 1)


if __name__ == "__main__":
    main()
