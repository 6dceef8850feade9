"""What only AWS Lambda needs: secrets loading and the handlers behind `functions/*/`.

Entry points import one module from here; nothing in this package imports a model SDK, so the
buffered reads and the migration stay light on cold start.
"""
