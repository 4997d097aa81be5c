#!/usr/bin/env python3
"""Writes bench-bumble-results.json from one run of scripts/bench-bumble.

Usage: scripts/bumble/bench_report.py WORK_DIR OUT_JSON NOTIFICATIONS
  WORK_DIR holds the rounds' harald-*.json, bumble-*.json and floor-*.json and the bench peer's
  peer.log; NOTIFICATIONS is the burst size every session was asked for. Run it with the venv's
  python (it reports Bumble's version). Prints the comparison and writes OUT_JSON.
"""
import datetime, glob, json, os, platform, statistics, subprocess, sys

work, out_path, notifications = sys.argv[1], sys.argv[2], int(sys.argv[3])
STEPS = ["connect", "discover", "read", "notifications"]
sessions = {"harald": [], "bumble": []}
for central in sessions:
    for path in sorted(glob.glob(os.path.join(work, f"{central}-*.json"))):
        sessions[central] += json.load(open(path))["iterations"]

def total(session, key):
    return sum(session["steps"][step][key] for step in STEPS)

summary = {}
for central, runs in sessions.items():
    entry = {}
    for step in STEPS + ["total"]:
        seconds = [total(r, "seconds") if step == "total" else r["steps"][step]["seconds"] for r in runs]
        requests = [total(r, "attRequests") if step == "total" else r["steps"][step]["attRequests"] for r in runs]
        cpu = [total(r, "cpuSeconds") if step == "total" else r["steps"][step]["cpuSeconds"] for r in runs]
        entry[step] = {
            "medianSeconds": round(statistics.median(seconds), 5), "minSeconds": round(min(seconds), 5),
            "medianCPUSeconds": round(statistics.median(cpu), 5),
            "maxSeconds": round(max(seconds), 5), "attRequests": statistics.median(requests),
            "attRequestsAlwaysSame": len(set(requests)) == 1,
        }
        if step != "total":
            entry[step]["medianContextSwitches"] = statistics.median(r["steps"][step].get("contextSwitches", 0) for r in runs)
        if step != "total":
            entry[step]["attRequestsByOpcode"] = runs[0]["steps"][step]["attRequestsByOpcode"]
    entry["sessions"] = len(runs)
    entry["notificationsAllReceivedInOrder"] = all(
        r["notificationsReceived"] == notifications and r["notificationsOutOfOrder"] == 0 and r["notificationsDropped"] == 0 for r in runs)
    entry["tree"] = {k: runs[0][k] for k in ("services", "characteristics", "descriptors", "bytesRead", "mtu")}
    summary[central] = entry

# Harald with its notification loop on the transport's thread (`--loop transport`): the
# notification step only, per notification.
loop_runs = []
for path in sorted(glob.glob(os.path.join(work, "haraldloop-*.json"))):
    loop_runs += json.load(open(path))["iterations"]
if loop_runs:
    cpu = [r["steps"]["notifications"]["cpuSeconds"] for r in loop_runs]
    summary["haraldTransportLoop"] = {"notifications": {
        "medianSeconds": round(statistics.median(r["steps"]["notifications"]["seconds"] for r in loop_runs), 5),
        "medianCPUSeconds": round(statistics.median(cpu), 5),
        "medianContextSwitches": statistics.median(r["steps"]["notifications"].get("contextSwitches", 0) for r in loop_runs),
    }, "sessions": len(loop_runs), "notificationsAllReceivedInOrder": all(
        r["notificationsReceived"] == notifications and r["notificationsOutOfOrder"] == 0 and r["notificationsDropped"] == 0 for r in loop_runs)}
for entry in summary.values():
    entry["notifications"]["medianCPUMicrosecondsPerNotification"] = round(entry["notifications"]["medianCPUSeconds"] / notifications * 1e6, 1)

# The peer's own timing of each burst (BURST lines), matched to the session whose notification
# step contains the CCCD write's arrival (all processes stamp CLOCK_MONOTONIC).
bursts = []
for line in open(os.path.join(work, "peer.log")):
    if line.startswith("BURST "):
        fields = dict(item.split("=", 1) for item in line.split()[1:])
        bursts.append({key: (value if key == "central" else float(value)) for key, value in fields.items()})

