"""The bad-input corpus (tests/bad_inputs/cases.json): every case exits with its status, prints
one line on stderr with the expected fragment, never crashes, and leaves existing outputs alone."""
import json
import os
import tempfile

from clitest import check, finish, run

corpus = json.load(open("tests/bad_inputs/cases.json"))["cases"]
check(len(corpus) >= 40, f"{len(corpus)} cases")
SENTINEL = "existing output, must survive\n"
with tempfile.TemporaryDirectory() as d:
    for case in corpus:
        out = os.path.join(d, case["name"] + ".out")
        with open(out, "w") as fh:
            fh.write(SENTINEL)
        args = [a.replace("{out}", out) for a in case["args"]]
        r = run(*args, timeout=300)
        label = f"{case['name']} ({case['why']})"
        check(r.returncode == case["status"], f"{label}: status {r.returncode}, expected {case['status']}: {r.stderr}")
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        errors = [l for l in lines if l.startswith("csxsim: error: ")]
        if case["status"] == 0:  # a Model Zoo key the Model Zoo does not define: a warning only
            check(not errors and any(l.startswith("warning: ") for l in lines),
                  f"{label}: expected a warning and no error, got {r.stderr!r}")
        else:
            check(len(errors) == 1, f"{label}: expected one error line, got {r.stderr!r}")
        check(case["message"] in r.stderr, f"{label}: stderr lacks {case['message']!r}: {r.stderr!r}")
        for bad in ("Traceback", "terminate called", "Segmentation", "AddressSanitizer", ": runtime error:"):
            check(bad not in r.stderr, f"{label}: {bad} on stderr")
        check(r.returncode >= 0, f"{label}: killed by signal {-r.returncode}")
        if "{out}" in case["args"] and case["status"] != 1:
            check(open(out).read() == SENTINEL, f"{label}: existing output was modified")
finish()
