"""The load benchmark's report (benchmarks/load.py): its percentiles, its targets and the verdict it prints."""

from __future__ import annotations

TARGETS = {"first_p95": 2.0, "rerun_p95": 1.0, "peak_mib": 600, "settle_ratio": 1.10}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def verdict(report: dict) -> list[str]:
    lines = []
    first, rerun = report["first_page_s"], report["rerun_s"]
    lines.append(
        f"first page  p50 {first['p50']:.3f} s  p95 {first['p95']:.3f} s  max {first['max']:.3f} s"
        f"   (target p95 ≤ {TARGETS['first_p95']} s)"
    )
    lines.append(
        f"reruns      p50 {rerun['p50']:.3f} s  p95 {rerun['p95']:.3f} s  max {rerun['max']:.3f} s"
        f"   ({rerun['count']} reruns; target p95 ≤ {TARGETS['rerun_p95']} s)"
    )
    lines.append(f"errors      {report['errors']}  {report['error_samples'] or ''}")
    if report["notices"]:
        lines.append(f"notices     {report['notices']}")
    lines.append(
        f"bytes       first page {report['bytes']['first_page_median']:.0f} B, "
        f"rerun {report['bytes']['rerun_median']:.0f} B (medians)"
    )
    if "sessions_per_replica" in report:
        lines.append(
            "replicas    sessions "
            + ", ".join(f"{name} {count}" for name, count in report["sessions_per_replica"].items())
        )
    if "server_cpu_ms_per_run" in report:
        per = report["server_cpu_s"]
        lines.append(
            f"server CPU  {report['server_cpu_ms_per_run']} ms per script run (all threads, "
            f"HTTP and websocket included{', summed over ' + str(len(per)) + ' replicas' if len(per) > 1 else ''})"
            f"; CPU s: "
            + ", ".join(f"{name} {sec}" for name, sec in per.items())
            + (f", haproxy {report['haproxy_cpu_s']}" if "haproxy_cpu_s" in report else "")
            + f", load generator {report['load_generator_cpu_s']} (wall {report['wall_s']} s)"
        )
    if "rss_mib" in report:
        rss = report["rss_mib"]
        lines.append(
            f"server RSS  baseline {rss['baseline']} MiB, peak {rss['peak']} MiB (target ≤ "
            f"{TARGETS['peak_mib']}), after close {rss['after_close']} MiB = "
            f"{rss['after_close_ratio']:.2f}× baseline after {rss['after_close_wait_s']} s "
            f"(target ≤ {TARGETS['settle_ratio']}×)"
            + (f"; peak per replica {rss['peak_per_replica']}" if "peak_per_replica" in rss else "")
        )
    return lines
