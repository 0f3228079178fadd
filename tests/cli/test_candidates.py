"""`csxsim candidates` on the four worked examples of the Cerebras guide, JSON keys, bad input."""
import json

from clitest import expect, finish, check

# 133, 1, 34: kept, 4 microbatches.
r = expect(["candidates", "--batch-size", 133, "--num-csx", 1, "--micro-batch-size", 34, "--json"], 0)
j = json.loads(r.stdout)
check(j["micro_batch_size"] == 34 and j["num_microbatches"] == 4 and not j["adjusted"], "133/1/34")
check(j["supported_micro_batch_sizes"][-12:] == sorted([133, 67, 45, 34, 27, 23, 19, 17, 15, 14, 13, 12]),
      "S(133)")
for key in ["per_system_batch_sizes", "per_system_batch_size", "supported_micro_batch_sizes",
            "micro_batch_size", "num_microbatches", "adjusted", "notice"]:
    check(key in j, f"json key {key}")

# 673, 2, 168: moved to 169 with a notice, 2 microbatches.
r = expect(["candidates", "-b", 673, "-n", 2, "-m", 168, "--json"], 0)
j = json.loads(r.stdout)
check(j["micro_batch_size"] == 169 and j["num_microbatches"] == 2 and j["adjusted"], "673/2/168")
check("169" in j["notice"] and j["per_system_batch_sizes"] == [337, 336], "673 notice")
expect(["candidates", "-b", 673, "-n", 2, "-m", 168], 0, out_has=["notice:", "-> 169"])

# 240, 2, 121: refused, message names m, P and N.
expect(["candidates", "-b", 240, "-n", 2, "-m", 121], 2,
       err_has=["121", "per-system batch size 120", "num_csx 2"])

# 12, 2, 2: 3 microbatches of 2 on each system.
r = expect(["candidates", "-b", 12, "-n", 2, "-m", 2, "--json"], 0)
j = json.loads(r.stdout)
check(j["systems"] == [{"num_systems": 2, "system_batch_size": 6,
                        "microbatches": [{"micro_batch_size": 2, "count": 3}]}], "12/2/2 plan")

# auto lists divisors of the batch (99 -> 99, 33, 11, 9, 3).
r = expect(["candidates", "-b", 99, "-n", 1, "--json"], 0)
check(json.loads(r.stdout)["candidates"] == [99, 33, 11, 9, 3], "auto 99")

# Bad input: exit 2 with one line on stderr.
for args, frag in [
    (["-b", "abc", "-n", 1], "expected a whole number"),
    (["-b", 0, "-n", 1], "at least 1"),
    (["-b", -4, "-n", 1], "at least 1"),
    (["-b", 10, "-n", 0], "at least 1"),
    (["-b", "18446744073709551616", "-n", 1], "64-bit"),
    (["-b", 3, "-n", 4], "smaller than num_csx"),
    (["-b", 10, "-n", 1, "--frobnicate"], "unrecognised option"),
    (["-b", 10, "-n", 1, "-m", "atuo"], "did you mean 'auto'"),
    (["-n", 1], "batch-size"),
]:
    r = expect(["candidates", *args], 2, err_has=[frag])
    check(r.stderr.count("\n") == 1, f"one line on stderr for {args}: {r.stderr!r}")

expect(["candidatse"], 2, err_has=["did you mean 'candidates'"])
expect(["--version"], 0, out_has=["csxsim"])
expect(["--help"], 0, out_has=["candidates"])
finish()
