"""Edge cases a user hit: plan's smallest cluster where the time to train is not
monotone in num_csx; paths a file names, read relative to that file; paths that are not UTF-8;
a command's outputs land together or not at all (a full file system, a full standard output);
a full standard output is exit 2 for every command; a dangling link; what bounds plan's search."""
import csv
import re
import os
import resource
import shutil
import signal
import subprocess
import tempfile

from clitest import CSXSIM, SANITIZED, check, expect, finish, run

CSXSIM = os.path.abspath(CSXSIM)

ROOT = os.getcwd()
DAY = 86400.0


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def to_dev_full(*args):
    with open("/dev/full", "w") as full:
        return subprocess.run([CSXSIM, *args], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=600)


with tempfile.TemporaryDirectory() as d:
    # 1. plan's smallest cluster. Llama-3 8B, batch 1024 on CS-3, 1e12 tokens: the time to train
    # is not monotone in num_csx (the per-system batch, and with it auto's micro-batch size,
    # changes with each size). Every size from 1 to 24 is run here; a size n faster than every
    # smaller one and than n + 1 makes a deadline just above its time, where a bisection could
    # answer a larger size. plan must answer n, the smallest that meets it.
    every = os.path.join(d, "every.csv")
    expect(["plan", "llama3_8b", "--batch-size", "1024", "--platform", "cs3", "--tokens",
            "1e12", "--num-csx", "1:24:+1", "--csv", every, "-q"], 0)
    t_of = {int(x["num_csx"]): float(x["time_to_train_s"]) for x in rows_of(every)
            if x["chosen"] == "true"}
    dips = [n for n in range(2, 24) if t_of[n] < min(t_of[m] for m in range(1, n))
            and t_of[n] < t_of[n + 1]]
    check(dips, f"a size faster than the next one: {t_of}")
    n = dips[0]
    deadline = t_of[n] / DAY * 1.0005
    out = os.path.join(d, "plan.csv")
    r = expect(["plan", "llama3_8b", "--batch-size", "1024", "--platform", "cs3", "--tokens",
                "1e12", "--deadline", f"{deadline:.6f}d", "--csv", out], 0,
               out_has=[f"answer: smallest cluster: {n} x cs3"])
    by_n = {int(x["num_csx"]): float(x["time_to_train_s"]) for x in rows_of(out)
            if x["chosen"] == "true"}
    check(min(m for m, t in by_n.items() if t <= deadline * DAY) == n,
          f"{n} is the smallest evaluated size that meets the deadline")

    # 1b. The scan rules out a size whose per-system batch P = ceil(B / N) is a smaller size's
    # when that one misses by more than auto's threshold (3 %): the same work on the fullest
    # system over a SwarmX tree at least as deep. First the premise, on every candidate row of
    # GPT-3 XL on 20 to 100 CS-2 (batch 528): within one P, no candidate gets faster with N.
    brute = os.path.join(d, "brute.csv")
    expect(["plan", "gpt3_xl", "--platform", "cs2", "--tokens", "300B", "--batch-size", "528",
            "--num-csx", "20:100:+1", "--csv", brute, "-q"], 0)
    by_group = {}
    for x in rows_of(brute):
        if x["fits"] == "true":
            n = int(x["num_csx"])
            by_group.setdefault((-(-528 // n), x["micro_batch_size"]), []).append((n, float(x["step_time_s"])))
    slower = [(k, a, b) for k, v in by_group.items() for a, b in zip(sorted(v), sorted(v)[1:])
              if b[1] < a[1] * (1 - 1e-12)]
    check(len(by_group) > 20 and not slower, f"within one per-system batch, more systems are never faster: {slower[:3]}")
    # Then the answer against a brute-force search: Llama-3 8B, batch 1024 on CS-3, every size
    # from 33 to 64, and a deadline between the times of 32 and 64 systems.
    expect(["plan", "llama3_8b", "--batch-size", "1024", "--platform", "cs3", "--tokens", "1e12",
            "--num-csx", "32:64:+1", "--csv", brute, "-q"], 0)
    every = {int(x["num_csx"]): float(x["time_to_train_s"]) for x in rows_of(brute) if x["chosen"] == "true"}
    days = (every[32] + every[64]) / 2 / DAY
    smallest = min(n for n, t in every.items() if t <= days * DAY)
    r = expect(["plan", "llama3_8b", "--batch-size", "1024", "--platform", "cs3", "--tokens", "1e12",
                "--deadline", f"{days:.6f}d", "--csv", out], 0,
               out_has=[f"answer: smallest cluster: {smallest} x cs3"])
    scanned = {int(x["num_csx"]) for x in rows_of(out)}
    # Each size skipped below the answer has a smaller scanned one of its per-system batch that
    # misses by more than 3 %.
    P = lambda n: -(-1024 // n)
    skipped = [n for n in range(33, smallest) if n not in scanned]
    check(all(any(m < n and P(m) == P(n) and every[m] > days * DAY * 1.03 for m in scanned)
              for n in skipped), f"skipped sizes {skipped} each ruled out by a smaller one")

    # 2. A relative platform path in a scenario is read relative to the scenario, as its
    # model: is; the step time is the same from any working directory.
    sub = os.path.join(d, "sub")
    os.makedirs(sub)
    plat = open(os.path.join(ROOT, "platforms/cs3.yaml")).read()
    open(os.path.join(d, "myplat.yaml"), "w").write(plat.replace("name: cs3", "name: mine", 1))
    open(os.path.join(d, "model.yaml"), "w").write(open(os.path.join(ROOT, "models/gpt3_xl.yaml")).read())
    scen = open(os.path.join(ROOT, "scenarios/gpt3_xl_1x_cs2.yaml")).read()
    scen = scen.replace("model: ../models/gpt3_xl.yaml", "model: ../model.yaml")
    scen = scen.replace("platform: cs2", "platform: ../myplat.yaml")
    check("../myplat.yaml" in scen and "../model.yaml" in scen, "the scenario names both files")
    open(os.path.join(sub, "s.yaml"), "w").write(scen)
    # Read relative to the working directory, ../myplat.yaml exists only from sub/.
    times = []
    for cwd in (d, sub, ROOT):
        csv_out = os.path.join(d, f"rel{len(times)}.csv")
        rr = subprocess.run([CSXSIM, "run", os.path.relpath(os.path.join(sub, "s.yaml"), cwd),
                             "--csv", csv_out, "-q"], cwd=cwd, capture_output=True, text=True)
        check(rr.returncode == 0, f"run from {cwd}: {rr.stderr}")
        if rr.returncode == 0:
            x = [x for x in rows_of(csv_out) if x["chosen"] == "true"][0]
            check(x["platform"] == "mine", f"the scenario's platform file is read: {x['platform']}")
            times.append(x["step_time_s"])
    check(len(set(times)) == 1, f"one step time from every directory: {times}")

    # 3. A path that is not UTF-8: never an internal error; the JSON holds U+FFFD for the byte.
    bad = os.path.join(d.encode(), b"x\xff.yaml")
    good_scen = open(os.path.join(ROOT, "scenarios/gpt3_xl_1x_cs2.yaml")).read().replace(
        "../models/gpt3_xl.yaml", os.path.join(ROOT, "models/gpt3_xl.yaml"))
    open(bad, "w").write(good_scen)
    j = os.path.join(d, "nonutf8.json")
    for cmd in (["run", bad, "--json", j, "-q"],
                ["sweep", bad, "--num-csx", "1", "--batch-size", "528", "--csv",
                 os.path.join(d, "nu.csv").encode(), "--json", j, "-q"],
                ["plan", bad, "--tokens", "1e9", "--num-csx", "1", "--json", j, "-q"]):
        rr = subprocess.run([CSXSIM, *cmd], capture_output=True)
        check(rr.returncode == 0, f"{cmd[0]} of a non-UTF-8 path: {rr.returncode} {rr.stderr!r}")
        check(b"internal error" not in rr.stderr, f"{cmd[0]}: not an internal error")
        if rr.returncode == 0:
            check("x\ufffd.yaml" in open(j, encoding="utf-8").read(),
                  f"{cmd[0]}: the JSON names the file with U+FFFD")

    # 3b. A model file whose name is not UTF-8, under a sweep of two points (each run in a
    # worker process): exit 0, and the CSV keeps the name's bytes, each point's rows byte for
    # byte the ones `run` writes for that point.
    model_dir = os.path.join(d.encode(), b"nonutf8model")
    os.makedirs(model_dir)
    shutil.copy(os.path.join(ROOT, "models/gpt2_small.yaml"), os.path.join(model_dir, b"m\xff.yaml"))
    scen_bytes = open(os.path.join(ROOT, "scenarios/gpt3_xl_1x_cs2.yaml"), "rb").read().replace(
        b"model: ../models/gpt3_xl.yaml", b"model: m\xff.yaml")
    check(b"m\xff.yaml" in scen_bytes, "the scenario names the non-UTF-8 model file")
    ms = os.path.join(model_dir, b"s.yaml")
    open(ms, "wb").write(scen_bytes)
    sweep_csv, run_csv = os.path.join(model_dir, b"sweep.csv"), os.path.join(model_dir, b"run.csv")
    rr = subprocess.run([CSXSIM, "sweep", ms, "--num-csx", "1,2", "--batch-size", "528", "--jobs",
                         "2", "--csv", sweep_csv, "-q"], capture_output=True)
    check(rr.returncode == 0, f"sweep of a non-UTF-8 model file: {rr.returncode} {rr.stderr!r}")
    rr = subprocess.run([CSXSIM, "run", ms, "--csv", run_csv, "-q"], capture_output=True)
    check(rr.returncode == 0, f"run of a non-UTF-8 model file: {rr.returncode} {rr.stderr!r}")
    if os.path.exists(sweep_csv) and os.path.exists(run_csv):
        sweep_lines = open(sweep_csv, "rb").read().splitlines()
        run_lines = open(run_csv, "rb").read().splitlines()
        check(len(sweep_lines) > 2 and all(l.startswith(b"m\xff,") for l in sweep_lines[1:]),
              f"every sweep row names the model m\\xff: {sweep_lines[1][:20]!r}")
        # The last column, grid, is the sweep's identity; run rows leave it empty.
        one = [l.rsplit(b",", 1)[0] for l in sweep_lines[1:] if l.split(b",")[4] == b"1"]
        check(one == [l.rsplit(b",", 1)[0] for l in run_lines[1:]],
              "the sweep's num_csx 1 rows are run's, byte for byte but the grid")
        check(all(l.endswith(b",") for l in run_lines[1:]) and
              all(re.fullmatch(rb"[0-9a-f]{8}", l.rsplit(b",", 1)[1]) for l in sweep_lines[1:]),
              "run rows have no grid, the sweep's one hash")

    # 4. All outputs or none: a full file system (a file size limit stands for it) fails the
    # JSON after the CSV was written, and the existing CSV survives.
    scen = "scenarios/gpt3_xl_1x_cs2.yaml"
    ok_csv, big_json = os.path.join(d, "ok.csv"), os.path.join(d, "j.json")
    expect(["run", scen, "--csv", ok_csv, "--json", big_json, "-q"], 0)
    csv_size, json_size = os.path.getsize(ok_csv), os.path.getsize(big_json)
    check(json_size > csv_size + 4096, "the JSON is larger than the CSV")
    for p in (ok_csv, big_json):
        open(p, "w").write("existing\n")

    def limit_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        lim = csv_size + 2048
        resource.setrlimit(resource.RLIMIT_FSIZE, (lim, lim))

    rr = subprocess.run([CSXSIM, "run", scen, "--csv", ok_csv, "--json", big_json, "-q"],
                        capture_output=True, text=True, preexec_fn=limit_size)
    check(rr.returncode == 2 and "cannot write" in rr.stderr, f"full file system: {rr.returncode} {rr.stderr}")
    check(open(ok_csv).read() == "existing\n" and open(big_json).read() == "existing\n",
          "nothing replaced when one output cannot be written")
    check(not [f for f in os.listdir(d) if ".tmp." in f], "no temporary file left")

    # 5. A full standard output: exit 2 for every command, and no output file replaced (merge
    # prints nothing, so a full standard output does not concern it). A sweep's --csv is also its
    # checkpoint, rewritten at most once a second as points finish (docs/cli.md), so on a slow
    # machine it may hold the finished points; its --json lands only with the whole sweep.
    for cmd in (["run", scen, "--csv", ok_csv, "--json", big_json],
                ["sweep", scen, "--num-csx", "1,2", "--batch-size", "528", "--csv", ok_csv,
                 "--json", big_json],
                ["plan", "gpt3_xl", "--tokens", "1e10", "--num-csx", "1", "--batch-size", "528",
                 "--csv", ok_csv, "--json", big_json],
                ["validate", "--only-platform", "cs3", "--csv", ok_csv, "--json", big_json]):
        for p in (ok_csv, big_json):
            open(p, "w").write("existing\n")
        rr = to_dev_full(*cmd)
        check(rr.returncode == 2 and "cannot write to standard output" in rr.stderr,
              f"{cmd[0]} >/dev/full: {rr.returncode} {rr.stderr}")
        check(open(big_json).read() == "existing\n", f"{cmd[0]} >/dev/full: --json not replaced")
        left = open(ok_csv).read()
        if cmd[0] == "sweep":
            check(left == "existing\n" or left.startswith("model,"),
                  f"sweep >/dev/full: --csv is the file or a checkpoint: {left[:40]!r}")
        else:
            check(left == "existing\n", f"{cmd[0]} >/dev/full: --csv not replaced")
    for cmd in (["platform", "--keys"], ["describe", "gpt3_xl", "--json"], ["describe", "gpt3_xl"],
                ["candidates", "--batch-size", "528", "--num-csx", "2"], ["--help"], ["--version"], ["run", "--help"],
                ["plan", "--help"]):
        rr = to_dev_full(*cmd)
        check(rr.returncode == 2 and "cannot write to standard output" in rr.stderr
              and "internal error" not in rr.stderr,
              f"{' '.join(cmd)} >/dev/full: {rr.returncode} {rr.stderr}")

    # 6. A dangling symbolic link as --csv is followed, as a live one is: the link stays.
    link = os.path.join(d, "link.csv")
    os.symlink("target.csv", link)
    expect(["run", scen, "--csv", link, "-q"], 0)
    check(os.path.islink(link) and os.path.isfile(os.path.join(d, "target.csv")),
          "the dangling link's target is written, the link kept")

    # 7. describe's activation bytes are the memory model's: what stays when everything is kept
    # (Korthikanti et al. 2022, table 2, 34 s h, without the 5as^2 attention scores, which the
    # attention kernel recomputes, and the 14 s h an elementwise op rebuilds: norm outputs, GeLU
    # output, dropout masks): GPT-3 XL, 24 blocks of 20 s h bytes = 24 x 20 x 2048 x 2048 = 2.01e9,
    # plus the embedding and head layers (under 1 %). With the scores it would be 5x that.
    import json
    j = json.loads(expect(["describe", "gpt3_xl", "--json"], 0).stdout)
    blocks = 24 * 20 * 2048 * 2048
    act = j["activation_bytes_per_sample"]
    check(blocks <= act <= 1.01 * blocks, f"describe: {act} bytes per sample, by hand {blocks} (+ < 1 %)")
    check(abs(sum(L["activation_bytes_per_sample"] for L in j["layers"]) - act) <= 1e-6 * act,
          "the layers add up to the total")
    # The same figure the memory model stores: MBS 1 with everything kept on one CS-2.
    mem = os.path.join(d, "mem.csv")
    expect(["run", scen, "--micro-batch-size", "1", "--csv", mem, "-q"], 0)
    x = rows_of(mem)[0]
    check(x["activation_plan"] == "all kept" and abs(float(x["mem_activations_bytes"]) - act) <= 1e-6 * act,
          f"run's mem_activations_bytes at MBS 1, all kept ({x['activation_plan']}): "
          f"{x['mem_activations_bytes']} = describe's {act}")
    r = expect(["describe", "gpt3_xl"], 0, out_has=["activation bytes per sample (all kept)"])

    # 8. Nothing fits: auto reports the need of its smallest size, 1 (the need explore's MBS 1
    # row reports), not of the smallest candidate it happened to try.
    long = ["models/llama3_8b.yaml", "--seq-len", "1048576", "--batch-size", "8", "--platform", "cs3"]
    ex = os.path.join(d, "explore.csv")
    expect(["run", *long, "--micro-batch-size", "explore", "--compile-only", "--csv", ex, "-q"], 1)
    need1 = [x for x in rows_of(ex) if x["micro_batch_size"] == "1"][0]["mem_total_bytes"]
    au = os.path.join(d, "auto.csv")
    r = expect(["run", *long, "--csv", au, "-q"], 1)
    rows = rows_of(au)
    check(rows[-1]["micro_batch_size"] == "1" and rows[-1]["mem_total_bytes"] == need1,
          f"auto's last row is MBS 1 with explore's need {need1}: {[(x['micro_batch_size'], x['mem_total_bytes']) for x in rows]}")
    check(f"{float(need1) / 1e9:.2f} GB" in r.stderr, f"the error names MBS 1's need: {r.stderr}")

    # 9. --resume refuses a kept point with candidate rows missing (15 of 16 deleted by hand).
    res = os.path.join(d, "res.csv")
    grid = ["--num-csx", "1,2", "--batch-size", "528", "--steps", "10", "-q"]
    expect(["sweep", scen, *grid, "--csv", res], 0)
    with open(res, newline="") as f:
        table = list(csv.reader(f))
    head = table[0]
    n_at = head.index("num_csx")
    one = [r for r in table[1:] if r[n_at] == "1"]
    check(len(one) > 2, f"point 1 has several candidate rows ({len(one)})")
    keep = [r for r in table[1:] if r[n_at] != "1" or r[head.index("chosen")] == "true"]
    with open(res, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([head, *keep])
    expect(["sweep", scen, *grid, "--csv", res, "--resume"], 2,
           err_has=[f"has 1 of its {len(one)} candidate rows", "cut short or edited"])

    # 10. merge of shards of different sweeps (N=3 and N=4) says so.
    s3, s4, m = (os.path.join(d, f) for f in ("s3.csv", "s4.csv", "m.csv"))
    g = ["--num-csx", "1:8:x2", "--batch-size", "528", "--steps", "10", "-q"]
    expect(["sweep", scen, *g, "--shard", "0/3", "--csv", s3], 0)
    expect(["sweep", scen, *g, "--shard", "0/4", "--csv", s4], 0)
    expect(["merge", s3, s4, "-o", m], 2, err_has=["a shard of another sweep", "grid cut into other shards"])

    # 11. A CSV with a UTF-8 byte order mark is a csxsim CSV to merge and --resume.
    bom = os.path.join(d, "bom.csv")
    open(bom, "wb").write(b"\xef\xbb\xbf" + open(os.path.join(ROOT, "tests/golden/gpt3_xl_1x_cs2.csv"), "rb").read())
    expect(["merge", bom, "-o", m], 0)
    check(open(m, "rb").read() == open(os.path.join(ROOT, "tests/golden/gpt3_xl_1x_cs2.csv"), "rb").read(),
          "merge of a CSV with a BOM gives the CSV without it")

    # 12. YAML: plain nodes beyond the bound are not blamed on aliases; deep nesting is named.
    many = os.path.join(d, "many.yaml")
    open(many, "w").write("trainer:\n  x:\n" + "  - 1\n" * 250000)
    r = expect(["run", many], 2, err_has=["holds more than 200000 YAML nodes"])
    deep = os.path.join(d, "deep.yaml")
    open(deep, "w").write("a: " + "[" * 3000 + "]" * 3000 + "\n")
    expect(["run", deep], 2, err_has=["nests deeper than"])

    # 13. Notices and notes: an integer MBS moved to a supported value is said on standard error
    # (so -q keeps it); a sweep prints a few skip notes and one line for the rest.
    r = expect(["run", scen, "--micro-batch-size", "100", "-q"], 0, err_has=["notice: train pass:"])
    check(r.stdout == "", "-q prints nothing on standard output")
    r = expect(["sweep", scen, "--num-csx", "1:40:+1", "--batch-size", "20", "--steps", "10", "--csv",
                os.path.join(d, "skips.csv"), "-q"], 0)
    notes = [l for l in r.stderr.splitlines() if l.startswith("note: skipped")]
    check(len(notes) == 6 and "15 more points" in notes[-1], f"5 skip notes and a count: {notes}")
    # Several batch sizes with a fixed step count: the budgets differ, and the sweep says so.
    expect(["sweep", scen, "--num-csx", "1", "--batch-size", "264,528", "--steps", "10", "--csv",
            os.path.join(d, "two.csv"), "-q"], 0, err_has=["train different numbers of samples"])

    # 14. sweep --help describes the grid flags as the lists they take.
    r = expect(["sweep", "--help"], 0)
    for flag in ("--num-csx", "--batch-size", "--platform"):
        line = next(l for l in r.stdout.splitlines() if l.strip().startswith(flag + " "))
        check("LIST" in line or "list" in line, f"sweep --help: {line}")

    # 15. The data folder comes from the executable's tree: a copied tree reads its own.
    copy = os.path.join(d, "copy")
    os.makedirs(os.path.join(copy, "build"))
    shutil.copytree(os.path.join(ROOT, "models"), os.path.join(copy, "models"))
    shutil.copytree(os.path.join(ROOT, "platforms"), os.path.join(copy, "platforms"))
    shutil.copy(CSXSIM, os.path.join(copy, "build", "csxsim"))
    with open(os.path.join(copy, "platforms", "cs3.yaml")) as f:
        cs3 = f.read()
    open(os.path.join(copy, "platforms", "cs3.yaml"), "w").write(cs3.replace("name: cs3", "name: cs3copy", 1))
    env = {k: v for k, v in os.environ.items() if k != "CSXSIM_DATA_DIR"}
    rr = subprocess.run([os.path.join(copy, "build", "csxsim"), "platform", "cs3", "--keys"],
                        capture_output=True, text=True, env=env)
    check(rr.returncode == 0 and "cs3copy" in rr.stdout, f"the copy reads its own platforms/: {rr.stdout[:300]} {rr.stderr}")

    # 16. tools/plot on bad files: not UTF-8, the header only, a BOM; a MemoryX failure is not
    # shaded as on-chip memory; nothing fits: no empty throughput axes with marks' legend.
    def plot(*args):
        return subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools/plot"), *args],
                              capture_output=True, text=True)
    png = os.path.join(d, "p.png")
    junk = os.path.join(d, "junk.csv")
    open(junk, "wb").write(b"model,\xff\xfe\n")
    rr = plot(junk, "-o", png, "--kind", "throughput")
    check(rr.returncode == 2 and "not UTF-8" in rr.stderr and "Traceback" not in rr.stderr,
          f"plot of a non-UTF-8 file: {rr.returncode} {rr.stderr}")
    header_only = os.path.join(d, "header.csv")
    open(header_only, "w").write(open(os.path.join(ROOT, "tests/golden/gpt3_xl_1x_cs2.csv")).readline())
    rr = plot(header_only, "-o", png, "--kind", "throughput")
    check(rr.returncode == 2 and "the header only" in rr.stderr and "missing columns" not in rr.stderr,
          f"plot of a header-only CSV: {rr.stderr}")
    rr = plot(bom, "-o", png, "--kind", "throughput")
    check(rr.returncode == 0, f"plot of a CSV with a BOM: {rr.stderr}")
    mx = os.path.join(d, "mx.csv")
    expect(["run", "scenarios/gpt3_175b_16x_cs2_explore.yaml", "--platform",
            "tests/bad_inputs/files/platform_small_memoryx.yaml", "--csv", mx, "-q"], 1)
    inspect = r"""
import importlib.machinery, importlib.util, json, sys
loader = importlib.machinery.SourceFileLoader("plot", sys.argv[1])
plot = importlib.util.module_from_spec(importlib.util.spec_from_loader("plot", loader))
loader.exec_module(plot)
out = []
for kind in ("memory", "throughput"):
    fig = plot.render(plot.parse([sys.argv[2], "-o", "x.png", "--kind", kind]))
    fig.canvas.draw()
    legends = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    legends += [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    out.append({"kind": kind, "legends": legends, "texts": [t.get_text() for ax in fig.axes for t in ax.texts],
                "lines": sum(len(ax.lines) for ax in fig.axes if ax.get_visible())})
print(json.dumps(out))
"""
    rr = subprocess.run(["/usr/bin/python3", "-c", inspect, os.path.join(ROOT, "tools/plot"), mx],
                        capture_output=True, text=True, cwd=d)
    check(rr.returncode == 0, f"plot inspection: {rr.stderr[-800:]}")
    if rr.returncode == 0:
        memory, thr = json.loads(rr.stdout)
        check("MemoryX cannot hold the model" in memory["legends"] and
              "does not fit on-chip memory" not in memory["legends"], f"memory figure: {memory['legends']}")
        check("chosen MBS" not in memory["legends"], f"memory figure, nothing chosen: {memory['legends']}")
        check("chosen MBS" not in thr["legends"] and any("nothing fits" in t for t in thr["texts"]),
              f"throughput where nothing fits: {thr}")

    # 17. Python: an empty list is said to be empty; sweep(csv=...) keeps its CSV, and resume
    # needs one.
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(CSXSIM), "python"))
    try:
        import csxsim
    except ImportError:
        csxsim = None
    if csxsim is not None and not SANITIZED:
        try:
            csxsim.sweep(scen, num_csx=[], batch_size=528)
            check(False, "num_csx=[] is refused")
        except csxsim.InputError as e:
            check("num_csx = []: an empty list" in str(e), f"num_csx=[]: {e}")
        try:
            csxsim.sweep(scen, num_csx=1, batch_size=528, resume=True)
            check(False, "resume without csv is refused")
        except csxsim.InputError as e:
            check("needs csv=PATH" in str(e), f"resume=True alone: {e}")
        kept_csv = os.path.join(d, "py.csv")
        res1 = csxsim.sweep(scen, num_csx=1, batch_size=528, steps=10, csv=kept_csv)
        check(os.path.exists(kept_csv) and open(kept_csv).read() == res1.csv, "sweep(csv=) keeps the CSV")
        res2 = csxsim.sweep(scen, num_csx="1,2", batch_size=528, steps=10, csv=kept_csv, resume=True)
        check("1 kept from before" in res2.text, f"resume=True keeps the finished point: {res2.text[-300:]}")
        # An interrupted sweep() without csv= keeps the CSV the CLI names, and says so.
        script = r"""
import os, re, signal, sys, threading
sys.path.insert(0, sys.argv[1])
import csxsim
threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    csxsim.sweep("scenarios/gpt3_xl_1x_cs2.yaml", num_csx="1:192:+1", batch_size=528, steps=10)
    print("not interrupted")
except KeyboardInterrupt as e:
    path = re.search(r"kept in (\S+);", str(e)).group(1)
    print(str(e))
    print("exists" if os.path.exists(path) and open(path).read().count("\n") > 1 else "missing")
    os.remove(path)
"""
        rr = subprocess.run([sys.executable, "-c", script, os.path.join(os.path.dirname(CSXSIM), "python")],
                            capture_output=True, text=True, timeout=600)
        check(rr.stdout.strip().endswith("exists") and "resume=True" in rr.stdout,
              f"an interrupted sweep() keeps the CSV it names: {rr.stdout} {rr.stderr[-500:]}")

# A CSXSIM_DATA_DIR without platforms/ is named as the cause, not the scenario's platform.
expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml"], 2,
       err_has=["CSXSIM_DATA_DIR=/nonexistent: no platforms/ folder there"],
       env={**os.environ, "CSXSIM_DATA_DIR": "/nonexistent"})
# So it is where a models/ name is looked up, and for validate, describe and platform.
for args in (["run", "gpt3_xl", "--batch-size", "8"], ["describe", "gpt3_xl"], ["validate"], ["platform"]):
    expect(args, 2, err_has=["CSXSIM_DATA_DIR=/nonexistent: no platforms/ folder there"],
           env={**os.environ, "CSXSIM_DATA_DIR": "/nonexistent"})
# A data folder without that model names the folder it looked in.
with tempfile.TemporaryDirectory() as d:
    os.mkdir(os.path.join(d, "platforms"))
    expect(["run", "gpt3_xl", "--batch-size", "8"], 2, err_has=[f"CSXSIM_DATA_DIR={d}: no models/ folder there"],
           env={**os.environ, "CSXSIM_DATA_DIR": d})
    os.mkdir(os.path.join(d, "models"))
    expect(["run", "gpt3_xl", "--batch-size", "8"], 2,
           err_has=[f"gpt3_xl: no such file, and no model of that name in {d}/models/ (CSXSIM_DATA_DIR)"],
           env={**os.environ, "CSXSIM_DATA_DIR": d})
# --json a link to the --csv file not yet written: the same file, refused before either is.
with tempfile.TemporaryDirectory() as d:
    target, link = os.path.join(d, "y.csv"), os.path.join(d, "ly.csv")
    os.symlink("y.csv", link)
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--csv", target, "--json", link, "-q"], 2,
           err_has=[f"--csv and --json name the same file {link}"])
    check(not os.path.exists(target), "neither output written")
