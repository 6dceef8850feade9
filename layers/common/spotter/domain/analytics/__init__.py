"""Analytics: read-only numbers over the domain tables for a local date range.

Every answer carries the period it covers (local dates, the org's zone) and the counts its rates
rest on, so a rate is never shown without its numerator and denominator.
"""
