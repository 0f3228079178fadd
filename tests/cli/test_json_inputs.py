"""--json's inputs.micro_batch_size is the setting of the first pass the mode runs: with
ScopedTrainFlags 16 and ScopedValidateFlags 8 in the file, an eval-only run's is 8 (its only
pass's, as inputs.passes says), a train_and_eval run's 16 (the training pass's)."""
import json
import os
import tempfile

from clitest import check, expect, finish

SCENARIO = """trainer:
  init:
    model: gpt3_xl
    callbacks:
    - ScopedTrainFlags:
        csx.performance.micro_batch_size: 16
    - ScopedValidateFlags:
        csx.performance.micro_batch_size: 8
  fit:
    train_dataloader:
      batch_size: 64
    val_dataloader:
      batch_size: 64
"""

with tempfile.TemporaryDirectory() as d:
    scenario = os.path.join(d, "scoped.yaml")
    with open(scenario, "w") as f:
        f.write(SCENARIO)
    for mode, want in [("eval", "8"), ("train_and_eval", "16")]:
        js = os.path.join(d, f"{mode}.json")
        expect(["run", scenario, "--mode", mode, "--compile-only", "--json", js, "-q"], 0)
        inputs = json.load(open(js))["inputs"]
        check(inputs["micro_batch_size"] == want,
              f"--mode {mode}: inputs.micro_batch_size {inputs['micro_batch_size']!r}, "
              f"expected {want!r}")
        check(inputs["passes"][0]["micro_batch_size"] == want,
              f"--mode {mode}: first pass {inputs['passes'][0]}")
finish()
