"""csxsim from Python (docs/python.md#python): the CLI's commands, run in-process by the same C++
code, with the same inputs as its flags. run, sweep and validate return a Result whose records
are the rows of the CSV the CLI writes, with its column names and units.

Errors raise InputError (a ValueError: bad input, the CLI's exit status 2) or InfeasibleError
(nothing fits, status 1; its .result holds the rows that say why), with the CLI's message.
"""
import json
import os
import tempfile

from ._csxsim import InfeasibleError, InputError, command

__all__ = ["run", "sweep", "plan", "validate", "candidates", "describe", "Result", "InputError",
           "InfeasibleError"]


class Result:
    """What run, sweep or validate wrote.

    records: one dict per CSV row, {column: value}; numbers as int or float (the CSV's value),
             fits and chosen as bool, empty fields as None
    columns: the CSV's column names, in order
    units:   {column: unit}, e.g. "s", "bytes", "samples/s", "fraction"; "" for text
    inputs:  what produced the rows (scenario, model, platform, overrides, num_csx, ...)
    csv:     the CSV text, byte for byte what the CLI's --csv writes
    text:    what the CLI prints on standard output
    status:  the CLI's exit status (validate: 1 when a check failed)
    """

    def __init__(self, csv_text, document, text, status):
        self.csv = csv_text
        self.inputs = document["inputs"]
        self.units = document["units"]
        self.columns = list(self.units)
        self.records = document["records"]
        self.text = text
        self.status = status

    @property
    def chosen(self):
        """The chosen candidates' records (one per pass)."""
        return [r for r in self.records if r.get("chosen")]

    def to_pandas(self):
        """The records as a pandas DataFrame, one column per CSV column (needs pandas)."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("Result.to_pandas() needs pandas (Debian python3-pandas)") from e
        return pandas.DataFrame.from_records(self.records, columns=self.columns)

    def __len__(self):
        return len(self.records)

    def __repr__(self):
        return f"<csxsim.Result: {len(self.records)} records from {self.inputs.get('command')}>"


# Options that are bare flags (True sets them); every other option takes a value.
_SWITCHES = {"compile_only", "measurements_only"}


def _text(value, what):
    """One option value as the CLI's text: a str, a path, an int or a float (no bool, no NUL)."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(f"{what} = {value!r}: expected a string or a number, not {type(value).__name__}")
    text = str(value)
    if "\0" in text:
        raise InputError(f"{what} = {text!r}: contains a NUL character")
    return text


def _list(value, what):
    """A sweep list: "1:16:x2", "1,2,4", an int or a sequence of ints."""
    if isinstance(value, (list, tuple, range)):
        if len(value) == 0:
            raise InputError(f"{what} = {value!r}: an empty list; give at least one value")
        return ",".join(_text(v, what) for v in value)
    return _text(value, what)


def _pairs(value, what):
    """{"KEY": value} or ["KEY=VALUE", ...] -> ["KEY=VALUE", ...]; a value may not hold , or =."""
    if isinstance(value, dict):
        out = []
        for key, v in value.items():
            text = _text(v, f"{what}[{key!r}]")
            if "," in text or "=" in text:
                raise InputError(f"{what}[{key!r}] = {text!r}: a value holds no ',' or '='")
            out.append(f"{_text(key, what)}={text}")
        return out
    if isinstance(value, (list, tuple)):
        return [_text(kv, what) for kv in value]
    raise InputError(f"{what} = {value!r}: expected a dict of KEY: value or a list of 'KEY=VALUE'")


def _overrides(value):
    """platform_override: {"KEY": value} or ["KEY=VALUE", ...] -> repeated flags."""
    if value is None:
        return []
    args = []
    for kv in _pairs(value, "platform_override"):
        args += ["--platform-override", kv]
    return args


