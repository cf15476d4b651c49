"""A server process's memory and CPU as the benchmarks read them from /proc (benchmarks.load, .poll, .lesson)."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path


class RssSampler:
    """Samples /proc/<pid>/status every 50 ms; VmHWM is the kernel's own peak."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._task = pid, 0, None

    def read(self) -> tuple[int, int]:
        text = Path(f"/proc/{self.pid}/status").read_text()
        values = {k: int(v.split()[0]) for k, v in re.findall(r"^(VmRSS|VmHWM):\s+(.+)$", text, re.M)}
        return values["VmRSS"] * 1024, values["VmHWM"] * 1024

    def cpu_seconds(self) -> float:
        """User + system CPU time the server has used so far (all its threads)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def _loop(self):
        while True:
            rss, _ = self.read()
            self.peak = max(self.peak, rss)
            await asyncio.sleep(0.05)

    def start(self):
        self._task = asyncio.create_task(self._loop())

    async def stop(self):
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass
