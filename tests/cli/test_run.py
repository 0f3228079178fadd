"""`csxsim run`: the main job end to end, CSV contract, rule refusals."""
import csv
import glob
import io
import json
import math
import os
import re
import tempfile

from clitest import check, expect, finish, run

COLUMNS = ("model,platform,overrides,mode,num_csx,batch_size,per_system_batch_size,seq_len,tokens_per_step,"
           "requested_micro_batch_size,micro_batch_size,num_microbatches,fits,reason,chosen,step_time_s,"
           "samples_per_s,samples_per_s_low,samples_per_s_high,step_time_s_low,step_time_s_high,"
           "tokens_per_s,mfu,bound,compute_share,csx_io_share,swarmx_share,memoryx_link_share,"
           "optimizer_share,step_overhead_share,input_share,compute_time_s,weight_stream_time_s,exposed_stream_time_s,grad_reduce_time_s,"
           "optimizer_time_s,step_overhead_s,input_samples_per_s_per_csx,input_wait_s,mem_activations_bytes,mem_weight_buffers_bytes,mem_gradients_bytes,"
           "mem_workspace_bytes,mem_total_bytes,mem_capacity_bytes,recompute_passes,activation_plan,steps,"
           "time_to_train_s,shard,grid")


def supported(P):
    return sorted({-(-P // k) for k in range(1, P + 1)}, reverse=True)


def calibration_runs(family, platform):
    """Runs of `family` and on `platform` in the fit data's `measurements` list, counted from the
    file's text: each entry's model file names its family in its first `name:` key."""
    text = open("platforms/calibration/measurements.yaml").read()
    section = re.search(r"^measurements:\n(.*?)(?=^[A-Za-z_])", text, re.S | re.M).group(1)
    entries = re.split(r"^- ", section, flags=re.M)[1:]
    n_family = n_platform = 0
    for e in entries:
        model = re.search(r"^\s*model:\s*(\S+)", e, re.M).group(1)
        name = re.search(r"^\s+name:\s*\"?([\w.-]+)", open(model).read(), re.M).group(1)
        n_family += name == family
        n_platform += re.search(r"^\s*platform:\s*(\S+)", e, re.M).group(1) == platform
    return n_family, n_platform


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "out.csv")
    # Done-when of the engine issue: one row per value of S(528), the fastest fitting one chosen.
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--micro-batch-size", "explore", "--compile-only",
            "--csv", out], 0, out_has=["explore chose", "chosen: micro_batch_size"])
    text = open(out).read()
    check(text.splitlines()[0] == COLUMNS, "CSV header")
    rows = list(csv.DictReader(io.StringIO(text)))
    check([int(r["micro_batch_size"]) for r in rows] == supported(528), "one row per MBS in S(528)")
    chosen = [r for r in rows if r["chosen"] == "true"]
    check(len(chosen) == 1, "exactly one chosen row")
    fitting = [r for r in rows if r["fits"] == "true"]
    check(all(r["step_time_s"] for r in fitting), "every fitting row was simulated")
    check(all(not r["step_time_s"] and r["reason"] for r in rows if r["fits"] == "false"),
          "non-fitting rows carry a reason and no timings")
    best = min(fitting, key=lambda r: float(r["step_time_s"]))
    check(chosen[0]["micro_batch_size"] == best["micro_batch_size"], "the fastest fitting row is chosen")
    for r in rows:
        k, m = int(r["num_microbatches"]), int(r["micro_batch_size"])
        check(k == -(-528 // m), f"k for MBS {m}")

    # The 80 % interval of each rate: x / f to x f, f = exp(1.2816 x sd x w),
    # w = sqrt(1 + 1/(n_family + 1) + 1/(n_platform + 1))
    # (docs/calibration.md#prediction-intervals).
    nf, np_ = calibration_runs("gpt3", "cs2")
    # The spread tools/calibrate --write put in the platform file, read from its text.
    sd = float(re.search(r"^\s*prediction_log_sd:\s*(\S+)", open("platforms/cs2.yaml").read(),
                         re.M).group(1))
    f = math.exp(1.2816 * sd * math.sqrt(1 + 1 / (nf + 1) + 1 / (np_ + 1)))
    for r in fitting:
        v, t = float(r["samples_per_s"]), float(r["step_time_s"])
        check(math.isclose(float(r["samples_per_s_low"]), v / f, rel_tol=1e-6) and
              math.isclose(float(r["samples_per_s_high"]), v * f, rel_tol=1e-6) and
              math.isclose(float(r["step_time_s_low"]), t / f, rel_tol=1e-6) and
              math.isclose(float(r["step_time_s_high"]), t * f, rel_tol=1e-6),
              f"MBS {r['micro_batch_size']}: interval x/ {f:.4f} ({nf} gpt3 runs, {np_} on cs2)")
    check(all(r[c] == "" for r in rows if r["fits"] == "false"
              for c in ("samples_per_s_low", "samples_per_s_high", "step_time_s_low",
                        "step_time_s_high")), "infeasible rows have empty interval cells")
    js = os.path.join(d, "out.json")
    r = expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--json", js], 0,
               out_has=["samples/s (80 % interval ", f"{nf} of family gpt3, {np_} on cs2"])
    pi = json.load(open(js))["inputs"]["prediction_interval"]
    check(pi == {"level": 0.8, "z": 1.2816, "log_sd": sd, "family": "gpt3",
                 "family_runs": nf, "platform_runs": np_}, f"run --json prediction_interval {pi}")

    # Same input, same bytes.
    out2 = os.path.join(d, "out2.csv")
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--micro-batch-size", "explore", "--compile-only",
            "--csv", out2, "--quiet"], 0)
    check(open(out2).read() == text, "CSV is byte-identical run after run")

    # A fixed MBS that is moved prints the platform's notice (on standard error, so that --quiet
    # keeps it).
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--micro-batch-size", 100], 0,
           out_has=["-> per-system batch 528"], err_has=["notice: train pass: micro_batch_size 100"])

    # Nothing fits: exit 1, the CSV still holds the infeasible row.
    out3 = os.path.join(d, "nofit.csv")
    r = expect(["run", "scenarios/llama3_70b_64x_cs3.yaml", "--platform", "cs2", "--seq-len", 131072,
                "--micro-batch-size", "none", "--csv", out3], 1,
               err_has=["no micro_batch_size fits"])
    rows = list(csv.DictReader(open(out3)))
    check(len(rows) == 1 and rows[0]["fits"] == "false" and "GB" in rows[0]["reason"], "infeasible row kept")

    # Modes: eval and train_and_eval.
    r = expect(["run", "scenarios/gpt3_xl_4x_cs2.yaml", "--mode", "train_and_eval", "--csv", out], 0)
    modes = {row["mode"] for row in csv.DictReader(open(out))}
    check(modes == {"train", "eval"}, f"train_and_eval rows: {modes}")

