"""Drive headless Chromium from a test over the DevTools protocol on a pipe (``--remote-debugging-pipe``: commands
on fd 3, replies on fd 4, each a JSON message ended by a NUL byte), with the standard library only — no
playwright, no websocket client. Clicks and typing go through ``Input.*`` as a person's would."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic", "--remote-debugging-pipe",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1280,900"]
"""Every host unresolvable: a page that fetches anything remote fails visibly (and the requests are recorded)."""


class Browser:
    """One Chromium process with one page attached (flat session)."""

    def __init__(self, profile: Path, downloads: Path) -> None:
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def fds() -> None:  # the pipe ends onto fds 3 and 4 (through fresh numbers: they may already be 3 or 4)
            read_end, write_end = os.dup(to_child), os.dup(from_child)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        assert CHROMIUM is not None, "chromium is not installed"
        self.proc = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                     preexec_fn=fds, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        target = next(t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]
        self.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(downloads), eventsEnabled=True)
        for domain in ("Page", "Runtime", "Network"):
            self.page(f"{domain}.enable")

    def _message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its reply (events that arrive meanwhile are kept in ``events``)."""
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._message()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def page(self, method: str, **params: Any) -> dict[str, Any]:
        return self.send(method, self.session, **params)

    def js(self, expression: str) -> Any:
        """The value of ``expression`` in the page (awaited when a promise)."""
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = 20.0) -> Any:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.02)
        raise TimeoutError(expression)

    def open(self, url: str) -> None:
        self.page("Page.navigate", url=url)
        self.wait("document.readyState === 'complete' && document.body.dataset.status !== 'loading'")

    def reload(self) -> None:
        self.page("Page.reload")
        time.sleep(0.2)
        self.wait("document.readyState === 'complete' && document.body.dataset.status !== 'loading'")

    def click(self, selector: str) -> None:
        """A mouse click at the middle of the first element ``selector`` matches (scrolled into view)."""
        box = self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null; "
                      "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                      "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        if box is None:
            raise LookupError(f"no element {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.page("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def type(self, text: str) -> None:
        """Type ``text`` into the focused element, one key at a time."""
        for char in text:
            self.page("Input.dispatchKeyEvent", type="keyDown", text=char, key=char, unmodifiedText=char)
            self.page("Input.dispatchKeyEvent", type="keyUp", key=char)

    def key(self, key: str, code: int, modifiers: int = 0) -> None:
        """Press a named key (``Enter`` 13, ``ArrowRight`` 39, …); ``modifiers``: 1 Alt, 2 Ctrl, 8 Shift."""
        text = {"Enter": "\r"}.get(key, "")
        self.page("Input.dispatchKeyEvent", type="keyDown", key=key, code=key, windowsVirtualKeyCode=code,
                  modifiers=modifiers, text=text)
        self.page("Input.dispatchKeyEvent", type="keyUp", key=key, code=key, windowsVirtualKeyCode=code,
                  modifiers=modifiers)

    def requests(self) -> list[str]:
        """URLs of every request the page made so far."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._write)
        os.close(self._read)
