"""Cross-origin calls from the dashboard, stated once.

The policy (which request headers, methods and response headers, how long a preflight is
cached, credentials) is this module's; where it is enforced depends on where the app runs:
- `make dev` / `spotter dev` and any app built with `CORS_ALLOWED_ORIGINS`: Starlette's
  `CORSMiddleware`, outermost, so refusals (401, 413, 5xx) are readable cross-origin too. In dev
  with no origins set, any `localhost` / `127.0.0.1` origin (a dashboard's own dev server).
- AWS: each Function URL's `Cors` (template.yaml), for the `DashboardOrigin` parameter; Lambda
  answers the preflight itself, so the app adds no headers there (`ENVIRONMENT=production`
  never installs the middleware). A test holds every Function URL's `Cors` to this policy.

`authorization` is allowed because Clerk's session token travels as a bearer header (the SDK's
`DefaultChatTransport({ headers })`); credentials are allowed for apps whose fetches include
them, which is safe with explicit origins only (never `*`), and nothing here reads cookies.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

from spotter.config import Settings

ALLOW_HEADERS = ("authorization", "content-type", "x-locale", "accept-language", "last-event-id")
ALLOW_METHODS = ("GET", "POST")
EXPOSE_HEADERS = ("x-trace-id",)
MAX_AGE_SECONDS = 600
ALLOW_CREDENTIALS = True
# `spotter dev` without CORS_ALLOWED_ORIGINS: a dashboard's dev server on this machine
LOCAL_ORIGINS = r"^https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$"


def add_cors(app: FastAPI, settings: Settings) -> None:
    """Install the middleware when this app answers CORS itself (call it last: outermost)."""
    if settings.environment == "production":
        return  # the Function URLs answer CORS
    origins = sorted(settings.cors_origins)
    regex = LOCAL_ORIGINS if not origins and settings.environment == "dev" else None
    if not origins and regex is None:
        return
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_origin_regex=regex,
        allow_methods=list(ALLOW_METHODS),
        allow_headers=list(ALLOW_HEADERS),
        expose_headers=list(EXPOSE_HEADERS),
        allow_credentials=ALLOW_CREDENTIALS,
        max_age=MAX_AGE_SECONDS,
    )
