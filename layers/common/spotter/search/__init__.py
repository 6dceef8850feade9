"""Hybrid-search primitives below the agent: reciprocal-rank fusion and the lexical token score.

The help corpus uses them from `spotter.help`; the agent's ambient RAG (`agent.rag.search`)
computes the same two things and can build on these.
"""
