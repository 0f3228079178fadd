"""Golden outputs: the CSV of every shipped scenario, compared byte for byte with
tests/golden/<scenario>.csv. A uniform drift of any number fails here.

After an intended change of the model, regenerate them (and say why in the commit):
    python3 tests/cli/test_golden.py build/csxsim --update
"""
import difflib
import os
import sys
import tempfile

from clitest import check, finish, run

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
GOLDEN = os.path.join(ROOT, "tests", "golden")
update = "--update" in sys.argv
scenarios = sorted(f for f in os.listdir(os.path.join(ROOT, "scenarios")) if f.endswith(".yaml"))
check(len(scenarios) >= 6, f"{len(scenarios)} shipped scenarios")
with tempfile.TemporaryDirectory() as d:
    for name in scenarios:
        out = os.path.join(d, name.replace(".yaml", ".csv"))
        r = run("run", os.path.join("scenarios", name), "--csv", out, "--quiet")
        check(r.returncode == 0, f"{name}: exit {r.returncode}: {r.stderr}")
        if r.returncode != 0:
            continue
        got = open(out).read()
        golden = os.path.join(GOLDEN, os.path.basename(out))
        if update:
            open(golden, "w").write(got)
            print(f"updated {os.path.relpath(golden, ROOT)}")
            continue
        want = open(golden).read() if os.path.exists(golden) else ""
        if got != want:
            diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                     "golden", "now"))[:12])
            check(False, f"{name}: CSV differs from {os.path.relpath(golden, ROOT)}:\n{diff}")
finish()
