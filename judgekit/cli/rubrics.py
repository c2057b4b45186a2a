"""``judgekit rubrics list`` and ``judgekit rubrics show NAME``."""

from __future__ import annotations

import argparse

from judgekit.cli._common import print_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rubrics", help="list the audit rubrics or show one",
                       description="List the IFE rubrics audits can use, or show one.")
    rsub = p.add_subparsers(dest="rubrics_command", metavar="ACTION")
    ls = rsub.add_parser("list", help="list the rubrics")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(func=run_list)
    show = rsub.add_parser("show", help="show one rubric as the judge reads it")
    show.add_argument("name", metavar="NAME|PATH")
    show.add_argument("--json", action="store_true", help="print the parsed metadata as JSON")
    show.set_defaults(func=run_show)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_list(args: argparse.Namespace) -> int:
    from judgekit.audit.rubric import list_rubrics

    rubrics = list_rubrics()
    if args.json:
        print_json([{"id": r.id, "title": r.title, "benchmark": r.benchmark,
                     "version": r.version, "categories": [c.name for c in r.categories]}
                    for r in rubrics])
        return 0
    width = max((len(r.id) for r in rubrics), default=0)
    for r in rubrics:
        print(f"{r.id:<{width}}  {len(r.categories):>2} categories  {r.title}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from judgekit.audit.rubric import load_rubric

    rubric = load_rubric(args.name)
    if args.json:
        print_json(rubric.model_dump(mode="json"))
    else:
        print(rubric.render(), end="")
    return 0
