"""The ``assess`` command: a front end over the orchestration, the knowledge base and the benchmarks."""
