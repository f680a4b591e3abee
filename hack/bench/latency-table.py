"""Prints hack/bench/latency-vs-java.sh's comparison from the files it wrote.

Ratios are serdebench / Java: the LatencyProbe (Java client, serdebench's schedule,
microseconds) is the reference the 1.2x target is checked against; Kafka's
ProducerPerformance is shown beside it in its own whole milliseconds. Each ratio is
the project's estimator over the interleaved rounds (hack/bench/ratio), with its
interval and that interval's confidence.
"""
import json
import os
import re
import statistics
import subprocess
import sys

out, rates, target = os.environ["BENCH_OUT"], os.environ["BENCH_RATES"].split(), float(os.environ["TARGET"])
ratio_tool = os.environ["BENCH_RATIO"]


def ratio(ours, theirs):
    """(estimate, low, high, confidence) of ours / theirs over the rounds."""
    line = subprocess.run([ratio_tool, *map(str, ours), "--", *map(str, theirs)], check=True,
                          capture_output=True, text=True).stdout.split()
    est, low, high, conf, _p = map(float, line)
    return est, low, high, conf


def shown(r):
    est, low, high, conf = r
    return f"{est:.2f}x [{low:.2f}-{high:.2f}] {conf * 100:.0f}%"


def last_json(path):
    """The file's JSON document, or its last line that is one (the probe's)."""
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        lines = [l for l in text.splitlines() if l.startswith("{")]
        if not lines:
            sys.exit(f"latency bench: no result in {path}")
        return json.loads(lines[-1])


def ours(path):
    r = last_json(path)["trials"][0]["result"]
    if r.get("lost") or r.get("failed") or r.get("errors") or r["ackMicros"]["count"] != r["records"]:
        sys.exit(f"latency bench: {path}: lost {r.get('lost')}, failed {r.get('failed')}, errors {r.get('errors')}, "
                 f"{r['ackMicros']['count']} ack latencies of {r['records']} records")
    return {"rps": r["recordsPerSecond"], "ack": r["ackMicros"], "e2e": r["endToEndMicros"],
            "lost": 0, "warnings": r.get("warnings") or []}


def probe(path):
    r = last_json(path)
    return {"rps": r["recordsPerSecond"], "ack": r["ackMicros"], "e2e": r["endToEndMicros"], "lost": 0,
            "warnings": [] if r["failed"] == 0 else [f"{r['failed']} failed sends"]}


def probe2(rate, i):
    """The probe split in two JVMs: the producer's acks, the consumer's end to end."""
    p, c = last_json(f"{out}/probe2-produce-{rate}-{i}.json"), last_json(f"{out}/probe2-consume-{rate}-{i}.json")
    return {"rps": p["recordsPerSecond"], "ack": p["ackMicros"], "e2e": c["endToEndMicros"], "lost": 0,
            "warnings": [] if p["failed"] == 0 else [f"{p['failed']} failed sends"]}


PP = re.compile(r"steady state records sent, ([0-9.]+) records/sec .*?, ([0-9.]+) ms avg latency, ([0-9.]+) ms max latency, "
                r"([0-9]+) ms 50th, ([0-9]+) ms 95th, ([0-9]+) ms 99th")
E2E_AVG, E2E_P = re.compile(r"Avg latency: ([0-9.]+) ms"), re.compile(r"Percentiles: 50th = ([0-9]+), 99th = ([0-9]+)")


def grep(rx, path):
    with open(path) as f:
        m = rx.search(f.read())
    if not m:
        sys.exit(f"latency bench: no result line in {path}")
    return m


ms = lambda us: us / 1000.0
reps = range(1, int(os.environ["BENCH_REPEATS"]) + 1)
missed, undecided = [], []
print(f"{'rate':>6}  {'client':<27} {'rec/s':>7} {'ack p50':>8} {'ack p99':>8} {'e2e p50':>8} {'e2e p99':>8}"
      f" {'ack p50 / Java':>24} {'e2e p50 / Java':>24}")
for rate in rates:
    clients = os.environ["BENCH_CLIENTS"].split()
    java = [probe(f"{out}/probe-{rate}-{i}.json") for i in reps]
    # The JVM worker's producers and consumers are two JVMs: its reference is the
    # probe split the same way; the Go clients run both in one process, as the
    # probe's one JVM does.
    split = [probe2(rate, i) for i in reps] if "java" in clients else None
    runs = [(f"serdebench {c}", [ours(f"{out}/{c}-{rate}-{i}.json") for i in reps], split if c == "java" else java)
            for c in clients]
    if split:
        runs.append(("serdebench java (1 JVM ref)", runs[clients.index("java")][1], java))
    runs.append(("Java client (LatencyProbe)", java, None))
    if split:
        runs.append(("Java client, two JVMs", split, None))
    for name, rs, ref in runs:
        med = lambda k, q: statistics.median(r[k][q] for r in rs)
        mark, ack, e2e = "", "", ""
        if ref is not None:
            ack_r = ratio([r["ack"]["p50"] for r in rs], [j["ack"]["p50"] for j in ref])
            e2e_r = ratio([r["e2e"]["p50"] for r in rs], [j["e2e"]["p50"] for j in ref])
            ack, e2e = shown(ack_r), shown(e2e_r)
            if ref is java and split and name.startswith("serdebench java"):
                mark = "  (informative: one JVM is not the worker's shape)"
            elif ack_r[2] <= target:
                mark = "  ok"
            elif ack_r[1] > target:
                mark = f"  > {target}x"
                missed.append(f"{name} at {rate} rec/s: {shown(ack_r)}")
            else:
                mark = "  undecided"
                undecided.append(f"{name} at {rate} rec/s: {shown(ack_r)}")
        warnings = sorted({w.split(":")[0] for r in rs for w in r["warnings"]})
        note = "" if not warnings else "  (" + "; ".join(warnings) + ")"
        print(f"{rate:>6}  {name:<27} {statistics.median(r['rps'] for r in rs):>7.0f} {ms(med('ack', 'p50')):>8.2f}"
              f" {ms(med('ack', 'p99')):>8.2f} {ms(med('e2e', 'p50')):>8.2f} {ms(med('e2e', 'p99')):>8.2f}"
              f" {ack:>24} {e2e:>24}{mark}{note}")
    m = grep(PP, f"{out}/java-pp-{rate}.txt")
    print(f"{rate:>6}  {'Kafka ProducerPerformance':<27} {float(m.group(1)):>7.0f} {m.group(4):>8} {m.group(6):>8}"
          f" {'-':>8} {'-':>8}   (one run; whole ms, from the actual send; avg {m.group(2)} ms)")
avg, p = grep(E2E_AVG, f"{out}/java-e2e.txt"), grep(E2E_P, f"{out}/java-e2e.txt")
print(f"{'-':>6}  {'Kafka EndToEndLatency':<27} {'-':>7} {'-':>8} {'-':>8} {p.group(1):>8} {p.group(2):>8}"
      f"   (one record at a time, whole ms; avg {float(avg.group(1)):.2f} ms)")
print(f"medians over {len(reps)} interleaved runs; ratio = serdebench / the Java client on the same schedule, broker and "
      f"settings (the JVM worker's: the probe in two JVMs, as the worker runs): the Hodges-Lehmann estimate on logarithms [its interval] and that interval's confidence; "
      f"target: ack p50 within {target}x (ok: the whole interval at or below it).")
if undecided:
    print("UNDECIDED (more rounds, BENCH_REPEATS, tell): " + "; ".join(undecided))
if missed:
    print("TARGET MISSED: " + "; ".join(missed))
elif not undecided:
    print("target met by every client at every rate.")
