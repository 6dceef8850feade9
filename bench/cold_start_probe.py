"""One cold start of one function, run by bench/cold_start.py in a fresh `python3.12 -S` whose
PYTHONPATH is the function's built code and layers only (as Lambda's /var/task and /opt/python).

    cold_start_probe.py streaming|mcp|reads|sweep on-demand|snapstart < request.json

Prints one JSON object of milliseconds per phase:
- on-demand: `import` (the entry module), `build` (the app, and for the Web Adapter functions
  uvicorn's lifespan: the pool), `first` (the first request through the handler, from the event
  in events/; the streaming and MCP apps are driven over ASGI as uvicorn would, `first_byte`
  being the first body byte of the response);
- snapstart: the same `import` and `build` plus `before` (the before-snapshot hook), all paid
  once at publish; then `restore` (the after-restore hook: reseed, secrets, pool) and `first`,
  which is what a user waits for on a new instance.
- `cpu`: the process's CPU time (all its threads) over the phases a user waits for: import, build
  and first request on demand; restore and first request after a snapshot. On a shared, loaded
  machine it moves far less than the wall-clock figures (the process waits for a core, not CPU).
Only the standard library is imported here before the timed phases begin. The offline demo model
answers instantly here (its pacing, a few ms per streamed event to look like a model, is set to
zero when its module loads), so `first` is the server's own time.
"""

from __future__ import annotations

import asyncio
import importlib.abc
import importlib.machinery
import json
import os
import sys
import time
from typing import Any

Timings = dict[str, float]


class _InstantDemoModel(importlib.abc.MetaPathFinder):
    """Zero the demo model's pacing once its module has run (whenever the app imports it)."""

    NAME = "spotter.providers.demo"

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != self.NAME:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            module.TEXT_DELAY_S = module.TOOL_DELAY_S = 0.0

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


sys.meta_path.insert(0, _InstantDemoModel())


_CPU = [0.0]  # process CPU seconds when the timed user-facing phases began


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


class Asgi:
    """What uvicorn does for the Web Adapter's app: its lifespan, then requests, on one loop."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self._lifespan: asyncio.Queue[dict[str, Any]] | None = None

    def start(self) -> None:
        async def run() -> None:
            inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            ready: asyncio.Future[None] = self.loop.create_future()
            self._lifespan = inbox

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "lifespan.startup.complete":
                    ready.set_result(None)
                elif message["type"] == "lifespan.startup.failed":
                    ready.set_exception(RuntimeError(message.get("message", "")))

            scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
            self.loop.create_task(self.app(scope, inbox.get, send))
            await inbox.put({"type": "lifespan.startup"})
            await ready

        self.loop.run_until_complete(run())

    def request(self, request: dict[str, Any]) -> tuple[int, float, float]:
        """(status, ms to the first body byte, ms to the end of the response)."""

        async def run() -> tuple[int, float, float]:
            start = time.perf_counter()
            body = request["body"].encode()
            first: float | None = None
            status = 0
            sent = False

            async def receive() -> dict[str, Any]:
                nonlocal sent
                if sent:
                    await asyncio.Event().wait()  # the client stays connected
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}

            async def send(message: dict[str, Any]) -> None:
                nonlocal first, status
                if message["type"] == "http.response.start":
                    status = message["status"]
                elif message.get("body") and first is None:
                    first = _ms(start)

            path, _, query = request["target"].partition("?")
            scope = {
                "type": "http",
                "asgi": {"version": "3.0"},
                "http_version": "1.1",
                "method": request["method"],
                "scheme": "http",
                "path": path,
                "raw_path": path.encode(),
                "query_string": query.encode(),
                "root_path": "",
                "headers": [(k.lower().encode(), v.encode()) for k, v in request["headers"].items()]
                + [(b"host", b"127.0.0.1:8080")],
                "client": ("127.0.0.1", 50000),
                "server": ("127.0.0.1", 8080),
                "state": {},
            }
            await self.app(scope, receive, send)
            return status, first if first is not None else _ms(start), _ms(start)

        return self.loop.run_until_complete(run())

    def post(self, path: str) -> int:
        status, _, _ = self.request({"method": "POST", "target": path, "headers": {}, "body": ""})
        return status


def web_adapter(kind: str, snapstart: bool, request: dict[str, Any]) -> Timings:
    timings: Timings = {}
    start = time.perf_counter()
    if kind == "streaming":
        from spotter.aws.api import create_app
    else:
        from spotter.aws.mcp import create_app
    timings["import"] = _ms(start)
    start = time.perf_counter()
    server = Asgi(create_app())
    server.start()
    timings["build"] = _ms(start)
    if snapstart:
        start = time.perf_counter()
        assert server.post(os.environ["AWS_LWA_SNAPSTART_BEFORE_CHECKPOINT_PATH"]) == 200
        timings["before"] = _ms(start)
        start = time.perf_counter()
        _CPU[0] = time.process_time()
        assert server.post(os.environ["AWS_LWA_SNAPSTART_AFTER_RESTORE_PATH"]) == 200
        timings["restore"] = _ms(start)
    status, first_byte, total = server.request(request)
    assert status == 200, status
    timings["first_byte"] = first_byte
    timings["first"] = total
    return timings


class Context:
    function_name = "spotter-bench"
    aws_request_id = "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"


def plain(kind: str, snapstart: bool, event: dict[str, Any]) -> Timings:
    timings: Timings = {}
    start = time.perf_counter()
    import app  # the function's own entry module (functions/<kind>/app.py)

    timings["import"] = _ms(start)
    if snapstart:
        start = time.perf_counter()
        app.handler.before_snapshot()
        timings["before"] = _ms(start)
        start = time.perf_counter()
        _CPU[0] = time.process_time()
        app.handler.after_restore()
        timings["restore"] = _ms(start)
    start = time.perf_counter()
    response = app.handler(event, Context())
    timings["first"] = _ms(start)
    if kind == "reads":
        assert response["statusCode"] == 200, response
    return timings


def main(kind: str, path: str) -> None:
    given = json.load(sys.stdin)
    snapstart = path == "snapstart"
    _CPU[0] = time.process_time()
    if kind in ("streaming", "mcp"):
        timings = web_adapter(kind, snapstart, given["request"])
    else:
        timings = plain(kind, snapstart, given["event"])
    timings["cpu"] = round((time.process_time() - _CPU[0]) * 1000, 1)
    # the handlers' JSON log lines went to stdout before this: the report is the last line
    print(json.dumps(timings))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
