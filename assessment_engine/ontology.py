"""The warehouse ontology (``contracts/warehouse.yaml``): tables, columns, meanings, value
enumerations, entity -> column mapping and user vocabulary. DDL and the SQL path's allowlist are
derived from it, so the schema is declared once."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from foundation.yaml_files import ContractError, read_yaml

TABLE_FORMATS = ("iceberg", "hive")
# Every question reads one collection (assets, assessments) and one or two runs (results, SLIC matches).
PARTITIONS = {"assets": "collection", "assessments": "collection", "results": "assessment_id", "configs": "assessment_id",
              "slic_results": "assessment_id"}


class ColumnSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    type: str
    meaning: str = ""
    values: list[str] = Field(default_factory=list)
    key: bool = False
    references: str | None = None


class TableSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    description: str
    columns: dict[str, ColumnSpec]


class Ontology(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    tables: dict[str, TableSpec]
    entity_columns: dict[str, str]
    synonyms: dict[str, list[str]] = Field(default_factory=dict)

    def columns(self, table: str) -> list[str]:
        return list(self.tables[table].columns)

    def ddl(self, dialect: str = "duckdb", table_format: str | None = None) -> list[str]:
        """``CREATE TABLE`` for every table; on Trino with ``table_format`` (``iceberg`` or ``hive``) the tables are
        Parquet, and on Iceberg partitioned as the tools filter them (``PARTITIONS``). Hive partitions must be the
        last columns, which the collection column is not (columns are only ever appended), so Hive tables are left
        unpartitioned."""
        out = []
        for name, table in self.tables.items():
            cols = ", ".join(f"{col} {spec.type}" for col, spec in table.columns.items())
            sql = f"CREATE TABLE {name} ({cols})"
            if dialect != "duckdb":
                import sqlglot  # another engine's DDL only: building the embedded one never needs it

                sql = sqlglot.transpile(sql, read="duckdb", write=dialect)[0]
            if dialect == "trino" and table_format in TABLE_FORMATS:
                props = ["format = 'PARQUET'"]
                if table_format == "iceberg" and name in PARTITIONS:
                    props.append(f"partitioning = ARRAY['{PARTITIONS[name]}']")
                sql += f" WITH ({', '.join(props)})"
            out.append(sql)
        return out


def load_ontology(path: Path) -> Ontology:
    try:
        return Ontology.model_validate(read_yaml(path))
    except (OSError, yaml.YAMLError) as exc:
        raise ContractError(f"{path}: cannot be read: {exc}") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ContractError(f"{path}: field '{'.'.join(map(str, err['loc']))}': {err['msg']}") from None
