"""docs/cli.md's table of options is the option table (sim/app/option_table.cpp) as
`csxsim options` prints it, byte for byte; every command's --help lists the table's options
of that command, and the Python functions take the table's keywords. Regenerate the docs'
table with `tools/update-options-doc build/csxsim` after changing an option."""
import inspect
import os
import re
import sys

from clitest import check, finish, run

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BEGIN = "<!-- options: tools/update-options-doc writes this table from `csxsim options` -->"
END = "<!-- end of options -->"

r = run("options")
check(r.returncode == 0 and r.stderr == "", f"csxsim options: status {r.returncode}\n{r.stderr}")
page = open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8").read()
m = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), page, re.S)
check(m is not None, f"docs/cli.md has a block between {BEGIN!r} and {END!r}")
if m:
    check(m.group(1) == r.stdout,
          "docs/cli.md's table of options differs from `csxsim options`: run "
          "tools/update-options-doc build/csxsim")


def cells_of(line):
    """The cells of a Markdown table row (an escaped \\| stays in its cell)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]


# --help of each command of a row lists the row's flag.
rows = r.stdout.splitlines()[2:]
check(len(rows) > 30, f"{len(rows)} rows")
helps = {}
for line in rows:
    cells = cells_of(line)
    check(len(cells) == 7, f"7 cells: {line}")
    flag, commands = cells[0], cells[5].split(", ")
    for command in commands:
        if command not in helps:
            helps[command] = run(command, "--help").stdout
        if flag != "-":
            long_flag = flag.split("`")[1]
            if not long_flag.startswith("--"):  # a command's argument, MODEL: also --model
                long_flag = "--" + long_flag.lower()
            check(re.search(rf"(^|\s){re.escape(long_flag)}\b", helps[command], re.M) is not None,
                  f"csxsim {command} --help lists {long_flag}")

# No command takes an option twice, and no two options share a flag or a keyword.
seen, owner = set(), {}
for line in rows:
    cells = cells_of(line)
    for command in cells[5].split(", "):
        check((cells[0], command) not in seen, f"{command} takes {cells[0]} twice")
        seen.add((cells[0], command))
    if cells[0] != "-" and cells[1] != "-":
        flag = cells[0].split("`")[1]
        check(owner.setdefault(flag, cells[1]) == cells[1],
              f"{flag}: keywords {owner[flag]}, {cells[1]}")

# The Python functions' keywords are the table's Python column for their command.
build = os.path.dirname(os.path.abspath(sys.argv[1])) if len(sys.argv) > 1 else "build"
sys.path.insert(0, os.path.join(build, "python"))
try:
    import csxsim
except ImportError:
    csxsim = None
if csxsim is not None:
    for name in ("run", "sweep", "plan", "validate", "candidates", "describe"):
        want = set()
        for line in rows:
            cells = cells_of(line)
            if name in cells[5].split(", ") and cells[1] != "-":
                want.add(cells[1].strip("`"))
        have = set(inspect.signature(getattr(csxsim, name)).parameters)
        check(have == want,
              f"csxsim.{name}'s keywords {sorted(have)} are the table's {sorted(want)}")
    try:
        csxsim.plan("llama3_8b", tokens="1e12", deadlne="7d")
        check(False, "plan(deadlne=...): no error")
    except csxsim.InputError as e:
        want = "plan(): unrecognised keyword argument 'deadlne' (did you mean 'deadline'?)"
        check(str(e) == want, str(e))
finish()
