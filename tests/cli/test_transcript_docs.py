"""Docs that show a transcript show it as it is: in README.md and docs/**/*.md, a fenced block
directly after a line `<!-- transcript: tests/golden/NAME.tesh -->` must equal that transcript
rendered as a console session by tools/update-transcripts (`$ csxsim ARGS`, the output, then
`(exit status N)` when N is not 0); a marker naming a missing transcript fails too. A self-test
on a synthetic page and transcript runs first. csxsim itself is not run (argv[1] is unused):
ctest's transcript.* tests check that the transcripts hold."""
import difflib
import glob
import importlib.machinery
import importlib.util
import os
import re
import tempfile

from clitest import check, finish

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
loader = importlib.machinery.SourceFileLoader(
    "update_transcripts", os.path.join(ROOT, "tools", "update-transcripts"))
transcripts = importlib.util.module_from_spec(
    importlib.util.spec_from_loader("update_transcripts", loader))
loader.exec_module(transcripts)

MARKER = re.compile(r"^<!--\s*transcript:\s*(\S+)\s*-->\s*$")
FENCE = re.compile(r"^(`{3,}|~{3,})[\w+-]*\s*$")


def check_markdown(text, name, root):
    """The problems of one page: a list of strings (empty when every embedded block holds)."""
    problems, lines, found = [], text.split("\n"), 0
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        found += 1
        where, path = f"{name}:{i + 1}", m.group(1)
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            problems.append(f"{where}: the marker names {path}, which does not exist")
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if not fence:
            problems.append(f"{where}: the marker for {path} is not directly followed by a "
                            "fenced block")
            continue
        close = fence.group(1)
        end = next((j for j in range(i + 2, len(lines)) if lines[j].rstrip() == close), None)
        if end is None:
            problems.append(f"{where}: the block after the marker for {path} is not closed")
            continue
        shown = lines[i + 2:end]
        try:
            want = transcripts.render(full)
        except transcripts.TranscriptError as e:
            problems.append(f"{where}: {path}: {e}")
            continue
        if shown != want:
            diff = "\n".join(difflib.unified_diff(want, shown, f"{path} (rendered)",
                                                  f"{name} (shown)", lineterm="", n=1))
            problems.append(f"{where}: the block differs from {path}; run "
                            f"`tools/update-transcripts --render {path}` for it:\n{diff}")
    return problems, found


# Self-test: a synthetic transcript, and pages that show it right, wrong, or name a missing one.
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "tests", "golden"))
    with open(os.path.join(tmp, "tests", "golden", "demo.tesh"), "w") as f:
        f.write("# a comment\n\n! ignore ^took \\d+ s\n$ ${bindir:=build}/csxsim run a.yaml "
                "--csv ${tmpdir:=/tmp}/a.csv\n> table\n>\n> chosen: 12\n\n! expect return 2\n"
                "$ ${bindir:=build}/csxsim runn\n> csxsim: error: unknown command 'runn'\n")
    rendered = ["$ csxsim run a.yaml --csv a.csv", "table", "", "chosen: 12", "$ csxsim runn",
                "csxsim: error: unknown command 'runn'", "(exit status 2)"]
    check(transcripts.render(os.path.join(tmp, "tests", "golden", "demo.tesh")) == rendered,
          "self-test: the rendering drops ${bindir}/ and ${tmpdir}/, shows the status")
    marker = "<!-- transcript: tests/golden/demo.tesh -->"
    good = "\n".join(["# Page", "", marker, "```console", *rendered, "```", "after"])
    check(check_markdown(good, "good.md", tmp) == ([], 1), "self-test: a faithful block passes")
    wrong = good.replace("chosen: 12", "chosen: 11")
    problems, _ = check_markdown(wrong, "wrong.md", tmp)
    check(len(problems) == 1 and "-chosen: 12" in problems[0] and "+chosen: 11" in problems[0],
          f"self-test: a changed line fails, with a diff: {problems}")
    problems, _ = check_markdown(good.replace("(exit status 2)\n", ""), "status.md", tmp)
    check(len(problems) == 1, "self-test: a block without the exit status fails")
    problems, _ = check_markdown(good.replace("demo.tesh", "gone.tesh"), "gone.md", tmp)
    check(len(problems) == 1 and "gone.tesh, which does not exist" in problems[0],
          f"self-test: a marker naming a missing transcript fails: {problems}")
    problems, _ = check_markdown(good.replace(marker + "\n", marker + "\n\n"), "gap.md", tmp)
    check(len(problems) == 1 and "not directly followed" in problems[0],
          f"self-test: a marker must be followed directly by the block: {problems}")
    check(check_markdown(good.replace(marker + "\n", ""), "none.md", tmp) == ([], 0),
          "self-test: a block without a marker is not checked")

# The repository's pages.
pages = [os.path.join(ROOT, "README.md")]
pages += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
total = 0
for page in pages:
    problems, found = check_markdown(open(page).read(), os.path.relpath(page, ROOT), ROOT)
    total += found
    for p in problems:
        check(False, p)
print(f"{total} embedded transcripts in {len(pages)} pages")
finish()
