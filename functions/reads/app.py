"""Buffered entry point for the JSON reads (conversations, conversation, usage), through Mangum.

Under SnapStart the runtime calls the handler's hooks around the snapshot (spotter.aws.snapstart).
"""

from spotter.aws.reads import BufferedHandler
from spotter.aws.snapstart import register

handler = BufferedHandler()
register(handler.before_snapshot, handler.after_restore)