def breakdown(runs):
    rows = []
    for r in runs:
        n = r["steps"]["notifications"]
        b = next((b for b in bursts if n.get("startedAt", 0) <= b["startedAt"] <= n.get("endedAt", 0)), None)
        if b is None:
            continue
        rows.append({
            "subscribeSeconds": b["startedAt"] - n["startedAt"], "peerBurstSeconds": b["handedSeconds"],
            "tailSeconds": n["endedAt"] - (b["startedAt"] + b["handedSeconds"]),
            "peerFlowControlWaits": b["flowWaits"], "peerFlowControlWaitSeconds": b["flowWaitSeconds"],
            "peerCPUSeconds": b["cpuSeconds"], "controllersCPUSeconds": b["controllersCPUSeconds"]})
    if not rows:
        return {}
    return {key: round(statistics.median(row[key] for row in rows), 5) for key in rows[0]} | {"bursts": len(rows)}

# The peer's CONNECTED lines stamp when each link came up: the connect step splits into the wait
# for the link (LE Create Connection until the peer's next advertisement, every 20 ms: no host can
# shorten it) and what follows it (Connection Complete to the host, the MTU exchange round trip).
links = [float(line.split("at=")[1]) for line in open(os.path.join(work, "peer.log"))
         if line.startswith("CONNECTED ") and "at=" in line]

def connect_breakdown(runs):
    rows = []
    for r in runs:
        c = r["steps"]["connect"]
        at = next((t for t in links if c.get("startedAt", 0) <= t <= c.get("endedAt", 0)), None)
        if at is not None:
            rows.append({"waitForLinkSeconds": at - c["startedAt"], "afterLinkSeconds": c["endedAt"] - at})
    if not rows:
        return {}
    return {key: round(statistics.median(row[key] for row in rows), 5) for key in rows[0]} | {"links": len(rows)}

for central, runs in sessions.items():
    summary[central]["notifications"]["breakdown"] = breakdown(runs)
    summary[central]["connect"]["breakdown"] = connect_breakdown(runs)

floor_runs = []
for path in sorted(glob.glob(os.path.join(work, "floor-*.json"))):
    floor_runs += json.load(open(path))["iterations"]
def median_of(runs, step, key="seconds"):
    return round(statistics.median(r["steps"][step][key] for r in runs), 5)
round_trip = median_of(floor_runs, "connect", "attRoundTripSeconds")
floor = {
    "sessions": len(floor_runs),
    "notificationsAllReceivedInOrder": all(
        r["notificationsReceived"] == notifications and r["notificationsOutOfOrder"] == 0 for r in floor_runs),
    "connect": {"medianSeconds": median_of(floor_runs, "connect"),
                "minSeconds": round(min(r["steps"]["connect"]["seconds"] for r in floor_runs), 5),
                "linkMedianSeconds": median_of(floor_runs, "connect", "linkSeconds"),
                "attRoundTripMedianSeconds": round_trip, "breakdown": connect_breakdown(floor_runs)},
    "notifications": {"medianSeconds": median_of(floor_runs, "notifications"),
                      "minSeconds": round(min(r["steps"]["notifications"]["seconds"] for r in floor_runs), 5),
                      "breakdown": breakdown(floor_runs)},
}
# Per step, the least time any central could take against this peer: measured by the null central
# for connect and notifications; for discover and read, the fewest ATT requests either central
# needs, each costing at least the null central's ATT round trip.
# The peer's burst and the wait for the link do not depend on the central (it only waits), so the
# least median of the three sessions' kinds is used where it is below the null central's own step.
bursts_by = [summary[c]["notifications"]["breakdown"].get("peerBurstSeconds") for c in ("harald", "bumble")]
bursts_by.append(floor["notifications"]["breakdown"].get("peerBurstSeconds"))
waits_by = [summary[c]["connect"]["breakdown"].get("waitForLinkSeconds") for c in ("harald", "bumble")]
waits_by.append(floor["connect"]["breakdown"].get("waitForLinkSeconds"))
after_link = floor["connect"]["breakdown"].get("afterLinkSeconds", 0)
floor_seconds = {
    "connect": round(min([floor["connect"]["medianSeconds"]] + [w + after_link for w in waits_by if w is not None]), 5),
    "notifications": round(min([floor["notifications"]["medianSeconds"]] + [b for b in bursts_by if b is not None]), 5),
}
for step in ("discover", "read"):
    fewest = min(summary["harald"][step]["attRequests"], summary["bumble"][step]["attRequests"])
    # A central that did the step faster than this estimate shows the estimate is not a floor.
    floor_seconds[step] = round(min([fewest * round_trip] + [summary[c][step]["medianSeconds"] for c in ("harald", "bumble")]), 5)
