"""The Python module from several threads (docs/python.md#python): calls run one at a time under
the module's lock, so four csxsim.run calls from two threads each give the full table the same
call gives alone, nothing reaches the process's real standard output, and file descriptor 1 is
left as it was (the module captures no descriptor)."""
import json
import os
import subprocess
import sys

from clitest import CSXSIM, check, finish

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PYTHONPATH = os.path.join(os.path.dirname(os.path.abspath(CSXSIM)), "python")

SCRIPT = r"""
import json, os, sys, threading
sys.path.insert(0, sys.argv[1])
import csxsim
SCENARIOS = ["scenarios/gpt3_xl_4x_cs2.yaml", "scenarios/gpt3_xl_1x_cs2.yaml"]
before = os.fstat(1)
alone = {s: csxsim.run(s).text for s in SCENARIOS}
texts = {}
errors = []
def worker(t):
    try:
        for i in range(2):
            s = SCENARIOS[(t + i) % 2]
            texts[(t, i)] = (s, csxsim.run(s).text)
    except Exception as e:  # reported below
        errors.append(repr(e))
threads = [threading.Thread(target=worker, args=(t,)) for t in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
after = os.fstat(1)
sys.stderr.write(json.dumps({
    "lengths": [len(texts[k][1]) for k in sorted(texts)],
    "alone": {s: len(v) for s, v in alone.items()},
    "same": [texts[k][1] == alone[texts[k][0]] for k in sorted(texts)],
    "errors": errors,
    "fd1_kept": (before.st_dev, before.st_ino) == (after.st_dev, after.st_ino),
}) + "\n")
"""

r = subprocess.run([sys.executable, "-c", SCRIPT, PYTHONPATH], cwd=ROOT, capture_output=True,
                   text=True, timeout=900)
check(r.returncode == 0, f"the threaded session failed: {r.returncode}\n{r.stderr[-2000:]}")
report = json.loads(r.stderr.strip().splitlines()[-1])
check(report["errors"] == [], f"errors in the threads: {report['errors']}")
check(len(report["lengths"]) == 4, f"4 calls, {len(report['lengths'])} results")
check(all(report["same"]), f"each text equals the call's alone: lengths {report['lengths']}, "
      f"alone {report['alone']}")
check(all(n > 0 for n in report["alone"].values()), f"the tables are not empty: {report['alone']}")
check(r.stdout == "", f"nothing on the real standard output, got {r.stdout[:300]!r}")
check(report["fd1_kept"], "file descriptor 1 is the one it was before the calls")
finish()
