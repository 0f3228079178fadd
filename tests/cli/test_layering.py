"""Layers depend one way (docs/architecture.md#layers). The rules checked:

* sim/: every #include of a file under sim/ (any depth, sim/python included) that names a sim/
  file ("dir/x.hpp" from the include root sim/, or a path relative to the including file,
  `..` resolved: "../engine/x.hpp" from sim/cli is engine) names its own layer or one of the
  layers ALLOWED lists for it; none leaves sim/. Only sim/engine includes SimGrid: simgrid/...,
  simgrid.h, and its xbt/... and smpi/... headers.
* sim/python/'s Python package imports nothing of the repository but its own package (relative
  imports, its compiled _csxsim).
* tools/ (Python and shell scripts) reach the simulator only through the built csxsim binary or
  the csxsim Python module: a Python tool imports no repository module but `csxsim` (not
  _csxsim, sim, tests, tools or the test helpers); no tool names a path under sim/ other than
  sim/python/ (reading or compiling the C++ sources), links csxsim_core, or includes a sim/
  header.
* tests/ is not checked: tests may include and import anything (unit tests reach into every
  layer on purpose).

A self-test first feeds the checker synthetic lines that break each rule."""
import ast
import os
import re

from clitest import check, finish

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
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
    # The Python module sits beside the CLI, on top: it runs app::'s typed requests
    # (app/run_request.hpp ...) and takes the text from the CLI's printing functions.
    "python": {"common", "batching", "model", "platform", "plan", "engine", "search", "input",
               "report", "app", "cli"},
}
INCLUDE = re.compile(r'\s*#\s*include\s*([<"])([^>"]+)[>"]')
SIMGRID = re.compile(r"(simgrid|xbt|smpi)(/|\.h$)")
# Repository modules a tool must not import (csxsim, the Python module, is the way in).
FORBIDDEN_IMPORTS = {"_csxsim", "sim", "tests", "tools", "clitest"}
SIM_PATH = re.compile(r"(?<![\w./-])sim/(?!python\b)\w")  # not build/sim/..., not csxsim/...


def include_target(path, quote, target):
    """The repository path (from ROOT) an #include of `path` (a file under sim/) names, or None
    for a header outside the repository. A quoted include is looked up beside the including
    file first, as the compiler does; a path with `..` is resolved from there; otherwise from
    the include root sim/."""
    here = os.path.dirname(path)
    beside = os.path.normpath(os.path.join(here, target))
    if quote == '"' and (".." in target.split("/") or os.path.exists(os.path.join(ROOT, beside))):
        return beside
    top = target.split("/")[0]
    if "/" in target and top in ALLOWED:
        return os.path.normpath(os.path.join("sim", target))
    return None


def layer_of(repo_path):
    parts = repo_path.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[0] == "sim" else None


def cpp_violations(path, text):
    """Broken rules of the C++ file `path` (from ROOT, under sim/) with contents `text`."""
    layer = layer_of(path)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        quote, target = m.groups()
        if SIMGRID.match(target) and layer != "engine":
            out.append(f"{path}:{n}: includes SimGrid ({target}) outside sim/engine")
            continue
        resolved = include_target(path, quote, target)
        if resolved is None:
            continue
        to = layer_of(resolved)
        if to is None:
            out.append(f"{path}:{n}: includes {target}, outside sim/ ({resolved})")
        elif to != layer and to not in ALLOWED.get(layer, set()):
            out.append(f"{path}:{n}: {layer} includes {target} ({to}, across the grain)")
    return out