floor_seconds["total"] = round(sum(floor_seconds[step] for step in STEPS), 5)
floor["perStepSeconds"] = floor_seconds
# Each of the peer and the controllers is one Python thread: even with perfect overlap on two
# idle cores a burst cannot take less than the larger of their CPU times.
fb = floor["notifications"]["breakdown"]
floor["notifications"]["cpuBoundSeconds"] = round(max(fb.get("peerCPUSeconds", 0), fb.get("controllersCPUSeconds", 0)), 5)
half_reachable = {step: floor_seconds[step] <= 0.5 * summary["bumble"][step]["medianSeconds"] for step in STEPS + ["total"]}
floor["floorOverBumble"] = {step: round(floor_seconds[step] / summary["bumble"][step]["medianSeconds"], 3) for step in STEPS + ["total"]}
floor["halfOfBumbleReachable"] = half_reachable

comparison = {}
for step in STEPS + ["total"]:
    h, b = summary["harald"][step], summary["bumble"][step]
    comparison[step] = {
        "attRequests": {"harald": h["attRequests"], "bumble": b["attRequests"],
                        "ratio": round(h["attRequests"] / b["attRequests"], 3) if b["attRequests"] else None},
        "medianSeconds": {"harald": h["medianSeconds"], "bumble": b["medianSeconds"],
                          "ratio": round(h["medianSeconds"] / b["medianSeconds"], 3)},
        "medianCPUSeconds": {"harald": h["medianCPUSeconds"], "bumble": b["medianCPUSeconds"],
                             "ratio": round(h["medianCPUSeconds"] / b["medianCPUSeconds"], 3) if b["medianCPUSeconds"] else None},
    }
goals = {
    "noMoreATTRequestsThanBumble": all(comparison[s]["attRequests"]["harald"] <= comparison[s]["attRequests"]["bumble"] for s in STEPS),
    "atMostHalfBumblesWallTime": comparison["total"]["medianSeconds"]["ratio"] <= 0.5,
    "atMostHalfBumblesWallTimePerStep": {s: comparison[s]["medianSeconds"]["ratio"] <= 0.5 for s in STEPS},
    "notificationsNoSlowerThanBumble": comparison["notifications"]["medianSeconds"]["ratio"] <= 1.0,
    "halfOfBumblesWallTimeReachable": half_reachable,
}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
import bumble, importlib.metadata
report = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "machine": {"cpu": cpu, "cores": os.cpu_count(), "loadAverage": os.getloadavg()[0],
                "swift": swift[0] if swift else "", "python": platform.python_version(),
                "bumble": importlib.metadata.version("bumble")},
    "method": (
        "Both centrals run against the same Bumble peer (scripts/bumble/bench_peer.py: hr GATT database + FFB0 bench "
        "service) over Bumble's linked virtual controllers (bench mode, 27-byte ACL fragments), in alternating rounds, "
        "one session at a time. Steps: connect = LE connection + Exchange MTU (517); discover = all primary services, "
        "their characteristics, and each characteristic's descriptors; read = every readable characteristic value; "
        f"notifications = subscribe (CCCD write) until {notifications} notifications of 20 bytes have arrived, "
        "the peer notifying as fast as its host's ACL flow control allows. ATT requests = PDUs sent that expect a "
        "response (Harald: GATTClient.counters.pdusSent minus commands/confirmations; Bumble: calls to "
        "GattClient.send_request). Wall time per step: median over all sessions. CPU seconds: the central process's own "
        "CPU time during the step (all threads; Harald CLOCK_PROCESS_CPUTIME_ID, Bumble time.process_time), which "
        "leaves out the Python peer and controllers that bound every round trip's wall time. Harald: release build, public API "
        "(Central/PeripheralConnection) on HCICentralBackend: discoverAll (all services' characteristics in one Read By Type "
        "sweep), discoverDescriptors(ofAll:) (one Find Information sweep), readRawValues(of:) (Read Multiple Variable "
        "batches, Read Blob for truncated values). Bumble: its Peer API as an application uses it (discover_services, "
        "per-service discover_characteristics, per-characteristic discover_descriptors, per-characteristic read_value); "
        "Bumble 0.0.236's client has no batched read (read_characteristics_by_uuid is one Read By Type run per UUID). "
        "ratio = Harald / Bumble. Floor: scripts/bumble/bench_floor.py, a raw-HCI central with no host stack on a "
        "fourth controller, run in every round after the two centrals: connect = LE Create Connection to LE Connection "
        "Complete (the virtual link connects at the peer's next advertisement, every 20 ms; each central waits 300 ms plus "
        "a random 0-20 ms between sessions so every phase is sampled) plus one Exchange MTU round trip; notifications = "
        "CCCD write until the last notification arrived. perStepSeconds: that floor per step, discover and read estimated "
        "as the fewest ATT requests either central needs times the floor's ATT round trip (or a central's median when "
        "that is lower: the first round trip after connecting, which the null central times, is the slowest), connect and notifications "
        "lowered to the least median over the three kinds of session of the wait for the link (plus the null central's "
        "after-link time) and of the peer's burst, which no central can go below; halfOfBumbleReachable: floor "
        "<= half of Bumble's median. Notification breakdown (medians): subscribeSeconds = the central's subscribe call "
        "until the CCCD write reached the peer's GATT server; peerBurstSeconds = from then until the peer handed its last "
        "notification to its controller (the peer keeps at most the controller's 64 ACL buffers in flight and waits for "
        "Number Of Completed Packets; peerFlowControlWait*); tailSeconds = from then until the central had the last value; "
        "peerCPUSeconds and controllersCPUSeconds = CPU the peer and the controllers' process used during the burst. "
        "Connect breakdown (medians): waitForLinkSeconds = the central's connect call until the peer saw the link come "
        "up (its CONNECTED line), afterLinkSeconds = from then until the MTU exchange was done. "
        "contextSwitches: voluntary + involuntary, all threads of the central's process (getrusage). "
        "haraldTransportLoop: Harald's sessions with the notification loop run under a task executor preference for the "
        "thread that reads the controller (HCIHost.taskExecutor); in the other Harald sessions the loop runs on the main "
        "actor, as an app's would."),
    "comparison": comparison,
    "goals": goals,
    "floor": floor,
    "summary": summary,
    "sessions": sessions,
}
with open(out_path, "w") as f:
    json.dump(report, f, indent=2)
    f.write("\n")

