"""The Python module against the CLI: the same run gives the same CSV bytes and records; an error
raises csxsim.InputError with the CLI's message; --json of run, sweep and validate holds the
CSV's rows; docs/python.md#python's session runs."""
import contextlib
import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile

from clitest import CSXSIM, check, finish, run

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(CSXSIM)), "python"))
import csxsim  # noqa: E402  (build/python, next to the csxsim binary)

SCENARIO = "scenarios/gpt3_xl_4x_cs2.yaml"
# Typed independently of the program: the CSV columns of docs/cli.md#csv by kind.
INTEGERS = {"num_csx", "batch_size", "per_system_batch_size", "seq_len", "tokens_per_step",
            "micro_batch_size", "num_microbatches", "steps"}
TEXT = {"model", "platform", "overrides", "mode", "requested_micro_batch_size", "reason", "bound",
        "activation_plan", "name", "group", "family", "release", "shard", "grid"}


def written(csv_path, json_path):
    """The CSV text and the parsed JSON a command wrote."""
    with open(csv_path, newline="") as f:
        text = f.read()
    with open(json_path) as f:
        return text, json.load(f)


def typed(column, field):
    if field == "":
        return None
    if column in ("fits", "chosen"):
        return {"true": True, "false": False}[field]
    if column in TEXT:
        return field
    return int(field) if column in INTEGERS else float(field)


def csv_records(text):
    return [{c: typed(c, v) for c, v in row.items()}
            for row in csv.DictReader(io.StringIO(text, newline=""))]


def same_records(label, records, text):
    expected = csv_records(text)
    check(len(records) == len(expected) > 0,
          f"{label}: {len(records)} records, CSV has {len(expected)}")
    for i, (got, want) in enumerate(zip(records, expected)):
        check(list(got) == list(want), f"{label}: record {i} columns {list(got)}")
        for c in want:
            check(got[c] == want[c] and type(got[c]) is type(want[c]),
                  f"{label}: record {i} {c} = {got[c]!r}, CSV {want[c]!r}")


os.chdir(ROOT)
tmp = tempfile.mkdtemp(prefix="csxsim-py-")

# --- run: module vs CLI, same inputs ---------------------------------------------------------
cli_csv, cli_json = os.path.join(tmp, "run.csv"), os.path.join(tmp, "run.json")
r_cli = run("run", SCENARIO, "--platform-override", "calibration.step_overhead_s=0.2",
            "--csv", cli_csv, "--json", cli_json, "-q")
check(r_cli.returncode == 0, f"csxsim run: status {r_cli.returncode}\n{r_cli.stderr}")
r = csxsim.run(SCENARIO, platform_override={"calibration.step_overhead_s": 0.2})
with open(cli_csv, newline="") as f:
    cli_text = f.read()
check(r.csv == cli_text, "module's CSV text differs from the CLI's --csv file")
same_records("module run", r.records, cli_text)
check(r.columns == next(csv.reader(io.StringIO(cli_text))), "module columns = CSV header")
check(r.status == 0 and "csxsim run: gpt3_xl" in r.text, "run's table captured in .text")
# Hand-worked from the scenario: 528 samples over 4 CS-2 -> 132 per system; auto evaluates
# P = 132 and at most 7 proper divisors > 1 of 132 (2, 3, 4, 6, 11, 12, 22, 33, 44, 66: the
# largest 7), so 8 candidates; exactly one is chosen.
check(len(r.records) == 8, f"8 candidates of auto for P = 132, got {len(r.records)}")
check(all(x["per_system_batch_size"] == 132 and x["num_csx"] == 4 for x in r.records),
      "per-system batch 528 / 4 = 132")
check(len(r.chosen) == 1, "one chosen candidate")
c = r.chosen[0]
check(abs(c["samples_per_s"] - 528 / c["step_time_s"]) <= 1e-8 * c["samples_per_s"],
      "samples_per_s = 528 / step_time_s")
check(abs(c["tokens_per_s"] - 2048 * c["samples_per_s"]) <= 1e-8 * c["tokens_per_s"],
      "tokens_per_s = 2048 x samples_per_s")
check(c["step_overhead_s"] == 0.2, "the override reached the simulation (step_overhead_s 0.2)")
check(r.inputs["num_csx"] == 4 and r.inputs["platform_overrides"] ==
      ["calibration.step_overhead_s=0.2"], f"inputs: {r.inputs}")

# The CLI's --json: same records as its CSV, units by column name, the inputs.
with open(cli_json) as f:
    doc = json.load(f)
same_records("run --json", doc["records"], cli_text)
units = doc["units"]
for column, unit in {"step_time_s": "s", "compute_time_s": "s", "mem_total_bytes": "bytes",
                     "samples_per_s": "samples/s", "tokens_per_s": "tokens/s", "mfu": "fraction",
                     "batch_size": "samples", "num_csx": "systems", "model": "", "fits": ""}.items():
    check(units.get(column) == unit, f"unit of {column}: {units.get(column)!r}, expected {unit!r}")
