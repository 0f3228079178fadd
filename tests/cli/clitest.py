"""Tiny helpers for the command-line tests: run csxsim, check status and output."""
import os
import subprocess
import sys

CSXSIM = sys.argv[1] if len(sys.argv) > 1 else "build/csxsim"
# Set by tests/CMakeLists.txt in the sanitizer build: slow parts are skipped or sampled there.
SANITIZED = os.environ.get("CSXSIM_SANITIZED") == "1"
failures = []


def run(*args, **kw):
    return subprocess.run([CSXSIM, *map(str, args)], capture_output=True, text=True,
                          timeout=kw.pop("timeout", 600), **kw)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def expect(args, status, out_has=(), err_has=(), **kw):
    r = run(*args, **kw)
    label = "csxsim " + " ".join(map(str, args))
    check(r.returncode == status, f"{label}: status {r.returncode}, expected {status}\n{r.stderr}")
    for s in out_has:
        check(s in r.stdout, f"{label}: stdout lacks {s!r}\n{r.stdout[-2000:]}")
    for s in err_has:
        check(s in r.stderr, f"{label}: stderr lacks {s!r}\n{r.stderr}")
    check("Traceback" not in r.stderr and "terminate called" not in r.stderr, f"{label}: crash")
    return r


def finish():
    print(f"{0 if failures else 1} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)
