"""The streaming functions' entry point, run as Lambda runs it: `functions/api/run.sh` starts
uvicorn, readiness is polled on /healthz, and each Function URL event is replayed as the HTTP
request the Web Adapter sends, its response read as a stream."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.events import STREAMING_EVENTS, as_http, load_event, with_bearer
from tests.support.tokens import TEST_ISSUER, TEST_PARTY, TokenFactory
from tests.support.world import Org

RUN_SH = Path(__file__).resolve().parents[3] / "functions" / "api" / "run.sh"
READY_TIMEOUT_S = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_ready(base_url: str, process: subprocess.Popen[bytes]) -> float:
    """Poll the readiness path the way the adapter does; returns seconds until ready."""
    started = time.monotonic()
    while time.monotonic() - started < READY_TIMEOUT_S:
        if process.poll() is not None:
            output = process.stdout.read().decode() if process.stdout else ""
            raise AssertionError(f"run.sh exited with {process.returncode}:\n{output}")
        try:
            if httpx.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                return time.monotonic() - started
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"/healthz not ready within {READY_TIMEOUT_S}s")


@pytest.fixture(scope="module")
def server(app_url: str, tokens: TokenFactory) -> Iterator[str]:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_SECRET_ARN")}
    env.update(
        # `python` in run.sh must be this environment's, as /var/lang/bin/python is in Lambda.
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        AWS_LWA_PORT=str(port),
        APP_DATABASE_URL=app_url,
        ENVIRONMENT="test",
        CLERK_JWT_KEY=tokens.public_pem,
        CLERK_ISSUER=TEST_ISSUER,
        CLERK_AUTHORIZED_PARTIES=TEST_PARTY,
    )
    process = subprocess.Popen(
        [str(RUN_SH)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(base_url, process)
        yield base_url
    finally:
        process.terminate()
        process.wait(timeout=10)


def _replay(base_url: str, event: dict[str, object]) -> tuple[httpx.Response, list[bytes]]:
    request = as_http(event)
    with (
        httpx.Client(base_url=base_url, timeout=10) as client,
        client.stream(
            request.method, request.target, headers=request.headers, content=request.body
        ) as response,
    ):
        chunks = list(response.iter_raw())
    return response, chunks


def test_run_sh_is_executable() -> None:
    # Lambda runs the handler file itself; without the x bit the adapter cannot start it.
    assert os.access(RUN_SH, os.X_OK)


@pytest.mark.parametrize("name", STREAMING_EVENTS)
@pytest.mark.parametrize("token", ["absent", "placeholder"])
def test_streaming_routes_refuse_unauthenticated_requests_with_json_401(
    server: str, name: str, token: str
) -> None:
    event = load_event(name)  # the file's "Bearer <clerk session token>" is not a token
    if token == "absent":
        event = with_bearer(event, None)
    response, chunks = _replay(server, event)
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/json"
    body = json.loads(b"".join(chunks))
    assert body["code"] == ("missing_token" if token == "absent" else "invalid_token")
    assert body["traceId"] == response.headers["x-trace-id"]


def test_the_ai_sdk_chat_streams_the_ui_message_stream(
    server: str, tokens: TokenFactory, org: Org
) -> None:
    token = tokens.token(org["coach"].clerk_user_id, org.clerk_org_id)
    response, chunks = _replay(server, with_bearer(load_event("chat"), token))
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["transfer-encoding"] == "chunked"
    body = b"".join(chunks).decode()
    assert body.endswith("data: [DONE]\n\n")
    frames = [json.loads(b.removeprefix("data: ")) for b in body.split("\n\n")[:-2]]
    # no provider here: the stream says so as the SDK reads errors, then finishes
    assert [f["type"] for f in frames] == ["start", "message-metadata", "error", "finish"]
    assert frames[1]["messageMetadata"]["error"]["code"] == "provider_not_configured"


def test_send_streams_server_sent_events(server: str, tokens: TokenFactory, org: Org) -> None:
    token = tokens.token(org["coach"].clerk_user_id, org.clerk_org_id)
    response, chunks = _replay(server, with_bearer(load_event("send-message"), token))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    # Streamed, not buffered: chunked, and nothing on the way may hold events back.
    assert response.headers["transfer-encoding"] == "chunked"
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["x-accel-buffering"] == "no"
    blocks = b"".join(chunks).decode().split("\n\n")
    assert blocks[-1] == "", "the stream ends on an event boundary"
    events = []
    for block in blocks[:-1]:
        # no provider here: the stream says so, and that answer is not a run's (no `id:`)
        kind, data = block.split("\n")
        assert kind.startswith("event: ")
        assert data.startswith("data: ")
        events.append((kind.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    assert events[-1][0] == "done"
    assert all(payload["type"] == kind for kind, payload in events)
