"""The documentation holds together: every docs/FILE.md#anchor or README.md#anchor that code,
data, tests or the docs name exists (file and heading); every relative link of docs/ and
README.md reaches its file and heading; no citation of a README section by its title is left
(the sections moved to docs/); README.md stays short; no text cites material outside the
repository; and docs/architecture.md's layer table is the one tests/cli/test_layering.py
enforces. Anchors are GitHub's heading slugs: lower case, spaces to '-', punctuation dropped,
a repeated heading suffixed -1, -2, ..."""
import os
import re

from clitest import check, finish

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCANNED = ["sim", "tools", "tests", "platforms", "models", "scenarios", "docs", ".ci"]
README_MAX_LINES = 150


def slug(heading):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def outside_fences(text):
    """The lines of a markdown text that are not in a ``` block, with their numbers."""
    fence = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence:
            yield n, line


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        seen, out = {}, set()
        for _, line in outside_fences(open(path, encoding="utf-8").read()):
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            s = slug(m.group(1))
            k = seen.get(s, 0)
            seen[s] = k + 1
            out.add(s if k == 0 else f"{s}-{k}")
        anchor_cache[path] = out
    return anchor_cache[path]


def target_ok(path, anchor, where):
    """Reports a missing file or heading; `path` is absolute."""
    if not os.path.isfile(path):
        check(False, f"{where}: {os.path.relpath(path, ROOT)} does not exist")
        return
    if anchor and path.endswith(".md"):
        check(anchor in anchors(path),
              f"{where}: {os.path.relpath(path, ROOT)} has no heading #{anchor} "
              f"(it has: {', '.join(sorted(anchors(path)))})")


def text_files():
    yield "README.md"
    yield "CMakeLists.txt"
    for top in SCANNED:
        for d, dirs, names in os.walk(os.path.join(ROOT, top)):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for name in sorted(names):
                yield os.path.relpath(os.path.join(d, name), ROOT)


texts = {}
for rel in text_files():
    try:
        texts[rel] = open(os.path.join(ROOT, rel), encoding="utf-8").read()
    except (UnicodeDecodeError, IsADirectoryError):
        pass  # images and other binary files
check("docs/index.md" in texts, "docs/index.md (the table of contents) exists")
check(len(texts) > 100, f"{len(texts)} text files scanned")

# 1. Citations by path: docs/FILE.md#anchor and README.md#anchor, in every scanned file.
cites = 0
for rel, text in texts.items():
    for m in re.finditer(r"(?<![\w/.-])((?:docs/[\w.-]+|README)\.md)(?:#([\w-]+))?", text):
        if m.group(1) == "docs/FILE.md" or m.group(2) == "anchor":
            continue  # the placeholder of a citation's form, as in this file
        line = text.count("\n", 0, m.start()) + 1
        target_ok(os.path.join(ROOT, m.group(1)), m.group(2), f"{rel}:{line}")
        cites += 1
check(cites > 100, f"{cites} docs citations found")

# 2. Relative links of the markdown pages.
links = 0
for rel, text in texts.items():
    if not (rel == "README.md" or (rel.startswith("docs/") and rel.endswith(".md"))):
        continue
    for n, line in outside_fences(text):
        for m in re.finditer(r"!?\[[^\]]*\]\(([^)\s]+)\)", line):
            url = m.group(1)
            if re.match(r"[a-z]+:", url):
                continue  # http:, https:, mailto:
            path, _, anchor = url.partition("#")
            target = os.path.normpath(os.path.join(ROOT, os.path.dirname(rel), path)) if path \
                else os.path.join(ROOT, rel)
            check(target.startswith(ROOT + os.sep), f"{rel}:{n}: {url} leaves the repository")
            target_ok(target, anchor, f"{rel}:{n}: link {url}")
            links += 1
check(links > 20, f"{links} relative links found")

# 3. No citation of a README section by its title ("README" and a quoted title, maybe across a
# line break with its comment marker).
old_style = re.compile(r"README(?:\.md)?,?[ \t]*(?:\n[ \t]*(?://|#|\*)?)?[ \t]*\\?\"[A-Z]")
for rel, text in texts.items():
    for m in old_style.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        check(False, f"{rel}:{line}: a README section cited by title; cite docs/FILE.md#anchor")

# 4. The README stays an entry page.
n_readme = len(texts["README.md"].splitlines())
check(n_readme <= README_MAX_LINES, f"README.md has {n_readme} lines, more than {README_MAX_LINES}")

# 5. Nothing outside the repository is cited. The Model Zoo corpora beside the repository are
# data some tests read (their paths name the corpus); the pages cite none of it.
shared = "../" + "shared"
gap = r"(?:[- \t]|[ \t]*\n[ \t]*(?://|#|\*)?[ \t]*)"  # a space, or a line break in a comment
banned = [re.compile(p, re.I) for p in (r"reference" + gap + r"data", r"\bthe" + gap + r"issue\b")]
for rel, text in texts.items():
    page = rel.endswith(".md")
    for b in banned:
        for m in b.finditer(text):
            n = text.count("\n", 0, m.start()) + 1
            check(False, f"{rel}:{n}: cites {m.group(0)!r}")
    for n, line in enumerate(text.splitlines(), 1):
        if shared in line and (page or not re.search(re.escape(shared) + r"/modelzoo", line)):
            check(False, f"{rel}:{n}: cites {shared}: {line.strip()[:120]}")

# 6. docs/architecture.md's layer table is test_layering.py's ALLOWED.
src = texts["tests/cli/test_layering.py"]
allowed = eval(re.search(r"ALLOWED = (\{.*?\n\})", src, re.S).group(1))  # a dict literal
rows = re.findall(r"^\| `(\w+)` \| [^|]* \| ([^|]*) \|$", texts["docs/architecture.md"], re.M)
check({r[0] for r in rows} == set(allowed),
      f"docs/architecture.md's layers {sorted(r[0] for r in rows)} are {sorted(allowed)}")
for layer, deps in rows:
    if deps.strip() == "nothing":
        got = set()
    elif deps.startswith("every other layer"):
        got = set(allowed) - {layer} - set(re.findall(r"`(\w+)`", deps))
    else:
        got = set(re.findall(r"`(\w+)`", deps))
    check(got == allowed.get(layer), f"docs/architecture.md: {layer} may include {sorted(got)}, "
          f"test_layering.py says {sorted(allowed.get(layer, ()))}")
finish()
