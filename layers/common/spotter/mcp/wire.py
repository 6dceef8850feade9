"""JSON-RPC answers the MCP endpoint writes itself (the SDK writes the rest), and the one
contract for a database outage: HTTP 503 with `Retry-After`, a JSON-RPC error whose data says
`service_unavailable` — what HTTP's API answers, in MCP's envelope."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from spotter.db.errors import RETRY_AFTER_SECONDS

URL_ELICITATION_REQUIRED = -32042  # 2025-11-25: the call waits for a URL elicitation
INTERNAL_FAILURE = -32603
SERVER_UNAVAILABLE = -32000  # implementation-defined server error: try again later
UNAVAILABLE_MESSAGE = "Spotter is briefly unavailable; try again shortly."


def rpc_result(rpc_id: Any, result: Any) -> JSONResponse:
    return JSONResponse({"jsonrpc": "2.0", "id": rpc_id, "result": result})


def rpc_error(
    rpc_id: Any, code: int, message: str, *, data: Any = None, status: int = 200,
    headers: dict[str, str] | None = None,
) -> JSONResponse:  # fmt: skip
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return JSONResponse(
        {"jsonrpc": "2.0", "id": rpc_id, "error": error}, status_code=status, headers=headers
    )


def unavailable_data() -> dict[str, Any]:
    return {"code": "service_unavailable", "retryAfter": RETRY_AFTER_SECONDS}


def unavailable_response(rpc_id: Any = None) -> JSONResponse:
    return rpc_error(
        rpc_id, SERVER_UNAVAILABLE, UNAVAILABLE_MESSAGE, data=unavailable_data(), status=503,
        headers={"retry-after": str(RETRY_AFTER_SECONDS)},
    )  # fmt: skip


def is_unavailable_error(body: Any) -> bool:
    """A JSON-RPC error body that reports the outage (the SDK wrote it; the gate sets 503)."""
    error = body.get("error") if isinstance(body, dict) else None
    data = error.get("data") if isinstance(error, dict) else None
    return isinstance(data, dict) and data.get("code") == "service_unavailable"
