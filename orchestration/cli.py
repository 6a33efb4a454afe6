"""The ``assess`` console script (DESIGN §12): ask, eval, serve."""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from orchestration.config import PROJECT_ROOT


def _cmd_ask(args: argparse.Namespace) -> int:
    from orchestration.runtime import handle_turn

    state = handle_turn(args.prompt, thread_id=args.thread, user_id=args.user)
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


def _cmd_serve(args: argparse.Namespace) -> int:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "CHAINLIT_APP_ROOT": str(PROJECT_ROOT)}
    cmd = [sys.executable, "-m", "chainlit", "run", str(PROJECT_ROOT / "chat_app" / "app.py"),
           "--host", args.host, "--port", str(args.port), "--headless"]
    return subprocess.call(cmd, cwd=PROJECT_ROOT, env=env)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assess", description="Assessment Assistant command line.")
    sub = parser.add_subparsers(dest="command", required=True)

    ask = sub.add_parser("ask", help="ask one question (one turn)")
    ask.add_argument("prompt")
    ask.add_argument("--thread", default="cli", help="conversation thread id")
    ask.add_argument("--user", default="local", help="user id")
    ask.add_argument("--json", action="store_true", help="print the turn's final STATE as JSON")
    ask.set_defaults(func=_cmd_ask)

    ev = sub.add_parser("eval", help="run evaluation cases and print a scorecard")
    ev.add_argument("file")
    ev.add_argument("--json", action="store_true", help="print cases with checks and full STATE as JSON")
    ev.set_defaults(func=_cmd_eval)

    serve = sub.add_parser("serve", help="start the chat web app (Chainlit)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(func=_cmd_serve)
    return parser


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
