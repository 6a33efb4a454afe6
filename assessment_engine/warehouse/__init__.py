"""The assessment warehouse: ontology, stores (DuckDB, SQLite, Trino), demo network and build pipeline."""
