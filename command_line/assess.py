"""The ``assess`` console script (DESIGN §12): ask, eval, serve."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from foundation.config import PROJECT_ROOT, app_secret, get_settings


def _cmd_ask(args: argparse.Namespace) -> int:
    from orchestration.runtime import handle_turn

    state = handle_turn(args.prompt, thread_id=args.thread, user_id=args.user)
    if not args.json:
        print(f"(thread {state.input.thread_id}, turn {state.conversation.turn_number})", file=sys.stderr)
    if args.json:
        print(json.dumps(state.model_dump(mode="json"), indent=2))
    else:
        print(state.final.answer)
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from orchestration.evaluation import load_cases, render_scorecard, run_cases

    try:
        cases = load_cases(Path(args.file))
    except (OSError, ValueError) as exc:
        print(f"assess eval: {exc}", file=sys.stderr)
        return 2
    report = run_cases(cases)
    print(json.dumps(report, indent=2) if args.json else render_scorecard(report))
    return 0


def _cmd_eval_frames(args: argparse.Namespace) -> int:
    from orchestration import frame_eval
    from orchestration.services import build_services

    services = build_services()
    try:
        questions = frame_eval.load_corpus(Path(args.corpus) if args.corpus else services.settings.frames_corpus)
    except (OSError, ValueError) as exc:
        print(f"assess eval-frames: {exc}", file=sys.stderr)
        return 2
    scores = frame_eval.evaluate(questions, services, args.split)
    print(frame_eval.render(scores, args.split, args.verbose))
    return 0


def _cmd_eval_knowledge(args: argparse.Namespace) -> int:
    from foundation.config import get_settings, using_data_dir
    from orchestration import knowledge_eval

    try:
        parts = [(Path(f).stem, knowledge_eval.load(Path(f))) for f in args.files]
    except (OSError, ValueError) as exc:
        print(f"assess eval-knowledge: {exc}", file=sys.stderr)
        return 2
    with knowledge_eval.eval_data_dir(get_settings().data_dir) as copy, using_data_dir(copy):
        for name, cases in parts:
            print(knowledge_eval.render(name, knowledge_eval.run(cases), args.verbose))
    return 0


def _cmd_trace_export(args: argparse.Namespace) -> int:
    from orchestration.services import build_services
    from orchestration.trace_export import TraceAccessError, thread_states, to_json, to_markdown

    try:
        states = thread_states(args.thread, args.user, build_services().memory())
    except TraceAccessError as exc:
        print(f"assess trace export: {exc}", file=sys.stderr)
        return 2
    text = to_json(args.thread, states) if args.format == "json" else to_markdown(args.thread, states)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {len(states)} turns to {args.output}")
    else:
        print(text)
    return 0


def _cmd_prefs(args: argparse.Namespace) -> int:
    from orchestration.services import build_services

    store = build_services().memory()
    if args.action == "remove":
        removed = store.remove_preference(args.user, args.key)
        print(f"removed {removed} preference(s)")
        return 0
    prefs = store.preferences(args.user)
    for key, value in prefs.items():
        print(f"{key} = {value}")
    for c in store.corrections(args.user):
        print(f"correction: {c['entity_type']} '{c['wrong']}' → '{c['right']}'")
    if not prefs:
        print("no preferences")
    return 0


def _cmd_ddl(args: argparse.Namespace) -> int:
    from orchestration.services import build_services

    for statement in build_services().catalog.ontology.ddl(args.engine, args.table_format if args.engine == "trino" else None):
        print(statement + ";")
    return 0


def _cmd_demo_build(args: argparse.Namespace) -> int:
    from assessment_engine.warehouse.build import build_demo_warehouse
    from orchestration.services import build_services

    services = build_services()
    path = services.settings.warehouse_path
    if path.exists() and not args.force:
        print(f"{path} exists; use --force to rebuild it")
        return 0
    r = build_demo_warehouse(path, services.catalog, devices=args.devices, seed=args.seed, runs=args.runs)
    print(f"built {r.path}: {r.devices} devices at {r.sites} sites, {r.assessments} assessments, {r.results} results, "
          f"{r.slic_results} SLIC results, {r.events} events in {r.seconds} s")
    ensure_demo_data()
    return 0


def _cmd_model_export(args: argparse.Namespace) -> int:
    from knowledge_base.onnx_export import export

    settings = get_settings()
    try:
        print(export(settings.model_path, settings.onnx_model_path, force=args.force))
    except Exception as exc:  # no export: the torch runtime answers instead, and says so
        print(f"assess model export: not exported ({type(exc).__name__}: {str(exc)[:200]}); the embedding model runs "
              "on torch", file=sys.stderr)
        return 1
    return 0


def _cmd_assess_configs(args: argparse.Namespace) -> int:
    from assessment_engine.warehouse.store import WarehouseUnavailable
    from assessment_engine.warehouse.user_configs import assess_folder, command_line_workers
    from orchestration.services import build_services

    folder = Path(args.folder)
    if not folder.is_dir():
        print(f"assess assess-configs: {folder} is not a folder", file=sys.stderr)
        return 2
    services = build_services()
    rules = services.catalog.rules.rules
    try:
        # fixes are written from each parsed configuration, which worker processes do not send back
        report = assess_folder(folder, services.catalog, services.settings, site=args.site, label=args.label, collection=args.collection,
                               owner=args.owner, workers=1 if args.fixes else command_line_workers(),
                               judgements=args.json or args.fixes)
    except (WarehouseUnavailable, ValueError) as exc:
        print(f"assess assess-configs: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"assessment_id": report.assessment_id, "collection": report.collection, "files": [
            f.judgement.as_dict(rules if args.fixes else None) if f.judgement else {"file": f.name, "hostname": None, "platform": None,
                                                      "accepted": False, "reason": f.message, "results": []}
            for f in report.files if f.judgement or not f.ok]}, indent=1))
        return 0 if report.assessed else 1
    for f in report.files:
        print(("ok    " if f.ok else "skip  ") + f.message)
        for fix in f.judgement.fixes(rules) if args.fixes and f.ok and f.judgement else []:
            print(f"  fix {fix.rule_id} ({fix.label}):")
            print("\n".join(f"      {line}" for line in fix.shown))
    for warning in report.warnings:
        print("warn  " + warning)
    for line in report.platform_summary():
        print("platform  " + line)
    print(f"{report.assessed} of {len(report.files)} files assessed"
          + (f" into {report.assessment_id} (collection {report.collection}; the fleet's latest assessment is "
             "unchanged)" if report.assessment_id else "; nothing was written"))
    return 0 if report.assessed else 1


def _cmd_bench_data(args: argparse.Namespace) -> int:
    from benchmarks.warehouse import run_benchmark

    run_benchmark(devices=args.devices, runs=args.runs, repeat=args.repeat,
                  workdir=Path(args.workdir) if args.workdir else None)
    return 0


def _print_ingest(report: object) -> None:
    from knowledge_base.ingest import IngestReport

    assert isinstance(report, IngestReport)
    for f in report.files:
        print(f"{f.status:<9} {f.message}")
    print(f"{report.chunks_added} chunks added, {report.duplicates_skipped} duplicates skipped, "
          f"{len(report.errors)} errors in {report.seconds:.2f} s ({report.chunks_per_second:.1f} chunks/s)")


def _cmd_ingest(args: argparse.Namespace) -> int:
    from knowledge_base.ingest import ingest_paths
    from orchestration.services import build_services

    report = ingest_paths(build_services().knowledge(), [Path(p) for p in args.paths],
                          progress=lambda name, i, n: print(f"[{i}/{n}] {name}", file=sys.stderr))
    _print_ingest(report)
    return 1 if report.errors and not report.chunks_added and not report.duplicates_skipped else 0


def _cmd_kb_list(args: argparse.Namespace) -> int:
    from orchestration.services import build_services

    docs = build_services().knowledge().index.sources()
    for d in docs:
        print(f"{d['source']:<48} {d['chunks']:>4} chunks  {d['topic']:<24} {d['title']}")
    print(f"{len(docs)} documents")
    return 0


def _cmd_kb_remove(args: argparse.Namespace) -> int:
    from orchestration.services import build_services

    removed = build_services().knowledge().index.remove_source(args.source)
    print(f"removed {removed} chunks of {args.source}" if removed else f"no document named {args.source}")
    return 0 if removed else 1


def _cmd_kb_eval(args: argparse.Namespace) -> int:
    from knowledge_base.evaluation import evaluate, load_questions
    from orchestration.services import build_services

    questions = load_questions()
    results = evaluate(build_services().knowledge().retriever, questions)
    if args.json:
        print(json.dumps({"questions": len(questions), "results": results}, indent=2))
        return 0
    print(f"{len(questions)} labelled questions")
    for mode, m in results.items():
        print(f"  {mode:<7} recall@5 {m['recall_at_5']:.3f}  MRR {m['mrr']:.3f}  "
              f"query median {m['latency_ms_median']} ms, p95 {m['latency_ms_p95']} ms")
    return 0


def _cmd_bench_memory(args: argparse.Namespace) -> int:
    from benchmarks.memory import run

    run(turns=args.turns, samples=args.samples)
    return 0


def _cmd_bench_turns(args: argparse.Namespace) -> int:
    from benchmarks.turns import run

    run(rounds=args.rounds, devices=[int(n) for n in args.devices.split(",")] if args.devices else None, runs=args.runs,
        workdir=Path(args.workdir) if args.workdir else None)
    return 0


def _cmd_bench_concurrency(args: argparse.Namespace) -> int:
    from benchmarks.chat import concurrency

    concurrency(sessions=args.sessions, questions=args.questions, timeout=args.timeout,
                workers=[int(n) for n in args.workers.split(",")] if args.workers else None)
    return 0


def _cmd_bench_queries(args: argparse.Namespace) -> int:
    from benchmarks.queries import queries

    queries()
    return 0


def _cmd_bench_replicas(args: argparse.Namespace) -> int:
    from benchmarks.replicas import replicas

    replicas(sessions=args.sessions, questions=args.questions, timeout=args.timeout, database_url=args.database_url)
    return 0


def _cmd_bench_coldstart(args: argparse.Namespace) -> int:
    from benchmarks.chat import coldstart, import_floor

    for workers in [int(n) for n in args.workers.split(",")] if args.workers else [None]:
        coldstart(timeout=args.timeout, workers=workers)
    import_floor()
    return 0


def _cmd_bench_upload(args: argparse.Namespace) -> int:
    from benchmarks.uploads import run

    run(count=args.configs, repeat=args.repeat)
    return 0


def _cmd_bench_kb(args: argparse.Namespace) -> int:
    from benchmarks.knowledge import run

    run([int(s) for s in args.sizes.split(",")] if args.sizes else [],
        corpus=[int(s) for s in args.corpus.split(",")] if args.corpus else [], files=args.files)
    return 0


def ensure_demo_data() -> None:
    """Warehouse and seed knowledge base on first run; existing data is left alone."""
    from assessment_engine.warehouse.build import ensure_demo_warehouse
    from knowledge_base.ingest import ensure_seed_index
    from orchestration.services import build_services

    services = build_services()
    built = ensure_demo_warehouse(services.settings.warehouse_path, services.catalog)
    if built:
        print(f"first run: built the demo warehouse ({built.devices} devices) in {built.seconds} s")
    added = ensure_seed_index(services.knowledge())
    if added:
        print(f"first run: ingested the seed knowledge base ({added} chunks)")


def preflight() -> list[str]:
    """Every store and the model the server needs, opened once: what cannot be used, one line each (a store that
    does not exist yet is no problem: the first run builds the demo data)."""
    import sqlite3

    from assessment_engine.warehouse.store import WarehouseUnavailable, open_warehouse
    from foundation.yaml_files import ContractError
    from knowledge_base.embeddings import model_problem
    from orchestration.catalog import Catalog, load_catalog
    from orchestration.memory.store import MemoryStore, MemoryUnavailable

    settings = get_settings()
    problems = [p for p in [model_problem(settings)] if p]
    catalogs: list[Catalog] = []  # read once: the warehouse is opened with its ontology
    checks: list[Callable[[], object]] = [lambda: catalogs.append(load_catalog(settings.contracts_dir)),
                                          lambda: MemoryStore(url=settings.memory_url)]

    def warehouse_opens() -> None:
        if catalogs:  # else the catalog's own problem is already reported
            reader = open_warehouse(settings, catalogs[0].ontology)
            getattr(reader, "close", lambda: None)()

    if settings.warehouse_backend != "duckdb" or settings.warehouse_path.exists():  # a missing one is built next
        checks.append(warehouse_opens)
    for check in checks:
        try:
            check()
        except (ContractError, MemoryUnavailable, WarehouseUnavailable) as exc:
            problems.append(str(exc))
    index = settings.index_dir / "chunks.sqlite"
    if not settings.knowledge_url.startswith("sqlite"):
        from foundation.database import DatabaseUnavailable
        from orchestration.services import build_services

        try:
            build_services(settings).knowledge().has_chunks()  # read without loading the model
        except DatabaseUnavailable as exc:
            problems.append(f"the knowledge base at {exc.where} cannot be used ({exc.reason}); {exc.remedy}")
    elif index.exists():
        try:
            with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as con:
                con.execute("SELECT COUNT(*) FROM chunks").fetchone()
        except sqlite3.DatabaseError as exc:
            problems.append(f"the knowledge index at {index} cannot be read ({exc}); move it aside and run "
                            "'assess ingest' or restart to rebuild the seed corpus")
    return problems


def _cmd_serve(args: argparse.Namespace) -> int:
    problems = preflight()
    if problems:
        for problem in problems:
            print(f"assess serve: {problem}", file=sys.stderr)
        print("assess serve: not started", file=sys.stderr)
        return 2
    ensure_demo_data()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "CHAINLIT_APP_ROOT": str(PROJECT_ROOT)}
    env.setdefault("CHAINLIT_AUTH_SECRET", app_secret(get_settings()))
    # the browser API answers only the app's own pages (Chainlit's default allows every origin)
    env.setdefault("ASSESS_ALLOWED_ORIGINS", ",".join(dict.fromkeys(
        f"http://{host}:{args.port}" for host in (args.host, "127.0.0.1", "localhost"))))
    cmd = [sys.executable, "-m", "chainlit", "run", str(PROJECT_ROOT / "chat_app" / "app.py"),
           "--host", args.host, "--port", str(args.port), "--headless"]
    # become Chainlit (no child process): a signal to 'assess serve' reaches the server itself, nothing survives it
    os.chdir(PROJECT_ROOT)
    os.execve(sys.executable, cmd, env)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assess", description="Assessment Assistant command line.")
    sub = parser.add_subparsers(dest="command", required=True)

    ask = sub.add_parser("ask", help="ask one question (one turn)")
    ask.add_argument("prompt")
    ask.add_argument("--thread", default=None, help="conversation thread id (default: a new conversation)")
    ask.add_argument("--user", default="local", help="user id")
    ask.add_argument("--json", action="store_true", help="print the turn's final STATE as JSON")
    ask.set_defaults(func=_cmd_ask)

    ev = sub.add_parser("eval", help="run evaluation cases and print a scorecard")
    ev.add_argument("file")
    ev.add_argument("--json", action="store_true", help="print cases with checks and full STATE as JSON")
    ev.set_defaults(func=_cmd_eval)

    evf = sub.add_parser("eval-frames", help="question-frame accuracy per slot on the labelled corpus's held-out part")
    evf.add_argument("--corpus", help="labelled questions (default: evals/question_frames.jsonl)")
    evf.add_argument("--split", default="test", choices=("test", "train"))
    evf.add_argument("--verbose", action="store_true", help="list every question read wrong")
    evf.set_defaults(func=_cmd_eval_frames)

    evk = sub.add_parser("eval-knowledge", help="citation precision and answer recall of answers built from documents "
                                                "(evals/knowledge), on a copy of the data with the eval's uploads")
    evk.add_argument("files", nargs="+", help="question files, e.g. evals/knowledge/questions.yaml")
    evk.add_argument("--verbose", action="store_true", help="show every question answered wrong, with its answer")
    evk.set_defaults(func=_cmd_eval_knowledge)

    ddl = sub.add_parser("ddl", help="CREATE TABLE statements of the warehouse tables (contracts/warehouse.yaml) for "
                                     "an engine, e.g. Trino with Iceberg or Hive tables")
    ddl.add_argument("--engine", default="trino", choices=["trino", "duckdb", "postgres", "sqlite"])
    ddl.add_argument("--table-format", default="iceberg", choices=["iceberg", "hive", "none"],
                     help="Trino only: Parquet tables in the Iceberg or Hive connector (none: no WITH clause)")
    ddl.set_defaults(func=_cmd_ddl)

    demo = sub.add_parser("demo", help="demo data").add_subparsers(dest="demo_command", required=True)
    build = demo.add_parser("build", help="generate the demo network and its assessments into the warehouse")
    build.add_argument("--devices", type=int, default=150)
    build.add_argument("--seed", type=int, default=7)
    build.add_argument("--runs", type=int, default=4, help="assessment runs (at least 3 show drift)")
    build.add_argument("--force", action="store_true", help="replace an existing warehouse")
    build.set_defaults(func=_cmd_demo_build)

    model = sub.add_parser("model", help="the embedding model").add_subparsers(dest="model_command", required=True)
    mexp = model.add_parser("export", help="export the embedding model for ONNX Runtime (make install runs it)")
    mexp.add_argument("--force", action="store_true", help="export again over an existing export")
    mexp.set_defaults(func=_cmd_model_export)

    up = sub.add_parser("assess-configs", help="assess a folder of device configs into a new assessment of its "
                                               "own collection (never the fleet)")
    up.add_argument("folder")
    up.add_argument("--collection", default=None,
                    help="collection to add the assessment to, e.g. lab-east (default: a new one per run)")
    up.add_argument("--owner", default=None, help="user the collection belongs to (default: everyone)")
    up.add_argument("--site", default="Uploaded", help="site to file new devices under")
    up.add_argument("--label", default=None)
    up.add_argument("--json", action="store_true", help="print every file's platform, acceptance and per-rule (per "
                                                        "interface) verdicts as JSON")
    up.add_argument("--fixes", action="store_true", help="write each failing rule's fix for the device from its "
                                                         "evidence, and prove it by re-judging the patched config")
    up.set_defaults(func=_cmd_assess_configs)

    bench = sub.add_parser("bench", help="benchmarks").add_subparsers(dest="bench_command", required=True)
    data = bench.add_parser("data", help="tool calls and SQL-path queries on DuckDB vs SQLite")
    data.add_argument("--devices", type=int, default=10_000)
    data.add_argument("--runs", type=int, default=3)
    data.add_argument("--repeat", type=int, default=5)
    data.add_argument("--workdir", default=None)
    data.set_defaults(func=_cmd_bench_data)

    trace = sub.add_parser("trace", help="conversation traces").add_subparsers(dest="trace_command", required=True)
    exp = trace.add_parser("export", help="every turn's STATE as JSON, or a Markdown report")
    exp.add_argument("--thread", required=True)
    exp.add_argument("--format", choices=["json", "md"], default="json")
    exp.add_argument("--user", default=None, help="only export if this user owns the thread")
    exp.add_argument("--output", default=None, help="write to this file instead of standard output")
    exp.set_defaults(func=_cmd_trace_export)

    prefs = sub.add_parser("prefs", help="show or remove a user's preferences and remembered corrections")
    prefs.add_argument("action", choices=["list", "remove"], nargs="?", default="list")
    prefs.add_argument("key", nargs="?", default=None)
    prefs.add_argument("--user", default="local")
    prefs.set_defaults(func=_cmd_prefs)

    ing = sub.add_parser("ingest", help="add documents (md, txt, pdf, docx, html) or folders to the knowledge base")
    ing.add_argument("paths", nargs="+")
    ing.set_defaults(func=_cmd_ingest)

    kb = sub.add_parser("kb", help="knowledge base").add_subparsers(dest="kb_command", required=True)
    kb.add_parser("list", help="list documents").set_defaults(func=_cmd_kb_list)
    rm = kb.add_parser("remove", help="remove a document by its source name")
    rm.add_argument("source")
    rm.set_defaults(func=_cmd_kb_remove)
    kev = kb.add_parser("eval", help="recall@5 and MRR of dense, BM25 and hybrid retrieval on the labelled set")
    kev.add_argument("--json", action="store_true")
    kev.set_defaults(func=_cmd_kb_eval)

    bkb = bench.add_parser("kb", help="flat vs HNSW index latency, ingestion throughput, retrieval quality")
    bkb.add_argument("--sizes", default="1000,10000,50000,100000", help="FAISS index sizes (flat vs HNSW); empty: skip")
    bkb.add_argument("--corpus", default="100,1000,10000,50000", help="corpus sizes for the retrieval sweep; empty: skip")
    bkb.add_argument("--files", type=int, default=0, help="also ingest this many generated documents in one call, "
                                                           "beside the model's raw encode rate (e.g. 500)")
    bkb.set_defaults(func=_cmd_bench_kb)

    bturn = bench.add_parser("turns", help="turn latency: first streamed step and whole turn, per node")
    bturn.add_argument("--rounds", type=int, default=2)
    bturn.add_argument("--devices", default="", help="fleet sizes to build and compare, e.g. 150,10000 (default: the "
                                                     "configured data directory)")
    bturn.add_argument("--runs", type=int, default=4, help="assessment runs per built warehouse")
    bturn.add_argument("--workdir", default=None, help="keep the built data directories here and reuse them")
    bturn.set_defaults(func=_cmd_bench_turns)

    bconc = bench.add_parser("concurrency", help="N chat sessions x M questions over the websocket against a server "
                                                 "started on loopback, beside one session alone")
    bconc.add_argument("--sessions", type=int, default=20)
    bconc.add_argument("--questions", type=int, default=5)
    bconc.add_argument("--timeout", type=float, default=120, help="seconds one answer may take before it counts as an error")
    bconc.add_argument("--workers", default="", help="turn-worker settings to compare in one run, e.g. 0,2 (default: "
                                                     "the configured ASSESS_TURN_WORKERS)")
    bconc.set_defaults(func=_cmd_bench_concurrency)
    bench.add_parser("queries", help="SQL statements per turn of the evaluation prompts, and their Trino form "
                                      "(sqlglot)").set_defaults(func=_cmd_bench_queries)
    brep = bench.add_parser("replicas", help="N chat sessions against one replica, then over two replicas sharing "
                                             "one PostgreSQL, warehouse and elements folder")
    brep.add_argument("--sessions", type=int, default=20)
    brep.add_argument("--questions", type=int, default=5)
    brep.add_argument("--timeout", type=float, default=120)
    brep.add_argument("--database-url", default=None, help="a PostgreSQL server to create the benchmark's databases "
                                                           "on; default: a throwaway PostgreSQL 15 cluster")
    brep.set_defaults(func=_cmd_bench_replicas)
    bcold = bench.add_parser("coldstart", help="assess serve to HTTP 200 and to the first answer; server memory")
    bcold.add_argument("--timeout", type=float, default=120)
    bcold.add_argument("--workers", default="", help="turn-worker settings to compare, e.g. 0,2")
    bcold.set_defaults(func=_cmd_bench_coldstart)

    bup = bench.add_parser("upload", help="uploaded configurations assessed end to end, beside parse + rules alone")
    bup.add_argument("--configs", type=int, default=600)
    bup.add_argument("--repeat", type=int, default=3)
    bup.set_defaults(func=_cmd_bench_upload)

    bmem = bench.add_parser("memory", help="per-turn latency on a long thread vs a one-turn thread")
    bmem.add_argument("--turns", type=int, default=200)
    bmem.add_argument("--samples", type=int, default=15)
    bmem.set_defaults(func=_cmd_bench_memory)

    serve = sub.add_parser("serve", help="start the chat web app (Chainlit)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(func=_cmd_serve)
    return parser


class _BriefFormatter(logging.Formatter):
    """Log lines without tracebacks on the terminal (``ASSESS_DEBUG=1`` shows them)."""

    def formatException(self, ei: Any) -> str:  # noqa: N802 - logging's name
        return "(details: run with ASSESS_DEBUG=1)"


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    debug = bool(os.environ.get("ASSESS_DEBUG"))
    handler = logging.StreamHandler()
    handler.setFormatter((logging.Formatter if debug else _BriefFormatter)("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a store, model or contract that cannot be used: one line, never a traceback
        if debug:
            raise
        print(f"assess {args.command}: {_reason(exc)}", file=sys.stderr)
        return 2


def _reason(exc: Exception) -> str:
    from assessment_engine.warehouse.store import WarehouseUnavailable
    from foundation.yaml_files import ContractError
    from knowledge_base.embeddings import EmbeddingUnavailable
    from orchestration.memory.store import MemoryUnavailable

    if isinstance(exc, (ContractError, MemoryUnavailable, WarehouseUnavailable, EmbeddingUnavailable)):
        return str(exc)
    return f"{type(exc).__name__}: {str(exc)[:300]} (run with ASSESS_DEBUG=1 for details)"


if __name__ == "__main__":
    raise SystemExit(main())