def python_imports(text):
    """(line, top-level module, relative) of each import of a Python source."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name.split(".")[0], False) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, (node.module or "").split(".")[0], node.level > 0))
    return found


def tool_violations(path, text):
    """Broken rules of the tool script `path` with contents `text`."""
    out = []
    if text.startswith("#!") and "python" in text.splitlines()[0]:
        for n, top, relative in python_imports(text):
            if relative or top in FORBIDDEN_IMPORTS:
                out.append(f"{path}:{n}: imports {top or '.'} (tools use csxsim or the binary)")
    for n, line in enumerate(text.splitlines(), 1):
        if SIM_PATH.search(line):
            out.append(f"{path}:{n}: names a path under sim/: {line.strip()}")
        if "csxsim_core" in line:
            out.append(f"{path}:{n}: links the simulator's library: {line.strip()}")
        m = INCLUDE.match(line)
        if m and m.group(2).split("/")[0] in ALLOWED:
            out.append(f"{path}:{n}: includes the sim/ header {m.group(2)}")
    return out


def package_violations(path, text):
    """Imports of the Python package under sim/python that reach out of it."""
    return [f"{path}:{n}: imports {top} (the package imports only itself)"
            for n, top, relative in python_imports(text)
            if not relative and top in FORBIDDEN_IMPORTS | {"csxsim"}]


# Self-test: each synthetic line breaks a rule and is flagged; the lawful ones are not.
j = os.path.join
check(include_target(j("sim", "cli", "x.cpp"), '"', "../engine/x.hpp") == j("sim", "engine", "x.hpp"),
      "self-test: ../engine/x.hpp from sim/cli resolves to sim/engine")
for path, line in [(j("sim", "search", "x.cpp"), '#include "../engine/x.hpp"'),
                   (j("sim", "model", "x.cpp"), '#include "../cli/options.hpp"'),
                   (j("sim", "model", "x.cpp"), "#include <xbt/log.h>"),
                   (j("sim", "cli", "x.cpp"), "#include <simgrid/s4u.hpp>"),
                   (j("sim", "cli", "x.cpp"), "#include <xbt.h>"),
                   (j("sim", "report", "x.cpp"), '#include "../../tests/unit/temp_files.hpp"'),
                   (j("sim", "common", "x.hpp"), '#include "model/layer_costs.hpp"')]:
    check(len(cpp_violations(path, line)) == 1, f"self-test: {path}: {line!r} is not flagged")
for path, line in [(j("sim", "engine", "x.cpp"), "#include <xbt/log.h>"),
                   (j("sim", "cli", "x.cpp"), '#include "../engine/x.hpp"'),
                   (j("sim", "cli", "x.cpp"), '#include "cli/options.hpp"'),
                   (j("sim", "cli", "x.cpp"), "#include <boost/program_options.hpp>")]:
    check(cpp_violations(path, line) == [], f"self-test: {path}: {line!r} is flagged")
PY = "#!/usr/bin/env python3\n"
for text in [PY + "import _csxsim\n", PY + "from sim.python import csxsim\n",
             PY + "import clitest\n", PY + "from . import helper\n",
             PY + "src = open('sim/batching/choice_rules.cpp').read()\n",
             "#!/usr/bin/env bash\ng++ sim/engine/*.cpp -o x\n",
             "#!/usr/bin/env bash\nc++ x.o -lcsxsim_core\n"]:
    check(len(tool_violations(j("tools", "x"), text)) == 1, f"self-test: {text!r} is not flagged")
for text in [PY + "import csxsim\nimport numpy as np\nfrom matplotlib import ticker\n",
             PY + "subprocess.run(['build/csxsim', 'run', 'scenarios/x.yaml'])\n",
             PY + "sys.path.insert(0, 'build/sim/python')\n"]:
    check(tool_violations(j("tools", "x"), text) == [], f"self-test: {text!r} is flagged")
check(len(package_violations("x.py", "import clitest\nfrom .helper import y\n")) == 1,
      "self-test: the package importing clitest is not flagged")


def report(violations):
    for v in violations:
        check(False, v)


sim = j(ROOT, "sim")
folders = sorted(d for d in os.listdir(sim) if os.path.isdir(j(sim, d)))
check(set(folders) == set(ALLOWED), f"sim/ folders {folders} are the layers {sorted(ALLOWED)}")
checked = python_files = 0
for folder, dirs, files in os.walk(sim):
    dirs.sort()
    for name in sorted(files):
        path = os.path.relpath(j(folder, name), ROOT)
        if name.endswith((".cpp", ".hpp", ".h")):
            report(cpp_violations(path, open(j(ROOT, path)).read()))
            checked += 1
        elif name.endswith(".py"):
            report(package_violations(path, open(j(ROOT, path)).read()))
            python_files += 1
check(checked > 50, f"{checked} C++ files checked")
check(python_files >= 1, f"{python_files} Python files of sim/python checked")
tools = 0
for folder, dirs, files in os.walk(j(ROOT, "tools")):
    dirs.sort()
    for name in sorted(files):
        full = j(folder, name)
        try:
            text = open(full, encoding="utf-8").read()
        except UnicodeDecodeError:  # images of tools/gallery
            continue
        report(tool_violations(os.path.relpath(full, ROOT), text))
        tools += 1
check(tools >= 5, f"{tools} tools checked")
finish()
