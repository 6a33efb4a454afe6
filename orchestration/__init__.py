"""Control plane of the Assessment Assistant: STATE, contracts, agents, graph, tools and CLI."""
