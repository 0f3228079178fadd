"""`csxsim sweep` and `merge`: deterministic rows for any --jobs, shards through GNU parallel
merged byte-identically, time_to_train_s; the trace of `run --trace`; docs/sweeps.md's excerpt of
its example sweep's CSV."""
import csv
import json
import os
import re
import shutil
import subprocess
import tempfile

from clitest import CSXSIM, check, expect, finish

# docs/sweeps.md's example sweep: each line of its CSV excerpt is the start of that CSV line.
with tempfile.TemporaryDirectory() as d:
    doc = open("docs/sweeps.md").read()
    excerpt = re.search(r"fields of the first lines of `sweep.csv` \(\d+ columns in all\):\n\n```\n(.*?)```",
                        doc, re.S).group(1).splitlines()
    out = os.path.join(d, "sweep.csv")
    expect(["sweep", "scenarios/gpt3_xl_1x_cs2.yaml", "--num-csx", "1:16:x2", "--batch-size", "264,528,1056",
            "--micro-batch-size", "explore", "--compile-only", "--csv", out, "--jobs", 2, "-q"], 0)
    lines = open(out).read().splitlines()
    columns = re.search(r"the first lines of `sweep.csv` \((\d+) columns in all\)", doc).group(1)
    check(len(lines[0].split(",")) == int(columns), f"the CSV has {columns} columns: {lines[0]}")
    shown = re.search(r"The first (\d+)\nfields of the first lines", doc).group(1)
    check(all(len(e.split(",")) == int(shown) for e in excerpt), f"the excerpt shows {shown} fields")
    check(len(excerpt) == 3 and all(lines[i].startswith(e + ",") for i, e in enumerate(excerpt)),
          f"docs/sweeps.md's CSV excerpt is the start of the sweep's CSV: {lines[:3]}")

SCEN = "scenarios/gpt3_xl_4x_cs2.yaml"
GRID = ["--num-csx", "1:4:x2", "--batch-size", "64,96", "--steps", 1000]