# Every shared Model Zoo file runs unchanged with --num-csx 1, or is refused with a clear message.
for f in sorted(glob.glob("../shared/modelzoo/*/*.yaml")):
    r = run("run", f, "--num-csx", 1, "--quiet")
    check(r.returncode == 0 or (r.returncode in (1, 2) and r.stderr.startswith("csxsim: error: ")
                                and r.stderr.count("\n") == 1),
          f"{f}: status {r.returncode} {r.stderr}")

# Legacy micro_batch_size key (train_input.micro_batch_size: 88) is honoured.
expect(["run", "../shared/modelzoo/release-2.3.0/params_gpt3_2p7b.yaml", "--num-csx", 1], 0,
       out_has=["micro_batch_size 88"])
# Rules.
expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--micro-batch-size", "explore"], 2,
       err_has=["compile-only"])
expect(["run", "models/resnet50.yaml", "--batch-size", 256, "--micro-batch-size", "explore",
        "--compile-only"], 2, err_has=["transformer"])
expect(["run", "models/resnet50.yaml", "--batch-size", 256, "--micro-batch-size", 64], 2,
       err_has=["batch normalization"])
expect(["run", "models/resnet50.yaml", "--batch-size", 256], 0, out_has=["chosen: micro_batch_size 256"])
expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--num-csx", 193], 2, err_has=["192"])
expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--batch-size", 240, "--num-csx", 2,
        "--micro-batch-size", 121], 2, err_has=["121", "120", "num_csx 2"])
expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--csv", "/no/such/dir/x.csv"], 2,
       err_has=["does not exist"])
expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--mode", "trian"], 2, err_has=["did you mean 'train'"])
# A models/ name runs as its file does.
by_name = expect(["run", "gpt3_xl", "--batch-size", 528], 0)
by_file = expect(["run", "models/gpt3_xl.yaml", "--batch-size", 528], 0)
check(by_name.stdout.splitlines()[1:] == by_file.stdout.splitlines()[1:], "a models/ name = its file")

# A legacy-layout (Release 2.3, R_1.7.0) file's runconfig.mode and compile_only are read:
# train_and_eval runs both passes, eval_all is eval, compile_only admits explore; a mode csxsim
# does not simulate is a warning (the file is the user's), and simulation.mode wins.
with tempfile.TemporaryDirectory() as d:
    model = open("models/gpt3_xl.yaml").read()
    def legacy(runconfig, extra=""):
        path = os.path.join(d, "legacy.yaml")
        with open(path, "w") as fh:
            fh.write(model + "train_input:\n  batch_size: 528\neval_input:\n  batch_size: 528\n"
                     "runconfig:\n" + runconfig + extra)
        return path
    r = expect(["run", legacy("  mode: train_and_eval\n")], 0, out_has=["train:", "eval:"])
    r = expect(["run", legacy("  mode: eval_all\n")], 0, out_has=["eval:"])
    check("train:" not in r.stdout, "eval_all runs the eval pass only")
    expect(["run", legacy("  mode: train\n  compile_only: True\n"), "--micro-batch-size", "explore"], 0,
           out_has=["explore chose"])
    expect(["run", legacy("  mode: inference\n")], 0, out_has=["train:"],
           err_has=["runconfig.mode = 'inference': csxsim simulates train, eval or train_and_eval"])
    r = expect(["run", legacy("  mode: train_and_eval\n", "simulation:\n  mode: eval\n")], 0)
    check("train:" not in r.stdout, "simulation.mode wins over runconfig.mode")
# The trainer loop's num_steps is the training length and takes precedence over max_steps, as
# the Model Zoo's TrainingLoop says (Release 2.10): 1000 steps, not 24334.
with tempfile.TemporaryDirectory() as d:
    text = open("scenarios/gpt3_xl_1x_cs2.yaml").read().replace("../models/", os.path.abspath("models") + "/")
    for loop, steps in (("num_steps: 1000", 1000), ("num_steps: 1000\n      max_steps: 24334", 1000),
                        ("max_steps: 24334", 24334)):
        path = os.path.join(d, "loop.yaml")
        with open(path, "w") as fh:
            fh.write(text.replace("max_steps: 24334", loop))
        expect(["run", path, "--micro-batch-size", "12"], 0, out_has=[f"time to train: {steps} steps x"])

# The CS-3 client's step floor (platforms/cs3.yaml client_step_floor_s 0.1875 s) with the input
# simulated: BERT-large, one microbatch of 256 on one CS-3, its step with the fixed cost about
# 0.16 s. At 1500 samples/s the input takes 256 / 1500 = 0.1707 s, under the floor, so the step is
# the floor: 256 / 0.1875 = 1365.33 samples/s, bound step overhead. At 1200 samples/s the input
# takes 256 / 1200 = 0.2133 s, over the floor: 1200 samples/s, bound input.
for rate, step, rate_out, bound in ((1500, "0.1875", "1365.33", "step overhead"),
                                    (1200, "0.2133", "1200.00", "input")):
    expect(["run", "bert_large_msl128", "--platform", "cs3", "--num-csx", "1", "--batch-size", "256",
            "--micro-batch-size", "256", "--input-rate", str(rate)], 0,
           out_has=[f"step {step} s, {rate_out} samples/s", f"bound: {bound}\n"])

