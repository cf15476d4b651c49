"""benchmarks.hall's figures: each pass summed up, then medians over the rounds and the ratios of the
checkouts (A, the checkout measured, over B, the one it is measured against)."""

from __future__ import annotations

import statistics

from benchmarks import mix

IN_PAGE = tuple(k for k in mix.KINDS if k != "sidebar")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def _moves(result: dict) -> list[dict]:
    return [d for d in result["done"] if d["kind"] != "join"]


def errors(result: dict) -> list[str]:
    return [f"{d['station']} {d['kind']}: {e}" for d in result["done"] for e in d["errors"]]


def cpu_by(result: dict, key) -> dict:
    """Mean server CPU (ms) of the one-at-a-time pass's interactions, grouped by key(interaction)."""
    groups: dict = {}
    for d in _moves(result):
        if d["cpu"] is not None:
            groups.setdefault(key(d), []).append(1000 * d["cpu"])
    return {k: (statistics.fmean(v), len(v)) for k, v in groups.items()}


def figures(result: dict) -> dict:
    """One pass's figures."""
    moves = _moves(result)
    joins = [d for d in result["done"] if d["kind"] == "join"]
    out = {
        "interactions": len(moves),
        "joins": len(joins),
        "errors": len(errors(result)),
        "fragment_reruns": sum(d["fragment"] for d in moves),
        "cpu_s": result["cpu_s"],
        "wall_s": result["wall_s"],
        "p50_s": pct([d["seconds"] for d in moves], 50),
        "p95_s": pct([d["seconds"] for d in moves], 95),
        "join_p95_s": pct([d["seconds"] for d in joins], 95),
    }
    if result["mode"] == "one":
        out["moves_cpu_s"] = sum(d["cpu"] or 0.0 for d in moves)
        out["joins_cpu_s"] = sum(d["cpu"] or 0.0 for d in joins)
        out["per_move_ms"] = 1000 * out["moves_cpu_s"] / max(1, len(moves))
        out["kind_ms"] = {k: v[0] for k, v in cpu_by(result, lambda d: d["kind"]).items()}
    else:
        out["kind_p95_s"] = {
            k: pct([d["seconds"] for d in moves if d["kind"] == k], 95) for k in sorted({d["kind"] for d in moves})
        }
    return out


def one_line(result: dict) -> str:
    f = figures(result)
    text = (
        f"{f['interactions']} interactions ({f['fragment_reruns']} fragment reruns), {f['joins']} joins, "
        f"{f['errors']} errors; server CPU {f['cpu_s']:.1f} s in {f['wall_s']:.0f} s; "
        f"move → finished p50 {f['p50_s']:.3f} s, p95 {f['p95_s']:.3f} s"
    )
    if result["mode"] == "one":
        joins_ms = 1000 * f["joins_cpu_s"] / max(1, f["joins"])
        text += f"; CPU per interaction {f['per_move_ms']:.1f} ms (joins {joins_ms:.0f} ms)"
    if result["warm_up_errors"]:
        text += f"; warm-up errors: {result['warm_up_errors'][:3]}"
    return text


def _median(passes: list[dict], name: str, get):
    values = [get(figures(p)) for p in passes if p["checkout"] == name]
    values = [v for v in values if v is not None and v == v]
    return statistics.median(values) if values else float("nan")


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b and a == a and b == b else "—"


def _ratio_heads(names: list[str]) -> list[str]:
    """The ratio columns: A over each other checkout (B, the floor F)."""
    return [f"{names[0]} / {n}" for n in names[1:]]


def lines(report: dict) -> list[str]:
    passes = report["passes"]
    names = list(report["checkouts"])
    out = [f"{name}: {label}" for name, label in report["checkouts"].items()]
    out.append(
        f"{report['students']} students, {report['moves']} interactions each (the hall: arriving within "
        f"{report['spread_s']} s, a move every ~{report['pause_s']} s); medians over "
        f"{max(p['round'] for p in passes)} round(s). Noisy machine: read the ratios."
    )
    hall = [p for p in passes if p["mode"] == "hall"]
    one = [p for p in passes if p["mode"] == "one"]
    rows = []
    if hall:
        rows += [
            ("hall: total server CPU (s)", lambda f: f["cpu_s"], "{:.1f}"),
            ("hall: move → finished p50 (s)", lambda f: f["p50_s"], "{:.3f}"),
            ("hall: move → finished p95 (s)", lambda f: f["p95_s"], "{:.3f}"),
            ("hall: join p95 (s)", lambda f: f["join_p95_s"], "{:.3f}"),
            ("hall: errors", lambda f: f["errors"], "{:.0f}"),
            ("hall: fragment reruns", lambda f: f["fragment_reruns"], "{:.0f}"),
        ]
    if one:
        rows += [
            ("one at a time: CPU of the interactions (s)", lambda f: f["moves_cpu_s"], "{:.2f}"),
            ("one at a time: CPU per interaction (ms)", lambda f: f["per_move_ms"], "{:.1f}"),
            ("one at a time: CPU of the joins (s)", lambda f: f["joins_cpu_s"], "{:.2f}"),
            ("one at a time: errors", lambda f: f["errors"], "{:.0f}"),
        ]
        rows += [
            (f"one at a time: CPU per {kind} (ms)", lambda f, k=kind: f["kind_ms"].get(k), "{:.1f}")
            for kind in mix.KINDS
        ]
    out.append("")
    heads = _ratio_heads(names)
    out.append("| figure | " + " | ".join(names + heads) + " |")
    out.append("| --- |" + " --- |" * (len(names) + len(heads)))
    for title, get, fmt in rows:
        source = hall if title.startswith("hall") else one
        values = [_median(source, name, get) for name in names]
        cells = [fmt.format(v) if v == v else "—" for v in values] + [_ratio(values[0], v) for v in values[1:]]
        out.append(f"| {title} | " + " | ".join(cells) + " |")
    if one:
        out += [
            "",
            "Server CPU per interaction, one at a time (ms, mean over the rounds' interactions; n = count):",
            "",
        ]
        pooled = {
            name: cpu_by(
                {"done": [d for p in one if p["checkout"] == name for d in p["done"]]},
                lambda d: (d["station"], d["kind"]),
            )
            for name in names
        }
        keys = sorted({k for table in pooled.values() for k in table}, key=lambda k: (k[0], mix.KINDS.index(k[1])))
        out.append(
            "| station | kind | "
            + " | ".join(f"{n} ms (n)" for n in names)
            + (" | A / B |" if len(names) > 1 else " |")
        )
        out.append("| --- | --- |" + " --- |" * (len(names) + (len(names) > 1)))
        for key in keys:
            values = [pooled[n].get(key) for n in names]
            cells = [f"{v[0]:.1f} ({v[1]})" if v else "—" for v in values]
            ratio = _ratio(values[0][0], values[1][0]) if len(names) > 1 and all(values) else "—"
            out.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + (f" | {ratio} |" if len(names) > 1 else " |"))
    failed = [e for p in passes for e in errors(p) + [f"warm-up: {w}" for w in p["warm_up_errors"]]]
    out.append("")
    out.append(f"errors: {len(failed)}" + (f"; first: {failed[:5]}" if failed else ""))
    return out
