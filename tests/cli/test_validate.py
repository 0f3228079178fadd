"""`csxsim validate` on the reference measurements: MAPE <= 10 %, every entry within 20 %, the
auto decision matches. A change that breaks accuracy fails here."""
import csv
import os
import re
import tempfile

from clitest import check, expect, finish

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "validate.csv")
    r = expect(["validate", "--csv", out], 0, out_has=["MAPE", "auto decision"])
    rows = list(csv.DictReader(open(out)))
    check(len(rows) >= 6, f"{len(rows)} reference entries")
    errors = [abs(float(x["error_pct"])) for x in rows]
    mape = sum(errors) / len(errors)
    check(mape <= 10, f"MAPE {mape:.1f}% > 10%")
    for x in rows:
        check(abs(float(x["error_pct"])) <= 20, f"{x['name']}: error {x['error_pct']}% beyond 20%")
        check(x["bound"] in ("compute", "weight streaming", "gradient reduce", "optimizer"), "bound")
    m = re.search(r"MAPE ([0-9.]+)%", r.stdout)
    check(m and abs(float(m.group(1)) - mape) < 0.06, "printed MAPE matches the CSV")
    check("DOES NOT MATCH" not in r.stdout and "matches (expected 99, simulated 99" in r.stdout,
          "auto keeps 99 for LLaMA 7B, batch 99")
    # Overrides reach the model: a slower wafer shows up as a large error.
    r = expect(["validate", "--only-platform", "cs2", "--platform-override",
                "cs2:calibration.compute_efficiency_max=0.1"], 0)
    check(float(re.search(r"MAPE ([0-9.]+)%", r.stdout).group(1)) > 40, "override changes results")
    expect(["validate", "--platform-override", "calibration.no_such_key=1"], 2, err_has=["unknown key"])
finish()