# An output replaced keeps the permissions of the file it replaces.
with tempfile.TemporaryDirectory() as d:
    priv = os.path.join(d, "priv.csv")
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--csv", priv, "-q"], 0)
    os.chmod(priv, 0o600)
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--csv", priv, "-q"], 0)
    check(os.stat(priv).st_mode & 0o777 == 0o600, f"mode kept: {oct(os.stat(priv).st_mode)}")
# LoRA (lora_params) is not modelled: a warning says so, and describe does not list it as a key
# without effect.
with tempfile.TemporaryDirectory() as d:
    lora = os.path.join(d, "lora.yaml")
    with open(lora, "w") as fh:
        fh.write(open("models/gpt2_small.yaml").read().replace("model:\n", "model:\n  lora_params:\n    r: 16\n", 1))
    r = expect(["describe", lora], 0, err_has=["model.lora_params: LoRA is not modelled: csxsim trains and updates every parameter"])
    check("lora_params" not in r.stdout, f"describe lists no LoRA key as without effect: {r.stdout}")
# merge reads no data folder: a bad CSXSIM_DATA_DIR does not stop it.
with tempfile.TemporaryDirectory() as d:
    one, out = os.path.join(d, "one.csv"), os.path.join(d, "out.csv")
    expect(["sweep", "scenarios/gpt3_xl_1x_cs2.yaml", "--num-csx", "1", "--batch-size", "528", "--csv", one, "-q"], 0)
    expect(["merge", one, "-o", out], 0, env={**os.environ, "CSXSIM_DATA_DIR": "/nonexistent"})
    check(open(out).read() == open(one).read(), "merge of one CSV is that CSV")
