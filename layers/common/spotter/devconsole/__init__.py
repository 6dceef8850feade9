"""The dev console: a browser UI for every Spotter flow, served only by `spotter dev`.

`create_dev_app` wraps the production app factory with the console's static files and a
dev-only token endpoint; the Lambda functions build `spotter.http.app.create_app`, which has
neither (a test keeps it so).
"""
