"""A small Chrome DevTools protocol client for the browser tests: starts
Debian's headless Chromium (never a downloaded browser), opens a page,
evaluates JavaScript, clicks like a finger (mouse events at an element's
centre), and takes screenshots."""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--no-first-run",
    "--no-default-browser-check",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
    "--window-size=1280,800",
]


class CDPError(RuntimeError):
    pass


class Browser:
    def __init__(self, width: int = 1280, height: int = 800) -> None:
        self.profile = tempfile.mkdtemp(prefix="tablesim-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM, *ARGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "HOME": self.profile},
        )
        self.ws = None
        self.ids = itertools.count(1)
        self.events: list[dict] = []
        try:
            self._attach()
            self.send("Page.enable")
            self.send("Runtime.enable")
            self.send("Log.enable")
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        except BaseException:
            self.close()
            raise

    def _attach(self, timeout: float = 30.0) -> None:
        port_file = Path(self.profile) / "DevToolsActivePort"
        end = time.monotonic() + timeout
        while not port_file.is_file() or len(port_file.read_text().splitlines()) < 2:
            if self.proc.poll() is not None:
                raise CDPError(f"chromium exited with status {self.proc.returncode}")
            if time.monotonic() > end:
                raise CDPError("chromium did not open its DevTools port")
            time.sleep(0.05)
        port = int(port_file.read_text().splitlines()[0])
        import urllib.request

        targets = []
        while time.monotonic() < end:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as res:
                targets = [t for t in json.load(res) if t.get("type") == "page"]
            if targets:
                break
            time.sleep(0.05)
        if not targets:
            raise CDPError("chromium has no page")
        self.ws = connect(targets[0]["webSocketDebuggerUrl"], max_size=None, open_timeout=10).__enter__()

    def send(self, method: str, params: dict | None = None, timeout: float = 30.0) -> dict:
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params or {}}))
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise CDPError(f"{method}: no answer in {timeout} s")
            msg = json.loads(self.ws.recv(timeout=left))
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise CDPError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def goto(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait("document.readyState === 'complete'")

    def eval(self, expression: str) -> Any:
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in res:
            raise CDPError(f"{expression}: {res['exceptionDetails'].get('exception', {}).get('description')}")
        return res.get("result", {}).get("value")

    def wait(self, expression: str, timeout: float = 60.0) -> Any:  # pure waiting: generous for a loaded machine
        end = time.monotonic() + timeout
        while True:
            value = self.eval(expression)
            if value:
                return value
            if time.monotonic() > end:
                raise CDPError(f"timed out waiting for: {expression}")
            time.sleep(0.05)

    def click(self, selector: str, timeout: float = 60.0) -> None:
        """A real click (mouse pressed and released) at the centre of the element."""
        js = (
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e || e.disabled) return null; e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect(); return r.width && r.height ? [r.x + r.width / 2, r.y + r.height / 2] : null; })()"
        )
        x, y = self.wait(js, timeout)
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def type_text(self, text: str) -> None:
        self.send("Input.insertText", {"text": text})

    def press_enter(self) -> None:
        key = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13}
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", "text": "\r", **key})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **key})

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def errors(self) -> list[str]:
        """JavaScript exceptions and console errors seen so far."""
        out = []
        for ev in self.events:
            if ev["method"] == "Runtime.exceptionThrown":
                out.append(ev["params"]["exceptionDetails"].get("exception", {}).get("description", "exception"))
            elif ev["method"] == "Runtime.consoleAPICalled" and ev["params"]["type"] == "error":
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in ev["params"]["args"]))
            elif ev["method"] == "Log.entryAdded" and ev["params"]["entry"]["level"] == "error":
                out.append(ev["params"]["entry"]["text"])
        return out

    def close(self) -> None:
        try:
            if self.ws is not None:
                try:
                    self.send("Browser.close", timeout=5)
                except Exception:
                    pass
                self.ws.close()
        finally:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