# A dangling symbolic link is named as one, not as a missing file.
with tempfile.TemporaryDirectory() as d:
    link = os.path.join(d, "scenario.yaml")
    os.symlink(os.path.join(d, "gone.yaml"), link)
    expect(["run", link], 2, err_has=[f"{link}: a symbolic link to {d}/gone.yaml, which does not exist"])
    os.makedirs(os.path.join(d, "sub"))
    rel = os.path.join(d, "sub", "rel.yaml")
    os.symlink("gone.yaml", rel)  # relative: to the link's folder
    expect(["run", rel], 2, err_has=[f"{rel}: a symbolic link to {d}/sub/gone.yaml, which does not exist"])
    # A chain of links is named by its end: chain -> rel -> gone.yaml.
    chain = os.path.join(d, "chain.yaml")
    os.symlink(rel, chain)
    expect(["run", chain], 2, err_has=[f"{chain}: a symbolic link to {d}/sub/gone.yaml, which does not exist"])
    # A scenario linked from elsewhere names its model from where it lives (../models/).
    linked = os.path.join(d, "linked.yaml")
    os.symlink(os.path.join(ROOT, "scenarios", "gpt3_xl_1x_cs2.yaml"), linked)
    expect(["run", linked, "--micro-batch-size", "12"], 0, out_has=["chosen: micro_batch_size 12"])
    one, two = os.path.join(d, "one.yaml"), os.path.join(d, "two.yaml")
    os.symlink(two, one)
    os.symlink(one, two)
    expect(["run", one], 2, err_has=[f"{one}: a loop of symbolic links"])
    # The same for a name without a folder or .yaml (read first as a models/ name).
    os.symlink("loop2", os.path.join(d, "loop1"))
    os.symlink("loop1", os.path.join(d, "loop2"))
    rr = subprocess.run([os.path.abspath(CSXSIM), "run", "loop1"], capture_output=True,
                        text=True, cwd=d)
    check(rr.returncode == 2 and "loop1: a loop of symbolic links" in rr.stderr,
          f"a loop of links by a bare name: {rr.returncode} {rr.stderr}")
