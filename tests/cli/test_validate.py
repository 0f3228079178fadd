"""`csxsim validate` on the fit data (platforms/calibration/measurements.yaml): the recorded `auto`
decisions, every memory fact fits, input-bound and older-release runs are reported apart, and
`--cross-validate --group model` predicts each current-release run from a fit that never saw its
model, with its 80 % interval. The thresholds are today's figures with a margin
(docs/calibration.md#accuracy): a change that makes accuracy worse fails here."""
import csv
import os
import re
import tempfile

from clitest import check, expect, finish

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "validate.csv")
    # Four decisions are not matched (docs/calibration.md#accuracy): the real auto kept BERT-large's
    # 1024 and 2048 whole, picked a smaller MBS for GPT-2 small at 112, and 64 for ESM-2 at 2048;
    # validate exits 1 naming them; every other check holds.
    r = expect(["validate", "--csv", out], 1, out_has=["MAPE", "auto decision", "memory facts"],
               err_has=["4 checks failed"])
    rows = list(csv.DictReader(open(out)))
    current = [x for x in rows if x["group"] == "current"]
    older = [x for x in rows if x["group"] == "older"]
    inputs = [x for x in rows if x["group"] == "input-bound"]
    check(len(current) == 25 and len(older) == 3 and len(inputs) == 4,
          f"{len(current)} current, {len(inputs)} input-bound, {len(older)} older entries")
    check(all(float(x["simulated_samples_per_s"]) >= float(x["measured_samples_per_s"])
              for x in inputs), "input-bound runs: the simulated compute rate is at least theirs")
    # ViT-B/16 with its input workers at the platform's ImageNet1KProcessor rate: 178 samples/s x
    # 2 processes x 2 workers = 712/s, against 655.2 (CS-2) and 770.7 (CS-3) measured.
    fed = {x["name"]: x for x in inputs if x["input_fed_samples_per_s"]}
    check(sorted(fed) == ["vit-b-cs2", "vit-b-cs3"]
          and all(abs(float(x["input_fed_samples_per_s"]) - 712) < 1e-6 for x in fed.values())
          and abs(float(fed["vit-b-cs2"]["input_fed_error_pct"]) - 100 * (712 / 655.2 - 1)) < 1e-4,
          f"the CSV's input-fed columns: {fed}")
    for name, error in (("vit-b-cs2", "+8.7%"), ("vit-b-cs3", "-7.6%")):
        at = r.stdout.find("\n" + name + " ")
        check(at >= 0 and f"178 samples/s per process: 712.00/s, {error}, bound: input"
              in r.stdout[at:at + 900], f"{name}: simulated with its input workers")
    check({x["family"] for x in current} >= {"bert", "gpt2", "gpt3", "gptj", "llama"},
          "each run names its family")
    for x in rows:
        names = ("compute", "CS-X I/O", "MemoryX link", "optimizer", "step overhead")
        check(all(p in names or p.startswith("SwarmX level ") for p in x["bound"].split(" = ")),
              f"bound names resources: {x['bound']}")
        check(x["release"] != "", f"{x['name']}: release recorded")
    m = re.search(r"auto decisions: (\d+) of (\d+) match", r.stdout)
    check(m and m.group(1) == "4" and m.group(2) == "8", f"4 of 8 auto decisions match: {m and m.group(0)}")
    check(re.findall(r"auto decision (\S+): DOES NOT MATCH", r.stdout)
          == ["bert-1024-keeps-1024", "bert-2048-keeps-2048", "gpt2-112-picks-smaller",
              "esm2-2048-picks-64"],
          "only the BERT-large 1024 and 2048, GPT-2 small and ESM-2 decisions are missed")
    check("DOES NOT FIT" not in r.stdout and "INCONSISTENT" not in r.stdout, "no other failed check")
    m = re.search(r"memory facts: (\d+) of (\d+) fit", r.stdout)
    check(m and m.group(1) == m.group(2) and int(m.group(1)) >= 6, f"memory facts: {m and m.group(0)}")
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared",
                          "modelzoo-corpus")
    if os.path.isdir(corpus):
        check(int(m.group(1)) >= 120, "every Model Zoo preset is checked")
    check("preference gpt3-xl-528-prefers-88: MBS 88 ranks" in r.stdout, "GPT-3 XL 88 ranked")

    # Out-of-sample: each current-release run predicted by a fit without it. The refit is slow
    # (minutes), so it runs once, in the transcript tests/golden/validate_cross.tesh, whose test
    # (transcript.validate_cross) checks that csxsim prints exactly its lines; here its recorded
    # output is checked against the data, the platform files and the docs.
    tesh = open("tests/golden/validate_cross.tesh").read()
    check("$ ${bindir:=build}/csxsim validate --cross-validate\n" in tesh,
          "the transcript runs --cross-validate")
    cross = "\n".join(l[2:] for l in tesh.splitlines() if l.startswith(">"))
    errs = {n: float(e) for n, e in
            re.findall(r"^(\S+)\s+\S+\s+[0-9.]+\s+[0-9.]+\s+([+-][0-9.]+)%", cross, re.M)}
    fit_data = open("platforms/calibration/measurements.yaml").read()
    fitted = re.search(r"^measurements:\n(.*?)^[a-z_]+:", fit_data, re.M | re.S).group(1).count("- name:")
    check(len(errs) == fitted, f"{len(errs)} out-of-sample predictions of {fitted} runs")
    m = re.search(r"leave-one-model-out MAPE ([0-9.]+)%; largest ([+-][0-9.]+)% \((\S+)\)", cross)
    check(m is not None, "the headline line")
    lomo = float(m.group(1))
    check(lomo <= 15, f"leave-one-model-out MAPE {lomo}% > 15%")
    # The interval spread in the platform files is this cross-validation's RMS.
    rms = re.search(r"RMS of the out-of-sample log residuals ([0-9.]+)", cross).group(1)
    for plat in ("cs2", "cs3"):
        sd = re.search(r"^\s*prediction_log_sd:\s*(\S+)", open(f"platforms/{plat}.yaml").read(), re.M)
        check(sd and abs(float(sd.group(1)) - float(rms)) <= 1e-3,
              f"platforms/{plat}.yaml prediction_log_sd {sd and sd.group(1)} is the RMS {rms}")
    check(abs(sum(abs(e) for e in errs.values()) / max(1, len(errs)) - lomo) < 0.06,
          "printed MAPE matches the entries")
    # DiT-2B on CS-2, Llama-3 8B, BERT-large on CS-2 at batch 2048 (faster than csxsim at large
    # batches, as the R2.1.1 run at 1024 is) and
    # Llama-3.2 1B (above the CS-3 client's step floor, unexplained) are the known
    # outliers (docs/calibration.md#accuracy); every other run within 30 %.
    known = ("llama3-8b", "dit-2b", "bert-2048", "llama32-1b")
    others = {n: e for n, e in errs.items() if not n.startswith(known)}
    check(max(abs(e) for e in others.values()) <= 30, f"an out-of-sample error beyond 30%: {others}")
    c = re.search(r"80% intervals: (\d+) of (\d+) out-of-sample", cross)
    check(c and int(c.group(1)) >= 0.8 * int(c.group(2)) - 1, f"interval coverage: {c and c.group(0)}")
    # docs/calibration.md's Accuracy block is this output, line for line, and its bold
    # headline has the printed figures (no figure typed by hand).
    page = open("docs/calibration.md").read()
    check(f"leave-one-model-out MAPE {m.group(1)} %" in page
          and f"largest error {m.group(2).replace('-', '−')} %" in page,
          f"docs/calibration.md's headline: MAPE {m.group(1)} %, largest {m.group(2)} %")
    block = page[page.index("## Accuracy"):].split("```\n", 2)[1]
    got = [l.rstrip() for l in cross.splitlines()]
    for line in block.splitlines():
        check(line.rstrip() in got, f"docs/calibration.md Accuracy block: not printed: {line!r}")

    # Overrides reach the model: a slower wafer shows up as a large error.
    r = expect(["validate", "--measurements-only", "--only-platform", "cs2", "--platform-override",
                "cs2:calibration.compute_efficiency=0.1"], 0)
    # ... and a wafer slow enough puts the input-bound run below its measured rate: a failed check.
    expect(["validate", "--measurements-only", "--only-platform", "cs2", "--platform-override",
            "cs2:calibration.compute_efficiency=0.01"], 1, out_has=["INCONSISTENT"])
    expect(["validate", "--group", "model"], 2, err_has=["--group is an option of --cross-validate"])
    expect(["validate", "--cross-validate", "--group", "modle"], 2, err_has=["did you mean 'model'"])
    check(float(re.search(r"MAPE ([0-9.]+)%", r.stdout).group(1)) > 40, "override changes results")
    expect(["validate", "--platform-override", "calibration.no_such_key=1"], 2, err_has=["unknown key"])
finish()
