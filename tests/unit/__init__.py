"""The unit tier (``make test-fast``): in-process tests of the engine, tools, agents, graph and answers — the demo
warehouse built once and the bundled model loaded in this process; no server, subprocess, PostgreSQL or browser."""
