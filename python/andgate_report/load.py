"""Reading a result JSON (bench or sim), validating it against schema.json, and the few accessors
every other module uses, so that defaults (method "latency", status "ok") live in one place.

Nothing here assumes mode "bench": a sim document (mode "sim", kind "hw" impls, maybe no baselines,
maybe no samples) goes through the same functions. A preload document (mode "preload", andgate bench
--preload) has apps and constructs instead of results; preload.py reads it.
"""
import json
from functools import lru_cache
from pathlib import Path

SCHEMA_PATH = Path(__file__).with_name("schema.json")

METHODS = ("latency", "epcc", "jitter")   # display order
KINDS = ("andgate", "baseline", "hw")


def _not_json(name):
    raise ValueError(f"{name} is not JSON (Python's json module would take it; the result writers never write it)")


def load(path):
    """The parsed JSON document at path (json.JSONDecodeError / ValueError / OSError propagate): strict
    JSON, so NaN, Infinity and -Infinity, which Python's json module accepts, are refused."""
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=_not_json)


@lru_cache(maxsize=1)
def load_schema():
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def _json_path(parts):
    """"$.a[3].b" for the path parts of a jsonschema error (also used by tests/machine_rules.py)."""
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def validate(doc):
    """Errors of doc against schema.json (Draft 2020-12) as "JSON-path: message" strings, sorted by
    path; an empty list when doc is valid. A missing required (or dependent-required) property is
    reported at the path the property would have, e.g. "$.results[3].median_ns: required property is
    missing"."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(load_schema())
    errors = []
    for e in validator.iter_errors(doc):
        parts = list(e.absolute_path)
        if e.validator in ("required", "dependentRequired") and isinstance(e.instance, dict):
            names = e.validator_value if e.validator == "required" else \
                [n for key, deps in e.validator_value.items() if key in e.instance for n in deps]
            for name in names:
                if name not in e.instance:
                    errors.append((parts + [name], "required property is missing"))
        else:
            errors.append((parts, e.message))
    errors.sort(key=lambda pm: (_json_path(pm[0]), pm[1]))
    # dependentRequired reports each missing property once per missing property: keep one of each
    return list(dict.fromkeys(f"{_json_path(p)}: {m}" for p, m in errors))


# ---- accessors with the schema's defaults -------------------------------------------------------

def method_of(r):
    return r.get("method", "latency")


def status_of(r):
    return r.get("status", "ok")


def is_workload(r):
    """Whether r is a record of `andgate sim --workload`: its latency fields time the workload's
    iterations (rounds, phases), not barrier episodes, so it is kept out of every barrier ranking and
    plot; its figures are r["workload"] and r["os"] (workload.py)."""
    return "workload" in r


def ok_results(doc, method=None):
    """Barrier results with status ok (of one method when given); workload records are not among them
    (workload_results)."""
    return [r for r in doc.get("results", [])
            if status_of(r) == "ok" and not is_workload(r) and (method is None or method_of(r) == method)]


def workload_results(doc):
    """The workload records (andgate sim --workload) with status ok, in the document's order."""
    return [r for r in doc.get("results", []) if status_of(r) == "ok" and is_workload(r)]


def failed_results(doc):
    return [r for r in doc.get("results", []) if status_of(r) != "ok"]


def methods_present(doc):
    present = {method_of(r) for r in ok_results(doc)}
    return [m for m in METHODS if m in present]


def thread_counts(results):
    return sorted({r["threads"] for r in results})


def cpus_usable(doc):
    return doc["host"]["cpus_usable"]


def c2c_median(doc):
    """The host's core-to-core one-way median in ns, or None when absent or not positive (a sim
    machine without a measured c2c, a host where it could not be measured)."""
    v = doc.get("host", {}).get("c2c_oneway_ns", {}).get("median")
    return v if isinstance(v, (int, float)) and v > 0 else None


def oversubscribed(doc, threads, results=()):
    """True when threads exceed the usable CPUs, or any of results at that count says so."""
    if threads > cpus_usable(doc):
        return True
    return any(r.get("oversubscribed") for r in results if r["threads"] == threads)


def short_impl(r):
    """impl without the redundant "andgate:" prefix of andgate impls (for summaries and legends)."""
    name = r["impl"]
    if r.get("kind") == "andgate" and name.startswith("andgate:"):
        return name[len("andgate:"):]
    return name


def series_labels(results):
    """A label per result that tells series apart: the impl, plus wait / pinning / jitter delay (and for
    bench --mpi ranks / node mode) where one impl appears with more than one value of them in results.
    Returns {id(r): label}."""
    varying = {}
    for key in ("wait", "pinning", "jitter_delay_ns", "late", "ranks", "mpi_node"):
        per_impl = {}
        for r in results:
            per_impl.setdefault(r["impl"], set()).add(r.get(key))
        varying[key] = {impl for impl, vals in per_impl.items() if len(vals) > 1}
    labels = {}
    for r in results:
        label = short_impl(r)
        for key, impls in varying.items():
            if r["impl"] in impls:
                label += f" {key}={r.get(key)}"
        labels[id(r)] = label
    return labels
