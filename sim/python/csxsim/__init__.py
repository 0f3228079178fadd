"""csxsim from Python (docs/python.md#python): run, sweep, plan and validate as requests to the
same C++ code the CLI runs, in this process, with the same inputs as its flags. They return a
Result whose records hold the values the CLI's CSV holds, with its column names and units.

Errors raise InputError (a ValueError: bad input, the CLI's exit status 2) or InfeasibleError
(nothing fits, status 1; its .result holds the rows that say why), with the CLI's message.
Calls from several threads run one at a time (the compiled part holds a lock for each call).
"""
import functools
import inspect
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
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a file name's bytes that are not UTF-8 (os.fsdecode's escapes)
        raise InputError(f"{what} = {text!r}: not valid UTF-8; the module takes UTF-8 text "
                         "(rename the file, or run the csxsim command)") from None
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
    return _list(value, "platform") if isinstance(value, (list, tuple)) else _text(value, "platform")


def _names(value, what):
    """only: names, comma-separated, or a list of them."""
    return ",".join(value) if isinstance(value, (list, tuple)) else _text(value, what)


def _switch(value, what):
    if not isinstance(value, bool):
        raise InputError(f"{what} = {value!r}: expected True or False")
    return value


# How each kind of value of the option table (_csxsim.options) becomes the flag's text.
_CONVERT = {
    "switch": _switch,
    "text": _text,
    "list": _list,
    "platforms": lambda value, what: _platforms(value),
    "names": _names,
    "key_values": lambda value, what: _pairs(value, what),
    "variants": lambda value, what: _variants(value),
}


@functools.lru_cache(maxsize=None)
def _options(command):
    """{keyword: option} of `command` in the option table."""
    return {o["keyword"]: o for o in _csxsim.options(command)}


@functools.lru_cache(maxsize=None)
def _signature(command):
    """The signature of `command`'s function, from the option table: its argument (if any),
    then its options as keyword-only arguments (None, or False for a switch, when optional)."""
    params = []
    for o in _options(command).values():
        if o["argument"]:
            params.append(inspect.Parameter(o["keyword"], inspect.Parameter.POSITIONAL_OR_KEYWORD))
            continue
        default = inspect.Parameter.empty if o["required"] else (
            False if o["kind"] == "switch" else None)
        params.append(inspect.Parameter(o["keyword"], inspect.Parameter.KEYWORD_ONLY,
                                        default=default))
    return inspect.Signature(params)


def _request(command, *args, **options):
    """The call's arguments as the request's fields, read by the option table: an unknown
    keyword is refused as the CLI refuses an unknown option (with a did-you-mean), a missing
    required one as the CLI refuses a missing argument (InputError); each value becomes the flag's text (switches stay bool) and
    None leaves an option out. Returns (the argument's text or None, {keyword: text})."""
    table = _options(command)
    unknown = [k for k in options if k not in table]
    if unknown:
        _csxsim.check_keywords(command, unknown)  # raises InputError, naming the closest
    try:
        bound = _signature(command).bind(*args, **options)
    except TypeError as e:  # a missing argument or keyword, or one given twice
        raise InputError(f"{command}(): {e}") from None
    argument, request = None, {}
    for key, value in bound.arguments.items():
        o = table[key]
        if o["argument"]:
            argument = _text(value, key)
        elif value is not None:
            request[key] = _CONVERT[o["kind"]](value, key)
    return argument, request


def _command(name, function):
    """`function` with the signature of the option table's command `name`."""
    function.__signature__ = _signature(name)
    return function


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


def run(*args, **options):
    """csxsim run SCENARIO: each candidate of the MBS setting, simulated; returns a Result.

    scenario: a scenario or Model Zoo params file, or a models/ name ("gpt3_xl"). The options
    are run's flags (docs/cli.md#options): micro_batch_size "auto" | "explore" | "none" | int | "MIN:MAX";
    platform "cs2" | "cs3" | a file; mode "train" | "eval" | "train_and_eval";
    platform_override {"KEY": value} or ["[P:]KEY=VALUE"]; trace: a path for the Chrome trace
    JSON.
    """
    scenario, request = _request("run", *args, **options)
    return _result(_csxsim.run(scenario, request))


def sweep(*args, **options):
    """csxsim sweep: run's search over the grid num_csx x batch_size; returns a Result.

    num_csx, batch_size: "1:16:x2", "264,528", "256:2048:+256", an int or a list of ints.
    platform: one or a list ("cs2,cs3" or ["cs2", "cs3"]); variant: named override sets,
    {"io2x": {"system.io_scale": 2}} or ["io2x:system.io_scale=2"].
    jobs: grid points at once (forked processes, as the CLI); shard: "I/N".
    csv: a path for the CSV, which then stays (an interrupted sweep's finished points are
    kept there); resume=True keeps the finished points already in it (the CLI's --resume).
    """
    scenario, request = _request("sweep", *args, **options)
    if request.get("csv") == "-":  # the CLI's standard output; here the text is Result.csv
        raise InputError("sweep(csv='-'): the module writes no standard output; the CSV text "
                         "is the Result's .csv (csv=PATH also writes it to a file)")
    if request.get("resume") and "csv" not in request:
        raise InputError("resume=True needs csv=PATH: the CSV whose finished points to keep")
    return _result(_csxsim.sweep(scenario, request))


def plan(*args, **options):
    """csxsim plan: the smallest num_csx that trains `tokens` within `deadline` ("7d", "36h"),
    or the time to train on the clusters `num_csx`; returns a Result (every evaluated candidate;
    .text holds the table and the answer lines)."""
    model, request = _request("plan", *args, **options)
    return _result(_csxsim.plan(model, request))


def validate(*args, **options):
    """csxsim validate: the measured runs against the simulation; returns a Result (one record
    per measured run; .status is 1 when a check failed, .text the CLI's report)."""
    _, request = _request("validate", *args, **options)
    return _result(_csxsim.validate(request))


def candidates(*args, **options):
    """csxsim candidates --json: the batching rules alone, as a dict."""
    _, request = _request("candidates", *args, **options)
    return _csxsim.candidates(request)


def describe(*args, **options):
    """csxsim describe --json: a model (file or models/ name) on a platform, as a dict."""
    model, request = _request("describe", *args, **options)
    return _csxsim.describe(model, request)


for _f in (run, sweep, plan, validate, candidates, describe):
    _command(_f.__name__, _f)
