"""Layers depend one way (README, "Architecture"): every #include "dir/..." of a file under sim/
names its own folder or a folder below it, and only sim/engine includes SimGrid."""
import os
import re

from clitest import check, finish

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# Each layer and the layers it may include (besides itself).
ALLOWED = {
    "common": set(),
    "batching": {"common"},
    "platform": {"common"},
    "model": {"common", "platform"},
    "plan": {"common", "batching", "model", "platform"},
    "engine": {"common", "batching", "model", "platform", "plan"},
    "search": {"common", "batching", "model", "platform", "plan"},
    "input": {"common", "batching", "model", "platform"},
    "report": {"common", "batching", "model", "platform", "plan", "search"},
    "app": {"common", "batching", "model", "platform", "plan", "engine", "search", "input",
            "report"},
    "cli": {"common", "batching", "model", "platform", "plan", "engine", "search", "input",
            "report", "app"},
    # The Python module sits beside the CLI, on top: it calls the CLI's commands.
    "python": {"common", "batching", "model", "platform", "plan", "engine", "search", "input",
               "report", "app", "cli"},
}
sim = os.path.join(ROOT, "sim")
folders = sorted(d for d in os.listdir(sim) if os.path.isdir(os.path.join(sim, d)))
check(set(folders) == set(ALLOWED), f"sim/ folders {folders} are the layers {sorted(ALLOWED)}")
checked = 0
for layer in folders:
    for name in sorted(os.listdir(os.path.join(sim, layer))):
        if not name.endswith((".cpp", ".hpp")):
            continue
        path = os.path.join("sim", layer, name)
        text = open(os.path.join(ROOT, path)).read()
        for n, line in enumerate(text.splitlines(), 1):
            m = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', line)
            if not m:
                continue
            target = m.group(1)
            if target.startswith("simgrid"):
                check(layer == "engine", f"{path}:{n}: includes SimGrid outside sim/engine")
            top = target.split("/")[0]
            if "/" in target and top in ALLOWED:
                check(top == layer or top in ALLOWED.get(layer, set()),
                      f"{path}:{n}: {layer} includes {target} (across the grain)")
        checked += 1
check(checked > 50, f"{checked} files checked")
finish()
