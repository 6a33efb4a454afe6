"""Turning tool results and retrieved knowledge into findings, summaries, risks and charts — the
shared craft of the Config Best Practice and Security Assessment agents."""
