"""tools/plot renders every kind from small hand-written CSVs into a valid PNG of 1000 x 600; the
figures are inspected (panels, ticks, shading, legends, colour bars) by importing tools/plot in its
own interpreter, and bad filters are refused with exit 2."""
import json
import os
import struct
import subprocess
import tempfile

from clitest import CSXSIM, check, finish

# tools/plot reads the columns' types from this csxsim (`csxsim columns --json`).
os.environ["CSXSIM"] = os.path.abspath(CSXSIM)

HEADER = ("model,platform,mode,num_csx,batch_size,per_system_batch_size,requested_micro_batch_size,"
          "micro_batch_size,num_microbatches,fits,reason,chosen,step_time_s,samples_per_s,tokens_per_s,"
          "mfu,compute_time_s,weight_stream_time_s,exposed_stream_time_s,grad_reduce_time_s,"
          "optimizer_time_s,step_overhead_s,mem_activations_bytes,mem_weight_buffers_bytes,mem_gradients_bytes,"
          "mem_workspace_bytes,mem_total_bytes,mem_capacity_bytes,recompute_passes,activation_plan,time_to_train_s")
SHARES = ",compute_share,csx_io_share,swarmx_share,memoryx_link_share,optimizer_share,bound"
FIT_MAX = 48  # the largest MBS that fits


