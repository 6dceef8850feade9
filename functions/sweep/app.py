"""Scheduled sweep entry point (EventBridge, every minute): see `spotter.aws.sweep`.

Under SnapStart the runtime calls the handler's hooks around the snapshot (spotter.aws.snapstart).
"""

from spotter.aws.snapstart import register
from spotter.aws.sweep import SweepHandler

handler = SweepHandler()
register(handler.before_snapshot, handler.after_restore)
