"""tools/slurm-sweep without a cluster: its usage errors, the sbatch command lines it builds
(array 0-(N-1), a merge after it with afterok, partition, time and account passed to both),
its job scripts run here by hand into the unsharded sweep's bytes, and --resume submitting
only the shard not marked done. Stand-ins for sbatch, squeue and scontrol record their
arguments (tests/cluster runs the real ones)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from clitest import CSXSIM, check, finish

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "slurm-sweep")
SCEN = "scenarios/gpt3_xl_4x_cs2.yaml"
GRID = ["--num-csx", "1:4:x2", "--batch-size", "64,96"]

FAKE = """#!/bin/sh
# Records its command line; sbatch answers a job id, the others nothing.
echo "$(basename "$0") $*" >> "$FAKE_LOG"
case "$(basename "$0")" in
  sbatch) n=$(wc -l < "$FAKE_LOG")
    if [ -n "${FAKE_REFUSE_AT:-}" ] && [ "$n" -ge "$FAKE_REFUSE_AT" ]; then
      echo "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2
      exit 1
    fi
    echo $((n + 100)) ;;
  squeue) [ -z "${FAKE_QUEUE:-}" ] || echo "$FAKE_QUEUE" ;;
esac
"""


def tool(*args, env):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


with tempfile.TemporaryDirectory() as d:
    bindir = os.path.join(d, "bin")
    os.makedirs(bindir)
    for name in ("sbatch", "squeue", "scontrol"):
        with open(os.path.join(bindir, name), "w") as f:
            f.write(FAKE)
        os.chmod(os.path.join(bindir, name), 0o755)
    log = os.path.join(d, "calls.log")
    env = dict(os.environ, PATH=f"{bindir}:/usr/bin:/bin", FAKE_LOG=log)
    out = os.path.join(d, "sweep.csv")
    opts = [SCEN, *GRID, "--shards", "4", "--csxsim", CSXSIM]

    # Usage errors: exit 2, one line naming the problem.
    for args, msg in ((opts[:-4] + ["--csv", out], "--shards N"),
                      ([*opts, "--shard", "0/2", "--csv", out], "--shard: slurm-sweep sets it"),
                      ([*opts, "--json", "x.json", "--csv", out], "--json: the merge writes"),
                      ([*opts, "--csv", out, "--timeout", "5"], "--timeout S needs --wait"),
                      (["--resume", os.path.join(d, "none.csv")], "not a tools/slurm-sweep sweep")):
        r = tool(*args, env=env)
        check(r.returncode == 2 and msg in r.stderr, f"slurm-sweep {args[-2:]}: {r.returncode} "
              f"{r.stderr!r}, expected 2 and {msg!r}")
    r = tool(*opts, "--csv", out, env=dict(env, PATH=bindir[:-3] + "nothing"))
    check(r.returncode == 2 and "sbatch: not found" in r.stderr, f"no sbatch: {r.stderr!r}")
    check(not os.path.exists(out + ".parts"), "a refused submission leaves no OUT.parts/")

    # What csxsim refuses is refused before anything is written or submitted: exit 2, one line
    # naming the problem, no sbatch call, no OUT.parts/ (GRID has 3 x 2 = 6 points).
    open(log, "w").close()
    for args, msg in (
            (["/nonexistent.yaml", *GRID, "--shards", "2"], "/nonexistent.yaml"),
            ([SCEN, "--num-csx", "1", "--batch-sise", "64", "--shards", "2"], "--batch-sise"),
            ([SCEN, "--num-csx", "4", "--batch-size", "2,64", "--shards", "2"],
             "shard 0/2: every grid point was refused")):
        r = tool(*args, "--csv", out, "--csxsim", CSXSIM, env=env)
        lines = r.stderr.splitlines()
        check(r.returncode == 2 and len(lines) == 1 and msg in lines[0] and
              lines[0].startswith("slurm-sweep: error: csxsim refuses the sweep: "),
              f"slurm-sweep {args[0]} ... {args[-3:]}: {r.returncode} {r.stderr!r}, "
              f"expected 2 and one line with {msg!r}")
        check(not os.path.exists(out + ".parts"), f"{msg}: no OUT.parts/ left")
    missing = os.path.join(d, "nonexistentdir")
    r = tool(*opts, "--csv", os.path.join(missing, "ss.csv"), env=env)
    check(r.returncode == 2 and r.stderr == f"slurm-sweep: error: --csv {missing}/ss.csv: "
          f"folder {missing} does not exist (create it first)\n",
          f"a missing output folder: {r.returncode} {r.stderr!r}")
    check(not os.path.exists(missing), "the missing output folder is not created")
    check(open(log).read() == "", "no job submitted for a refused sweep")

    # sbatch refusing the array: the OUT.parts/ this run made is removed; refusing only the
    # merge: it stays, the array task needs it and --resume submits the merge.
    r = tool(*opts, "--csv", out, env=dict(env, FAKE_REFUSE_AT="1"))
    check(r.returncode == 2 and "Invalid partition" in r.stderr and
          not os.path.exists(out + ".parts"), f"sbatch refusing the array: {r.stderr!r}")
    open(log, "w").close()
    r = tool(*opts, "--csv", out, env=dict(env, FAKE_REFUSE_AT="2"))
    check(r.returncode == 2 and "kept: job 101 is queued" in r.stdout and
          json.load(open(os.path.join(out + ".parts", "sweep.json")))["jobs"] == ["101"],
          f"sbatch refusing the merge keeps OUT.parts/: {r.stdout!r} {r.stderr!r}")
    shutil.rmtree(out + ".parts")

    # A submission: the two sbatch lines.
    open(log, "w").close()
    r = tool(*opts, "--csv", out, "--partition", "debug", "--time", "10:00", "--account", "perf",
             env=env)
    check(r.returncode == 0, f"submission: {r.returncode} {r.stderr}")
    calls = open(log).read().splitlines()
    check(len(calls) == 2, f"two sbatch calls: {calls}")
    array, merge = calls
    check("--array=0-3" in array and array.endswith("shard.sh"), f"the array: {array}")
    check("--dependency=afterok:101" in merge and merge.endswith("merge.sh"), f"the merge: {merge}")
    for c in calls:
        check(all(o in c for o in ("--partition=debug", "--time=10:00", "--account=perf")),
              f"Slurm options on both: {c}")
    check("array job 101" in r.stdout and "merge job 102" in r.stdout and out in r.stdout,
          f"prints both job ids and the result: {r.stdout}")
    check("6 grid points (0 refused by a rule) in 4 shards; shard 0/4 runs 2" in r.stdout,
          f"prints csxsim's check of the grid (shard 0 holds indices 0 and 4): {r.stdout}")
    r = tool(*opts, "--csv", out, env=env)
    check(r.returncode == 2 and "--resume" in r.stderr, "a second start on one OUT is refused")

    # The job scripts, run here as the tasks and the merge would run them.
    parts = out + ".parts"
    for i in range(4):
        s = subprocess.run([os.path.join(parts, "shard.sh")], env=dict(env, SLURM_ARRAY_TASK_ID=str(i)),
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        check(s.returncode == 0 and os.path.isfile(os.path.join(parts, f"shard-{i}.done")),
              f"shard {i} runs and marks itself done: {s.returncode} {s.stderr}")
    s = subprocess.run([os.path.join(parts, "merge.sh")], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    whole = os.path.join(d, "whole.csv")
    subprocess.run([CSXSIM, "sweep", SCEN, *GRID, "--csv", whole, "-q"], cwd=ROOT, check=True,
                   timeout=300)
    check(s.returncode == 0 and open(out).read() == open(whole).read(),
          f"the merged shards are the unsharded sweep: {s.stderr}")

    # --resume: shard 2 lost its mark (a cancelled task); only it is submitted again.
    os.remove(os.path.join(parts, "shard-2.done"))
    r = tool("--resume", out, env=dict(env, FAKE_QUEUE="101 101_2 RUNNING"))
    check(r.returncode == 2 and "still queued or running: 101_2 (RUNNING)" in r.stderr,
          f"--resume waits for the sweep's running jobs: {r.stderr!r}")
    open(log, "w").close()
    r = tool("--resume", out, env=env)
    calls = open(log).read().splitlines()
    check(r.returncode == 0 and "3 of 4 shards done; submitting again: 2" in r.stdout,
          f"--resume: {r.returncode} {r.stdout} {r.stderr}")
    sb = [c for c in calls if c.startswith("sbatch")]
    check(len(sb) == 2 and "--array=2 " in sb[0] and "--partition=debug" in sb[0],
          f"--resume submits shard 2 with the first submission's options: {sb}")
    ids = re.findall(r"^slurm-sweep: (?:array|merge) job (\d+)", r.stdout, re.M)
    check(len(ids) == 2 and json.load(open(os.path.join(parts, "sweep.json")))["jobs"] ==
          ["101", "102", *ids], f"the manifest records every job: {ids}")

    # --resume after an input edit: the shard's CSV is of another grid; refused here, exit 2,
    # nothing submitted, OUT.parts/ kept.
    scen = os.path.join(d, "xl.yaml")
    with open(os.path.join(ROOT, SCEN)) as f:
        text = f.read().replace("../models/", os.path.join(ROOT, "models") + "/")
    with open(scen, "w") as f:
        f.write(text)
    edited = os.path.join(d, "edited.csv")
    r = tool(scen, "--num-csx", "1", "--batch-size", "64", "--shards", "2", "--csxsim", CSXSIM,
             "--csv", edited, env=env)
    check(r.returncode == 0, f"a second sweep: {r.returncode} {r.stderr}")
    s = subprocess.run([os.path.join(edited + ".parts", "shard.sh")],
                       env=dict(env, SLURM_ARRAY_TASK_ID="0"), cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    check(s.returncode == 0, f"its shard 0 runs: {s.stderr}")
    with open(scen, "a") as f:
        f.write("# edited after the sweep started\n")
    open(log, "w").close()
    r = tool("--resume", edited, env=env)
    check(r.returncode == 2 and "shard 0 cannot be resumed: " in r.stderr and
          f"remove {edited}.parts and submit the sweep again" in r.stderr and
          len(r.stderr.splitlines()) == 1,
          f"--resume after an input edit is refused: {r.returncode} {r.stderr!r}")
    check(not any(c.startswith("sbatch") for c in open(log).read().splitlines()),
          "nothing submitted for a sweep whose inputs changed")
finish()
