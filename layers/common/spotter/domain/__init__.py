"""The gym: one module per area, SQL plus business rules. Knows nothing of the agent or HTTP.

Every function takes the org-scoped connection and the org id and filters by it explicitly,
on top of row-level security.
"""