def _variants(value):
    """variant: {"NAME": {"KEY": value}} or ["NAME:KEY=VALUE,..."] -> repeated --variant flags."""
    if value is None:
        return []
    if isinstance(value, dict):
        value = [_text(name, "variant") + ":" + ",".join(_pairs(kv, f"variant[{name!r}]"))
                 for name, kv in value.items()]
    elif not isinstance(value, (list, tuple)):
        raise InputError(f"variant = {value!r}: expected a dict of NAME: {{KEY: value}} or a list")
    args = []
    for v in value:
        args += ["--variant", _text(v, "variant")]
    return args


def _platforms(value):
    """platform: a name, a file, or a list of them."""
    return _list(value, "platform") if isinstance(value, (list, tuple)) else value


def _flags(**options):
    """Keyword arguments as the CLI's flags: num_csx=4 -> --num-csx 4; switches take True."""
    args = []
    for key, value in options.items():
        if value is None:
            continue
        flag = "--" + key.replace("_", "-")
        if key in _SWITCHES:
            if not isinstance(value, bool):
                raise InputError(f"{key} = {value!r}: expected True or False")
            args += [flag] if value else []
        else:
            args += [flag, _text(value, key)]
    return args


def _run_writing(name, args, csv_path=None):
    """Runs the command with --csv and --json into a temporary folder (the CSV at csv_path when
    given, which then stays); returns a Result. A sweep's CSV without csv_path is a temporary
    file of its own, kept only when the sweep is interrupted (the CLI names it)."""
    given = csv_path is not None
    if not given and name == "sweep":
        fd, csv_path = tempfile.mkstemp(prefix="csxsim-sweep-", suffix=".csv")
        os.close(fd)
    interrupted = False
    try:
        return _run_into(name, args, csv_path, given)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        if csv_path is not None and not given and not interrupted and os.path.exists(csv_path):
            os.remove(csv_path)


def _run_into(name, args, csv_path, given):
    with tempfile.TemporaryDirectory(prefix="csxsim-") as tmp:
        csv_path = csv_path if csv_path is not None else os.path.join(tmp, "out.csv")
        json_path = os.path.join(tmp, "out.json")
        full = [*args, "--csv", csv_path, "--json", json_path]

        def result(status, text):
            with open(csv_path, encoding="utf-8", newline="") as f:
                csv_text = f.read()
            with open(json_path, encoding="utf-8") as f:
                document = json.load(f)
            return Result(csv_text, document, text, status)

        try:
            status, text = command(name, full)
        except InfeasibleError as e:
            if os.path.exists(csv_path) and os.path.exists(json_path):
                e.result = result(1, "")
            raise
        if status >= 128:  # sweep stopped by SIGINT or SIGTERM
            where = (f"the finished points are kept in {csv_path}; call again with resume=True"
                     if given else f"the finished points are kept in {csv_path}; call again with "
                     f"csv={csv_path!r}, resume=True to finish")
            raise KeyboardInterrupt(f"csxsim {name} interrupted (status {status}): {where}")
        return result(status, text)


def run(scenario, *, num_csx=None, batch_size=None, micro_batch_size=None, platform=None,
        mode=None, compile_only=False, steps=None, tokens=None, sim_steps=None, seq_len=None,
        platform_override=None, jobs=None, trace=None):
    """csxsim run SCENARIO: each candidate of the MBS setting, simulated; returns a Result.

    scenario: a scenario or Model Zoo params file. The options are run's flags
    (docs/cli.md#options-of-run-and-sweep): micro_batch_size "auto" | "explore" | "none" | int |
    "MIN:MAX"; platform
    "cs2" | "cs3" | a file; mode "train" | "eval" | "train_and_eval"; platform_override
    {"KEY": value} or ["[P:]KEY=VALUE"]; trace: a path for the Chrome trace JSON.
    """
    args = [_text(scenario, "scenario"), *_flags(num_csx=num_csx, batch_size=batch_size,
                                   micro_batch_size=micro_batch_size, platform=platform,
                                   mode=mode, compile_only=compile_only, steps=steps,
                                   tokens=tokens, sim_steps=sim_steps, seq_len=seq_len, jobs=jobs,
                                   trace=trace),
            *_overrides(platform_override)]
    return _run_writing("run", args)


def sweep(scenario, *, num_csx, batch_size, micro_batch_size=None, platform=None, mode=None,
          compile_only=False, steps=None, tokens=None, sim_steps=None, seq_len=None,
          platform_override=None, variant=None, jobs=None, shard=None, csv=None, resume=False):
    """csxsim sweep: run's search over the grid num_csx x batch_size; returns a Result.

    num_csx, batch_size: "1:16:x2", "264,528", "256:2048:+256", an int or a list of ints.
    platform: one or a list ("cs2,cs3" or ["cs2", "cs3"]); variant: named override sets,
    {"io2x": {"system.io_scale": 2}} or ["io2x:system.io_scale=2"].
    jobs: grid points at once (forked processes, as the CLI); shard: "I/N".
    csv: a path for the CSV, which then stays (an interrupted sweep's finished points are
    kept there); resume=True keeps the finished points already in it (the CLI's --resume).
    """
    if resume and csv is None:
        raise InputError("resume=True needs csv=PATH: the CSV whose finished points to keep")
    platform = _platforms(platform)
    args = [_text(scenario, "scenario"), "--num-csx", _list(num_csx, "num_csx"),
            "--batch-size", _list(batch_size, "batch_size"),
            *_flags(micro_batch_size=micro_batch_size, platform=platform, mode=mode,
                    compile_only=compile_only, steps=steps, tokens=tokens, sim_steps=sim_steps,
                    seq_len=seq_len, jobs=jobs, shard=shard),
            *_overrides(platform_override), *_variants(variant), *(["--resume"] if resume else [])]
    return _run_writing("sweep", args, None if csv is None else _text(csv, "csv"))


def plan(model, *, tokens, deadline=None, num_csx=None, batch_size=None, micro_batch_size=None,
         platform=None, variant=None, max_num_csx=None, seq_len=None, platform_override=None,
         jobs=None):
    """csxsim plan: the smallest num_csx that trains `tokens` within `deadline` ("7d", "36h"),
    or the time to train on the clusters `num_csx`; returns a Result (every evaluated candidate;
    .text holds the table and the answer lines)."""
    platform = _platforms(platform)
    args = [_text(model, "model"), *_flags(tokens=tokens, deadline=deadline,
                                num_csx=None if num_csx is None else _list(num_csx, "num_csx"),
                                batch_size=None if batch_size is None else _list(batch_size, "batch_size"),
                                micro_batch_size=micro_batch_size, platform=platform,
                                max_num_csx=max_num_csx, seq_len=seq_len, jobs=jobs),
            *_overrides(platform_override), *_variants(variant)]
    return _run_writing("plan", args)


def validate(*, reference=None, platform_override=None, only_platform=None, only=None,
             measurements_only=False):
    """csxsim validate: the measured runs against the simulation; returns a Result (one record
    per measured run; .status is 1 when a check failed, .text the CLI's report)."""
    if isinstance(only, (list, tuple)):
        only = ",".join(only)
    args = [*_flags(reference=reference, only_platform=only_platform, only=only,
                    measurements_only=measurements_only), *_overrides(platform_override)]
    return _run_writing("validate", args)


def candidates(*, batch_size, num_csx, micro_batch_size=None):
    """csxsim candidates --json: the batching rules alone, as a dict."""
    args = _flags(batch_size=batch_size, num_csx=num_csx, micro_batch_size=micro_batch_size)
    return json.loads(command("candidates", [*args, "--json"])[1])


def describe(model, *, platform=None, seq_len=None):
    """csxsim describe --json: a model (file or models/ name) on a platform, as a dict."""
    args = [_text(model, "model"), *_flags(platform=platform, seq_len=seq_len), "--json"]
    return json.loads(command("describe", args)[1])
