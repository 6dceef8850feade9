#!/bin/bash
# Streaming entry point (send, confirm, confirm-batch, pick, undo): the AWS Lambda Web Adapter
# (AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap) runs this script, waits for /healthz, then relays each
# Function URL request to the server with response streaming.
# A wrapper-started process does not get the runtime's module path: add the layer's /opt/python.
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}/opt/python"
exec python -m uvicorn --factory spotter.aws.api:create_app \
  --host 127.0.0.1 --port "${AWS_LWA_PORT:-8080}" --no-access-log
