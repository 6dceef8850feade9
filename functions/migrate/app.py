"""Entry point of the schema-migration custom resource (run by CloudFormation on deploy)."""

from spotter.aws.migration import handler

__all__ = ["handler"]
