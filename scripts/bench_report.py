#!/usr/bin/env python3
"""Writes bench-results.json from one run of scripts/bench.

Usage: scripts/bench_report.py SAMPLES_DIR OUT_JSON
  SAMPLES_DIR holds the benchmark tool's histogramSamples TSV files and simulation.json (the
  HaraldSimulation output); prints the summary tables and writes OUT_JSON.
"""
import glob, json, os, platform, re, statistics, subprocess, sys, datetime

samples_dir, out_path = sys.argv[1], sys.argv[2]
# Must match `scalingFactor` in Benchmarks/Benchmarks/HaraldDecode/RecordDecoding.swift.
DECODES_PER_SAMPLE = 1000
UNIT = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}

results = {}
pattern = re.compile(r"^[^.]+\.[^.]+\.(?P<name>.+)\.(?P<metric>wallClock|mallocCountTotal)\.histogram\.samples\.tsv$")
for path in glob.glob(os.path.join(samples_dir, "*.tsv")):
    match = pattern.match(os.path.basename(path))
    if not match:
        continue
    with open(path) as f:
        header = f.readline()
        values = [float(line) for line in f if line.strip()]
    # The header ends with the unit the tool normalised the values to, e.g. "(ns)" or "(K)".
    unit = re.search(r"\(([^()]*)\)\s*$", header)
    scale = UNIT.get(unit.group(1) if unit else "", 1)
    per_decode = statistics.median(values) * scale / DECODES_PER_SAMPLE
    # File names replace "/" and spaces with "_": the shape is what precedes the first "_".
    shape, _, way = match["name"].partition("_")
    entry = results.setdefault(match["name"], {"name": f"{shape}/{way.replace('_', ' ')}", "shape": shape, "samples": len(values)})
    entry["nsPerOp" if match["metric"] == "wallClock" else "allocationsPerOp"] = per_decode

def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None

benchmarks = sorted(results.values(), key=lambda e: e["name"])
summary = {}
for shape in sorted({e["shape"] for e in benchmarks}):
    group = [e for e in benchmarks if e["shape"] == shape]
    baseline = next((e for e in group if e["name"].endswith("(baseline)")), None)
    floor = next((e for e in group if e["name"].endswith("(floor)")), None)
    for e in group:
        e["nsPerOp"] = round(e["nsPerOp"], 2)
        e["allocationsPerOp"] = round(e.get("allocationsPerOp", 0), 3)
        e["ratioToBaseline"] = ratio(e["nsPerOp"], baseline and baseline["nsPerOp"])
        e["speedupOverBaseline"] = ratio(baseline and baseline["nsPerOp"], e["nsPerOp"])
        e["ratioToFloor"] = ratio(e["nsPerOp"], floor and floor["nsPerOp"])
    # The way under test: the codec for record shapes, the real profile types for characteristics.
    codec = next((e for e in group if e["name"].endswith(("/HaraldCodec", "/HaraldProfiles"))), None)
    if codec and baseline and floor:
        summary[shape] = {
            "zeroAllocations": codec["allocationsPerOp"] == 0,
            "atLeast10xFasterThanBaseline": codec["speedupOverBaseline"] >= 10,
            "within2xOfFloor": codec["ratioToFloor"] <= 2,
        }

# Issue 7: the GoPro receive path (packets → message → values) against the hex-string baseline.
for shape in sorted({e["shape"] for e in benchmarks if e["shape"].startswith("GoPro")}):
    group = [e for e in benchmarks if e["shape"] == shape]
    harald = next((e for e in group if e["name"].endswith("/HaraldGoPro")), None)
    baseline = next((e for e in group if e["name"].endswith("(baseline)")), None)
    if harald and baseline:
        summary[shape] = {
            "atMostOneAllocation": harald["allocationsPerOp"] <= 1,
            "atLeast50xFasterThanBaseline": harald["speedupOverBaseline"] >= 50,
        }

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor()) if os.path.exists("/proc/cpuinfo") else platform.processor()
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
report = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "machine": {"cpu": cpu, "cores": os.cpu_count(), "loadAverage": os.getloadavg()[0], "swift": swift[0] if swift else ""},
    "method": "median of samples of 1000 decodes each (ordo-one/benchmark 1.38.1, release build); "
              "ratioToBaseline = ns / baseline ns, speedupOverBaseline = baseline ns / ns, ratioToFloor = ns / floor ns, "
              "all within the same run and record shape",
    "benchmarks": benchmarks,
    "targets": summary,
    # Issue 4: requests and connection events per device, MTU and path (per-service procedures, or
    # the public API's sweeps and batched reads) next to minimums worked out from the device's GATT
    # database, its server's values and the link model;
    # fan-in CPU time (process user + system time for the whole simulated run).
    "simulation": json.load(open(os.path.join(samples_dir, "simulation.json"))),
}
with open(out_path, "w") as f:
    json.dump(report, f, indent=2, ensure_ascii=False)
    f.write("\n")

print(f"{'benchmark':42} {'ns/op':>9} {'allocs/op':>9} {'÷baseline':>9} {'÷floor':>7}")
for e in benchmarks:
    fmt = lambda v: "-" if v is None else f"{v:.3g}"
    print(f"{e['name']:42} {e['nsPerOp']:9.2f} {e['allocationsPerOp']:9.3g} {fmt(e['ratioToBaseline']):>9} {fmt(e['ratioToFloor']):>7}")
for shape, checks in summary.items():
    print(f"{shape}: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in checks.items()))
sim = report["simulation"]
print(f"{'protocol cost':16} {'MTU':>4} {'path':24} {'requests':>8} {'minimum':>8} {'conn. events':>12} {'minimum':>8}")
for c in sim["protocolCost"]:
    print(f"{c['device']:16} {c['mtu']:4} {c.get('path', 'per-service procedures'):24} {c['requests']:8} {c['minimumRequests']:8} "
          f"{c['connectionEventsWithData']:12} {c.get('minimumConnectionEvents', '-'):>8}")
f = sim["fanIn"]
print(f"fan-in: {f['peripherals']} peripherals × {f['rateHz']} Hz × {f['virtualSeconds']} s = {f['notificationsReceived']}/{f['notificationsExpected']} "
      f"notifications, {f['cpuSeconds']:.2f} s CPU (goal < {f['goalCPUSeconds']} s), {f['wallSeconds']:.2f} s wall")
print(f"wrote {out_path}")