check(list(units) == r.columns, "units name every column, in order")
check(doc["inputs"]["scenario"] == SCENARIO and doc["inputs"]["model"] == "gpt3_xl"
      and doc["inputs"]["batch_size"] == 528 and doc["inputs"]["micro_batch_size"] == "auto"
      and doc["inputs"]["steps"] == 24334 and doc["inputs"]["seq_len"] == 2048,
      f"run --json inputs: {doc['inputs']}")
check(doc["inputs"] == r.inputs, "module inputs = CLI --json inputs")

# --json: the same bytes again; refused before any work for a bad path or another output's file.
again = os.path.join(tmp, "again.json")
run("run", SCENARIO, "--platform-override", "calibration.step_overhead_s=0.2", "--json", again,
    "-q")
check(open(again).read() == open(cli_json).read(), "run --json: same input, same bytes")
for flags, says in [(["--json", os.path.join(tmp, "no-such-dir", "x.json")], "--json"),
                    (["--csv", again, "--json", again], "--csv and --json name the same file")]:
    e_cli = run("run", SCENARIO, *flags)
    check(e_cli.returncode == 2 and says in e_cli.stderr,
          f"csxsim run {flags}: status {e_cli.returncode}, {e_cli.stderr!r}")
e_cli = run("sweep", SCENARIO, "--num-csx", "4", "--batch-size", "528", "--csv", again, "--json",
            again)
check(e_cli.returncode == 2 and "name the same file" in e_cli.stderr,
      f"sweep --csv F --json F: {e_cli.returncode} {e_cli.stderr!r}")
check(open(again).read() == open(cli_json).read(), "a refused run leaves the file untouched")

# --- errors: the CLI's message ---------------------------------------------------------------
for kwargs, flags in [({"micro_batch_size": 1000}, ["--micro-batch-size", "1000"]),
                      ({"micro_batch_size": "abc"}, ["--micro-batch-size", "abc"]),
                      ({"num_csx": 0}, ["--num-csx", "0"])]:
    e_cli = run("run", SCENARIO, *flags)
    check(e_cli.returncode == 2, f"csxsim run {flags}: status {e_cli.returncode}")
    try:
        csxsim.run(SCENARIO, **kwargs)
        check(False, f"csxsim.run({kwargs}) raised nothing")
    except csxsim.InputError as e:
        check(isinstance(e, ValueError), "InputError is a ValueError")
        check(e_cli.stderr.strip() == f"csxsim: error: {e}",
              f"csxsim.run({kwargs}): {e!r} vs CLI {e_cli.stderr.strip()!r}")
# GPT-3 XL's weights and optimizer state (1.32e9 parameters x 16 bytes = 21 GB) on a CS-2 whose
# MemoryX is cut to 10 GB: nothing fits (status 1).
args = ["scenarios/gpt3_xl_1x_cs2.yaml", "--platform-override", "memoryx.capacity_bytes=1e10"]
e_cli = run("run", *args)
try:
    csxsim.run(args[0], platform_override=[args[2]])
    check(False, "csxsim.run with 10 GB of MemoryX raised nothing")
except csxsim.InfeasibleError as e:
    check(e_cli.returncode == 1 and e_cli.stderr.strip() == f"csxsim: error: {e}",
          f"InfeasibleError {e!r} vs CLI {e_cli.returncode} {e_cli.stderr.strip()!r}")
    check(all(not x["fits"] for x in e.result.records), "InfeasibleError.result: no row fits")
except csxsim.InputError as e:
    check(False, f"10 GB MemoryX: InputError {e}")

# --- sweep --json and the module's sweep -----------------------------------------------------
sw_csv, sw_json = os.path.join(tmp, "sweep.csv"), os.path.join(tmp, "sweep.json")
grid = ["--num-csx", "1,2", "--batch-size", "264"]
r_cli = run("sweep", "scenarios/gpt3_xl_1x_cs2.yaml", *grid, "--csv", sw_csv, "--json", sw_json,
            "-q")
check(r_cli.returncode == 0, f"csxsim sweep: status {r_cli.returncode}\n{r_cli.stderr}")
sweep_text, doc = written(sw_csv, sw_json)
same_records("sweep --json", doc["records"], sweep_text)
check(doc["inputs"]["num_csx"] == [1, 2] and doc["inputs"]["batch_size"] == [264]
      and doc["inputs"]["shard"] == "0/1", f"sweep --json inputs: {doc['inputs']}")
check(doc["units"].get("time_to_train_s") == "s", "sweep's time_to_train_s is in seconds")
# jobs=2: grid points in forked processes of the interpreter, as the CLI's pool does.
s = csxsim.sweep("scenarios/gpt3_xl_1x_cs2.yaml", num_csx=[1, 2], batch_size=264, jobs=2)
check(s.csv == sweep_text, "module's sweep CSV differs from the CLI's")
check(sorted(x["num_csx"] for x in s.chosen) == [1, 2], "one chosen row per grid point")

