"""A sweep stopped by SIGTERM or SIGINT keeps its finished rows and exits 143 or 130; --resume
finishes it without recomputing them, byte-identical to an uninterrupted sweep. A run stopped
by SIGTERM, SIGHUP or SIGINT leaves no output and no lock file. Output is the
same run after run and for --jobs 1 and 2."""
import csv
import os
import signal
import subprocess
import tempfile
import time

from clitest import CSXSIM, SANITIZED, check, expect, finish

SCEN = "scenarios/gpt3_xl_4x_cs2.yaml"
# The sanitizer pass (tests/CMakeLists.txt) sweeps 15 of the 48 points: the six sweeps take four
# minutes under AddressSanitizer.
if SANITIZED:
    NUM_CSX, BATCHES = "1:16:x2", "264,528,1056"
else:
    NUM_CSX, BATCHES = "1:128:x2", "264,528,1056,2112,4224,8448"
GRID = ["--num-csx", NUM_CSX, "--batch-size", BATCHES, "--micro-batch-size", "explore", "--compile-only",
        "--steps", "100"]


def points(path):
    if not os.path.exists(path):
        return set()
    with open(path, newline="") as f:
        return {(r["platform"], r["num_csx"], r["batch_size"]) for r in csv.DictReader(f)}


with tempfile.TemporaryDirectory() as d:
    whole = os.path.join(d, "whole.csv")
    expect(["sweep", SCEN, *GRID, "--csv", whole, "--jobs", "2"], 0)
    reference = open(whole).read()
    total = len(points(whole))
    for sig, status in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
        part = os.path.join(d, f"part-{sig}.csv")
        proc = subprocess.Popen([CSXSIM, "sweep", SCEN, *GRID, "--csv", part, "--jobs", "1", "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Wait until some points are done, then stop it.
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None and len(points(part)) < 2:
            time.sleep(0.05)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        check(proc.returncode == status, f"signal {sig}: exit {proc.returncode}, expected {status}: {err}")
        kept = points(part)
        check(0 < len(kept) < total, f"signal {sig}: {len(kept)} of {total} points kept")
        check("--resume" in err, f"signal {sig}: the message says how to resume: {err}")
        # Every kept row is a row of the uninterrupted sweep.
        ref_lines = set(reference.splitlines())
        check(all(l in ref_lines for l in open(part).read().splitlines()), "kept rows are final rows")
        r = expect(["sweep", SCEN, *GRID, "--csv", part, "--resume", "--jobs", "2"], 0,
                   err_has=[f"resume: {len(kept)} finished points kept"])
        check(open(part).read() == reference, f"signal {sig}: resumed CSV equals the uninterrupted one")

    # A run stopped by a signal leaves nothing: no output, and no OUT.lock of its outputs. It is
    # signalled once it holds all three locks, well before its simulation ends (about 4 s).
    def holds(lock):
        try:
            return open(lock).read().startswith("csxsim pid ")
        except OSError:
            return False
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        outs = [os.path.join(d, f"stopped-{sig}.{ext}") for ext in ("csv", "json", "trace.json")]
        proc = subprocess.Popen([CSXSIM, "run", "scenarios/gpt3_175b_16x_cs2_explore.yaml", "--csv", outs[0],
                                 "--json", outs[1], "--trace", outs[2], "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None and not all(holds(o + ".lock") for o in outs):
            time.sleep(0.01)
        time.sleep(0.2)
        running = proc.poll() is None
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        check(running, f"signal {sig}: the run ended before it was signalled: {proc.returncode} {err}")
        check(proc.returncode == -sig, f"run stopped by signal {sig}: exit {proc.returncode}")
        left = [p for o in outs for p in (o, o + ".lock") if os.path.exists(p)]
        check(not left, f"run stopped by signal {sig} left {left}")

    # Determinism: stdout and CSV are the same bytes run after run and for any --jobs.
    a = expect(["run", SCEN, "--micro-batch-size", "explore", "--compile-only", "--csv", os.path.join(d, "a.csv")], 0)
    b = expect(["run", SCEN, "--micro-batch-size", "explore", "--compile-only", "--csv", os.path.join(d, "b.csv")], 0)
    check(a.stdout == b.stdout, "run stdout is byte-identical run after run")
    check(open(os.path.join(d, "a.csv")).read() == open(os.path.join(d, "b.csv")).read(), "run CSV identical")
    one = os.path.join(d, "one.csv")
    expect(["sweep", SCEN, *GRID, "--csv", one, "--jobs", "1"], 0)
    check(open(one).read() == reference, "sweep CSV identical for --jobs 1 and 2")
    # Numbers do not follow the locale.
    env = dict(os.environ, LC_ALL="de_DE.UTF-8", LC_NUMERIC="de_DE.UTF-8")
    c = expect(["run", SCEN, "--micro-batch-size", "explore", "--compile-only", "--csv", os.path.join(d, "c.csv")], 0, env=env)
    check(open(os.path.join(d, "c.csv")).read() == open(os.path.join(d, "a.csv")).read(), "CSV independent of the locale")
finish()
