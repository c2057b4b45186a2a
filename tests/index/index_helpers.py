"""Helpers of the index tests: a small corpus and real git repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

CORPUS = {
    "geometry/circle.py": '''"""Circles."""
import math


def circle_area(radius: float) -> float:
    """Area of a circle of the given radius."""
    return math.pi * radius ** 2


def circle_circumference(radius: float) -> float:
    return 2 * math.pi * radius
''',
    "net/http_client.py": '''"""A tiny HTTP client."""
import urllib.request


def fetch_url(url: str, timeout: float = 10.0) -> bytes:
    """Download the body of a web page over HTTP."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read()
''',
    "db/users.py": '''"""User records in SQL."""


class UserRepository:
    def __init__(self, conn):
        self.conn = conn

    def find_by_email(self, email):
        """Look a user up by e-mail address in the users table."""
        return self.conn.execute("SELECT * FROM users WHERE email = ?", (email,)).fetchone()
''',
    "web/app.js": '''// Shopping cart totals
function cartTotal(items) {
  let total = 0;
  for (const item of items) {
    total += item.price * item.quantity;
  }
  return total;
}
''',
}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def init_repo(root: Path, files: dict[str, str | bytes]) -> Path:
    """A real git repository with ``files`` committed."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
