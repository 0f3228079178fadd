"""`run --trace`: the JSON against the trace-event format (phases, microsecond times, one name per
track, no overlapping complete events on a track), the arguments and counters, one track per
SwarmX level, every CS-X up to 64 systems and --trace-systems beyond; hand-checked values."""
import csv
import json
import os
import tempfile
import time

from clitest import check, expect, finish, run

SCEN = "scenarios/gpt3_xl_4x_cs2.yaml"  # GPT-3 XL, CS-2, batch 528 on 4 systems
PHASES = {"X", "M", "C", "i", "B", "E"}
# CS-2 (platforms/cs2.yaml): MemoryX link 150e9 B/s, SwarmX hop latency 5 us.
MEMORYX_BPS, HOP_S = 150.0e9, 5.0e-6


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-30)


def traced(d, name, *extra):
    """Runs csxsim run with --trace and --csv; returns (trace JSON, chosen CSV row, all rows)."""
    trace, table = os.path.join(d, name + ".json"), os.path.join(d, name + ".csv")
    expect(["run", SCEN, "--trace", trace, "--csv", table, "-q", *extra], 0)
    rows = list(csv.DictReader(open(table)))
    return json.load(open(trace)), [r for r in rows if r["chosen"] == "true"][0], table


def validate(j, label):
    """The trace-event format; returns {track name: [X events]} and {counter: [C events]}."""
    events = j["traceEvents"]
    for e in events:
        check(e.get("ph") in PHASES, f"{label}: phase {e.get('ph')!r}")
        check(e.get("pid") == 1, f"{label}: pid")
        if e["ph"] in ("X", "C"):
            check(isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0, f"{label}: ts {e}")
        if e["ph"] == "X":
            check(isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0, f"{label}: dur {e}")
            check(isinstance(e.get("args"), dict), f"{label}: args of {e['name']}")
        if e["ph"] == "C":
            check(isinstance(e.get("args"), dict) and e["args"] and
                  all(isinstance(v, (int, float)) for v in e["args"].values()),
                  f"{label}: counter values {e}")
    names = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            check(e["tid"] not in names, f"{label}: tid {e['tid']} named twice")
            names[e["tid"]] = e["args"]["name"]
    check(len(set(names.values())) == len(names), f"{label}: two tids share a name")
    tracks, counters = {}, {}
    for e in events:
        if e["ph"] == "X":
            check(e["tid"] in names, f"{label}: tid {e['tid']} has no thread_name")
            tracks.setdefault(names.get(e["tid"]), []).append(e)
        elif e["ph"] == "C":
            counters.setdefault(e["name"], []).append(e)
    for name, evs in tracks.items():
        spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in evs)
        for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
            check(s1 >= e0 - 1e-6 * max(1.0, e0), f"{label}: track {name}: overlap ({s0},{e0}) ({s1},{e1})")
    for name, evs in counters.items():
        ts = [e["ts"] for e in evs]
        check(ts == sorted(ts), f"{label}: counter {name} out of time order")
    return tracks, counters


def has_args(tracks, categories, keys, label):
    for name, evs in tracks.items():
        for e in evs:
            if e["cat"] in categories:
                missing = [k for k in keys if k not in e["args"]]
                check(not missing, f"{label}: {name} {e['name']} lacks {missing}")


