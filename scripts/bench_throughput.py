"""Stream throughput on the simulated link (issue 28), for scripts/bench_report.py.

HaraldSimulation writes, under "streamThroughput" in its JSON, one row per transfer of a mebibyte:
the link's parameters (PHY, connection interval, packets per event after the model's clamp,
link-layer payload), the transport, the bytes, the virtual time, the PDUs that carried them and,
for the channel, the Flow Control Credit Indications the sink sent. Everything else is worked out
here from those figures, never read from the file:

  raw ceiling     = packets per event × (link-layer payload − 4) bytes per connection interval:
                    every packet full of L2CAP payload, the 4-byte basic L2CAP header taken off
                    (what K-frames of MPS = payload − 4 carry at best; the same figure for every
                    transport on a link, so channel and GATT compare on it);
  own limit       = what the transport's framing lets through when every slot is used.
                    GATT: LinkParameters.throughputLimit(attPayload:) in HaraldSimulator, packets
                    per event ÷ ⌈(ATT payload + 3 + 4) / link-layer payload⌉ PDUs per interval,
                    each carrying the ATT payload (ATT_MTU − 3). Channel: an SDU of S bytes goes
                    as ⌈(S + 2) / MPS⌉ K-frames (the first carries the 2-byte SDU length), each
                    ⌈(K-frame payload + 4) / link-layer payload⌉ packets, so packets per event ÷
                    packets per SDU SDUs per interval. A transfer at its own limit lost nothing
                    to flow control or scheduling; below it, credits or the engine held it back.

The target: the channel carries at least MIN_CHANNEL_SHARE of the raw ceiling on every link.
"""

import datetime
import json
import math

MIN_CHANNEL_SHARE = 0.90
PHYS = ("LE 1M", "LE 2M")
CHANNEL = "L2CAP channel"
MEASURED = ("phy", "connectionIntervalMicroseconds", "packetsPerEvent", "linkLayerPayload", "transport", "direction", "bytes",
            "virtualNanoseconds", "payloadPerPDU", "sduBytes", "pdus", "creditIndications")


def rows(report):
    """The transfers of `report` with their derived figures (bytes per second, ceilings, shares)."""
    out = []
    for raw in (report.get("simulation") or {}).get("streamThroughput") or []:
        r = {k: raw.get(k) for k in MEASURED}
        try:
            interval = r["connectionIntervalMicroseconds"] / 1e6
            seconds = r["virtualNanoseconds"] / 1e9
            per_event, payload = r["packetsPerEvent"], r["linkLayerPayload"]
            r["bytesPerSecond"] = r["bytes"] / seconds if seconds > 0 else None
            r["rawCeiling"] = per_event * (payload - 4) / interval if interval > 0 else None
            if r["transport"] != CHANNEL:
                packets = max(1, math.ceil((r["payloadPerPDU"] + 3 + 4) / payload))
                r["ownLimit"] = per_event / packets * r["payloadPerPDU"] / interval
            else:
                sdu, mps = r["sduBytes"], r["payloadPerPDU"]
                frames = math.ceil((sdu + 2) / mps)
                last = sdu + 2 - (frames - 1) * mps
                packets = (frames - 1) * math.ceil((mps + 4) / payload) + math.ceil((last + 4) / payload)
                r["ownLimit"] = per_event / packets * sdu / interval
        except (TypeError, KeyError, ZeroDivisionError):
            r["bytesPerSecond"] = r["rawCeiling"] = r["ownLimit"] = None
        r["rawShare"] = share(r["bytesPerSecond"], r["rawCeiling"])
        r["ownShare"] = share(r["bytesPerSecond"], r["ownLimit"])
        out.append(r)
    return out


def share(rate, limit):
    return round(rate / limit, 4) if rate is not None and limit else None


def targets(report):
    """Per PHY, the verdict on the channel's share of the raw ceiling (bench_report's verdict shape)."""
    found = rows(report)
    verdicts = {}
    name = f"channel at least {MIN_CHANNEL_SHARE:.0%} of the link's raw ceiling"
    for phy in PHYS:
        row = next((r for r in found if r["phy"] == phy and r["transport"] == CHANNEL), None)
        if row is None:
            verdicts[f"Channel {phy}"] = [{"target": name, "value": None, "limit": MIN_CHANNEL_SHARE, "met": False,
                                          "detail": f"no channel transfer on {phy} in this run"}]
        elif row["rawShare"] is None:
            verdicts[f"Channel {phy}"] = [{"target": name, "value": None, "limit": MIN_CHANNEL_SHARE, "met": False,
                                          "detail": "the transfer's time or the link's parameters are missing or zero"}]
        else:
            verdicts[f"Channel {phy}"] = [{"target": name, "value": row["rawShare"], "limit": MIN_CHANNEL_SHARE,
                                          "met": row["rawShare"] >= MIN_CHANNEL_SHARE, "detail": ""}]
    return verdicts


