"""Hybrid-search pieces below the agent: rank fusion, the lexical token score, query words.

Used by the agent's ambient RAG (`agent.rag`) and by the help corpus (`spotter.help`), which
sits below `tools` and so cannot reach into the agent.
"""
