"""`--csv -` and `--json -` (docs/cli.md#options-of-run-and-sweep): the data on standard output is byte for byte the
file the same command writes, alone there (no table, summary or report); notices stay on
standard error; a failed standard output is exit 2."""
import os
import re
import subprocess
import tempfile

from clitest import CSXSIM, check, finish

SCENARIO = "tests/bad_inputs/files/good_scenario.yaml"


def raw(*args, stdout=subprocess.PIPE):
    return subprocess.run([CSXSIM, *args], stdout=stdout, stderr=subprocess.PIPE, timeout=600)


def same_bytes(label, args, flag, other=()):
    """Runs `args` with `flag FILE`, then with `flag -`; the two outputs must be equal."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out")
        to_file = raw(*args, flag, path, *other)
        check(to_file.returncode == 0, f"{label} {flag} FILE: status {to_file.returncode}: "
                                       f"{to_file.stderr.decode()}")
        to_stdout = raw(*args, flag, "-", *other)
        check(to_stdout.returncode == 0, f"{label} {flag} -: status {to_stdout.returncode}: "
                                         f"{to_stdout.stderr.decode()}")
        data = open(path, "rb").read() if os.path.exists(path) else b""
        check(len(data) > 100, f"{label}: {flag} wrote {len(data)} bytes")
        check(to_stdout.stdout == data,
              f"{label} {flag} -: standard output ({len(to_stdout.stdout)} bytes) is not the "
              f"file's {len(data)} bytes")
        check(not os.path.exists("-"), f"{label} {flag} -: a file named - was written")
        return to_file, to_stdout


# run: the CSV and the JSON; the table is not printed, the notices still are.
to_file, to_stdout = same_bytes("run", ["run", SCENARIO], "--csv")
check(len(to_file.stdout) > 0, "run --csv FILE prints its table")
# (A sanitizer's own "==PID==" warnings differ between runs: they are not csxsim's.)
own = lambda err: b"\n".join(l for l in err.split(b"\n") if not re.match(rb"==\d+==", l))
check(own(to_file.stderr) == own(to_stdout.stderr), "run --csv -: standard error as with a file")
same_bytes("run", ["run", SCENARIO], "--json")
# One to standard output, the other to a file: both hold what they would alone.
with tempfile.TemporaryDirectory() as d:
    json_path = os.path.join(d, "r.json")
    both = raw("run", SCENARIO, "--csv", "-", "--json", json_path)
    alone = raw("run", SCENARIO, "--json", "-")
    check(both.returncode == 0 and alone.returncode == 0, "run --csv - --json FILE runs")
    check(open(json_path, "rb").read() == alone.stdout, "run --json FILE beside --csv -")

# sweep: the CSV at the end, no summary; plan: no table, the answer on standard error.
sweep = ["sweep", SCENARIO, "--num-csx", "1,2", "--batch-size", "528", "--micro-batch-size", "66"]
to_file, to_stdout = same_bytes("sweep", sweep, "--csv")
check(b"sweep:" in to_file.stdout and b"sweep:" not in to_stdout.stdout,
      "sweep --csv -: the summary is not printed")
with tempfile.TemporaryDirectory() as d:
    same_bytes("sweep", sweep, "--json", ["--csv", os.path.join(d, "s.csv")])
plan = ["plan", "models/gpt3_xl.yaml", "--tokens", "1e9", "--num-csx", "1,2", "--batch-size", "528"]
to_file, to_stdout = same_bytes("plan", plan, "--csv")
check(b"answer:" in to_file.stdout, "plan --csv FILE prints the answer on standard output")
check(b"answer:" in to_stdout.stderr, "plan --csv -: the answer goes to standard error")
same_bytes("plan", plan, "--json")

# validate: the CSV alone on standard output, no report.
validate = ["validate", "--measurements-only", "--only", "bert-1024"]
to_file, to_stdout = same_bytes("validate", validate, "--csv")
check(b"bert-1024" in to_file.stdout, "validate --csv FILE prints its report")

# merge -o -: the merged CSV.
with tempfile.TemporaryDirectory() as d:
    part = os.path.join(d, "part.csv")
    check(raw(*sweep, "--csv", part).returncode == 0, "sweep for merge")
    same_bytes("merge", ["merge", part], "-o")

# A full standard output: exit 2, said on standard error.
with open("/dev/full", "wb") as full:
    r = raw("run", SCENARIO, "--csv", "-", stdout=full)
check(r.returncode == 2 and b"cannot write to standard output" in r.stderr,
      f"run --csv - > /dev/full: status {r.returncode}: {r.stderr.decode()}")
finish()
