"""Which micro_batch_size a pass runs with (docs/rules.md#microbatching-rules): --micro-batch-size,
else ScopedTrainFlags / ScopedValidateFlags, else GlobalFlags, else the dataloader's, else auto.
--json's inputs.passes name each pass's setting and inputs.micro_batch_size the first pass's:
an eval-only run's is the eval setting."""
import json
import os
import tempfile

from clitest import check, expect, finish


def scenario(scoped_train=None, scoped_eval=None, global_=None, loader_train=None,
             loader_eval=None):
    callbacks = []
    for name, value in [("ScopedTrainFlags", scoped_train), ("ScopedValidateFlags", scoped_eval),
                        ("GlobalFlags", global_)]:
        if value is not None:
            callbacks.append(f"    - {name}:\n        csx.performance.micro_batch_size: {value}\n")
    text = "trainer:\n  init:\n    model: gpt3_xl\n"
    if callbacks:
        text += "    callbacks:\n" + "".join(callbacks)
    text += "  fit:\n    train_dataloader:\n      batch_size: 64\n"
    if loader_train is not None:
        text += f"      micro_batch_size: {loader_train}\n"
    text += "    val_dataloader:\n      batch_size: 64\n"
    if loader_eval is not None:
        text += f"      micro_batch_size: {loader_eval}\n"
    return text


def inputs_of(d, text, *flags):
    path = os.path.join(d, "scenario.yaml")
    with open(path, "w") as f:
        f.write(text)
    js = os.path.join(d, "out.json")
    expect(["run", path, "--compile-only", "--json", js, "-q", *flags], 0)
    return json.load(open(js))["inputs"]


with tempfile.TemporaryDirectory() as d:
    every = dict(scoped_train=16, scoped_eval=8, global_=4, loader_train=2, loader_eval=1)
    cases = [
        # (file's sources, flags, expected train setting, expected eval setting)
        (every, [], "16", "8"),
        (every, ["--micro-batch-size", "32"], "32", "32"),
        (dict(every, scoped_train=None, scoped_eval=None), [], "4", "4"),
        (dict(loader_train=2, loader_eval=1), [], "2", "1"),
        ({}, [], "auto", "auto"),
    ]
    for sources, flags, want_train, want_eval in cases:
        inputs = inputs_of(d, scenario(**sources), "--mode", "train_and_eval", *flags)
        got = [p["micro_batch_size"] for p in inputs["passes"]]
        check(got == [want_train, want_eval] and inputs["micro_batch_size"] == want_train,
              f"{sources} {flags}: passes {got}, inputs {inputs['micro_batch_size']!r}; "
              f"expected {[want_train, want_eval]}")
    # An eval-only run's inputs.micro_batch_size is its only pass's.
    inputs = inputs_of(d, scenario(**every), "--mode", "eval")
    check(inputs["micro_batch_size"] == "8" and inputs["passes"][0]["micro_batch_size"] == "8",
          f"--mode eval: inputs {inputs['micro_batch_size']!r}, passes {inputs['passes']}")
finish()
