"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``):
open a page, press keys, read the DOM, take screenshots. Standard library only."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.report.browser import FLAGS, chromium_binary

#: The report tests' flags, name look-ups still refused except the app's own address.
BROWSER_FLAGS = tuple("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
                      if f.startswith("--host-resolver-rules=") else f for f in FLAGS)

#: How long a page may take to reach a state a test waits for (a hang fails, it is no
#: measurement: nothing is asserted about the time).
WAIT_S = 60.0


class Browser:
    """One headless Chromium with one page, attached over a pipe."""

    def __init__(self, work: Path) -> None:
        work.mkdir(parents=True, exist_ok=True)
        self.work = work
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def child_fds() -> None:  # fd 3: commands in, fd 4: replies out
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)  # inheritable: the only descriptors the browser keeps
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [chromium_binary(), *BROWSER_FLAGS, "--remote-debugging-pipe",
             f"--user-data-dir={work / 'profile'}", "--window-size=1280,1600",
             "about:blank"],
            preexec_fn=child_fds, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=(work / "chromium.log").open("wb"))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)

    def _read_message(self) -> dict[str, Any]:
        while b"\0" not in self._buf:
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read_message()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def goto(self, url: str) -> None:
        self.call("Page.navigate", session=True, url=url)

    def eval(self, expression: str) -> Any:
        got = self.call("Runtime.evaluate", session=True, expression=expression,
                        returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in got:
            raise RuntimeError(str(got["exceptionDetails"]))
        return got["result"].get("value")

    def wait_for(self, expression: str) -> Any:
        """Poll ``expression`` until it is truthy (a page that never gets there fails)."""
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                value = self.eval(expression)
            except RuntimeError:
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                status = self.eval("document.getElementById('status')?.textContent")
                raise AssertionError(f"the page never satisfied {expression}; "
                                     f"status: {status}")
            time.sleep(0.05)

    #: named keys: (virtual key code, the text they type)
    NAMED = {"Tab": (9, None), "Enter": (13, "\r"), "Escape": (27, None),
             "ArrowDown": (40, None), "ArrowUp": (38, None), " ": (32, " ")}

    def press(self, key: str) -> None:
        code, text = self.NAMED.get(key, (None, key))
        for kind in ("keyDown" if text else "rawKeyDown", "keyUp"):
            params: dict[str, Any] = {"type": kind, "key": key}
            if code is not None:
                params["windowsVirtualKeyCode"] = params["nativeVirtualKeyCode"] = code
                params["code"] = "Space" if key == " " else key
            if kind != "keyUp" and text:
                params["text"] = text
            self.call("Input.dispatchKeyEvent", session=True, **params)

    def dom(self) -> str:
        return str(self.eval("document.documentElement.outerHTML"))

    def screenshot(self, name: str) -> Path:
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        path = self.work / f"{name}.png"
        path.write_bytes(base64.b64decode(data))
        artifacts = os.environ.get("JUDGEKIT_ARTIFACTS")
        if artifacts:
            Path(artifacts).mkdir(parents=True, exist_ok=True)
            (Path(artifacts) / path.name).write_bytes(path.read_bytes())
        return path

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)