# --- validate --json -------------------------------------------------------------------------
v_csv, v_json = os.path.join(tmp, "validate.csv"), os.path.join(tmp, "validate.json")
r_cli = run("validate", "--measurements-only", "--csv", v_csv, "--json", v_json)
check(r_cli.returncode == 0, f"csxsim validate: status {r_cli.returncode}\n{r_cli.stderr}")
v_text, doc = written(v_csv, v_json)
same_records("validate --json", doc["records"], v_text)
check(doc["units"]["error_pct"] == "%" and doc["units"]["simulated_samples_per_s"] == "samples/s",
      f"validate units: {doc['units']}")
check(doc["inputs"]["measurements_only"] is True, "validate --json inputs")
for rec in doc["records"]:  # error_pct = 100 (simulated / measured - 1), to the CSV's 9 digits
    want = 100 * (rec["simulated_samples_per_s"] / rec["measured_samples_per_s"] - 1)
    check(abs(rec["error_pct"] - want) <= 1e-6 * max(1, abs(want)), f"{rec['name']}: error_pct")
v = csxsim.validate(measurements_only=True)
check(v.csv == v_text, "module's validate CSV differs from the CLI's")

# --- candidates and describe -----------------------------------------------------------------
cand = csxsim.candidates(batch_size=10, num_csx=4)
# 10 over 4: P = 3, two systems get 3 and two get 2; S(3) = {ceil(3/k)} = {3, 2, 1}.
check(cand["per_system_batch_size"] == 3 and cand["per_system_batch_sizes"] == [3, 3, 2, 2]
      and sorted(cand["supported_micro_batch_sizes"]) == [1, 2, 3], f"candidates: {cand}")
d = csxsim.describe("gpt3_xl")
check(d["model"] == "gpt3_xl" and d["seq_len"] == 2048, "describe gpt3_xl")

# --- to_pandas, when pandas is present ---------------------------------------------------------
try:
    import pandas
except ImportError:
    pandas = None
if pandas is not None:
    df = r.to_pandas()
    cli_df = pandas.read_csv(cli_csv, keep_default_na=False, na_values=[""])
    check(list(df.columns) == list(cli_df.columns), "to_pandas columns")
    for c in ("step_time_s", "samples_per_s", "mfu", "mem_total_bytes"):
        check(df[c].tolist() == cli_df[c].tolist(), f"to_pandas {c} = pandas.read_csv's")

# --- docs/python.md's session -----------------------------------------------------------------
page = open(os.path.join(ROOT, "docs", "python.md")).read()
blocks = re.findall(r"```python\n(.*?)```", page, re.S)
check(len(blocks) == 1, f"docs/python.md has one python block, found {len(blocks)}")
out = io.StringIO()
try:
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "docs/python.md", "exec"), {})
except Exception as e:  # noqa: BLE001  (any failure of the session is the test's failure)
    check(False, f"docs/python.md's session failed: {type(e).__name__}: {e}")
check("refused: --micro-batch-size" in out.getvalue(), f"docs/python.md session output:\n{out.getvalue()}")

shutil.rmtree(tmp)
# Wrong Python types are InputErrors with the option named, never a raw TypeError.
for kwargs, needle in ((dict(platform_override=5), "platform_override = 5"),
                       (dict(num_csx=True), "num_csx = True"),
                       (dict(compile_only="no"), "compile_only = 'no': expected True or False"),
                       # A file name whose bytes are not UTF-8, as os.fsdecode gives it.
                       (dict(platform=os.fsdecode(b"/tmp/\xff.yaml")), "not valid UTF-8")):
    try:
        csxsim.run("scenarios/gpt3_xl_4x_cs2.yaml", **kwargs)
        check(False, f"{kwargs}: no error")
    except csxsim.InputError as e:
        check(needle in str(e), f"{kwargs}: {e}")
# The argument may be given by its keyword; a missing one is an InputError, as on the CLI.
check(csxsim.run(scenario="scenarios/gpt3_xl_4x_cs2.yaml", compile_only=True).chosen,
      "run(scenario=...)")
try:
    csxsim.plan("gpt3_xl", num_csx=1)
    check(False, "plan() without tokens: no error")
except csxsim.InputError as e:
    check("missing a required argument: 'tokens'" in str(e), str(e))
try:
    csxsim.sweep("scenarios/gpt3_xl_4x_cs2.yaml", num_csx=1, batch_size=64,
                 variant={"a": {"system.io_scale": "2,calibration.step_overhead_s=0.3"}})
    check(False, "a variant value smuggling a second key: no error")
except csxsim.InputError as e:
    check("a value holds no ',' or '='" in str(e), str(e))
# csv='-' is the CLI's standard output; the module writes none (the text is Result.csv).
try:
    csxsim.sweep("scenarios/gpt3_xl_4x_cs2.yaml", num_csx=1, batch_size=64, csv="-")
    check(False, "sweep(csv='-'): no error")
except csxsim.InputError as e:
    check("sweep(csv='-'): the module writes no standard output" in str(e), str(e))

finish()
