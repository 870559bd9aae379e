"""What the sweep chart scripts share: reading `simctl sweep --json` output.

The file (written by `simctl sweep`) has the study's `axes` (field and
values, in the study's order) and one entry in `points` per point, with the
axis values as text, a `status` (ok, invalid, out_of_memory) and the
figures, null where a value is missing.
"""

import os

import common

STATUSES = ("ok", "invalid", "out_of_memory")
# Where a study names a config file (the `system` axis), its name says enough.
FILE_SUFFIXES = (".yaml", ".yml")


def load_sweep(path):
    """The sweep's report, checked for the fields the charts read."""
    sweep = common.load_json(path)
    missing = [k for k in ("axes", "points") if k not in sweep]
    if missing:
        raise common.InputError(f"'{path}' is not a simctl sweep report (missing {', '.join(missing)})")
    if not isinstance(sweep["axes"], list) or not isinstance(sweep["points"], list):
        raise common.InputError(f"'{path}' is not a simctl sweep report (axes and points must be lists)")
    fields = [a["field"] for a in sweep["axes"]]
    for p in sweep["points"]:
        if p["status"] not in STATUSES:
            raise common.InputError(f"'{path}' point {p['point']}: unknown status '{p['status']}'")
        missing = [f for f in fields if f not in p["axes"]]
        if missing:
            raise common.InputError(f"'{path}' point {p['point']} has no value for axis {', '.join(missing)}")
    return sweep


def axis_groups(sweep):
    """The axes that move together, as lists of fields in study order.

    A study's `zip:` group moves its axes as one; the report lists them as
    separate axes. Two axes belong together when, over the points, each value
    of one always comes with the same value of the other and back (a
    one-to-one pairing): no product of axes with several values each does.
    """
    fields = [a["field"] for a in sweep["axes"]]
    points = sweep["points"]

    def paired(a, b):
        forward, backward = {}, {}
        for p in points:
            va, vb = p["axes"][a], p["axes"][b]
            if forward.setdefault(va, vb) != vb or backward.setdefault(vb, va) != va:
                return False
        return True

    groups = []
    for f in fields:
        for g in groups:
            if paired(g[0], f):
                g.append(f)
                break
        else:
            groups.append([f])
    return groups


def short_value(value):
    """An axis value as a tick label: config files by their base name."""
    text = str(value)
    if text.endswith(FILE_SUFFIXES):
        return os.path.splitext(os.path.basename(text))[0]
    return text


def short_field(field):
    """A field path without its section, which the context gives."""
    for section in ("system.", "workload.", "pricing.", "power."):
        if field.startswith(section) and len(field) > len(section):
            return field[len(section):]
    return field


def group_values(sweep, group):
    """The group's distinct values as tuples, in study order."""
    values = []
    for p in sweep["points"]:
        v = tuple(p["axes"][f] for f in group)
        if v not in values:
            values.append(v)
    return values


def group_label(group):
    return " / ".join(short_field(f) for f in group)


def value_label(value):
    return " / ".join(short_value(v) for v in value)


def throughput_kind(points):
    """tokens/s when any point has it, else samples/s (models without tokens)."""
    ok = [p for p in points if p["status"] == "ok"]
    return "tokens" if any(p.get("tokens_per_s") is not None for p in ok) else "samples"


def throughput(point, kind):
    return point.get(f"{kind}_per_s")


def scaled(values, unit):
    """A divisor and unit prefix ('k', 'M') so the figures read 1 to 1000."""
    top = max((abs(v) for v in values if v is not None), default=0.0)
    for divisor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if top >= divisor:
            return divisor, f"{prefix} {unit}"
    return 1.0, unit


def status_summary(points):
    """'6 points: 4 ok, 1 invalid, 1 out of memory' (zero counts left out)."""
    counts = [(s, sum(p["status"] == s for p in points)) for s in STATUSES]
    parts = [f"{n} {s.replace('_', ' ')}" for s, n in counts if n]
    return f"{len(points)} points: {', '.join(parts)}" if points else "no points"


def title(sweep):
    return sweep.get("study") or "Sweep"
