"""benchmarks.profile's tables: ms of server CPU per rerun in each category, per page and preset, and over
all of them (each station weighs the same)."""

from __future__ import annotations

from collections import Counter

from benchmarks.profile_categories import CATEGORIES, SHORT

CALLERS = ("engine", "prose", "charts", "tables", "frame", "page", "streamlit")


def per_run_ms(result: dict, key: str = "categories", names=CATEGORIES) -> dict[str, float]:
    """CPU s over the station's reruns, as ms per rerun."""
    return {c: 1000 * result[key].get(c, 0.0) / result["reruns"] for c in names}


def cpu_ms(result: dict) -> float:
    """The server's CPU per rerun, all threads, from the process's CPU clock."""
    return 1000 * result["cpu_s"] / result["reruns"]


def station_line(result: dict) -> str:
    ms = per_run_ms(result)
    top = sorted(ms.items(), key=lambda kv: -kv[1])[:4]
    fragments = result.get("fragment_reruns")
    kind = f"reruns ({fragments} of them fragment reruns)" if fragments else "reruns"
    return (
        f"{result['station']}: {result['reruns']} {kind}, {cpu_ms(result):.1f} ms CPU a rerun; "
        + ", ".join(f"{SHORT[c]} {v:.1f}" for c, v in top)
        + (f"; errors: {result['errors'][:3]}" if result["errors"] else "")
    )


def _table(stations: list[dict], key: str, names, titles, first: str) -> list[str]:
    head = ["station", "msgs", first] + [titles[c] for c in names]
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    totals = Counter()
    for result in stations:
        ms = per_run_ms(result, key, names)
        totals.update(ms)
        whole = cpu_ms(result) if key == "categories" else sum(ms.values())
        totals["whole"] += whole
        totals["messages"] += result.get("messages", 0)
        out.append(
            f"| {result['station']} | {result.get('messages', 0):.0f} | {whole:.1f} | "
            + " | ".join(f"{ms[c]:.1f}" for c in names)
            + " |"
        )
    n = max(1, len(stations))
    out.append(
        f"| **all (mean)** | **{totals['messages'] / n:.0f}** | **{totals['whole'] / n:.1f}** | "
        + " | ".join(f"**{totals[c] / n:.1f}**" for c in names)
        + " |"
    )
    return out


def lines(report: dict, top: int = 15) -> list[str]:
    stations = report["stations"]
    n = max(1, len(stations))
    what = (
        f"{report['clicks']} interactions (each sent with its fragment id)" if report.get("clicks") else "full reruns"
    )
    out = [
        f"checkout {report['checkout']}: {report['reruns']} {what} per page and preset; ms of server CPU "
        "per rerun by category ('CPU': the process's whole CPU per rerun, all threads; 'msgs': messages the "
        "server sent per rerun, deltas included)",
        "",
    ]
    out += _table(stations, "categories", CATEGORIES, SHORT, "CPU")
    mean = {c: sum(per_run_ms(r)[c] for r in stations) / n for c in CATEGORIES}
    whole = sum(cpu_ms(r) for r in stations) / n
    out += ["", f"Over all pages and both presets (mean of the stations: {whole:.1f} ms of CPU a rerun):", ""]
    out += [
        f"- {title}: {mean[c]:.1f} ms ({100 * mean[c] / whole if whole else 0:.0f} %)"
        for c, title in CATEGORIES.items()
    ]
    out += [
        "",
        "Streamlit elements' CPU by the part of the app that called st.* (ms per rerun; 'streamlit': a call "
        "from Streamlit's own code):",
        "",
    ]
    out += _table(stations, "elements_by_caller", CALLERS, {c: c for c in CALLERS}, "elements")
    functions, calls = Counter(), Counter()
    for result in stations:
        for name, seconds in result["functions"].items():
            functions[name] += 1000 * seconds / result["reruns"] / n
        for name, seconds in result["calls"].items():
            calls[name] += 1000 * seconds / result["reruns"] / n
    carved = Counter()
    for result in stations:
        for name, seconds in result.get("carved", {}).items():
            carved[name] += 1000 * seconds / result["reruns"] / n
    if carved:
        steps = {
            "populate_hash_if_needed": "message hashes (each delta serialised and hashed on the script thread)",
            "serialize_forward_msg": "messages serialised for the websocket (event loop)",
            "dumps": "vega-lite specs to JSON",
            "loads": "vega-lite specs read back from JSON",
            "convert_anything_to_arrow_bytes": "Arrow IPC of chart and table data",
            "convert_arrow_table_to_arrow_bytes": "Arrow IPC of Arrow tables",
            "convert_anything_to_pandas_df": "st.table's data to pandas",
        }
        out += ["", "Carved out of Streamlit's calls (ms per rerun over all stations):", ""]
        out += [f"- {ms:.2f} ms  {steps.get(name.split(':')[-1], name)}" for name, ms in carved.most_common()]
    if top:
        out += [
            "",
            f"Streamlit's st.* calls by CPU (ms per rerun over all stations, each call's own CPU with the "
            f"deltas it queued, its JSON/Arrow encoding and message hashes carved out), top {top}:",
            "",
        ]
        out += [f"- {ms:.2f} ms  {name}" for name, ms in calls.most_common(top)]
        out += [
            "",
            f"The app's own code between st.* calls, by its innermost function in the checkout (with the "
            f"library code it called), ms per rerun over all stations, top {top}:",
            "",
        ]
        out += [f"- {ms:.2f} ms  {name}" for name, ms in functions.most_common(top)]
    shares = sorted(r["accounted_s"] / r["cpu_s"] for r in stations if r["cpu_s"])
    script = sum(r["script_s"] for r in stations) / max(1e-9, sum(r["cpu_s"] for r in stations))
    loop = sum(r["event_loop_s"] for r in stations) / max(1e-9, sum(r["cpu_s"] for r in stations))
    if shares:
        out += [
            "",
            f"Threads: script runs {100 * script:.0f} %, the event loop {100 * loop:.0f} %, background "
            f"{100 * (1 - script - loop):.0f} % of the CPU. "
            f"Categories add up to {100 * shares[len(shares) // 2]:.0f} % "
            f"of the process's CPU (median; range {100 * shares[0]:.0f}–{100 * shares[-1]:.0f} %).",
        ]
    failed = report.get("warm_up_errors", []) + [e for r in stations for e in r["errors"]]
    out += ["", f"errors: {len(failed)}" + (f" (first: {failed[:3]})" if failed else "")]
    return out
