"""Shards never clobber each other and never mix: two sweeps writing one --csv at once (the
second exits 2 naming the file, as do run, plan, merge, validate and a link to the file), the grid column of a sweep's rows, and merge and
--resume refusing a shard of another grid by its file name."""
import csv
import os
import re
import subprocess
import tempfile
import time

from clitest import CSXSIM, check, expect, finish

SCEN = "scenarios/gpt3_xl_4x_cs2.yaml"
GRID_A = ["--num-csx", "1:4:x2", "--batch-size", "64,96"]
GRID_B = ["--num-csx", "1:4:x2", "--batch-size", "64,128"]  # same model and settings
SLOW = ["scenarios/gpt3_175b_16x_cs2_explore.yaml", "--num-csx", "1,2", "--batch-size", "64,128"]


def rows(path):
    return list(csv.DictReader(open(path)))


with tempfile.TemporaryDirectory() as d:
    # 1. Two sweeps, one --csv: the first holds the lock, the second is refused.
    out = os.path.join(d, "both.csv")
    first = subprocess.Popen([CSXSIM, "sweep", *SLOW, "--csv", out, "-q"],
                             stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 60
    # The lock file holds "csxsim pid N" once the lock is taken.
    while first.poll() is None and time.monotonic() < end and not (
            os.path.exists(out + ".lock") and os.path.getsize(out + ".lock") > 0):
        time.sleep(0.01)
    check(os.path.exists(out + ".lock"), "the first sweep holds a lock file next to its CSV")
    second = expect(["sweep", SCEN, *GRID_A, "--csv", out, "-q"], 2,
                    err_has=[f"--csv {out}: another process (csxsim pid {first.pid}) is writing this file"])
    # run and plan writing the same file are refused too (their CSV would be overwritten).
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--csv", out, "-q"], 2,
           err_has=[f"--csv {out}: another process (csxsim pid {first.pid}) is writing this file"])
    expect(["plan", "gpt3_xl", "--tokens", "300B", "--num-csx", "4", "--batch-size", "528", "--json", out], 2,
           err_has=[f"--json {out}: another process"])
    # So are merge -o, validate --csv and a symbolic link to the file (one lock per file).
    one = os.path.join(d, "one.csv")
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--csv", one, "-q"], 0)
    expect(["merge", one, "-o", out], 2, err_has=[f"-o {out}: another process (csxsim pid {first.pid})"])
    expect(["validate", "--measurements-only", "--only", "bert-512", "--csv", out], 2,
           err_has=[f"--csv {out}: another process (csxsim pid {first.pid})"])
    link = os.path.join(d, "link.csv")
    os.symlink("both.csv", link)
    expect(["run", "scenarios/gpt3_xl_1x_cs2.yaml", "--csv", link, "-q"], 2,
           err_has=[f"--csv {link}: another process (csxsim pid {first.pid})", f"(it holds {out}.lock)"])
    check(first.poll() is None, "the second sweep was refused while the first ran")
    first.communicate(timeout=300)
    check(first.returncode == 0, f"the first sweep finished: status {first.returncode}")
    check({r["model"] for r in rows(out)} == {"gpt3_175b"} and len({(r["num_csx"], r["batch_size"])
          for r in rows(out)}) == 4, "the CSV holds the first sweep's 4 points only")
    check(not os.path.exists(out + ".lock"), "the lock file is gone once the sweep ends")

    # 2. The grid column: one hash of the inputs in an unsharded sweep's rows; a shard's adds a
    # dot and a hash of the lists and shard count, and merge keeps the first, so the merged CSV
    # is the unsharded one.
    whole = os.path.join(d, "whole.csv")
    expect(["sweep", SCEN, *GRID_A, "--csv", whole, "-q"], 0)
    whole_grids = {r["grid"] for r in rows(whole)}
    check(len(whole_grids) == 1 and re.fullmatch("[0-9a-f]{8}", next(iter(whole_grids))),
          f"an unsharded sweep's rows carry one 8-digit grid: {whole_grids}")
    a = [os.path.join(d, f"a{i}.csv") for i in range(2)]
    b = [os.path.join(d, f"b{i}.csv") for i in range(2)]
    for i in range(2):
        expect(["sweep", SCEN, *GRID_A, "--shard", f"{i}/2", "--csv", a[i], "-q"], 0)
        expect(["sweep", SCEN, *GRID_B, "--shard", f"{i}/2", "--csv", b[i], "-q"], 0)
    grids_a = {r["grid"] for p in a for r in rows(p)}
    grids_b = {r["grid"] for p in b for r in rows(p)}
    check(len(grids_a) == 1 and re.fullmatch("[0-9a-f]{8}[.][0-9a-f]{8}", next(iter(grids_a))),
          f"both shards of one sweep carry one grid of two 8-digit hashes: {grids_a}")
    check(next(iter(grids_a)).split(".")[0] == next(iter(whole_grids)),
          "a shard's grid starts with the unsharded sweep's")
    check(grids_a != grids_b, "another batch-size list is another grid")
    # The same points (shard 0 of both grids is num_csx 1, 2, 4 at batch 64) and rows but
    # the grid column: before it, nothing told these shards apart.
    strip = lambda p: [{k: v for k, v in r.items() if k != "grid"} for r in rows(p)]
    check(strip(a[0]) == strip(b[0]), "shard 0 of both grids holds the same rows but the grid")
    merged = os.path.join(d, "merged.csv")
    expect(["merge", *a, "-o", merged], 0)
    check(open(merged).read() == open(whole).read(), "a grid's shards merge into the unsharded sweep")

    # 3. A shard of another grid: merge and --resume refuse it by its file name.
    expect(["merge", a[0], b[1], "-o", merged], 2,
           err_has=[f"{b[1]}: a shard of another sweep (grid {next(iter(grids_b))}; {a[0]} is of grid"])
    expect(["sweep", SCEN, *GRID_B, "--shard", "0/2", "--resume", "--csv", a[0], "-q"], 2,
           err_has=[f"{a[0]}: holds rows of grid {next(iter(grids_a))}, this sweep's is "
                    f"{next(iter(grids_b))}"])
    three = os.path.join(d, "three.csv")
    expect(["sweep", SCEN, *GRID_A, "--shard", "1/3", "--csv", three, "-q"], 0)
    expect(["merge", a[0], three, "-o", merged], 2, err_has=[f"{three}: a shard of another sweep"])
    check(open(merged).read() == open(whole).read(), "a refused merge leaves its output untouched")
    # Resuming a shard of its own grid keeps its points and the bytes.
    before = open(a[1]).read()
    expect(["sweep", SCEN, *GRID_A, "--shard", "1/2", "--resume", "--csv", a[1], "-q"], 0)
    check(open(a[1]).read() == before, "--resume of a finished shard of the same grid")
finish()