# A file of the older layout (model:, train_input:) with a trainer: block beside it is told it
# holds two layouts, with the lines of both, not that trainer.init.model is missing.
with tempfile.TemporaryDirectory() as d:
    mixed = os.path.join(d, "mixed.yaml")
    with open(mixed, "w") as f:
        f.write("model:\n  hidden_size: 2048\ntrainer:\n  init:\n    seed: 1\n")
    expect(["run", mixed], 2, err_has=[
        f"{mixed}:3: trainer: the file holds both layouts: trainer: (Trainer layout, Release "
        "2.4+) and model: at line 1 (older layout); a file holds one layout: keep one of them"])
    # A Trainer file with a stray train_input: is told the same, naming train_input's line.
    with open(mixed, "w") as f:
        f.write("trainer:\n  init:\n    model:\n      hidden_size: 2048\ntrain_input:\n"
                "  batch_size: 8\n")
    expect(["run", mixed], 2, err_has=["and train_input: at line 5 (older layout)"])
    # trainer: that is no mapping keeps its own message, layouts aside.
    with open(mixed, "w") as f:
        f.write("model:\n  hidden_size: 2048\ntrainer: 3\n")
    expect(["run", mixed], 2, err_has=[f"{mixed}:3: trainer is a single value, expected a mapping"])
