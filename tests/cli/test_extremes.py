"""64-bit limits: a global batch of 2^31 and 2048 systems give correct results, beyond the
limits a clear refusal."""
import csv
import json
import os
import tempfile

from clitest import check, expect, finish

B, N = 2 ** 31, 2048
P = B // N
r = expect(["candidates", "--batch-size", B, "--num-csx", N, "--micro-batch-size", 1, "--json"], 0)
j = json.loads(r.stdout)
check(j["per_system_batch_size"] == P == 1048576, "P = 2^31 / 2048")
brute = sorted({-(-P // k) for k in range(1, P + 1)})
check(j["supported_micro_batch_sizes"] == brute, "S(2^20) equals brute force")
check(j["num_microbatches"] == P, "MBS 1 gives P microbatches")
r = expect(["candidates", "--batch-size", B, "--num-csx", 1, "--micro-batch-size", 3, "--json"], 0)
j = json.loads(r.stdout)
check(j["micro_batch_size"] == 3 and j["num_microbatches"] == -(-B // 3), "2^31 with MBS 3")


def step(batch, d):
    out = os.path.join(d, f"s{batch}.csv")
    expect(["run", "models/gpt2_small.yaml", "--batch-size", batch, "--num-csx", 1,
            "--micro-batch-size", 1, "--csv", out, "--quiet"], 0)
    row = next(csv.DictReader(open(out)))
    check(int(row["num_microbatches"]) == batch, f"{batch} microbatches")
    return float(row["step_time_s"])


with tempfile.TemporaryDirectory() as d:
    # Every extra microbatch adds the same period, up to 2^31 of them: no overflow, no drift.
    t100, t200, tmax = step(100, d), step(200, d), step(B, d)
    period = (t200 - t100) / 100
    expected = t100 + (B - 100) * period
    check(abs(tmax - expected) <= 1e-6 * expected, f"2^31 microbatches: {tmax} vs {expected}")
    out = os.path.join(d, "big.csv")
    expect(["run", "models/gpt2_small.yaml", "--batch-size", B, "--num-csx", N, "--platform", "cs3",
            "--csv", out], 0, out_has=["chosen: micro_batch_size"])
    rows = list(csv.DictReader(open(out)))
    check(all(int(x["per_system_batch_size"]) == P for x in rows), "P at 2048 systems")
    check(any(x["chosen"] == "true" for x in rows), "a choice at 2^31 over 2048 systems")

# Beyond the limits: refusals.
expect(["candidates", "--batch-size", 2 ** 40 + 1, "--num-csx", 1], 2, err_has=["2^40"])
expect(["candidates", "--batch-size", 2 ** 63 - 1, "--num-csx", 1], 2, err_has=["2^40"])
expect(["candidates", "--batch-size", 2 ** 63, "--num-csx", 1], 2, err_has=["64-bit"])
expect(["run", "models/gpt2_small.yaml", "--batch-size", 4096, "--num-csx", 2049, "--platform", "cs3"], 2,
       err_has=["2048 systems"])
finish()
