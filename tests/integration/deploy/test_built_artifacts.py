"""Each function runs on its built artifacts alone, and fits 150 MB unzipped.

Every probe is `python3.12 -S` (no site-packages) with PYTHONPATH = the function's built code and
its layers' python/ dirs, nothing else, as Lambda assembles /var/task and /opt/python. What a
layer left out (layers/*/requirements.lock `# excluded:`, layers/*/prune.txt) is absent there,
so a path that imported it would fail here: the probes run each function's real work (a reads
event, a sweep, the migrations, a streamed message through the fake model, an embedding through
the real voyageai client against the fake Voyage server). Sizes and import times: docs/deploy.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import httpx
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from spotter.db.server import ensure_database
from tests.conftest import _worker
from tests.integration.deploy.conftest import ROOT, BuiltFunction, find_python
from tests.support.events import as_http, load_event, with_bearer
from tests.support.fake_voyage import fake_embedding, fake_voyage_server
from tests.support.tokens import TEST_ISSUER, TEST_PARTY, TokenFactory
from tests.support.world import Org

# Our part of a function, unzipped: its code and our layers. The Web Adapter layer (about 5 MB)
# comes on top for the streaming functions; test_sam_build checks Lambda's 250 MiB with it.
FUNCTION_BUDGET = 150_000_000
STREAMING = ("SendFunction", "ConfirmFunction", "PickFunction", "UndoFunction")
LIGHT = ("ReadsFunction", "SweepFunction", "MigrationFunction")
MCP = "McpFunction"
PYTHON = find_python()


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def _env(function: BuiltFunction, **extra: str) -> dict[str, str]:
    """The probe's environment: no secret ARNs (no AWS here), nothing of the test venv."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_SECRET_ARN") and k not in ("VIRTUAL_ENV", "PYTHONHOME")
    }
    # Lambda cannot write bytecode into /opt or /var/task; nor may a probe into the artifacts.
    return {**env, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": function.pythonpath, **extra}


def _probe(function: BuiltFunction, code: str, stdin: str = "", **env: str) -> str:
    result = subprocess.run(
        [PYTHON, "-S", "-c", code],
        cwd=function.code,
        env=_env(function, **env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _distributions(function: BuiltFunction) -> dict[str, Path]:
    """Every distribution the function's layers install: normalized name → its .dist-info."""
    found = {}
    for python in function.layers.values():
        for info in python.glob("*.dist-info"):
            name = re.search(r"^Name: (.+)$", (info / "METADATA").read_text(), re.M)
            assert name, info
            found[canonicalize_name(name.group(1).strip())] = info
    return found


def _excluded(function: BuiltFunction) -> set[str]:
    """The `# excluded: <name>` lines of the function's layers' requirements.lock files."""
    names = set()
    for layer in function.layers:
        lock = ROOT / "layers" / layer.removesuffix("Layer").lower() / "requirements.lock"
        for match in re.finditer(r"^# excluded: (\S+)", lock.read_text(), re.M):
            names.add(canonicalize_name(match.group(1)))
    return names


def _requires(info: Path, extras: Iterable[str] = ()) -> Iterator[Requirement]:
    """The dependencies a distribution declares for Linux CPython 3.12 and these extras."""
    for line in (info / "METADATA").read_text().splitlines():
        if line.startswith("Requires-Dist:"):
            requirement = Requirement(line.removeprefix("Requires-Dist:").strip())
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in {*extras, ""}):
                yield requirement


@pytest.mark.parametrize("name", [*STREAMING, *LIGHT, MCP])
def test_each_function_is_at_most_150_mb_unzipped(
    functions: dict[str, BuiltFunction], name: str
) -> None:
    function = functions[name]
    total = _size(function.code) + sum(_size(p.parent) for p in function.layers.values())
    assert total <= FUNCTION_BUDGET, f"{name}: {total:,} bytes"


def test_only_the_streaming_functions_carry_the_model_and_embedding_layers(
    functions: dict[str, BuiltFunction],
) -> None:
    for name in STREAMING:
        assert list(functions[name].layers) == ["CommonLayer", "ModelLayer", "EmbeddingLayer"]
    for name in LIGHT:
        assert list(functions[name].layers) == ["CommonLayer"]
    assert list(functions[MCP].layers) == ["CommonLayer", "McpLayer"]


@pytest.mark.parametrize("name", ["SendFunction", "ReadsFunction", MCP])
def test_a_functions_layers_never_ship_the_same_path(
    functions: dict[str, BuiltFunction], name: str
) -> None:
    # Lambda extracts every layer into /opt: a path in two layers would silently overwrite.
    seen: dict[str, str] = {}
    for layer, python in functions[name].layers.items():
        # the top-level modules' bytecode shares one __pycache__ folder: its files must differ
        entries = [
            *(e.name for e in python.iterdir() if e.name != "__pycache__"),
            *(f"__pycache__/{e.name}" for e in python.glob("__pycache__/*")),
        ]
        for entry in entries:
            if entry == "bin":  # console scripts, never on sys.path
                continue
            assert entry not in seen, (entry, seen.get(entry), layer)
            seen[entry] = layer


@pytest.mark.parametrize("name", ["SendFunction", "ReadsFunction", MCP])
def test_every_declared_dependency_ships_or_is_excluded_with_a_reason(
    functions: dict[str, BuiltFunction], name: str
) -> None:
    function = functions[name]
    present = _distributions(function)
    excluded = _excluded(function)
    missing = set()
    for dist, info in present.items():
        for requirement in _requires(info):
            dependency = canonicalize_name(requirement.name)
            if dependency not in present and dependency not in excluded:
                missing.add(f"{dist} needs {dependency}")
    # What we chose, with its extras (psycopg[binary], pyjwt[crypto]), at the chosen versions.
    for layer in function.layers:
        chosen = ROOT / "layers" / layer.removesuffix("Layer").lower() / "requirements.txt"
        for line in chosen.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            requirement = Requirement(line)
            info = present.get(canonicalize_name(requirement.name))
            assert info is not None, f"{requirement} is not in {name}'s layers"
            version = info.name.removesuffix(".dist-info").rsplit("-", 1)[1]
            assert requirement.specifier.contains(version), (str(requirement), version)
            for extra in _requires(info, requirement.extras):
                if canonicalize_name(extra.name) not in {*present, *excluded}:
                    missing.add(f"{requirement} needs {extra.name}")
    assert not missing, sorted(missing)


def test_excluded_distributions_are_left_out_of_every_layer(
    functions: dict[str, BuiltFunction],
) -> None:
    send = functions["SendFunction"]
    excluded = _excluded(send)
    assert {"tokenizers", "pillow", "huggingface-hub", "langchain-text-splitters"} <= excluded
    assert not excluded & set(_distributions(send))


def test_reads_function_answers_an_event_on_its_built_artifacts(
    functions: dict[str, BuiltFunction], tokens: TokenFactory, org: Org, app_url: str
) -> None:
    token = tokens.token(org["coach"].clerk_user_id, org.clerk_org_id)
    event = with_bearer(load_event("reads-usage"), token)
    code = (
        "import json, sys, app\n"
        "class Context:\n"
        "    function_name = 'spotter-reads'\n"
        "    aws_request_id = 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef'\n"
        "response = app.handler(json.load(sys.stdin), Context())\n"
        "print(response['statusCode'], 'spentUsdMicros' in json.loads(response['body']))\n"
    )
    out = _probe(
        functions["ReadsFunction"],
        code,
        stdin=json.dumps(event),
        APP_DATABASE_URL=app_url,
        ENVIRONMENT="test",
        CLERK_JWT_KEY=tokens.public_pem,
        CLERK_ISSUER=TEST_ISSUER,
        CLERK_AUTHORIZED_PARTIES=TEST_PARTY,
    )
    assert out == "200 True"


def test_sweep_function_sweeps_on_its_built_artifacts(
    functions: dict[str, BuiltFunction], org: Org, app_url: str
) -> None:
    code = "import json, sys, app\nprint(json.dumps(app.handler(json.load(sys.stdin), None)))\n"
    out = _probe(
        functions["SweepFunction"],
        code,
        stdin=json.dumps(load_event("sweep-scheduled")),
        APP_DATABASE_URL=app_url,
        ENVIRONMENT="test",
    )
    # The handler's log lines come first (JSON, stdout); the handler's answer is the last line.
    assert '"message":"sweep.done"' in out
    assert json.loads(out.splitlines()[-1]) == {
        "orgs": 0,
        "messagesClosed": 0,
        "mcpExpired": 0,
        "holdsCharged": 0,
        "automationEmailsQueued": 0,
        "emailsDelivered": 0,
    }


def test_migration_function_migrates_an_empty_database_on_its_built_artifacts(
    functions: dict[str, BuiltFunction], pg_server_url: str
) -> None:
    url = ensure_database(pg_server_url, f"spotter_artifacts_{_worker()}", recreate=True)
    code = (
        "import asyncio, json, sys, app\n"
        "from spotter.db.migrate import migrate\n"
        "print(json.dumps(asyncio.run(migrate(sys.stdin.read()))))\n"
    )
    applied = json.loads(_probe(functions["MigrationFunction"], code, stdin=url))
    migrations = ROOT / "layers" / "common" / "spotter" / "db" / "migrations"
    assert len(applied) == len(list(migrations.glob("*.sql")))


def test_kept_aws_service_models_build_clients_and_pruned_ones_do_not(
    functions: dict[str, BuiltFunction],
) -> None:
    rules = (ROOT / "layers" / "common" / "prune.txt").read_text()
    kept = re.findall(r"^!botocore/data/([a-z0-9-]+)\s", rules, re.M)
    assert "secretsmanager" in kept
    code = (
        "import sys, boto3, botocore.exceptions\n"
        "for service in sys.argv[1:] or sys.stdin.read().split():\n"
        "    boto3.client(service, region_name='eu-west-1')\n"
        "try:\n"
        "    boto3.client('s3', region_name='eu-west-1')\n"
        "except botocore.exceptions.UnknownServiceError:\n"
        "    print('s3 pruned')\n"
    )
    env = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
    out = _probe(functions["SweepFunction"], code, stdin=" ".join(kept), **env)
    assert out == "s3 pruned"


async def test_embedding_runs_through_voyageai_on_the_streaming_layers(
    functions: dict[str, BuiltFunction],
) -> None:
    code = (
        "import asyncio, json, sys\n"
        "from spotter.providers.embeddings import VoyageEmbedder\n"
        "embedder = VoyageEmbedder.from_settings('test-key', base_url=sys.stdin.read())\n"
        "vectors = asyncio.run(embedder.embed(['back squat', 'סקוואט'], 'query'))\n"
        "print(json.dumps([vectors, 'voyageai' in sys.modules, sys.modules['numpy'].__file__]))\n"
    )
    send = functions["SendFunction"]
    async with fake_voyage_server() as (base_url, seen):
        process = await asyncio.create_subprocess_exec(
            PYTHON,
            "-S",
            "-c",
            code,
            cwd=send.code,
            env=_env(send),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(base_url.encode()), 120)
    assert process.returncode == 0, err.decode()
    vectors, through_voyageai, numpy = json.loads(out.decode().strip().splitlines()[-1])
    # The vectors the server sent (as base64 float32, as Voyage does), decoded without numpy:
    # the layer's numpy is the stand-in, which refuses any use.
    expected = [fake_embedding("back squat"), fake_embedding("סקוואט")]
    assert [len(v) for v in vectors] == [1024, 1024]
    assert all(
        got == pytest.approx(want, abs=1e-7) for got, want in zip(vectors, expected, strict=True)
    )
    assert through_voyageai
    assert numpy == str(send.layers["EmbeddingLayer"] / "numpy" / "__init__.py")
    assert [request["input"] for request in seen] == [["back squat", "סקוואט"]]
    assert [request["encoding_format"] for request in seen] == ["base64"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_healthy(process: subprocess.Popen[bytes], base_url: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
        assert time.monotonic() < deadline, "/healthz not ready within 60 s"
        try:
            if httpx.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)


@pytest.fixture
def interpreter_shim(tmp_path: Path) -> Path:
    """A `python` for run.sh: python3.12 without site-packages, as /var/lang/bin/python."""
    shim = tmp_path / "bin" / "python"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{PYTHON}" -S "$@"\n')
    shim.chmod(0o755)
    return shim.parent


def test_streaming_function_streams_a_message_on_its_built_artifacts(
    functions: dict[str, BuiltFunction],
    interpreter_shim: Path,
    tokens: TokenFactory,
    org: Org,
    app_url: str,
) -> None:
    send = functions["SendFunction"]
    port = _free_port()
    env = _env(
        send,
        PATH=f"{interpreter_shim}{os.pathsep}{os.environ.get('PATH', '')}",
        AWS_LWA_PORT=str(port),
        APP_DATABASE_URL=app_url,
        ENVIRONMENT="test",
        SPOTTER_FAKE_MODEL="1",
        CLERK_JWT_KEY=tokens.public_pem,
        CLERK_ISSUER=TEST_ISSUER,
        CLERK_AUTHORIZED_PARTIES=TEST_PARTY,
    )
    process = subprocess.Popen(
        [str(send.code / "run.sh")],
        cwd=send.code,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(process, base_url)
        token = tokens.token(org["coach"].clerk_user_id, org.clerk_org_id)
        request = as_http(with_bearer(load_event("send-message"), token))
        with httpx.Client(base_url=base_url, timeout=30) as client:
            response = client.request(
                request.method, request.target, headers=request.headers, content=request.body
            )
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert response.status_code == 200
    kinds = re.findall(r"^event: (\S+)$", response.text, re.M)
    assert "text_delta" in kinds
    assert kinds[-1] == "done"
    assert "error" not in kinds


def test_the_help_corpus_ships_with_the_streaming_functions(
    functions: dict[str, BuiltFunction],
) -> None:
    articles = ROOT / "layers" / "common" / "spotter" / "help" / "articles"
    code = "from spotter.help.corpus import load_corpus\nprint(len(load_corpus()))\n"
    assert _probe(functions["SendFunction"], code) == str(len(list(articles.glob("*.md"))))


def test_mcp_function_lists_tools_on_its_built_artifacts_without_the_model_sdks(
    functions: dict[str, BuiltFunction],
    interpreter_shim: Path,
    tokens: TokenFactory,
    org: Org,
    app_url: str,
) -> None:
    mcp = functions[MCP]
    port = _free_port()
    env = _env(
        mcp,
        PATH=f"{interpreter_shim}{os.pathsep}{os.environ.get('PATH', '')}",
        AWS_LWA_PORT=str(port),
        APP_DATABASE_URL=app_url,
        ENVIRONMENT="test",
        CLERK_JWT_KEY=tokens.public_pem,
        CLERK_ISSUER=TEST_ISSUER,
        MCP_RESOURCE_URL=f"http://127.0.0.1:{port}/mcp",
    )
    process = subprocess.Popen(
        [str(mcp.code / "run.sh")], cwd=mcp.code, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base_url = f"http://127.0.0.1:{port}"
    token = tokens.token(org["coach"].clerk_user_id, org.clerk_org_id)
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    try:
        _wait_healthy(process, base_url)
        with httpx.Client(base_url=base_url, timeout=30) as client:
            listed = client.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}},
                headers={
                    "authorization": f"Bearer {token}",
                    "accept": "application/json, text/event-stream",
                    "mcp-protocol-version": "2026-07-28",
                    "mcp-method": "tools/list",
                },
            )
            unauthenticated = client.post("/mcp", json={})
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert listed.status_code == 200, listed.text
    names = [t["name"] for t in listed.json()["result"]["tools"]]
    assert "workouts_get" in names
    assert unauthenticated.status_code == 401
    assert "resource_metadata=" in unauthenticated.headers["www-authenticate"]
    # The MCP layer alone over the common layer: no model SDK to import, so none was.
    assert not (mcp.layers["McpLayer"] / "anthropic").exists()
    assert "ModelLayer" not in mcp.layers and "EmbeddingLayer" not in mcp.layers


# A fresh MCP app's first tools/list over ASGI (as uvicorn drives it), with schema generation
# made to fail; then every list the layer carries, against what the code builds now.
_MCP_FIRST_LIST = """
import asyncio, json, sys, tempfile
from pathlib import Path
import pydantic
original = vars(pydantic.BaseModel)["model_json_schema"]
def refuse(*args, **kwargs):
    raise AssertionError("schema generation on the request path")
pydantic.BaseModel.model_json_schema = classmethod(refuse)
from spotter.aws.mcp import create_app
app = create_app()
request = json.loads(sys.stdin.read())
async def main():
    inbox, started, answer = asyncio.Queue(), asyncio.Event(), []
    async def lifespan_send(message):
        if message["type"] == "lifespan.startup.complete":
            started.set()
    lifespan = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    task = asyncio.create_task(app(lifespan, inbox.get, lifespan_send))
    await inbox.put({"type": "lifespan.startup"})
    await started.wait()
    async def receive():
        return {"type": "http.request", "body": request["body"].encode(), "more_body": False}
    async def send(message):
        answer.append(message)
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/mcp", "raw_path": b"/mcp", "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8080),
        "headers": [(k.encode(), v.encode()) for k, v in request["headers"].items()],
        "state": {},
    }
    await app(scope, receive, send)
    await inbox.put({"type": "lifespan.shutdown"})
    await task
    return answer
answer = asyncio.run(main())
status = answer[0]["status"]
tools = json.loads(b"".join(m.get("body", b"") for m in answer[1:]))["result"]["tools"]
leaves = sorted(m for m in sys.modules if m.startswith("spotter.tools.leaves."))
pydantic.BaseModel.model_json_schema = original
from spotter.mcp import catalog
fresh = Path(tempfile.mkdtemp())
written = catalog.write_prebuilt(fresh)
same = all((catalog.DIRECTORY / p.name).read_bytes() == p.read_bytes() for p in written)
print(status, len(tools) > 0, leaves, len(written), same)
"""


def test_the_mcp_app_builds_no_tool_schema_on_its_first_tools_list(
    functions: dict[str, BuiltFunction], tokens: TokenFactory, org: Org, app_url: str
) -> None:
    # The layer carries every tool list the server serves (staff role x org flags x toolset x
    # write scope) as its own code builds them; the first tools/list reads its list and neither
    # imports a tool module nor generates a schema. 3 roles x 4 flag pairs x 8 toolsets x 2.
    mcp = functions[MCP]
    token = tokens.token(org["coach"].clerk_user_id, org.clerk_org_id)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }}}  # fmt: skip
    request = {
        "body": json.dumps(body),
        "headers": {
            "host": "127.0.0.1:8080",
            "authorization": f"Bearer {token}",
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/list",
        },
    }
    printed = _probe(
        mcp, _MCP_FIRST_LIST, json.dumps(request),
        APP_DATABASE_URL=app_url, ENVIRONMENT="test", CLERK_JWT_KEY=tokens.public_pem,
        CLERK_ISSUER=TEST_ISSUER, MCP_RESOURCE_URL="http://127.0.0.1:8080/mcp",
    )  # fmt: skip
    assert printed.splitlines()[-1] == "200 True [] 192 True"