def kbps(v):
    return "–" if v is None else f"{v * 8 / 1000:,.0f} kbps"


def percent(v):
    return "–" if v is None else f"{v * 100:.1f} %"


def link_label(r):
    return f"{r['phy']}, {r['connectionIntervalMicroseconds'] / 1000:g} ms, {r['packetsPerEvent']} × {r['linkLayerPayload']} B"


def block(report):
    """The BENCHMARKS.md table and verdict."""
    found = rows(report)
    verdicts = targets(report)
    date = (report.get("simulation") or {}).get("streamThroughputDate", "?")
    lines = [f"Run of {date}, in virtual time: the figures depend on the code and the link model only, not on the "
             "machine or its load.", "",
             "| link (PHY, interval, packets per event × payload) | transport | direction | virtual time | throughput | raw ceiling "
             "| share of raw ceiling | own limit | share of own limit | PDUs | credit indications |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in found:
        seconds = r["virtualNanoseconds"] / 1e9 if r["virtualNanoseconds"] is not None else None
        if r["transport"] == CHANNEL:
            credits = "not counted" if r["creditIndications"] is None else (
                f"{r['creditIndications']} (one per {r['pdus'] / r['creditIndications']:.0f} K-frames)" if r["creditIndications"] else "0")
            pdus = f"{r['pdus']} K-frames of ≤ {r['payloadPerPDU']} B, SDUs of {r['sduBytes']} B"
        else:
            credits = "–"
            pdus = f"{r['pdus']} of ≤ {r['payloadPerPDU']} B"
        lines.append(f"| {link_label(r)} | {r['transport']} | {r['direction']} | "
                     + ("–" if seconds is None else f"{seconds:.3f} s") + f" | {kbps(r['bytesPerSecond'])} | {kbps(r['rawCeiling'])} "
                     f"| {percent(r['rawShare'])} | {kbps(r['ownLimit'])} | {percent(r['ownShare'])} | {pdus} | {credits} |")
    if not found:
        lines.append("| not measured in this run | | | | | | | | | | |")
    missed = [k for k, ts in verdicts.items() if not ts[0]["met"]]
    lines += ["", f"Target (issue 28), judged by `scripts/bench_report.py` on this run: the channel carries at least "
              f"{MIN_CHANNEL_SHARE:.0%} of the link's raw ceiling on {' and '.join(PHYS)}: "
              + ("met on both." if not missed else "**missed**: " + "; ".join(
                  f"{k} ({percent(verdicts[k][0]['value']) if verdicts[k][0]['value'] is not None else verdicts[k][0]['detail']})"
                  for k in missed) + ".")]
    return "\n".join(lines)


def short_block(report):
    """The DocC Performance article's sentence."""
    found = rows(report)
    channel = [r for r in found if r["transport"] == CHANNEL]
    if not channel:
        return "Not measured in the run `BENCHMARKS.md` describes."
    parts = []
    for r in channel:
        gatt = next((g for g in found if g["phy"] == r["phy"] and g["transport"] == "GATT notifications"), None)
        parts.append(f"on {link_label(r)} a channel carries {kbps(r['bytesPerSecond'])} ({percent(r['rawShare'])} of the "
                     f"{kbps(r['rawCeiling'])} the link's packets can carry)"
                     + (f", GATT notifications {kbps(gatt['bytesPerSecond'])} ({percent(gatt['rawShare'])})" if gatt else ""))
    missed = [k for k, ts in targets(report).items() if not ts[0]["met"]]
    return ("A mebibyte in virtual time on the simulated link: " + "; ".join(parts) + ". Goal for the channel: at least "
            f"{MIN_CHANNEL_SHARE:.0%} of that ceiling — " + ("met." if not missed else f"missed ({', '.join(missed)}).")
            + " `BENCHMARKS.md` gives every figure and how the ceilings are worked out.")


def print_rows(report):
    for r in rows(report):
        print(f"{link_label(r):28} {r['transport']:30} {kbps(r['bytesPerSecond']):>12} of {kbps(r['rawCeiling']):>12} raw "
              f"({percent(r['rawShare'])}), credit indications {r['creditIndications'] if r['creditIndications'] is not None else '-'}")


def store(throughput_path, results_path):
    """Puts the rows of a `HaraldSimulation --throughput` run into the results file (every other
    figure kept, the run's date beside them); returns their verdicts."""
    report = json.load(open(results_path))
    report.setdefault("simulation", {})["streamThroughput"] = json.load(open(throughput_path))
    report["simulation"]["streamThroughputDate"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    verdicts = targets(report)
    report["targets"] = {**{k: v for k, v in report.get("targets", {}).items() if k not in verdicts}, **verdicts}
    with open(results_path, "w") as f:
        json.dump(report, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print_rows(report)
    print(f"wrote the stream-throughput rows of {results_path}")
    return verdicts


def self_test():
    """Failures (strings) of the judge on planted results; empty when it behaves."""
    failures = []

    def transfer(phy, transport, ns, per_event=12, interval=30000, **extra):
        return dict({"phy": phy, "connectionIntervalMicroseconds": interval, "packetsPerEvent": per_event, "linkLayerPayload": 251,
                     "transport": transport, "direction": "central → peripheral", "bytes": 1 << 20, "virtualNanoseconds": ns,
                     "payloadPerPDU": 247 if transport == CHANNEL else 244, "sduBytes": 4096 if transport == CHANNEL else None,
                     "pdus": 4352, "creditIndications": 100 if transport == CHANNEL else None}, **extra)

    # LE 1M, 30 ms, 12 packets: ceiling 12 × 247 / 0.03 = 98,800 B/s; a mebibyte in 11.0 s is 96.5 %, in 12.0 s 88.4 %.
    # LE 2M, 15 ms, 10 packets: 164,667 B/s; 6.8 s is 93.6 %.
    def report(ns_1m=11_000_000_000, ns_2m=6_800_000_000, drop=()):
        found = [transfer("LE 1M", CHANNEL, ns_1m), transfer("LE 1M", "GATT notifications", 10_800_000_000),
                 transfer("LE 2M", CHANNEL, ns_2m, per_event=10, interval=15000)]
        return {"simulation": {"streamThroughput": [r for r in found if (r["phy"], r["transport"]) not in drop]}}

    def judged(r):
        return {k: ts[0]["met"] for k, ts in targets(r).items()}

    if not all(judged(report()).values()):
        failures.append(f"throughput: good results judged {judged(report())}")
    if judged(report(ns_1m=12_000_000_000))["Channel LE 1M"]:
        failures.append("throughput: a channel at 88 % of the raw ceiling passed")
    if judged(report(drop=(("LE 2M", CHANNEL),)))["Channel LE 2M"]:
        failures.append("throughput: a run without the LE 2M channel passed")
    if judged(report(ns_1m=0))["Channel LE 1M"]:
        failures.append("throughput: a zero-time transfer passed")
    if any(judged({}).values()):
        failures.append("throughput: results without a simulation passed")
    gatt = next(r for r in rows(report()) if r["transport"] == "GATT notifications")
    # 12 packets × 244 B / 30 ms = 97,600 B/s: the notification size fills one 251-byte packet exactly.
    if gatt["ownLimit"] is None or abs(gatt["ownLimit"] - 97_600) > 1e-6:
        failures.append(f"throughput: the GATT limit is {gatt['ownLimit']}, not 97,600 B/s")
    # SDUs of 4096 B: 4098 B in K-frames of ≤ 247 B = 17 one-packet K-frames; 12 / 17 × 4096 B / 30 ms.
    channel = next(r for r in rows(report()) if r["transport"] == CHANNEL and r["phy"] == "LE 1M")
    if channel["ownLimit"] is None or abs(channel["ownLimit"] - 12 / 17 * 4096 / 0.03) > 1e-6:
        failures.append(f"throughput: the channel's framing limit is {channel['ownLimit']}, not 96,376 B/s")
    text = block(report(ns_1m=12_000_000_000))
    if "**missed**: Channel LE 1M (88.4 %)" not in text or "| 88.4 % |" not in text:
        failures.append("throughput: the block does not say the LE 1M channel missed at 88.4 %")
    if "met on both." not in block(report()) or "met." not in short_block(report()):
        failures.append("throughput: the blocks do not say met when the channel meets its target")
    return failures
