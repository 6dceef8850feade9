#!/bin/bash
# Streaming entry point (send, confirm, confirm-batch, pick, undo): the AWS Lambda Web Adapter
# starts this server and relays each Function URL request to it with response streaming.
exec python -m uvicorn --factory spotter.http.app:create_app --host 127.0.0.1 --port "${PORT:-8080}" --no-access-log
