"""tools/plot renders every kind from a small hand-written CSV into a valid PNG of 1000 x 600."""
import os
import struct
import subprocess
import tempfile

from clitest import check, finish

HEADER = ("model,platform,mode,num_csx,batch_size,per_system_batch_size,requested_micro_batch_size,"
          "micro_batch_size,num_microbatches,fits,reason,chosen,step_time_s,samples_per_s,tokens_per_s,"
          "mfu,compute_time_s,weight_stream_time_s,exposed_stream_time_s,grad_reduce_time_s,"
          "optimizer_time_s,step_overhead_s,mem_activations_bytes,mem_weight_buffers_bytes,mem_gradients_bytes,"
          "mem_workspace_bytes,mem_total_bytes,mem_capacity_bytes,recompute_passes,activation_plan,time_to_train_s")


def row(n, b, mbs, fits, chosen, sps):
    P = -(-b // n)
    k = -(-P // mbs)
    timing = f"{b / sps},{sps},{sps * 2048},0.3,1,0.1,0,0.05,0.01,0.12" if fits else ",,,,,,,,,"
    reason = "" if fits else '"needs 40 GB, 36 GB usable"'
    return (f"m,cs2,train,{n},{b},{P},explore,{mbs},{k},{str(fits).lower()},{reason},"
            f"{str(chosen).lower()},{timing},{mbs * 1e8},4e8,2e8,2e9,{mbs * 1e8 + 2.6e9},36e9,0,all kept,")


lines = [HEADER]
for n in (1, 2, 4):
    for b in (64, 128):
        P = -(-b // n)
        sizes = sorted({-(-P // k) for k in range(1, P + 1)}, reverse=True)
        fit_max = min(P, 48)
        best = max(s for s in sizes if s <= fit_max)
        for s in sizes:
            lines.append(row(n, b, s, s <= fit_max, s == best, 10 * n * (s / (s + 8.0))))

with tempfile.TemporaryDirectory() as d:
    data = os.path.join(d, "small.csv")
    with open(data, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    for kind in ("throughput", "memory", "scaling", "heatmap"):
        out = os.path.join(d, f"{kind}.png")
        r = subprocess.run(["tools/plot", data, "--kind", kind, "-o", out], capture_output=True, text=True)
        check(r.returncode == 0, f"{kind}: status {r.returncode}: {r.stderr}")
        if r.returncode != 0:
            continue
        with open(out, "rb") as fh:
            head = fh.read(24)
        check(head[:8] == b"\x89PNG\r\n\x1a\n", f"{kind}: PNG signature")
        width, height = struct.unpack(">II", head[16:24])
        check((width, height) == (1000, 600), f"{kind}: size {width}x{height}")
    svg = os.path.join(d, "t.svg")
    r = subprocess.run(["tools/plot", data, "-o", svg], capture_output=True, text=True)
    check(r.returncode == 0 and open(svg).read().lstrip().startswith("<?xml"), "SVG output")
    r = subprocess.run(["tools/plot", data, "-o", os.path.join(d, "x.gif")], capture_output=True, text=True)
    check(r.returncode == 2 and "png or .svg" in r.stderr, "bad extension refused")
    r = subprocess.run(["tools/plot", os.path.join(d, "none.csv"), "-o", os.path.join(d, "y.png")],
                       capture_output=True, text=True)
    check(r.returncode == 2 and "plot: error" in r.stderr, "missing CSV refused")
finish()
