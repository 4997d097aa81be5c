#!/usr/bin/env python3
"""The Swift blocks of the documentation that only an Apple platform can compile, as files to build.

scripts/check-corebluetooth compiles them on Linux against Tools/AppleSurface. The unit test
Tests/HaraldTests/ArticleExamplesCompileTests.swift compiles the other blocks and skips these on
Linux, by the same rule (keep the two alike):

  - a block is the text between a line "```swift" and the next line "```", in every article of
    every DocC catalog under Sources/ and in README.md; each is a whole file with its own imports;
  - one whose first line is "// Package.swift" is a manifest, never compiled;
  - it needs Apple's frameworks when it imports SwiftUI, CoreBluetooth or UIKit, or its code (comments
    aside) names SystemCoreBluetooth (HaraldCoreBluetooth's system backends exist only where
    CoreBluetooth does).

Usage: article_blocks.py --sources DIR --out DIR [--dump FILE] [--without-swiftui]
  writes each such block as OUT/<target>/<file> (main.swift, or <target>.swift for a block with an
  `@main` type), its first line a #sourceLocation naming the article's own line, so the compiler's
  messages point into the article; writes OUT/manifest.swift, the lines that add one executable
  target per block to the scratch package, importing what the block imports; and prints one line
  per block: TARGET <TAB> FILE (relative to OUT) <TAB> ARTICLE:LINE <TAB> PACKAGE-TARGETS (comma).
  A fence that would hide such a block from both checks (indented, or not exactly "```swift") is a
  problem: it is reported on stderr and the exit status is 1, after everything else is written.
  --without-swiftui leaves out the blocks that import SwiftUI (a surface without it) and says so
  on stderr. --dump is a saved `swift package dump-package` (as scripts/package_targets.py takes).
"""
import argparse
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import package_targets  # noqa: E402

IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", re.M)
FRAMEWORKS = ("CoreBluetooth", "SwiftUI", "UIKit")


def code_of(block):
    """The block without its `//` comments (good enough to tell what the code names)."""
    return "\n".join(line.split("//", 1)[0] for line in block.split("\n"))


def needs_apple(block):
    """True for a block that only compiles where Apple's frameworks are (the rule above)."""
    if block.startswith("// Package.swift"):
        return False
    imports = set(IMPORT.findall(block))
    return bool(imports & set(FRAMEWORKS)) or "SystemCoreBluetooth" in code_of(block)


def blocks_of(path):
    """(index among the file's ```swift blocks from 1, line of its first line, text), and the
    fences that hide Swift from the checks: (line, fence)."""
    blocks, hidden, current, start, loose = [], [], None, 0, None
    lines = open(path, encoding="utf-8").read().split("\n")
    for number, line in enumerate(lines, 1):
        if current is None and loose is None:
            if line == "```swift":
                current, start = [], number + 1
            elif line.lstrip().startswith("```") and line.strip()[3:].strip().lower().startswith("swift"):
                loose, start = [], number
        elif current is not None:
            if line == "```":
                blocks.append((len(blocks) + 1, start, "\n".join(current)))
                current = None
            else:
                current.append(line)
        else:
            if line.strip() == "```":
                if needs_apple("\n".join(loose)):
                    hidden.append((start, lines[start - 1]))
                loose = None
            else:
                loose.append(line.strip())
    return blocks, hidden


def documents(sources):
    """README.md and every article of every DocC catalog under Sources/, as paths under `sources`."""
    found = sorted(glob.glob(os.path.join(sources, "Sources", "**", "*.docc", "**", "*.md"), recursive=True))
    readme = os.path.join(sources, "README.md")
    return ([readme] if os.path.exists(readme) else []) + found


def write(path, text):
    """Writes `text` to `path` unless it holds it already (so an unchanged block is not rebuilt)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def identifier(text):
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", required=True, help="the repository (or a view of it)")
    parser.add_argument("--out", required=True, help="where the block files and manifest.swift go")
    parser.add_argument("--dump", help="the manifest's JSON, saved from `swift package dump-package`")
    parser.add_argument("--without-swiftui", action="store_true", help="leave out blocks that import SwiftUI")
    args = parser.parse_args()
    package_targets.DUMP = args.dump
    targets = package_targets.load()
    problems, left_out, manifest, written = [], 0, [], set()
    os.makedirs(args.out, exist_ok=True)
    for path in documents(args.sources):
        relative = os.path.relpath(path, args.sources)
        blocks, hidden = blocks_of(path)
        for line, fence in hidden:
            problems.append(f"{relative}:{line}: this block needs Apple's frameworks but its fence ({fence.strip()!r}) "
                            "is not a line \"```swift\": neither the unit test nor this check would compile it")
        catalog = os.path.basename(os.path.dirname(path)).removesuffix(".docc")
        stem = os.path.splitext(os.path.basename(path))[0]
        prefix = "Article_README" if relative == "README.md" else f"Article_{identifier(catalog)}_{identifier(stem)}"
        for index, start, text in blocks:
            if not needs_apple(text):
                continue
            imports = IMPORT.findall(text)
            if args.without_swiftui and "SwiftUI" in imports:
                left_out += 1
                continue
            target = f"{prefix}_{index}"
            name = f"{target}.swift" if re.search(r"^@main\b", text, re.M) else "main.swift"
            write(os.path.join(args.out, target, name), f'#sourceLocation(file: "{relative}", line: {start})\n{text}\n')
            written.add(target)
            for other in set(os.listdir(os.path.join(args.out, target))) - {name}:  # (main.swift became <target>.swift)
                os.remove(os.path.join(args.out, target, other))
            package = sorted({module for module in imports if module in targets})
            products = [module for module in FRAMEWORKS if module in imports]
            dependencies = [f'"{module}"' for module in package] + [
                f'.product(name: "{module}", package: "AppleSurface", condition: surfaceOnLinux)' for module in products]
            manifest.append(f'package.targets.append(.executableTarget(name: "{target}", dependencies: [{", ".join(dependencies)}], '
                            f'path: "ArticleBlocks/{target}", swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]))')
            print(f"{target}\t{target}/{name}\t{relative}:{start}\t{','.join(package)}")
    write(os.path.join(args.out, "manifest.swift"), "\n".join(manifest) + "\n")
    # Blocks of an earlier run that are gone (a directory of one file each).
    for entry in os.listdir(args.out):
        directory = os.path.join(args.out, entry)
        if os.path.isdir(directory) and entry not in written:
            for name in os.listdir(directory):
                os.remove(os.path.join(directory, name))
            os.rmdir(directory)
    if left_out:
        print(f"{left_out} block(s) importing SwiftUI left out (no SwiftUI in the surface)", file=sys.stderr)
    for problem in problems:
        print(problem, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
