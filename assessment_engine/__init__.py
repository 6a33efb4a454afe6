"""The assessment engine: what turns a device's running configuration into assessment results, and the warehouse
they are kept in — below the orchestration, beside the knowledge base, over the foundation.

- ``checks``: the configuration parser, the rule engine and its check functions (interfaces, BGP), secrets masking,
  a device's judgement, verified remediation and the SLIC engine.
- ``warehouse``: the store (DuckDB, SQLite, Trino behind one query interface), its published versions and
  migrations, the demo network, the builders (the demo build, uploads), the stored summaries and the SQL path's guard.
- ``ontology``: the warehouse's tables and columns as ``contracts/warehouse.yaml`` declares them.

It is given what it checks against (``catalog.EngineCatalog``: rules, signatures, ontology, approved exceptions),
never the agents' contracts: it knows nothing of the chat, the graph or the agents.
"""