with tempfile.TemporaryDirectory() as d:
    one = os.path.join(d, "one.csv")
    two = os.path.join(d, "two.csv")
    expect(["sweep", SCEN, *GRID, "--csv", one, "--jobs", 1], 0)
    expect(["sweep", SCEN, *GRID, "--csv", two, "--jobs", 2], 0)
    text = open(one).read()
    check(text == open(two).read(), "sweep CSV is byte-identical for --jobs 1 and 2")
    rows = list(csv.DictReader(open(one)))
    check(text.splitlines()[0].endswith(",recompute_passes,activation_plan,steps,time_to_train_s,shard,grid"),
          "steps, time_to_train_s, shard and grid columns")
    keys = [(int(r["num_csx"]), int(r["batch_size"])) for r in rows]
    check(keys == sorted(keys), "rows sorted by (num_csx, batch_size)")
    check({k for k in keys} == {(n, b) for n in (1, 2, 4) for b in (64, 96)}, "every grid point")
    for r in rows:
        if r["step_time_s"]:
            check(abs(float(r["time_to_train_s"]) - 1000 * float(r["step_time_s"])) <=
                  1e-6 * float(r["time_to_train_s"]), "time_to_train_s = steps x step time")

    # Shards through GNU parallel, merged: byte-identical to the unsharded sweep.
    if shutil.which("parallel"):
        cmd = [shutil.which("parallel"), "--will-cite", "-j", "2", CSXSIM, "sweep", SCEN,
               *map(str, GRID), "--shard", "{}/2", "--csv", os.path.join(d, "shard{}.csv"), "-q",
               ":::", "0", "1"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        check(r.returncode == 0, f"parallel: {r.stderr}")
        merged = os.path.join(d, "merged.csv")
        expect(["merge", os.path.join(d, "shard0.csv"), os.path.join(d, "shard1.csv"), "-o", merged], 0)
        check(open(merged).read() == text, "merged shards equal the unsharded sweep")
        expect(["merge", os.path.join(d, "shard0.csv"), os.path.join(d, "shard0.csv"), "-o", merged], 2,
               err_has=["shard0.csv: given twice (as input 1 and 2)"])
        shutil.copy(os.path.join(d, "shard0.csv"), os.path.join(d, "copy0.csv"))
        expect(["merge", os.path.join(d, "shard0.csv"), os.path.join(d, "copy0.csv"), "-o", merged], 2,
               err_has=["already in another input"])
    else:
        check(False, "GNU parallel is not installed (tools/bootstrap installs it)")

    # Lists and shards that are wrong.
    expect(["sweep", SCEN, "--num-csx", "4:1:x2", "--batch-size", 64, "--csv", one], 2, err_has=["larger than end"])
    expect(["sweep", SCEN, "--num-csx", "1:4:x1", "--batch-size", 64, "--csv", one], 2, err_has=["at least 2"])
    expect(["sweep", SCEN, "--num-csx", "1,a", "--batch-size", 64, "--csv", one], 2, err_has=["expected a whole number"])
    for shard in ("0/0", "3/2", "x/2", "1"):
        expect(["sweep", SCEN, *GRID, "--shard", shard, "--csv", one], 2, err_has=["--shard"])
    check(open(one).read() == text, "a refused sweep leaves the existing CSV untouched")

    # --check-only: the refusals of a run, nothing simulated or written. The grid's 6 points
    # (1, 2, 4 systems x 64, 96) are indexed 0-5 in (num_csx, batch_size) order; shard 1/4
    # holds indices 1 and 5.
    new = os.path.join(d, "new.csv")
    expect(["sweep", SCEN, *GRID, "--csv", new, "--check-only"], 0,
           out_has=["check only: 6 grid points (0 refused by a rule); 6 to run"])
    expect(["sweep", SCEN, *GRID, "--shard", "1/4", "--csv", new, "--check-only"], 0,
           out_has=["6 grid points (0 refused by a rule) in 4 shards; shard 1/4 runs 2"])
    check(not os.path.exists(new), "--check-only writes no CSV")
    # More shards than points: points are dealt round-robin, so shard 6/7 holds none.
    expect(["sweep", SCEN, *GRID, "--shard", "6/7", "--csv", new, "--check-only"], 0,
           out_has=["in 7 shards; shard 6/7 runs 0"])
    expect(["sweep", SCEN, *GRID, "--csv", os.path.join(d, "no", "x.csv"), "--check-only"], 2,
           err_has=["does not exist"])
    expect(["sweep", "/nonexistent.yaml", *GRID, "--csv", new, "--check-only"], 2,
           err_has=["/nonexistent.yaml"])
    # 4 systems at batch sizes 2 and 64: index 0 (B = 2 < N = 4) is refused, so shard 0/2 has
    # no point to run and would write no rows; checking shard 1/2 names it.
    expect(["sweep", SCEN, "--num-csx", 4, "--batch-size", "2,64", "--shard", "1/2", "--csv",
            new, "--check-only"], 2, err_has=["shard 0/2: every grid point was refused"])
    # With --resume, an existing CSV must be of the sweep checked: shard 0/2 holds indices
    # 0, 2 and 4 (batch size 64), so the unsharded CSV's (1, 96) is not in it.
    expect(["sweep", SCEN, *GRID, "--csv", one, "--resume", "--check-only"], 0,
           err_has=["resume: 6 finished points kept"])
    expect(["sweep", SCEN, *GRID, "--shard", "0/2", "--csv", one, "--resume", "--check-only"], 2,
           err_has=["holds cs2, num_csx 1, batch_size 96, which is not in this sweep's grid"])
    check(open(one).read() == text, "--check-only leaves the existing CSV untouched")

    # The grid column is the inputs' identity: --resume after an edit of the scenario (even a
    # comment) is refused, longer lists are not, and a run's CSV (no grid) is refused.
    edited = os.path.join(d, "edited.yaml")
    open(edited, "w").write(open(SCEN).read().replace("../models/", os.path.abspath("models") + "/"))
    small = ["--num-csx", "1", "--batch-size", "64", "--steps", 1000, "--compile-only", "-q"]
    grown = os.path.join(d, "grown.csv")
    expect(["sweep", edited, *small, "--csv", grown], 0)
    first = list(csv.DictReader(open(grown)))
    check(len({r["grid"] for r in first}) == 1 and re.fullmatch("[0-9a-f]{8}", first[0]["grid"]),
          f"an unsharded sweep's rows carry one grid of 8 hex digits: {first[0]['grid']}")
    expect(["sweep", edited, "--num-csx", "1,2", *small[2:], "--csv", grown, "--resume"], 0,
           err_has=["resume: 1 finished points kept"])
    open(edited, "a").write("# edited\n")
    expect(["sweep", edited, "--num-csx", "1,2", *small[2:], "--csv", grown, "--resume"], 2,
           err_has=[grown, "holds rows of grid", "before an edit of its scenario"])
    ran = os.path.join(d, "ran.csv")
    expect(["run", edited, *small, "--csv", ran], 0)
    expect(["sweep", edited, *small, "--csv", ran, "--resume"], 2,
           err_has=[ran, "no grid identity", "run without --resume"])
    # A file mixing a sweep's rows and a run's (merge joins them) is refused too.
    mixed = os.path.join(d, "mixed.csv")
    ran2 = os.path.join(d, "ran2.csv")
    expect(["run", edited, "--num-csx", "2", *small[2:], "--csv", ran2], 0)
    fresh = os.path.join(d, "fresh.csv")
    expect(["sweep", edited, *small, "--csv", fresh], 0)
    expect(["merge", fresh, ran2, "-o", mixed], 0)
    expect(["sweep", edited, "--num-csx", "1,2", *small[2:], "--csv", mixed, "--resume"], 2,
           err_has=[mixed, "holds rows with no grid identity"])
    # A shard resumed with other lists is told so; a shard CSV of one hash (an earlier csxsim's)
    # is named as such.
    part = os.path.join(d, "part.csv")
    expect(["sweep", edited, "--num-csx", "1,2", *small[2:], "--shard", "0/2", "--csv", part], 0)
    expect(["sweep", edited, "--num-csx", "1,2,4", *small[2:], "--shard", "0/2", "--csv", part,
            "--resume"], 2, err_has=["the same inputs and options, with other --num-csx or --batch-size"])
    old = os.path.join(d, "old.csv")
    open(old, "w").write(re.sub(r",([0-9a-f]{8})[.][0-9a-f]{8}$", r",\1", open(part).read(), flags=re.M))
    expect(["merge", old, "-o", os.path.join(d, "old_m.csv")], 2,
           err_has=["a shard's grid of one hash", "run the shard again"])

    # Timeline trace.
    trace = os.path.join(d, "t.json")
    r = expect(["run", SCEN, "--trace", trace, "--csv", os.path.join(d, "run.csv")], 0)
    j = json.load(open(trace))
    events = [e for e in j["traceEvents"] if e["ph"] == "X"]
    names = {e["tid"]: e["args"]["name"] for e in j["traceEvents"] if e.get("name") == "thread_name"}
    tracks = set(names.values())
    for t in ("steps", "memoryx stream", "memoryx optimizer", "swarmx level 1 broadcast", "swarmx level 1 reduce", "csx-0", "csx-3"):
        check(t in tracks, f"trace track {t}")
    by_track = {}
    for e in events:
        by_track.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    for tid, spans in by_track.items():
        spans.sort()
        for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
            check(s1 >= e0 - 1e-3, f"track {names[tid]}: events overlap ({s0},{e0}) ({s1},{e1})")
    chosen = [x for x in csv.DictReader(open(os.path.join(d, "run.csv"))) if x["chosen"] == "true"][0]
    steps = sorted(by_track[[t for t, n in names.items() if n == "steps"][0]])
    check(len(steps) == 2, "two simulated steps")
    overhead = float(chosen["step_overhead_s"])
    last_end = max(e for tid, spans in by_track.items() for _, e in spans if names[tid] != "step overhead")
    check(abs(last_end - steps[-1][1]) < 1e-3, "the last simulated event ends with the last step")
    fixed = sorted(by_track[[t for t, n in names.items() if n == "step overhead"][0]])
    check(abs((fixed[-1][1] - fixed[-1][0]) / 1e6 - overhead) < 1e-9, "the step overhead event")
    check(abs((steps[-1][1] - steps[-1][0]) / 1e6 + overhead - float(chosen["step_time_s"])) <=
          1e-6 * float(chosen["step_time_s"]), "the last step plus its fixed cost is the step time")
    kinds = {e["cat"] for e in events}
    for k in ("forward", "backward", "weight streaming", "optimizer", "broadcast", "gradient reduce", "step"):
        check(k in kinds, f"trace category {k}")

# A fixed-size job array may have more shards than grid points: points are dealt round-robin
# (point k to shard k mod N), so shards 2/3 of a 2-point grid is empty. It writes the header
# alone, and merge counts it for the shard it stands for: the merged CSV is the unsharded one.
with tempfile.TemporaryDirectory() as d:
    two = ["--num-csx", "1,2", "--batch-size", "528", "-q"]
    parts = [os.path.join(d, f"s{i}.csv") for i in range(3)]
    for i, part in enumerate(parts):
        expect(["sweep", "scenarios/gpt3_xl_1x_cs2.yaml", *two, "--shard", f"{i}/3", "--csv", part], 0)
    check(len(open(parts[2]).read().splitlines()) == 1, "the empty shard's CSV is its header")
    whole, merged = os.path.join(d, "whole.csv"), os.path.join(d, "merged.csv")
    expect(["sweep", "scenarios/gpt3_xl_1x_cs2.yaml", *two, "--csv", whole], 0)
    expect(["merge", *parts, "-o", merged], 0)
    check(open(merged).read() == open(whole).read(), "merged with the empty shard = unsharded")
    # Without the empty shard's file, shard 2/3 is missing; an empty file cannot stand for 1/3.
    expect(["merge", parts[0], parts[1], "-o", merged], 2, err_has=["shard 2/3 of the sweep is missing"])
    expect(["merge", parts[0], parts[2], "-o", merged], 2, err_has=["shard 1/3 of the sweep is missing"])
    # An unsharded sweep among shards is named as such, not as an empty string.
    expect(["merge", parts[0], whole, "-o", merged], 2,
               err_has=["mix shards of different sweeps (an unsharded sweep, 0/3)"])

# Rows simulated at another input rate (docs/model.md#input-pipeline) are not resumed or merged:
# at 60 samples/s a step of 528 lasts 8.8 s, at 100 it lasts 5.28 s.
with tempfile.TemporaryDirectory() as d:
    slow, fast = os.path.join(d, "slow.csv"), os.path.join(d, "fast.csv")
    g = ["--num-csx", "1", "--batch-size", "528", "-q"]
    expect(["sweep", SCEN, *g, "--input-rate", "60", "--csv", slow], 0)
    rows = list(csv.DictReader(open(slow)))
    chosen = [r for r in rows if r["chosen"] == "true"][0]
    check(abs(float(chosen["step_time_s"]) - 528 / 60) < 1e-6 and chosen["bound"] == "input",
          f"an input-bound step lasts 528 / 60 s: {chosen['step_time_s']} {chosen['bound']}")
    expect(["sweep", SCEN, "--num-csx", "1,2", "--batch-size", "528", "-q", "--input-rate", "100",
            "--csv", slow, "--resume"], 2, err_has=["results of different input rates"])
    expect(["sweep", SCEN, "--num-csx", "2", "--batch-size", "528", "-q", "--csv", fast], 0)
    expect(["merge", slow, fast, "-o", os.path.join(d, "m.csv")], 2,
           err_has=["with input none where", "60 samples/s per CS-X"])

# Each platform label has its own input rate: the ViT-B/16 preset's 4 ImageNet1KProcessor
# processes at the platform's 178 samples/s (712/s) on cs2, at 100 (400/s) on cs3 by override;
# the shards resume and merge, and a step of 2850 lasts 2850 / 712 and 2850 / 400 s.
with tempfile.TemporaryDirectory() as d:
    g = ["vit_base_patch16", "--platform", "cs2,cs3", "--platform-override",
         "cs3:input_workers.imagenet1k_samples_per_s=100", "--num-csx", "1", "--batch-size",
         "2850", "-q"]
    parts = [os.path.join(d, f"p{i}.csv") for i in range(2)]
    for i, part in enumerate(parts):
        expect(["sweep", *g, "--shard", f"{i}/2", "--csv", part], 0)
        expect(["sweep", *g, "--shard", f"{i}/2", "--csv", part, "--resume"], 0)
    merged = os.path.join(d, "m.csv")
    expect(["merge", *parts, "-o", merged], 0)
    steps = {r["platform"]: float(r["step_time_s"]) for r in csv.DictReader(open(merged))
             if r["chosen"] == "true"}
    check(abs(steps["cs2"] - 2850 / 712) < 1e-3 and abs(steps["cs3"] - 2850 / 400) < 1e-3,
          f"input-bound steps of 2850 at 712 and 400 samples/s: {steps}")

finish()
