"""Find every resource an HTML page would load from outside itself."""

from __future__ import annotations

import re
from html.parser import HTMLParser

URL_ATTRS = {"src", "href", "srcset", "action", "formaction", "poster", "data", "background",
             "xlink:href", "manifest", "icon", "ping"}
CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]+)|@import\s+['\"]?([^'\";\s]+)", re.I)


def _external(value: str) -> bool:
    v = value.strip().lower()
    return v.startswith(("http:", "https:", "//", "ftp:", "ws:", "wss:"))


class ResourceFinder(HTMLParser):
    """Collects external URLs in attributes, external stylesheets and scripts, CSS urls."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.external: list[str] = []
        self.scripts_with_src: list[str] = []
        self.stylesheet_links: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): v or "" for k, v in attrs}
        for k, v in a.items():
            if k in URL_ATTRS and any(_external(part.split()[0] if part.split() else "")
                                      for part in v.split(",")):
                self.external.append(f"<{tag} {k}={v}>")
            if k == "style":
                self._css(v)
        if tag == "script" and "src" in a:
            self.scripts_with_src.append(a["src"])
        if tag == "link" and "stylesheet" in a.get("rel", "").lower():
            self.stylesheet_links.append(a.get("href", ""))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self._css(data)

    def _css(self, css: str) -> None:
        for m in CSS_URL.finditer(css):
            url = m.group(1) or m.group(2) or ""
            if not url.startswith(("data:", "#")):
                self.external.append(f"css url {url}")


def find_resources(page: str) -> ResourceFinder:
    finder = ResourceFinder()
    finder.feed(page)
    finder.close()
    return finder
