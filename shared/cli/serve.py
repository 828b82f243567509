"""``biblioteca serve``: every function at ``/<name>`` and the built site at ``/``, one server.

It runs on gunicorn's threaded worker, the server functions-framework runs in production.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import flask
import functions_framework
from markupsafe import escape
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.dispatcher import DispatcherMiddleware

from shared.cli.output import setup
from shared.cli.site_refresh import Refresher, after_writes, site_builder
from shared.config import get_settings
from shared.dialects.assets import ASSET_DIR
from shared.errors import BibliotecaError, NotFound
from shared.http import error_response
from shared.logs import configure_logging, get_logger
from shared.site.paths import NOT_FOUND
from shared.text.safe_assets import ASSET_CSP, delivery

FUNCTIONS_DIR = Path(__file__).resolve().parents[2] / "functions"
_log = get_logger("serve")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="serve every function and the site locally")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("PORT", "8080")),
        help="port to listen on (default: $PORT or 8080)",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="load the demo wiki first when the store is empty; without "
        "BIBLIOTECA_DATA_DIR the store is ./.biblioteca/demo, apart from your own docs'",
    )
    parser.add_argument(
        "--no-rebuild",
        action="store_true",
        help="do not rebuild the local site after writes (by default: 2 s after the last one)",
    )
    parser.add_argument(
        "--no-enrich",
        action="store_true",
        help="do not run the enrichment worker (by default: it follows the change log, "
        "unless BIBLIOTECA_ENRICH=off)",
    )
    parser.set_defaults(handler=run, prepare=prepare)


def function_names(functions_dir: Path = FUNCTIONS_DIR) -> list[str]:
    """Every HTTP Cloud Function of the bundle: one folder with a main.py each. An event
    function (``enrich``, on Pub/Sub) is not an address: ``serve``'s own worker follows
    the change log instead."""
    return sorted(
        p.parent.name
        for p in functions_dir.glob("*/main.py")
        if "@functions_framework.cloud_event" not in p.read_text(encoding="utf-8")
    )


def build_app(functions_dir: Path = FUNCTIONS_DIR) -> Any:
    """One WSGI app: functions-framework's own app per HTTP function, mounted at
    ``/<name>``."""
    mounts = {
        f"/{name}": _at_root(
            functions_framework.create_app(  # type: ignore[no-untyped-call]
                name, str(functions_dir / name / "main.py")
            )
        )
        for name in function_names(functions_dir)
    }
    return DispatcherMiddleware(site_app(), mounts)


def _at_root(app: Any) -> Any:
    """Let a function mounted at ``/<name>`` see ``/`` for the bare path.

    DispatcherMiddleware leaves PATH_INFO empty for ``/wiki_create``, and Flask answers
    an empty path with a 308 to ``/wiki_create/``: a POST to the contract's URL must
    not be redirected.
    """

    def at_root(environ: dict[str, Any], start_response: Any) -> Any:
        if not environ.get("PATH_INFO"):
            environ["PATH_INFO"] = "/"
        return app(environ, start_response)

    return at_root


_ANY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def site_app() -> flask.Flask:
    """The built site (when ``BIBLIOTECA_SITE_DIR`` is a local folder), else a landing page;
    and the API's OpenAPI document at ``/openapi.json``.

    An address the built site lacks is its own ``404.html`` (status 404) for a browser
    (a GET that accepts ``text/html``); anything else (another method, an API client) is
    the contract's JSON 404, naming the functions: a client that mistyped a function's
    URL learns the right ones.
    """
    # No Flask static route: /static/ is the built site's own folder (the help widget).
    app = flask.Flask("biblioteca-site", static_folder=None)

    @app.errorhandler(HTTPException)
    def not_here(exc: HTTPException) -> flask.Response:
        page = _site_not_found_page() if exc.code == 404 else None
        if page is not None:
            return flask.Response(page, status=404, mimetype="text/html")
        return error_response(NotFound(f"nothing at {flask.request.path}: {_functions_line()}"))

    @app.errorhandler(Exception)
    def broken(exc: Exception) -> flask.Response:
        _log.exception("serving %s failed", flask.request.path)
        return error_response(BibliotecaError("internal error: the failure was logged"))

    @app.get("/openapi.json")
    def openapi() -> Any:
        from shared.api.openapi import document

        return flask.jsonify(document())

    @app.route("/", methods=_ANY_METHOD)
    @app.route("/<path:path>", methods=_ANY_METHOD)
    def serve_site(path: str = "") -> Any:
        if flask.request.method not in ("GET", "HEAD"):
            flask.abort(404)
        location = get_settings().site_location
        root = Path(location)
        if location.startswith("gs://") or not (root / "index.html").is_file():
            if path:
                flask.abort(404)
            return _landing(location)
        target = path if path and not path.endswith("/") else f"{path}index.html"
        if (root / target).is_dir():
            target = f"{target}/index.html"
        response = flask.send_from_directory(root.resolve(), target)
        if target.startswith(f"{ASSET_DIR}/"):
            # An imported file is shown, never run: no script, no fetch, its own origin.
            response.headers["Content-Security-Policy"] = ASSET_CSP
            response.headers["X-Content-Type-Options"] = "nosniff"
            served = delivery(target)
            if served.attachment:
                response.headers["Content-Disposition"] = "attachment"
                response.headers["Content-Type"] = served.content_type or "text/plain"
        return response

    return app


def _site_not_found_page() -> bytes | None:
    """The built site's ``404.html`` when a browser asked for the missing address."""
    request = flask.request
    if request.method not in ("GET", "HEAD"):
        return None
    if request.accept_mimetypes["text/html"] <= request.accept_mimetypes["application/json"]:
        return None  # an API client (Accept: */* or JSON) keeps the contract's body
    location = get_settings().site_location
    if location.startswith("gs://"):
        return None
    try:
        return (Path(location) / NOT_FOUND).read_bytes()
    except OSError:  # a site built before 404.html existed: the JSON body, as before
        return None


