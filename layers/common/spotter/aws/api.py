"""The streaming functions' app (send, confirm, confirm-batch, pick, undo, stream).

`functions/api/run.sh` starts uvicorn with this factory; the Lambda Web Adapter relays each
Function URL request to it and streams the response. Uvicorn runs the lifespan once per process,
so the pool opens once per container: at startup, or under SnapStart after each restore (the
adapter's hooks, `spotter.aws.snapstart`), with the secrets read then and not before.
"""

from __future__ import annotations

from typing import Any

from spotter.aws.secrets import load_secrets
from spotter.aws.snapstart import LifecycleApp, snapstart_init, warm_secrets_client, warm_tools
from spotter.http.app import create_app as create_http_app

# A message as the dashboard sends it (refused before the snapshot for its missing credentials).
WARM_REQUEST = (
    "/agent/messages",
    b'{"text": "warm", "pageContext": {"pathname": "/schedule"}}',
)


def warm_model_stack() -> None:
    """Import the model and embedding SDKs and the run loop, and run the request validators and
    the request encoder once (a model call is the streaming functions' every request)."""
    import anthropic  # noqa: F401
    from voyageai.api_resources.embedding import Embedding  # noqa: F401

    import spotter.agent.run.loop  # noqa: F401
    from spotter.http.bodies import SendMessageBody
    from spotter.providers.message_reply import ReplyReducer  # noqa: F401
    from spotter.providers.message_stream import open_stream  # noqa: F401
    from spotter.providers.wire_request import to_json

    SendMessageBody.model_validate_json('{"text": "warm", "pageContext": {"pathname": "/"}}')
    to_json({"model": "warm", "messages": [{"role": "user", "content": "warm"}]})


def warm() -> None:
    warm_secrets_client()
    warm_tools()
    warm_model_stack()


def create_app() -> Any:
    """The ASGI app uvicorn serves (`--factory`)."""
    if not snapstart_init():
        load_secrets()
        return create_http_app(mcp=False)  # the MCP server is its own function (spotter.aws.mcp)
    return LifecycleApp(
        create_http_app(mcp=False, open_pool=False), warm=warm, warm_request=WARM_REQUEST
    )