# Standard input is no scenario; --version takes no argument; simulation.mode eval_all (the
# Model Zoo's mode evaluating every checkpoint) is named as such, not as a typo.
expect(["run", "-"], 2, err_has=["-: csxsim reads a scenario or model from a file, not from "
                                 "standard input; name a file"])
expect(["--version", "extra"], 2, err_has=["--version takes nothing after it, got 'extra'"])
expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--mode", "eval_all"], 2,
       err_has=["--mode = 'eval_all': that is the Model Zoo's mode that evaluates every "
                "checkpoint; here the mode must be train, eval or train_and_eval (eval times one "
                "evaluation pass, the same for each checkpoint; a Model Zoo runconfig's mode: "
                "eval_all is read as eval)"])
expect(["help", "--version"], 0, out_has=["csxsim "])
# plan's deadline search says what bounds it: the platform's largest cluster (192 CS-2, below
# the --max-num-csx given), the flag itself, or the batch (one sample per system).
for extra, bound in ((["--max-num-csx", "1000"], "up to 192 (the largest cluster of cs2; --max-num-csx 1000 is beyond it)"),
                     (["--max-num-csx", "4"], "up to 4 (--max-num-csx)"),
                     (["--batch-size", "2"], "up to 2 (one sample per system: the batch size)")):
    expect(["plan", "scenarios/gpt3_xl_1x_cs2.yaml", "--deadline", "1h", "--tokens", "1e12", *extra], 1,
           out_has=[f"cs2, batch_size {2 if '--batch-size' in extra else 528}: no num_csx {bound} meets 1.00 h"])
