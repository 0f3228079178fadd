"""`csxsim calibrate` (and tools/calibrate, which runs it): the platform files are the fit of the
shipped data (--check, as CI runs it), and its options are strict: each malformed or conflicting
option exits 2 with a message naming it, before any simulation."""
import os
import subprocess
import tempfile

from clitest import CSXSIM, SANITIZED, check, expect, finish

BERT = """- name: {name}
  model: models/bert_large_msl128.yaml
  platform: cs2
  num_csx: 1
  batch_size: {batch}
  seq_len: 128
  micro_batch_size: auto
  samples_per_s: {rate}
  release: R2.x
  source: "test"
"""

# Option errors: exit 2, nothing simulated.
expect(["calibrate", "--write", "--check"], 2, err_has=["--write and --check exclude each other"])
expect(["calibrate", "--group", "model"], 2, err_has=["--group is an option of --cross-validate"])
expect(["calibrate", "--cross-validate", "--group", "famliy"], 2, err_has=["did you mean 'family'"])
expect(["calibrate", "--reference", "no/such.yaml"], 2, err_has=["--reference no/such.yaml: no such file"])
expect(["calibrate", "--free", "softmax_cycles_per_score:0:64", "--check"], 2,
       err_has=["--free explores"])
for bad in ("softmax_cycles_per_score:64:0", "softmax_cycles_per_score:0", "no_such_key:0:1",
            "softmax_cycles_per_score:x:1", "compute_efficiency:0.2:0.8"):
    expect(["calibrate", "--free", bad], 2, err_has=[f"--free {bad}: expected KEY:LOW:HIGH"])
expect(["calibrate", "--chek"], 2, err_has=["unrecognised option '--chek'", "--check"])
expect(["calibrate", "--help"], 0, out_has=["--cross-validate", "--write", "--check", "--free"])

with tempfile.TemporaryDirectory() as d:
    # One current-release run: nothing to cross-validate against.
    one = os.path.join(d, "one.yaml")
    open(one, "w").write("measurements:\n" + BERT.format(name="b1", batch=1024, rate=4040))
    expect(["calibrate", "--reference", one], 2, err_has=["1 current-release measurement(s)"])
    # Two runs of one model: leaving the model (or its family) out leaves nothing to fit, which is
    # known before the full fit, so the refusal comes in seconds (the fit takes a minute).
    two = os.path.join(d, "two.yaml")
    open(two, "w").write("measurements:\n" + BERT.format(name="b1", batch=1024, rate=4040)
                         + BERT.format(name="b2", batch=512, rate=2940))
    for group in ["model", "family"]:
        expect(["calibrate", "--reference", two, "--cross-validate", "--group", group], 2,
               err_has=[f"every run is of one {group}; leaving it out leaves nothing to fit"],
               timeout=30)
    # validate --cross-validate is the same fit; --write cross-validates by model (and refuses
    # before it writes anything, even after a fit).
    for args in [["validate", "--cross-validate"], ["calibrate", "--write"]]:
        expect(args + ["--reference", two], 2,
               err_has=["every run is of one model; leaving it out leaves nothing to fit"], timeout=30)

# The shipped platform files hold the fit of the shipped data, through the wrapper: CI's check of
# the calibration (.ci/run has no step of its own for it). The sanitizer pass skips it (the fit
# simulates the reference set 73 times); the plain build's suite runs it.
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if SANITIZED:
    print("note: tools/calibrate --check skipped in the sanitizer build")
else:
    r = subprocess.run([os.path.join(root, "tools", "calibrate"), "--check", "--csxsim",
                        os.path.abspath(CSXSIM)], capture_output=True, text=True, timeout=900)
    check(r.returncode == 0,
          f"tools/calibrate --check: status {r.returncode}\n{r.stdout}\n{r.stderr}")
    check("calibrate: platforms/*.yaml match a fresh fit of the data" in r.stdout,
          f"tools/calibrate --check: {r.stdout}")
r = subprocess.run([os.path.join(root, "tools", "calibrate"), "--csxsim", "no/such/csxsim"],
                   capture_output=True, text=True)
check(r.returncode == 2 and "not an executable csxsim" in r.stderr,
      f"tools/calibrate --csxsim no/such/csxsim: {r.returncode} {r.stderr}")
finish()
