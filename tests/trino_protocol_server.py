"""A small Trino-protocol test server for the test suite (no Trino server can be installed here).

It speaks the client REST protocol the official ``trino`` package uses — ``POST /v1/statement``,
a queued first response with ``nextUri``, then the result page with typed ``columns`` and ``data``,
``EXECUTE IMMEDIATE … USING …`` for bound parameters, and Trino-shaped errors — and executes each
statement on a DuckDB file after transpiling it from Trino's dialect with sqlglot. Test double for
the server only: the client library under test is the real one.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from assessment_engine.warehouse.store import connect_reader

_EXECUTE = re.compile(r"^\s*EXECUTE IMMEDIATE\s+'((?:[^']|'')*)'(?:\s+USING\s+(.*))?\s*$", re.S | re.I)
_TYPES = {"VARCHAR": "varchar", "BIGINT": "bigint", "INTEGER": "integer", "DOUBLE": "double", "BOOLEAN": "boolean",
          "TIMESTAMP": "timestamp", "DATE": "date", "HUGEINT": "bigint", "FLOAT": "real"}


def _param(node: exp.Expression) -> Any:
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return node.this
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else (int(node.this) if node.is_int else float(node.this))
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal):  # the client sends a float as CAST('0.5' AS DOUBLE)
        value = _param(node.this)
        return float(value) if node.to.is_type("double", "real", "decimal") else value
    raise ValueError(f"unsupported parameter {node.sql()}")


def _trino_type(duck_type: str) -> tuple[str, dict[str, Any]]:
    """(type name, typeSignature) as a real coordinator reports them."""
    base = duck_type.split("(")[0].upper()
    if base == "DECIMAL":
        precision, scale = (int(x) for x in duck_type[duck_type.index("(") + 1:-1].split(","))
        return f"decimal({precision},{scale})", {"rawType": "decimal", "arguments": [
            {"kind": "LONG", "value": precision}, {"kind": "LONG", "value": scale}]}
    raw = _TYPES.get(base, "varchar")
    if raw == "varchar":
        return "varchar", {"rawType": "varchar", "arguments": [{"kind": "LONG", "value": 2147483647}]}
    if raw == "timestamp":
        return "timestamp(3)", {"rawType": "timestamp", "arguments": [{"kind": "LONG", "value": 3}]}
    return raw, {"rawType": raw, "arguments": []}


def _value(v: Any) -> Any:
    if isinstance(v, dt.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v


class TrinoProtocolServer:
    def __init__(self, duckdb_path: Path, port: int) -> None:
        self.duckdb_path = duckdb_path
        self.port = port
        self.statements: list[str] = []  # what the client sent, for assertions
        self._pending: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._con = connect_reader(duckdb_path)  # the product's reader configuration (one per process)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _send(self, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                if self.path != "/v1/statement":
                    self.send_error(404)
                    return
                sql = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                self._send(server.submit(sql, self.headers.get("X-Trino-User")))

            def do_GET(self) -> None:  # noqa: N802
                m = re.match(r"^/v1/statement/executing/([\w-]+)/1$", self.path)
                if not m:
                    self.send_error(404)
                    return
                self._send(server.result(m.group(1)))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> TrinoProtocolServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._con.close()

    def _uri(self, query_id: str) -> str:
        return f"http://127.0.0.1:{self.port}/v1/statement/executing/{query_id}/1"

    def submit(self, sql: str, user: str | None) -> dict[str, Any]:
        query_id = f"20261122_{uuid.uuid4().hex[:12]}"
        self.statements.append(sql)
        with self._lock:
            self._pending[query_id] = self._execute(sql, query_id)
        return {"id": query_id, "infoUri": f"http://127.0.0.1:{self.port}/ui/query.html?{query_id}",
                "nextUri": self._uri(query_id), "stats": {"state": "QUEUED", "queued": True, "scheduled": False}}

    def result(self, query_id: str) -> dict[str, Any]:
        with self._lock:
            body = self._pending.pop(query_id, {"id": query_id, "stats": {"state": "FAILED"}, "error": {
                "message": "unknown query", "errorCode": 1, "errorName": "GENERIC_USER_ERROR", "errorType": "USER_ERROR"}})
        return {"infoUri": f"http://127.0.0.1:{self.port}/ui/query.html?{query_id}", **body}

    def _execute(self, sql: str, query_id: str) -> dict[str, Any]:
        params: list[Any] = []
        m = _EXECUTE.match(sql)
        if m:
            sql = m.group(1).replace("''", "'")
            if m.group(2):
                params = [_param(e) for e in sqlglot.parse_one(f"SELECT {m.group(2)}", read="trino").expressions]
        try:
            duck_sql = sqlglot.transpile(sql, read="trino", write="duckdb")[0]
            cur = self._con.cursor()
            cur.execute(duck_sql, params)
            rows = cur.fetchall()
            columns = []
            for d in cur.description or []:
                type_name, signature = _trino_type(str(d[1]))
                columns.append({"name": d[0], "type": type_name, "typeSignature": signature})
            cur.close()
        except (duckdb.Error, sqlglot.errors.SqlglotError, ValueError) as exc:
            return {"id": query_id, "stats": {"state": "FAILED"}, "error": {
                "message": str(exc), "errorCode": 1, "errorName": "GENERIC_USER_ERROR", "errorType": "USER_ERROR"}}
        return {"id": query_id, "columns": columns, "data": [[_value(v) for v in row] for row in rows],
                "stats": {"state": "FINISHED", "queued": False, "scheduled": True}}
