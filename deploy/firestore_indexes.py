"""Deploy firestore.indexes.json with gcloud alone: composite indexes, then field overrides.

``firebase deploy --only firestore:indexes`` reads this file natively but needs Node and
the Firebase CLI in the build; gcloud is already in the Cloud Build image and can create
the same indexes, one command each. Existing composite indexes are listed first and
skipped, so a rerun creates only what is missing. Creation is ``--async``: an index builds
for minutes, and waiting would hold the deploy for nothing.

    python3 deploy/firestore_indexes.py --project P [--database '(default)'] [--dry-run] [FILE]
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = ROOT / "firestore.indexes.json"
FieldKey = tuple[str, str]
IndexKey = tuple[str, str, tuple[FieldKey, ...]]


def field_key(field: dict[str, Any]) -> FieldKey:
    """One index field as comparable data: ``(path, "order:ASCENDING")`` and the like."""
    path = str(field["fieldPath"])
    if "order" in field:
        return path, f"order:{str(field['order']).upper()}"
    if "arrayConfig" in field:
        return path, f"array:{str(field['arrayConfig']).upper()}"
    if "vectorConfig" in field:
        vector = field["vectorConfig"]
        kind = (
            "flat" if "flat" in vector else ",".join(sorted(k for k in vector if k != "dimension"))
        )
        return path, f"vector:{int(vector['dimension'])}:{kind}"
    raise ValueError(f"index field {path!r} has no order, arrayConfig or vectorConfig")


def index_key(index: dict[str, Any]) -> IndexKey:
    """A composite index as comparable data; Firestore's implicit trailing __name__ dropped."""
    fields = [field_key(f) for f in index["fields"]]
    while fields and fields[-1][0] == "__name__":
        fields.pop()
    group = str(index.get("collectionGroup") or str(index.get("name", "")).split("/")[-3])
    return group, str(index.get("queryScope", "COLLECTION")).upper(), tuple(fields)


def _gcloud_field(field: dict[str, Any]) -> dict[str, Any]:
    path = str(field["fieldPath"])
    if "order" in field:
        return {"field-path": path, "order": str(field["order"]).lower()}
    if "arrayConfig" in field:
        return {"field-path": path, "array-config": str(field["arrayConfig"]).lower()}
    vector = field["vectorConfig"]
    return {
        "field-path": path,
        "vector-config": {"dimension": int(vector["dimension"]), "flat": {}},
    }


def composite_commands(
    spec: dict[str, Any], database: str, existing: Iterable[IndexKey] = ()
) -> list[list[str]]:
    """``gcloud firestore indexes composite create`` for each index not already there."""
    have = set(existing)
    commands = []
    for index in spec.get("indexes", []):
        if index_key(index) in have:
            continue
        have.add(index_key(index))
        scope = str(index.get("queryScope", "COLLECTION")).lower().replace("_", "-")
        fields = [_gcloud_field(f) for f in index["fields"]]
        commands.append(
            [
                "gcloud",
                "firestore",
                "indexes",
                "composite",
                "create",
                f"--database={database}",
                f"--collection-group={index['collectionGroup']}",
                f"--query-scope={scope}",
                f"--field-config={json.dumps(fields, separators=(',', ':'))}",
                "--async",
            ]
        )
    return commands


def override_commands(spec: dict[str, Any], database: str) -> list[list[str]]:
    """``gcloud firestore indexes fields update`` (and TTL) for each field override."""
    commands = []
    for override in spec.get("fieldOverrides", []):
        path, group = str(override["fieldPath"]), str(override["collectionGroup"])
        base = ["gcloud", "firestore", "indexes", "fields", "update", path]
        where = [f"--database={database}", f"--collection-group={group}"]
        indexes = override.get("indexes", [])
        if not indexes:
            commands.append([*base, *where, "--disable-indexes", "--async"])
        else:
            flags = []
            for index in indexes:
                if str(index.get("queryScope", "COLLECTION")).upper() != "COLLECTION":
                    raise ValueError(
                        f"{group}.{path}: gcloud sets single-field indexes of collection scope "
                        "only; a COLLECTION_GROUP override needs the Firebase CLI"
                    )
                key, value = field_key({"fieldPath": path, **index})[1].split(":", 1)
                flags.append(f"--index={'array-config' if key == 'array' else key}={value.lower()}")
            commands.append([*base, *where, *flags, "--async"])
        if override.get("ttl") is True:
            commands.append(
                ["gcloud", "firestore", "fields", "ttls", "update", path, *where, "--enable-ttl"]
            )
    return commands


def existing_indexes(database: str, project: str | None) -> list[IndexKey]:
    """The composite indexes the database already has (any state)."""
    command = ["gcloud", "firestore", "indexes", "composite", "list", f"--database={database}"]
    command += [f"--project={project}"] if project else []
    listed = subprocess.run(  # noqa: S603 - argv built here, no shell
        [*command, "--format=json"], capture_output=True, text=True, check=True
    ).stdout
    return [index_key(i) for i in json.loads(listed or "[]")]


def run(commands: Sequence[list[str]], project: str | None) -> int:
    """Run each command; an index that already exists is success. Returns failures."""
    failures = 0
    for command in commands:
        full = [*command, f"--project={project}"] if project else list(command)
        print("+", shlex.join(full), flush=True)
        done = subprocess.run(full, capture_output=True, text=True, check=False)  # noqa: S603
        output = done.stdout + done.stderr
        if (
            done.returncode != 0
            and "ALREADY_EXISTS" not in output
            and "already exists" not in output
        ):
            print(output, file=sys.stderr)
            failures += 1
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--project", help="GCP project (default: gcloud's configured one)")
    parser.add_argument("--database", default="(default)")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    args = parser.parse_args(argv)
    spec = json.loads(args.file.read_text(encoding="utf-8"))
    existing = [] if args.dry_run else existing_indexes(args.database, args.project)
    commands = composite_commands(spec, args.database, existing)
    commands += override_commands(spec, args.database)
    if args.dry_run:
        for command in commands:
            print(shlex.join(command))
        return 0
    print(
        f"{len(spec.get('indexes', []))} composite indexes in {args.file.name}, "
        f"{len(existing)} already in the database"
    )
    return 1 if run(commands, args.project) else 0


if __name__ == "__main__":
    sys.exit(main())