# The ViT-B/16 preset's input (docs/model.md#input-pipeline): 178 samples/s a process x 2 x 2 =
# 712/s; its compute step, 0.35135 s, needs 2850 / 0.35135 = 8112/s, 8112 / (178 x 2) = 22.79, so
# num_workers 23. Off (0), the run says the input is not simulated and why; a processor csxsim
# has no rate for says so too; one misspelled gets a did-you-mean.
expect(["run", "vit_base_patch16"], 0,
       out_has=["= 712 samples/s (input_workers.imagenet1k_samples_per_s", "bound: input",
                "needs 8112 samples/s per CS-X: 23 dataloader processes a worker (num_workers) at this "
                "rate (now 2)"])
# The JSON names each pass's rate as simulated and where it comes from.
r = expect(["run", "vit_base_patch16", "--json", "-", "-q"], 0)
passes = json.loads(r.stdout)["inputs"]["passes"]
check(passes[0]["input_samples_per_s_per_process"] == 178 and passes[0]["input_rate_log_sd"] == 0.14
      and "input_workers.imagenet1k_samples_per_s" in passes[0]["input_rate_from"],
      f"inputs.passes: {passes}")
r = expect(["run", "vit_base_patch16", "--input-rate", "50", "--json", "-", "-q"], 0)
passes = json.loads(r.stdout)["inputs"]["passes"]
check(passes[0]["input_samples_per_s_per_process"] == 50 and passes[0]["input_rate_log_sd"] == 0
      and passes[0]["input_rate_from"] == "--input-rate", f"inputs.passes, a rate given: {passes}")
expect(["run", "vit_base_patch16", "--platform-override", "input_workers.imagenet1k_samples_per_s=0"],
       0, out_has=["input: not simulated (no rate for ImageNet1KProcessor: "
                   "input_workers.imagenet1k_samples_per_s, set by --platform-override is 0; "
                   "give --input-rate)"])
expect(["run", "dit_2b"], 0,
       out_has=["input: not simulated (no measured rate for data_processor "
                "DiffusionLatentImageNet1KProcessor; give --input-rate)"])
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "vit.yaml")
    with open(path, "w") as fh:
        fh.write(open("models/vit_base_patch16.yaml").read().replace("ImageNet1KProcessor", "ImageNet1kProcessor"))
    expect(["run", path], 0, err_has=["did you mean 'ImageNet1KProcessor'"])
    expect(["run", "vit_base_patch16", "--platform-override",
            "input_workers.imagenet1k_samples_per_s=1e-9"], 2, err_has=["0 (not simulated) or"])
# A rate under 0.005 samples/s keeps three significant digits in the table too (2850 samples at
# 0.001 x 2 x 2 = 0.004/s), not 0.00.
r = expect(["run", "vit_base_patch16", "--input-rate", "0.001"], 0)
check(re.search(r" 0\.004 .*<- chosen", r.stdout) is not None, "the table shows 0.004 samples/s")
# --quiet prints nothing on stdout but keeps the notes: num_csx defaulted to 1 (the models/
# file sets none) and the MBS moved from 40 to 32 (64 samples in 2 microbatches of 32).
r = expect(["run", "gpt3_xl", "--batch-size", "64", "--micro-batch-size", "40", "-q"], 0)
check(r.stdout == "" and "note: num_csx is not set in" in r.stderr and
      "moved to the nearest supported value 32" in r.stderr, f"run -q: {r.stdout!r} {r.stderr!r}")
finish()