# The eval batch of `cszoo validate` (trainer.validate.val_dataloader) is the eval pass's when
# fit has no val dataloader, and trainer.validate_all's first otherwise; a validate batch that
# differs from fit's is named. (Model Zoo Trainer YAML; the eval batch was the training one.)
with tempfile.TemporaryDirectory() as d:
    head = ("trainer:\n  init:\n    model: %s\n  fit:\n    train_dataloader: {batch_size: 528}\n"
            % os.path.join(ROOT, "models", "gpt3_xl.yaml"))
    cases = (("  validate:\n    val_dataloader: {batch_size: 64}\n", "64", None),
             ("  validate_all:\n    val_dataloaders:\n    - {batch_size: 32}\n    - {batch_size: 16}\n", "32", None),
             ("    val_dataloader: {batch_size: 96}\n  validate:\n    val_dataloader: {batch_size: 64}\n", "96",
              ["trainer.validate.val_dataloader.batch_size = 64 differs from",
               "6: trainer.fit.val_dataloader.batch_size = 96: the eval pass takes fit's"]))
    for i, (tail, batch, warning) in enumerate(cases):
        f = os.path.join(d, f"v{i}.yaml")
        with open(f, "w") as out:
            out.write(head + tail)
        csv_path = os.path.join(d, f"v{i}.csv")
        r = expect(["run", f, "--mode", "eval", "--platform", "cs2", "--num-csx", "1",
                    "--micro-batch-size", "none", "--csv", csv_path, "-q"], 0,
                   err_has=warning or [])
        check({x["batch_size"] for x in rows_of(csv_path)} == {batch}, f"{tail!r}: eval batch {batch}")

    # 18. Found by a newcomer run. A loop of symbolic links given to --csv is refused, the links
    # kept. plan -q prints only the answer: the non-monotony note goes to standard error.
    os.symlink("loop_b", os.path.join(d, "loop_a"))
    os.symlink("loop_a", os.path.join(d, "loop_b"))
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--csv", os.path.join(d, "loop_a"), "-q"], 2,
           err_has=["a loop of symbolic links"])
    check(os.readlink(os.path.join(d, "loop_a")) == "loop_b", "the looping link is kept")
    r = expect(["plan", "gpt3_xl", "--batch-size", "528", "--tokens", "1e12", "--deadline", "4d",
                "-q"], 0, err_has=["note: the time to train is not monotone in num_csx"])
    check("note:" not in r.stdout and r.stdout.startswith("cs2, batch_size 528"),
          f"plan -q stdout: {r.stdout!r}")
    # YAML 1.1's integers and pydantic's 0/1 booleans, as the Cerebras stack reads them:
    # num_csx 010 is octal 8, batch_size 0x210 is 528 (2*256 + 16), 1_024 is 1024; a norm's
    # name in any case (the Model Zoo's get_norm lowers it).
    with open("models/gpt3_xl.yaml") as f:
        model = f.read().replace("share_embedding_weights: true",
                                 "share_embedding_weights: 1\n  norm_type: LayerNorm")
    check("norm_type: LayerNorm" in model, "the model edit took")
    with open(os.path.join(d, "m11.yaml"), "w") as f:
        f.write(model)
    with open(os.path.join(d, "s11.yaml"), "w") as f:
        f.write("trainer:\n  init:\n    backend:\n      cluster_config:\n        num_csx: 010\n"
                "    model: m11.yaml\n  fit:\n    train_dataloader:\n      batch_size: 0x210\n"
                "simulation:\n  platform: cs2\n  mode: train\n")
    r = expect(["run", os.path.join(d, "s11.yaml"), "--csv", "-"], 0)
    rows = list(csv.DictReader(r.stdout.splitlines()))
    check({(x["num_csx"], x["batch_size"]) for x in rows} == {("8", "528")}, f"YAML 1.1 ints: {rows[:1]}")
    # Lower-case amount suffixes are the upper-case ones: 300b tokens is 300B.
    a = expect(["plan", "gpt3_xl", "--tokens", "300b", "--batch-size", "528", "--num-csx", "1"], 0)
    b = expect(["plan", "gpt3_xl", "--tokens", "300B", "--batch-size", "528", "--num-csx", "1"], 0)
    check(a.stdout == b.stdout, "300b and 300B plan alike")
    # tools/plot says which rows of another mode it left out; --trace-systems on 64 systems or
    # fewer says every system is traced anyway.
    te = os.path.join(d, "te.csv")
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--mode", "train_and_eval", "--csv", te, "-q"], 0)
    rr = plot(te, "-o", os.path.join(d, "te.png"))
    check(rr.returncode == 0 and "rows of mode eval left out (--mode eval plots them)" in rr.stderr,
          f"plot of train and eval rows: {rr.returncode} {rr.stderr}")
    expect(["run", "scenarios/gpt3_xl_4x_cs2.yaml", "--trace", os.path.join(d, "t.json"),
            "--trace-systems", "1,2", "-q"], 0,
           err_has=["note: --trace-systems 1,2: every system is in the trace up to 64 (num_csx 4)"])
    # A data folder's fit data is checked where a run reads it (for its intervals): a list
    # renamed (runs: for measurements:) is refused with a did-you-mean, not read as no runs.
    mdir = os.path.join(d, "fitdata")
    shutil.copytree(os.path.join(ROOT, "platforms"), os.path.join(mdir, "platforms"))
    shutil.copytree(os.path.join(ROOT, "models"), os.path.join(mdir, "models"))
    fit = os.path.join(mdir, "platforms", "calibration", "measurements.yaml")
    with open(fit) as f:
        text = f.read()
    with open(fit, "w") as f:
        f.write(text.replace("\nmeasurements:\n", "\nmeasurement:\n", 1))
    env = dict(os.environ, CSXSIM_DATA_DIR=mdir)
    rr = subprocess.run([CSXSIM, "run", os.path.join(ROOT, "scenarios/gpt3_xl_1x_cs2.yaml"), "-q"],
                        capture_output=True, text=True, env=env)
    check(rr.returncode == 2 and "measurement: unknown key (did you mean 'measurements'?)" in rr.stderr,
          f"a renamed fit-data list: {rr.returncode} {rr.stderr}")
    # candidates lists explore's sizes of any batch: --max-explore bounds what run simulates.
    expect(["candidates", "--batch-size", "100000000", "--num-csx", "1", "-m", "explore"], 0,
           out_has=["S(100000000): 19999 values"])
finish()
