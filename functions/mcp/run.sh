#!/bin/bash
# MCP entry point (POST /mcp, stateless streamable HTTP: JSON, or a stream while a confirmation
# is asked; the OAuth metadata): the
# AWS Lambda Web Adapter (AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap) runs this script, waits for
# /healthz, then relays each Function URL request. Uvicorn runs the lifespan once per container,
# which the SDK's session manager needs (its task group) and which opens the pool.
# A wrapper-started process does not get the runtime's module path: add the layer's /opt/python.
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}/opt/python"
exec python -m uvicorn --factory spotter.aws.mcp:create_app \
  --host 127.0.0.1 --port "${AWS_LWA_PORT:-8080}" --no-access-log
