"""Opening the app in a browser without putting its token on a command line.

A browser is started with the address to open on its command line, which every local user
can read (``ps``, ``/proc/PID/cmdline``). So the browser is given a local file instead: a
page readable by its owner only (mode 0600, in a new directory of mode 0700 under the
temporary directory) that sends the browser on to the app's address, token included. The
file is removed once the app's page has been served, or when the app stops.

Example:
    >>> page = launcher_page("http://127.0.0.1:8765/?token=abc")
    >>> oct(page.stat().st_mode & 0o777), "abc" in str(page), "abc" in page.read_text()
    ('0o600', False, True)
    >>> remove_launcher(page); page.exists()
    False
"""

from __future__ import annotations

import html
import os
import shutil
import tempfile
from pathlib import Path


def launcher_page(url: str) -> Path:
    """A page, private to its owner, that sends the browser on to ``url``."""
    folder = Path(tempfile.mkdtemp(prefix="judgekit-review-"))  # mode 0700
    path = folder / "open.html"
    target = html.escape(url, quote=True)
    text = ("<!doctype html>\n<meta charset=\"utf-8\">\n<meta name=\"referrer\" "
            "content=\"no-referrer\">\n"
            f"<meta http-equiv=\"refresh\" content=\"0; url={target}\">\n"
            "<title>judgekit review</title>\n"
            f"<p>Opening the review app: <a href=\"{target}\">continue</a>.</p>\n")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def remove_launcher(path: Path) -> None:
    """Remove the page and its directory (nothing else is in it)."""
    shutil.rmtree(path.parent, ignore_errors=True)
