"""csxsim from Python (docs/python.md#python): run, sweep, plan and validate as requests to the
same C++ code the CLI runs, in this process, with the same inputs as its flags. They return a
Result whose records hold the values the CLI's CSV holds, with its column names and units.

Errors raise InputError (a ValueError: bad input, the CLI's exit status 2) or InfeasibleError
(nothing fits, status 1; its .result holds the rows that say why), with the CLI's message.
Calls from several threads run one at a time (the compiled part holds a lock for each call).
"""
import os

from . import _csxsim
from ._csxsim import InfeasibleError, InputError

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
    text:    what the CLI prints on standard output (its table and summary)
    status:  the CLI's exit status (validate: 1 when a check failed)
    """

    def __init__(self, out):
        self.csv = out["csv"]
        self.inputs = out["inputs"]
        self.units = out["units"]
        self.columns = out["columns"]
        self.records = out["records"]
        self.text = out["text"]
        self.status = out["status"]

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
    """platform_override: {"KEY": value} or ["KEY=VALUE", ...] -> ["KEY=VALUE", ...]."""
    return None if value is None else _pairs(value, "platform_override")


def _variants(value):
    """variant: {"NAME": {"KEY": value}} or ["NAME:KEY=VALUE,..."] -> ["NAME:KEY=VALUE,..."]."""
    if value is None:
        return None
    if isinstance(value, dict):
        value = [_text(name, "variant") + ":" + ",".join(_pairs(kv, f"variant[{name!r}]"))
                 for name, kv in value.items()]
    elif not isinstance(value, (list, tuple)):
        raise InputError(f"variant = {value!r}: expected a dict of NAME: {{KEY: value}} or a list")
    return [_text(v, "variant") for v in value]


def _platforms(value):
    """platform: a name, a file, or a list of them."""
    return _list(value, "platform") if isinstance(value, (list, tuple)) else value


# Options that are switches (True sets them); every other option takes a value.
_SWITCHES = {"compile_only", "measurements_only", "resume"}


def _request(**options):
    """Keyword arguments as the request's fields: each value as the flag's text (switches as
    bool); None leaves an option out."""
    request = {}
    for key, value in options.items():
        if value is None:
            continue
        if key in _SWITCHES:
            if not isinstance(value, bool):
                raise InputError(f"{key} = {value!r}: expected True or False")
            request[key] = value
        elif key in ("platform_override", "variant"):
            request[key] = value  # already lists of text
        else:
            request[key] = _text(value, key)
    return request


def _result(out):
    """A Result of the compiled part's output; raises InfeasibleError (with .result) or
    KeyboardInterrupt (an interrupted sweep) as the CLI exits 1 or 128 + signal."""
    result = Result(out)
    if out["interrupted"]:
        raise KeyboardInterrupt(f"csxsim sweep interrupted (status {out['status']}): "
                                f"{out['interrupted']}")
    if out["infeasible"]:
        e = InfeasibleError(out["infeasible"])
        e.result = result
        raise e
    return result


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
    request = _request(num_csx=num_csx, batch_size=batch_size, micro_batch_size=micro_batch_size,
                       platform=platform, mode=mode, compile_only=compile_only, steps=steps,
                       tokens=tokens, sim_steps=sim_steps, seq_len=seq_len, jobs=jobs, trace=trace,
                       platform_override=_overrides(platform_override))
    return _result(_csxsim.run(_text(scenario, "scenario"), request))


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
    request = _request(num_csx=_list(num_csx, "num_csx"), batch_size=_list(batch_size, "batch_size"),
                       micro_batch_size=micro_batch_size, platform=_platforms(platform), mode=mode,
                       compile_only=compile_only, steps=steps, tokens=tokens, sim_steps=sim_steps,
                       seq_len=seq_len, jobs=jobs, shard=shard, csv=csv, resume=resume,
                       platform_override=_overrides(platform_override), variant=_variants(variant))
    return _result(_csxsim.sweep(_text(scenario, "scenario"), request))


def plan(model, *, tokens, deadline=None, num_csx=None, batch_size=None, micro_batch_size=None,
         platform=None, variant=None, max_num_csx=None, seq_len=None, platform_override=None,
         jobs=None):
    """csxsim plan: the smallest num_csx that trains `tokens` within `deadline` ("7d", "36h"),
    or the time to train on the clusters `num_csx`; returns a Result (every evaluated candidate;
    .text holds the table and the answer lines)."""
    request = _request(tokens=tokens, deadline=deadline,
                       num_csx=None if num_csx is None else _list(num_csx, "num_csx"),
                       batch_size=None if batch_size is None else _list(batch_size, "batch_size"),
                       micro_batch_size=micro_batch_size, platform=_platforms(platform),
                       max_num_csx=max_num_csx, seq_len=seq_len, jobs=jobs,
                       platform_override=_overrides(platform_override), variant=_variants(variant))
    return _result(_csxsim.plan(_text(model, "model"), request))


def validate(*, reference=None, platform_override=None, only_platform=None, only=None,
             measurements_only=False):
    """csxsim validate: the measured runs against the simulation; returns a Result (one record
    per measured run; .status is 1 when a check failed, .text the CLI's report)."""
    if isinstance(only, (list, tuple)):
        only = ",".join(only)
    request = _request(reference=reference, only_platform=only_platform, only=only,
                       measurements_only=measurements_only,
                       platform_override=_overrides(platform_override))
    return _result(_csxsim.validate(request))


def candidates(*, batch_size, num_csx, micro_batch_size=None):
    """csxsim candidates --json: the batching rules alone, as a dict."""
    return _csxsim.candidates(_text(batch_size, "batch_size"), _text(num_csx, "num_csx"),
                              "auto" if micro_batch_size is None
                              else _text(micro_batch_size, "micro_batch_size"))


def describe(model, *, platform=None, seq_len=None):
    """csxsim describe --json: a model (file or models/ name) on a platform, as a dict."""
    return _csxsim.describe(_text(model, "model"),
                            "cs2" if platform is None else _text(platform, "platform"),
                            None if seq_len is None else _text(seq_len, "seq_len"))
