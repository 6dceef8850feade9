"""Scheduled sweep entry point (EventBridge, every minute): see `spotter.aws.sweep`."""

from spotter.aws.sweep import SweepHandler

handler = SweepHandler()
