"""Buffered entry point for the JSON reads (conversations, conversation, usage), through Mangum."""

from mangum import Mangum

from spotter.http.app import create_app

handler = Mangum(create_app(), lifespan="auto")
