#!/usr/bin/env python3
"""The package's targets as SwiftPM sees them (`swift package dump-package`).

As a module: `load(root)` gives every target's name, kind, source directory and the package
targets it depends on. As a program:
  scripts/package_targets.py [--root DIR] closure TARGET...
      prints the TARGETs and every package target they depend on, directly or not, one per line
      as `NAME<TAB>SOURCE_DIR` (relative to the package root), dependencies before their dependents;
  scripts/package_targets.py [--root DIR] manifest TARGET...
      prints the package's Package.swift followed by lines that keep only that closure, no
      products, and only the package dependencies those targets use: the manifest of a scratch
      package that builds the TARGETs alone (their directories must be linked in by the caller).
  --dump FILE reads the manifest's JSON from FILE (saved `swift package dump-package` output)
  instead of asking SwiftPM again.
"""
import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUMP = None  # a file holding `swift package dump-package`'s output, when given (--dump)


@dataclass
class Target:
    name: str
    kind: str  # "regular", "executable", "test", …
    path: str  # source directory, relative to the package root
    dependencies: list = field(default_factory=list)  # package targets only, in manifest order
    packages: set = field(default_factory=set)  # other packages whose products it uses (lower case)
    by_name_products: bool = False  # depends by bare name on something that is not a target

    @property
    def is_library(self):
        return self.kind not in ("executable", "test", "plugin", "snippet")


def dump(root):
    """The manifest as JSON; exits with SwiftPM's message when it cannot be read."""
    if DUMP:
        with open(DUMP) as handle:
            return json.load(handle)
    done = subprocess.run(["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"swift package dump-package failed in {root}:\n{done.stderr.strip()}")
    return json.loads(done.stdout)


def load(root=ROOT, manifest=None):
    """Name -> Target for every target of the package at `root`."""
    manifest = manifest if manifest is not None else dump(root)
    names = {target["name"] for target in manifest["targets"]}
    targets = {}
    for entry in manifest["targets"]:
        # SwiftPM's default locations; dump-package gives `path` only when the manifest sets one.
        default = {"test": "Tests", "plugin": "Plugins"}.get(entry["type"], "Sources")
        path = entry.get("path") or os.path.join(default, entry["name"])
        target = Target(entry["name"], entry["type"], path)
        for dependency in entry.get("dependencies", []):
            # {"byName": [name, condition]}, {"target": [name, condition]} or
            # {"product": [name, package, aliases, condition]} (another package's product).
            for key in ("byName", "target"):
                if key in dependency:
                    if dependency[key][0] in names:
                        target.dependencies.append(dependency[key][0])
                    else:
                        target.by_name_products = True
            if "product" in dependency:
                product, package = dependency["product"][:2]
                target.packages.add((package or product).lower())
        targets[entry["name"]] = target
    return targets


def closure(targets, names):
    """The targets named (one name or a list) and everything they depend on, dependencies first."""
    ordered, seen = [], set()

    def visit(current):
        if current in seen:
            return
        seen.add(current)
        for dependency in targets[current].dependencies:
            visit(dependency)
        ordered.append(current)

    for name in [names] if isinstance(names, str) else names:
        if name not in targets:
            sys.exit(f"no target named {name} in the package")
        visit(name)
    return ordered


def subset_manifest(root, names):
    """Package.swift of `root` plus Swift that trims the package to `names` and their closure."""
    names = [names] if isinstance(names, str) else list(names)
    manifest = dump(root)
    targets = load(root, manifest)
    kept = closure(targets, names)
    used = set().union(*(targets[target].packages for target in kept))
    keep_all = any(targets[target].by_name_products for target in kept)
    indices = []
    for index, dependency in enumerate(manifest.get("dependencies", [])):
        identity = next(iter(dependency.values()))[0].get("identity", "").lower()
        if keep_all or identity in used:
            indices.append(index)
    with open(os.path.join(root, "Package.swift")) as handle:
        text = handle.read()
    quoted = ", ".join(json.dumps(target) for target in kept)
    return text.rstrip("\n") + f"""

// Appended by scripts/package_targets.py: only {", ".join(names)} and the package targets needed.
let subsetTargets: Set<String> = [{quoted}]
package.targets.removeAll {{ !subsetTargets.contains($0.name) }}
package.products.removeAll()
package.dependencies = {json.dumps(indices)}.map {{ package.dependencies[$0] }}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=ROOT, help="the package root (default: this repository)")
    parser.add_argument("--dump", help="the manifest's JSON, saved from `swift package dump-package`")
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("closure", help="targets and their package dependencies, transitively")
    command.add_argument("target", nargs="+")
    command = commands.add_parser("manifest", help="Package.swift trimmed to targets and their closure")
    command.add_argument("target", nargs="+")
    args = parser.parse_args()
    global DUMP
    DUMP = args.dump
    if args.command == "manifest":
        print(subset_manifest(args.root, args.target), end="")
        return
    targets = load(args.root)
    for name in closure(targets, args.target):
        print(f"{name}\t{targets[name].path}")


if __name__ == "__main__":
    main()
