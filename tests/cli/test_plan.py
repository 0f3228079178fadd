"""The planning questions (docs/questions.md#questions-csxsim-answers), each answered by one
command and checked against a hand calculation written here: steps from a token budget, the smallest cluster
that meets a deadline, several platforms and variants in one sweep, the limiting resource and its
busy time, every platform key listed, rows that reproduce themselves, merge of run CSVs and of
shards (one missing refused), and the sweep's closing summary."""
import csv
import io
import json
import math
import os
import tempfile

from clitest import check, expect, finish

DAY = 86400.0


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


with tempfile.TemporaryDirectory() as d:
    # 1. "How many CS-3 do I need to train Llama-3 8B on 1T tokens in 7 days?" (batch 960).
    # Steps by hand: 1e12 tokens / (960 samples x 8192 tokens) = 127,156.2 -> 127,157 steps.
    steps = math.ceil(1e12 / (960 * 8192))
    check(steps == 127157, "hand calculation of the steps")
    out = os.path.join(d, "plan.csv")
    r = expect(["plan", "llama3_8b", "--platform", "cs3", "--tokens", "1e12", "--deadline", "7d",
                "--batch-size", "960", "--csv", out], 0, out_has=["answer: smallest cluster: "])
    rows = [x for x in rows_of(out) if x["chosen"] == "true"]
    check(all(int(x["steps"]) == steps for x in rows), "every evaluated cluster trains 127,157 steps")
    check(all(int(x["tokens_per_step"]) == 960 * 8192 and int(x["seq_len"]) == 8192 for x in rows),
          "tokens_per_step = batch x seq_len")
    by_n = {int(x["num_csx"]): x for x in rows}
    for n, x in by_n.items():  # time to train = steps x step time, from the row itself
        check(abs(float(x["time_to_train_s"]) - steps * float(x["step_time_s"])) <=
              1e-6 * float(x["time_to_train_s"]), f"num_csx {n}: time_to_train_s = steps x step_time_s")
    meeting = sorted(n for n, x in by_n.items() if float(x["time_to_train_s"]) <= 7 * DAY)
    answer = meeting[0] if meeting else None
    check(answer is not None and answer - 1 in by_n, "the cluster one smaller was evaluated too")
    check(answer is not None and float(by_n[answer - 1]["time_to_train_s"]) > 7 * DAY,
          "one system fewer misses the deadline")
    check(f"answer: smallest cluster: {answer} x cs3 (batch_size 960" in r.stdout,
          f"the answer names {answer} CS-3: {r.stdout[-600:]}")
    # The hand search: every cluster size up to the answer swept, filtered here.
    swept = os.path.join(d, "swept.csv")
    expect(["sweep", "models/llama3_8b.yaml", "--platform", "cs3", "--tokens", "1e12",
            "--batch-size", "960", "--num-csx", f"1:{answer}:+1", "--csv", swept, "--quiet"], 0)
    by_hand = sorted(int(x["num_csx"]) for x in rows_of(swept)
                     if x["chosen"] == "true" and float(x["time_to_train_s"]) <= 7 * DAY)
    check(by_hand and by_hand[0] == answer, f"a sweep filtered by hand finds {by_hand[:1]}, plan {answer}")

    # 1b. The time to train on a given cluster: the same row as the deadline search's.
    r = expect(["plan", "llama3_8b", "--platform", "cs3", "--tokens", "1e12", "--num-csx", "16",
                "--batch-size", "960", "--quiet"], 0, out_has=["answer: fastest: 16 x cs3"])
    days = float(by_n[16]["time_to_train_s"]) / DAY
    check(f"trains in {days:.2f} days" in r.stdout, f"--num-csx 16 gives {days:.2f} days: {r.stdout}")

    # 1c. run --tokens: the same steps.
    out = os.path.join(d, "run.csv")
    expect(["run", "models/llama3_8b.yaml", "--platform", "cs3", "--num-csx", "16", "--batch-size", "960",
            "--tokens", "1T", "--csv", out, "-q"], 0)
    check({x["steps"] for x in rows_of(out)} == {str(steps)}, "run --tokens 1T: 127,157 steps")

    # 2. "CS-2 or CS-3 for GPT-3 XL?" and "what if CS-3 had twice the I/O?" in one sweep. MBS 1
    # at MSL 512: few tokens per streamed weight, so the weight links, not the wafer, set the step.
    out = os.path.join(d, "platforms.csv")
    r = expect(["sweep", "models/gpt3_xl.yaml", "--platform", "cs2,cs3", "--variant", "io2x:cs3:system.io_scale=2",
                "--num-csx", "64", "--batch-size", "528", "--micro-batch-size", "1", "--seq-len", "512",
                "--csv", out], 0,
               out_has=["sweep: 3 points (3 run now, 0 kept from before, 0 refused) in", out])
    rows = rows_of(out)
    check([x["platform"] for x in rows] == ["cs2", "cs3", "cs3+io2x"],
          f"one platform value per platform and variant (the cs3-only variant skips cs2): {[x['platform'] for x in rows]}")
    check([x["overrides"] for x in rows] == ["", "", "system.io_scale=2"], "the overrides column")
    # A variant's key is named as the variant's in messages, not as a --platform-override.
    r = expect(["sweep", "models/gpt2_small.yaml", "--num-csx", "4", "--batch-size", "112",
                "--variant", "small:system.max_cluster_size=2", "--csv", os.path.join(d, "v.csv")], 0)
    check("(system.max_cluster_size, set by --variant small)" in r.stderr,
          f"the skipped variant point names the variant: {r.stderr!r}")
    base, io2x = rows[1], rows[2]
    # Twice the I/O: the same bytes over links twice as fast, so each link is busy half as long.
    for col in ("csx_io_share", "swarmx_share", "memoryx_link_share"):
        busy = float(base[col]) * float(base["step_time_s"])
        busy2 = float(io2x[col]) * float(io2x["step_time_s"])
        check(abs(busy2 / busy - 0.5) < 1e-6, f"{col}: busy time halves with system.io_scale=2 ({busy}, {busy2})")
    # On CS-3 the three links have one bandwidth (12 x 16.25e9 = 195e9 bytes/s, the MemoryX
    # link's): they tie; 64 systems under fan-out 4 make 3 SwarmX node levels, 2 links between.
    check(base["bound"] == "CS-X I/O = SwarmX level 1 = SwarmX level 2 = MemoryX link",
          f"cs3 at 64 systems, MBS 1 of 512 tokens (9 microbatches) is bound by the tied links: {base['bound']}")
    check(float(io2x["step_time_s"]) < float(base["step_time_s"]), "twice the I/O is faster")

    # 3. The limiting resource's busy time by hand: GPT-3 XL on one CS-2, MBS 528 (one
    # microbatch): weights stream forward and backward once, 2 x 2,837,299,200 bytes (describe's
    # weight_bytes_per_pass), over 12 ports x 12.5e9 bytes/s.
    out = os.path.join(d, "xl.csv")
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--micro-batch-size", "528", "--csv", out, "-q"], 0)
    x = rows_of(out)[0]
    expected = 2 * 2837299200 / (12 * 12.5e9)
    got = float(x["csx_io_share"]) * float(x["step_time_s"])
    check(abs(got / expected - 1) < 1e-6, f"CS-X I/O busy {got} s, by hand {expected} s")
    got = float(x["compute_share"]) * float(x["step_time_s"])
    check(abs(got - float(x["compute_time_s"])) <= 1e-6 * got, "compute share = compute_time_s / step")
    check(x["bound"] == "compute" and x["swarmx_share"] == "0", "one system: compute bound, no SwarmX level")

    # 4. Every platform key, with unit and both platforms' values.
    r = expect(["platform", "--keys"], 0, out_has=["system.io_scale", "factor", "calibration.step_overhead_s",
                                                      "calibration.gradient_accumulation"])
    line = next(l for l in r.stdout.splitlines() if l.startswith("system.io_port_bandwidth_Bps"))
    check(line.split()[1:4] == ["bytes/s", "1.25e+10", "1.625e+10"], f"port bandwidth of cs2 and cs3: {line}")

    # 5. Rows that reproduce themselves; merge of run CSVs; shards with one missing.
    a, b = os.path.join(d, "a.csv"), os.path.join(d, "b.csv")
    expect(["run", "scenarios/gpt3_175b_16x_cs2_explore.yaml", "--csv", a, "-q"], 0)
    text = open(a).read()
    check('"' in text, "the 175B explore rows hold a quoted field (a reason with a comma)")
    expect(["run", "scenarios/gpt3_175b_16x_cs2_explore.yaml", "--num-csx", "8", "--batch-size", "1056",
            "--csv", b, "-q"], 0)
    merged = os.path.join(d, "merged.csv")
    expect(["merge", b, a, "-o", merged], 0)
    m = open(merged).read()
    # num_csx 8 sorts before 16: b's rows, then a's, each byte for byte.
    check(m == open(b).read() + text.split("\n", 1)[1], "merged run CSVs: rows sorted by point, quoted fields intact")
    grid = ["--num-csx", "1:4:x2", "--batch-size", "64,96", "--steps", "1000"]
    scen = "scenarios/gpt3_xl_1x_cs2.yaml"
    whole = os.path.join(d, "whole.csv")
    expect(["sweep", scen, *grid, "--csv", whole, "-q"], 0)
    shards = [os.path.join(d, f"s{i}.csv") for i in range(3)]
    for i, s in enumerate(shards):
        expect(["sweep", scen, *grid, "--shard", f"{i}/3", "--csv", s, "-q"], 0)
    check({x["shard"] for x in rows_of(shards[1])} == {"1/3"}, "a shard's rows name their shard")
    expect(["merge", shards[0], shards[2], "-o", merged], 2, err_has=["shard 1/3 of the sweep is missing"])
    expect(["merge", *shards, "-o", merged], 0)
    check(open(merged).read() == open(whole).read(), "three shards merge into the unsharded sweep")
    r = expect(["sweep", scen, *grid, "--csv", whole, "--resume"], 0,
               out_has=["sweep: 6 points (0 run now, 6 kept from before, 0 refused)"])
    summary = [l for l in r.stdout.splitlines() if l.startswith("cs2 ")]
    check(len(summary) == 6, f"one summary line per grid point: {r.stdout}")

    # 6. A rule that refuses larger clusters: MBS 100 needs a per-system batch of at least 100,
    # so ceil(528 / N) >= 100 allows N <= 5 (106) and refuses 6 (88). Doubling reaches 8
    # (refused); the search steps back to the largest allowed size, 5, and answers with it
    # when 4 misses the deadline and 5 meets it.
    out = os.path.join(d, "refused.csv")
    r = expect(["plan", "gpt3_xl", "--platform", "cs2", "--tokens", "1e10", "--deadline", "3.8h",
                "--batch-size", "528", "--micro-batch-size", "100", "--csv", out], 0)
    by_n = {int(x["num_csx"]): x for x in rows_of(out) if x["chosen"] == "true"}
    check(set(by_n) >= {4, 5} and 6 not in by_n and 8 not in by_n, f"5 ran, 6 and 8 refused: {sorted(by_n)}")
    if {4, 5} <= set(by_n):
        meets = [float(by_n[n]["time_to_train_s"]) <= 3.8 * 3600 for n in (4, 5)]
        expected = "5 x cs2" if meets == [False, True] else None
        check(expected is None or f"answer: smallest cluster: {expected}" in r.stdout,
              f"the largest allowed size answers: {r.stdout[-400:]}")

    # 7. --resume refuses rows made with other overrides, another seq_len or other steps.
    small = ["--num-csx", "1,2", "--batch-size", "64", "-q"]
    res = os.path.join(d, "resume.csv")
    expect(["sweep", scen, *small, "--csv", res, "--steps", "10"], 0)
    expect(["sweep", scen, *small, "--csv", res, "--steps", "10", "--resume",
            "--platform-override", "system.io_scale=4"], 2,
           err_has=["has platform overrides '' where this sweep", "has 'system.io_scale=4'"])
    expect(["sweep", scen, *small, "--csv", res, "--steps", "10", "--resume", "--seq-len", "1024"], 2,
           err_has=["seq_len 2048"])
    expect(["sweep", scen, *small, "--csv", res, "--steps", "20", "--resume"], 2,
           err_has=["was run for 10 training steps, this sweep asks for 20"])
    # A point cut short (its chosen row gone) is refused by merge and --resume.
    with open(res, newline="") as f:
        table = list(csv.reader(f))
    head = table[0]
    keep = [r for r in table[1:] if not (r[head.index("num_csx")] == "1" and r[head.index("chosen")] == "true")]
    cut = os.path.join(d, "cut.csv")
    with open(cut, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([head, *keep])
    expect(["merge", cut, "-o", merged], 2, err_has=["no chosen row"])

# plan --json names its clusters as a list, as sweep's grid (ascending, each once).
r = expect(["plan", "gpt3_xl", "--tokens", "300B", "--num-csx", "16,4,4", "--batch-size", "264,528",
            "--json", "-", "-q"], 0)
inputs = json.loads(r.stdout)["inputs"]
check(inputs["num_csx"] == [4, 16] and inputs["batch_size"] == [264, 528],
      f"plan --json inputs: num_csx {inputs['num_csx']!r}, batch_size {inputs['batch_size']!r}")

# An R_1.7.0 TensorFlow file sets the batch of each system; plan holds the global batch of the
# file's cluster (batch_size x num_csx, here unset: 1) fixed while it varies num_csx, and says so.
with tempfile.TemporaryDirectory() as d:
    folder = os.path.join(d, "transformers", "tf", "gpt3", "configs")
    os.makedirs(folder)
    tf_file = os.path.join(folder, "params_gpt3_xl.yaml")
    with open(tf_file, "w") as fh:
        fh.write(open("models/gpt3_xl.yaml").read() + "train_input:\n  batch_size: 66\n")
    r = expect(["plan", tf_file, "--deadline", "60d", "--tokens", "300B", "--csv", "-"], 0,
               err_has=[f"note: {tf_file} sets the batch of each system (66); plan holds the global "
                        "batch at 66 x 1 = 66 (num_csx not set: 1) while it varies num_csx, not 66 x num_csx"])
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    check(rows and all(row["batch_size"] == "66" for row in rows), "plan of a per-system file: global batch 66")
    r = expect(["plan", tf_file, "--deadline", "60d", "--tokens", "300B", "--batch-size", "528"], 0)
    check("note:" not in r.stderr, "--batch-size given: no note")
    # A file that sets num_csx (runconfig.num_csx: 8, as the GPT-3 XL file's header says it ran):
    # 66 x 8 = 528.
    with open(tf_file, "a") as fh:
        fh.write("runconfig:\n  num_csx: 8\n")
    r = expect(["plan", tf_file, "--deadline", "60d", "--tokens", "300B", "--csv", "-"], 0,
               err_has=["plan holds the global batch at 66 x 8 = 528 (num_csx of ", "runconfig.num_csx)"])
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    check(rows and all(row["batch_size"] == "528" for row in rows), "plan of a per-system file on 8: global batch 528")

# 8. docs/questions.md's "Questions csxsim answers" and the README's examples: every
# `$ build/csxsim` command's output holds the lines shown, in order ("..." skips; the elapsed
# time is not compared).
import re
import shlex
import subprocess
from clitest import CSXSIM

questions = open("docs/questions.md").read()
section = questions[questions.index("## Questions csxsim answers"):]
section = section[:section.index("\n## ", 5)]
blocks = re.findall(r"```\n(\$ build/csxsim .*?)```", section, re.S)
check(len(blocks) >= 4, f"the section shows its commands ({len(blocks)} found)")
readme_blocks = re.findall(r"```\n(\$ build/csxsim .*?)```", open("README.md").read(), re.S)
check({b.split(" ")[2] for b in readme_blocks} == {"run", "sweep", "plan"},
      f"the README shows one run, one sweep and one plan ({len(readme_blocks)} blocks)")
blocks = [("docs/questions.md", b) for b in blocks] + [("README.md", b) for b in readme_blocks]
norm = lambda line: re.sub(r"in [0-9.]+ s ->", "in T s ->", line.rstrip())
with tempfile.TemporaryDirectory() as d:
    for page, block in blocks:
        lines = block.splitlines()
        args = shlex.split(lines[0][2:])[1:]
        args = [os.path.join(d, a) if a.endswith(".csv") else a for a in args]
        out = subprocess.run([CSXSIM, *args], capture_output=True, text=True, timeout=600).stdout
        got = [norm(l).replace(d + "/", "") for l in out.splitlines()]
        pos = 0
        for want in (norm(l) for l in lines[1:]):
            if want == "...":
                continue
            while pos < len(got) and got[pos] != want:
                pos += 1
            check(pos < len(got), f"{page}: `{lines[0]}` prints {want!r}")
            pos += 1

# An input-bound answer says what would shorten it: ViT-B/16 at the platform's 712 samples/s.
expect(["plan", "vit_base_patch16", "--tokens", "1e9", "--num-csx", "1", "-q"], 0,
       out_has=["bound: input: more dataloader processes (num_workers) would shorten the step"])

finish()