@pytest.mark.parametrize(
    "what", ["PIL.Image.open", "huggingface_hub.hf_hub_download", "numpy.frombuffer"]
)
def test_the_embedding_layers_stand_ins_refuse_to_be_used(
    functions: dict[str, BuiltFunction], what: str
) -> None:
    module, name = what.rsplit(".", 1)
    code = (
        f"import importlib\n"
        f"try:\n"
        f"    getattr(importlib.import_module({module!r}), {name!r})('x')\n"
        f"except RuntimeError as error:\n"
        f"    print(type(error).__name__, 'embeds text only' in str(error))\n"
    )
    assert _probe(functions["SendFunction"], code) == "StandInError True"


def test_every_module_of_every_layer_ships_its_python312_bytecode(
    functions: dict[str, BuiltFunction],
) -> None:
    # Lambda cannot write __pycache__ into /opt: a module without its .pyc compiles on every
    # cold start. The probe imports with bytecode writing off, as Lambda does.
    missing = []
    for python in functions["SendFunction"].layers.values():
        for source in python.rglob("*.py"):
            if "bin" in source.relative_to(python).parts[:1]:
                continue
            cached = source.parent / "__pycache__" / f"{source.stem}.cpython-312.pyc"
            if not cached.is_file():
                missing.append(str(source.relative_to(python)))
    assert not missing, missing[:20]


def test_the_streaming_app_builds_no_tool_schema_on_its_first_request(
    functions: dict[str, BuiltFunction],
) -> None:
    # The layer carries every surface's definitions as built by its own code: equal to what
    # the registry builds, and read instead of built (building is made to fail here).
    code = (
        "from spotter.tools import prebuilt, registry\n"
        "from spotter.tools.catalog import load_catalog\n"
        "built = {}\n"
        "for role, grain, forms in prebuilt.surfaces():\n"
        "    fresh = registry.ToolRegistry(\n"
        "        load_catalog(), role, day_grain=grain, forms=forms, prebuilt=False\n"
        "    )\n"
        "    built[role, grain, forms] = fresh.definitions_json, fresh.quick_definitions_json\n"
        "def refuse(*args, **kwargs):\n"
        "    raise AssertionError('schema generation on the request path')\n"
        "registry.build_definitions = refuse\n"
        "same = all(\n"
        "    (registry.registry_for(*surface).definitions_json,\n"
        "     registry.registry_for(*surface).quick_definitions_json) == built[surface]\n"
        "    for surface in prebuilt.surfaces()\n"
        ")\n"
        "print(len(built), same)\n"
    )
    assert _probe(functions["SendFunction"], code) == "16 True"
