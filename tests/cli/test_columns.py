"""`csxsim columns` prints the results schema (name, unit, type per column), and that schema is
what the outputs hold: docs/cli.md's two CSV tables equal it, a run's CSV header is its names, a
run's --json units and value types follow it. A table it does not know is refused (exit 2)."""
import csv
import io
import json
import os
import re
import tempfile

from clitest import check, expect, finish

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCENARIO = os.path.join(ROOT, "scenarios", "gpt3_xl_1x_cs2.yaml")


def schema(table):
    return json.loads(expect(["columns", table, "--json"], 0).stdout)


def doc_tables():
    """The | column | unit | type | tables of docs/cli.md's CSV section, in order."""
    text = open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8").read()
    section = text[text.index("\n## CSV\n"):text.index("\n### JSON output\n")]
    tables, current = [], None
    for line in section.splitlines():
        if line.startswith("| column | unit | type |"):
            current = []
            tables.append(current)
        elif current is not None and line.startswith("|"):
            m = re.fullmatch(r"\| `([^`]+)` \| (.*?) \| (\w+) \|", line)
            if m:
                current.append({"name": m[1], "unit": "" if m[2] == "-" else m[2], "type": m[3]})
        else:
            current = None
    return tables


results, validate = schema("results"), schema("validate")
check(len(results) == 51 and results[0]["name"] == "model" and results[-1]["name"] == "grid",
      f"the results schema: {len(results)} columns")
check({c["type"] for c in results} == {"integer", "real", "text", "bool"}, "the four types")
check(doc_tables() == [results, validate],
      "docs/cli.md's CSV tables are `csxsim columns --json` and `csxsim columns validate --json`")

text = expect(["columns"], 0).stdout.splitlines()
check(text[0].split() == ["column", "unit", "type"] and len(text) == 52, "the text table")
check(text[16].split() == ["step_time_s", "s", "real"], f"a row of the text table: {text[16]}")
expect(["columns", "validat"], 2, err_has=["unknown table 'validat'", "did you mean 'validate'"])

with tempfile.TemporaryDirectory() as d:
    out_csv, out_json = os.path.join(d, "r.csv"), os.path.join(d, "r.json")
    expect(["run", SCENARIO, "--csv", out_csv, "--json", out_json, "-q"], 0)
    rows = list(csv.reader(io.StringIO(open(out_csv).read())))
    check(rows[0] == [c["name"] for c in results], "a run's CSV header is the schema's names")
    doc = json.load(open(out_json))
    check(doc["units"] == {c["name"]: c["unit"] for c in results}, "--json units are the schema's")
    kinds = {"integer": int, "real": float, "text": str, "bool": bool}
    for rec in doc["records"]:
        for c in results:
            v = rec[c["name"]]
            ok = v is None or (type(v) is kinds[c["type"]])
            check(ok, f"--json {c['name']} = {v!r} is not {c['type']}")
finish()
