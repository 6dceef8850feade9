"""Buffered entry point for the JSON reads (conversations, conversation, usage), through Mangum."""

from spotter.aws.reads import BufferedHandler

handler = BufferedHandler()
