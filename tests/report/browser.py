"""Open a page in headless Chromium: the DOM after scripts ran, console messages, network
requests the page made, and a screenshot."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND",
         "--enable-logging=stderr", "--v=0")


def chromium_binary() -> str:
    """Chromium's path; a missing browser fails the test (CI installs Debian's chromium)."""
    found = os.environ.get("JUDGEKIT_CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")
    if not found or not Path(found).exists():
        pytest.fail("headless Chromium is required for the browser tests and was not found: "
                    "install Debian's package (apt-get install -y chromium) or set "
                    "JUDGEKIT_CHROMIUM to the binary")
    return found


def _no_network_prefix() -> list[str]:
    """``unshare -n`` where it works, so the browser has no network at all (the host rules
    above already stop its name look-ups)."""
    unshare = shutil.which("unshare")
    if not unshare:
        return []
    probe = subprocess.run([unshare, "-n", "true"], capture_output=True)
    return [unshare, "-n"] if probe.returncode == 0 else []


@dataclass
class PageLoad:
    dom: str
    console: list[str]
    page_requests: list[str]
    screenshot: Path


def _page_requests(netlog: Path) -> list[str]:
    """URLs the page (top frame file://) requested; Chromium's own service calls excluded."""
    text = netlog.read_text(encoding="utf-8", errors="replace").rstrip().rstrip(",")
    try:
        log = json.loads(text)
    except json.JSONDecodeError:
        log = json.loads(text + "]}")
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for ev in log.get("events", []):
        p = ev.get("params") or {}
        if names.get(ev.get("type")) == "URL_REQUEST_START_JOB" and \
                "file://" in str(p.get("network_isolation_key", "")):
            urls.append(str(p.get("url")))
    return urls


def open_page(page: Path, work: Path, name: str, size: str = "1280,2000",
              keep: bool = True) -> PageLoad:
    """Load ``page`` once; save the screenshot as ``work/<name>.png`` (and under
    ``$JUDGEKIT_ARTIFACTS`` when set)."""
    binary = chromium_binary()
    work.mkdir(parents=True, exist_ok=True)
    shot, netlog = work / f"{name}.png", work / f"{name}.netlog.json"
    proc = subprocess.run(
        [*_no_network_prefix(), binary, *FLAGS, f"--user-data-dir={work / (name + '-profile')}",
         f"--log-net-log={netlog}", f"--window-size={size}", f"--screenshot={shot}",
         "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # Messages of the page itself; Chromium's own internal pages (chrome://) log too.
    console = [line for line in proc.stderr.splitlines()
               if ":CONSOLE" in line and "source: chrome://" not in line]
    artifacts = os.environ.get("JUDGEKIT_ARTIFACTS")
    if keep and artifacts and shot.exists():
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy2(shot, Path(artifacts) / shot.name)
    return PageLoad(proc.stdout, console, _page_requests(netlog), shot)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
