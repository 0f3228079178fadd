"""Sweeps on a real single-node Slurm cluster, with faults: installs Slurm and MUNGE
(`tools/bootstrap --cluster`), starts munged, slurmctld and slurmd on this host from a
configuration in a temporary folder, then checks that every way of running the grid gives the
unsharded sweep's bytes: `tools/slurm-sweep --wait` (4 array tasks and a merge); a task
cancelled in the middle of its shard, then `--resume`; slurmd killed while a task runs, restarted
(tasks Slurm lost across the restart are cancelled), then `--resume`; GNU parallel on the local host (`-S :`). Stops every daemon it started, by
the process id it recorded, however it ends. Needs root (the daemons run as root).

usage: test_slurm_cluster.py CSXSIM"""
import csv
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

CSXSIM = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/csxsim")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SLURM_SWEEP = os.path.join(ROOT, "tools", "slurm-sweep")
SCEN = os.path.join(ROOT, "scenarios", "gpt3_175b_16x_cs2_explore.yaml")
# 16 points, explore (the scenario's MBS setting, compile-only); shard I holds batch size
# GRID_BATCHES[I] at every num_csx, so shard 3 is the slowest.
GRID = ["--num-csx", "1,2,4,8", "--batch-size", "64,128,256,512", "--micro-batch-size",
        "explore"]
SHARDS = 4
BUDGET_S = 170  # the whole test, package install included (the test's budget is 3 minutes)
T0 = time.monotonic()
failures = []
timings = []


class Failed(Exception):
    pass


def stamp(what):
    line = f"[{time.monotonic() - T0:6.1f} s] {what}"
    timings.append(line)
    print(line, flush=True)


def fail(what):
    raise Failed(what)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def wait_until(cond, seconds, what):
    """Polls cond() every 0.05 s for at most `seconds`; fails naming `what`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    fail(f"{what}: not within {seconds} s")


def die_with_parent():
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    os.setpgid(0, 0)


class Cluster:
    """munged, slurmctld and slurmd on this host; every daemon started is recorded."""

    def __init__(self, d):
        self.d = d
        self.daemons = {}  # name -> Popen (the recorded process id is .pid)
        self.env = dict(os.environ, SLURM_CONF=os.path.join(d, "slurm.conf"))

    def start(self, name, cmd, log):
        exe = shutil.which(cmd[0])
        if not exe:
            fail(f"{cmd[0]}: not installed (tools/bootstrap --cluster installs it)")
        out = open(os.path.join(self.d, log), "ab")
        self.daemons[name] = subprocess.Popen([exe, *cmd[1:]], stdout=out, stderr=out,
                                              stdin=subprocess.DEVNULL, env=self.env,
                                              preexec_fn=die_with_parent)
        return self.daemons[name]

    def alive(self, name):
        p = self.daemons.get(name)
        return p is not None and p.poll() is None

    def last_log_line(self, log):
        try:
            lines = open(os.path.join(self.d, log), errors="replace").read().splitlines()
            return lines[-1] if lines else "(empty log)"
        except OSError:
            return "(no log)"

    def setup(self):
        d = self.d
        for sub in ("state", "spool"):
            os.makedirs(os.path.join(d, sub))
        key = os.path.join(d, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        ports = []
        for _ in range(2):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                ports.append(s.getsockname()[1])
        host = socket.gethostname()
        with open(self.env["SLURM_CONF"], "w") as f:
            f.write(f"""# Written by tests/cluster/test_slurm_cluster.py: one node, this host.
ClusterName=csxsimtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ports[0]}
SlurmdPort={ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge.socket
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
KillWait=10
NodeName=csxnode NodeHostname={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=debug Nodes=csxnode Default=YES MaxTime=INFINITE State=UP
""")
        self.start("munged", ["munged", "-F", "--force", f"--key-file={key}",
                              f"--socket={d}/munge.socket", f"--pid-file={d}/munged.pid",
                              f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed"],
                   "munged.out")
        wait_until(lambda: os.path.exists(f"{d}/munge.socket") or not self.alive("munged"), 10,
                   "munged's socket")
        if not self.alive("munged"):
            fail(f"munged did not start: {self.last_log_line('munged.out')}")
        self.start("slurmctld", ["slurmctld", "-D", "-f", self.env["SLURM_CONF"]],
                   "slurmctld.out")
        self.start_slurmd()

    def start_slurmd(self):
        self.start("slurmd", ["slurmd", "-D", "-f", self.env["SLURM_CONF"], "-N", "csxnode"],
                   "slurmd.out")
        self.wait_idle_or_busy(20)

    def node_state(self):
        r = self.cmd(["sinfo", "-h", "-N", "-o", "%T"], check_rc=False)
        return r.stdout.strip() if r.returncode == 0 else ""

    def wait_idle_or_busy(self, seconds):
        def up():
            for name in ("slurmctld", "slurmd"):
                if not self.alive(name):
                    fail(f"{name} did not start: {self.last_log_line(name + '.out')}")
            state = self.node_state()
            if "drain" in state:  # as an administrator would, after a failed launch
                print(f"node csxnode {state}: scontrol update state=resume")
                self.cmd(["scontrol", "update", "nodename=csxnode", "state=resume"],
                         check_rc=False)
            return state in ("idle", "mixed", "allocated")
        wait_until(up, seconds, f"node csxnode up (state now '{self.node_state()}')")

    def cmd(self, args, check_rc=True, timeout=30):
        r = subprocess.run(args, capture_output=True, text=True, env=self.env, timeout=timeout,
                           cwd=ROOT)
        if check_rc and r.returncode != 0:
            fail(f"{' '.join(args)}: status {r.returncode}: {r.stderr.strip()}")
        return r

    def job_field(self, job, field):
        r = self.cmd(["scontrol", "show", "job", "-o", job], check_rc=False)
        m = re.search(rf"\b{field}=(\S+)", r.stdout)
        return m.group(1) if m else ""

    def stop(self):
        """Cancels every job, then stops each daemon by its recorded process id."""
        if self.alive("slurmctld"):
            self.cmd(["scancel", "--user", "root"], check_rc=False)
            try:
                wait_until(lambda: not self.cmd(["squeue", "-h"], check_rc=False).stdout.strip(),
                           15, "every job gone")
            except Failed as e:
                print("cleanup:", e)
        for name in ("slurmd", "slurmctld", "munged"):
            p = self.daemons.get(name)
            if p is None or p.poll() is not None:
                continue
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
            print(f"cleanup: stopped {name} (pid {p.pid})")


def points_of(path):
    return {(r["num_csx"], r["batch_size"]) for r in csv.DictReader(open(path))}


def slurm_sweep(cluster, *args, timeout=120):
    r = cluster.cmd([sys.executable, SLURM_SWEEP, *args], check_rc=False, timeout=timeout)
    print(r.stdout, end="")
    print(r.stderr, end="", file=sys.stderr)
    return r


def job_ids(r):
    a = re.search(r"array job (\d+)", r.stdout)
    m = re.search(r"merge job (\d+)", r.stdout)
    if not m:
        fail(f"slurm-sweep printed no merge job: {r.stdout}{r.stderr}")
    return (a.group(1) if a else None), m.group(1)


def wait_job_final(cluster, job, seconds):
    final = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL"}
    return wait_until(lambda: cluster.job_field(job, "JobState") in final and
                      cluster.job_field(job, "JobState"), seconds, f"job {job} ends")


def main(d):
    stamp("start")
    if os.geteuid() != 0:
        fail("needs root: munged, slurmctld and slurmd run as root here")
    r = subprocess.run([os.path.join(ROOT, "tools", "bootstrap"), "--cluster"],
                       capture_output=True, text=True, timeout=150)
    if r.returncode != 0:
        fail(f"tools/bootstrap --cluster failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    for exe in ("munged", "slurmctld", "slurmd", "sbatch", "scancel", "scontrol", "squeue",
                "sinfo", "parallel"):
        if not shutil.which(exe):
            fail(f"{exe}: not installed after tools/bootstrap --cluster")
    stamp("packages present (tools/bootstrap --cluster)")

    cluster = Cluster(d)
    try:
        cluster.setup()
        stamp("munged, slurmctld and slurmd up")
        run_checks(cluster, d)
    finally:
        cluster.stop()
        stamp("daemons stopped")


def run_checks(cluster, d):
    ref = os.path.join(d, "ref.csv")
    cluster.cmd([CSXSIM, "sweep", SCEN, *GRID, "--csv", ref, "-q", "--jobs", "2"], timeout=120)
    want = open(ref, "rb").read()
    check(len(points_of(ref)) == 16, "the reference sweep has 16 points")
    stamp("unsharded reference sweep")
    opts = [SCEN, *GRID, "--shards", str(SHARDS), "--csxsim", CSXSIM]

    # 1. Four array tasks and a merge.
    out = os.path.join(d, "sweep.csv")
    r = slurm_sweep(cluster, *opts, "--csv", out, "--wait", "--timeout", "90")
    check(r.returncode == 0, f"slurm-sweep --wait: status {r.returncode}")
    check(os.path.isfile(out) and open(out, "rb").read() == want,
          "4 array tasks merged: byte-identical to the unsharded sweep")
    stamp("1. slurm-sweep --wait: 4 shards merged, same bytes")

    # 2. One array task cancelled in the middle of its shard (slurm-sweep --wait watching),
    # then --resume.
    out = os.path.join(d, "cancelled.csv")
    waiting = subprocess.Popen([sys.executable, SLURM_SWEEP, *opts, "--csv", out, "--wait",
                                "--timeout", "90"], stdout=subprocess.PIPE, text=True,
                               env=cluster.env, cwd=ROOT)
    head = "".join(waiting.stdout.readline() for _ in range(3))  # array, merge, result
    print(head, end="")
    array, merge = job_ids(subprocess.CompletedProcess([], 0, head, ""))
    part = out + ".parts/shard-3.csv"
    done = out + ".parts/shard-3.done"
    wait_until(lambda: os.path.isfile(part) or os.path.isfile(done), 60,
               "shard 3 writes its first points")
    if os.path.isfile(done):
        fail("shard 3 finished before it could be cancelled in its middle")
    cluster.cmd(["scancel", f"{array}_3"])
    task_state = wait_job_final(cluster, f"{array}_3", 30)
    merge_state = wait_job_final(cluster, merge, 60)
    rest = waiting.communicate(timeout=30)[0]
    print(rest, end="")
    check(waiting.returncode == 4 and "shard 3 (CANCELLED)" in rest,
          f"slurm-sweep --wait names the cancelled shard and exits 4: {waiting.returncode}")
    kept = len(points_of(part))
    check(task_state == "CANCELLED" and 0 < kept < 4 and not os.path.isfile(done),
          f"task {array}_3 cancelled mid-shard: {task_state}, {kept} of 4 points kept")
    check(merge_state == "CANCELLED", f"the merge did not run after the cancel: {merge_state}")
    stamp(f"2. task {array}_3 cancelled with {kept} of its 4 points written; merge "
          f"{merge_state}")
    r = slurm_sweep(cluster, "--resume", out, "--wait", "--timeout", "90")
    check(r.returncode == 0 and "3 of 4 shards done; submitting again: 3" in r.stdout,
          f"--resume submits shard 3 only: status {r.returncode}")
    check(f"resume: {kept} finished points kept" in open(out + ".parts/shard-3.log").read(),
          "the resubmitted shard kept its finished points")
    check(os.path.isfile(out) and open(out, "rb").read() == want,
          "after the cancel and --resume: byte-identical to the unsharded sweep")
    stamp("2. --resume ran shard 3's missing points: same bytes")

    # 3. slurmd killed while a task runs, restarted, then --resume.
    out = os.path.join(d, "slurmd.csv")
    r = slurm_sweep(cluster, *opts, "--csv", out)
    array, merge = job_ids(r)
    wait_until(lambda: cluster.job_field(f"{array}_1", "JobState") == "RUNNING", 60,
               f"task {array}_1 running")
    old = cluster.daemons["slurmd"].pid
    cluster.daemons["slurmd"].kill()
    cluster.daemons["slurmd"].wait(10)
    states = {i: cluster.job_field(f"{array}_{i}", "JobState") for i in range(SHARDS)}
    stamp(f"3. slurmd (pid {old}) killed; tasks: {states}")
    time.sleep(1)
    cluster.start_slurmd()
    stamp(f"3. slurmd restarted (pid {cluster.daemons['slurmd'].pid}), node "
          f"{cluster.node_state()}")
    try:
        merge_state = wait_job_final(cluster, merge, 45)
    except Failed:
        # Slurm can lose the tasks that ran while slurmd was down: slurmctld keeps them RUNNING
        # with no process behind them (seen once in CI, node idle after the restart). An
        # administrator cancels them; --resume below must still give the same bytes.
        states = {i: cluster.job_field(f"{array}_{i}", "JobState") for i in range(SHARDS)}
        steps = cluster.cmd(["pgrep", "-a", "slurmstepd"], check_rc=False).stdout.strip()
        stamp(f"3. merge not ended 45 s after the restart: tasks {states}; slurmstepd "
              f"processes: {steps or 'none'}; scancel {array} {merge}, as an administrator would")
        cluster.cmd(["scancel", array, merge], check_rc=False)
        merge_state = wait_job_final(cluster, merge, 30)
        try:
            wait_until(lambda: not cluster.cmd(["squeue", "-h"], check_rc=False).stdout.strip(),
                       15, "the cancelled tasks leave the queue")
        except Failed:
            # Tasks stuck COMPLETING (their epilog never confirmed): the node is set down,
            # which ends them, and resumed.
            stamp("3. still queued: " + cluster.cmd(["squeue", "-h", "-o", "%i %T"],
                                                     check_rc=False).stdout.strip().replace(
                "\n", ", ") + "; node set down and resumed, as an administrator would")
            cluster.cmd(["scontrol", "update", "nodename=csxnode", "state=down",
                         "reason=tasks lost across slurmd's restart"])
            cluster.cmd(["scontrol", "update", "nodename=csxnode", "state=resume"])
            cluster.wait_idle_or_busy(20)
    states = {i: cluster.job_field(f"{array}_{i}", "JobState") + " restarts " +
              cluster.job_field(f"{array}_{i}", "Restarts") for i in range(SHARDS)}
    stamp(f"3. after the restart: tasks {states}, merge {merge_state}")
    r = slurm_sweep(cluster, "--resume", out, "--wait", "--timeout", "90")
    check(r.returncode == 0, f"--resume after slurmd's restart: status {r.returncode}")
    check(os.path.isfile(out) and open(out, "rb").read() == want,
          "after slurmd was killed and --resume: byte-identical to the unsharded sweep")
    stamp("3. --resume after slurmd's restart: same bytes "
          f"({r.stdout.splitlines()[0] if r.stdout else ''})")

    # 4. GNU parallel on the local host: the sshlogin ':' runs the jobs here, without ssh.
    parts = os.path.join(d, "parallel")
    os.makedirs(parts)
    cluster.cmd([shutil.which("parallel"), "--will-cite", "-S", ":", "-j", "2", "--workdir",
                 ROOT, CSXSIM, "sweep", SCEN, *GRID, "--shard", "{}/4", "--csv",
                 os.path.join(parts, "part-{}.csv"), "-q", ":::", "0", "1", "2", "3"],
                timeout=120)
    merged = os.path.join(d, "parallel.csv")
    cluster.cmd([CSXSIM, "merge", *[os.path.join(parts, f"part-{i}.csv") for i in range(4)],
                 "-o", merged])
    check(open(merged, "rb").read() == want, "GNU parallel -S : shards merged: same bytes")
    stamp("4. GNU parallel -S : shards merged: same bytes")


def on_signal(sig, _frame):
    raise Failed(f"stopped by signal {sig} (or the {BUDGET_S} s budget ran out)")


if __name__ == "__main__":
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
        signal.signal(s, on_signal)
    signal.alarm(BUDGET_S)
    d = tempfile.mkdtemp(prefix="csxsim-cluster-")
    os.chmod(d, 0o755)  # munged wants its socket's folder searchable by all
    try:
        main(d)
    except (Failed, subprocess.TimeoutExpired) as e:
        failures.append(str(e))
        print("FAIL:", e, flush=True)
    finally:
        signal.alarm(0)
        if failures:
            for log in ("slurmctld.log", "slurmd.log"):
                p = os.path.join(d, log)
                if os.path.isfile(p):
                    print(f"--- last lines of {log}")
                    print("\n".join(open(p, errors="replace").read().splitlines()[-8:]))
        shutil.rmtree(d, ignore_errors=True)
    print("\n".join(["timings:", *timings]))
    print(f"{0 if failures else 1} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)