def row(n, b, mbs, fits, chosen, sps, platform="cs2", shares=False):
    P = -(-b // n)
    k = -(-P // mbs)
    timing = f"{b / sps},{sps},{sps * 2048},0.3,1,0.1,0,0.05,0.01,0.12" if fits else ",,,,,,,,,"
    reason = "" if fits else '"needs 40 GB, 36 GB usable"'
    line = (f"m,{platform},train,{n},{b},{P},explore,{mbs},{k},{str(fits).lower()},{reason},"
            f"{str(chosen).lower()},{timing},{mbs * 1e8},4e8,2e8,2e9,{mbs * 1e8 + 2.6e9},36e9,0,all kept,")
    if shares:
        line += (f",{min(1, 8 / mbs):.3f},0.1,{min(1, 6 / mbs):.3f},0.05,0.01,{'compute' if mbs >= 8 else 'swarmx'}"
                 if fits else ",,,,,,")
    return line


def table(nums, batches, platforms=("cs2",), shares=False):
    lines = [HEADER + (SHARES if shares else "")]
    for platform in platforms:
        for n in nums:
            for b in batches:
                P = -(-b // n)
                sizes = sorted({-(-P // k) for k in range(1, P + 1)}, reverse=True)
                best = max(s for s in sizes if s <= FIT_MAX)
                for s in sizes:
                    lines.append(row(n, b, s, s <= FIT_MAX, s == best, 10 * n * (s / (s + 8.0)) * (1 - 0.02 * n),
                                     platform, shares))
    return "\n".join(lines) + "\n"


# The interpreter of tools/plot imports it and describes each figure (or the exit and stderr).
INSPECT = r"""
import contextlib, importlib.machinery, importlib.util, io, json, sys
loader = importlib.machinery.SourceFileLoader("plot", "tools/plot")
plot = importlib.util.module_from_spec(importlib.util.spec_from_loader("plot", loader))
loader.exec_module(plot)
results = []
for argv in json.load(sys.stdin):
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            fig = plot.render(plot.parse(argv))
    except SystemExit as e:
        results.append({"exit": e.code, "stderr": err.getvalue()})
        continue
    fig.canvas.draw()
    rnd = fig.canvas.get_renderer()
    box = lambda a: [round(v, 1) for v in a.get_window_extent(rnd).extents]
    axes = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        spans = []
        for p in ax.patches:
            if tuple(round(c, 2) for c in p.get_facecolor()) == (1.0, 0.0, 0.0, 0.12):
                ext = p.get_path().get_extents(p.get_patch_transform())
                spans.append([ext.x0, ext.x1])
        leg = ax.get_legend()
        axes.append({"title": ax.get_title(), "ylabel": ax.get_ylabel(), "xscale": ax.get_xscale(),
                     "xticks": [t.get_text() for t in ax.get_xticklabels()],
                     "legend": [t.get_text() for t in leg.get_texts()] if leg else [],
                     "lines": [{"label": l.get_label(), "color": list(l.get_color()) if not isinstance(l.get_color(), str)
                                else l.get_color(), "y": [float(v) for v in l.get_ydata()],
                                "style": str(l.get_linestyle()) + str(l.get_marker())} for l in ax.lines],
                     "texts": [t.get_text() for t in ax.texts], "spans": spans,
                     "text_boxes": [box(t) for t in ax.texts if t.get_text()],
                     "title_box": box(ax.title) if ax.get_title() else None,
                     "legend_box": box(leg) if leg else None})
    results.append({"exit": 0, "stderr": err.getvalue(), "suptitle": fig._suptitle.get_text() if fig._suptitle else "",
                    "legends": [t.get_text() for lg in fig.legends for t in lg.get_texts()], "axes": axes,
                    "legend_boxes": [box(lg) for lg in fig.legends], "fig_texts": [t.get_text() for t in fig.texts],
                    "suptitle_box": box(fig._suptitle) if fig._suptitle else None,
                    "px": [fig.bbox.width, fig.bbox.height],
                    "size": [round(v * plot.DPI) for v in fig.get_size_inches()]})
print(json.dumps(results))
"""

with tempfile.TemporaryDirectory() as d:
    def write(name, text):
        path = os.path.join(d, name)
        with open(path, "w") as fh:
            fh.write(text)
        return path

    data = write("small.csv", table((1, 2, 4), (64, 128)))
    bound_csv = write("bound.csv", table((1, 2), (64,), shares=True))
    multi = write("multi.csv", table((1, 2, 4), (64, 128), platforms=("cs2", "cs3+io2x")))
    many = write("many.csv", table((1, 2), range(16, 193, 16)))
    six = ("cs2", "cs2+io2x", "cs2+slow", "cs3", "cs3+io2x", "cs3+slow")
    multi6 = write("multi6.csv", table((1, 4, 16), (64, 128), platforms=six))
    # bound names that alternate between candidates, the long ones wider than a candidate's slot
    lines = table((1,), (64,), shares=True).splitlines()
    for i in range(1, len(lines)):
        if lines[i].endswith(("compute", "swarmx")):
            lines[i] = lines[i].rsplit(",", 1)[0] + "," + (
                "CS-X I/O = SwarmX level 1 = SwarmX level 2 = MemoryX link" if i % 2 else "step overhead")
    bound_long = write("bound_long.csv", "\n".join(lines) + "\n")

    # Every kind through the command line, as before: a PNG of 1000 x 600.
    for kind, src in (("throughput", data), ("memory", data), ("scaling", data), ("heatmap", data),
                      ("bound", bound_csv)):
        out = os.path.join(d, f"{kind}.png")
        r = subprocess.run(["tools/plot", src, "--kind", kind, "-o", out], capture_output=True, text=True)
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
    # A pipe as the input is refused, not read forever; a folder or /proc as the output is one
    # line and exit 2; a link as the output is written through (the link stays).
    fifo = os.path.join(d, "fifo.csv")
    os.mkfifo(fifo)
    r = subprocess.run(["tools/plot", fifo, "-o", os.path.join(d, "p.png")], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 2 and "fifo.csv: is not a regular file" in r.stderr, f"FIFO refused: {r.stderr}")
    folder = os.path.join(d, "dir.png")
    os.mkdir(folder)
    for out, says in ((folder, "is a directory"), ("/proc/x.png", "cannot write in /proc")):
        r = subprocess.run(["tools/plot", data, "-o", out], capture_output=True, text=True)
        check(r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, f"-o {out}: {r.stderr}")
    real, link = os.path.join(d, "real.svg"), os.path.join(d, "link.svg")
    os.symlink(real, link)
    r = subprocess.run(["tools/plot", data, "-o", link], capture_output=True, text=True)
    check(r.returncode == 0 and os.path.islink(link) and os.path.isfile(real), f"-o a link: {r.stderr}")
    r = subprocess.run(["tools/plot", data, "-o", os.path.join(d, "x.gif")], capture_output=True, text=True)
    check(r.returncode == 2 and "png or .svg" in r.stderr, "bad extension refused")
    r = subprocess.run(["tools/plot", os.path.join(d, "none.csv"), "-o", os.path.join(d, "y.png")],
                       capture_output=True, text=True)
    check(r.returncode == 2 and "plot: error" in r.stderr, "missing CSV refused")
    r = subprocess.run(["tools/plot", data, "--batch-size", "999", "-o", os.path.join(d, "z.png")],
                       capture_output=True, text=True)
    check(r.returncode == 2 and not os.path.exists(os.path.join(d, "z.png")), "bad filter: exit 2, no file")
    r = subprocess.run(["tools/plot", data, "--kind", "bogus", "-o", os.path.join(d, "k.png")],
                       capture_output=True, text=True)
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("plot: error: argument --kind")
          and "bogus" in r.stderr, f"bad kind: one line, exit 2: {r.returncode} {r.stderr!r}")

    # A field not of its column's type is named by its record in the file (the header is record
    # 1), counted before the rows of another mode are left out: the bad train row is record 3.
    mixed = os.path.join(d, "mixed.csv")
    good = row(1, 64, 8, True, True, 10.0)
    with open(mixed, "w") as fh:
        fh.write(HEADER + "\n" + good.replace(",train,", ",eval,", 1) + "\n"
                 + good.replace("m,cs2,train,1,", "m,cs2,train,x,", 1) + "\n")
    r = subprocess.run(["tools/plot", mixed, "-o", os.path.join(d, "m.png")], capture_output=True, text=True)
    check(r.returncode == 2 and "record 3: column num_csx: 'x'" in r.stderr,
          f"bad field named by its record in the file: {r.returncode} {r.stderr!r}")
    # A record cut short or run on, a real that is not finite and a count below 1 are refused
    # by record and column, never a traceback (merge refuses the first two too).
    header_fields = HEADER.count(",") + 1
    for name, text, says in (
            ("short", good.rsplit(",", 3)[0], f"record 2: {header_fields - 3} fields, expected {header_fields}"),
            ("long", good + ",x", f"record 2: {header_fields + 1} fields, expected {header_fields}"),
            ("nan", good.replace(",10.0,", ",nan,", 1), "record 2: column samples_per_s: nan is not a finite number"),
            ("zero", good.replace("m,cs2,train,1,", "m,cs2,train,0,", 1), "record 2: column num_csx: 0 is not a positive count")):
        bad = os.path.join(d, f"{name}.csv")
        with open(bad, "w") as fh:
            fh.write(HEADER + "\n" + text + "\n")
        for kind in ("throughput", "memory", "scaling"):
            r = subprocess.run(["tools/plot", bad, "--kind", kind, "-o", os.path.join(d, f"{name}.png")],
                               capture_output=True, text=True)
            check(r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr,
                  f"{name} ({kind}): {r.returncode} {r.stderr!r}")
    # A --csxsim that does not print the columns' JSON: exit 2 and one clear line.
    fake = os.path.join(d, "fake-csxsim")
    with open(fake, "w") as fh:
        fh.write("#!/bin/sh\necho not json\n")
    os.chmod(fake, 0o755)
    r = subprocess.run(["tools/plot", data, "--csxsim", fake, "-o", os.path.join(d, "f.png")],
                       capture_output=True, text=True)
    check(r.returncode == 2 and "did not print JSON" in r.stderr and "Traceback" not in r.stderr,
          f"a --csxsim printing no JSON: {r.returncode} {r.stderr!r}")

    out = os.path.join(d, "o.png")
    cases = {
        "tp": [data, "-o", out],
        "tp_one": [data, "-o", out, "--batch-size", "128", "--num-csx", "1"],
        "tp_multi": [multi, "-o", out, "--batch-size", "64"],
        "mem": [data, "-o", out, "--kind", "memory"],
        "mem_pick": [data, "-o", out, "--kind", "memory", "--num-csx", "1", "--batch-size", "64"],
        "scaling": [data, "-o", out, "--kind", "scaling"],
        "scaling_multi": [multi, "-o", out, "--kind", "scaling"],
        "scaling_many": [many, "-o", out, "--kind", "scaling"],
        "heatmap": [data, "-o", out, "--kind", "heatmap"],
        "heatmap_multi": [multi, "-o", out, "--kind", "heatmap"],
        "bound": [bound_csv, "-o", out, "--kind", "bound", "--num-csx", "1"],
        "bound_old": [data, "-o", out, "--kind", "bound"],
        "bound_long": [bound_long, "-o", out, "--kind", "bound"],
        "tp_six": [multi6, "-o", out],
        "scaling_six": [multi6, "-o", out, "--kind", "scaling"],
        "heatmap_six": [multi6, "-o", out, "--kind", "heatmap"],
        "bad_batch": [data, "-o", out, "--batch-size", "64,999"],
        "bad_platform": [multi, "-o", out, "--platform", "cs9"],
        "bad_num": [data, "-o", out, "--kind", "memory", "--num-csx", "3"],
        "bad_int": [data, "-o", out, "--num-csx", "two"],
    }
    interp = open("tools/plot").readline()[2:].strip()
    r = subprocess.run([interp, "-c", INSPECT], input=json.dumps(list(cases.values())), capture_output=True,
                       text=True, timeout=300)
    check(r.returncode == 0, f"inspection: status {r.returncode}: {r.stderr[-3000:]}")
    res = dict(zip(cases, json.loads(r.stdout))) if r.returncode == 0 else {}

    def fig(name):
        f = res.get(name, {})
        check(f.get("exit") == 0, f"{name}: exit {f.get('exit')}: {f.get('stderr')}")
        return f if f.get("exit") == 0 else {"axes": [], "suptitle": "", "legends": [], "stderr": ""}

    def data_lines(ax):
        return [ln for ln in ax["lines"] if ln["y"] and not ln["label"].startswith("_")]

    # throughput: a panel per batch size, MBS tick labels are the MBS values, shading only where
    # candidates fail, the chosen MBS in the legend.
    f = fig("tp")
    check([a["title"] for a in f["axes"]] == ["batch_size 64", "batch_size 128"], f"tp: panels {f['axes']}")
    for a in f["axes"]:
        b = int(a["title"].split()[-1])
        mbs = {-(-(-(-b // n)) // k) for n in (1, 2, 4) for k in range(1, -(-b // n) + 1)}
        check(a["xticks"] and all(t.isdigit() and int(t) in mbs for t in a["xticks"]), f"tp: MBS ticks {a['xticks']}")
        bad = sorted(v for v in mbs if v > FIT_MAX)
        covered = sorted(v for v in mbs for x0, x1 in a["spans"] if x0 < v < x1)
        check(covered == bad, f"tp {b}: shaded {covered}, failing {bad}")
        check(len(data_lines(a)) == 3, f"tp {b}: one line per num_csx: {[ln['label'] for ln in a['lines']]}")
    check("chosen MBS" in f["legends"] and "does not fit on-chip memory" in f["legends"], f"tp: legend {f['legends']}")
    check("m on cs2" in f["suptitle"], f"tp: title {f['suptitle']}")
    f = fig("tp_one")
    check(len(f["axes"]) == 1 and "batch_size 128" in f["suptitle"] and "num_csx 1" in f["suptitle"],
          f"tp_one: {f['suptitle']}")
    check(all(x0 > FIT_MAX for a in f["axes"] for x0, _ in a["spans"]), "tp_one: no shading below the fitting MBS")
    f = fig("tp_multi")
    labels = [ln["label"] for a in f["axes"] for ln in data_lines(a)]
    check(len(labels) == 6 and len(set(labels)) == 6 and any("cs3+io2x" in s for s in labels),
          f"tp_multi: one line per (num_csx, platform): {labels}")

    # memory: the largest grid point by default (named, with a note), or the chosen one.
    f = fig("mem")
    check("num_csx 4" in f["axes"][0]["title"] and "batch_size 128" in f["axes"][0]["title"],
          f"mem: title {f['axes'][0]['title'] if f['axes'] else ''}")
    check("grid points" in f["stderr"], f"mem: note {f['stderr']}")
    f = fig("mem_pick")
    a = f["axes"][0] if f["axes"] else {"title": "", "xticks": [], "spans": [], "legend": []}
    check("num_csx 1" in a["title"] and "batch_size 64" in a["title"], f"mem_pick: {a['title']}")
    ticks = f["axes"][-1]["xticks"] if f["axes"] else []  # under the lower panel (no activations)
    check(ticks == [str(s) for s in sorted({-(-64 // k) for k in range(1, 65)})], f"mem_pick: {ticks}")
    check(len(f["axes"]) == 2 and f["axes"][1]["ylabel"] == "without activations (GB)", "mem_pick: lower panel")
    check(len(a["spans"]) == sum(s > FIT_MAX for s in {-(-64 // k) for k in range(1, 65)}), f"mem_pick: {a['spans']}")
    check(any(s.startswith("gradient buffer (") for s in a["legend"]), f"mem_pick: legend {a['legend']}")

    # scaling: a throughput and an efficiency panel, 100 % at the smallest num_csx, one line per
    # (batch, platform), colours that never repeat.
    f = fig("scaling")
    check(len(f["axes"]) == 2 and "efficiency" in f["axes"][1]["ylabel"], f"scaling: {[a['ylabel'] for a in f['axes']]}")
    for ln in data_lines(f["axes"][1]) if len(f["axes"]) == 2 else []:
        check(abs(ln["y"][0] - 100) < 1e-9 and all(v < 100 for v in ln["y"][1:]), f"scaling: efficiency {ln}")
    f = fig("scaling_multi")
    labels = [ln["label"] for ln in data_lines(f["axes"][0])] if f["axes"] else []
    check(len(labels) == 4 and {"batch_size 64, cs3+io2x", "batch_size 128, cs2"} <= set(labels),
          f"scaling_multi: {labels}")
    f = fig("scaling_many")
    colours = [json.dumps(ln["color"]) for ln in data_lines(f["axes"][0])] if f["axes"] else []
    check(len(colours) == 12 and len(set(colours)) == 12, f"scaling_many: colours {colours}")

    # heatmap: labelled colour bars, one row per platform.
    f = fig("heatmap")
    check({a["ylabel"] for a in f["axes"]} >= {"throughput (samples/s)"}, f"heatmap: colour bars {f['axes']}")
    f = fig("heatmap_multi")
    check(sum(a["title"].endswith("on cs3+io2x") for a in f["axes"]) == 2, "heatmap_multi: a row per platform")

    # bound: the bound named per candidate; refused on a CSV without the share columns.
    f = fig("bound")
    a = f["axes"][0] if f["axes"] else {"texts": [], "title": ""}
    check({"compute", "swarmx", "does not fit"} <= set(a["texts"]), f"bound: texts {a['texts']}")
    check("num_csx 1" in f["suptitle"], f"bound: {f['suptitle']}")
    b = res.get("bound_old", {})
    check(b.get("exit") == 2 and "compute_share" in b.get("stderr", ""), f"bound_old: {b}")

    # Many platforms: the legend and titles inside the figure, the figure title clear of the panel
    # titles, no two lines of a panel alike (colour, linestyle and marker), each platform keyed once.
    def inside(b, f, what):
        check(b is None or (b[0] >= -1 and b[1] >= -1 and b[2] <= f["px"][0] + 1 and b[3] <= f["px"][1] + 1),
              f"{what}: {b} outside the figure {f['px']}")

    def overlap(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    for name in ("tp_six", "scaling_six", "heatmap_six", "tp_multi", "scaling_many", "bound_long"):
        f = fig(name)
        for b in f.get("legend_boxes", []) + [a["legend_box"] for a in f["axes"]]:
            inside(b, f, f"{name}: legend")
        for a in f["axes"]:
            inside(a["title_box"], f, f"{name}: title {a['title']!r}")
            if f["suptitle_box"] and a["title_box"]:
                check(not overlap(f["suptitle_box"], a["title_box"]), f"{name}: figure title over {a['title']!r}")
            drawn = [json.dumps([ln["color"], ln["style"]]) for ln in data_lines(a)]
            check(len(drawn) == len(set(drawn)), f"{name}: two lines alike in {a['title']!r}")
    f = fig("tp_six")
    check(all(f["legends"].count(p) == 1 for p in six) and "num_csx 16" in f["legends"], f"tp_six: legend {f['legends']}")
    check(all(len(data_lines(a)) == 18 for a in f["axes"]), "tp_six: 18 lines a panel")
    f = fig("scaling_six")
    check(f["axes"] and len(f["axes"][0]["lines"]) == 12, "scaling_six: no ideal line per series beyond four")
    f = fig("bound_long")
    a = f["axes"][0] if f["axes"] else {"text_boxes": []}
    tb = a["text_boxes"]
    check(len(tb) > 4 and not any(overlap(tb[i], tb[j]) for i in range(len(tb)) for j in range(i)),
          f"bound_long: labels overlap: {tb}")
    for b in tb:
        inside(b, f, "bound_long: label")
    foot = " ".join(f["fig_texts"]).replace("\n", " ")
    check(all(s in foot for s in ("I/O = CS-X I/O", "SXn = SwarmX level n", "MemoryX = MemoryX link",
                                  "overhead = step overhead")), f"bound_long: footnote {foot!r}")

    # Unknown filter values: exit 2 naming the option, the value and the values present.
    for name, has in (("bad_batch", ["--batch-size 999", "values present: 64, 128"]),
                      ("bad_platform", ["--platform cs9", "values present: cs2, cs3+io2x"]),
                      ("bad_num", ["--num-csx 3", "values present: 1, 2, 4"]),
                      ("bad_int", ["--num-csx two"])):
        b = res.get(name, {})
        check(b.get("exit") == 2 and all(s in b.get("stderr", "") for s in has), f"{name}: {b}")
finish()
