"""`csxsim describe` on every shipped model and every shared Model Zoo file; bad model files."""
import glob
import json
import os
import tempfile

from clitest import check, expect, finish

files = sorted(glob.glob("models/*.yaml")) + sorted(glob.glob("../shared/modelzoo/*/*.yaml"))
check(len(files) >= 30, f"found {len(files)} model files")
for f in files:
    r = expect(["describe", f, "--json"], 0)
    j = json.loads(r.stdout)
    for key in ["parameters", "train_flops_per_sample", "forward_flops_per_sample",
                "weight_bytes_per_pass", "activation_bytes_per_sample",
                "max_fitting_micro_batch_size", "layers"]:
        check(key in j, f"{f}: key {key}")
    check(j["parameters"] > 0 and len(j["layers"]) >= 3, f"{f}: costs")
    expect(["describe", f, "--platform", "cs3"], 0, out_has=["parameters", "largest micro_batch_size"])

# A models/ stem works as a name.
expect(["describe", "gpt3_xl"], 0, out_has=["block.23"])
expect(["describe", "gpt3_xl", "--seq-len", 1024, "--json"], 0, out_has=['"seq_len": 1024'])

GOOD = """model:
  name: gpt3
  vocab_size: 50257
  hidden_size: 2048
  num_hidden_layers: 24
  num_heads: 16
  filter_size: 8192
  max_position_embeddings: 2048
"""
cases = [
    (GOOD.replace("  hidden_size: 2048\n", ""), ["hidden_size", "required key is missing"]),
    (GOOD.replace("num_hidden_layers: 24", "num_hidden_layers: 0"), ["num_hidden_layers", "= 0", "at least 1"]),
    (GOOD.replace("hidden_size: 2048", "hidden_size: -2048"), ["hidden_size", "-2048"]),
    (GOOD.replace("num_heads: 16", "num_heads: 15"), ["num_heads", "15", "divide hidden_size"]),
    (GOOD.replace("name: gpt3", "name: gtp3"), ["unknown model family", "did you mean 'gpt3'", "known families"]),
    (GOOD.replace("hidden_size", "hiden_size"), ["hiden_size", "did you mean 'hidden_size'"]),
    (GOOD.replace("filter_size: 8192", "filter_size: 8192.5"), ["filter_size", "whole number"]),
    (GOOD.replace("vocab_size: 50257", "vocab_size: [1, 2]"), ["vocab_size", "a list"]),
    (GOOD.replace("hidden_size: 2048", "hidden_size: 18446744073709551616"), ["hidden_size", "64-bit"]),
    ("model:\n  name: gpt3\n\tvocab_size: 3\n", ["YAML syntax error"]),
    ("", ["empty"]),
    ("other: 1\n", ["no model found"]),
]
with tempfile.TemporaryDirectory() as d:
    for i, (text, frags) in enumerate(cases):
        path = os.path.join(d, f"bad{i}.yaml")
        with open(path, "w") as fh:
            fh.write(text)
        r = expect(["describe", path], 2, err_has=frags)
        check(path in r.stderr, f"message names the file: {r.stderr}")
    expect(["describe", d], 2, err_has=["is a directory"])
expect(["describe", "no/such/file.yaml"], 2, err_has=["no such file"])
expect(["describe", "gpt3_xl", "--platform", "cs4"], 2, err_has=["unknown platform 'cs4'", "did you mean"])
# The names the Model Zoo still accepts for a family (Release 2.10.0): model_name, the spelling
# of name before Release 2.4 (a name that disagrees is refused, as the Model Zoo refuses it);
# LlamaModel for llama; moe_params, the field of the moe alias. Each is the same model as the
# file's own spelling: the same parameter count.
with tempfile.TemporaryDirectory() as d:
    def params_of(text):
        path = os.path.join(d, "m.yaml")
        with open(path, "w") as fh:
            fh.write(text)
        r = expect(["describe", path, "--json"], 0)
        check("warning" not in r.stderr, f"no warning: {r.stderr}")
        return json.loads(r.stdout)["parameters"], r.stderr
    llama = open("models/llama2_7b.yaml").read()
    check("  name: llama\n" in llama, "models/llama2_7b.yaml names llama")
    base, _ = params_of(llama)
    check(params_of(llama.replace("  name: llama\n", "  model_name: llama\n"))[0] == base, "model_name")
    check(params_of(llama.replace("  name: llama\n", "  name: LlamaModel\n"))[0] == base, "LlamaModel")
    path = os.path.join(d, "both.yaml")
    with open(path, "w") as fh:
        fh.write(llama.replace("  name: llama\n", "  name: llama\n  model_name: gpt3\n"))
    expect(["describe", path], 2, err_has=["conflicting model names"])
    mixtral = open("models/mixtral_8x7b.yaml").read()
    check("  moe:\n" in mixtral, "models/mixtral_8x7b.yaml has a moe block")
    check(params_of(mixtral.replace("  moe:\n", "  moe_params:\n"))[0] == params_of(mixtral)[0], "moe_params")
finish()
