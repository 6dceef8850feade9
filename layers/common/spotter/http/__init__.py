"""The HTTP surface: FastAPI app, routes, SSE responses, request bodies, locale and trace ids."""