print(f"{'step':14} {'ATT req H':>9} {'ATT req B':>9} {'ratio':>6}   {'wall s H':>9} {'wall s B':>9} {'ratio':>6}   {'cpu s H':>8} {'cpu s B':>8} {'ratio':>6}")
for step in STEPS + ["total"]:
    c = comparison[step]
    print(f"{step:14} {c['attRequests']['harald']:9} {c['attRequests']['bumble']:9} {c['attRequests']['ratio'] or 0:6.2f}   "
          f"{c['medianSeconds']['harald']:9.4f} {c['medianSeconds']['bumble']:9.4f} {c['medianSeconds']['ratio']:6.2f}   "
          f"{c['medianCPUSeconds']['harald']:8.4f} {c['medianCPUSeconds']['bumble']:8.4f} {c['medianCPUSeconds']['ratio'] or 0:6.2f}")
print("goals:", json.dumps(goals))
print(f"floor: {json.dumps(floor_seconds)}; floor/Bumble {json.dumps(floor['floorOverBumble'])}; "
      f"burst CPU bound {floor['notifications']['cpuBoundSeconds']}")
for central in ("harald", "bumble"):
    print(f"notification breakdown {central}: {json.dumps(summary[central]['notifications']['breakdown'])}")
print(f"notification breakdown floor: {json.dumps(floor['notifications']['breakdown'])}")
for central in ("harald", "bumble"):
    print(f"connect breakdown {central}: {json.dumps(summary[central]['connect']['breakdown'])}")
print(f"connect breakdown floor: {json.dumps(floor['connect']['breakdown'])}")
for central in summary:
    print(f"notification CPU per notification {central}: {summary[central]['notifications']['medianCPUMicrosecondsPerNotification']} us "
          f"(median context switches {summary[central]['notifications']['medianContextSwitches']})")
for central in sessions:
    print(f"{central}: {summary[central]['sessions']} sessions, tree {summary[central]['tree']}, "
          f"all notifications in order: {summary[central]['notificationsAllReceivedInOrder']}")
print(f"wrote {out_path}")