with tempfile.TemporaryDirectory() as d:
    desc = json.loads(run("describe", SCEN, "--json").stdout)
    layers = {layer["name"]: layer for layer in desc["layers"]}

    # --- 4 systems: every CS-X, one SwarmX level (fanout 4).
    j, row, _ = traced(d, "four")
    tracks, counters = validate(j, "4 systems")
    want = ["steps", "step overhead", "memoryx stream", "memoryx optimizer",
            "swarmx level 1 broadcast", "swarmx level 1 reduce", "csx-0", "csx-1", "csx-2", "csx-3"]
    check(sorted(tracks) == sorted(want), f"4 systems: tracks {sorted(tracks)}")
    for c in ("sram in use csx-0", "sram in use csx-3", "memoryx stream bandwidth",
              "swarmx level 1 broadcast bandwidth", "swarmx level 1 reduce bandwidth"):
        check(c in counters, f"4 systems: counter {c}")
    has_args(tracks, {"forward", "backward"},
             ["system", "layer", "microbatch", "samples", "FLOPs", "step"], "4 systems")
    has_args(tracks, {"weight streaming", "broadcast", "gradient reduce"},
             ["bytes", "layer", "microbatch", "step"], "4 systems")
    has_args(tracks, {"optimizer"}, ["layer", "parameters"], "4 systems")

    # Microsecond times: the last step plus its fixed cost is the CSV's step time.
    step_time = float(row["step_time_s"])
    steps = sorted(tracks["steps"], key=lambda e: e["ts"])
    fixed = sorted(tracks["step overhead"], key=lambda e: e["ts"])
    check(len(steps) == 2, "two simulated steps")
    check(close((steps[-1]["dur"] + fixed[-1]["dur"]) / 1e6, step_time, 1e-6),
          f"last step {steps[-1]['dur']} us + fixed {fixed[-1]['dur']} us = step_time_s {step_time}")
    check(close(fixed[-1]["dur"] / 1e6, float(row["step_overhead_s"]), 1e-6), "the fixed cost event")

    # Hand calculation: a weight stream moves the layer's weights (describe --json) at the
    # MemoryX link's rate after one hop: embedding 214,241,280 B -> 1428.2752 + 5 us.
    stream = [e for e in tracks["memoryx stream"] if e["args"]["layer"] == "block.5"]
    check(len(stream) == 2 * 2 * int(row["num_microbatches"]), "block.5 streamed fwd and bwd per microbatch, 2 steps")
    for e in stream:
        check(e["args"]["bytes"] == layers["block.5"]["weight_bytes"], f"bytes of {e['name']}")
    emb = [e for e in tracks["memoryx stream"] if e["args"]["layer"] == "embedding"][0]
    check(emb["args"]["bytes"] == 214241280 == layers["embedding"]["weight_bytes"], "embedding bytes")
    check(close(emb["dur"], (214241280 / MEMORYX_BPS + HOP_S) * 1e6, 1e-9), f"embedding stream {emb['dur']} us")
    rate = [c for c in counters["memoryx stream bandwidth"] if c["ts"] == emb["ts"]][0]["args"]["Bps"]
    check(close(rate, 214241280 / (emb["dur"] / 1e6)), "bandwidth counter = bytes / duration")

    # Forward FLOPs: samples x the layer's forward FLOP per sample; samples: the MBS.
    mbs = int(row["micro_batch_size"])
    fwd = [e for e in tracks["csx-0"] if e["cat"] == "forward" and e["args"]["layer"] == "block.0"]
    check(all(e["args"]["samples"] == mbs for e in fwd), "csx-0 microbatches hold MBS samples")
    for e in fwd:
        check(close(e["args"]["FLOPs"], mbs * layers["block.0"]["forward_flops_per_sample"]),
              f"FLOPs of {e['name']}")
    check({e["args"]["system"] for e in tracks["csx-2"]} == {2}, "csx-2 events name system 2")

    # SRAM in use peaks, at the end of a microbatch's forward, at the row's mem_total_bytes
    # (132 samples = 11 x 12: every microbatch full) and falls back to the fixed parts.
    sram = [c["args"]["bytes"] for c in counters["sram in use csx-0"]]
    fixed_bytes = sum(float(row[k]) for k in ("mem_weight_buffers_bytes", "mem_gradients_bytes",
                                              "mem_workspace_bytes"))
    # (the CSV prints 9 significant digits, so up to 5e-9 of rounding)
    check(close(max(sram), float(row["mem_total_bytes"]), 1e-8), f"SRAM peak {max(sram)} vs {row['mem_total_bytes']}")
    check(close(min(sram), fixed_bytes, 1e-9) and close(sram[-1], fixed_bytes, 1e-9), "SRAM at rest")

    # Same input, same bytes.
    again = os.path.join(d, "again.json")
    expect(["run", SCEN, "--trace", again, "-q"], 0)
    check(open(again).read() == open(os.path.join(d, "four.json")).read(), "trace bytes repeat")

    # --- 16 systems: two SwarmX levels, each with its own tracks; every CS-X.
    j, row, _ = traced(d, "sixteen", "--num-csx", 16)
    tracks, counters = validate(j, "16 systems")
    for lvl in (1, 2):
        for kind in ("broadcast", "reduce"):
            check(f"swarmx level {lvl} {kind}" in tracks, f"16 systems: swarmx level {lvl} {kind}")
            check(f"swarmx level {lvl} {kind} bandwidth" in counters, f"16 systems: level {lvl} {kind} counter")
    check(not any(t.startswith("swarmx level 3") for t in tracks), "16 systems: no third level")
    check(sorted(t for t in tracks if t.startswith("csx-")) == sorted(f"csx-{i}" for i in range(16)),
          "16 systems: every CS-X")
    check(sum(1 for c in counters if c.startswith("sram in use")) == 16, "16 systems: 16 SRAM counters")
    # Level 2 forwards what level 1 broadcasts; each reduce sends up a layer's gradients.
    for e in tracks["swarmx level 2 reduce"]:
        check(e["args"]["bytes"] == layers[e["args"]["layer"]]["weight_bytes"], f"gradient bytes {e['name']}")

    # --- 128 systems (beyond 64): csx-0 and the picked ones; 4 SwarmX levels (4^3 < 128).
    # Batch 4160 over 128: 32.5 each, so systems 0-63 hold 33 samples and 64-127 hold 32.
    grid = ["--num-csx", 128, "--batch-size", 4160]
    j, row, table = traced(d, "big", *grid, "--trace-systems", "127,5,100")
    tracks, counters = validate(j, "128 systems")
    check(sorted(t for t in tracks if t.startswith("csx-")) == ["csx-0", "csx-100", "csx-127", "csx-5"],
          f"128 systems: CS-X tracks {sorted(tracks)}")
    check(sorted(t for t in tracks if t.startswith("swarmx")) ==
          sorted(f"swarmx level {lvl} {k}" for lvl in (1, 2, 3, 4) for k in ("broadcast", "reduce")),
          "128 systems: four SwarmX levels")
    for system, samples in ((0, 33), (5, 33), (100, 32), (127, 32)):
        first = [e for e in tracks[f"csx-{system}"] if e["cat"] == "forward" and
                 e["args"]["layer"] == "embedding" and e["args"]["step"] == 0]
        check(sum(e["args"]["samples"] for e in first) == samples, f"csx-{system} holds {samples} samples")
    plain = os.path.join(d, "plain.csv")
    expect(["run", SCEN, *grid, "--csv", plain, "-q"], 0)
    check(open(plain).read() == open(table).read(), "128 systems: the traced run's CSV equals the untraced one")
    j, _, _ = traced(d, "big_default", *grid)
    tracks, _ = validate(j, "128 systems, default")
    check([t for t in tracks if t.startswith("csx-")] == ["csx-0"], "128 systems: only csx-0 by default")

    # Bad --trace-systems.
    out = os.path.join(d, "bad.json")
    expect(["run", SCEN, *grid, "--trace", out, "--trace-systems", "5,128"], 2,
           err_has=["--trace-systems = 5,128: system 128 is not below num_csx (128"])
    expect(["run", SCEN, *grid, "--trace-systems", 3], 2, err_has=["--trace-systems = 3: needs --trace"])
    expect(["run", SCEN, *grid, "--trace", out, "--trace-systems", 0], 2,
           err_has=["--trace-systems", "csx-0 is always in the trace"])
    check(not os.path.exists(out), "a refused run writes no trace")

    # --trace-max-events: a trace whose lower bound is above it is refused before it is
    # simulated (GPT-3 XL, batch 2112 at MBS 1 on one CS-2: 2 steps x 52 layer passes x (2 x 2112
    # kernel events and SRAM counters + 3 x 2112 weight-transfer events and counters) =
    # 1,098,240 at least); below the bound, the simulated count is compared, and it is never
    # below the bound (batch 528: 274,560 at least, 522,777 simulated).
    start = time.monotonic()
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--batch-size", 2112, "--micro-batch-size", 1,
            "--trace", out, "-q"], 2,
           err_has=[f"--trace {out}: the chosen candidate's timeline has at least 1098240 events, "
                    "more than --trace-max-events 500000"])
    check(time.monotonic() - start < 30, "refused without simulating the trace")
    small = ["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--batch-size", 528, "--micro-batch-size", 8]
    r = expect([*small, "--trace", out, "--trace-max-events", 1, "-q"], 2, err_has=["has at least 34320 events"])
    expect([*small, "--trace", out, "--trace-max-events", 34320, "-q"], 2,
           err_has=["the chosen candidate's timeline has 65397 events, more than --trace-max-events 34320"])
    check(not os.path.exists(out), "a refused trace is not written")
finish()