def _functions_line() -> str:
    return "the functions are " + ", ".join(f"POST /{n}" for n in function_names())


def _landing(location: str) -> flask.Response:
    names = "".join(f"<li><code>POST /{n}</code></li>" for n in function_names())
    html = (
        "<!doctype html><meta charset=utf-8><title>Biblioteca</title>"
        "<h1>Biblioteca</h1><p>No site has been built at "
        f"<code>{escape(location)}</code> yet: "
        "run <code>biblioteca rebuild</code>.</p><p>Functions:</p><ul>" + names + "</ul>"
    )
    return flask.Response(html, status=200, mimetype="text/html")


# Where `serve --demo` (make run) keeps the demo when BIBLIOTECA_DATA_DIR is unset: a
# folder of its own, so the store a user then imports their own docs into (the default
# ./.biblioteca) never holds the demo's pages.
DEMO_DATA_DIR = Path(".biblioteca") / "demo"


def prepare(args: argparse.Namespace) -> None:
    """Before the settings are read: ``--demo`` without ``BIBLIOTECA_DATA_DIR`` uses
    ``DEMO_DATA_DIR`` (set in the environment, so the server's worker reads it too).

    Whether the data folder was named decides where the serve notes itself: one nobody
    named is found by the commands run from this folder (``shared/cli/serve_state.py``).
    """
    args.data_dir_named = bool(os.environ.get("BIBLIOTECA_DATA_DIR", "").strip())
    if args.demo and not os.environ.get("BIBLIOTECA_DATA_DIR", "").strip():
        os.environ["BIBLIOTECA_DATA_DIR"] = str(DEMO_DATA_DIR)
        get_settings.cache_clear()


def _site_missing(location: str) -> bool:
    """No site has been built in this local folder yet (a bucket is the scheduler's)."""
    return not location.startswith("gs://") and not (Path(location) / "index.html").is_file()


def _has_pages(store: Any) -> bool:
    """Whether there is anything to build at start; a store that cannot be read now is
    no reason not to serve (a tutor answer needs none): the requests that need it say so."""
    try:
        return bool(store.pages.count())
    except BibliotecaError as exc:
        print(f"biblioteca serve: the site is not built at start: {exc.message}", file=sys.stderr)
        return False


def warm_in_worker() -> None:
    """In the worker, before its first request (gunicorn's ``post_worker_init``): load what
    a first question would (``Wiring.warm``: the model, the search snapshot), so the first
    question right after ``import`` costs what any other does (bench/first_question.py).
    A store or model that cannot be read now is no reason not to serve: the request that
    needs it says so."""
    from shared.bootstrap import wiring

    try:
        wiring().warm()
    except Exception:  # the server starts anyway; the first question meets the cause itself
        _log.exception("serve: the search index and model were not loaded at start")


def run(args: argparse.Namespace) -> int:
    setup(args)
    if args.demo or _site_missing(get_settings().site_location):
        # The demo is loaded (into an empty store) and built; your own docs, imported into
        # a store whose site was never built, are built too: import, then serve, is all.
        from shared.bootstrap import reset, wiring
        from shared.demo import load_demo_if_empty

        w = wiring()
        if args.demo:
            created = load_demo_if_empty(w.store, w.embedder)
            if created:
                print(f"loaded the demo wiki: {created} pages", file=sys.stderr)
        if args.demo or _has_pages(w.store):
            report = w.rebuild()
            print(f"site {report.status}: {report.built} pages built", file=sys.stderr)
        # The server forks its worker: no SQLite connection may cross the fork.
        reset()
    configure_logging(stream=sys.stdout)  # the worker's own refusals log as JSON too
    # gunicorn only here: every other command (and a system without fork) does without it.
    from shared.cli import serve_state, server
    from shared.cli.store_note import describe

    settings = get_settings()
    rebuilds = not args.no_rebuild and not settings.site_location.startswith("gs://")
    # Whoever can read this serve's note (its user) may ask it to rebuild after a write.
    key = secrets.token_urlsafe(24) if rebuilds else ""

    def ready(arbiter: Any) -> None:
        port = arbiter.LISTENERS[0].sock.getsockname()[1]
        url = serve_state.connectable(args.host, port)
        unnamed = not getattr(args, "data_dir_named", True)
        serve_state.record(settings, url, describe(settings), key, default_copy=unnamed)
        print(f"Biblioteca serving on http://{args.host}:{port}/", file=sys.stderr, flush=True)

    app = build_app()
    if rebuilds:
        app = after_writes(app, Refresher(site_builder), key)
    from shared.cli.enrich_worker import start_in_worker

    def started(worker: Any) -> None:
        warm_in_worker()
        if not args.no_enrich:
            start_in_worker(worker)

    try:
        return server.run(app, args.host, args.port, ready=ready, worker_started=started)
    finally:
        serve_state.forget(settings)
